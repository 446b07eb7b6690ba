#!/bin/sh
# perf612.sh - lazy mode under perf 6.12 (issue 14): the exactness checks of
# the 6.1 suites, run with a perf 6.12 built from Debian's linux-source-6.12
# (scripts/build-perf612.sh, cached outside the clone) on recordings this
# script makes with that perf:
#
#  a) the generated fixture (scripts/build-fixture.sh: 150k-function PIE +
#     50k-function library, C++/Rust-mangled names): perf script, perf report
#     --stdio, perf annotate --stdio of the hottest fixture symbol, stock vs
#     LD_PRELOAD=build/libsymlazy.so with nothing else set: stdout
#     byte-identical, SYMLAZY_STATS says lazy=on and both fixture DSOs lazy;
#  b) corpus programs (tests/integration/corpus.sh with PERF=perf 6.12 and
#     its own CORPUS_DIR): C++ (+ --no-demangle, -v), Rust, threads (-z),
#     fork+exec, overlapping symbols (PERF612_CASES: any corpus cases);
#  c) PLT synthesis of perf 6.2+ and overlaps, deterministically: a recording
#     without callchains whose sample IPs are moved (perf_setip.py) onto
#     every byte from .init to the start of .text (.init, .plt header and
#     entries, .plt.got, .plt.sec) and around IFUNC resolvers and nested
#     labels, for a lazy-binding PIE, an IBT -z now PIE (.plt.sec), a
#     static executable (.plt without header, relocations linked to .symtab,
#     every entry named after an IFUNC), the corpus ifunc PIE (IFUNC entry
#     named from the tree) and the overlap program: perf script -F
#     ip,sym,symoff,dso, perf report --stdio and perf annotate --stdio _init
#     identical, and the binary's scans lazy (the tree replay, not a
#     fallback);
#  d) version detection: perf 6.12 gets lazy mode without SYMLAZY_LAZY; a
#     perf whose version literal is neither 6.1.x nor 6.12.x stays eager with
#     reason perf_version; 6.12's argv rules (--debug-file, data-type
#     profiling eager).
# Prints PASS:/FAIL:/SKIP:/INFO: lines; SKIP (exit 0) with the reason when
# perf 6.12 cannot be built here. About 80 s after the first build (which
# takes about 2-4 minutes on 2 cores, once per machine).
# Env: SYMLAZY_ROOT, SYMLAZY_SO, PERF612 (a perf 6.12 binary: skips the
#      build), PERF612_CASES (corpus cases, default below), PERF612_PARTS
#      (subset of "fixture plt version corpus", default all).
set -u
. "$(dirname "$0")/../lib/common.sh"
TEST_PREFIX=perf612/
T=$ROOT/build/perf612

unset_symlazy_env PERF_CONFIG LD_BIND_NOW

[ -f "$SO" ] || { fail "setup: $SO missing (run make)"; exit 1; }
if [ -z "${PERF612:-}" ]; then
	# the cache lives in the caller's HOME (computed before HOME changes below)
	PERF612=$(sh "$ROOT/scripts/build-perf612.sh" 2>"$ROOT/build/perf612-build.err")
	rc=$?
	if [ $rc -ne 0 ] || [ ! -x "$PERF612" ]; then
		why=$(sed -n 's/^SKIP: //p' "$ROOT/build/perf612-build.err" | tail -1)
		skip "all: ${why:-scripts/build-perf612.sh failed (exit $rc): $(tail -1 "$ROOT/build/perf612-build.err")}"
		exit 0
	fi
fi
info "perf: $PERF612 ($("$PERF612" version 2>&1)); built: $(cat "$(dirname "$PERF612")/built-from.txt" 2>/dev/null)"
case $("$PERF612" version 2>/dev/null) in
"perf version 6.12."*) ;;
*) fail "setup: $PERF612 is not perf 6.12"; exit 1 ;;
esac

rm -rf "$T"
mkdir -p "$T/home" "$T/bin" "$T/out" || exit 1
cp "$SO" "$T/libsymlazy.so" || exit 1
SO=$T/libsymlazy.so
CC=${CC:-cc}
$CC -O2 -shared -fPIC -o "$T/fixtime.so" "$ROOT/tests/corpus/fixtime.c" || { fail "setup: fixtime.so"; exit 1; }
FIXT=$T/fixtime.so
REAL_HOME=$HOME
export HOME=$T/home

