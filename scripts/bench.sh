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
#
# bench.sh --markdown [FIXTURE_DIR] (or BENCH_MARKDOWN=1): stdout is only the
# tables as doc/measurements.md has them (one per tool; make doc-tables).
# bench.sh --markdown=versions [FIXTURE_DIR]: the whole measurement once with
# PERF and BENCH_DATA and once with BENCH_PERF2 (required, e.g.
# $(sh scripts/build-perf612.sh)) and BENCH_DATA2 (default
# FIXTURE_DIR/perf-2.data, recorded by that perf if missing), printed as one
# table per tool with a column per perf version.
set -u
MARKDOWN=${BENCH_MARKDOWN:-}
case ${1:-} in
--markdown) MARKDOWN=1; shift ;;
--markdown=*) MARKDOWN=${1#--markdown=}; shift ;;
esac
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

# --markdown=versions: run this script once per perf (BENCH_MARKDOWN=tsv:
# "tool mode anon_kb wall_ms same" lines) and merge.
if [ "$MARKDOWN" = versions ]; then
	[ -n "${BENCH_PERF2:-}" ] || { echo "bench: --markdown=versions needs BENCH_PERF2 (the second perf, e.g. \$(sh scripts/build-perf612.sh))" >&2; exit 2; }
	mkdir -p "$OUT" || exit 2
	for v in 1 2; do
		if [ $v = 1 ]; then p=$PERF d=$DATA; else p=$BENCH_PERF2 d=${BENCH_DATA2:-$FIX/perf-2.data}; fi
		"$p" version >/dev/null 2>&1 || { echo "bench: $p: not a perf" >&2; exit 2; }
		"$p" version | sed -n 's/^perf version \([0-9]*\.[0-9]*\).*/\1/p' >"$OUT/v$v.version"
		PERF=$p BENCH_DATA=$d BENCH_OUT=$OUT/v$v BENCH_MD=$OUT/v$v.md BENCH_MARKDOWN=tsv \
			sh "$0" "$FIX" >"$OUT/v$v.tsv" || exit 1
	done
	first=1
	for t in $TOOLS; do
		[ $first = 1 ] || echo
		case $t in script) h="\`perf script\`" ;; *) h="\`perf report --stdio\`" ;; esac
		v1=$(cat "$OUT/v1.version") v2=$(cat "$OUT/v2.version")
		echo "| $h | peak RssAnon MiB ${v1:-1} | ${v2:-2} | wall s ${v1:-1} | ${v2:-2} | output == stock |"
		echo "|---|---:|---:|---:|---:|---|"
		for m in $MODES; do
			awk -F'\t' -v t="$t" -v m="$m" -v first="$first" '
			FILENAME ~ /v1.tsv$/ && $1 == t && $2 == m { a1 = $3; w1 = $4; s1 = $5 }
			FILENAME ~ /v2.tsv$/ && $1 == t && $2 == m { a2 = $3; w2 = $4; s2 = $5 }
			END {
				if (m == "stock") { l = "stock perf"; eq = "reference" }
				else if (m == "floor") { l = first ? "floor (`SYMLAZY_HIDE_ALL=1`)" : "floor"; eq = "—" }
				else {
					l = m; sub(/^budget-/, "budget ", l); if (m == "mmap") l = "mmap only"
					eq = (s1 == "identical" && s2 == "identical") ? "identical (both)" : s1 " / " s2
				}
				b = (m == "lazy") ? "**" : ""
				printf "| %s%s%s | %s%.1f%s | %s%.1f%s | %s%.2f%s | %s%.2f%s | %s |\n", b, l, b,
					b, a1 / 1024, b, b, a2 / 1024, b, b, w1 / 1000, b, b, w2 / 1000, b, eq
			}' "$OUT/v1.tsv" "$OUT/v2.tsv"
		done
		first=0
	done
	exit 0
fi

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
# same TOOL MODE: identical / differs:N (stdout against stock's, Tip lines dropped)
same() {
	if cmp -s "$OUT/$1-stock.cmp" "$OUT/$1-$2.cmp"; then echo identical
	else echo "differs:$(diff "$OUT/$1-stock.cmp" "$OUT/$1-$2.cmp" | grep -c '^>')"; fi
}
case $MARKDOWN in
'')
	cat "$MD"
	echo
	;;
tsv)	# for --markdown=versions
	for t in $TOOLS; do
		for m in $MODES; do
			printf '%s\t%s\t%s\t%s\t%s\n' "$t" "$m" "$(median peak_rss_anon_kb "$t" "$m")" \
				"$(median wall_ms "$t" "$m")" "$(same "$t" "$m")"
		done
	done
	;;
*)	# the tables of doc/measurements.md
	first=1
	for t in $TOOLS; do
		[ $first = 1 ] || echo
		echo "| mode | peak RssAnon MiB | x floor | wall s | x floor | output == stock |"
		echo "|---|---:|---:|---:|---:|---|"
		fa=$(median peak_rss_anon_kb "$t" floor 2>/dev/null)
		fw=$(median wall_ms "$t" floor 2>/dev/null)
		for m in $MODES; do
			awk -v m="$m" -v env="$(mode_env "$m")" -v first="$first" -v a="$(median peak_rss_anon_kb "$t" "$m")" \
				-v w="$(median wall_ms "$t" "$m")" -v fa="${fa:-0}" -v fw="${fw:-0}" -v s="$(same "$t" "$m")" 'BEGIN {
				if (m == "stock") { l = "stock perf (no shim)"; eq = "reference" }
				else if (m == "floor") { l = first ? "floor (every user symbol hidden)" : "floor"; eq = "—" }
				else if (m == "mmap") l = first ? "shim, mmap only (`" env "`)" : "shim, mmap only"
				else if (m ~ /^budget-/) l = first ? "shim, budget (`" env "`)" : "shim, budget " substr(m, 8)
				else if (m == "lazy") l = first ? "shim, lazy (the default; `SYMLAZY_LAZY=on` in the demo'"'"'s table)" : "shim, lazy (the default)"
				else l = m
				if (m != "stock" && m != "floor") {
					if (s == "identical") eq = "identical"
					else if (m ~ /^budget-/) eq = "`[unknown]` past the budget"
					else { sub(/^differs:/, "", s); eq = "differs (" s " lines)" }
				}
				xa = (fa > 0) ? sprintf("%.2f", a / fa) : "-"
				xw = (fw > 0) ? sprintf("%.2f", w / fw) : "-"
				b = (m == "lazy") ? "**" : ""
				printf "| %s%s%s | %s%.1f%s | %s%s%s | %s%.2f%s | %s%s%s | %s%s%s |\n", b, l, b, b, a / 1024, b,
					b, xa, b, b, w / 1000, b, b, xw, b, b, eq, b
			}'
		done
		first=0
	done
	;;
esac
echo "bench: table written to $MD; outputs in $OUT" >&2
