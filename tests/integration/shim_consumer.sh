#!/bin/sh
# The shim under a plain libelf consumer (no perf): pass-through is exact,
# the budget admits exactly the symbols that fit (core/model/other.c's cost)
# and nulls every later candidate, random access after a scan is untouched,
# errno and elf_errmsg() are what libelf said, gelf_getsymshndx is covered,
# invalid SYMLAZY_MAX_BYTES gives one error line and no budget.
. "$(dirname "$0")/../lib/common.sh"
T=$ROOT/build/shim_consumer
rm -rf "$T"; mkdir -p "$T"; cd "$T" || exit 1
cc -O1 -o scan "$ROOT/tests/consumer/scan.c" -lelf || { fail build; exit 1; }
./scan ./scan > stock.txt
LD_PRELOAD=$SO ./scan ./scan > shim.txt
if cmp -s stock.txt shim.txt; then pass "passthrough-identical ($(wc -l < stock.txt) lines)"
else fail "passthrough-identical"; show_diff stock.txt shim.txt; fi
LD_PRELOAD=$SO ./scan ./scan x > shimx.txt; ./scan ./scan x > stockx.txt
if cmp -s stockx.txt shimx.txt; then pass "getsymshndx-passthrough-identical"; else fail "getsymshndx-passthrough-identical"; fi
LD_PRELOAD=$SO SYMLAZY_MMAP=0 ./scan ./scan > nommap.txt
cmp -s stock.txt nommap.txt && pass "nommap-identical" || fail "nommap-identical"

# exact budget: `scan` is no tool symlazy knows, so core/model/other.c applies:
# candidates are named, defined symbols of any type but SECTION/FILE, each
# charged 320 + 3 x (strlen + 1); the first K in table order fit, the
# (K+1)-th does not. Then no kept symbol may cover a dropped one: symbols
# whose ranges overlap (a zero-size one reaching the next start) are kept or
# dropped together, and a kept zero-size symbol whose successor is dropped
# gets its full-table end (core/budgetplan.c budget_plan_rules).
cat > check.py <<'PY'
import sys
def cand(f):
    name=f[1][1:-1]; info=int(f[4]); shndx=int(f[5])
    return name not in ('', '?') and shndx != 0 and (info & 15) not in (3, 4)
def cost(f): return 320 + 3 * (len(f[1]) - 2 + 1)
def rows(p): return [l.split() for l in open(p) if l[0].isdigit()]
mode, K = sys.argv[1], int(sys.argv[2])
a = [f for f in rows('stock.txt') if f[0] != '0']
c = [f for f in a if cand(f)]
if mode == 'bytes':
    print(sum(cost(f) for f in c[:K]))
    sys.exit(0)
admitted = {f[0] for f in c[:K]}
vals = sorted({int(f[2], 16) for f in c})
def succ(v): return min([w for w in vals if w > v], default=None)
def end(f):
    v, s = int(f[2], 16), int(f[3])
    return v + s if s else (succ(v) if succ(v) is not None else 2**64)
kept = set(admitted)
srt = sorted(c, key=lambda f: (int(f[2], 16), int(f[0])))
i = 0
while i < len(srt):
    j, e = i + 1, end(srt[i])
    while j < len(srt) and (int(srt[j][2], 16) < e or srt[j][2] == srt[j - 1][2]):
        e = max(e, end(srt[j])); j += 1
    comp = {f[0] for f in srt[i:j]}
    if comp - admitted:
        kept -= comp
    i = j
b = {f[0]: f for f in rows('b.txt') if f[0] != '0'}
bad = 0
for x in a:
    y = b.get(x[0])
    if not cand(x):
        bad += x != y
    elif x[0] in kept:
        v = int(x[2], 16)
        if x[3] == '0' and y[3] != '0':
            # successor dropped: the end the full table gives it
            nxt = succ(v)
            bad += nxt is None or int(y[3]) != nxt - v or y[:3] != x[:3] or y[4:] != x[4:]
            succ_kept = any(int(f[2], 16) == nxt and f[0] in kept for f in c)
            bad += succ_kept
        else:
            bad += x != y
    else:
        bad += y[1:] != ['[]', '0', '0', '0', '0']
print(len(kept), bad, len(admitted))
PY
for K in 1 5 9; do
	B=$(/usr/bin/python3 check.py bytes $K)
	for x in "" x; do
		LD_PRELOAD=$SO SYMLAZY_MAX_BYTES=$B SYMLAZY_STATS=$T/b$K$x.json ./scan ./scan $x > b.txt 2> b.err
		set -- $(/usr/bin/python3 check.py check $K)
		w=$(grep -c '^symlazy: symbol budget' b.err)
		rnd_ok=1; grep '^random' stock.txt > r1; grep '^random' b.txt > r2; cmp -s r1 r2 || rnd_ok=0
		used=$(grep -o '"charged_bytes":[0-9]*' $T/b$K$x.json | cut -d: -f2)
		if [ "$3" = "$K" ] && [ "$2" = 0 ] && [ "$w" = 1 ] && [ "$rnd_ok" = 1 ] && [ "$used" = "$B" ]; then
			pass "budget-exact-K$K${x:+-shndx}: $B bytes admit exactly $K candidates ($1 kept, none covering a dropped one), later candidates null, 1 warning, random access untouched"
		else
			fail "budget-exact-K$K${x:+-shndx}: kept=$1 admitted=$3 (want $K) bad=$2 warnings=$w random_ok=$rnd_ok charged=$used (want $B)"
		fi
	done
done

grep -e '^bad fd' -e '^past end' stock.txt > e1; grep -e '^bad fd' -e '^past end' shim.txt > e2
if [ -s e1 ] && cmp -s e1 e2; then pass "errno-and-elf_errmsg-preserved: $(tr '\n' ';' < e1)"; else fail "errno-and-elf_errmsg-preserved"; fi

LD_PRELOAD=$SO SYMLAZY_MAX_BYTES=12Q ./scan ./scan > bad.txt 2> bad.err
if [ "$(grep -c 'invalid SYMLAZY_MAX_BYTES=12Q' bad.err)" = 1 ] && cmp -s bad.txt stock.txt; then
	pass "bad-budget-value: one error line, unlimited"
else fail "bad-budget-value"; cat bad.err; fi
LD_PRELOAD=$SO SYMLAZY_DISABLE=1 SYMLAZY_MAX_BYTES=1 ./scan ./scan > dis.txt 2>&1
cmp -s dis.txt stock.txt && pass "disable: no effect" || fail "disable"
exit $failed
