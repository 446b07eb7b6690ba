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

echo
echo "== 4. the same perf script in a container's memory limit (a memory cgroup of ${DEMO_CGROUP_LIMIT:-64M})"
lim=$(numfmt --from=iec "${DEMO_CGROUP_LIMIT:-64M}")
"$PERF" script -i "$FIX/perf.data" >"$ROOT/build/demo-cg.ref" 2>/dev/null
printf '| run | exit | cgroup peak MiB | output == stock without a limit |\n|---|---:|---:|---|\n'
for m in stock lazy; do
	if [ $m = stock ]; then set --; else set -- env LD_PRELOAD="$ROOT/build/libsymlazy.so"; fi
	sh scripts/cgroup-run.sh "$lim" -- "$@" "$PERF" script -i "$FIX/perf.data" \
		>"$ROOT/build/demo-cg.$m" 2>"$ROOT/build/demo-cg.$m.err"
	rc=$?
	if [ $rc -eq 3 ] && grep -q 'cgroup-run: SKIP' "$ROOT/build/demo-cg.$m.err"; then
		echo "(skipped: $(sed -n 's/^cgroup-run: SKIP: //p' "$ROOT/build/demo-cg.$m.err"))"
		break
	fi
	pk=$(sed -n 's/.*peak_kb=\([0-9]*\).*/\1/p' "$ROOT/build/demo-cg.$m.err")
	if cmp -s "$ROOT/build/demo-cg.ref" "$ROOT/build/demo-cg.$m"; then eq=yes
	elif [ $rc -eq 137 ]; then eq="no (killed by the OOM killer)"
	else eq=no; fi
	awk -v m="$m" -v rc="$rc" -v pk="${pk:-0}" -v eq="$eq" \
		'BEGIN { printf "| %s | %s | %.1f | %s |\n", m, rc, pk / 1024, eq }'
done

echo
echo "== 5. a real program: perf script of rustc -O compiling a small program (one run each)"
RUSTC=$(rustc --print sysroot 2>/dev/null)/bin/rustc
if [ -x "$RUSTC" ]; then
	RD=$ROOT/build/demo-rustc
	mkdir -p "$RD"
	printf 'use std::collections::HashMap;\nfn main() { let mut m = HashMap::new(); for i in 0..1000u64 { m.insert(i, i * 2); } println!("{}", m.values().sum::<u64>()); }\n' >"$RD/hello.rs"
	"$PERF" record -q -g -o "$RD/perf.data" -- "$RUSTC" -O "$RD/hello.rs" -o "$RD/hello" >/dev/null 2>&1
	"$PERF" script -i "$RD/perf.data" >"$RD/ref.out" 2>/dev/null    # warm caches
	printf '| mode | peak RssAnon MiB | wall s | output == stock |\n|---|---:|---:|---|\n'
	for m in stock lazy floor; do
		case $m in
		stock) set -- ;;
		lazy) set -- env LD_PRELOAD="$ROOT/build/libsymlazy.so" ;;
		floor) set -- env LD_PRELOAD="$ROOT/build/libsymlazy.so" SYMLAZY_HIDE_ALL=1 ;;
		esac
		"$ROOT/build/bin/peakrss" -o "$RD/$m.rss" -- "$@" "$PERF" script -i "$RD/perf.data" >"$RD/$m.out" 2>/dev/null
		a=$(sed -n 's/.*peak_rss_anon_kb=\([0-9]*\).*/\1/p' "$RD/$m.rss")
		w=$(sed -n 's/.*wall_ms=\([0-9]*\).*/\1/p' "$RD/$m.rss")
		if [ $m = floor ]; then eq="-"; elif cmp -s "$RD/ref.out" "$RD/$m.out"; then eq=yes; else eq=no; fi
		awk -v m="$m" -v a="${a:-0}" -v w="${w:-0}" -v eq="$eq" 'BEGIN { printf "| %s | %.1f | %.2f | %s |\n", m, a / 1024, w / 1000, eq }'
	done
	echo "(the whole Rust toolchain is lazy, librustc_driver included: perf aborts its .dynsym pass and lazy mode mirrors that, doc/design.md \"How it works\")"

	echo
	echo "== 6. inline frames: the same compile recorded with --call-graph dwarf; perf script with inline frames"
	echo "   (perf's default) and with --no-inline (stock perf 6.1 forks addr2line on librustc_driver and libLLVM:"
	echo "   this stock run takes a minute or more)"
	"$PERF" record -q --call-graph dwarf -F 250 -o "$RD/dwarf.data" -- "$RUSTC" -O "$RD/hello.rs" -o "$RD/hello" \
		>/dev/null 2>&1
	printf '| mode | perf peak RssAnon MiB | perf + addr2line children Pss_Anon MiB | wall s | output == stock |\n'
	printf '|---|---:|---:|---:|---|\n'
	for m in stock lazy stock-noinline lazy-noinline; do
		case $m in
		stock*) set -- ;;
		lazy*) set -- env LD_PRELOAD="$ROOT/build/libsymlazy.so" ;;
		esac
		x=
		case $m in *-noinline) x=--no-inline ;; esac
		"$ROOT/build/bin/peakrss" -t -o "$RD/i-$m.rss" -- "$@" "$PERF" script $x -i "$RD/dwarf.data" \
			>"$RD/i-$m.out" 2>/dev/null
		a=$(sed -n 's/.*peak_rss_anon_kb=\([0-9]*\).*/\1/p' "$RD/i-$m.rss")
		t=$(sed -n 's/.*peak_tree_pss_anon_kb=\([0-9]*\).*/\1/p' "$RD/i-$m.rss")
		w=$(sed -n 's/.*wall_ms=\([0-9]*\).*/\1/p' "$RD/i-$m.rss")
		case $m in
		stock*) eq="-" ;;
		*) if cmp -s "$RD/i-stock${m#lazy}.out" "$RD/i-$m.out"; then eq=yes; else eq=no; fi ;;
		esac
		awk -v m="$m" -v a="${a:-0}" -v t="${t:-0}" -v w="${w:-0}" -v eq="$eq" \
			'BEGIN { printf "| %s | %.1f | %.1f | %.2f | %s |\n", m, a / 1024, t / 1024, w / 1000, eq }'
	done
	echo "(symlazy answers perf 6.1's addr2line child itself for DSOs without debug information: doc/perf.md"
	echo " \"Inline frames and source lines\")"
else
	echo "(skipped: no rustc)"
fi

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
