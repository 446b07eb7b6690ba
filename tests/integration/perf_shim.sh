#!/bin/sh
# perf_shim.sh - issue-2 integration tests: libsymlazy.so inside the real,
# unmodified perf 6.1 (and bcc), against the generated fixture
# (build/fixture: 150k-function PIE `main` + 50k-function libbigshared.so).
#
#  a) no budget (SYMLAZY_LAZY=off): perf script / perf report --stdio output is
#     byte-identical to stock, for an fp (-g) and a DWARF recording
#     (lazy: the same comparison with SYMLAZY_LAZY=on, when the shim says lazy is on)
#  b) SYMLAZY_MMAP=1 lowers peak RssAnon versus stock and SYMLAZY_MMAP=0
#  c) budgets 1M/8M/32M: peak RssAnon <= floor + 1.1 x budget + 4 MiB, one
#     warning line iff symbols were dropped, and every output line equals stock
#     or has its symbol replaced by [unknown] in a DSO whose budget ran out
#     (matched by build-id: the scanned file may be a separate debug file,
#     /usr/lib/debug/.build-id/xx/rest.debug with libc6-dbg); a 1 KiB budget
#     must cut those debug files and their DSOs' frames must be attributed
#  d) a workload started by `LD_PRELOAD=libsymlazy.so perf record -- cmd` sees
#     exactly what it sees without the preload (env, maps, output, exit code)
#  e) bcc BPF.sym() gives the same, expected names with and without the shim
#
# Prints PASS:/FAIL:/SKIP: lines with the measured numbers; exits 1 on failure.
# Runtime about a minute (plus ~5 s to generate the fixture once).
# Env: SYMLAZY_ROOT (repo root), PERF_SHIM_FIXTURE (fixture dir), PERF (perf).
set -u
. "$(dirname "$0")/../lib/common.sh"
PEAKRSS=$ROOT/build/bin/peakrss
FIX=${PERF_SHIM_FIXTURE:-$ROOT/build/fixture}

# Memory-bound slack for (c): allocator fragmentation and rounding, 2 ms
# sampling jitter, and perf allocations that differ between a run that keeps
# some symbols and the floor run (demangler scratch, name-length variation).
SLACK_KB=4096
# (b): mmap must save at least this much (the fixture's .symtab+.strtab
# copies alone are > 20 MiB; noise between runs is < 1 MiB).
MMAP_MIN_SAVING_KB=4096

unset_symlazy_env
command -v "$PERF" >/dev/null 2>&1 || { skip "perf_shim: perf not installed"; exit 0; }
[ -f "$SO" ] || { fail "perf_shim: $SO missing (run make)"; exit 1; }
[ -x "$PEAKRSS" ] || { fail "perf_shim: $PEAKRSS missing (run make)"; exit 1; }

WL_PID=""
cleanup() { [ -n "$WL_PID" ] && kill "$WL_PID" 2>/dev/null; rm -rf "$T"; }
test_tmpdir perf-shim cleanup
# perf record fills ~/.debug; keep that out of the caller's HOME.
export HOME=$T/home
mkdir -p "$HOME"

sh "$ROOT/scripts/build-fixture.sh" "$FIX" >"$T/fixture.log" 2>&1 ||
	{ cat "$T/fixture.log"; fail "perf_shim: fixture build"; exit 1; }

if ! "$PERF" record -q -g -o "$T/fp.data" -- "$FIX/main" 1 >/dev/null 2>"$T/rec.err"; then
	cat "$T/rec.err"
	skip "perf_shim: perf record does not work here (not root / perf_event_paranoid / container)"
	exit 0
fi
"$PERF" record -q --call-graph dwarf,8192 -o "$T/dw.data" -- "$FIX/main" 0.5 >/dev/null 2>"$T/rec.err" ||
	{ cat "$T/rec.err"; fail "perf_shim: perf record --call-graph dwarf"; }
