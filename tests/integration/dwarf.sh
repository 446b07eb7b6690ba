#!/bin/sh
# dwarf.sh - lazy mode on `perf record --call-graph dwarf` recordings
# (issue 10). Each case is recorded with stock perf, then perf script
# (with and without --no-inline) and perf report --stdio (plain, -g caller,
# --children) run with and without LD_PRELOAD=build/libsymlazy.so (lazy mode
# auto). Checks per case:
#   <case>/<tool>     stdout byte-identical to stock, same exit status;
#   <case>/stats      the shim's perf script: lazy=on, every scan of the
#                     case's main DSOs in mode lazy (other scans: INFO lines);
#   <case>/covered    every address perf resolves for a user DSO (perf script
#                     -F ip,dso --no-inline, file offsets) is in the set
#                     symlazy addrs collects (default: libunwind replay where
#                     provably perf's, else the scan); prints needed vs
#                     collected; <case>/covered-scan: the same for the scan
#                     alone (--unwind=scan, the safety net).
# Cases: the generated fixture (build/fixture; only --no-inline: perf's
# addr2line child needs minutes on its 150k symbols without debug info), C++
# with libstdc++ with libc6-dbg visible and hidden (private mount namespace,
# empty dirs bind-mounted over /usr/lib/debug and ~/.debug), Rust (built with
# --build-id), DWARF and frame-pointer events in one recording, pthreads, fork+exec, a signal handler, a recursion deeper than
# the dump (dwarf,4096) and than perf's max stack, node --jitless, and a
# system-wide recording (-a). Outputs stay in build/dwarf/.
# Prints PASS:/FAIL:/SKIP:/INFO: lines; exits 1 on any failure.
# Env: SYMLAZY_ROOT, PERF, SYMLAZY_SO, DWARF_SECS (recording length, 0.25),
#      DWARF_CASES (subset of case names).
set -u
. "$(dirname "$0")/../lib/common.sh"
SRC=$ROOT/tests/corpus
B=$ROOT/build/dwarf
BIN=$B/bin
DATA=$B/data
OUT=$B/out
SECS=${DWARF_SECS:-0.25}
FREQ=1999
TOOL=$ROOT/build/bin/symlazy
PY=$(command -v python3 || true)


unset_symlazy_env XDG_CACHE_HOME PERF_CONFIG LD_BIND_NOW
command -v "$PERF" >/dev/null 2>&1 || { skip "dwarf: perf not installed"; exit 0; }
[ -f "$SO" ] || { fail "dwarf: $SO missing (run make)"; exit 1; }
[ -x "$TOOL" ] || { fail "dwarf: $TOOL missing (run make)"; exit 1; }
[ -n "$PY" ] || { skip "dwarf: python3 missing"; exit 0; }

mkdir -p "$ROOT/build" || exit 1
if command -v flock >/dev/null 2>&1; then
	exec 9>"$ROOT/build/dwarf.lock"
	flock -w 900 9 || { fail "dwarf: build/dwarf.lock is held by another run"; exit 1; }
fi
rm -rf "$B"
mkdir -p "$BIN" "$DATA" "$OUT" "$B/home" "$B/cache" "$B/lib" "$B/empty1" "$B/empty2" || exit 1
cp "$SO" "$B/lib/libsymlazy.so" || exit 1
SO=$B/lib/libsymlazy.so
cd "$ROOT" || exit 1

build() {
	_n=$1
	shift
	if ! "$@" >"$B/build-$_n.log" 2>&1; then
		fail "build/$_n: $*"
		sed -n 1,10p "$B/build-$_n.log"
		return 1
	fi
}
# DWARF profiles are of code built without frame pointers
CFLAGS="-O2 -g -fomit-frame-pointer -I$SRC"
build fixtime cc -O2 -shared -fPIC -o "$B/lib/fixtime.so" "$SRC/fixtime.c" || exit 1
FIXT=$B/lib/fixtime.so
build basic cc $CFLAGS -o "$BIN/basic" "$SRC/basic.c"
build threads cc $CFLAGS -pthread -o "$BIN/threads" "$SRC/threads.c"
build forkexec cc $CFLAGS -o "$BIN/forkexec" "$SRC/forkexec.c"
build dwsig cc $CFLAGS -o "$BIN/dwsig" "$SRC/dwsig.c"
build deep cc $CFLAGS -fno-optimize-sibling-calls -o "$BIN/deep" "$SRC/deep.c"
HAVE_CXX=0
command -v c++ >/dev/null 2>&1 && build cxx c++ $CFLAGS -o "$BIN/cxx" "$SRC/cxx.cpp" && HAVE_CXX=1
HAVE_RUST=0
if command -v rustc >/dev/null 2>&1 && rustc --version >/dev/null 2>&1; then
	build rust rustc -C opt-level=1 -g -C link-arg=-Wl,--build-id -o "$BIN/rust" "$SRC/rust.rs" &&
		HAVE_RUST=1
