#!/bin/sh
# bench-dwarf.sh - `perf record --call-graph dwarf` profiles: peak RssAnon,
# wall and CPU time of stock perf, the shim without lazy mode, lazy mode and
# the floor (every user symbol hidden), side by side in one run, plus what
# lazy mode keeps against what an exact pre-pass would keep.
#
# Profiles (each recorded once into build/bench-dwarf/, `--call-graph dwarf`,
# default 8 KiB dumps):
#   fixture   build/fixture/main 2 (scripts/build-fixture.sh)
#   cxx       scripts/bench-cxx.cpp built with g++ -O2 -g (libstdc++: strings,
#             maps, regex, streams, sort), 1 s
#   rustc     rustc -O hello.rs (its librustc_driver has no build-id: lazy by
#             path + MMAP2 inode)
#   rustbin   tests/corpus/rust.rs built with -C link-arg=-Wl,--build-id, 1 s
# Modes (build/bin/peakrss, BENCH_REPEAT runs, median):
#   stock   no preload      mmap   SYMLAZY_LAZY=off (shim, eager)
#   lazy    the default     floor  SYMLAZY_HIDE_ALL=1 SYMLAZY_LAZY=off
# Tools: perf script --no-inline, perf report --stdio --no-inline (BENCH_TOOLS:
# "script-noinline report-noinline", add "script" for inline frames: perf's
# addr2line child then dominates wall time and the floor, having no symbols,
# starts none).
# "kept vs needed": needed = the file offsets perf really resolves for user
# DSOs (perf script -F ip,dso --no-inline, scripts/dwarf-needed.py); lazy
# mode's collected set (symlazy addrs) against it, and the symbols perf
# is shown with the collected set (SYMLAZY_STATS passed) against those it is
# shown with the needed set (SYMLAZY_ADDRS=needed SYMLAZY_LAZY=off).
# "pre-pass": symlazy addrs CPU time on the recording against the floor's
# perf script CPU time (the floor = perf's own unwinding, no symbols).
# Writes build/bench-dwarf.md. Env: BENCH_REPEAT (3), BENCH_PROFILES
# ("fixture cxx rustc rustbin"), BENCH_TOOLS, BENCH_MODES, PERF, SYMLAZY_SO.
#
# bench-dwarf.sh --markdown (or BENCH_MARKDOWN=1): stdout is only the table of
# doc/measurements.md (a row per profile and tool: stock / lazy / floor);
# --markdown=rows: only rows "| DWARF <profile>, `perf ...` | stock MiB / s |
# lazy MiB / s | floor MiB / s | lazy x floor (mem / wall) |", to append to
# scripts/bench-real.sh --markdown's table (the perf 6.12 table); make doc-tables.
set -u
MARKDOWN=${BENCH_MARKDOWN:-}
case ${1:-} in
--markdown) MARKDOWN=1; shift ;;
--markdown=*) MARKDOWN=${1#--markdown=}; shift ;;
esac
ROOT=${SYMLAZY_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
SO=${SYMLAZY_SO:-$ROOT/build/libsymlazy.so}
PEAKRSS=$ROOT/build/bin/peakrss
ADDRS=$ROOT/build/bin/symlazy
PERF=${PERF:-perf}
REPEAT=${BENCH_REPEAT:-3}
PROFILES=${BENCH_PROFILES:-fixture cxx rustc rustbin}
TOOLS=${BENCH_TOOLS:-script-noinline report-noinline}
MODES=${BENCH_MODES:-stock mmap lazy floor}
W=$ROOT/build/bench-dwarf
OUT=$W/out
MD=$ROOT/build/bench-dwarf.md
PY=$(command -v python3)
unset SYMLAZY_MMAP SYMLAZY_MAX_BYTES SYMLAZY_LAZY SYMLAZY_HIDE_ALL SYMLAZY_STATS SYMLAZY_DISABLE SYMLAZY_ADDRS
[ -x "$PEAKRSS" ] && [ -x "$ADDRS" ] && [ -f "$SO" ] || { echo "bench-dwarf: run make first" >&2; exit 2; }
mkdir -p "$OUT" || exit 1

field() { sed -n "s/.*$1=\([0-9]*\).*/\1/p" "$2"; }
median() { # FIELD PROFILE TOOL MODE
	for r in $(seq 1 "$REPEAT"); do field "$1" "$OUT/$2-$3-$4.$r.rss"; done |
		sort -n | awk '{v[NR]=$1} END {if (NR) print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'
}
mode_env() {
	case $1 in
	stock) echo "" ;;
	mmap) echo "SYMLAZY_LAZY=off" ;;
	lazy) echo "SYMLAZY_LAZY=auto" ;;
	floor) echo "SYMLAZY_HIDE_ALL=1 SYMLAZY_LAZY=off" ;;
	esac
}
tool_args() { # TOOL DATA
	case $1 in
	script) echo "script -i $2" ;;
	script-noinline) echo "script --no-inline -i $2" ;;
	report) echo "report --stdio -i $2" ;;
	report-noinline) echo "report --stdio --no-inline -i $2" ;;
	esac
}