"$PERF" buildid-list -i "$T/fp.data" >"$T/buildids.txt" 2>/dev/null

# run NAME PRELOAD(0|1) "VAR=val ..." perf-args... : runs perf under peakrss;
# writes $T/NAME.out (stdout), .err (stderr), .rss (peakrss line).
run() {
	_n=$1 _p=$2 _e=$3
	shift 3
	if [ "$_p" = 1 ]; then
		"$PEAKRSS" -o "$T/$_n.rss" -- env LD_PRELOAD="$SO" $_e "$PERF" "$@" >"$T/$_n.out" 2>"$T/$_n.err"
	else
		"$PEAKRSS" -o "$T/$_n.rss" -- env $_e "$PERF" "$@" >"$T/$_n.out" 2>"$T/$_n.err"
	fi
}
kb() { sed -n "s/.*$2=\([0-9]*\).*/\1/p" "$T/$1.rss"; }
anon() { kb "$1" peak_rss_anon_kb; }
# jget FILE PYEXPR: evaluate PYEXPR on the JSON document d (prints "ERR" on failure)
jget() { "$PY" -c 'import json,sys
try:
    d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))
except Exception as e:
    print("ERR")' "$1" "$2"; }
# same NAME_A NAME_B LABEL: byte comparison of two outputs, ignoring the
# random "# (Tip: ...)" line perf report --stdio prints at the end
same() {
	notip "$T/$1.out" >"$T/$1.cmp"
	notip "$T/$2.out" >"$T/$2.cmp"
	if cmp -s "$T/$1.cmp" "$T/$2.cmp"; then
		pass "$3 ($(wc -l <"$T/$1.cmp") lines identical)"
	else
		fail "$3 (output differs: $(diff "$T/$1.cmp" "$T/$2.cmp" | grep -c '^>') lines; first:)"
		show_diff "$T/$1.cmp" "$T/$2.cmp" 6
	fi
}
# active NAME JSON LABEL: the shim ran and wrote stats with scanned symbols
active() {
	s=$(jget "$2" 'd["totals"]["scanned"]')
	case $s in
	''|ERR|0) fail "$3: shim inactive? no stats / nothing scanned in $2"; sed -n 1,5p "$T/$1.err"; return 1 ;;
	esac
	return 0
}

# ---- (a) byte-identical output without a budget --------------------------
run fp-script-stock 0 "" script -i "$T/fp.data"
run fp-report-stock 0 "" report --stdio -i "$T/fp.data"
run dw-script-stock 0 "" script --no-inline -i "$T/dw.data"
run dw-report-stock 0 "" report --stdio --no-inline -i "$T/dw.data"
for c in "fp-script script -i $T/fp.data" "fp-report report --stdio -i $T/fp.data" \
	"dw-script script --no-inline -i $T/dw.data" "dw-report report --stdio --no-inline -i $T/dw.data"; do
	set -- $c
	n=$1
	shift
	run "$n-shim" 1 "SYMLAZY_LAZY=off SYMLAZY_STATS=$T/$n-shim.json" "$@"
	active "$n-shim" "$T/$n-shim.json" "a-$n-identical" &&
		same "$n-stock" "$n-shim" "a-$n-identical: perf ${n#*-} ${n%%-*} data, SYMLAZY_LAZY=off vs stock"
	# lazy: same expectation, only meaningful once the shim turns lazy on
	run "$n-lazy" 1 "SYMLAZY_LAZY=on SYMLAZY_STATS=$T/$n-lazy.json" "$@"
	lz=$(jget "$T/$n-lazy.json" 'd["lazy"]+" "+d.get("lazy_reason","").replace(" ","_")')
	case $lz in
	on*) same "$n-stock" "$n-lazy" "a-$n-lazy-identical: SYMLAZY_LAZY=on vs stock (RssAnon $(mib "$(anon "$n-lazy")")MiB vs stock $(mib "$(anon "$n-stock")")MiB)" ;;
	*) case $n in
	   dw-*) fail "a-$n-lazy-identical: shim reports lazy=${lz:-no stats} (DWARF data stays lazy)" ;;
	   *) skip "a-$n-lazy-identical: shim reports lazy=${lz:-no stats}" ;;
	   esac ;;
	esac
