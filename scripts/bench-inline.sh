#!/bin/sh
# bench-inline.sh - inline frames and source lines (doc/perf.md): perf script
# with inline frames (its default) against --no-inline, stock and under the
# shim, side by side in one run, per perf version.
#
# Profiles (recorded once into build/bench-inline/ by this host's perf,
# --call-graph dwarf):
#   rustc   rustc -O hello.rs (librustc_driver and libLLVM: 500k-symbol
#           tables, no DWARF: perf 6.1's addr2line children scan them)
#   cxx     tests/corpus/cxx.cpp built with g++ -O2 -g (its own DWARF; libc's
#           from /usr/lib/debug when libc6-dbg is installed), 1 s
# Modes (build/bin/peakrss -t: the perf process and its addr2line children):
#   stock-inline    perf script                 stock-noinline  --no-inline
#   lazy-inline     LD_PRELOAD=libsymlazy.so    lazy-noinline   the same, --no-inline
#   floor           SYMLAZY_HIDE_ALL=1 SYMLAZY_LAZY=off, --no-inline (no user symbols)
# Lazy modes are measured with the cache warm (one unmeasured run before each:
# the first run after a DSO changed builds its tables, see doc/perf.md).
# Columns: wall s; peak RssAnon of perf (MiB); peak Pss_Anon summed over perf
# and its children (MiB: what the children add; pages a forked child shares
# with perf are counted once). "identical": stock-inline and lazy-inline
# stdout compared byte for byte.
# Perf versions: this host's perf (6.1) and perf 6.12 (scripts/build-perf612.sh,
# when built). Writes build/bench-inline.md; --markdown: only its table.
# Env: BENCH_PROFILES ("rustc cxx"), BENCH_MODES, PERF612, SYMLAZY_SO.
set -u
MARKDOWN=
[ "${1:-}" = --markdown ] && MARKDOWN=1
ROOT=${SYMLAZY_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
SO=${SYMLAZY_SO:-$ROOT/build/libsymlazy.so}
PEAKRSS=$ROOT/build/bin/peakrss
PROFILES=${BENCH_PROFILES:-rustc cxx}
MODES=${BENCH_MODES:-stock-inline stock-noinline lazy-inline lazy-noinline floor}
W=$ROOT/build/bench-inline
MD=$ROOT/build/bench-inline.md
unset SYMLAZY_MMAP SYMLAZY_MAX_BYTES SYMLAZY_LAZY SYMLAZY_HIDE_ALL SYMLAZY_STATS SYMLAZY_DISABLE SYMLAZY_ADDRS \
	SYMLAZY_A2L
[ -x "$PEAKRSS" ] && [ -f "$SO" ] || { echo "bench-inline: run make first" >&2; exit 2; }
mkdir -p "$W/out" || exit 1
PERFS="6.1:$(command -v perf)"
P612=${PERF612:-$(sh "$ROOT/scripts/build-perf612.sh" 2>/dev/null)}
[ -n "$P612" ] && [ -x "$P612" ] && PERFS="$PERFS 6.12:$P612"

field() { sed -n "s/.*$1=\([0-9]*\).*/\1/p" "$2"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
sec() { awk -v m="$1" 'BEGIN { printf "%.2f", m / 1000 }'; }

for p in $PROFILES; do
	D=$W/$p.data
	[ -s "$D" ] && continue
	case $p in
	rustc)
		command -v rustc >/dev/null 2>&1 || { echo "bench-inline: rustc missing: $p skipped" >&2; continue; }
		printf 'fn main() { println!("hello"); }\n' >"$W/hello.rs"
		perf record -q --call-graph dwarf -o "$D" -- rustc -O "$W/hello.rs" -o "$W/hello" >/dev/null 2>&1 ;;
	cxx)
		c++ -O2 -g -fomit-frame-pointer -I"$ROOT/tests/corpus" -o "$W/cxx" "$ROOT/tests/corpus/cxx.cpp" &&
			perf record -q --call-graph dwarf -o "$D" -- "$W/cxx" 1 >/dev/null 2>&1 ;;
	esac || { echo "bench-inline: recording $p failed" >&2; rm -f "$D"; }
done

run() { # V PERF PROFILE MODE
	_o=$W/out/$1-$3-$4
	_x=
	case $4 in *noinline | floor) _x=--no-inline ;; esac
	case $4 in
	stock-*) "$PEAKRSS" -t -o "$_o.rss" -- "$2" script $_x -i "$W/$3.data" >"$_o.txt" 2>/dev/null ;;
	lazy-*) # one unmeasured run first: the cache warm, as on a second perf run
		LD_PRELOAD=$SO "$2" script $_x -i "$W/$3.data" >/dev/null 2>&1
		LD_PRELOAD=$SO SYMLAZY_STATS=$_o.json "$PEAKRSS" -t -o "$_o.rss" -- "$2" script $_x \
		-i "$W/$3.data" >"$_o.txt" 2>/dev/null ;;
	floor) LD_PRELOAD=$SO SYMLAZY_HIDE_ALL=1 SYMLAZY_LAZY=off "$PEAKRSS" -t -o "$_o.rss" -- "$2" script $_x \
		-i "$W/$3.data" >"$_o.txt" 2>/dev/null ;;
	esac
}

{
	echo "| perf | profile | mode | wall s | perf RssAnon MiB | perf + children Pss_Anon MiB |"
	echo "|---|---|---|---|---|---|"
} >"$MD.rows"
notes=
for pv in $PERFS; do
	V=${pv%%:*} P=${pv#*:}
	for p in $PROFILES; do
		[ -s "$W/$p.data" ] || continue
		for m in $MODES; do
			run "$V" "$P" "$p" "$m"
			r=$W/out/$V-$p-$m.rss
			echo "| $V | $p | $m | $(sec "$(field wall_ms "$r")") | $(mib "$(field peak_rss_anon_kb "$r")") |" \
				"$(mib "$(field peak_tree_pss_anon_kb "$r")") |" >>"$MD.rows"
		done
		a=$W/out/$V-$p-stock-inline.txt b=$W/out/$V-$p-lazy-inline.txt
		if [ -f "$a" ] && [ -f "$b" ]; then
			if cmp -s "$a" "$b"; then s=identical; else s=DIFFERS; fi
			notes="$notes
- perf $V, $p: with inline frames, stock and symlazy output $s ($(wc -l <"$a") lines)"
		fi
	done
done
{
	cat "$MD.rows"
	echo "$notes"
} >"$MD"
rm -f "$MD.rows"
if [ -n "$MARKDOWN" ]; then cat "$MD"; else cat "$MD"; echo "(written to $MD)"; fi
