#!/bin/sh
# bench-dwfl.sh - libdwfl tools with and without the shim, side by side in one
# run (doc/libdwfl.md, doc/measurements.md). Prints markdown tables: median wall and CPU (user + sys)
# seconds and peak RSS (MiB, the kernel's maxrss of the process) per cell,
# over RUNS runs that alternate stock / shim, and whether the outputs are
# byte-identical.
#
#   sh scripts/bench-dwfl.sh [RUNS]        (default 3; needs make all)
#
# Tables:
#   addr2line  eu-addr2line -f -e BIN with 1, 200 and 2000 addresses (random
#              function-interior addresses, fixed seed) on the generated
#              fixture (150k and 500k symbols: scripts/build-fixture.sh), the
#              Rust toolchain's librustc_driver-*.so and /usr/bin/node; shim
#              with its index cache warm (one untimed run first) and without
#              a cache (SYMLAZY_CACHE_DIR=off: the index is built in memory by
#              every run);
#   reads      random-access symbol reads that never reach the index: a
#              libelf program (build/bin/symread-bench, 5M gelf_getsymshndx)
#              and eu-addr2line -f with SYMLAZY_DWFL=0 (libdwfl's own scans
#              through the shim's gelf_getsymshndx), CPU ratio shim/stock;
#   clients    hotspot-perfparser on a perf record --call-graph dwarf profile
#              of the fixture, eu-stack -p on an idle node process.
# Env: BENCH_BINS (override the binary list), SYMLAZY_SO.
#
#   sh scripts/bench-dwfl.sh --markdown [RUNS]   (or BENCH_MARKDOWN=1)
# stdout is only the three tables as doc/measurements.md has them (no
# headings; binaries named "fixture 150k", "/usr/bin/node (110k)", ...: the
# count is the function symbols with a size); make doc-tables.
set -u
MARKDOWN=${BENCH_MARKDOWN:-}
case ${1:-} in
--markdown) MARKDOWN=1; shift ;;
--markdown=*) MARKDOWN=${1#--markdown=}; shift ;;
esac
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SO=${SYMLAZY_SO:-$ROOT/build/libsymlazy.so}
RUNS=${1:-3}
W=$ROOT/build/bench-dwfl
TIME=/usr/bin/time
mkdir -p "$W"
rm -rf "$W/cache"
[ -x "$TIME" ] || { echo "bench-dwfl: needs /usr/bin/time (Debian package time)" >&2; exit 2; }
[ -f "$SO" ] || { echo "bench-dwfl: $SO missing: make all" >&2; exit 2; }
cp "$SO" "$W/libsymlazy.so"        # a rebuild during the run cannot mix versions
SO=$W/libsymlazy.so

# one_run OUT CMD...: run, record "wall user sys maxrss_kb" in OUT.t
one_run() {
	o=$1; shift
	"$TIME" -f "%e %U %S %M" -o "$o.t" "$@" >"$o" 2>/dev/null
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "?"}'; }

# cell NAME ENVSPEC CMD...: RUNS runs; prints "wall cpu rss_mib" medians
# (ENVSPEC: "-" for none, else VAR=VALUE[,VAR=VALUE])
cell() {
	n=$1 e=$2; shift 2
	: >"$W/$n.all"
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		if [ "$e" = - ]; then
			one_run "$W/$n.out" "$@"
		else
			one_run "$W/$n.out" env $(echo "$e" | tr ',' ' ') "$@"
		fi
		cat "$W/$n.out.t" >>"$W/$n.all"
		i=$((i + 1))
	done
	wall=$(awk '{print $1}' "$W/$n.all" | median)
	cpu=$(awk '{printf "%.2f\n", $2 + $3}' "$W/$n.all" | median)
	rss=$(awk '{printf "%.1f\n", $4 / 1024}' "$W/$n.all" | median)
	echo "$wall $cpu $rss"
}

# hd LINE: a heading line, left out of --markdown output
hd() { [ -n "$MARKDOWN" ] || echo "$*"; }

# label BIN: the binary's name in --markdown tables (after addrs BIN)
label() {
	case $1 in
	"$ROOT/build/fixture/main") echo "fixture 150k" ;;
	"$ROOT/build/fixture-500k/main") echo "fixture 500k" ;;
	*)
		k=$(awk 'END { printf "%.0fk", NR / 1000 }' "$W/syms")
		if nm --defined-only "$1" 2>/dev/null | grep -q .; then t=""; else t=" dynsym"; fi
		case $(basename "$1") in
		librustc_driver-*) echo "librustc_driver ($k$t)" ;;
		*) echo "$1 ($k$t)" ;;
		esac ;;
	esac
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "-" }'; }