done

# ---- (b) mmap lowers peak RssAnon ----------------------------------------
run fp-script-nommap 1 "SYMLAZY_LAZY=off SYMLAZY_MMAP=0 SYMLAZY_STATS=$T/fp-script-nommap.json" script -i "$T/fp.data"
st=$(anon fp-script-stock) m0=$(anon fp-script-nommap) m1=$(anon fp-script-shim)
msg="peak RssAnon stock $(mib "$st")MiB, MMAP=0 $(mib "$m0")MiB, MMAP=1 $(mib "$m1")MiB; RssFile stock $(mib "$(kb fp-script-stock peak_rss_file_kb)")MiB, MMAP=1 $(mib "$(kb fp-script-shim peak_rss_file_kb)")MiB; VmHWM stock $(mib "$(kb fp-script-stock vm_hwm_kb)")MiB, MMAP=1 $(mib "$(kb fp-script-shim vm_hwm_kb)")MiB"
if [ "$((m1 + MMAP_MIN_SAVING_KB))" -le "$st" ] && [ "$((m1 + MMAP_MIN_SAVING_KB))" -le "$m0" ]; then
	pass "b-mmap-rssanon: $msg"
else
	fail "b-mmap-rssanon: want MMAP=1 at least $(mib $MMAP_MIN_SAVING_KB)MiB below both: $msg"
fi
mm1=$(jget "$T/fp-script-shim.json" 'sum(1 for x in d["dsos"] if x.get("mmap"))')
mm0=$(jget "$T/fp-script-nommap.json" 'sum(1 for x in d["dsos"] if x.get("mmap"))')
if [ "$mm1" != ERR ] && [ "$mm1" -gt 0 ] && [ "$mm0" = 0 ]; then
	pass "b-mmap-stats: dsos with mmap=true: MMAP=1 $mm1, MMAP=0 $mm0"
else
	fail "b-mmap-stats: dsos with mmap=true: MMAP=1 $mm1 (want >0), MMAP=0 $mm0 (want 0)"
fi
same fp-script-stock fp-script-nommap "b-nommap-identical: SYMLAZY_MMAP=0 output vs stock"

# ---- (c) budgets ---------------------------------------------------------
cat >"$T/budget_lines.py" <<'EOF'
# budget_lines.py STOCK BUDGET STATS BUILDIDS: every BUDGET line equals the
# STOCK line, or is that line with "sym+0xoff" replaced by "[unknown]" in a DSO
# the budget cut: the DSO's build-id (from perf buildid-list, or else the
# build-id note of the file at the path perf prints) is the build_id of a
# stats "dsos" entry with dropped > 0. The entry's path is the file perf
# scanned, which need not be the DSO's own path: a distro debug file
# /usr/lib/debug/.build-id/xx/rest.debug (libc6-dbg) or the build-id cache
# ~/.debug/.../<build-id>/{elf,debug}. perf buildid-list lists only DSOs with
# sample hits, not DSOs that appear only in callchains (libc's
# __libc_start_call_main), hence the note. Also checked: the build_id the
# stats report for every cut file is that file's own build-id note (a
# /usr/lib/debug/.build-id path must spell it). Prints a summary line and a
# "debug-files:" line; exit 1 on violation.
import json, re, subprocess, sys
stock = open(sys.argv[1], errors="replace").read().split("\n")
bud = open(sys.argv[2], errors="replace").read().split("\n")
st = json.load(open(sys.argv[3]))
names = {}
for l in open(sys.argv[4]):
    f = l.split(None, 1)
    if len(f) == 2:
        names.setdefault(f[1].strip(), set()).add(f[0])
