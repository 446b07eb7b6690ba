# tests/lib/common.sh - sourced first by every integration script:
#
#   . "$(dirname "$0")/../lib/common.sh"
#
# What it sets (a script may override any of them after sourcing):
#   ROOT     the clone: $SYMLAZY_ROOT (tests/run-tests.sh and `make test`
#            export it) or the folder two levels above the script
#   SO       the shim: $SYMLAZY_SO or $ROOT/build/libsymlazy.so
#   CLI      the symlazy command, $ROOT/build/bin/symlazy
#   PERF     $PERF or perf (found on PATH when run)
#   PY       /usr/bin/python3 (the system's, not whatever python3 is first
#            on PATH), or python3 when that is missing; corpus.sh, dwarf.sh,
#            kernel.sh and srcline.sh set PY to PATH's python3 themselves
#   failed   0; fail sets it to 1, so a script ends with `exit $failed`
#   t0       the start time (seconds), for closing "total Ns" INFO lines
#   TEST_PREFIX  empty; a script that names its cases "perf612/..." sets it
#            to "perf612/" and every line below carries it
#
# Result lines: tests/run-tests.sh counts the lines that start "PASS: ",
# "FAIL: " and "SKIP: " (grep '^PASS:' ...), and counts a script that exits
# non-zero without a FAIL line as one failure. INFO lines are for the log.
ROOT=${SYMLAZY_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
SO=${SYMLAZY_SO:-$ROOT/build/libsymlazy.so}
CLI=$ROOT/build/bin/symlazy
PERF=${PERF:-perf}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
failed=0
t0=$(date +%s)
TEST_PREFIX=

# echo, not printf: the messages are written for sh's echo (dash's expands
# backslash escapes), and their bytes are what the logs have always shown.
pass() { echo "PASS: $TEST_PREFIX$*"; }
# fail: a FAIL line, and the script's exit status becomes 1
fail() { echo "FAIL: $TEST_PREFIX$*"; failed=1; }
# fail_soft: a FAIL line only; the exit status stays what the script makes it
# (a2l.sh, nobuildid.sh, perf_invocations.sh: run-tests.sh counts the line)
fail_soft() { echo "FAIL: $TEST_PREFIX$*"; }
skip() { echo "SKIP: $TEST_PREFIX$*"; }
info() { echo "INFO: $TEST_PREFIX$*"; }

# in_list WORD LIST: 0 if WORD is one of the space-separated words of LIST
# (case selection: DWFL_CASES="a b", PERF72_CASES=..., ...)
in_list() { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }

# unset_symlazy_env [NAME...]: unset the shim's knobs (README.md,
# "Environment") that a caller's shell may have set, and NAME...: every
# run of the shim in a test states what it sets.
unset_symlazy_env() {
	unset SYMLAZY_MMAP SYMLAZY_MAX_BYTES SYMLAZY_LAZY SYMLAZY_HIDE_ALL SYMLAZY_STATS SYMLAZY_DISABLE \
		SYMLAZY_ADDRS SYMLAZY_CACHE_DIR SYMLAZY_INHERIT SYMLAZY_VERBOSE "$@"
}

# test_tmpdir NAME [CLEANUP]: T=a fresh /tmp/symlazy-NAME.XXXXXX, removed at
# exit (or CLEANUP, a command, run at exit instead); INT/TERM exit 130.
test_tmpdir() {
	T=$(mktemp -d "/tmp/symlazy-$1.XXXXXX") || exit 1
	trap "${2:-rm -rf \"\$T\"}" EXIT
	trap 'exit 130' INT TERM
}

# bid FILE: FILE's GNU build-id (hex, from its NT_GNU_BUILD_ID note as
# readelf -n prints it), empty if none
bid() { readelf -n "$1" 2>/dev/null | sed -n 's/.*Build ID: *//p' | head -1; }

# rss_anon FILE: peak_rss_anon_kb=N of a scripts/peakrss.c report, in kB
rss_anon() { sed -n 's/.*peak_rss_anon_kb=\([0-9]*\).*/\1/p' "$1" 2>/dev/null; }
# mib KB: KB in MiB with one decimal
mib() { awk -v k="${1:-0}" 'BEGIN { printf "%.1f", k / 1024 }'; }

# notip FILE: FILE without perf report's "# (Tip: ...)" line, a random line
# of perf's Documentation/tips.txt (tools/perf/builtin-report.c, perf_tip()
# in tools/perf/util/util.c): stock differs from itself there
notip() { grep -v '^# (Tip: ' "$1"; }
# same_notip A B: 0 if A and B are identical but for the Tip line; leaves
# A.notip and B.notip for a diff
same_notip() {
	notip "$1" >"$1.notip"
	notip "$2" >"$2.notip"
	cmp -s "$1.notip" "$2.notip"
}
# show_diff A B [N]: the first N (10) lines of diff A B, for the log under a
# FAIL line
show_diff() { diff "$1" "$2" | head -"${3:-10}"; }

# lazy_of JSON: a SYMLAZY_STATS file in one phrase, "lazy on, K of N symbols
# shown" or "lazy off: reason"
lazy_of() {
	"$PY" - "$1" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("no stats: %s" % e); sys.exit(0)
t = d.get("totals", {})
if d.get("lazy") == "on":
    print("lazy on, %d of %d symbols shown" % (t.get("passed", 0), t.get("scanned", 0)))
else:
    print("lazy %s: %s" % (d.get("lazy"), d.get("lazy_reason")))
PY
}