# addrs FILE N: N random function-interior addresses (hex), fixed seed
addrs() {
	nm -S --defined-only "$1" 2>/dev/null | awk '$3 ~ /^[tTwW]$/ && $2 != "" {print $1, $2}' >"$W/syms" || true
	[ -s "$W/syms" ] || nm -D -S --defined-only "$1" | awk '$3 ~ /^[tTwW]$/ && $2 != "" {print $1, $2}' >"$W/syms"
	python3 - "$W/syms" "$2" <<'EOF'
import random, sys
syms = [l.split() for l in open(sys.argv[1])]
syms = [(int(a, 16), int(s, 16)) for a, s in syms if int(s, 16) > 0]
r = random.Random(12)
for _ in range(int(sys.argv[2])):
    a, s = r.choice(syms)
    print(hex(a + r.randrange(s)))
EOF
}

sh "$ROOT/scripts/build-fixture.sh" "$ROOT/build/fixture" >/dev/null 2>&1 || true
sh "$ROOT/scripts/build-fixture.sh" "$ROOT/build/fixture-500k" --big-funcs 500000 >/dev/null 2>&1 || true
RUSTC_DRIVER=$(ls "$(rustc --print sysroot 2>/dev/null)"/lib/librustc_driver-*.so 2>/dev/null | head -1)
BINS=${BENCH_BINS:-"$ROOT/build/fixture/main $ROOT/build/fixture-500k/main $RUSTC_DRIVER /usr/bin/node"}

hd "## eu-addr2line -f (median of $RUNS; wall s / CPU s / peak RSS MiB)"
hd ""
echo "| binary | addresses | stock | shim, cache warm | x wall | x CPU | shim, no cache | x wall | output |"
echo "|---|---:|---|---|---:|---:|---|---:|---|"
for bin in $BINS; do
	[ -f "$bin" ] || continue
	b=$(basename "$bin")
	[ "$b" = main ] && b=$(basename "$(dirname "$bin")")/main
	tag=$(echo "$b" | tr '/.' '__')
	for n in 1 200 2000; do
		addrs "$bin" "$n" >"$W/$tag.$n.addrs"
		set -- eu-addr2line -f -e "$bin" $(cat "$W/$tag.$n.addrs")
		# warm the cache (untimed)
		env LD_PRELOAD="$SO" SYMLAZY_CACHE_DIR="$W/cache" "$@" >/dev/null 2>&1
		st=$(cell "$tag.$n.stock" - "$@")
		sh=$(cell "$tag.$n.shim" "LD_PRELOAD=$SO,SYMLAZY_CACHE_DIR=$W/cache" "$@")
		nc=$(cell "$tag.$n.nocache" "LD_PRELOAD=$SO,SYMLAZY_CACHE_DIR=off" "$@")
		same=identical
		cmp -s "$W/$tag.$n.stock.out" "$W/$tag.$n.shim.out" || same=DIFFERENT
		cmp -s "$W/$tag.$n.stock.out" "$W/$tag.$n.nocache.out" || same=DIFFERENT
		[ -n "$MARKDOWN" ] && b=$(label "$bin")
		set -- $st
		sw=$1 sc=$2 sr=$3
		set -- $sh
		hw=$1 hc=$2 hr=$3
		set -- $nc
		echo "| $b | $n | $sw / $sc / $sr | $hw / $hc / $hr | $(ratio "$sw" "$hw") | $(ratio "$sc" "$hc") | $1 / $2 / $3 | $(ratio "$sw" "$1") | $same |"
	done
done