_bid = {}
def note_bid(path):
    """GNU build-id note of the ELF file at path ('' if none or unreadable)."""
    if path not in _bid:
        _bid[path] = ""
        if path.startswith("/"):
            try:
                out = subprocess.run(["readelf", "-n", path], capture_output=True,
                                     text=True, timeout=30).stdout
                m = re.search(r"Build ID: *([0-9a-f]+)", out)
                _bid[path] = m.group(1) if m else ""
            except Exception:
                pass
    return _bid[path]
bad, stats_bad = [], []
cut = {}                      # build-id -> files whose scan dropped symbols
cut_nobid = set()             # scanned paths without a build-id
for x in st["dsos"]:
    if x.get("dropped", 0) <= 0:
        continue
    p, b = x.get("path", ""), x.get("build_id", "")
    if not b:
        cut_nobid.add(p)
        continue
    cut.setdefault(b, set()).add(p)
    nb = note_bid(p)
    if nb != b:
        stats_bad.append("stats build_id %s for %s, the file's note says %r" % (b, p, nb))
    if p.startswith("/usr/lib/debug/.build-id/") and p != "/usr/lib/debug/.build-id/%s/%s.debug" % (b[:2], b[2:]):
        stats_bad.append("debug file %s does not spell build_id %s" % (p, b))
rx = re.compile(r"^(\s*[0-9a-f]+ )(.*) \((.*)\)$")
repl, per_dso, via, drop = 0, {}, {}, {}
if len(stock) != len(bud):
    print("line count differs: stock %d, budget %d" % (len(stock), len(bud)))
    sys.exit(1)
for i, (s, b) in enumerate(zip(stock, bud)):
    if s == b:
        continue
    ms, mb = rx.match(s), rx.match(b)
    ok = ms and mb and ms.group(1) == mb.group(1) and ms.group(3) == mb.group(3) \
        and mb.group(2) == "[unknown]" and ms.group(2) != "[unknown]"
    files = set()
    if ok:
        dso = ms.group(3)
        ids = set(names.get(dso, set()))
        if note_bid(dso):
            ids.add(note_bid(dso))
        for b_ in ids:
            files |= cut.get(b_, set())
        if not ids and dso in cut_nobid:
            files.add(dso)
        ok = bool(files)
    if not ok:
        bad.append((i + 1, s, b))
    else:
        repl += 1
        d = mb.group(3).rsplit("/", 1)[-1]
        per_dso[d] = per_dso.get(d, 0) + 1
        drop[d] = sum(x.get("dropped", 0) for x in st["dsos"] if x.get("path") in files)
        for f in files:
            if f.startswith("/usr/lib/debug/") or f.endswith("/debug"):
                via.setdefault(f, [d, 0])[1] += 1
print("%d lines, %d replaced by [unknown] (%s), %d violations; budget_bytes=%s charged_bytes=%s dropped=%s"
      % (len(stock), repl, ", ".join("%s:%d (%d symbols dropped)" % (k, v, drop[k]) for k, v in sorted(per_dso.items())),
         len(bad), st.get("budget_bytes"), st.get("charged_bytes"), st["totals"].get("dropped")))
print("debug-files: %s" % ("; ".join("%s lines of %s via %s" % (v[1], v[0], f)
                                      for f, v in sorted(via.items())) or "none"))
for n, s, b in bad[:3]:
    print("  line %d\n   stock:  %s\n   budget: %s" % (n, s, b))
for m in stats_bad:
    print("  " + m)
if st.get("charged_bytes", 0) > st.get("budget_bytes", 0):
    print("charged_bytes > budget_bytes")
    sys.exit(1)