# rec612 ERRFILE record-args...: perf 6.12 record, again (up to three times)
# when stock perf itself crashes (6.12.118 on this kernel, now and then:
# "assertion failed at util/build-id.c:954", stack smashing)
rec612() {   # (its variables are global in sh: _rec_*, not the callers' _e/_t)
	_rec_e=$1
	shift
	for _rec_try in 1 2 3; do
		"$PERF612" record "$@" >/dev/null 2>"$_rec_e" && return 0
		grep -q 'assertion failed\|stack smashing' "$_rec_e" || return 1
		info "record: stock perf record crashed (try $_rec_try): $(head -1 "$_rec_e")"
	done
	return 1
}

if ! "$PERF612" record -q -o "$T/probe.data" -- true >"$T/probe.log" 2>&1; then
	sed -n 1,3p "$T/probe.log"
	skip "all: perf record does not work here (permissions / perf_event_paranoid / container)"
	exit 0
fi

# cmp_run NAME stats.json perf-args...: stock vs shim stdout and exit status
cmp_run() {
	_n=$1 _j=$2
	shift 2
	LD_PRELOAD=$FIXT "$PERF612" "$@" >"$T/out/$_n.stock" 2>"$T/out/$_n.stock.err"
	_rs=$?
	LD_PRELOAD=$SO:$FIXT SYMLAZY_STATS=$_j SYMLAZY_CACHE_DIR=$T/cache "$PERF612" "$@" \
		>"$T/out/$_n.shim" 2>"$T/out/$_n.shim.err"
	_rl=$?
	if [ ! -s "$T/out/$_n.stock" ] && [ "$_rs" -ge 128 ] && [ "$_rs" = "$_rl" ] &&
		cmp -s "$T/out/$_n.stock" "$T/out/$_n.shim"; then
		# perf's own crash on this recording (seen: 6.12.117 perf annotate,
		# SIGSEGV in __map__kmap <- map__rip_2objdump): nothing to compare
		skip "$_n: stock perf crashed (exit $_rs) on this recording, and the shim's run the same way: perf $*"
		return 0
	elif [ ! -s "$T/out/$_n.stock" ]; then
		fail "$_n: stock perf printed nothing (exit $_rs): perf $*"
		sed -n 1,3p "$T/out/$_n.stock.err"
	elif [ "$_rs" != "$_rl" ]; then
		fail "$_n: exit status stock $_rs, shim $_rl"
		sed -n 1,3p "$T/out/$_n.shim.err"
	elif cmp -s "$T/out/$_n.stock" "$T/out/$_n.shim"; then
		pass "$_n ($(wc -l <"$T/out/$_n.stock") lines identical)"
		return 0
	elif [ "$1" = report ] && _ties=$("$PY" "$ROOT/tests/report_same.py" "$T/out/$_n.stock" "$T/out/$_n.shim"); then
		# stock perf's own tie order (tests/report_same.py)
		pass "$_n ($(wc -l <"$T/out/$_n.stock") lines, $_ties)"
		return 0
	else
		fail "$_n: output differs: perf $*"
		show_diff "$T/out/$_n.stock" "$T/out/$_n.shim" 8
	fi
	return 1
}

# scans JSON BUILD_ID: "table:mode:passed:scanned:reason;..." of that DSO's scans
scans() {
	"$PY" - "$1" "$2" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("unreadable:%s" % e); sys.exit(0)
print(";".join("%s:%s:%d:%d:%s" % (s["table"], s["mode"], s["scanned"] and s["passed"], s["scanned"],
               s.get("reason") or "") for s in d.get("dsos", []) if s.get("build_id") == sys.argv[2]))
PY
}

