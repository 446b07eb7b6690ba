/* SPDX-License-Identifier: MIT */
/*
 * core/model/perf612.c - the model of perf 6.12 (Debian's linux-source-6.12 /
 * linux-perf 6.12.x of Debian 13; scripts/build-perf612.sh builds 6.12.117).
 *
 * Read against perf 6.1.187 (core/model/perf61.c) file by file in
 * tools/perf of both trees; every difference that can change which symbol
 * perf answers an address with, the name it stores, or what it was asked to
 * do, and how the model carries it:
 *
 * Demangling (util/symbol-elf.c demangle_sym, util/demangle-cxx.cpp):
 *   6.1 calls libiberty's cplus_demangle (linked statically) with
 *   DMGL_NO_OPTS, or DMGL_PARAMS|DMGL_ANSI under -v. 6.12 calls
 *   cxx_demangle_sym(name, verbose > 0, verbose > 0) of util/demangle-cxx.cpp,
 *   which is libbfd's bfd_demangle or libiberty's cplus_demangle only in
 *   BUILD_NONDISTRO builds (Makefile.config), else abi::__cxa_demangle
 *   (feature-cxa-demangle, libstdc++), which ignores both flags: names keep
 *   their parameters ("Mixer<unsigned long, 7>::churn()"), -v changes no name,
 *   and - __cxa_demangle demangles types too - a plain symbol named like a
 *   type mangling ("f", "i", "b") is stored as "float", "int", "bool". The
 *   OCaml, Java and Rust post-processing (demangle-ocaml.c, demangle-java.c,
 *   demangle-rust.c) are unchanged. The model calls perf's own exported
 *   cxx_demangle_sym / ocaml_demangle_sym / java_demangle_sym /
 *   rust_is_mangled / rust_demangle_sym when the perf executable exports them
 *   (tools/perf links with -Wl,-E for the perl/python scripting engines, so a
 *   plain `make -C tools/perf` build does; then the names are exact whatever
 *   the build options); else libstdc++'s __cxa_demangle when perf links
 *   libstdc++ and neither libLLVM nor libbfd is loaded (distribution builds:
 *   exact for C++; the OCaml/Java/Rust post-processing is not mirrored and
 *   marks the name uncertain, as for 6.1); else no name-dependent choice is
 *   trusted: a DSO whose replay needs one falls back to eager with reason
 *   "demangler" (index/model.h demangler_ready, util/reason.h).
 *   Cost: perf stores the demangled name (symbol__new copies it), which with
 *   parameters is often longer than the raw one, so the budget charges 64 +
 *   strlen(demangled) + 1 (name_cost: sl_perf_name_cost), not 6.1's
 *   64 + strlen(raw) + 1.
 *
 * PLT synthesis (util/symbol-elf.c dso__synthesize_plt_symbols), rewritten
 * in v6.2 (Adrian Hunter); still run on runtime_ss only when the load kept a
 * symbol (symbol.c dso__load: ret > 0):
 *   - needs only a section named ".plt" (6.1: .dynsym, a .rela.plt/.rel.plt
 *     linked to it, .plt); the rest is optional and failures keep what was
 *     inserted so far;
 *   - the symbol symbols__find() returns for .plt's sh_offset, if it starts
 *     before it and ends after it (a zero-size _init stretched by
 *     symbols__fixup_end), is truncated to end at .plt (6.1 printed PLT
 *     samples as "_init+0x30");
 *   - a ".plt" symbol for the header (x86: header = entry size = sh_entsize if
 *     8 or 16, else 8 if sh_addralign is 8, else 16; get_plt_sizes);
 *   - x86: one symbol per .plt.got entry (names from .rela.dyn, or
 *     "offset_0x...@plt"; dso__synthesize_plt_got_symbols);
 *   - x86 with .plt.sec: the ".plt" symbol spans all of .plt, entries are
 *     placed in .plt.sec (IBT); without .plt.sec, a .plt whose size is
 *     exactly nrel * entry has no header: the ".plt" symbol is erased
 *     (dso__delete_symbol) and entries start at .plt;
 *   - the relocation section may link to .symtab too (static executables);
 *     x86 relocations are taken in r_offset order (sort_rel), which changes
 *     names only, not positions;
 *   - an entry whose symbol has no name and whose relocation is x86-64
 *     R_X86_64_IRELATIVE is named after the symbol symbols__find() returns
 *     for the addend (converted to a file offset with the runtime PT_LOAD), if
 *     that symbol starts there and is STT_GNU_IFUNC or an "ifunc_alias"
 *     (get_ifunc_name) - a name that depends on the tree; else
 *     "offset_0x...@plt" (6.1: "@plt").
 *   symbols__fixup_duplicate marks the survivor of a pair whose other member
 *   is STT_GNU_IFUNC as ifunc_alias (symbol.h). The model says SL_PLT_V62 and
 *   dup_marks_ifunc_alias; index/symindex.c replays all of it, keeps the group
 *   an IFUNC name comes from, and compares (answer, name source) pairs.
 *
 * Unchanged (diffed): the #ifdef ELF_C_READ_MMAP guard of util/symbol.h
 *   (ELF_C_READ_MMAP is an enum constant, so perf still opens every ELF file
 *   with ELF_C_READ: the shim's mmap mechanism applies as for 6.1), the main
 *   loop of dso__load_sym_internal for user DSOs
 *   (elf_sym__is_label, elf_sym__filter, SHN_ABS, SHF_ALLOC, the text/data
 *   filter for labels, NOBITS via the runtime section, PT_LOAD adjustment),
 *   the .symtab-then-.dynsym passes with symbols__fixup_end (last symbol:
 *   roundup(start, 4096) + 4096) and symbols__fixup_duplicate after each,
 *   choose_best_symbol (length, weak, global, underscores, longer name,
 *   SyS), __symbols__insert / symbols__find (the tree is rb_root_cached:
 *   same shapes, tools/lib/rbtree.c), symbol__new (struct symbol is still 48
 *   bytes: one ifunc_alias bit added to the flag byte), dso__load's order of
 *   binary types and the syms_ss/runtime_ss choice (the binary type now
 *   prefers runtime objects over debuglink files, which changes the file perf
 *   annotate disassembles, not the symbols), no .gnu_debugdata yet (it
 *   arrived after 6.12), map__map_ip (lookups are file offsets:
 *   SL_LOOKUP_FILE_OFFSET), add_callchain_ip / thread__find_symbol
 *   (util/machine.c: callchains are looked up raw, DWARF ones at ret - 1),
 *   the perf.data records perf reads (tools/lib/perf/include/perf/event.h:
 *   up to FINISHED_INIT = 82), the --stdio annotation text (util/annotate.c
 *   prints objdump's line, not the resolved call target).
 *
 * Output differences perf makes itself (no rule for symlazy, listed so that
 * nobody looks for them in the model): perf script prints callchain entries
 * as raw ips ("perf script: print raw ip instead of binary offset for
 * callchain", 6.4; util/evsel_fprintf.c) and gains -F dsoff; C++ names with
 * parameters (above); ".plt"/"offset_0x..@plt" names.
 *
 * Invocation (perf.c, builtin-{script,report,annotate}.c):
 *   - new global option --debug-file FILE (takes the next word);
 *   - annotate --data-type[=TYPE], --type-stat, --insn-stat and report
 *     --sort/--fields type, typeoff, typecln (data-type profiling, 6.8)
 *     resolve data addresses with the whole table: eager (reason
 *     data_type_profiling);
 *   - -v no longer changes names under __cxa_demangle; with perf's own
 *     cxx_demangle_sym the flags are passed as perf passes them;
 *   - the rest (-i/--input and abbreviations, --stdio/--stdio2/--tui/--gtk,
 *     --no-demangle, TUI when stdout is a terminal, --buildid-dir, --debug
 *     verbose) as in 6.1.
 *
 * Process (util/srcline.c, util/annotate.h, Debian's build):
 *   - the addr2line child gets "-a" and runs only for a DSO with
 *     .debug_line, its argv[0] is --addr2line PATH when given, reads time
 *     out after 1 s (addr2line_subprocess_init: SL_A2L_ARGV_612);
 *   - struct annotation is down to two pointers (src, branch): perf diff's
 *     priv_size per symbol is 16 bytes (6.1: 128);
 *   - DWARF callchains are still unwound with libunwind, kallsyms filtered
 *     as in 6.1, no .gnu_debugdata pass.
 *
 * Recognition: the NUL-terminated version literal "6.12.<digits>" that perf
 * version prints (util/PERF-VERSION-GEN -> PERF_VERSION), nothing more:
 * vendor strings with a release suffix ("6.12.0-55.el10.x86_64", whose tree
 * carries backports) are not matched and stay eager unless SYMLAZY_LAZY=on.
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/models.h"
#include "index/symindex.h"

static const char *const perf612_global_with_arg[] = { "--debugfs-dir", "--debug-file", NULL };

static const struct sl_argv_rules perf612_argv_rules = {
	.global_with_arg = perf612_global_with_arg,     /* perf.c: --debug-file added */
	.verbose_demangles = 1,     /* passed to cxx_demangle_sym; __cxa_demangle ignores it */
	.data_type_options = 1,     /* builtin-annotate.c, util/sort.c (6.8) */
	.sub_with_arg = NULL,       /* no new script/report/annotate option with an argument */
	.code_with_type = 0,        /* 7.x */
	.symfs_layout = 0,          /* 7.x */
	.convert_time = 0,          /* 7.x */
	.wdiff_argv_intact = 0,     /* builtin-diff.c setup_compute_opt_wdiff(char *) as 6.1 */
};

