#!/bin/sh
# bench-real.sh - stock perf against libsymlazy.so on real recordings:
#
#   node     perf record -g -- node -e '<a 3e7-iteration Math.sqrt loop>'
#   rustc    perf record -g -- rustc -O hello.rs   (a small HashMap program)
#   system   perf record -a -g -- <rustc, node, g++ and python3 at once>
#
# For each recording, `perf script` and `perf report --stdio`, side by side,
# in the modes
#   stock       no preload
#   lazy        LD_PRELOAD, defaults (lazy mode), index cache warm: a private
#               cache dir filled by one unmeasured run
#   lazy-cold   the same with an empty cache dir for every run (first run on
#               a new binary: indexes built, perf's tree replayed, files written)
#   floor       LD_PRELOAD, SYMLAZY_HIDE_ALL=1 SYMLAZY_LAZY=off: every user
#               symbol hidden - the reference (scripts/bench.sh's floor)
# each run under build/bin/peakrss (peak RssAnon, wall), BENCH_REPEAT times
# with the modes interleaved, median kept. "== stock" is cmp of stdout with
# the stock run's (perf report's random "# (Tip: ...)" line dropped).
# Below each table: the lazy run's per-DSO modes from SYMLAZY_STATS (DSOs that
# stay eager, and why), when python3 is there to read the JSON.
#
# What the host lacks is skipped with a reason: a workload program, the right
# to record (perf_event_paranoid), system-wide recording.
#
# Environment: BENCH_REPEAT (5), BENCH_RECORDINGS ("node rustc system"),
# BENCH_TOOLS ("script report"), BENCH_DIR (build/bench-real: recordings,
# outputs, caches), BENCH_RERECORD=1 (record again), SYMLAZY_SO
# (build/libsymlazy.so), PEAKRSS (build/bin/peakrss), PERF (perf).
# Tables go to stdout and $BENCH_DIR/bench-real.md. BENCH_MODES (default
# "stock lazy lazy-cold floor") picks modes.
#
# bench-real.sh --markdown (or BENCH_MARKDOWN=1): stdout is only one table as
# doc/measurements.md has it: a row per recording and tool, "MiB / s" per mode
# and lazy x floor (mem / wall); make doc-tables.
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
REPEAT=${BENCH_REPEAT:-5}
RECS=${BENCH_RECORDINGS:-node rustc system}
TOOLS=${BENCH_TOOLS:-script report}
DIR=${BENCH_DIR:-$ROOT/build/bench-real}
MODES=${BENCH_MODES:-stock lazy lazy-cold floor}
MD=$DIR/bench-real.md

# The modes define the SYMLAZY_* settings; don't inherit the caller's.
unset SYMLAZY_MMAP SYMLAZY_MAX_BYTES SYMLAZY_LAZY SYMLAZY_HIDE_ALL SYMLAZY_STATS SYMLAZY_DISABLE \
	SYMLAZY_CACHE_DIR SYMLAZY_ADDRS SYMLAZY_INHERIT SYMLAZY_VERBOSE

command -v "$PERF" >/dev/null 2>&1 || { echo "bench-real: $PERF not found" >&2; exit 2; }
[ -x "$PEAKRSS" ] || { echo "bench-real: $PEAKRSS missing; run make" >&2; exit 2; }
[ -f "$SO" ] || { echo "bench-real: $SO missing; run make" >&2; exit 2; }
mkdir -p "$DIR" || exit 2
DIR=$(cd "$DIR" && pwd)
: >"$MD"

say() { [ -n "$MARKDOWN" ] || echo "$*"; echo "$*" >>"$MD"; }

# ---- recordings ---------------------------------------------------------

JS='let s=0; for (let i=0;i<3e7;i++) s+=Math.sqrt(i); console.log(s)'

