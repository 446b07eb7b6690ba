#!/bin/sh
# bench.sh [FIXTURE_DIR] - peak RssAnon and wall time of stock `perf script`
# and `perf report --stdio` versus the same commands under libsymlazy.so.
#
# FIXTURE_DIR (default build/fixture) must hold the fixture built by
# scripts/build-fixture.sh. If FIXTURE_DIR/perf.data is missing it is recorded
# with frame-pointer call chains: perf record -g -o DIR/perf.data -- DIR/main 2
#
# Modes (each run under build/bin/peakrss, BENCH_REPEAT times, median kept):
#   stock       no preload
#   mmap        LD_PRELOAD, SYMLAZY_LAZY=off              (ELF_C_READ served by mmap)
#   budget-8M   LD_PRELOAD, SYMLAZY_LAZY=off SYMLAZY_MAX_BYTES=8M
#   lazy        LD_PRELOAD, SYMLAZY_LAZY=on
#   floor       LD_PRELOAD, SYMLAZY_HIDE_ALL=1 SYMLAZY_LAZY=off (no user symbols:
#               the memory reference, prints [unknown] everywhere)
# "output == stock" is `cmp` of the command's stdout against the stock run's.
#
# Prints markdown tables and writes them to build/bench.md. Outputs of the last
# repetition are kept in build/bench-out/ for inspection.
# Environment: BENCH_REPEAT (3), BENCH_TOOLS ("script report"), BENCH_MODES,
# SYMLAZY_SO (build/libsymlazy.so), PEAKRSS (build/bin/peakrss), PERF (perf),
# BENCH_DATA (perf.data to use or record, default FIXTURE_DIR/perf.data: one
# per perf version, perf 6.1 cannot read 6.12's), BENCH_OUT, BENCH_MD.
set -u
ROOT=${SYMLAZY_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
FIX=${1:-$ROOT/build/fixture}
FIX=$(cd "$FIX" 2>/dev/null && pwd) || { echo "bench: no fixture dir ${1:-build/fixture}; run: sh scripts/build-fixture.sh build/fixture" >&2; exit 2; }
SO=${SYMLAZY_SO:-$ROOT/build/libsymlazy.so}
PEAKRSS=${PEAKRSS:-$ROOT/build/bin/peakrss}
PERF=${PERF:-perf}
REPEAT=${BENCH_REPEAT:-3}
TOOLS=${BENCH_TOOLS:-script report}
MODES=${BENCH_MODES:-stock mmap budget-8M lazy floor}
OUT=${BENCH_OUT:-$ROOT/build/bench-out}
MD=${BENCH_MD:-$ROOT/build/bench.md}
DATA=${BENCH_DATA:-$FIX/perf.data}

# The modes define the SYMLAZY_* settings; don't inherit the caller's.
unset SYMLAZY_MMAP SYMLAZY_MAX_BYTES SYMLAZY_LAZY SYMLAZY_HIDE_ALL SYMLAZY_STATS SYMLAZY_DISABLE

[ -x "$PEAKRSS" ] || { echo "bench: $PEAKRSS missing; run make" >&2; exit 2; }
[ -x "$FIX/main" ] || { echo "bench: $FIX/main missing; run sh scripts/build-fixture.sh $FIX" >&2; exit 2; }
[ -f "$SO" ] || echo "bench: warning: $SO missing, shim modes will fail" >&2
mkdir -p "$OUT"

if [ ! -s "$DATA" ]; then
	echo "bench: recording $DATA (perf record -g, 2 s)" >&2
	"$PERF" record -q -g -o "$DATA" -- "$FIX/main" 2 >/dev/null 2>"$OUT/record.err" ||
		{ cat "$OUT/record.err" >&2; exit 1; }
fi

mode_env() {
	case $1 in
	stock) echo "" ;;
	mmap) echo "SYMLAZY_LAZY=off" ;;
	budget-*) echo "SYMLAZY_LAZY=off SYMLAZY_MAX_BYTES=${1#budget-}" ;;
	lazy) echo "SYMLAZY_LAZY=on" ;;
	floor) echo "SYMLAZY_HIDE_ALL=1 SYMLAZY_LAZY=off" ;;
	*) echo "bench: unknown mode $1" >&2; exit 2 ;;
	esac
}

tool_args() {
	case $1 in
	script) echo "script -i $DATA" ;;
	report) echo "report --stdio -i $DATA" ;;
	esac
}