int perf612_parse_argv(int argc, char *const argv[], struct sl_invocation *inv)
{
	return sl_perf_parse_argv(&perf612_argv_rules, argc, argv, inv);
}

/* The same outputs as 6.1 are text (ui/setup.c, builtin-annotate.c). But
 * perf annotate stays eager: 6.12's jump__parse and call__parse
 * (util/disasm.c) build their target without a reference to the map
 * (.ms.map = map), and maps__find_ams (util/maps.c) map__put()s it for every
 * target outside the map, so the annotated DSO's map loses one reference per
 * such instruction and can be freed while perf still uses it (valgrind: a
 * read of a freed struct map in maps__find, then SIGSEGV in __map__kmap).
 * Which run survives depends on how many references the map holds; under
 * lazy mode a recording was seen to crash where stock perf did not. 7.x
 * takes the reference (map__get), 6.1 never puts it. */
int perf612_text_output(struct sl_invocation *inv, int out_is_tty)
{
	if (!sl_perf_text_output(inv, out_is_tty))
		return 0;
	if (inv->annotate) {
		sl_why_set(&inv->why, SL_R_ANNOTATE_612, NULL);
		return 0;
	}
	return 1;
}

int perf612_image_matches(const char *img, size_t len)
{
	return sl_perf_image_has_version(img, len, "\0" "6.12.");
}

