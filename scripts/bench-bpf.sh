#!/bin/sh
# bench-bpf.sh [FIXTURE_DIR] - symlazy under libbcc, bpftrace, uftrace and
# perf probe, side by side in one run, on the 500k-symbol generated binary
# (default build/fix500k: scripts/build-fixture.sh build/fix500k --big-funcs
# 500000, built if missing) spinning, on node (if installed) and on a process
# with librustc_driver mapped (if rustup's rustc is there).
#
# Part "bpftrace" (BENCH_PARTS): bpftrace `profile:hz:29 { @[ustack(perf)] }`
# for 2 s on each target; modes stock / default (the shim) / budget-16M /
# libelf-only (SYMLAZY_BCC=0: no symcache answers) / floor (SYMLAZY_HIDE_ALL:
# no user symbols). ustack(perf) is ustack with the address in front (same
# resolve_usym), so every printed frame is checked against stock libbcc with
# bpftrace's options (tests/consumer/bccsym -l 0 -t ffff): "frames == stock".
# Part "budget": each recognised tool at SYMLAZY_MAX_BYTES 8M/16M/64M: peak
# RssAnon above the tool's floor, as a multiple of the budget, and whether it
# printed any name stock would not (libbcc's answers checked per address).
# Part "tools": per tool stock / default / budget 16M / SYMLAZY_ADDRS.
# Prints markdown and writes build/bench-bpf.md; outputs in build/bench-bpf/.
# Run as root (BPF). Environment: BENCH_PARTS ("bpftrace budget tools"),
# BENCH_TOOLS (the tools of the last two parts), SYMLAZY_SO, PEAKRSS.
#
# bench-bpf.sh --markdown [FIXTURE_DIR] (or BENCH_MARKDOWN=1): stdout is only
# the four tables of doc/measurements.md, in this order: bpftrace on the
# fixture, bpftrace on node (one "skipped" row without node), the budget
# multiples, per tool (make doc-tables picks them with table=1..4). Its
# default tools add libbcc-index (bccsym -l 1 through the PLT, answered from
# symlazy's index: per-tool table only).
set -u
MARKDOWN=${BENCH_MARKDOWN:-}
case ${1:-} in
--markdown) MARKDOWN=1; shift ;;
--markdown=*) MARKDOWN=${1#--markdown=}; shift ;;
esac
ROOT=${SYMLAZY_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
FIX=${1:-$ROOT/build/fix500k}
SO=${SYMLAZY_SO:-$ROOT/build/libsymlazy.so}
PEAKRSS=${PEAKRSS:-$ROOT/build/bin/peakrss}
PARTS=${BENCH_PARTS:-bpftrace budget tools}
OUT=$ROOT/build/bench-bpf
MD=$ROOT/build/bench-bpf.md
PY=/usr/bin/python3
LIBBCC=/usr/lib/x86_64-linux-gnu/libbcc_bpf.so.0
unset SYMLAZY_MMAP SYMLAZY_MAX_BYTES SYMLAZY_LAZY SYMLAZY_HIDE_ALL SYMLAZY_STATS SYMLAZY_DISABLE \
	SYMLAZY_ADDRS SYMLAZY_CACHE_DIR SYMLAZY_INHERIT SYMLAZY_VERBOSE SYMLAZY_BCC
mkdir -p "$OUT"
cd "$OUT" || exit 1
[ -x "$PEAKRSS" ] || { echo "bench-bpf: $PEAKRSS missing; run make" >&2; exit 2; }
if [ ! -x "$FIX/main" ]; then
	echo "bench-bpf: building $FIX (500k symbols, a few minutes)" >&2
	sh "$ROOT/scripts/build-fixture.sh" "$FIX" --big-funcs 500000 >&2 || exit 1
fi
cc -O1 -o bccsym "$ROOT/tests/consumer/bccsym.c" "$LIBBCC" || exit 1
PIDS=""
cleanup() { for p in $PIDS; do kill "$p" 2>/dev/null; done; }
trap cleanup EXIT
trap 'exit 130' INT TERM
anon() { sed -n 's/.*peak_rss_anon_kb=\([0-9]*\).*/\1/p' "$1"; }
wall() { sed -n 's/.*wall_ms=\([0-9]*\).*/\1/p' "$1"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

"$FIX/main" 3600 >/dev/null & FP=$!; PIDS="$PIDS $FP"
NP=""
if command -v node >/dev/null 2>&1; then
	# node busy in its own C++ (JSON, the GC), not only in JIT code
	node -e 'let a = []; for (;;) { a.push(JSON.stringify({ x: Math.random(), y: [1, 2, 3] })); if (a.length > 5000) a = []; }' &
	NP=$!; PIDS="$PIDS $NP"
fi
sleep 1
: >"$MD.tmp"
say() { printf '%s\n' "$*" >>"$MD.tmp"; }
# md N LINE: a line of --markdown table N
rm -f md.1 md.2 md.3 md.4 md-bt-fixture.tsv md-bt-node.tsv
md() { _n=$1; shift; printf '%s\n' "$*" >>"md.$_n"; }
md 1 "| mode | peak RssAnon MiB | x floor | wall s | frames (named) | frames == stock libbcc |"
md 1 "|---|---:|---:|---:|---:|---|"
md 2 "| mode | peak RssAnon MiB | x floor | wall s | frames (named) | frames == stock libbcc |"
md 2 "|---|---:|---:|---:|---:|---|"
md 3 "| tool | floor MiB | 8M | 16M | 64M | names stock would not print |"
md 3 "|---|---:|---:|---:|---:|---:|"
md 4 "| tool | stock | default | budget 16M | SYMLAZY_ADDRS | default == stock | ADDRS == stock |"
md 4 "|---|---:|---:|---:|---:|---|---|"
# tlabel budget|tools TOOL: the tool's name in --markdown tables
tlabel() {
	case $1-$2 in
	budget-perf-script) echo "perf script (\`SYMLAZY_LAZY=off\`)" ;;
	*-perf-script) echo "perf script" ;;
	*-perf-probe) echo "perf probe -F" ;;
	*-libbcc-index) echo "libbcc from C through the PLT (index)" ;;
	budget-libbcc-lazy) echo "libbcc loads, \`lazy_symbolize=1\` (\`bccsym -l 1\`, \`SYMLAZY_BCC=0\`)" ;;
	budget-libbcc) echo "libbcc loads, \`lazy_symbolize=0\` (\`bccsym -l 0\`, \`SYMLAZY_BCC=0\`)" ;;
	tools-libbcc-lazy) echo "libbcc loads, lazy (\`SYMLAZY_BCC=0\`)" ;;
	tools-libbcc) echo "libbcc loads, not lazy (\`SYMLAZY_BCC=0\`)" ;;
	budget-python-bcc) echo "Python \`BPF.sym\` (300 addresses)" ;;
	tools-python-bcc) echo "**Python \`BPF.sym\`** (300 addresses)" ;;
	budget-bpftrace-ustack) echo "bpftrace ustack (default: index)" ;;
	tools-bpftrace-ustack) echo "**bpftrace ustack** (1 s)" ;;
	budget-bpftrace-libelf) echo "bpftrace ustack, \`SYMLAZY_BCC=0\` (libbcc loads, one per address)" ;;
	tools-bpftrace-libelf) echo "bpftrace ustack, \`SYMLAZY_BCC=0\`" ;;
	budget-bpftrace-list) echo "bpftrace -l 'uprobe:main:*'" ;;
	tools-bpftrace-list) echo "bpftrace -l" ;;
	budget-uftrace) echo "uftrace record --force main 1" ;;
	tools-uftrace) echo "uftrace record" ;;
	*) echo "$2" ;;
	esac
}