sys.exit(1 if bad or stats_bad else 0)
EOF
run fp-script-floor 1 "SYMLAZY_HIDE_ALL=1 SYMLAZY_LAZY=off SYMLAZY_STATS=$T/fp-script-floor.json" script -i "$T/fp.data"
floor=$(anon fp-script-floor)
nfix=$(grep -c "($FIX/" "$T/fp-script-floor.out")
nfixsym=$(grep "($FIX/" "$T/fp-script-floor.out" | grep -vc ' \[unknown\] (')
if [ "$nfix" -gt 0 ] && [ "$nfixsym" -eq 0 ]; then
	pass "c-floor: SYMLAZY_HIDE_ALL=1: all $nfix fixture callchain lines [unknown]; floor RssAnon $(mib "$floor")MiB (stock $(mib "$st")MiB)"
else
	fail "c-floor: SYMLAZY_HIDE_ALL=1: $nfixsym of $nfix fixture lines still have a symbol"
fi
for B in 1M 8M 32M; do
	n=fp-script-b$B
	run "$n" 1 "SYMLAZY_LAZY=off SYMLAZY_MAX_BYTES=$B SYMLAZY_STATS=$T/$n.json" script -i "$T/fp.data"
	active "$n" "$T/$n.json" "c-budget-$B" || continue
	bkb=$((${B%M} * 1024))
	a=$(anon "$n")
	lim=$(awk -v f="$floor" -v b="$bkb" -v s=$SLACK_KB 'BEGIN{printf "%d", f + 1.1 * b + s}')
	if [ "$a" -le "$lim" ]; then
		pass "c-budget-$B-rssanon: $(mib "$a")MiB <= floor $(mib "$floor")MiB + 1.1x$B + $(mib $SLACK_KB)MiB = $(mib "$lim")MiB (stock $(mib "$st")MiB)"
	else
		fail "c-budget-$B-rssanon: $(mib "$a")MiB > floor $(mib "$floor")MiB + 1.1x$B + $(mib $SLACK_KB)MiB = $(mib "$lim")MiB (stock $(mib "$st")MiB)"
	fi
	dropped=$(jget "$T/$n.json" 'd["totals"]["dropped"]')
	nw=$(grep -c '^symlazy: symbol budget' "$T/$n.err")
	want=0
	[ "$dropped" != ERR ] && [ "$dropped" -gt 0 ] && want=1
	if [ "$B" = 1M ] && [ "$want" = 0 ]; then
		fail "c-budget-1M-drops: nothing dropped under a 1 MiB budget (dropped=$dropped)"
	fi
	if [ "$nw" -eq "$want" ]; then
		pass "c-budget-$B-warning: $nw 'symlazy: symbol budget' line(s), dropped=$dropped"
	else
		fail "c-budget-$B-warning: $nw 'symlazy: symbol budget' line(s), want $want (dropped=$dropped)"
		grep '^symlazy' "$T/$n.err" | head -3
	fi
	if r=$("$PY" "$T/budget_lines.py" "$T/fp-script-stock.out" "$T/$n.out" "$T/$n.json" "$T/buildids.txt" 2>&1); then
		pass "c-budget-$B-lines: $(echo "$r" | head -1)"
	else
		fail "c-budget-$B-lines: $r"
	fi
