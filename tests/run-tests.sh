#!/bin/sh
# Runs every unit test binary (cmocka) and every integration script, then
# prints one closing line "N passed, N failed, N skipped" (tests/README.md).
# Integration scripts print "PASS: <name>" / "FAIL: <name>" / "SKIP: <name>" lines.
#
#   sh tests/run-tests.sh                 everything (make check: after make all unit)
#   sh tests/run-tests.sh [--make] NAME   one test (make test T=NAME):
#       test_X, or X when there is no tests/integration/X.sh: build/tests/test_X;
#       X: tests/integration/X.sh. --make builds it first (make all, or
#       make build/tests/test_X) with $MAKE (default make).
cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
export SYMLAZY_ROOT="$ROOT"
LOG=$ROOT/build/test-logs
mkdir -p "$LOG"
pass=0 fail=0 skip=0

# unit_one BIN: run one cmocka binary into $LOG/<name>.log; count its tests
unit_one() {
	name=$(basename "$1")
	if "$1" >"$LOG/$name.log" 2>&1; then
		n=$(grep -c '^\[       OK \]' "$LOG/$name.log")
		pass=$((pass + n)); echo "PASS: $name ($n cmocka tests)"
	else
		n=$(grep -c '^\[  FAILED  \] [a-z_]' "$LOG/$name.log")
		[ "$n" -gt 0 ] || n=1
		ok=$(grep -c '^\[       OK \]' "$LOG/$name.log")
		pass=$((pass + ok)); fail=$((fail + n))
		echo "FAIL: $name"; tail -20 "$LOG/$name.log"
	fi
}

# count_one NAME: add the PASS/FAIL/SKIP lines of $LOG/NAME.log to the
# counts (a non-zero exit without a FAIL line is one failure) and print the
# script's summary line
count_one() {
	read -r rc secs <"$LOG/$1.rc" 2>/dev/null || { rc=1 secs=0; }
	p=$(grep -c '^PASS:' "$LOG/$1.log"); f=$(grep -c '^FAIL:' "$LOG/$1.log")
	k=$(grep -c '^SKIP:' "$LOG/$1.log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1; echo "FAIL: $1 exited $rc" >>"$LOG/$1.log"
	fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + k))
	echo "== $1: $p passed, $f failed, $k skipped (${secs}s)"
}

if [ $# -gt 0 ]; then
	build=0
	[ "$1" = --make ] && { build=1; shift; }
	name=${1:-}
	case $name in
	test_*) unit=$name ;;
	*) unit=; [ -f "tests/integration/$name.sh" ] || unit=test_$name ;;
	esac
	if [ -n "$unit" ]; then
		[ -f "tests/unit/$unit.c" ] || {
			echo "run-tests.sh: no test '$name' (tests/unit/$unit.c, tests/integration/$name.sh)" >&2; exit 2; }
		[ "$build" = 0 ] || ${MAKE:-make} --no-print-directory "build/tests/$unit" || exit 1
		unit_one "build/tests/$unit" >"$LOG/$unit.verdict"
		cat "$LOG/$unit.log"
		grep -E '^(PASS|FAIL):' "$LOG/$unit.verdict"
	else
		[ "$build" = 0 ] || ${MAKE:-make} --no-print-directory all || exit 1
		rm -f "$LOG/$name.rc"
		start=$(date +%s)
		{ sh "tests/integration/$name.sh" 2>&1; echo "$? $(( $(date +%s) - start ))" >"$LOG/$name.rc"; } |
			tee "$LOG/$name.log"
		count_one "$name"
	fi
	echo "$pass passed, $fail failed, $skip skipped"
	[ "$fail" -eq 0 ]
	exit
fi

rm -f "$LOG"/*.rc
for t in build/tests/test_*; do
	[ -x "$t" ] || continue
	unit_one "$t"
done
# Integration scripts run SYMLAZY_TEST_JOBS at a time (default 2: CI has 2
# cores), the longest first; each writes only under build/<its name>/ and
# its log, and results are printed in name order when all have ended.
JOBS=${SYMLAZY_TEST_JOBS:-2}
# what several scripts share is built first, once: the fixture, the
# sanitizer builds (robust_cache, robust_threads) and the fuzzers
sh scripts/build-fixture.sh build/fixture >"$LOG/prebuild.log" 2>&1
command -v clang >/dev/null 2>&1 && make -s -j"$JOBS" sanitize fuzz-build >>"$LOG/prebuild.log" 2>&1
LONG="perf612 perf72 perf72_inline container srcline a2l corpus robust_cache perf_shim dwarf robust_fuzz robust_malformed robust_perfdata perfdata offsets kernel bpf"
# Scripts that record the whole system (perf record -a) run alone afterwards:
# beside another test they would sample its processes, whose files may be
# gone or rewritten between their stock and shim runs.
SERIAL="kernel perfdata"
one() {
	start=$(date +%s)
	sh "tests/integration/$1.sh" >"$LOG/$1.log" 2>&1
	echo "$? $(( $(date +%s) - start ))" >"$LOG/$1.rc"
}
{
	for n in $LONG; do
		case " $SERIAL " in *" $n "*) continue ;; esac
		[ -f "tests/integration/$n.sh" ] && echo "$n"
	done
	for s in tests/integration/*.sh; do
		n=$(basename "$s" .sh)
		case " $LONG $SERIAL " in *" $n "*) ;; *) echo "$n" ;; esac
	done
} | xargs -P "$JOBS" -I{} sh -c '
	start=$(date +%s)
	sh "tests/integration/$1.sh" >"$2/$1.log" 2>&1
	echo "$? $(( $(date +%s) - start ))" >"$2/$1.rc"
' sh {} "$LOG"
for n in $SERIAL; do
	[ -f "tests/integration/$n.sh" ] && one "$n"
done
for s in tests/integration/*.sh; do
	[ -f "$s" ] || continue
	name=$(basename "$s" .sh)
	count_one "$name"
	grep -E '^(FAIL|SKIP):' "$LOG/$name.log" | head -40
	[ "$f" -gt 0 ] && tail -30 "$LOG/$name.log"
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