# frames FILE PID: "checked wrong named" of a ustack(perf) output against stock libbcc
frames() {
	$PY - "$1" >"$1.addrs" <<'PY'
import re, sys
seen = set()
for l in open(sys.argv[1]):
    f = l.strip().split(None, 1)
    if len(f) == 2 and re.fullmatch('[0-9a-f]+', f[0]) and f[0] not in seen:
        seen.add(f[0]); print(f[0])
PY
	./bccsym -l 0 -t ffff "$2" <"$1.addrs" >"$1.ref"
	$PY - "$1" <<'PY'
import re, sys
ref = {}
for l in open(sys.argv[1] + '.ref'):
    f = l.rstrip('\n').split('\t')
    ref[f[1]] = '%s+%s (%s)' % (f[4], f[6], f[5]) if f[2] == '0' else '0x%s ([unknown])' % f[1]
n = bad = named = 0
for l in open(sys.argv[1]):
    f = l.strip().split(None, 1)
    if len(f) == 2 and re.fullmatch('[0-9a-f]+', f[0]):
        n += 1; named += not f[1].startswith('0x')
        bad += ref.get(f[0]) != f[1] and not f[1].startswith('0x')   # a name stock would not print
print(n, bad, named)
PY
}

if echo "$PARTS" | grep -q bpftrace; then
	for tgt in fixture node; do
		case $tgt in fixture) pid=$FP; label="500k-symbol fixture (main $(($(stat -c %s "$FIX/main") >> 20)) MiB)";;
		node) [ -n "$NP" ] || continue; pid=$NP; label="node $(node --version)";; esac
		say ""
		say "### bpftrace \`profile:hz:29 { @[ustack(perf)] = count(); }\`, 2 s, $label"
		say ""
		say "| mode | peak RssAnon MiB | x floor | wall s | frames (named) | frames == stock libbcc |"
		say "|---|---:|---:|---:|---:|---|"
		prog="profile:hz:29 /pid == $pid/ { @[ustack(perf)] = count(); } interval:s:2 { exit(); }"
		for m in floor stock default budget-16M libelf-only; do
			case $m in stock) e="";; default) e="LD_PRELOAD=$SO";; budget-16M) e="LD_PRELOAD=$SO SYMLAZY_MAX_BYTES=16M";;
			libelf-only) e="LD_PRELOAD=$SO SYMLAZY_BCC=0";; floor) e="LD_PRELOAD=$SO SYMLAZY_HIDE_ALL=1";; esac
			"$PEAKRSS" -o "bt-$tgt-$m.rss" env $e bpftrace -e "$prog" >"bt-$tgt-$m.out" 2>"bt-$tgt-$m.err"
			set -- $(frames "bt-$tgt-$m.out" "$pid")
			[ "$m" = floor ] && fa=$(anon "bt-$tgt-$m.rss")
			eq=$([ "$2" = 0 ] && echo yes || echo "no ($2 wrong)")
			[ "$m" = floor ] && eq="(no user symbols)"
			say "| $m (\`${e:-no preload}\`) | $(mib "$(anon "bt-$tgt-$m.rss")") | $(ratio "$(anon "bt-$tgt-$m.rss")" "$fa") | $(awk -v w="$(wall "bt-$tgt-$m.rss")" 'BEGIN{printf "%.1f", w/1000}') | $1 ($3) | $eq |"
			[ "$m" = floor ] && eq=-
			printf '%s\t%s\t%s\t%s\t%s (%s)\t%s\n' "$m" "$(mib "$(anon "bt-$tgt-$m.rss")")" \
				"$(ratio "$(anon "bt-$tgt-$m.rss")" "$fa")" "$(awk -v w="$(wall "bt-$tgt-$m.rss")" 'BEGIN{printf "%.1f", w/1000}')" \
				"$1" "$3" "$eq" >>"md-bt-$tgt.tsv"
		done
	done