# ---- recordings ----------------------------------------------------------
record() { # PROFILE cmd...
	_p=$1
	shift
	[ -s "$W/$_p.data" ] && return 0
	echo "bench-dwarf: recording $_p: $*" >&2
	"$PERF" record -q --call-graph dwarf -o "$W/$_p.data" -- "$@" >"$W/$_p.record.log" 2>&1 ||
		{ cat "$W/$_p.record.log" >&2; return 1; }
}
for p in $PROFILES; do
	case $p in
	fixture)
		sh "$ROOT/scripts/build-fixture.sh" "$ROOT/build/fixture" >&2 &&
			record fixture "$ROOT/build/fixture/main" 2 ;;
	cxx)
		[ -x "$W/bench-cxx" ] || g++ -O2 -g -o "$W/bench-cxx" "$ROOT/scripts/bench-cxx.cpp" || exit 1
		record cxx "$W/bench-cxx" 1 ;;
	rustc)
		printf 'fn main() { println!("hello"); }\n' >"$W/hello.rs"
		record rustc rustc -O "$W/hello.rs" -o "$W/hello" ;;
	rustbin)
		[ -x "$W/rustbin" ] || rustc -C opt-level=2 -g -C link-arg=-Wl,--build-id \
			-o "$W/rustbin" "$ROOT/tests/corpus/rust.rs" || exit 1
		record rustbin "$W/rustbin" 1 ;;
	esac || exit 1
done

# ---- runs ----------------------------------------------------------------
run_one() { # PROFILE TOOL MODE REP
	_b=$OUT/$1-$2-$3
	# shellcheck disable=SC2046
	env LD_PRELOAD="$([ "$3" = stock ] || echo "$SO")" $(mode_env "$3") SYMLAZY_STATS="$_b.json" \
		"$PEAKRSS" -o "$_b.$4.rss" -- "$PERF" $(tool_args "$2" "$W/$1.data") >"$_b.out" 2>"$_b.err"
}

