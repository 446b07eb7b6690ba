#!/bin/sh
# Runs every unit test binary (cmocka) and every integration script, then
# prints one closing line "N passed, N failed".
# Integration scripts print "PASS: <name>" / "FAIL: <name>" / "SKIP: <name>" lines.
cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
export SYMLAZY_ROOT="$ROOT"
LOG=$ROOT/build/test-logs
mkdir -p "$LOG"
pass=0 fail=0 skip=0
for t in build/tests/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	if "$t" >"$LOG/$name.log" 2>&1; then
		n=$(grep -c '^\[       OK \]' "$LOG/$name.log")
		pass=$((pass + n)); echo "PASS: $name ($n cmocka tests)"
	else
		n=$(grep -c '^\[  FAILED  \] [a-z_]' "$LOG/$name.log")
		[ "$n" -gt 0 ] || n=1
		ok=$(grep -c '^\[       OK \]' "$LOG/$name.log")
		pass=$((pass + ok)); fail=$((fail + n))
		echo "FAIL: $name"; tail -20 "$LOG/$name.log"
	fi
done
for s in tests/integration/*.sh; do
	[ -f "$s" ] || continue
	name=$(basename "$s" .sh)
	start=$(date +%s)
	sh "$s" >"$LOG/$name.log" 2>&1
	rc=$?
	p=$(grep -c '^PASS:' "$LOG/$name.log"); f=$(grep -c '^FAIL:' "$LOG/$name.log")
	k=$(grep -c '^SKIP:' "$LOG/$name.log")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1; echo "FAIL: $name exited $rc" >>"$LOG/$name.log"
	fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + k))
	echo "== $name: $p passed, $f failed, $k skipped ($(( $(date +%s) - start ))s)"
	grep -E '^(FAIL|SKIP):' "$LOG/$name.log" | head -40
	[ "$f" -gt 0 ] && tail -30 "$LOG/$name.log"
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
