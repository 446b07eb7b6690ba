#!/bin/sh
# The shim under a plain libelf consumer (no perf): pass-through is exact,
# the budget admits exactly the symbols that fit (64 + strlen + 1 bytes each)
# and nulls every later candidate, random access after a scan is untouched,
# errno and elf_errmsg() are what libelf said, gelf_getsymshndx is covered,
# invalid SYMLAZY_MAX_BYTES gives one error line and no budget.
ROOT=${SYMLAZY_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
SO=$ROOT/build/libsymlazy.so
T=$ROOT/build/shim_consumer
rm -rf "$T"; mkdir -p "$T"; cd "$T" || exit 1
fail=0
pass() { echo "PASS: $*"; }
failt() { echo "FAIL: $*"; fail=1; }
cc -O1 -o scan "$ROOT/tests/consumer/scan.c" -lelf || { failt build; exit 1; }
./scan ./scan > stock.txt
LD_PRELOAD=$SO ./scan ./scan > shim.txt
if cmp -s stock.txt shim.txt; then pass "passthrough-identical ($(wc -l < stock.txt) lines)"
else failt "passthrough-identical"; diff stock.txt shim.txt | head; fi
LD_PRELOAD=$SO ./scan ./scan x > shimx.txt; ./scan ./scan x > stockx.txt
if cmp -s stockx.txt shimx.txt; then pass "getsymshndx-passthrough-identical"; else failt "getsymshndx-passthrough-identical"; fi
LD_PRELOAD=$SO SYMLAZY_MMAP=0 ./scan ./scan > nommap.txt
cmp -s stock.txt nommap.txt && pass "nommap-identical" || failt "nommap-identical"

# exact budget: the first K perf candidates (defined, named FUNC/IFUNC/OBJECT/
# NOTYPE-label, not SHN_ABS) fit, the (K+1)-th does not
cat > check.py <<'PY'
import sys
# candidate = what perf 6.1 would keep (and so what is charged)
def cand(f):
    name=f[1][1:-1]; info=int(f[4]); shndx=int(f[5])
    return name not in ('', '?') and shndx not in (0, 0xfff1) and (info & 15) in (0, 1, 2, 10)
def rows(p): return [l.split() for l in open(p) if l[0].isdigit()]
mode, K = sys.argv[1], int(sys.argv[2])
a = rows('stock.txt')
if mode == 'bytes':
    tot = 0
    for f in [f for f in a if f[0] != '0' and cand(f)][:K]:
        tot += 64 + len(f[1]) - 2 + 1
    print(tot)
    sys.exit(0)
b = rows('b.txt'); kept = 0; bad = 0; cut = False
vals = sorted({int(f[2], 16) for f in a if f[0] != '0' and cand(f)})
def succ(v):
    return min([w for w in vals if w > v], default=None)
for x, y in zip(a, b):
    if x[0] == '0':
        continue
    if not cand(x):
        bad += x != y
        continue
    if not cut and x[3] == '0' and y[:3] == x[:3] and y[4:] == x[4:] and y[3] != '0':
        # a kept zero-size symbol whose successor was dropped keeps the end
        # perf gives it with the full table: st_size = next candidate - value
        v = int(x[2], 16)
        bad += succ(v) is None or int(y[3]) != succ(v) - v
        kept += 1
    elif x == y and not cut:
        kept += 1
    else:
        cut = True
        bad += y[1:] != ['[]', '0', '0', '0', '0']
print(kept, bad)
PY
for K in 1 5 9; do
	B=$(/usr/bin/python3 check.py bytes $K)
	for x in "" x; do
		LD_PRELOAD=$SO SYMLAZY_MAX_BYTES=$B SYMLAZY_STATS=$T/b$K$x.json ./scan ./scan $x > b.txt 2> b.err
		set -- $(/usr/bin/python3 check.py check $K)
		w=$(grep -c '^symlazy: symbol budget' b.err)
		rnd_ok=1; grep '^random' stock.txt > r1; grep '^random' b.txt > r2; cmp -s r1 r2 || rnd_ok=0
		used=$(grep -o '"charged_bytes":[0-9]*' $T/b$K$x.json | cut -d: -f2)
		if [ "$1" = "$K" ] && [ "$2" = 0 ] && [ "$w" = 1 ] && [ "$rnd_ok" = 1 ] && [ "$used" = "$B" ]; then
			pass "budget-exact-K$K${x:+-shndx}: $B bytes admit exactly $K symbols, later candidates null, 1 warning, random access untouched"
		else
			failt "budget-exact-K$K${x:+-shndx}: kept=$1 (want $K) bad=$2 warnings=$w random_ok=$rnd_ok charged=$used (want $B)"
		fi
	done
done

grep -e '^bad fd' -e '^past end' stock.txt > e1; grep -e '^bad fd' -e '^past end' shim.txt > e2
if [ -s e1 ] && cmp -s e1 e2; then pass "errno-and-elf_errmsg-preserved: $(tr '\n' ';' < e1)"; else failt "errno-and-elf_errmsg-preserved"; fi

LD_PRELOAD=$SO SYMLAZY_MAX_BYTES=12Q ./scan ./scan > bad.txt 2> bad.err
if [ "$(grep -c 'invalid SYMLAZY_MAX_BYTES=12Q' bad.err)" = 1 ] && cmp -s bad.txt stock.txt; then
	pass "bad-budget-value: one error line, unlimited"
else failt "bad-budget-value"; cat bad.err; fi
LD_PRELOAD=$SO SYMLAZY_DISABLE=1 SYMLAZY_MAX_BYTES=1 ./scan ./scan > dis.txt 2>&1
cmp -s dis.txt stock.txt && pass "disable: no effect" || failt "disable"
exit $fail
