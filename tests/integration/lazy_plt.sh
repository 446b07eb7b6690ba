#!/bin/sh
# Lazy mode where perf's answer depends on the rb-tree shape: samples inside
# PLT stubs (covered by the stretched zero-size _init and by the synthesized
# foo@plt symbols) and inside overlapping symbols (a global label inside a
# function). symlazy replays perf's tree (index/rbsim.c); output must be
# byte-identical to stock and the DSO must stay lazy (not fall back).
. "$(dirname "$0")/../lib/common.sh"
T=$ROOT/build/lazy_plt
rm -rf "$T"; mkdir -p "$T/home"
export HOME=$T/home
cd "$T" || exit 1

cat > lib.c <<'C'
int tiny(int x) { return x + 1; }
int tiny2(int x) { return x ^ 3; }
C
cat > ov.s <<'S'
	.text
	.globl	outer
	.type	outer, @function
outer:
	movl	$2000, %ecx
1:	addl	$1, %eax
	.globl	inner_label
inner_label:
	addl	$2, %eax
	subl	$1, %ecx
	jnz	1b
	ret
	.size	outer, .-outer
	.section .note.GNU-stack,"",@progbits
S
cat > main.c <<'C'
#include <stdlib.h>
int tiny(int); int tiny2(int); int outer(void);
int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 20000000; int a = 0;
	for (long i = 0; i < n; i++) { a = tiny(a); a = tiny2(a); if ((i & 1023) == 0) a += outer(); }
	return a == 42;
}
C
cc -O1 -fPIC -shared -o libtiny.so lib.c && cc -O1 -fno-omit-frame-pointer -o plt main.c ov.s -L. -ltiny -Wl,-rpath,'$ORIGIN' || { fail "build"; exit 1; }
perf record -q -F 20000 -g -o plt.data ./plt >/dev/null 2>&1 || { fail "perf record"; exit 1; }
perf script -i plt.data > stock.txt 2>/dev/null
n_plt=$(grep -c '@plt' stock.txt)
n_ov=$(grep -c 'outer\|inner_label' stock.txt)
echo "info: stock perf script: $n_plt lines in @plt stubs, $n_ov in outer/inner_label"
[ "$n_plt" -gt 0 ] || skip "no sample landed in a PLT stub this time"
SYMLAZY_CACHE_DIR=$T/cache SYMLAZY_STATS=$T/st.json LD_PRELOAD=$SO perf script -i plt.data > lazy.txt 2>lazy.err
if cmp -s stock.txt lazy.txt; then pass "plt-script-identical ($(wc -l < stock.txt) lines)"
else fail "plt-script-identical"; show_diff stock.txt lazy.txt; fi
perf report --stdio -i plt.data 2>/dev/null | grep -v '^# (Tip' > rstock.txt
SYMLAZY_CACHE_DIR=$T/cache LD_PRELOAD=$SO perf report --stdio -i plt.data 2>/dev/null | grep -v '^# (Tip' > rlazy.txt
if cmp -s rstock.txt rlazy.txt; then pass "plt-report-identical"; else fail "plt-report-identical"; show_diff rstock.txt rlazy.txt; fi
mode=$(/usr/bin/python3 -c "
import json,sys
d=json.load(open('$T/st.json'))
m=[x for x in d['dsos'] if x['path'].endswith('/elf') and '/plt/' in x['path'] and x['table']=='symtab']
print(m[0]['mode'] if m else 'none', m[0]['reason'] if m else '')")
case "$mode" in
lazy*) pass "plt-binary-stays-lazy ($mode)";;
*) fail "plt-binary-stays-lazy: $mode";;
esac
# SYMLAZY_ADDRS: the same keep-set from a plain address list (any tool)
"$ROOT/build/bin/symlazy" addrs -i plt.data -o addrs.txt 2>/dev/null
if SYMLAZY_LAZY=off SYMLAZY_ADDRS=$T/addrs.txt SYMLAZY_STATS=$T/a.json LD_PRELOAD=$SO perf script -i plt.data 2>/dev/null | cmp -s - stock.txt &&
   grep -q '"lazy":"on"' a.json; then pass "addrs-file-identical ($(grep -vc '^#' addrs.txt) addresses)"
else fail "addrs-file-identical"; fi
echo 'not a build-id line' > bad.txt
n=$(SYMLAZY_LAZY=off SYMLAZY_ADDRS=$T/bad.txt LD_PRELOAD=$SO perf script -i plt.data 2>&1 >bad.out | grep -c '^symlazy: cannot use SYMLAZY_ADDRS')
if [ "$n" = 1 ] && cmp -s bad.out stock.txt; then pass "addrs-file-bad: one warning line, stock output"
else fail "addrs-file-bad: $n warning lines"; fi
# a SYMLAZY_ADDRS left in the environment never overrides perf's own perf.data
echo '0123456789abcdef0123456789abcdef01234567 1000' > stale.txt
if SYMLAZY_ADDRS=$T/stale.txt SYMLAZY_STATS=$T/s.json LD_PRELOAD=$SO perf script -i plt.data 2>/dev/null | cmp -s - stock.txt &&
   grep -q '"lazy":"on"' s.json && ! grep -q 'no samples in perf.data' s.json; then
	pass "addrs-file-stale: perf.data wins over a stale SYMLAZY_ADDRS"
else fail "addrs-file-stale"; fi
# abbreviated long option and perf annotate --stdio2 (call targets need the full table)
if SYMLAZY_STATS=$T/s2.json LD_PRELOAD=$SO perf script --inp=plt.data 2>/dev/null | cmp -s - stock.txt &&
   grep -q '"lazy":"on"' s2.json; then pass "abbreviated-input-option: --inp= read as --input"
else fail "abbreviated-input-option"; fi
perf annotate --stdio2 -i plt.data main > ann.stock 2>/dev/null
if LD_PRELOAD=$SO SYMLAZY_STATS=$T/s3.json perf annotate --stdio2 -i plt.data main 2>/dev/null | cmp -s - ann.stock &&
   grep -q '"lazy":"off"' s3.json; then pass "annotate-stdio2: eager (call targets), identical"
else fail "annotate-stdio2"; fi
exit $failed