/* ---- the demangler ------------------------------------------------------ */

static struct perf612_demangler dem;
static const struct perf612_demangler *dem_override;
static pthread_once_t dem_once = PTHREAD_ONCE_INIT;

struct exe_probe {
	const void *addr[6];
	int in_exe[6];
	int nsyms;
	int libstdcxx, libllvm, libbfd;
	int first;
};

/* dl_iterate_phdr: the first object is the executable; which of the
 * addresses lie in its PT_LOADs, and which libraries are loaded. */
static int probe_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct exe_probe *p = data;
	const char *name = info->dlpi_name ? info->dlpi_name : "";
	int i, k;

	(void)size;
	if (p->first) {
		p->first = 0;
		for (i = 0; i < info->dlpi_phnum; i++) {
			const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
			uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;

			if (ph->p_type != PT_LOAD)
				continue;
			for (k = 0; k < p->nsyms; k++)
				if ((uintptr_t)p->addr[k] >= lo && (uintptr_t)p->addr[k] < hi)
					p->in_exe[k] = 1;
		}
		return 0;
	}
	if (strstr(name, "libstdc++"))
		p->libstdcxx = 1;
	if (strstr(name, "libLLVM"))
		p->libllvm = 1;
	if (strstr(name, "libbfd"))
		p->libbfd = 1;
	return 0;
}

static void dem_resolve(void)
{
	static const char *const names[] = { "cxx_demangle_sym", "ocaml_demangle_sym", "java_demangle_sym",
					     "rust_is_mangled", "rust_demangle_sym" };
	struct exe_probe p = { .first = 1, .nsyms = 5 };
	int k, all = 1;

	for (k = 0; k < 5; k++)
		p.addr[k] = dlsym(RTLD_DEFAULT, names[k]);
	dl_iterate_phdr(probe_cb, &p);
	for (k = 0; k < 5; k++)
		all &= p.addr[k] && p.in_exe[k];
	if (all) {
		/* perf's own functions: the exact names whatever the build */
		*(void **)&dem.cxx = (void *)p.addr[0];
		*(void **)&dem.ocaml = (void *)p.addr[1];
		*(void **)&dem.java = (void *)p.addr[2];
		*(void **)&dem.rust_is_mangled = (void *)p.addr[3];
		*(void **)&dem.rust_demangle = (void *)p.addr[4];
		dem.what = "perf's cxx_demangle_sym";
		return;
	}
	if (p.libllvm || p.libbfd) {
		snprintf(dem.why, sizeof(dem.why),
			 "this perf demangles with %s, which symlazy cannot call (perf exports no cxx_demangle_sym)",
			 p.libllvm ? "libLLVM" : "libbfd");
		return;
	}
	*(void **)&dem.cxa = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (dem.cxa && p.libstdcxx) {
		dem.what = "__cxa_demangle";
		return;
	}
	dem.cxa = NULL;
	snprintf(dem.why, sizeof(dem.why),
		 "no demangler of this perf found (no exported cxx_demangle_sym, no libstdc++ __cxa_demangle)");
}