write_sources() {
	cat >"$DIR/hello.rs" <<'RS'
use std::collections::HashMap;
fn main() {
    let mut m: HashMap<String, usize> = HashMap::new();
    for w in "the quick brown fox jumps over the lazy dog the end".split(' ') {
        *m.entry(w.to_string()).or_insert(0) += 1;
    }
    let mut v: Vec<_> = m.into_iter().collect();
    v.sort();
    for (k, c) in v { println!("{} {}", k, c); }
}
RS
	cat >"$DIR/work.cpp" <<'CPP'
#include <algorithm>
#include <iostream>
#include <map>
#include <string>
#include <vector>
int main() {
	std::map<std::string, int> m;
	for (int i = 0; i < 100000; i++) m[std::to_string(i)] = i;
	std::vector<int> v;
	for (auto &p : m) v.push_back(p.second);
	std::sort(v.begin(), v.end());
	std::cout << v.size() << "\n";
}
CPP
}

# record NAME REASON-VAR PERF-RECORD-ARGS... : $DIR/NAME.data, or SKIP
record() {
	name=$1; shift
	data=$DIR/$name.data
	if [ -s "$data" ] && [ "${BENCH_RERECORD:-0}" != 1 ]; then
		echo "bench-real: reusing $data" >&2
		return 0
	fi
	rm -f "$data"
	echo "bench-real: recording $name: $PERF record $*" >&2
	if ! (cd "$DIR" && "$PERF" record -q -o "$data" "$@" >"$DIR/$name.record.out" 2>"$DIR/$name.record.err") ||
	   [ ! -s "$data" ]; then
		rm -f "$data"
		why=$(grep -v '^\s*$' "$DIR/$name.record.err" | head -2 | tr '\n' ' ')
		skip="perf record failed (${why:-no output}); needs perf_event_paranoid <= 1 or root"
		return 1
	fi
	return 0
}

have() { command -v "$1" >/dev/null 2>&1; }

# prepare NAME: record it if the host can; sets $skip otherwise
prepare() {
	skip=""
	case $1 in
	node)
		have node || { skip="no node in PATH"; return 1; }
		record node -g -- node -e "$JS"
		;;
	rustc)
		have rustc || { skip="no rustc in PATH"; return 1; }
		record rustc -g -- rustc -O -o "$DIR/hello" "$DIR/hello.rs"
		;;
	system)
		work=""
		have rustc && work="$work rustc -O -o '$DIR/hello-sys' '$DIR/hello.rs' &"
		have node && work="$work node -e '$JS' >/dev/null &"
		have g++ && work="$work g++ -O2 -o '$DIR/work' '$DIR/work.cpp' &"
		have python3 && work="$work python3 -c 'import json; print(len(json.dumps([list(range(100)) for _ in range(20000)])))' >/dev/null &"
		[ -n "$work" ] || { skip="none of rustc, node, g++, python3 in PATH"; return 1; }
		record system -a -g -- sh -c "$work wait"
		;;
	*)
		skip="unknown recording $1 (node, rustc, system)"; return 1 ;;
	esac
}

# ---- runs ---------------------------------------------------------------

tool_args() { # TOOL DATA
	case $1 in
	script) echo "script -i $2" ;;
	report) echo "report --stdio -i $2" ;;
	esac
}

# run_one REC TOOL MODE REP: one measured run; outputs and the peakrss line in $DIR/out
run_one() {
	base=$DIR/out/$1-$2-$3
	args=$(tool_args "$2" "$DIR/$1.data")
	case $3 in
	stock)
		"$PEAKRSS" -o "$base.$4.rss" -- "$PERF" $args >"$base.out" 2>"$base.err" ;;
	lazy)
		"$PEAKRSS" -o "$base.$4.rss" -- env LD_PRELOAD="$SO" SYMLAZY_CACHE_DIR="$DIR/cache" \
			"$PERF" $args >"$base.out" 2>"$base.err" ;;
	lazy-cold)
		rm -rf "$DIR/cold-cache"
		"$PEAKRSS" -o "$base.$4.rss" -- env LD_PRELOAD="$SO" SYMLAZY_CACHE_DIR="$DIR/cold-cache" \
			"$PERF" $args >"$base.out" 2>"$base.err" ;;
	floor)
		"$PEAKRSS" -o "$base.$4.rss" -- env LD_PRELOAD="$SO" SYMLAZY_HIDE_ALL=1 SYMLAZY_LAZY=off \
			"$PERF" $args >"$base.out" 2>"$base.err" ;;
	esac
	rc=$?
	[ $rc -eq 0 ] || echo "bench-real: perf $2 ($3) on $1 exited $rc, see $base.err" >&2
}

