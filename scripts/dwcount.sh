#!/bin/sh
# dwcount.sh PERF OUT.so - a measuring aid (doc/perf.md), not part of
# libsymlazy.so: writes and compiles an LD_PRELOAD library that counts the
# calls PERF makes into libdw/libdwfl (every dwarf_*/dwfl_*/dwelf_* function
# PERF imports, per `nm -D --undefined-only`), each an x86-64 trampoline
# (count, then jump to the real function found with dlsym(RTLD_NEXT)):
# arguments and results pass untouched. At exit it writes "COUNT NAME" lines
# to $DWCOUNT_OUT (default stderr). Functions perf only takes the address of
# (the Dwfl_Callbacks: dwfl_standard_find_debuginfo,
# dwfl_offline_section_address, dwfl_build_id_find_elf) are left out.
#   sh scripts/dwcount.sh /usr/bin/perf build/bin/dwcount.so
#   LD_PRELOAD=build/bin/dwcount.so:build/libsymlazy.so perf script ... 2>counts
set -eu
PERF=$1 OUT=$2
C=${OUT%.so}.c
names=$(nm -D --undefined-only "$PERF" | awk '{print $2}' | sed 's/@.*//' |
	grep -E '^(dwarf_|dwfl_|dwelf_)' |
	grep -vxE 'dwfl_standard_find_debuginfo|dwfl_offline_section_address|dwfl_build_id_find_elf')
{
	echo '#include <dlfcn.h>'
	echo '#include <stdio.h>'
	echo '#include <stdlib.h>'
	echo '#define H __attribute__((visibility("hidden")))'
	for n in $names; do
		printf 'H void *r_%s; H unsigned long c_%s;\n' "$n" "$n"
		printf '__asm__(".globl %s\\n.type %s,@function\\n%s:\\n lock incq c_%s(%%rip)\\n jmp *r_%s(%%rip)\\n");\n' \
			"$n" "$n" "$n" "$n" "$n"
	done
	echo '__attribute__((constructor)) static void init(void) {'
	for n in $names; do echo "	r_$n = dlsym(RTLD_NEXT, \"$n\");"; done
	echo '}'
	echo '__attribute__((destructor)) static void fini(void) {'
	echo '	const char *o = getenv("DWCOUNT_OUT");'
	echo '	FILE *f = o ? fopen(o, "a") : stderr;'
	echo '	if (!f) return;'
	for n in $names; do printf '\tif (c_%s) fprintf(f, "%%lu %s\\n", c_%s);\n' "$n" "$n" "$n"; done
	echo '	if (f != stderr) fclose(f);'
	echo '}'
} >"$C"
${CC:-cc} -O1 -shared -fPIC -o "$OUT" "$C" -ldl
