#!/bin/sh
# dwfl.sh - libdwfl corpus (issue 12): symbol-by-address lookups answered by
# the shim's index must be byte-identical to stock libdw 0.188.
#
# Programs: C PIE (-g), C with aliases/weak/local aliases (-rdynamic), C++
# (templates, ctor/dtor aliases), Rust, zero-size asm symbols, overlapping
# asm symbols, a shared library, a stripped binary with .gnu_debuglink, a
# stripped binary with a .gnu_debugdata minisymtab (MiniDebugInfo), ET_REL
# objects (.o), the generated fixture binary (scripts/build-fixture.sh) and,
# when present, the Rust toolchain's librustc_driver-*.so and /usr/bin/node.
# Addresses: every symbol start, start - 1, middle, end and end + 1
# (tests/corpus/dwfl_client.c --list; evenly sampled on the big files).
# Checks, stock vs LD_PRELOAD=build/libsymlazy.so, cmp on stdout:
#   client   every field of dwfl_module_addrsym, addrinfo (with and without
#            shndx/elf/bias) and addrname (dwfl_client), plus a full
#            dwfl_module_getsym_info scan (the read-by-index path);
#   a2l-*    eu-addr2line -f, -S, -f -i -C -a (pretty, inlines, demangling);
#   stack    eu-stack -p PID on a live process stopped in a known stack;
#   perfparser  hotspot-perfparser on a perf record --call-graph dwarf
#            profile (its output file);
#   malformed   scripts/gen-malformed.py variants through dwfl_client;
# and, on the big files, that the shim really answered from its index
# (SYMLAZY_STATS: answered > 0).
# Env: SYMLAZY_ROOT, SYMLAZY_SO, DWFL_CASES (subset of case names).
set -u
. "$(dirname "$0")/../lib/common.sh"
SRC=$ROOT/tests/corpus
B=$ROOT/build/dwfl
BIN=$B/bin
OUT=$B/out
CC=${CC:-cc}
CXX=${CXX:-c++}


command -v eu-addr2line >/dev/null 2>&1 || { skip "dwfl: eu-addr2line not installed"; exit 0; }
[ -f "$SO" ] || { fail "dwfl: $SO missing (make all)"; exit 1; }
rm -rf "$B"
mkdir -p "$BIN" "$OUT"
cp "$SO" "$B/libsymlazy.so"
SO=$B/libsymlazy.so
export SYMLAZY_CACHE_DIR="$B/cache"

want() { [ -z "${DWFL_CASES:-}" ] || in_list "$1" "$DWFL_CASES"; }

build() {           # build NAME CMD...: quiet; SKIP line on failure
	n=$1; shift
	"$@" >"$OUT/$n.build.log" 2>&1 || { skip "$n: build failed: $(head -c 300 "$OUT/$n.build.log")"; return 1; }
}

$CC -O1 -g -Wall -o "$BIN/dwfl_client" "$SRC/dwfl_client.c" -ldw -lelf >"$OUT/client.build.log" 2>&1 ||
	{ fail "dwfl: cannot build dwfl_client: $(head -c 300 "$OUT/client.build.log")"; exit 1; }
CLIENT=$BIN/dwfl_client

# run_shim OUTFILE CMD...: the command under the shim, stats in OUTFILE.stats
run_shim() {
	o=$1; shift
	LD_PRELOAD=$SO SYMLAZY_STATS="$o.stats" "$@" >"$o" 2>"$o.err"
}
run_stock() {
	o=$1; shift
	"$@" >"$o" 2>"$o.err"
}