echo
hd "## Symbol reads the index does not serve (median of $RUNS; CPU s)"
hd ""
echo "| workload | stock CPU | shim CPU | shim/stock |"
echo "|---|---:|---:|---:|"
if [ -x "$ROOT/build/bin/symread-bench" ]; then
	set -- "$ROOT/build/bin/symread-bench" /usr/bin/node 5000000
	st=$(cell reads.stock - "$@")
	sh=$(cell reads.shim "LD_PRELOAD=$SO" "$@")
	echo "| symread-bench: 5M random gelf_getsymshndx, node .symtab | $(echo "$st" | cut -d' ' -f2) | $(echo "$sh" | cut -d' ' -f2) | $(awk -v a="$(echo "$sh" | cut -d' ' -f2)" -v b="$(echo "$st" | cut -d' ' -f2)" 'BEGIN {printf "%.3f", a / b}') |"
fi
fix=$ROOT/build/fixture/main
if [ -f "$fix" ]; then
	addrs "$fix" 200 >"$W/off.addrs"
	set -- eu-addr2line -f -e "$fix" $(cat "$W/off.addrs")
	st=$(cell off.stock - "$@")
	sh=$(cell off.shim "LD_PRELOAD=$SO,SYMLAZY_DWFL=0" "$@")
	echo "| eu-addr2line -f, 200 addresses, fixture, SYMLAZY_DWFL=0 (libdwfl scans through the shim) | $(echo "$st" | cut -d' ' -f2) | $(echo "$sh" | cut -d' ' -f2) | $(awk -v a="$(echo "$sh" | cut -d' ' -f2)" -v b="$(echo "$st" | cut -d' ' -f2)" 'BEGIN {printf "%.3f", a / b}') |"
fi

echo
hd "## Multi-module libdwfl clients (median of $RUNS; wall s / CPU s / peak RSS MiB)"
hd ""
echo "| client | stock | shim | x wall | output |"
echo "|---|---|---|---:|---|"
PP=/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser
if [ -x "$PP" ] && [ -f "$fix" ] && command -v perf >/dev/null 2>&1; then
	if [ ! -s "$W/dwarf.data" ]; then
		perf record -q --call-graph dwarf,8192 -F 1000 -o "$W/dwarf.data" -- "$fix" 1 >/dev/null 2>&1
	fi
	st=$(cell pp.stock - "$PP" --input "$W/dwarf.data" --output "$W/pp.stock.bin")
	sh=$(cell pp.shim "LD_PRELOAD=$SO,SYMLAZY_CACHE_DIR=$W/cache" "$PP" --input "$W/dwarf.data" --output "$W/pp.shim.bin")
	same=identical
	cmp -s "$W/pp.stock.bin" "$W/pp.shim.bin" || same=DIFFERENT
	echo "| hotspot-perfparser, perf record --call-graph dwarf of the fixture (1 s) | $(echo "$st" | tr ' ' '/' | sed 's|/| / |g') | $(echo "$sh" | tr ' ' '/' | sed 's|/| / |g') | $(ratio "$(echo "$st" | cut -d' ' -f1)" "$(echo "$sh" | cut -d' ' -f1)") | $same |"
fi
if command -v eu-stack >/dev/null 2>&1 && [ -x /usr/bin/node ]; then
	node -e 'setInterval(() => {}, 100000)' &
	pid=$!
	sleep 1
	env LD_PRELOAD="$SO" SYMLAZY_CACHE_DIR="$W/cache" eu-stack -p "$pid" >/dev/null 2>&1
	st=$(cell stack.stock - eu-stack -p "$pid")
	sh=$(cell stack.shim "LD_PRELOAD=$SO,SYMLAZY_CACHE_DIR=$W/cache" eu-stack -p "$pid")
	same=identical
	cmp -s "$W/stack.stock.out" "$W/stack.shim.out" || same=DIFFERENT
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	echo "| eu-stack -p PID, idle node ($(grep -c '^#' "$W/stack.stock.out") frames) | $(echo "$st" | tr ' ' '/' | sed 's|/| / |g') | $(echo "$sh" | tr ' ' '/' | sed 's|/| / |g') | $(ratio "$(echo "$st" | cut -d' ' -f1)" "$(echo "$sh" | cut -d' ' -f1)") | $same |"
fi
