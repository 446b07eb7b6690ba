#!/bin/sh
# bench-perf72.sh - peak RssAnon and wall of Debian sid's perf 7.2 in a sid
# root (scripts/build-root.sh sid, entered with scripts/in-root.sh), on
# recordings 7.2 makes there: rustc -O (fp), g++ -O2 -g (fp), g++
# --call-graph dwarf. perf script with inline frames (7.x's default) and
# with --no-inline, in five modes, each under build/bin/peakrss, BENCH_REPEAT
# (3) times interleaved, median kept:
#   stock     no shim
#   lazy      LD_PRELOAD=libsymlazy.so (the default: lazy on for 7.2.x)
#   nomap     lazy with SYMLAZY_DWARF_MAP=0: libdw inflates compressed debug
#             sections onto the heap again (core/dwarfsec.h)
#   noabbrev  lazy with SYMLAZY_DWARF_ABBREV=0: the copies without each unit
#             DIE's abbreviation first (index/abbrevord.h; copies of their own)
#   floor     SYMLAZY_HIDE_ALL=1 SYMLAZY_LAZY=off: every user symbol hidden
#   absfloor  the floor plus --kallsyms=<an empty file>: no symbols at all
# "== stock": stdout of the lazy run cmp'ed with stock's. A second table, the
# cost of inline frames: stock and lazy with and without them, and
# lazy inline over lazy --no-inline (target <= 1.25), all from the same run.
# bench-perf72.sh --markdown prints only the table (make doc-tables).
# Env: BENCH_REPEAT, BENCH_PROFILES (rustc cxx cxxdw), SYMLAZY_SO.
set -u
MARKDOWN=${BENCH_MARKDOWN:-}
[ "${1:-}" = --markdown ] && MARKDOWN=1
ROOT=${SYMLAZY_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
SO=${SYMLAZY_SO:-$ROOT/build/libsymlazy.so}
REPEAT=${BENCH_REPEAT:-3}
PROFILES=${BENCH_PROFILES:-rustc cxx cxxdw}
B=$ROOT/build/bench-perf72
SID=$(sh "$ROOT/scripts/build-root.sh" sid) || { echo "bench-perf72: no sid root" >&2; exit 1; }
make -s -C "$ROOT" build/bin/peakrss >/dev/null || exit 1
rm -rf "$B/so" "$B/out"; mkdir -p "$B/w" "$B/so" "$B/out" || exit 1
cp "$SO" "$ROOT/build/bin/peakrss" "$B/so/" || exit 1
W=$B/w
inr() { SYMLAZY_WORK=$W SYMLAZY_BIND=$B/so sh "$ROOT/scripts/in-root.sh" "$SID" "$@"; }
: >"$W/empty-kallsyms"
cp "$ROOT/tests/corpus/cxx.cpp" "$ROOT/tests/corpus/corpus.h" "$W/"
printf 'fn main() { let v: Vec<u64> = (0..100000).map(|x| x * x).collect(); println!("{}", v.iter().sum::<u64>()); }\n' >"$W/hello.rs"
[ -x "$W/cxx" ] || inr g++ -O2 -g -fno-omit-frame-pointer -o /work/cxx /work/cxx.cpp || exit 1
for p in $PROFILES; do
	[ -s "$W/$p.data" ] && continue
	case $p in
	rustc) inr perf record -q -g -o /work/rustc.data -- rustc -O -o /work/hello /work/hello.rs ;;
	cxx) inr perf record -q -g -o /work/cxx.data -- /work/cxx 2 ;;
	cxxdw) inr perf record -q --call-graph dwarf,8192 -o /work/cxxdw.data -- /work/cxx 1 ;;
	esac >/dev/null 2>&1 || { echo "bench-perf72: record $p failed" >&2; exit 1; }