fi
FIX=${PERF_SHIM_FIXTURE:-$ROOT/build/fixture}
HAVE_FIX=0
sh "$ROOT/scripts/build-fixture.sh" "$FIX" >"$B/build-fixture.log" 2>&1 && HAVE_FIX=1 ||
	fail "build/fixture: see $B/build-fixture.log"
info "dwarf: built in $(($(date +%s) - t0))s"
export HOME=$B/home

if ! "$PERF" record -q --call-graph dwarf -o "$DATA/probe.data" -- true >"$OUT/probe.log" 2>&1; then
	sed -n 1,5p "$OUT/probe.log"
	skip "dwarf: perf record --call-graph dwarf does not work here"
	exit 0
fi

want() { [ -z "${DWARF_CASES:-}" ] || in_list "$1" "$DWARF_CASES"; }

# WRAP: a command prefix for every perf run of a case ("" or the private
# mount namespace that hides the debug files)
WRAP=
nodebug() {
	unshare -m --propagation private sh -c '
		mount --bind "$1" /usr/lib/debug || exit 97
		mkdir -p "$HOME/.debug" && mount --bind "$2" "$HOME/.debug" || exit 97
		shift 2
		exec "$@"' sh "$B/empty1" "$B/empty2" "$@"
}
runp() { # perf ARGS... through $WRAP
	if [ -n "$WRAP" ]; then $WRAP "$PERF" "$@"; else "$PERF" "$@"; fi
}

# record CASE "options" cmd...
record() {
	_c=$1 _o=$2
	shift 2
	# shellcheck disable=SC2086
	if runp record -q -F "$FREQ" $_o -o "$DATA/$_c.data" -- "$@" >"$OUT/$_c.record.log" 2>&1 &&
		[ -s "$DATA/$_c.data" ]; then
		return 0
	fi
	fail "$_c/record: perf record $_o -- $*"
	sed -n 1,10p "$OUT/$_c.record.log"
	return 1
}

# compare CASE TOOL perf-args...
compare() {
	_c=$1 _t=$2
	shift 2
	_o=$OUT/$_c.$_t
	LD_PRELOAD=$FIXT runp "$@" >"$_o.stock" 2>"$_o.stock.err"
	_rs=$?
	LD_PRELOAD=$SO:$FIXT SYMLAZY_STATS=$_o.json SYMLAZY_CACHE_DIR=$B/cache/$_c runp "$@" \
		>"$_o.shim" 2>"$_o.shim.err"
	_rl=$?
	if [ ! -s "$_o.stock" ]; then
		fail "$_c/$_t: stock perf printed nothing (exit $_rs): perf $*"
		sed -n 1,5p "$_o.stock.err"
		return 1
	fi
	if [ "$_rs" != "$_rl" ] || [ ! -s "$_o.json" ]; then
		fail "$_c/$_t: exit status stock $_rs, shim $_rl (stats: $([ -s "$_o.json" ] && echo yes || echo none))"
		sed -n 1,5p "$_o.shim.err"
		return 1
	fi
	if cmp -s "$_o.stock" "$_o.shim"; then
		pass "$_c/$_t ($(wc -l <"$_o.stock") lines identical)"
		return 0
	fi
	# perf report: stock perf's own tie order (tests/report_same.py)
	if [ "$1" = report ] && [ -n "$PY" ] && _ties=$("$PY" "$ROOT/tests/report_same.py" "$_o.stock" "$_o.shim"); then
		pass "$_c/$_t ($(wc -l <"$_o.stock") lines, $_ties)"
		return 0
	fi
	fail "$_c/$_t: output differs ($(diff "$_o.stock" "$_o.shim" | grep -c '^[<>]') diff lines): perf $*"
	show_diff "$_o.stock" "$_o.shim" 12
	return 1
}