# same NAME CMD...: stock and shim stdout (and stderr) identical
same() {
	sn=$1; shift
	run_stock "$OUT/$sn.stock" "$@"; rs=$?
	run_shim "$OUT/$sn.shim" "$@"; rh=$?
	if [ "$rs" != "$rh" ]; then
		fail "$sn: exit $rs stock, $rh shim"
	elif ! cmp -s "$OUT/$sn.stock" "$OUT/$sn.shim"; then
		fail "$sn: output differs: $(diff "$OUT/$sn.stock" "$OUT/$sn.shim" | head -4 | cut -c1-300 | tr '\n' ' ')"
	elif ! cmp -s "$OUT/$sn.stock.err" "$OUT/$sn.shim.err"; then
		fail "$sn: stderr differs: $(diff "$OUT/$sn.stock.err" "$OUT/$sn.shim.err" | head -4 | tr '\n' ' ')"
	else
		pass "$sn: identical ($(wc -l <"$OUT/$sn.stock") lines)"
		return 0
	fi
	return 1
}

# answered NAME: the shim run of NAME answered lookups from its index
answered() {
	a=$(sed -n 's/.*"answered":\([0-9]*\).*/\1/p' "$OUT/$1.shim.stats" 2>/dev/null)
	l=$(sed -n 's/.*"lookups":\([0-9]*\).*/\1/p' "$OUT/$1.shim.stats" 2>/dev/null)
	if [ "${a:-0}" -gt 0 ]; then
		pass "$1: $a of $l lookups answered from the index"
	else
		fail "$1: no lookup answered from the index ($(cat "$OUT/$1.shim.stats" 2>/dev/null | head -c 300))"
	fi
}

# check NAME FILE MAX [big]: the whole comparison for one ELF file
check() {
	cn=$1 cf=$2 cmax=$3 cbig=${4:-}
	want "$cn" || return 0
	[ -f "$cf" ] || { skip "$cn: $cf missing"; return 0; }
	cstart=$(date +%s)
	"$CLIENT" --list "$cmax" "$cf" >"$OUT/$cn.addrs" 2>"$OUT/$cn.addrs.err"
	if [ ! -s "$OUT/$cn.addrs" ]; then
		skip "$cn: no symbols ($(head -c 200 "$OUT/$cn.addrs.err"))"
		return 0
	fi
	same "$cn-client" "$CLIENT" --scan "$cf" $(cat "$OUT/$cn.addrs")
	[ "$cbig" = big ] && answered "$cn-client"
	same "$cn-a2l-f" eu-addr2line -f -e "$cf" $(cat "$OUT/$cn.addrs")
	same "$cn-a2l-S" eu-addr2line -S -e "$cf" $(cat "$OUT/$cn.addrs")
	same "$cn-a2l-fiCa" eu-addr2line -f -i -C -a -p -e "$cf" $(cat "$OUT/$cn.addrs")
	info "$cn: $(wc -l <"$OUT/$cn.addrs") addresses, $(( $(date +%s) - cstart ))s"
}

# ---- small programs --------------------------------------------------------
CFLAGS="-O2 -g -fno-omit-frame-pointer -I$SRC"
build basic $CC $CFLAGS -o "$BIN/basic" "$SRC/basic.c" && check basic "$BIN/basic" 100000
build alias $CC $CFLAGS -rdynamic -o "$BIN/alias" "$SRC/alias.c" && check alias "$BIN/alias" 100000
build cxx $CXX $CFLAGS -o "$BIN/cxx" "$SRC/cxx.cpp" && check cxx "$BIN/cxx" 100000
build zerosize $CC $CFLAGS -o "$BIN/zerosize" "$SRC/zerosize_main.c" "$SRC/zerosize.s" &&
	check zerosize "$BIN/zerosize" 100000
build overlap $CC $CFLAGS -o "$BIN/overlap" "$SRC/overlap_main.c" "$SRC/overlap.s" &&
	check overlap "$BIN/overlap" 100000
build shlib $CC $CFLAGS -shared -fPIC -o "$BIN/libshlib.so" "$SRC/shlib.c" && check shlib "$BIN/libshlib.so" 100000
if command -v rustc >/dev/null 2>&1 && rustc --version >/dev/null 2>&1; then
	build rust rustc -C opt-level=1 -g -o "$BIN/rust" "$SRC/rust.rs" && check rust "$BIN/rust" 600
