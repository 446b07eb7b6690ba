#!/bin/sh
# robust_fuzz.sh - replay the libFuzzer harnesses (fuzz/) over their seeds,
# corpora and regression inputs (tests/regress/<harness>/), then fuzz each
# for ROBUST_FUZZ_SECONDS (default 5) from that corpus: `make fuzz-replay`.
# Known open bugs (tests/regress/<harness>/known/) are reported as SKIP while
# they still reproduce. Prints PASS:/FAIL:/SKIP: lines; exits 1 on failure.
# About 45 s (plus ~20 s to build the harnesses the first time).
. "$(dirname "$0")/../lib/common.sh"
cd "$ROOT" || exit 1
if ! command -v clang >/dev/null 2>&1; then
	skip "robust_fuzz: clang not installed (libFuzzer needs clang)"
	exit 0
fi
if ! make -s fuzz-build >/tmp/robust-fuzz-build.$$ 2>&1; then
	tail -20 /tmp/robust-fuzz-build.$$
	rm -f /tmp/robust-fuzz-build.$$
	fail "robust_fuzz: make fuzz-build"
	exit 1
fi
rm -f /tmp/robust-fuzz-build.$$
make -s --no-print-directory fuzz-replay FUZZ_REPLAY_SECONDS="${ROBUST_FUZZ_SECONDS:-5}"