field() { sed -n "s/.*$1=\([0-9]*\).*/\1/p" "$2"; }

median() { # FIELD REC TOOL MODE
	for r in $(seq 1 "$REPEAT"); do field "$1" "$DIR/out/$2-$3-$4.$r.rss"; done |
		sort -n | awk '{v[NR]=$1} END {if (NR) print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'
}

same_as_stock() { # REC TOOL MODE
	[ "$3" = stock ] && { echo "reference"; return; }
	[ "$3" = floor ] && { echo "-"; return; }
	a=$DIR/out/$1-$2-stock.out b=$DIR/out/$1-$2-$3.out
	if [ "$2" = report ]; then
		grep -v '^# (Tip: ' "$a" >"$a.cmp"; grep -v '^# (Tip: ' "$b" >"$b.cmp"
		a=$a.cmp b=$b.cmp
	fi
	if cmp -s "$a" "$b"; then echo "yes"; else echo "NO ($(diff "$a" "$b" | grep -c '^>') lines)"; fi
}

# DSO summary of one lazy run: how many tables lazy, which stay eager and why
dso_summary() { # REC
	have python3 || return 0
	rm -f "$DIR/out/$1.stats.json"
	env LD_PRELOAD="$SO" SYMLAZY_CACHE_DIR="$DIR/cache" SYMLAZY_STATS="$DIR/out/$1.stats.json" \
		"$PERF" script -i "$DIR/$1.data" >/dev/null 2>&1
	[ -s "$DIR/out/$1.stats.json" ] || return 0
	python3 - "$DIR/out/$1.stats.json" <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1]))
modes = collections.Counter(x["mode"] for x in d["dsos"])
eager = collections.defaultdict(lambda: [0, 0, set()])
for x in d["dsos"]:
    if x["mode"] in ("eager", "budget"):
        e = eager[x["reason"] or "(no reason)"]
        e[0] += 1; e[1] += x["scanned"]; e[2].add(x["path"].rsplit("/", 1)[-1])
t = d["totals"]
print("symbol tables: " + ", ".join("%d %s" % (n, m) for m, n in sorted(modes.items())) +
      "; perf kept %d of %d scanned symbols" % (t["passed"], t["scanned"]))
for r, (n, s, names) in sorted(eager.items(), key=lambda kv: -kv[1][1]):
    names = sorted(names)
    print("eager: %d tables, %d symbols scanned (%s%s): %s" %
          (n, s, ", ".join(names[:4]), ", ..." if len(names) > 4 else "", r))
PY
}

