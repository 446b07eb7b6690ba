#!/bin/sh
# demo.sh - the `make demo` walk-through: build the fixture (a 150k-function
# PIE with long C++/Rust mangled names + a 50k-function shared library), record
# it with perf, and compare stock perf against perf under libsymlazy.so.
# Needs root (or perf_event_paranoid <= 1) for perf record; run `make deps` first.
set -u
ROOT=${SYMLAZY_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
export SYMLAZY_ROOT=$ROOT
FIX=$ROOT/build/fixture
PERF=${PERF:-perf}
cd "$ROOT" || exit 1

if [ ! -f build/libsymlazy.so ] || [ ! -x build/bin/peakrss ]; then
	make --no-print-directory all || exit 1
fi
command -v "$PERF" >/dev/null 2>&1 || { echo "demo: perf not found (make deps installs linux-perf)" >&2; exit 1; }

echo "== 1. fixture"
sh scripts/build-fixture.sh "$FIX" || exit 1

echo "== 2. perf record -g -o $FIX/perf.data -- $FIX/main 2"
if [ ! -s "$FIX/perf.data" ] || [ "$FIX/main" -nt "$FIX/perf.data" ]; then
	rm -f "$FIX/perf.data"
	if ! "$PERF" record -q -g -o "$FIX/perf.data" -- "$FIX/main" 2 >/dev/null 2>"$ROOT/build/demo-record.err"; then
		cat "$ROOT/build/demo-record.err" >&2
		echo "demo: perf record failed (run as root, or lower /proc/sys/kernel/perf_event_paranoid;" \
			"in a container perf_event_open may be blocked)" >&2
		exit 1
	fi
else
	echo "(reusing $FIX/perf.data)"
fi

echo "== 3. bench (each mode 3 times, median; takes about a minute)"
sh scripts/bench.sh "$FIX" || exit 1

cat <<'EOF'

What the columns mean
- peak RssAnon: largest anonymous (heap) resident memory of the perf process,
  sampled every 2 ms by build/bin/peakrss. "x floor" divides by the floor row.
- floor: the shim hides every user-space symbol (SYMLAZY_HIDE_ALL=1); nothing
  can use less symbol memory, so it is the reference (its output is all [unknown]).
- stock: perf as shipped. perf 6.1 reads each symbol table with ELF_C_READ
  (a malloc'ed copy of .symtab/.strtab) and keeps one heap object per symbol.
- mmap: the shim serves ELF_C_READ from a private file mapping; the table
  copies move from RssAnon to page cache. Output must equal stock.
- budget-8M: at most 8 MiB of symbol objects are kept; the rest print as
  [unknown] and one "symlazy: symbol budget" line goes to stderr.
- lazy: the shim reads perf.data first and shows perf only the symbols the
  samples need; the output must still equal stock.
Raw outputs: build/bench-out/, table: build/bench.md.
EOF