fi
# the bpftrace tables of --markdown: stock, default, budget, libelf only, floor
n=0
for tgt in fixture node; do
	n=$((n + 1))
	if [ ! -s "md-bt-$tgt.tsv" ]; then
		md $n "| (skipped: $([ $tgt = node ] && echo "no node in PATH" || echo "part bpftrace not run")) | - | - | - | - | - |"
		continue
	fi
	for m in stock default budget-16M libelf-only floor; do
		awk -F'\t' -v m="$m" -v n="$n" '$1 == m {
			if (m == "stock") l = "stock (no preload)"
			else if (m == "default") l = "default (`LD_PRELOAD`)"
			else if (m == "budget-16M") l = "budget (`SYMLAZY_MAX_BYTES=16M`)"
			else if (m == "libelf-only") l = (n == 1) ? "libelf only (`SYMLAZY_BCC=0`: libbcc loads, mmap'"'"'d tables)" : "libelf only (`SYMLAZY_BCC=0`)"
			else l = "floor (`SYMLAZY_HIDE_ALL=1`)"
			b = (m == "default") ? "**" : ""
			printf "| %s%s%s | %s%s%s | %s%s%s | %s%s%s | %s | %s%s%s |\n", b, l, b, b, $2, b, b, $3, b, b, $4, b, $5, b, $6, b
		}' "md-bt-$tgt.tsv" >>"md.$n"
	done