# stats CASE JSON BUILD-ID...: lazy on, the main DSOs' scans lazy
stats() {
	_c=$1 _j=$2
	shift 2
	"$PY" - "$_c" "$_j" "$@" <<'EOF'
import json, sys
case, path, mains = sys.argv[1], sys.argv[2], sys.argv[3:]
try:
    d = json.load(open(path))
except Exception as e:
    print("FAIL: %s/stats: cannot read %s: %s" % (case, path, e)); sys.exit(1)
dsos = d.get("dsos", [])
for s in dsos:
    if s.get("mode") != "lazy":
        print("INFO: %s: %s scan of %s mode=%s reason=%s" % (case, s.get("table"), s.get("path"),
              s.get("mode"), s.get("reason") or "-"))
if d.get("lazy") != "on":
    print("FAIL: %s/stats: lazy=%s reason=%r" % (case, d.get("lazy"), d.get("lazy_reason"))); sys.exit(1)
bad = []
kept = scanned = 0
for b in mains:
    sc = [s for s in dsos if s.get("build_id") == b]
    if not sc:
        bad.append("no scan of %s" % b[:12])
    for s in sc:
        if s.get("mode") != "lazy":
            bad.append("%s %s mode %s (%s)" % (s["path"], s["table"], s["mode"], s.get("reason")))
lz = [s for s in dsos if s.get("mode") == "lazy"]
kept = sum(s.get("passed", 0) for s in lz)
scanned = sum(s.get("scanned", 0) for s in lz)
if bad:
    print("FAIL: %s/stats: %s" % (case, "; ".join(bad))); sys.exit(1)
print("PASS: %s/stats (lazy on; %d lazy scans kept %d of %d symbols; main DSOs lazy)" % (
    case, len(lz), kept, scanned))
EOF
	[ $? -eq 0 ] || failed=1
}

# covered CASE: needed addresses (perf script -F ip,dso) vs symlazy addrs
covered() {
	_c=$1 _d=$DATA/$1.data
	"$TOOL" addrs -i "$_d" --stats >"$OUT/$_c.addrs-stats" 2>/dev/null
	if ! "$TOOL" addrs -i "$_d" -o "$OUT/$_c.addrs" 2>"$OUT/$_c.addrs.err"; then
		fail "$_c/covered: symlazy addrs: $(head -1 "$OUT/$_c.addrs.err")"
		return
	fi
	runp buildid-list -i "$_d" 2>/dev/null | while read -r id path; do
		echo "$id $path"
	done >"$OUT/$_c.bids"
	runp script -F ip,dso --no-inline -i "$_d" 2>/dev/null >"$OUT/$_c.ipdso"
	grep -o '(/[^ ()]*)$' "$OUT/$_c.ipdso" | tr -d '()' | sort -u | while read -r path; do
		grep -qF " $path" "$OUT/$_c.bids" && continue
		id=$(bid "$path")
		[ -n "$id" ] && echo "$id $path"
	done >>"$OUT/$_c.bids"
	_sc=$(sed -n 's/^unwind: .*scanned: \([0-9]*\).*/\1/p' "$OUT/$_c.addrs-stats" 2>/dev/null)
	if r=$("$PY" "$ROOT/scripts/dwarf-needed.py" "$OUT/$_c.ipdso" "$OUT/$_c.bids" "$OUT/$_c.addrs" \
		"$OUT/$_c.needed"); then
		pass "$_c/covered ($(echo "$r" | head -1); $(sed -n 's/^unwind: samples: \([0-9]*\).*/\1/p' \
			"$OUT/$_c.addrs-stats") DWARF samples, ${_sc:-?} scanned, the rest replayed)"
	else
		fail "$_c/covered: $(echo "$r" | tr '\n' ';')"
	fi
	# the scan alone (the safety net) must cover too
	"$TOOL" addrs -i "$_d" --unwind=scan -o "$OUT/$_c.scan-addrs" 2>/dev/null
	if r=$("$PY" "$ROOT/scripts/dwarf-needed.py" "$OUT/$_c.ipdso" "$OUT/$_c.bids" "$OUT/$_c.scan-addrs" \
		"$OUT/$_c.needed2"); then
		pass "$_c/covered-scan ($(echo "$r" | head -1))"
	else
		fail "$_c/covered-scan: $(echo "$r" | tr '\n' ';')"
	fi
}

# analyse CASE LEVEL MAIN-BUILD-ID...: LEVEL 2: perf script with and
# without --no-inline, perf report --stdio plain, -g caller, --children;
# 1: perf script both ways and perf report; 0: --no-inline only (script,
# report plain, -g caller, --children), for DSOs where perf's addr2line child
# takes minutes; -1: --no-inline script and report only.
analyse() {
	_c=$1 _lv=$2 _d=$DATA/$1.data _ts=$(date +%s)
	shift 2
	compare "$_c" script-noinline script --no-inline -i "$_d"
	stats "$_c" "$OUT/$_c.script-noinline.json" "$@"
	case $_lv in
	1|2)
		compare "$_c" script script -i "$_d"
		compare "$_c" report report --stdio -i "$_d" ;;
	*)
		compare "$_c" report-noinline report --stdio --no-inline -i "$_d" ;;
	esac
	case $_lv in
	2)
		compare "$_c" report-caller report --stdio -g caller -i "$_d"
		compare "$_c" report-children report --stdio --children -i "$_d" ;;
	0)
		compare "$_c" report-caller report --stdio --no-inline -g caller -i "$_d"
		compare "$_c" report-children report --stdio --no-inline --children -i "$_d" ;;
	esac
	covered "$_c"
	info "$_c: $(($(date +%s) - _ts))s"
}