write_sources
mkdir -p "$DIR/out"
say "## symlazy on real recordings ($(date -u +%Y-%m-%d), $("$PERF" version 2>/dev/null), $(nproc) CPUs)"
say ""
say "median of $REPEAT runs per mode, modes interleaved; peak RssAnon sampled every 2 ms;"
say "x floor = value / floor's; lazy = warm index cache, lazy-cold = empty cache each run."
for rec in $RECS; do
	say ""
	rm -f "$DIR/out/$rec.skip" "$DIR/out/$rec.nsamples"
	if ! prepare "$rec"; then
		say "### $rec: SKIP: $skip"
		echo "$skip" >"$DIR/out/$rec.skip"
		continue
	fi
	nsamples=$("$PERF" script -i "$DIR/$rec.data" -F pid 2>/dev/null | grep -c .)
	echo "$nsamples" >"$DIR/out/$rec.nsamples"
	# warm the page cache, perf's ~/.debug and the lazy index cache (not measured)
	for t in $TOOLS; do
		"$PERF" $(tool_args "$t" "$DIR/$rec.data") >/dev/null 2>&1
		env LD_PRELOAD="$SO" SYMLAZY_CACHE_DIR="$DIR/cache" "$PERF" $(tool_args "$t" "$DIR/$rec.data") >/dev/null 2>&1
	done
	for r in $(seq 1 "$REPEAT"); do
		for t in $TOOLS; do
			for m in $MODES; do run_one "$rec" "$t" "$m" "$r"; done
		done
	done
	say "### $rec ($(($(stat -c %s "$DIR/$rec.data") / 1024)) KiB perf.data, $nsamples samples)"
	say ""
	hdr="| mode |" sep="|---|"
	for t in $TOOLS; do
		hdr="$hdr $t RssAnon MiB | x floor | $t wall s | x floor | == stock |"
		sep="$sep---:|---:|---:|---:|---|"
	done
	say "$hdr"
	say "$sep"
	for m in $MODES; do
		row="| $m |"
		for t in $TOOLS; do
			a=$(median peak_rss_anon_kb "$rec" "$t" "$m"); w=$(median wall_ms "$rec" "$t" "$m")
			fa=$(median peak_rss_anon_kb "$rec" "$t" floor); fw=$(median wall_ms "$rec" "$t" floor)
			eq=$(same_as_stock "$rec" "$t" "$m")
			row="$row $(awk -v a="${a:-0}" -v w="${w:-0}" -v fa="${fa:-0}" -v fw="${fw:-0}" -v eq="$eq" 'BEGIN {
				xa = (fa > 0) ? sprintf("%.2f", a / fa) : "-"
				xw = (fw > 0) ? sprintf("%.2f", w / fw) : "-"
				printf "%.1f | %s | %.3f | %s | %s |", a / 1024, xa, w / 1000, xw, eq }')"
		done
		say "$row"
	done
	s=$(dso_summary "$rec")
	if [ -n "$s" ]; then
		say ""
		echo "$s" | while IFS= read -r line; do say "- $line"; done
	fi
done
if [ -n "$MARKDOWN" ]; then   # the table of doc/measurements.md
	hdr="| recording, tool |" sep="|---|"
	for m in $MODES; do hdr="$hdr $m MiB / s |" sep="$sep---:|"; done
	echo "$hdr lazy x floor (mem / wall) |"
	echo "$sep---:|"
	for rec in $RECS; do
		case $rec in
		rustc) label="\`rustc -O hello.rs\`" ;;
		node) label="\`node\`" ;;
		system)
			progs=""
			for x in rustc node g++ python3; do have "$x" && progs="${progs:+$progs, }$x"; done
			label="\`perf record -a -g\` while $progs run" ;;
		*) label=$rec ;;
		esac
		if [ -s "$DIR/out/$rec.skip" ]; then
			echo "| $label: skipped ($(cat "$DIR/out/$rec.skip")) |$(for m in $MODES; do printf ' - |'; done) - |"
			continue
		fi
		first=1
		for t in $TOOLS; do
			case $t in script) tl="\`perf script\`" ;; report) tl="\`perf report --stdio\`" ;; *) tl=$t ;; esac
			if [ $first = 1 ]; then row="| $label ($(cat "$DIR/out/$rec.nsamples") samples), $tl |"; else row="| same, $tl |"; fi
			for m in $MODES; do
				eq=$(same_as_stock "$rec" "$t" "$m")
				row="$row $(awk -v a="$(median peak_rss_anon_kb "$rec" "$t" "$m")" -v w="$(median wall_ms "$rec" "$t" "$m")" \
					-v eq="$eq" 'BEGIN { printf "%.1f / %.3f", a / 1024, w / 1000
					if (eq ~ /^NO/) printf " (output differs: %s)", substr(eq, 5) }') |"
			done
			row="$row $(awk -v a="$(median peak_rss_anon_kb "$rec" "$t" lazy)" -v w="$(median wall_ms "$rec" "$t" lazy)" \
				-v fa="$(median peak_rss_anon_kb "$rec" "$t" floor)" -v fw="$(median wall_ms "$rec" "$t" floor)" 'BEGIN {
				if (a > 0 && fa > 0 && fw > 0) printf "%.2f / %.2f", a / fa, w / fw; else printf "-" }') |"
			echo "$row"
			first=0
		done
	done
fi
echo >&2
echo "bench-real: tables in $MD; outputs in $DIR/out" >&2