: >"$MD.tmp"
for p in $PROFILES; do
	d=$W/$p.data
	for t in $TOOLS; do "$PERF" $(tool_args "$t" "$d") >/dev/null 2>&1; done   # warm caches
	for t in $TOOLS; do
		for r in $(seq 1 "$REPEAT"); do
			for m in $MODES; do run_one "$p" "$t" "$m" "$r"; done
		done
	done
	# pre-pass alone
	for r in $(seq 1 "$REPEAT"); do
		"$PEAKRSS" -o "$OUT/$p-prepass-x.$r.rss" -- "$ADDRS" addrs -i "$d" -o "$OUT/$p.addrs" 2>/dev/null
	done
	"$ADDRS" addrs -i "$d" --stats >"$OUT/$p.addrs-stats" 2>&1
	# needed set
	"$PERF" buildid-list -i "$d" 2>/dev/null >"$OUT/$p.bids"
	"$PERF" script -F ip,dso --no-inline -i "$d" 2>/dev/null >"$OUT/$p.ipdso"
	grep -o '(/[^ ()]*)$' "$OUT/$p.ipdso" | tr -d '()' | sort -u | while read -r path; do
		grep -qF " $path" "$OUT/$p.bids" && continue
		id=$(readelf -n "$path" 2>/dev/null | sed -n 's/.*Build ID: *//p' | head -1)
		[ -n "$id" ] && echo "$id $path"
	done >>"$OUT/$p.bids"
	cov=$("$PY" "$ROOT/scripts/dwarf-needed.py" "$OUT/$p.ipdso" "$OUT/$p.bids" "$OUT/$p.addrs" "$OUT/$p.needed")
	LD_PRELOAD=$SO SYMLAZY_LAZY=off SYMLAZY_ADDRS=$OUT/$p.needed SYMLAZY_STATS=$OUT/$p-needed.json \
		"$PERF" script --no-inline -i "$d" >"$OUT/$p-needed.out" 2>/dev/null
	kept=$("$PY" - "$OUT/$p-script-noinline-lazy.json" "$OUT/$p-needed.json" <<'EOF'
import json, sys
def kept(path):
    d = json.load(open(path))
    return sum(s.get("passed", 0) for s in d["dsos"] if s.get("mode") == "lazy"), \
           sum(s.get("scanned", 0) for s in d["dsos"] if s.get("mode") == "lazy"), \
           d.get("lazy"), [s["path"].split("/")[-2 if s["path"].endswith(("/elf", "/debug")) else -1] + ":" + s["mode"]
                           for s in d["dsos"] if s.get("mode") != "lazy"]
a, sa, lz, other = kept(sys.argv[1])
b, sb, _, _ = kept(sys.argv[2])
print("lazy=%s; symbols shown: %d with the collected set, %d with the needed set (%.2fx), of %d scanned%s" % (
    lz, a, b, a / b if b else 0, sa, "; not lazy: " + ", ".join(other) if other else ""))
EOF
)
	ns=$(grep -c '^[^[:space:]]' "$OUT/$p-script-noinline-stock.out" 2>/dev/null)
	pc=$(median cpu_ms "$p" prepass x)
	fc=$(median cpu_ms "$p" script-noinline floor)
	{
		echo
		echo "### $p ($(($(stat -c %s "$d") / 1048576)) MiB perf.data, $ns samples)"
		echo
		echo "addresses: $cov; $kept."
		echo "pre-pass (symlazy addrs): $(grep '^unwind:' "$OUT/$p.addrs-stats"); CPU $pc ms vs the floor's perf script --no-inline $fc ms."
		for t in $TOOLS; do
			fa=$(median peak_rss_anon_kb "$p" "$t" floor)
			fw=$(median wall_ms "$p" "$t" floor)
			fc=$(median cpu_ms "$p" "$t" floor)
			echo
			echo "perf $(tool_args "$t" perf.data)"
			echo
			echo "| mode | peak RssAnon MiB | x floor | wall s | x floor | CPU s | x floor | output == stock |"
			echo "|---|---:|---:|---:|---:|---:|---:|---|"
			for m in $MODES; do grep -v '^# (Tip: ' "$OUT/$p-$t-$m.out" >"$OUT/$p-$t-$m.cmp"; done
			for m in $MODES; do
				a=$(median peak_rss_anon_kb "$p" "$t" "$m")
				w=$(median wall_ms "$p" "$t" "$m")
				c=$(median cpu_ms "$p" "$t" "$m")
				if [ "$m" = stock ]; then eq="(reference)"
				elif cmp -s "$OUT/$p-$t-stock.cmp" "$OUT/$p-$t-$m.cmp"; then eq=yes
				else eq="no ($(diff "$OUT/$p-$t-stock.cmp" "$OUT/$p-$t-$m.cmp" | grep -c '^>') lines)"; fi
				awk -v m="$m" -v a="$a" -v w="$w" -v c="$c" -v fa="$fa" -v fw="$fw" -v fc="$fc" -v eq="$eq" 'BEGIN {
					printf "| %s | %.1f | %.2f | %.2f | %.2f | %.2f | %.2f | %s |\n", m, a / 1024,
						fa ? a / fa : 0, w / 1000, fw ? w / fw : 0, c / 1000, fc ? c / fc : 0, eq }'
			done
		done
	} >>"$MD.tmp"