done
# Hosts with distro debug files (libc6-dbg): perf reads libc's .symtab from
# /usr/lib/debug/.build-id/xx/rest.debug (or from its copy in the build-id
# cache, ~/.debug/.../libc.so.6/<build-id>/debug, when libc had sample hits)
# and prints libc's frames (__libc_start_call_main) by name; without them
# they are [unknown] in stock output too. Which DSO perf loads first depends
# on the samples, so a 1-8 MiB budget may or may not reach libc; a 1 KiB
# budget cuts every table: libc's [unknown] frames must then be attributed
# through the debug file's build-id.
n=fp-script-b1K
run "$n" 1 "SYMLAZY_LAZY=off SYMLAZY_MAX_BYTES=1K SYMLAZY_STATS=$T/$n.json" script -i "$T/fp.data"
if active "$n" "$T/$n.json" "c-budget-1K-debugfile"; then
	r=$("$PY" "$T/budget_lines.py" "$T/fp-script-stock.out" "$T/$n.out" "$T/$n.json" "$T/buildids.txt" 2>&1)
	rc=$?
	dscan=$(jget "$T/$n.json" '" ".join(sorted(set("%s:%d" % (x.get("path", ""), x.get("dropped", 0)) for x in d["dsos"] if x.get("path", "").startswith("/usr/lib/debug/") or x.get("path", "").endswith("/debug"))))')
	dvia=$(echo "$r" | sed -n 's/^debug-files: //p')
	libc=$(ldconfig -p 2>/dev/null | sed -n 's/.*libc\.so\.6 (libc6,x86-64) => //p' | head -1)
	lbid=$(bid "${libc:-/lib/x86_64-linux-gnu/libc.so.6}")
	ldbg=/usr/lib/debug/.build-id/$(echo "$lbid" | cut -c1-2)/$(echo "$lbid" | cut -c3-).debug
	if [ $rc = 0 ]; then
		pass "c-budget-1K-lines: $(echo "$r" | head -1)"
	else
		fail "c-budget-1K-lines: $r"
	fi
	if [ "$dscan" = ERR ]; then
		fail "c-budget-1K-debugfile: cannot read $T/$n.json"
	elif [ -z "$dscan" ]; then
		if [ -n "$lbid" ] && [ -f "$ldbg" ]; then
			fail "c-budget-1K-debugfile: $ldbg exists but perf scanned no separate debug file"
		else
			skip "c-budget-1K-debugfile: no distro debug file for libc ($ldbg absent: libc6-dbg not installed)"
		fi
	elif echo " $dscan" | grep -q ':0\( \|$\)'; then
		fail "c-budget-1K-debugfile: a 1 KiB budget left a debug file uncut: $dscan"
	elif [ -n "$dvia" ] && [ "$dvia" != none ] && echo "$dvia" | grep -q ' lines of libc\.so\.6 via '; then
		pass "c-budget-1K-debugfile: cut debug files (path:dropped) $dscan; [unknown] lines attributed by build-id: $dvia"
	else
		fail "c-budget-1K-debugfile: debug files $dscan were cut but no libc [unknown] line was attributed to one (${dvia:-no summary})"
	fi
