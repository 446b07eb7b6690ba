#!/bin/sh
# bench-kernel.sh - peak RssAnon and wall time of perf on profiles that touch
# the kernel (kallsyms and perf maps, doc/perf.md), side by side: stock perf, lazy mode (the default),
# the floor (SYMLAZY_HIDE_ALL=1 SYMLAZY_LAZY=off: every user symbol hidden,
# perf maps too; all of kallsyms still loaded) and the absolute floor (the
# floor plus --kallsyms=<an empty file>: no kernel symbols at all), and as a
# control lazynokernel (lazy mode with --kallsyms=<an empty file>): lazy minus
# lazynokernel is what the kernel symbols cost in lazy mode.
#
# Profiles (recorded into build/bench-kernel/ unless present):
#   rustc    perf record -g -- rustc -O hello.rs          (a compile)
#   system   perf record -a -g -- sleep 1                  (system-wide)
#   syscall  perf record -g -- sys s 2000000              (read/write/getppid loop)
#   node     perf record -g -- node --perf-basic-prof jit.js  (a perf map of
#            BENCH_NODE_FNS (240000) functions: 500k+ lines)
# Tools: perf script, perf report --stdio, perf report --stdio --sort dso,sym.
# Each run under build/bin/peakrss, BENCH_REPEAT (3) times, median kept;
# "== stock" is cmp of stdout against the stock run (perf report's random
# "# (Tip: ...)" line is pinned by tests/corpus/fixtime.c in every mode).
# Env: BENCH_PROFILES, BENCH_TOOLS, BENCH_REPEAT, PERF, SYMLAZY_SO, PEAKRSS.
# Writes build/bench-kernel.md.
#
# bench-kernel.sh --markdown (or BENCH_MARKDOWN=1): stdout is only the table of
# doc/measurements.md: a row per profile and tool, "MiB / s" for stock, lazy,
# floor and absolute floor, lazy x abs floor, and the kallsyms lines lazy mode
# kept (from its SYMLAZY_STATS); make doc-tables.
set -u
MARKDOWN=${BENCH_MARKDOWN:-}
case ${1:-} in
--markdown) MARKDOWN=1; shift ;;
--markdown=*) MARKDOWN=${1#--markdown=}; shift ;;
esac
ROOT=${SYMLAZY_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
SO=${SYMLAZY_SO:-$ROOT/build/libsymlazy.so}
PEAKRSS=${PEAKRSS:-$ROOT/build/bin/peakrss}
PERF=${PERF:-perf}
REPEAT=${BENCH_REPEAT:-3}
PROFILES=${BENCH_PROFILES:-rustc system syscall node}
TOOLS=${BENCH_TOOLS:-script report sortds}
MODES=${BENCH_MODES:-stock lazy lazynokernel floor absfloor}
B=$ROOT/build/bench-kernel
OUT=$B/out
MD=$ROOT/build/bench-kernel.md
unset SYMLAZY_MMAP SYMLAZY_MAX_BYTES SYMLAZY_LAZY SYMLAZY_HIDE_ALL SYMLAZY_STATS SYMLAZY_DISABLE SYMLAZY_ADDRS
[ -x "$PEAKRSS" ] && [ -f "$SO" ] || { echo "bench-kernel: run make first" >&2; exit 2; }
mkdir -p "$B" "$OUT" || exit 1
cd "$B" || exit 1
: > empty-kallsyms
cc -O2 -shared -fPIC -o fixtime.so "$ROOT/tests/corpus/fixtime.c" || exit 1

record() {
	[ -s "$1.data" ] && return 0
	echo "bench-kernel: recording $1" >&2
	case $1 in
	rustc)
		printf 'use std::collections::HashMap;\nfn main() { let mut m = HashMap::new(); for i in 0..100 { m.insert(i, format!("{}", i)); } println!("{}", m.len()); }\n' > hello.rs
		"$PERF" record -q -g -o rustc.data -- rustc -O hello.rs -o hello >/dev/null 2>&1 ;;
	system)
		"$PERF" record -q -a -g -o system.data -- sleep 1 >/dev/null 2>&1 ;;
	syscall)
		cat > sys.c <<'C'
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 2000000;
	char buf[64];
	int fd = open("/dev/zero", O_RDONLY), nul = open("/dev/null", O_WRONLY);
	for (long i = 0; i < n; i++) { (void)!read(fd, buf, sizeof(buf)); (void)!write(nul, buf, sizeof(buf)); getppid(); }
	return 0;
}
C
		cc -O2 -fno-omit-frame-pointer -o sys sys.c && "$PERF" record -q -g -o syscall.data ./sys s 2000000 >/dev/null 2>&1 ;;
	node)
		cat > jit.js <<JS