done

# addresses for libbcc: 300 of the fixture's (ICF starts, random, neighbours)
$PY "$ROOT/tests/integration/bcc_addrs.py" "$FP" 100 fix.sl >fix.all
shuf -n 300 --random-source=fix.all fix.all >fix.addrs
grep -F -f fix.addrs fix.all >/dev/null
$PY - <<'PY'
a = set(l.strip() for l in open('fix.addrs'))
allv = [l.strip() for l in open('fix.all')]
sl = [l for l in open('fix.sl')]
with open('fix300.sl', 'w') as f:
    for v, l in zip(allv, sl):
        if v in a:
            f.write(l)
PY
cat >pysym.py <<'PY'
import sys
from bcc import BPF
pid = int(sys.argv[2])
for line in open(sys.argv[1]):
    a = int(line, 16)
    print("%x\t%s" % (a, BPF.sym(a, pid, show_module=True, show_offset=True).decode(errors="replace")))
PY
./bccsym -l 0 "$FP" <fix.addrs >bcc.stock
$PY pysym.py fix.addrs "$FP" >py.stock 2>/dev/null

# tool_cmd TOOL: the command line measured for TOOL
tool_cmd() {
	case $1 in
	perf-script) echo "perf script -i $OUT/perf.data";;
	perf-probe) echo "perf probe -x $FIX/main -F";;
	libbcc-lazy|libbcc-index) echo "./bccsym -l 1 $FP";;
	libbcc) echo "./bccsym -l 0 $FP";;
	python-bcc) echo "$PY pysym.py fix.addrs $FP";;
	bpftrace-ustack|bpftrace-libelf) echo "bpftrace $OUT/ustack.bt";;
	bpftrace-list) echo "bpftrace -l uprobe:$FIX/main:*";;
	uftrace) echo "uftrace record --force -d $OUT/uft.d $FIX/main 1";;
	esac
}
echo "profile:hz:29 /pid == $FP/ { @[ustack(perf)] = count(); } interval:s:1 { exit(); }" >ustack.bt
run_tool() {   # run_tool TOOL NAME ENV...
	t=$1 n=$2; shift 2
	rm -rf "$OUT/uft.d"
	case $t in libbcc*) in=fix.addrs;; *) in=/dev/null;; esac
	"$PEAKRSS" -o "$n.rss" env "$@" $(tool_cmd "$t") <"$in" >"$n.out" 2>"$n.err"
	if [ "$t" = uftrace ]; then
		uftrace replay -d "$OUT/uft.d" >"$n.out" 2>/dev/null
		rm -rf "$OUT/$n.uft"; mv "$OUT/uft.d" "$OUT/$n.uft"
	fi
}
# lies TOOL NAME: names printed that stock does not print for that address/line
lies() {
	case $1 in
	libbcc*) $PY - "$2.out" <<'PY'