done
{
	echo "## symlazy DWARF bench ($(date -u +%Y-%m-%d), $("$PERF" version 2>/dev/null), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
	echo
	echo "median of $REPEAT runs; RssAnon polled every 2 ms; CPU = user + system (peakrss, wait4)."
	cat "$MD.tmp"
} >"$MD"
rm -f "$MD.tmp"
[ -z "$MARKDOWN" ] && cat "$MD"
[ -z "$MARKDOWN" ] && exit 0

# ---- --markdown: the tables of doc/measurements.md ------------------------
[ "$MARKDOWN" = rows ] || {
	echo "| profile | perf | peak RssAnon MiB stock / lazy / floor | CPU s stock / lazy / floor | wall s stock / lazy / floor | lazy x floor (mem / wall) | lazy == stock |"
	echo "|---|---|---|---|---|---|---|"
}
firstp=1
for p in $PROFILES; do
	ns=$(grep -c '^[^[:space:]]' "$OUT/$p-script-noinline-stock.out" 2>/dev/null)
	case $p in
	fixture) pl=fixture; rl="DWARF fixture" ;;
	cxx) pl="g++ -O2 program, libstdc++"; rl="DWARF g++ program" ;;
	rustc) pl="\`rustc -O hello.rs\`"; rl="DWARF rustc" ;;
	rustbin) pl="Rust program (\`tests/corpus/rust.rs\`)"; rl="DWARF Rust program" ;;
	*) pl=$p; rl="DWARF $p" ;;
	esac
	if [ -n "$ns" ]; then
		if [ $firstp = 1 ]; then pl="$pl ($ns samples)"; else pl="$pl ($ns)"; fi
	fi
	firstt=1
	for t in $TOOLS; do
		case $t in
		script-noinline) tl=script; rt="perf script --no-inline" ;;
		report-noinline) tl="report --stdio"; rt="perf report --stdio --no-inline" ;;
		script) tl="script (inline frames)"; rt="perf script" ;;
		report) tl="report --stdio (inline frames)"; rt="perf report --stdio" ;;
		*) tl=$t; rt=$t ;;
		esac
		if cmp -s "$OUT/$p-$t-stock.cmp" "$OUT/$p-$t-lazy.cmp"; then eq=yes
		else eq="no ($(diff "$OUT/$p-$t-stock.cmp" "$OUT/$p-$t-lazy.cmp" 2>/dev/null | grep -c '^>') lines)"; fi
		set --
		for m in stock lazy floor; do
			set -- "$@" "$(median peak_rss_anon_kb "$p" "$t" "$m" 2>/dev/null)" \
				"$(median cpu_ms "$p" "$t" "$m" 2>/dev/null)" "$(median wall_ms "$p" "$t" "$m" 2>/dev/null)"
		done
		awk -v rows="$([ "$MARKDOWN" = rows ] && echo 1)" -v pl="$([ $firstt = 1 ] && echo "$pl")" -v tl="$tl" \
			-v rl="$rl, \`$rt\`" -v eq="$eq" -v sa="${1:-0}" -v sc="${2:-0}" -v sw="${3:-0}" -v la="${4:-0}" \
			-v lc="${5:-0}" -v lw="${6:-0}" -v fa="${7:-0}" -v fc="${8:-0}" -v fw="${9:-0}" 'BEGIN {
			x = (fa > 0 && fw > 0) ? sprintf("%.2f / %.2f", la / fa, lw / fw) : "-"
			if (rows) {
				d = (eq == "yes") ? "" : " (output differs: " substr(eq, 5, length(eq) - 5) ")"
				printf "| %s | %.1f / %.2f | %.1f / %.2f%s | %.1f / %.2f | %s |\n", rl, sa / 1024, sw / 1000,
					la / 1024, lw / 1000, d, fa / 1024, fw / 1000, x
			} else
				printf "| %s | %s | %.1f / **%.1f** / %.1f | %.2f / **%.2f** / %.2f | %.2f / %.2f / %.2f | %s | %s |\n",
					pl, tl, sa / 1024, la / 1024, fa / 1024, sc / 1000, lc / 1000, fc / 1000,
					sw / 1000, lw / 1000, fw / 1000, x, eq
		}'
		firstt=0
	done
	firstp=0
done