# want_lazy NAME JSON BUILD_ID: every scan of the DSO lazy, kept < scanned/2
want_lazy() {
	_s=$(scans "$2" "$3")
	if [ -z "$_s" ]; then
		fail "$1: no scan of build-id ${3:-?} in $2"
		return 1
	fi
	if echo "$_s" | tr ';' '\n' | awk -F: '$2 != "lazy" || $3 * 2 >= $4 { bad = 1 } END { exit bad }'; then
		pass "$1 (lazy: $(echo "$_s" | tr ';' ' ' | sed 's/:lazy:/ /g; s/:\([0-9]*\):/ of \1 /g'))"
		return 0
	fi
	fail "$1: not lazy: $_s"
	return 1
}

part() { in_list "$1" "${PERF612_PARTS:-fixture plt version corpus}"; }

# ---- a) the fixture ---------------------------------------------------------
mkdir -p "$T/out/fixture"
FIX=$ROOT/build/fixture
if ! part fixture; then
	:
elif sh "$ROOT/scripts/build-fixture.sh" "$FIX" >"$T/fixture.log" 2>&1; then
	FD=$T/fixture.data
	if rec612 "$T/fixture.rec.err" -q -g -o "$FD" -- "$FIX/main" 1; then
		cmp_run fixture/script "$T/fx-script.json" script -i "$FD"
		cmp_run fixture/report "$T/fx-report.json" report --stdio -i "$FD"
		# the first fixture symbol with self samples (children mode lists
		# __libc_start_call_main first, whose annotation is empty)
		hot=$(awk '$2 != "0.00%" && $4 == "main" && $5 == "[.]" { $1 = $2 = $3 = $4 = $5 = ""; print; exit }' \
			"$T/out/fixture/report.stock" | sed 's/^ *//; s/ *$//')
		if [ -n "$hot" ]; then
			cmp_run fixture/annotate "$T/fx-annotate.json" annotate --stdio -i "$FD" -- "$hot"
		else
			fail "fixture/annotate: no symbol in the stock report"
		fi
		if grep -q '"lazy":"on"' "$T/fx-script.json"; then
			pass "fixture/lazy-on (no SYMLAZY_LAZY: perf 6.12 detected)"
		else
			fail "fixture/lazy-on: $(grep -o '"lazy":"[a-z]*","lazy_reason":"[^"]*"' "$T/fx-script.json")"
		fi
		want_lazy fixture/main-lazy "$T/fx-script.json" "$(bid "$FIX/main")"
		want_lazy fixture/libbigshared-lazy "$T/fx-script.json" "$(bid "$FIX/libbigshared.so")"
	else
		fail "fixture/record: $(head -c 300 "$T/fixture.rec.err")"
	fi
else
	fail "fixture/build: $(tail -3 "$T/fixture.log")"
fi
info "fixture done at $(($(date +%s) - t0))s"

# ---- c) PLT and overlaps, sample IPs moved onto every byte --------------------
SRC=$ROOT/tests/corpus
CF="-O2 -g -fno-omit-frame-pointer -fno-builtin -I$SRC"
mkdir -p "$T/out/plt"
build_plt() { # NAME flags...
	_b=$1
	shift
	$CC $CF "$@" -o "$T/bin/$_b" "$SRC/plt.c" >"$T/bin/$_b.log" 2>&1
}
secoff() { # FILE SECTION: sh_offset (hex, no 0x) or empty
	readelf -SW "$1" 2>/dev/null | sed 's/^ *\[ *[0-9]*\] *//' | awk -v s="$2" '$1 == s { print $4; exit }'
}
symoff() { # FILE SYMBOL: st_value - (p_vaddr - p_offset) of the text segment
	readelf -sW "$1" 2>/dev/null | awk -v s="$2" '$8 == s { print $2; exit }'
}
# plt_case NAME BINARY EXPECT TOOLS [extra offset ranges]: EXPECT lazy or
# any; TOOLS: which of script,report,annotate (of _init) to compare
plt_case() {
	_c=$1 _bin=$2 _exp=$3 _tools=$4
	shift 4
	_i=$(secoff "$_bin" .init) _t=$(secoff "$_bin" .text)
	if [ -z "$_i" ] || [ -z "$_t" ]; then
		fail "plt/$_c: no .init/.text in $_bin"
		return
	fi
	if ! rec612 "$T/$_c.rec.err" -q -F 20000 -o "$T/$_c.raw" -- "$_bin" 0.25; then
		fail "plt/$_c: perf record: $(head -c 200 "$T/$_c.rec.err")"
		return
	fi
	if ! "$PY" "$ROOT/tests/integration/perf_setip.py" "$T/$_c.raw" "$T/$_c.data" "$_bin" \
		"0x$_i-$(printf '%#x' $((0x$_t + 0x40)))" "$@" 2>"$T/$_c.setip.err"; then
		fail "plt/$_c: $(cat "$T/$_c.setip.err")"
		return
	fi
	cmp_run "plt/$_c-script" "$T/$_c.json" script -F ip,sym,symoff,dso -i "$T/$_c.data"
	case ,$_tools, in *,report,*) cmp_run "plt/$_c-report" "$T/$_c.r.json" report --stdio -i "$T/$_c.data" ;; esac
	case ,$_tools, in *,annotate,*)
		cmp_run "plt/$_c-annotate" "$T/$_c.a.json" annotate --stdio -i "$T/$_c.data" -- _init ;;
	esac
	_n=$(grep -c -E '(@plt|\.plt)\+' "$T/out/plt/$_c-script.stock")
	info "plt/$_c: $_n perf script lines in synthesized PLT symbols ($(grep -o '[^ ]*@plt+\|\.plt+' \
		"$T/out/plt/$_c-script.stock" | sed 's/+$//' | sort -u | head -4 | tr '\n' ' '))"
	if [ "$_exp" = lazy ]; then
		want_lazy "plt/$_c-stays-lazy" "$T/$_c.json" "$(bid "$_bin")"
	else
		info "plt/$_c scans: $(scans "$T/$_c.json" "$(bid "$_bin")")"
	fi
}
if ! part plt; then
	:
elif build_plt pie -Wl,-z,lazy && build_plt ibt -fcf-protection=full -Wl,-z,ibtplt,-z,now; then
	plt_case pie "$T/bin/pie" lazy script,report,annotate
	plt_case ibt "$T/bin/ibt" lazy script,annotate
else
	fail "plt/build: $(cat "$T"/bin/*.log | head -3)"
fi
# a static executable: .plt of IRELATIVE entries only, no header, relocations
# linked to .symtab, every entry named after the IFUNC symbol it resolves
if ! part plt; then
	:
elif build_plt static -static 2>/dev/null && [ -n "$(bid "$T/bin/static")" ]; then
	plt_case static "$T/bin/static" lazy script,report
else
	skip "plt/static: no static libc here (libc6-dev without libc.a?)"
fi
if part plt; then
	if $CC $CF -o "$T/bin/ifunc" "$SRC/ifunc.c" 2>"$T/bin/ifunc.log" &&
		_r=$(symoff "$T/bin/ifunc" if_resolver) && [ -n "$_r" ]; then
		plt_case ifunc "$T/bin/ifunc" lazy script "0x$_r-$(printf '%#x' $((0x$_r + 0x20)))"
	else
		fail "plt/ifunc: build"
	fi
	if $CC $CF -o "$T/bin/overlap" "$SRC/overlap_main.c" "$SRC/overlap.s" 2>"$T/bin/overlap.log" &&
		_o=$(symoff "$T/bin/overlap" ov_outer) && [ -n "$_o" ]; then
		plt_case overlap "$T/bin/overlap" lazy script,report "0x$_o-$(printf '%#x' $((0x$_o + 0x30)))"
	else
		fail "plt/overlap: build"
	fi
fi
info "plt done at $(($(date +%s) - t0))s"