import sys
s = [l.split('\t') for l in open('bcc.stock')]; b = [l.split('\t') for l in open(sys.argv[1])]
print(sum(1 for x, y in zip(s, b) if y[2] == '0' and (y[3:5] != x[3:5] or y[6] != x[6])))
PY
	;;
	python-bcc) paste -d'|' py.stock "$2.out" | awk -F'|' '$1 != $2 && $2 !~ /\[unknown\]/' | wc -l;;
	perf-probe|bpftrace-list) sort "$1-stock.out" >s.sorted; sort "$2.out" | comm -13 s.sorted - | wc -l;;
	bpftrace-*stack|bpftrace-libelf) set -- $(frames "$2.out" "$FP"); echo "$2";;
	uftrace) set -- $($PY "$ROOT/tests/integration/uftrace_sym_check.py" "$OUT/$1-stock.uft" "$OUT/$2.uft")
		echo $(($2 + $3));;
	perf-script) $PY - "$1-stock.out" "$2.out" <<'PY'
import sys
a, b = open(sys.argv[1]).read().split('\n'), open(sys.argv[2]).read().split('\n')
print(sum(1 for x, y in zip(a, b) if x != y and '[unknown]' not in y) + abs(len(a) - len(b)))
PY
	;;
	esac
}

TOOLS=${BENCH_TOOLS:-perf-script perf-probe libbcc-lazy libbcc python-bcc bpftrace-ustack bpftrace-libelf bpftrace-list uftrace}
[ -n "$MARKDOWN" ] && [ -z "${BENCH_TOOLS:-}" ] &&
	TOOLS="perf-script perf-probe libbcc-index libbcc-lazy libbcc python-bcc bpftrace-ustack bpftrace-libelf bpftrace-list uftrace"
if echo "$PARTS" | grep -qE 'budget|tools'; then
	perf record -q -g -o perf.data -- "$FIX/main" 2 >/dev/null 2>&1
	for t in $TOOLS; do
		run_tool "$t" "$t-stock"
		run_tool "$t" "$t-floor" LD_PRELOAD="$SO" SYMLAZY_HIDE_ALL=1 SYMLAZY_LAZY=off
	done
fi
if echo "$PARTS" | grep -q budget; then
	say ""
	say "### SYMLAZY_MAX_BYTES: peak RssAnon above each tool's floor, as a multiple of the budget (500k-symbol fixture)"
	say ""
	say "| tool (charged by) | floor MiB | 8M | 16M | 64M | names stock would not print |"
	say "|---|---:|---:|---:|---:|---|"
	for t in $TOOLS; do
		[ "$t" = libbcc-index ] && continue   # answered from the index: nothing charged
		row="" l=0
		for B in 8M 16M 64M; do
			e="LD_PRELOAD=$SO SYMLAZY_MAX_BYTES=$B SYMLAZY_LAZY=off"
			case $t in libbcc*|bpftrace-libelf) e="$e SYMLAZY_BCC=0";; esac
			run_tool "$t" "$t-b$B" $e
			above=$(( $(anon "$t-b$B.rss") - $(anon "$t-floor.rss") ))
			row="$row | $(awk -v a="$above" -v b="${B%M}" 'BEGIN{printf "%.2f", a / (b * 1024)}')"
			l=$((l + $(lies "$t" "$t-b$B")))
		done
		say "| $t | $(mib "$(anon "$t-floor.rss")")$row | $l |"
		md 3 "| $(tlabel budget "$t") | $(mib "$(anon "$t-floor.rss")")$row | $l |"
	done