const fns = [];
for (let i = 0; i < ${BENCH_NODE_FNS:-240000}; i++) fns.push(new Function('x', \`let s = x; for (let j = 0; j < 3; j++) s = (s * \${i % 97 + 3} + j) | 0; return s ^ \${i};\`));
let acc = 0; const t0 = Date.now();
while (Date.now() - t0 < 2000) { for (let i = 0; i < fns.length; i += 13) acc += fns[i](i); }
console.log(acc > 0);
JS
		"$PERF" record -q -g -o node.data -- node --perf-basic-prof jit.js >/dev/null 2>&1 ;;
	esac
}

args() {
	case $1 in
	script) echo "script -i $2.data" ;;
	report) echo "report --stdio -i $2.data" ;;
	sortds) echo "report --stdio --sort dso,sym -i $2.data" ;;
	esac
}

run() {   # run PROFILE TOOL MODE REP
	base=$OUT/$1-$2-$3
	a=$(args "$2" "$1")
	case $3 in
	stock) "$PEAKRSS" -o "$base.$4.rss" -- env LD_PRELOAD="$B/fixtime.so" "$PERF" $a >"$base.out" 2>"$base.err" ;;
	lazy) "$PEAKRSS" -o "$base.$4.rss" -- env LD_PRELOAD="$B/fixtime.so:$SO" SYMLAZY_STATS="$base.json" \
		"$PERF" $a >"$base.out" 2>"$base.err" ;;
	lazynokernel) "$PEAKRSS" -o "$base.$4.rss" -- env LD_PRELOAD="$B/fixtime.so:$SO" \
		"$PERF" $a --kallsyms="$B/empty-kallsyms" >"$base.out" 2>"$base.err" ;;
	floor) "$PEAKRSS" -o "$base.$4.rss" -- env LD_PRELOAD="$B/fixtime.so:$SO" SYMLAZY_HIDE_ALL=1 SYMLAZY_LAZY=off \
		"$PERF" $a >"$base.out" 2>"$base.err" ;;
	absfloor) "$PEAKRSS" -o "$base.$4.rss" -- env LD_PRELOAD="$B/fixtime.so:$SO" SYMLAZY_HIDE_ALL=1 SYMLAZY_LAZY=off \
		"$PERF" $a --kallsyms="$B/empty-kallsyms" >"$base.out" 2>"$base.err" ;;
	esac
}

field() { sed -n "s/.*$1=\([0-9]*\).*/\1/p" "$2"; }
median() {   # median FIELD PROFILE TOOL MODE
	for r in $(seq 1 "$REPEAT"); do field "$1" "$OUT/$2-$3-$4.$r.rss"; done |
		sort -n | awk '{v[NR]=$1} END {if (NR) print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'
}

{
	echo "## symlazy kernel/JIT bench ($(date -u +%Y-%m-%d), $("$PERF" version 2>/dev/null), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg))"
	echo
	echo "Peak RssAnon polled every 2 ms, median of $REPEAT; x = ratio to the absolute floor (no user and no kernel symbols); == stock: stdout cmp."
} > "$MD"
for p in $PROFILES; do
	record "$p" || { echo "bench-kernel: cannot record $p" >&2; continue; }
	[ -s "$p.data" ] || continue
	lines=""
	[ "$p" = node ] && lines=" (perf map: $(wc -l < "$(ls -t /tmp/perf-*.map 2>/dev/null | head -1)" 2>/dev/null) lines)"
	echo "$lines" | sed -n 's/.*perf map: \([0-9][0-9]*\) lines.*/\1/p' >"$OUT/$p.maplines"
	for t in $TOOLS; do
		for m in $MODES; do "$PERF" $(args "$t" "$p") >/dev/null 2>&1; break; done   # warm caches
		for r in $(seq 1 "$REPEAT"); do for m in $MODES; do run "$p" "$t" "$m" "$r"; done; done
		fa=$(median peak_rss_anon_kb "$p" "$t" absfloor)
		fw=$(median wall_ms "$p" "$t" absfloor)
		fl=$(median peak_rss_anon_kb "$p" "$t" floor)
		{
			echo
			echo "### $p: perf $(args "$t" "$p")$lines"
			echo
			echo "| mode | peak RssAnon MiB | x abs floor | x floor | wall s | x abs floor | == stock |"
			echo "|---|---:|---:|---:|---:|---:|---|"
			for m in $MODES; do
				a=$(median peak_rss_anon_kb "$p" "$t" "$m")
				w=$(median wall_ms "$p" "$t" "$m")
				if [ "$m" = stock ]; then eq=reference
				elif [ "$m" = lazy ]; then
					if cmp -s "$OUT/$p-$t-stock.out" "$OUT/$p-$t-lazy.out"; then
						eq=identical
					elif [ "$t" != script ] && python3 "$ROOT/tests/report_same.py" \
						"$OUT/$p-$t-stock.out" "$OUT/$p-$t-lazy.out" >/dev/null 2>&1; then
						eq="identical but equal-weight sibling order (stock's dso-address tie order)"
					else
						eq="DIFFERS"
					fi
				else eq="-"; fi
				awk -v m="$m" -v a="$a" -v w="$w" -v fa="$fa" -v fw="$fw" -v fl="$fl" -v eq="$eq" 'BEGIN {
					printf "| %s | %.1f | %.2f | %.2f | %.2f | %.2f | %s |\n", m, a / 1024, a / fa, a / fl, w / 1000, w / fw, eq }'
			done
		} >> "$MD"
	done
done
[ -z "$MARKDOWN" ] && cat "$MD"
[ -z "$MARKDOWN" ] && exit 0

# ---- --markdown: the table of doc/measurements.md ------------------------
# texts JSON: kallsyms lines kept, perf map mode, from lazy mode's stats
texts() {
	command -v python3 >/dev/null 2>&1 && [ -s "$1" ] || return 0
	python3 - "$1" <<'PY'
import json, sys
try:
    t = json.load(open(sys.argv[1])).get("texts", [])
except Exception:
    sys.exit(0)
k = sorted(set(str(x.get("kept")) for x in t if x.get("kind") == "kallsyms"))
m = sorted(set(x.get("mode", "?") for x in t if x.get("kind") == "perfmap"))
print("; ".join(([", ".join(k)] if k else []) + (["perf map: " + "/".join(m)] if m else [])))
PY
}
echo "| profile, tool | stock MiB / s | lazy MiB / s | floor MiB / s | abs floor MiB / s | lazy x abs floor (mem / wall) | kallsyms lines kept |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for p in $PROFILES; do
	[ -s "$p.data" ] || continue
	case $p in
	syscall) pl="syscall loop" ;; rustc) pl="rustc -O" ;; system) pl="\`perf record -a -g\`" ;;
	node) pl="node --perf-basic-prof" ;; *) pl=$p ;;
	esac
	first=1
	for t in $TOOLS; do
		case $t in
		script) tl="\`perf script\`" ;; report) tl="\`perf report --stdio\`" ;; sortds) tl="\`--sort dso,sym\`" ;; *) tl=$t ;;
		esac
		l=$pl
		if [ $first = 1 ] && [ -s "$OUT/$p.maplines" ]; then
			l="$pl ($(sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' "$OUT/$p.maplines")-line perf map)"
		fi
		if cmp -s "$OUT/$p-$t-stock.out" "$OUT/$p-$t-lazy.out"; then d=""
		elif [ "$t" != script ] && python3 "$ROOT/tests/report_same.py" \
			"$OUT/$p-$t-stock.out" "$OUT/$p-$t-lazy.out" >/dev/null 2>&1; then d=" (stock's tie order)"
		else d=" (DIFFERS)"; fi
		set --
		for m in stock lazy floor absfloor; do
			set -- "$@" "$(median peak_rss_anon_kb "$p" "$t" "$m" 2>/dev/null)" "$(median wall_ms "$p" "$t" "$m" 2>/dev/null)"
		done
		awk -v l="$l, $tl" -v d="$d" -v node="$([ "$p" = node ] && echo 1)" -v k="$(texts "$OUT/$p-$t-lazy.json")" \
			-v sa="${1:-0}" -v sw="${2:-0}" -v la="${3:-0}" -v lw="${4:-0}" -v fa="${5:-0}" -v fw="${6:-0}" \
			-v aa="${7:-0}" -v aw="${8:-0}" 'BEGIN {
			x = (aa > 0 && aw > 0) ? sprintf("%.2f / %.2f", la / aa, lw / aw) : "-"
			if (node && fa > 0) x = x sprintf(" (%.2f x floor)", la / fa)
			printf "| %s | %.1f / %.2f | %.1f / %.2f%s | %.1f / %.2f | %.1f / %.2f | %s | %s |\n", l,
				sa / 1024, sw / 1000, la / 1024, lw / 1000, d, fa / 1024, fw / 1000, aa / 1024, aw / 1000, x, k
		}'
		first=0
	done
done