else
	skip "rust: rustc not usable"
fi

# ET_REL: section-relative values placed by libdwfl's offline layout
build rel-c $CC $CFLAGS -c -o "$BIN/alias.o" "$SRC/alias.c" && check rel-c "$BIN/alias.o" 100000
build rel-cxx $CXX $CFLAGS -ffunction-sections -c -o "$BIN/cxx.o" "$SRC/cxx.cpp" && check rel-cxx "$BIN/cxx.o" 100000

# stripped + .gnu_debuglink: symbols from the separate debug file
if want debuglink && build debuglink-bin $CC $CFLAGS -o "$BIN/dl-full" "$SRC/basic.c"; then
	mkdir -p "$BIN/dl"
	objcopy --only-keep-debug "$BIN/dl-full" "$BIN/dl/basic.debug" &&
	objcopy --strip-all --add-gnu-debuglink="$BIN/dl/basic.debug" "$BIN/dl-full" "$BIN/dl/basic" &&
	check debuglink "$BIN/dl/basic" 100000
fi

# MiniDebugInfo: .dynsym in the file, local function symbols in an
# xz-compressed .gnu_debugdata ELF (libdwfl's auxiliary symbol table)
if want minidebug && command -v xz >/dev/null 2>&1 &&
   build minidebug-bin $CC $CFLAGS -rdynamic -o "$BIN/md-full" "$SRC/alias.c"; then
	d=$BIN/md
	mkdir -p "$d"
	nm -D "$BIN/md-full" --format=posix --defined-only | awk '{print $1}' | sort >"$d/dynsyms"
	nm "$BIN/md-full" --format=posix --defined-only | awk '$2 == "T" || $2 == "t" {print $1}' | sort >"$d/funcs"
	comm -13 "$d/dynsyms" "$d/funcs" >"$d/keep"
	objcopy --only-keep-debug "$BIN/md-full" "$d/mini.debug" &&
	objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols="$d/keep" \
		"$d/mini.debug" "$d/mini2.debug" &&
	xz -f "$d/mini2.debug" &&
	objcopy --strip-all --remove-section .comment "$BIN/md-full" "$d/alias" &&
	objcopy --add-section .gnu_debugdata="$d/mini2.debug.xz" "$d/alias" &&
	check minidebug "$d/alias" 100000
fi

# ---- big files --------------------------------------------------------------
if want fixture; then
	if sh "$ROOT/scripts/build-fixture.sh" "$ROOT/build/fixture" >"$OUT/fixture.build.log" 2>&1; then
		check fixture "$ROOT/build/fixture/main" 100 big
	else
		skip "fixture: build failed: $(tail -c 300 "$OUT/fixture.build.log")"
	fi
fi
RUSTC_DRIVER=$(ls "$(rustc --print sysroot 2>/dev/null)"/lib/librustc_driver-*.so 2>/dev/null | head -1)
if [ -n "$RUSTC_DRIVER" ]; then
	check rustc-driver "$RUSTC_DRIVER" 30 big
else
	skip "rustc-driver: no librustc_driver-*.so"
fi
if [ -x /usr/bin/node ]; then
	check node /usr/bin/node 30 big
else
	skip "node: /usr/bin/node missing"
fi

# ---- a live process: eu-stack -p ------------------------------------------
if want stack && command -v eu-stack >/dev/null 2>&1; then
	cat >"$BIN/sleeper.c" <<'EOF'
#include <unistd.h>
__attribute__((noinline)) static void leaf(void) { for (;;) pause(); }
__attribute__((noinline)) void mid(int n) { if (n) mid(n - 1); else leaf(); __asm__ volatile(""); }
int main(void) { mid(5); return 0; }
EOF
	if build sleeper $CC -O1 -g -fno-omit-frame-pointer -o "$BIN/sleeper" "$BIN/sleeper.c"; then
		"$BIN/sleeper" &
		pid=$!
		sleep 0.3
		same stack-sleeper eu-stack -p "$pid"
		same stack-sleeper-client "$CLIENT" -p "$pid" $("$CLIENT" -p "$pid" --list 400 2>/dev/null)
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	if [ -x /usr/bin/node ]; then
		node -e 'setInterval(() => {}, 100000)' &
		pid=$!
		sleep 1
		same stack-node eu-stack -p "$pid" -m
		answered stack-node
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
fi