fi
if echo "$PARTS" | grep -q tools; then
	say ""
	say "### Per tool: stock / default / budget 16M / SYMLAZY_ADDRS (500k-symbol fixture)"
	say ""
	say "| tool | stock MiB, s | default MiB, s | budget 16M MiB, s | SYMLAZY_ADDRS MiB, s | default == stock | ADDRS == stock |"
	say "|---|---:|---:|---:|---:|---|---|"
	for t in $TOOLS; do
		e=""; case $t in libbcc-index) ;; libbcc*|bpftrace-libelf) e="SYMLAZY_BCC=0";; esac
		run_tool "$t" "$t-def" LD_PRELOAD="$SO" $e
		if [ "$t" = libbcc-index ]; then   # the index: no budget or ADDRS rows
			md 4 "| $(tlabel tools "$t") | $(mib "$(anon "$t-stock.rss")"), $(awk -v w="$(wall "$t-stock.rss")" 'BEGIN{printf "%.1f", w/1000}') | $(mib "$(anon "$t-def.rss")"), $(awk -v w="$(wall "$t-def.rss")" 'BEGIN{printf "%.1f", w/1000}') | - | - | $([ "$(lies "$t" "$t-def")" = 0 ] && echo yes || echo no) | - |"
			continue
		fi
		run_tool "$t" "$t-b16" LD_PRELOAD="$SO" SYMLAZY_MAX_BYTES=16M $e
		run_tool "$t" "$t-addrs" LD_PRELOAD="$SO" SYMLAZY_ADDRS="$OUT/fix300.sl" $e
		cell() { echo "$(mib "$(anon "$1.rss")"), $(awk -v w="$(wall "$1.rss")" 'BEGIN{printf "%.1f", w/1000}')"; }
		same() {
			case $t in
			bpftrace-ustack|bpftrace-libelf) set -- $(frames "$1.out" "$FP"); [ "$2" = 0 ] && echo "yes (per frame)" || echo "no";;
			uftrace) [ "$(lies "$t" "$1")" = 0 ] && echo ".sym: stock's" || echo ".sym: no";;
			perf-script|perf-probe|bpftrace-list|libbcc*|python-bcc) [ "$(lies "$t" "$1")" = 0 ] &&
				{ cmp -s "$t-stock.out" "$1.out" && echo yes || echo "no lies"; } || echo no;;
			esac
		}
		say "| $t | $(cell "$t-stock") | $(cell "$t-def") | $(cell "$t-b16") | $(cell "$t-addrs") | $(same "$t-def") | $(same "$t-addrs") |"
		yn() { case $1 in yes*|".sym: stock's") echo yes ;; "no lies") echo "stock's names" ;; *) echo no ;; esac; }
		b=""; case $t in python-bcc|bpftrace-ustack) b="**" ;; esac
		case $t in
		perf-probe) note=" (eager: it lists names)" ;; bpftrace-list) note=" (its own listing: eager)" ;;
		uftrace) note=" (ignored)" ;; *) note="" ;;
		esac
		md 4 "| $(tlabel tools "$t") | $(cell "$t-stock") | $b$(cell "$t-def")$b | $(cell "$t-b16") | $(cell "$t-addrs")$note | $(yn "$(same "$t-def")") | $(yn "$(same "$t-addrs")") |"
	done
fi
{
	echo "## symlazy bench-bpf ($(date -u +%Y-%m-%d), bpftrace $(bpftrace --version 2>/dev/null | awk '{print $2}'), libbcc 0.26, $(uftrace --version 2>/dev/null | head -1), $(perf version 2>/dev/null), $(nproc) CPUs)"
	cat "$MD.tmp"
} >"$MD"
rm -f "$MD.tmp"
if [ -n "$MARKDOWN" ]; then
	for n in 1 2 3 4; do
		[ $n = 1 ] || echo
		[ "$(wc -l <"md.$n")" -gt 2 ] || md $n "| (part not run: BENCH_PARTS=$PARTS) |"
		cat "md.$n"
	done
else
	cat "$MD"
fi