done
run() { # PROFILE INLINE(inline|noinline) MODE REP
	_a="script -i /work/$1.data"
	[ "$2" = noinline ] && _a="script --no-inline -i /work/$1.data"
	_o=/work/out/$1-$2-$3
	case $3 in
	stock) inr /symlazy/peakrss -o "$_o.$4.rss" -- perf $_a ;;
	lazy) inr /symlazy/peakrss -o "$_o.$4.rss" -- env LD_PRELOAD=/symlazy/libsymlazy.so \
		SYMLAZY_CACHE_DIR=/work/cache perf $_a ;;
	nomap) inr /symlazy/peakrss -o "$_o.$4.rss" -- env LD_PRELOAD=/symlazy/libsymlazy.so \
		SYMLAZY_CACHE_DIR=/work/cache SYMLAZY_DWARF_MAP=0 perf $_a ;;
	noabbrev) inr /symlazy/peakrss -o "$_o.$4.rss" -- env LD_PRELOAD=/symlazy/libsymlazy.so \
		SYMLAZY_CACHE_DIR=/work/cache SYMLAZY_DWARF_ABBREV=0 perf $_a ;;
	floor) inr /symlazy/peakrss -o "$_o.$4.rss" -- env LD_PRELOAD=/symlazy/libsymlazy.so \
		SYMLAZY_HIDE_ALL=1 SYMLAZY_LAZY=off perf $_a ;;
	absfloor) inr /symlazy/peakrss -o "$_o.$4.rss" -- env LD_PRELOAD=/symlazy/libsymlazy.so \
		SYMLAZY_HIDE_ALL=1 SYMLAZY_LAZY=off perf $_a --kallsyms=/work/empty-kallsyms ;;
	esac >"$W/out/$1-$2-$3.out" 2>/dev/null
}
mkdir -p "$W/out"
# warm the index cache and the debug-section copies once (the table is the warm case)
for p in $PROFILES; do for m in lazy noabbrev; do run "$p" inline $m 0; done; done
for r in $(seq 1 "$REPEAT"); do
	for p in $PROFILES; do for i in inline noinline; do for m in stock lazy nomap noabbrev floor absfloor; do
		[ "$m" = noabbrev ] && [ "$i" = noinline ] && continue
		run "$p" "$i" "$m" "$r"
	done; done; done
done
field() { sed -n "s/.*$1=\([0-9]*\).*/\1/p" "$2"; }
median() { # FIELD PROFILE INLINE MODE
	for r in $(seq 1 "$REPEAT"); do field "$1" "$W/out/$2-$3-$4.$r.rss"; done |
		sort -n | awk '{v[NR]=$1} END {if (NR) print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'
}
cell() { awk -v k="$(median peak_rss_anon_kb "$1" "$2" "$3")" -v w="$(median wall_ms "$1" "$2" "$3")" \
	'BEGIN { printf "%.1f / %.2f", k / 1024, w / 1000 }'; }
ratio() { awk -v a="$(median "$4" "$1" "$2" "$3")" -v b="$(median "$4" "$1" "$2" floor)" \
	'BEGIN { printf "%.2f", b ? a / b : 0 }'; }
table() {
	echo "| recording, \`perf script\` | stock | **symlazy (default)** | floor | absolute floor | lazy x floor (mem / wall) | == stock |"
	echo "|---|---:|---:|---:|---:|---:|---|"
	for p in $PROFILES; do for i in noinline inline; do
		same=differs
		cmp -s "$W/out/$p-$i-stock.out" "$W/out/$p-$i-lazy.out" && same=identical
		echo "| $p, $( [ $i = inline ] && echo 'inline frames (default)' || echo '`--no-inline`') | $(cell $p $i stock) | **$(cell $p $i lazy)** | $(cell $p $i floor) | $(cell $p $i absfloor) | $(ratio $p $i lazy peak_rss_anon_kb) / $(ratio $p $i lazy wall_ms) | $same |"
	done; done
}
# inline frames' cost: lazy inline / lazy --no-inline (FIELD)
iratio() { awk -v a="$(median "$2" "$1" inline lazy)" -v b="$(median "$2" "$1" noinline lazy)" \
	'BEGIN { printf "%.2f", b ? a / b : 0 }'; }
itable() {
	echo "| recording, \`perf script\` | stock inline | stock \`--no-inline\` | **symlazy inline** | symlazy \`--no-inline\` | floor \`--no-inline\` | symlazy inline, \`SYMLAZY_DWARF_ABBREV=0\` | symlazy inline, \`SYMLAZY_DWARF_MAP=0\` | symlazy inline / \`--no-inline\` (mem / wall) |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	for p in $PROFILES; do
		echo "| $p | $(cell $p inline stock) | $(cell $p noinline stock) | **$(cell $p inline lazy)** | $(cell $p noinline lazy) | $(cell $p noinline floor) | $(cell $p inline noabbrev) | $(cell $p inline nomap) | $(iratio $p peak_rss_anon_kb) / $(iratio $p wall_ms) |"
	done
}
if [ -n "$MARKDOWN" ]; then
	echo "\`sh scripts/bench-perf72.sh\`, $(date -u +%Y-%m-%d), $(inr perf version 2>/dev/null) in a Debian sid root, peak RssAnon MiB / wall s, median of $REPEAT, index cache warm:"
	echo
	table
	echo
	itable
else
	{ table; echo; itable; } | tee "$B/bench-perf72.md"
fi