# run_one TOOL MODE REP: one measured run; stdout/stderr/peakrss line in $OUT.
run_one() {
	base=$OUT/$1-$2
	if [ "$2" = stock ]; then
		"$PEAKRSS" -o "$base.$3.rss" -- "$PERF" $(tool_args "$1") >"$base.out" 2>"$base.err"
	else
		"$PEAKRSS" -o "$base.$3.rss" -- env LD_PRELOAD="$SO" $(mode_env "$2") \
			"$PERF" $(tool_args "$1") >"$base.out" 2>"$base.err"
	fi
	rc=$?
	[ $rc -eq 0 ] || echo "bench: perf $1 ($2) exited $rc, see $base.err" >&2
}

field() { sed -n "s/.*$1=\([0-9]*\).*/\1/p" "$2"; }

# median FIELD TOOL MODE: median over the repetitions
median() {
	for r in $(seq 1 "$REPEAT"); do field "$1" "$OUT/$2-$3.$r.rss"; done |
		sort -n | awk '{v[NR]=$1} END {if (NR) print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'
}

# Warm the page cache and perf's ~/.debug build-id cache (not measured).
for t in $TOOLS; do "$PERF" $(tool_args "$t") >/dev/null 2>&1; done

: >"$MD.tmp"
for t in $TOOLS; do
	for r in $(seq 1 "$REPEAT"); do
		for m in $MODES; do run_one "$t" "$m" "$r"; done
	done
	fa=$(median peak_rss_anon_kb "$t" floor 2>/dev/null)
	fw=$(median wall_ms "$t" floor 2>/dev/null)
	{
		echo
		echo "### perf $(tool_args "$t" | sed "s|$DATA|perf.data|")"
		echo
		echo "| mode | peak RssAnon MiB | x floor | wall s | x floor | output == stock |"
		echo "|---|---:|---:|---:|---:|---|"
		# perf report ends with a random "# (Tip: ...)" line: not compared
		for m in $MODES; do grep -v '^# (Tip: ' "$OUT/$t-$m.out" >"$OUT/$t-$m.cmp"; done
		for m in $MODES; do
			a=$(median peak_rss_anon_kb "$t" "$m")
			w=$(median wall_ms "$t" "$m")
			if [ "$m" = stock ]; then
				eq="(reference)"
			elif cmp -s "$OUT/$t-stock.cmp" "$OUT/$t-$m.cmp"; then
				eq="yes"
			else
				n=$(diff "$OUT/$t-stock.cmp" "$OUT/$t-$m.cmp" | grep -c '^>')
				eq="no ($n lines differ)"
			fi
			env=$(mode_env "$m")
			awk -v m="$m" -v e="${env:-no preload}" -v a="$a" -v w="$w" -v fa="${fa:-0}" -v fw="${fw:-0}" -v eq="$eq" 'BEGIN {
				xa = (fa > 0) ? sprintf("%.2f", a / fa) : "-"
				xw = (fw > 0) ? sprintf("%.2f", w / fw) : "-"
				printf "| %s (`%s`) | %.1f | %s | %.2f | %s | %s |\n", m, e, a / 1024, xa, w / 1000, xw, eq
			}'
		done
	} >>"$MD.tmp"
done
for m in $MODES; do
	[ "$m" = stock ] && continue
	for t in $TOOLS; do
		w=$(grep -m1 '^symlazy: symbol budget' "$OUT/$t-$m.err")
		[ -n "$w" ] && printf '\n%s (%s): stderr: %s\n' "$m" "$t" "$w" >>"$MD.tmp"
	done
done
nsamples=""
[ -f "$OUT/script-stock.out" ] && nsamples=$(grep -c '^[^[:space:]]' "$OUT/script-stock.out")
{
	echo "## symlazy bench ($(date -u +%Y-%m-%d), $("$PERF" version 2>/dev/null), $(nproc) CPUs)"
	echo
	echo "fixture: $FIX (main $(($(stat -c %s "$FIX/main") / 1048576)) MiB, libbigshared.so $(($(stat -c %s "$FIX/libbigshared.so") / 1048576)) MiB); perf.data: $(($(stat -c %s "$DATA") / 1024)) KiB${nsamples:+, $nsamples samples}; median of $REPEAT runs; RssAnon sampled every 2 ms."
	cat "$MD.tmp"
} >"$MD"
rm -f "$MD.tmp"
cat "$MD"
echo
echo "bench: table written to $MD; outputs in $OUT" >&2
