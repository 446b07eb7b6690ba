#!/bin/sh
# bench-go.sh - the eBPF agent pattern (go/README.md): resolve the uprobe offsets of
# 60 names (50 functions spread over the symbol table, 10 missing) in large
# binaries, the way cilium/ebpf's link.Executable does with Go's debug/elf
# (the whole symbol table into a map it keeps) and with the pure-Go package
# at go/ (the mapped name index), each in fresh processes (go/cmd/benchoffsets).
# Prints per binary: symbols, the Go heap each keeps (runtime.MemStats.HeapInuse
# after GC), VmRSS and RssAnon, lookups/s on one core (GOMAXPROCS=1), open
# times (debug/elf; symlazy cold = builds the index, warm = maps it) and
# whether the offsets are identical (exit status 1 if not).
#
#   sh scripts/bench-go.sh [--markdown] [FILE...]
#
# FILE defaults to the Rust toolchain's librustc_driver and libLLVM
# (`rustc --print sysroot`), node, the 500k-symbol fixture (build/fix500k,
# built by scripts/build-fixture.sh if missing: ~20 s) and a Go binary (the
# benchmark itself). Needs a Go toolchain (Debian: golang-go) and make all.
# The index cache is build/bench-go/cache, emptied per binary.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MD=""
case ${1:-} in
--markdown) MD=-markdown; shift ;;
esac
GO=$(command -v go 2>/dev/null) || { echo "bench-go: needs a Go toolchain (apt-get install golang-go)" >&2; exit 2; }
W=$ROOT/build/bench-go
mkdir -p "$W" "$ROOT/build/bin"
BENCH=$ROOT/build/bin/benchoffsets
(cd "$ROOT/go" && GOPROXY=off GOTOOLCHAIN=local GOWORK=off "$GO" build -o "$BENCH" ./cmd/benchoffsets) ||
	{ echo "bench-go: go build failed" >&2; exit 1; }
is_elf() { [ -f "$1" ] && [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }
if [ $# -eq 0 ]; then
	SYSROOT=$(rustc --print sysroot 2>/dev/null || true)
	for f in "$SYSROOT"/lib/librustc_driver-*.so "$HOME"/.rustup/toolchains/*/lib/librustc_driver-*.so; do
		is_elf "$f" && { set -- "$@" "$f"; break; }
	done
	for f in "$SYSROOT"/lib/libLLVM*.so* /usr/lib/llvm-*/lib/libLLVM*.so*; do
		is_elf "$f" && { set -- "$@" "$f"; break; }
	done
	node=$(command -v node 2>/dev/null) && set -- "$@" "$(readlink -f "$node")"
	if [ ! -x "$ROOT/build/fix500k/main" ]; then
		echo "bench-go: building build/fix500k (500k symbols, ~20 s)" >&2
		sh "$ROOT/scripts/build-fixture.sh" "$ROOT/build/fix500k" --big-funcs 500000 >"$W/fixture.log" 2>&1 ||
			{ cat "$W/fixture.log" >&2; exit 1; }
	fi
	set -- "$@" "$ROOT/build/fix500k/main" "$BENCH"
fi
exec "$BENCH" $MD -cache "$W/cache" "$@"