fi
# Budgets that cut inside each large symbol table (at 25/50/75% of its bytes,
# from the unbounded run's per-DSO stats, in load order): the cut then falls
# between a kept zero-size symbol (crt's frame_dummy, the fixture's __zl_/__zf_
# labels before hot functions) and a dropped function, which perf's
# symbols__fixup_end would stretch over the dropped one.
cuts=$("$PY" -c 'import json,sys
d = json.load(open(sys.argv[1])); c = 0; out = []
for x in d["dsos"]:
    b = x.get("bytes", 0)
    if b > (1 << 20):
        out += [str(int(c + f * b)) for f in (0.25, 0.5, 0.75)]
    c += b
print(" ".join(out))' "$T/fp-script-shim.json" 2>/dev/null)
[ -n "$cuts" ] || fail "c-budget-sweep: no per-DSO bytes in $T/fp-script-shim.json"
for B in $cuts; do
	n=fp-script-cut$B
	run "$n" 1 "SYMLAZY_LAZY=off SYMLAZY_MAX_BYTES=$B SYMLAZY_STATS=$T/$n.json" script -i "$T/fp.data"
	if r=$("$PY" "$T/budget_lines.py" "$T/fp-script-stock.out" "$T/$n.out" "$T/$n.json" "$T/buildids.txt" 2>&1); then
		pass "c-budget-sweep-$B-lines: $(echo "$r" | head -1)"
	else
		fail "c-budget-sweep-$B-lines: $r"
	fi
done
run fp-report-b8M 1 "SYMLAZY_LAZY=off SYMLAZY_MAX_BYTES=8M" report --stdio -i "$T/fp.data"
nw=$(grep -c '^symlazy: symbol budget' "$T/fp-report-b8M.err")
if [ "$nw" -eq 1 ]; then
	pass "c-budget-8M-report-warning: perf report printed the warning once"
else
	fail "c-budget-8M-report-warning: perf report printed the warning $nw times"
fi

# ---- (d) the recorded workload does not see the shim ---------------------
cat >"$T/wl.sh" <<'EOF'
echo "args: $*"
echo "LD_PRELOAD=${LD_PRELOAD-<unset>}"
env | grep '^SYMLAZY' | sort
if grep -q libsymlazy /proc/$$/maps; then echo "libsymlazy mapped: yes"; else echo "libsymlazy mapped: no"; fi
eu-readelf -s "$1" 2>&1 | cksum
exit 7
EOF
wl() { # wl NAME PRELOAD-VALUE-or-"-" : perf record -- sh wl.sh ...
	if [ "$2" = - ]; then
		"$PERF" record -q -o "$T/$1.data" -- sh "$T/wl.sh" "$FIX/libbigshared.so" "b c" >"$T/$1.out" 2>"$T/$1.err"
	else
		LD_PRELOAD=$2 "$PERF" record -q -o "$T/$1.data" -- sh "$T/wl.sh" "$FIX/libbigshared.so" "b c" >"$T/$1.out" 2>"$T/$1.err"
	fi
	echo "exit=$?" >>"$T/$1.out"
}
wl wl-none -
wl wl-shim "$SO"
if cmp -s "$T/wl-none.out" "$T/wl-shim.out" && grep -q '^exit=7$' "$T/wl-shim.out"; then
	pass "d-workload: same env/maps/output/exit under LD_PRELOAD perf record ($(tr '\n' ';' <"$T/wl-shim.out"))"
else
	fail "d-workload: workload differs under LD_PRELOAD=libsymlazy perf record"
	diff "$T/wl-none.out" "$T/wl-shim.out"
fi
ZSTD=$(ldconfig -p 2>/dev/null | sed -n 's/.*libzstd\.so\.1 (libc6,x86-64) => //p' | head -1)
if [ -n "$ZSTD" ] && [ -f "$ZSTD" ]; then
	wl wl-other "$ZSTD"
	wl wl-both "$ZSTD $SO"
	if cmp -s "$T/wl-other.out" "$T/wl-both.out"; then
		pass "d-workload-other-preload: LD_PRELOAD='libzstd libsymlazy' looks like LD_PRELOAD='libzstd' to the workload"
	else
		fail "d-workload-other-preload: workload differs"
		diff "$T/wl-other.out" "$T/wl-both.out"
	fi
else
	skip "d-workload-other-preload: libzstd.so.1 not found"
fi
if LD_PRELOAD=$SO "$PERF" script -i "$T/wl-shim.data" >/dev/null 2>&1 || "$PERF" script -i "$T/wl-shim.data" >/dev/null 2>&1; then
	"$PERF" script -i "$T/wl-shim.data" >"$T/wl-shim.script" 2>/dev/null
	"$PERF" script -i "$T/wl-none.data" >"$T/wl-none.script" 2>/dev/null
	pass "d-record-data: perf.data written under the shim is readable ($(wc -l <"$T/wl-shim.script") script lines; without shim $(wc -l <"$T/wl-none.script"))"
else
	fail "d-record-data: perf script cannot read perf.data recorded under the shim"
fi

# ---- (e) bcc --------------------------------------------------------------
if ! "$PY" -c 'import bcc' 2>/dev/null; then
	skip "e-bcc: python3-bpfcc not importable"
else
	"$FIX/main" 60 &
	WL_PID=$!
	cat >"$T/bcc_addrs.py" <<'EOF'
# bcc_addrs.py PID FIXDIR: "addr expected-mangled-name" lines for hot and cold
# functions of main and libbigshared.so (only addresses with a single symbol).
import subprocess, sys, time
pid, fix = int(sys.argv[1]), sys.argv[2]
def syms(path):
    out = subprocess.run(["nm", "--defined-only", path], capture_output=True, text=True).stdout
    by_addr, by_name = {}, {}
    for l in out.splitlines():
        f = l.split()
        if len(f) == 3 and f[1] in "tT":
            v = int(f[0], 16)
            by_addr.setdefault(v, []).append(f[2]); by_name[f[2]] = v
    return by_addr, by_name
def base(path):
    for _ in range(100):
        for l in open("/proc/%d/maps" % pid):
            f = l.split()
            if len(f) >= 6 and f[5] == path and int(f[2], 16) == 0:
                return int(f[0].split("-")[0], 16)
        time.sleep(0.05)
    raise SystemExit("no mapping of %s in pid %d" % (path, pid))
hot = [l.split() for l in open(fix + "/hot.txt")]
for kind, path in (("big", fix + "/main"), ("lib", fix + "/libbigshared.so")):
    by_addr, by_name = syms(path)
    b = base(path)
    names = [n for k, n in hot if k == kind][:6]
    uniq = sorted(v for v, ns in by_addr.items() if len(ns) == 1 and ns[0].startswith("_Z"))
    names += [by_addr[uniq[i * len(uniq) // 5]][0] for i in range(5)]
    for n in names:
        v = by_name[n]
        if len(by_addr[v]) != 1:
            continue
        print("%x %s" % (b + v, n))
        print("%x %s" % (b + v + 2, n))
EOF
	cat >"$T/bcc_sym.py" <<'EOF'
# bcc_sym.py PID ADDRFILE: BPF.sym() for every address, mangled and demangled
import sys
from bcc import BPF
pid = int(sys.argv[1])
for l in open(sys.argv[2]):
    a = int(l.split()[0], 16)
    print("%x %s %s" % (a, BPF.sym(a, pid, demangle=False).decode(),
                        BPF.sym(a, pid, show_module=True, show_offset=True).decode()))
EOF
	sleep 0.3
	if "$PY" "$T/bcc_addrs.py" "$WL_PID" "$FIX" >"$T/bcc.addrs" 2>"$T/bcc.err"; then
		"$PY" "$T/bcc_sym.py" "$WL_PID" "$T/bcc.addrs" >"$T/bcc-none.out" 2>>"$T/bcc.err"
		LD_PRELOAD=$SO "$PY" "$T/bcc_sym.py" "$WL_PID" "$T/bcc.addrs" >"$T/bcc-shim.out" 2>"$T/bcc-shim.err"
		n=$(wc -l <"$T/bcc.addrs")
		exp_bad=$(awk 'NR==FNR{e[$1]=$2; next} e[$1]!=$2{c++} END{print c+0}' "$T/bcc.addrs" "$T/bcc-none.out")
		got_bad=$(awk 'NR==FNR{e[$1]=$2; next} e[$1]!=$2{c++} END{print c+0}' "$T/bcc.addrs" "$T/bcc-shim.out")
		if [ "$(wc -l <"$T/bcc-shim.out")" -eq "$n" ] && [ "$got_bad" -eq 0 ] &&
			cmp -s "$T/bcc-none.out" "$T/bcc-shim.out"; then
			pass "e-bcc-sym: $n addresses, same names with and without the shim, all expected (without shim: $exp_bad unexpected)"
		else
			fail "e-bcc-sym: $n addresses: $got_bad unexpected names with the shim ($exp_bad without); diff:"
			show_diff "$T/bcc-none.out" "$T/bcc-shim.out" 6
			head -5 "$T/bcc-shim.err"
		fi
	else
		fail "e-bcc-sym: could not compute addresses: $(cat "$T/bcc.err")"
	fi
	kill "$WL_PID" 2>/dev/null
	wait "$WL_PID" 2>/dev/null
	WL_PID=""
fi

exit $failed