# ---- d) version detection -----------------------------------------------------
# a copy of perf 6.12 whose version literal says 6.99.1: no model, eager
"$PY" - "$PERF612" "$T/bin/perf" <<'PY'
import sys
b = open(sys.argv[1], 'rb').read()
i = b.find(b'\x006.12.')
j = b.find(b'\x00', i + 1)
new = b'\x006.99.1' + b'\x00' * (j - i - 7)
open(sys.argv[2], 'wb').write(b[:i] + new + b[j:])
PY
chmod +x "$T/bin/perf"
if part version && [ -s "$T/pie.data" ]; then
	D=$T/pie.data
	LD_PRELOAD=$SO SYMLAZY_STATS=$T/v.json "$T/bin/perf" script -i "$D" >"$T/out/v.shim" 2>"$T/out/v.err"
	if grep -q '"lazy":"off"' "$T/v.json" && grep -q '"lazy_reason_code":"perf_version"\|perf version 6.99.1' "$T/v.json" &&
		grep -q 'symlazy: this perf (6.99.1)' "$T/out/v.err"; then
		pass "version/unknown-eager (6.99.1: $(grep -o '"lazy_reason":"[^"]*"' "$T/v.json"))"
	else
		fail "version/unknown-eager: $(head -c 300 "$T/v.json") / $(head -2 "$T/out/v.err")"
	fi
	LD_PRELOAD=$SO SYMLAZY_LAZY=on SYMLAZY_STATS=$T/v2.json "$T/bin/perf" script -F ip,sym,symoff,dso \
		-i "$D" >"$T/out/v2.shim" 2>/dev/null
	if grep -q '"lazy":"on"' "$T/v2.json" && cmp -s "$T/out/v2.shim" "$T/out/plt/pie-script.stock"; then
		pass "version/lazy-on-override (SYMLAZY_LAZY=on: the newest model's rules, output identical)"
	else
		fail "version/lazy-on-override"
	fi
	# argv rules of 6.12: the new global --debug-file takes a word; data-type
	# profiling stays eager (on a -g recording: stock perf 6.12 dies of
	# SIGSEGV in --sort type and in annotate of every symbol on data without
	# callchains, shim or not)
	mkdir -p "$T/out/argv"
	if cmp_run argv/debug-file "$T/df.json" --debug-file "$T/debug.log" script -F ip,sym,symoff,dso -i "$D" >/dev/null &&
		grep -q '"lazy":"on"' "$T/df.json"; then
		pass "argv/debug-file-lazy (perf --debug-file F script: lazy, identical)"
	else
		fail "argv/debug-file-lazy: $(grep -o '"lazy":"[a-z]*","lazy_reason":"[^"]*"' "$T/df.json")"
	fi
	# perf 6.12's --sort type itself dies of SIGSEGV on some recordings (stock
	# too): only the shim's decision is checked, on whichever data perf survives
	"$PERF612" record -q -g -o "$T/argv.data" -- "$T/bin/pie" 0.1 >/dev/null 2>&1
	dt=""
	for d in "$T/argv.data" "$T/fixture.data" "$T/pie.data"; do
		[ -s "$d" ] || continue
		rm -f "$T/dt.json"
		LD_PRELOAD=$SO SYMLAZY_STATS=$T/dt.json "$PERF612" report --stdio --sort type -i "$d" >/dev/null 2>&1
		[ $? -lt 128 ] && [ -s "$T/dt.json" ] && { dt=$d; break; }
	done
	if [ -z "$dt" ]; then
		skip "argv/report-sort-type-eager: perf 6.12 crashed in --sort type on every recording (stock does too)"
	elif grep -q '"lazy_reason_code":"data_type_profiling"' "$T/dt.json"; then
		pass "argv/report-sort-type-eager (reason data_type_profiling)"
	else
		fail "argv/report-sort-type-eager: $(head -c 300 "$T/dt.json")"
	fi
fi

# ---- b) corpus programs ---------------------------------------------------------
CASES=${PERF612_CASES:-"cxx rust threads forkexec overlap abort-dynsym"}
part corpus && HOME=$REAL_HOME PERF=$PERF612 CORPUS_DIR=$T/corpus CORPUS_CASES=$CASES SYMLAZY_SO=$SO \
	sh "$ROOT/tests/integration/corpus.sh" >"$T/corpus.log" 2>&1
crc=$?
part corpus && sed -n 's/^\(PASS\|FAIL\|SKIP\|INFO\): /\1: perf612\/corpus\//p' "$T/corpus.log"
if part corpus && [ $crc -ne 0 ] && ! grep -q '^FAIL' "$T/corpus.log"; then
	fail "corpus: exited $crc: $(tail -3 "$T/corpus.log")"
fi
part corpus && grep -q '^FAIL' "$T/corpus.log" && failed=1
info "total $(($(date +%s) - t0))s"
exit $failed