# case_ CASE "record options" LEVEL "MAINS" cmd...
case_() {
	_c=$1 _ro=$2 _f=$3 _m=$4
	shift 4
	want "$_c" || return 0
	record "$_c" "$_ro" "$@" || return 0
	# shellcheck disable=SC2086
	analyse "$_c" "$_f" $_m
}

# ---- cases ---------------------------------------------------------------
DW="--call-graph dwarf"
[ "$HAVE_FIX" = 1 ] &&
	case_ fixture "$DW" -1 "$(bid "$FIX/main") $(bid "$FIX/libbigshared.so")" "$FIX/main" "$SECS"
if [ "$HAVE_CXX" = 1 ]; then
	case_ cxx "$DW" 2 "$(bid "$BIN/cxx")" "$BIN/cxx" "$SECS"
	if want cxx-nodebug; then
		if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null 2>&1 && [ -d /usr/lib/debug ] &&
			WRAP=nodebug && nodebug true; then
			case_ cxx-nodebug "$DW" 1 "$(bid "$BIN/cxx")" "$BIN/cxx" "$SECS"
			n=$(grep -c 'libc.so.6' "$OUT/cxx-nodebug.script.stock" 2>/dev/null)
			info "cxx-nodebug: $n stock perf script lines in libc.so.6 (symbols from .dynsym only)"
		else
			skip "cxx-nodebug: needs root, unshare(1) and /usr/lib/debug"
		fi
		WRAP=
	fi
else
	skip "cxx: no C++ compiler"
fi
# mixed: DWARF samples of one event, frame-pointer samples of another
[ "$HAVE_CXX" = 1 ] && case_ mixed "-e cpu-clock/call-graph=dwarf/ -e task-clock/call-graph=fp/" 1 \
	"$(bid "$BIN/cxx")" "$BIN/cxx" "$SECS"
if [ "$HAVE_RUST" = 1 ]; then
	case_ rust "$DW" 2 "$(bid "$BIN/rust")" "$BIN/rust" "$SECS"
else
	skip "rust: rustc not available"
fi
case_ threads "$DW" 1 "$(bid "$BIN/threads")" "$BIN/threads" "$SECS"
# forkexec execs basic and cxx from its own directory
case_ forkexec "$DW" 1 "$(bid "$BIN/forkexec") $(bid "$BIN/basic")" "$BIN/forkexec" "$SECS"
case_ signal "$DW" 1 "$(bid "$BIN/dwsig")" "$BIN/dwsig" "$SECS"
if want signal && [ -s "$OUT/signal.script.stock" ]; then
	# samples whose chain runs from the handler through the signal frame to main
	n=$(awk 'BEGIN { RS = "" } /sig_handler_work/ && /main\+/ { n++ } END { print n + 0 }' \
		"$OUT/signal.script.stock")
	if [ "$n" -gt 0 ]; then
		pass "signal/crosses-frame ($n samples unwound from the handler through the signal frame to main)"
	else
		fail "signal/crosses-frame: no stock sample unwinds from sig_handler_work to main"
	fi
fi
case_ deep "--call-graph dwarf,4096" 1 "$(bid "$BIN/deep")" "$BIN/deep" "$SECS"
if command -v node >/dev/null 2>&1; then
	NODE=$(readlink -f "$(command -v node)")
	case_ node "$DW" -1 "$(bid "$NODE")" "$NODE" --jitless -e \
		'let s=0; for (let i=0;i<4e5;i++) s+=Math.sqrt(i)*Math.sin(i); console.log(s > 0)'
else
	skip "node: not installed"
fi
if want system-wide; then
	"$BIN/threads" 1 >/dev/null 2>&1 &
	bg=$!
	# (busy machines: the background program may get no sample; no main DSO)
	case_ system-wide "$DW -a" -1 "" sleep 0.15
	wait "$bg" 2>/dev/null
fi

info "dwarf: total $(($(date +%s) - t0))s"
exit $failed