# ---- hotspot-perfparser: a multi-module libdwfl client (it reads symbols
# with dwfl_module_getsym_info, the read-by-index path) on a DWARF profile
PP=/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser
if want perfparser && [ -x "$PP" ] && command -v perf >/dev/null 2>&1 && [ -x "$BIN/cxx" ]; then
	if perf record -q --call-graph dwarf,8192 -F 2000 -o "$B/dwarf.data" -- "$BIN/cxx" 0.3 >/dev/null 2>&1; then
		"$PP" --input "$B/dwarf.data" --output "$OUT/pp.stock.bin" >/dev/null 2>&1; rs=$?
		LD_PRELOAD=$SO "$PP" --input "$B/dwarf.data" --output "$OUT/pp.shim.bin" >/dev/null 2>&1; rh=$?
		if [ "$rs" = "$rh" ] && cmp -s "$OUT/pp.stock.bin" "$OUT/pp.shim.bin"; then
			pass "perfparser: identical ($(wc -c <"$OUT/pp.stock.bin") bytes, exit $rs)"
		else
			fail "perfparser: exit $rs stock, $rh shim, or the outputs differ"
		fi
	else
		skip "perfparser: perf record --call-graph dwarf failed"
	fi
else
	want perfparser && skip "perfparser: hotspot-perfparser or perf not installed"
fi

# ---- hostile ELF: scripts/gen-malformed.py variants of a PIE, through
# dwfl_client (every lookup entry point, 4 per address): same exit code and
# stdout as stock, or - where stock itself dies on a signal - no other
# outcome than a signal too
if want malformed && [ -x "$BIN/basic" ]; then
	PY=/usr/bin/python3
	[ -x "$PY" ] || PY=python3
	mal=$B/malformed
	mkdir -p "$mal"
	"$CLIENT" --list 40 "$BIN/basic" >"$OUT/mal.addrs"
	if "$PY" "$ROOT/scripts/gen-malformed.py" --base "$BIN/basic" --prefix mal- "$mal" >/dev/null 2>&1; then
		nm=0 bad=0
		for f in "$mal"/mal-*; do
			nm=$((nm + 1))
			timeout 20 "$CLIENT" "$f" $(cat "$OUT/mal.addrs") >"$OUT/mal.stock" 2>/dev/null; rs=$?
			LD_PRELOAD=$SO timeout 20 "$CLIENT" "$f" $(cat "$OUT/mal.addrs") >"$OUT/mal.shim" 2>/dev/null; rh=$?
			if [ "$rs" -ge 124 ] && [ "$rh" -ge 124 ]; then
				continue
			fi
			if [ "$rs" != "$rh" ] || ! cmp -s "$OUT/mal.stock" "$OUT/mal.shim"; then
				bad=$((bad + 1))
				fail "malformed $(basename "$f"): exit $rs stock, $rh shim; $(diff "$OUT/mal.stock" "$OUT/mal.shim" | head -2 | cut -c1-200 | tr '\n' ' ')"
			fi
		done
		[ "$bad" -eq 0 ] && pass "malformed: $nm variants, stock and shim agree"
	else
		skip "malformed: gen-malformed.py failed"
	fi
fi

# ---- libdw absent: the shim is harmless for tools without libdw ------------
if want nolibdw; then
	[ -x "$ROOT/build/bin/symread-bench" ] && same nolibdw-symread "$ROOT/build/bin/symread-bench" /bin/true 1000
fi

echo "dwfl: $(( $(date +%s) - t0 ))s"
[ "$failed" -eq 0 ]