const struct perf612_demangler *perf612_demangler_get(void)
{
	if (dem_override)
		return dem_override;
	pthread_once(&dem_once, dem_resolve);
	return &dem;
}

void perf612_demangler_set(const struct perf612_demangler *d)
{
	dem_override = d;
}

int perf612_demangler_ready(char *why, size_t n)
{
	const struct perf612_demangler *d = perf612_demangler_get();

	if (d->cxx || d->cxa)
		return 1;
	if (n)
		snprintf(why, n, "%s", d->why[0] ? d->why : "no demangler");
	return 0;
}

const char *perf612_demangler_name(void)
{
	const struct perf612_demangler *d = perf612_demangler_get();

	return d->what ? d->what : "none";
}

/*
 * The name perf 6.12 stores for @raw (symbol-elf.c demangle_sym): NULL when
 * perf keeps the raw name, else a malloc'ed name; *@uncertain set when the
 * answer is not known to be perf's.
 */
char *perf612_demangle(const char *raw, int mode, int *uncertain)
{
	const struct perf612_demangler *d;
	char *out;

	if (!sl_perf_demangles(mode, uncertain))
		return NULL;
	d = perf612_demangler_get();
	if (d->cxx) {
		bool v = mode == SYMIDX_DEM_VERBOSE;

		out = d->cxx(raw, v, v);
		if (!out) {
			out = d->ocaml ? d->ocaml(raw) : NULL;
			if (!out && d->java)
				out = d->java(raw, 0x1);        /* JAVA_DEMANGLE_NORET */
		} else if (d->rust_is_mangled && d->rust_is_mangled(out)) {
			if (d->rust_demangle)
				d->rust_demangle(out);
		}
		return out;
	}
	if (d->cxa) {
		int status = 0;

		out = d->cxa(raw, NULL, NULL, &status);
		if (!out) {
			if (sl_perf_maybe_ocaml_java(raw))
				*uncertain = 1;     /* ocaml_demangle_sym / java_demangle_sym */
			return NULL;
		}
		if (sl_perf_rust_hash_tail(out))
			*uncertain = 1;             /* rust_is_mangled(): rust_demangle_sym */
		return out;
	}
	*uncertain = 1;
	return NULL;
}

const struct sl_tool_model sl_model_perf612 = {
	SL_PERF_MODEL_COMMON,
	.sym.name = "perf-6.12",
	.versions = "6.12.x",
	.image_matches = perf612_image_matches,
	.parse_argv = perf612_parse_argv,
	.argv_rules = &perf612_argv_rules,
	.text_output = perf612_text_output,             /* util/disasm.c, util/maps.c */
	/* util/symbol-elf.c demangle_sym, util/demangle-cxx.cpp */
	.sym.demangler = SL_DEMANGLER_PERF_CXX,
	.sym.demangle = perf612_demangle,
	.sym.name_cost = sl_perf_name_cost,             /* stored names with parameters */
	.sym.demangler_ready = perf612_demangler_ready,
	.sym.demangler_name = perf612_demangler_name,
	/* util/symbol.c symbols__fixup_duplicate (6.2), choose_best_symbol */
	.sym.fixup.dup_marks_ifunc_alias = 1,
	.sym.fixup.notype_loses = 0,                    /* 7.x */
	.sym.plt = SL_PLT_V62,                          /* util/symbol-elf.c, rewritten in 6.2 */
	.unwinder = SL_UNWIND_LIBUNWIND,                /* Debian builds 6.12 with libunwind */
	.kallsyms_rules = 0,                            /* util/symbol.c: "$*" only, as 6.1 */
	.reads_gnu_debugdata = 0,                       /* arrived after 6.12 */
	.annotation_priv = 16,                          /* util/annotate.h struct annotation:
							 * src, branch */
	.a2l_child = SL_A2L_ARGV_612,                   /* util/srcline.c */
};
