#!/bin/sh
# corpus.sh - exactness corpus (issue 3, item 5): small C/C++/Rust/asm programs
# (tests/corpus/) are recorded with stock `perf record`, then `perf script`,
# `perf report --stdio` and `perf annotate --stdio <hot symbol>` run with and
# without LD_PRELOAD=build/libsymlazy.so (lazy mode: SYMLAZY_LAZY unset = auto).
# stdout must be byte-identical (cmp; nothing is filtered), and so must the
# exit status. The SYMLAZY_STATS document of the shim's `perf script` run must
# show, for the case's main DSO(s), scan mode "lazy" with 0 < passed <
# scanned/2 (the kept set is what the samples need, not the table), or - for
# the PLT-stub, ifunc and overlapping-symbol cases only - a documented
# fallback reason.
# DSO scans that were not lazy are listed as INFO lines with their reason.
#
# Cases: C PIE without/with -g, non-PIE, shared library, dlopen (and
# dlclose+reload at another address), stripped binaries with .gnu_debuglink
# debug files (next to the binary, in .debug/), C++ (templates, namespaces,
# lambdas, ctor/dtor aliases; --no-demangle, -v), Rust, zero-size asm
# symbols, a label nested in a hot function, aliases/weak symbols, ifunc, PLT
# stubs, pthreads (+ -z compression), a text mapping split by mprotect,
# libc's symbols from a distro debug file (libc6-dbg: /usr/lib/debug/.build-id
# and its build-id cache copy), fork+exec, two processes of one PIE, two files
# with one build-id, attach (-p), -B, --buildid-mmap, a sample group with
# PERF_SAMPLE_READ, page-fault data addresses (perf script -F addr), DWARF
# callchains.
#
# Both perf runs get tests/corpus/fixtime.c preloaded: perf seeds random()
# with time(NULL) and perf report prints a random "# (Tip: ...)" line, so a
# fixed time makes stock output reproducible without filtering any line.
# Each case gets a fresh SYMLAZY_CACHE_DIR; its first shim run (perf report)
# builds the symbol indexes, the later ones read them back.
#
# Build products, recordings and outputs: build/corpus/ (HOME=build/corpus/home
# for record and for the analysis runs, so ~/.debug is the test's own).
# Prints PASS:/FAIL:/SKIP:/INFO: lines; exits 1 on any failure.
# Env: SYMLAZY_ROOT (repo root), PERF (perf binary, default perf from PATH),
#      SYMLAZY_SO (shim to test, default build/libsymlazy.so; a copy is used so
#      a rebuild during the run cannot mix two versions),
#      CORPUS_SECS (recording length per program, default 0.3),
#      CORPUS_CASES (space-separated subset of case names, default all),
#      CORPUS_DIR (build products and outputs, default build/corpus; another
#      perf's run, e.g. tests/integration/perf612.sh, uses its own).
set -u
. "$(dirname "$0")/../lib/common.sh"
SRC=$ROOT/tests/corpus
B=${CORPUS_DIR:-$ROOT/build/corpus}
BIN=$B/bin
DATA=$B/data
OUT=$B/out
SECS=${CORPUS_SECS:-0.3}
FREQ=2000
CC=${CC:-cc}
CXX=${CXX:-c++}
CFLAGS="-O2 -g -fno-omit-frame-pointer -I$SRC"
PY=$(command -v python3 || true)


unset_symlazy_env XDG_CACHE_HOME PERF_CONFIG LD_BIND_NOW
command -v "$PERF" >/dev/null 2>&1 || { skip "corpus: perf not installed"; exit 0; }
[ -f "$SO" ] || { fail "corpus: $SO missing (run make)"; exit 1; }
command -v "$CC" >/dev/null 2>&1 || { skip "corpus: no C compiler ($CC)"; exit 0; }

# one run at a time per tree (the runner may be started by several people)
mkdir -p "$ROOT/build" "$(dirname "$B")" || exit 1
if command -v flock >/dev/null 2>&1; then
	exec 9>"$B.lock"
	flock -w 900 9 || { fail "corpus: $B.lock is held by another run"; exit 1; }
fi
rm -rf "$B"
mkdir -p "$BIN" "$DATA" "$OUT" "$B/home" "$B/cache" "$B/lib" || exit 1
cp "$SO" "$B/lib/libsymlazy.so" || exit 1
SO=$B/lib/libsymlazy.so
cd "$ROOT" || exit 1

# ---- build ---------------------------------------------------------------
# build NAME cmd...: run a compiler command, FAIL build/NAME on error
build() {
	_n=$1
	shift
	if ! "$@" >"$B/build-$_n.log" 2>&1; then
		fail "build/$_n: $*"
		sed -n 1,15p "$B/build-$_n.log"
		return 1
	fi
}
build fixtime $CC -O2 -shared -fPIC -o "$B/lib/fixtime.so" "$SRC/fixtime.c" || exit 1
FIXT=$B/lib/fixtime.so
build basic $CC $CFLAGS -o "$BIN/basic" "$SRC/basic.c"
build nopie $CC $CFLAGS -no-pie -DCORPUS_TAG='"nopie"' -o "$BIN/nopie" "$SRC/basic.c"
build shlib $CC $CFLAGS -shared -fPIC -o "$BIN/libcorpus_shlib.so" "$SRC/shlib.c" &&
	build shlib_main $CC $CFLAGS -o "$BIN/shlib_main" "$SRC/shlib_main.c" -L"$BIN" -lcorpus_shlib \
		-Wl,-rpath,'$ORIGIN'
build dl $CC $CFLAGS -shared -fPIC -o "$BIN/libcorpus_dl.so" "$SRC/dl.c"
build dl_main $CC $CFLAGS -o "$BIN/dl_main" "$SRC/dl_main.c" -ldl
# stripped binaries whose symbols come from a separate debug file found via
# .gnu_debuglink: (a) next to the binary, (b) in .debug/ beside it. Own
# CORPUS_TAG so their build-ids are not those of other cases' binaries.
mkdir -p "$B/strip-next" "$B/strip-dotdebug/.debug"
stripped() { # DIR DEBUGFILE TAG
	build "strip-$3" $CC $CFLAGS -DCORPUS_TAG="\"$3\"" -o "$1/stripped" "$SRC/basic.c" &&
		build "strip-$3-debug" objcopy --only-keep-debug "$1/stripped" "$2" &&
		build "strip-$3-strip" objcopy --strip-all "$1/stripped" &&
		build "strip-$3-link" objcopy --add-gnu-debuglink="$2" "$1/stripped"
}
stripped "$B/strip-next" "$B/strip-next/stripped.debug" next
stripped "$B/strip-dotdebug" "$B/strip-dotdebug/.debug/stripped.debug" dotdebug
HAVE_CXX=0
if command -v "$CXX" >/dev/null 2>&1; then
	build cxx $CXX $CFLAGS -o "$BIN/cxx" "$SRC/cxx.cpp" && HAVE_CXX=1
fi
# (compilers run with the caller's HOME: rustup finds its toolchain there)
HAVE_RUST=0
if command -v rustc >/dev/null 2>&1 && rustc --version >/dev/null 2>&1; then
	build rust rustc -C force-frame-pointers=yes -C opt-level=1 -o "$BIN/rust" "$SRC/rust.rs" && HAVE_RUST=1
fi
build zerosize $CC $CFLAGS -o "$BIN/zerosize" "$SRC/zerosize_main.c" "$SRC/zerosize.s"
build overlap $CC $CFLAGS -o "$BIN/overlap" "$SRC/overlap_main.c" "$SRC/overlap.s"
build alias $CC $CFLAGS -rdynamic -o "$BIN/alias" "$SRC/alias.c"
build ifunc $CC $CFLAGS -o "$BIN/ifunc" "$SRC/ifunc.c"
build plt $CC $CFLAGS -fno-builtin -Wl,-z,lazy -o "$BIN/plt" "$SRC/plt.c"
build threads $CC $CFLAGS -pthread -o "$BIN/threads" "$SRC/threads.c"
build forkexec $CC $CFLAGS -o "$BIN/forkexec" "$SRC/forkexec.c"
build split $CC $CFLAGS -o "$BIN/split" "$SRC/split.c"
# a symbol pass perf aborts (a candidate's section index past the section
# count, like librustc_driver's rust_metadata_* in .dynsym): basic with
# corpus_tag patched in .dynsym (-rdynamic) or in .symtab; alias (same-start
# globals of other names in both tables) with its last .dynsym symbol patched
ABORT_CASES=
for _t in dynsym symtab; do
	[ -n "$PY" ] || break
	build "abort-$_t" $CC $CFLAGS -rdynamic -DCORPUS_TAG="\"abort-$_t\"" -o "$BIN/abort-$_t" "$SRC/basic.c" &&
		build "abort-$_t-patch" "$PY" "$SRC/set_shndx.py" "$BIN/abort-$_t" ".$_t" corpus_tag &&
		ABORT_CASES="$ABORT_CASES $_t"
done
[ -n "$PY" ] && build abort-alias $CC $CFLAGS -rdynamic -Wl,--defsym,abort_alias_tag=1 -o "$BIN/abort-alias" "$SRC/alias.c" &&
	build abort-alias-patch "$PY" "$SRC/set_shndx.py" "$BIN/abort-alias" .dynsym @last &&
	ABORT_CASES="$ABORT_CASES alias"
# libc's local symbols (libc6-dbg); -fno-plt: no samples in the program's PLT
build libcdbg $CC $CFLAGS -fno-plt -o "$BIN/libcdbg" "$SRC/libcdbg.c"
info "corpus: built in $(($(date +%s) - t0))s"
# perf record fills ~/.debug and perf script/report read it: one private HOME
export HOME=$B/home

# perf record must work here at all
if ! "$PERF" record -q -F "$FREQ" -o "$DATA/probe.data" -- true >"$OUT/probe.log" 2>&1; then
	sed -n 1,5p "$OUT/probe.log"
	skip "corpus: perf record does not work here (permissions / perf_event_paranoid / container)"
	exit 0
fi
HAVE_OBJDUMP=0
command -v objdump >/dev/null 2>&1 && HAVE_OBJDUMP=1
[ -n "$PY" ] || info "corpus: no python3, stats checks are skipped"


want() { [ -z "${CORPUS_CASES:-}" ] || in_list "$1" "$CORPUS_CASES"; } # CASE: selected (CORPUS_CASES)?

# record CASE "perf record options" cmd...: writes $DATA/CASE.data
record() {
	_c=$1 _o=$2 _f="-F $FREQ"
	shift 2
	case " $_o " in *" -c "*) _f= ;; esac   # a fixed period instead of -F
	# shellcheck disable=SC2086
	if "$PERF" record -q $_f $_o -o "$DATA/$_c.data" -- "$@" >"$OUT/$_c.record.log" 2>&1 &&
		[ -s "$DATA/$_c.data" ]; then
		return 0
	fi
	# stock perf itself crashing while recording (perf 6.12.118 on this
	# kernel, now and then: "assertion failed at util/build-id.c:954" and
	# stack smashing, a build-id longer than BUILD_ID_SIZE copied in
	# build_id__init) is not what the corpus tests: record again, and after
	# three crashes skip the case (its data removed, so nothing reads it)
	_try=1
	while grep -q 'assertion failed\|stack smashing\|Aborted' "$OUT/$_c.record.log" && [ $_try -lt 3 ]; do
		_try=$((_try + 1))
		if "$PERF" record -q $_f $_o -o "$DATA/$_c.data" -- "$@" >"$OUT/$_c.record.log" 2>&1 &&
			[ -s "$DATA/$_c.data" ]; then
			info "$_c/record: stock perf record crashed; recorded again (try $_try)"
			return 0
		fi
	done
	if grep -q 'assertion failed\|stack smashing\|Aborted' "$OUT/$_c.record.log"; then
		rm -f "$DATA/$_c.data"
		skip "$_c: stock perf record crashed 3 times ($(head -1 "$OUT/$_c.record.log")): perf record $_o -- $*"
		return 1
	fi
	fail "$_c/record: perf record $_o -- $*"
	sed -n 1,10p "$OUT/$_c.record.log"
	return 1
}

# compare CASE TOOL perf-args...: stock vs shim, stdout byte for byte
compare() {
	_c=$1 _t=$2
	shift 2
	_o=$OUT/$_c.$_t
	LD_PRELOAD=$FIXT "$PERF" "$@" >"$_o.stock" 2>"$_o.stock.err"
	_rs=$?
	LD_PRELOAD=$SO:$FIXT SYMLAZY_STATS=$_o.json SYMLAZY_CACHE_DIR=$B/cache/$_c \
		"$PERF" "$@" >"$_o.shim" 2>"$_o.shim.err"
	_rl=$?
	if [ ! -s "$_o.stock" ] && [ "$_rs" -ge 128 ] && [ "$_rs" = "$_rl" ] && cmp -s "$_o.stock" "$_o.shim"; then
		# perf's own crash on this recording: nothing to compare
		skip "$_c/$_t: stock perf crashed (exit $_rs) on this recording, and the shim's run the same way: perf $*"
		return 0
	fi
	if [ ! -s "$_o.stock" ]; then
		fail "$_c/$_t: stock perf printed nothing (exit $_rs): perf $*"
		sed -n 1,5p "$_o.stock.err"
		return 1
	fi
	if [ ! -s "$_o.json" ]; then
		fail "$_c/$_t: the shim wrote no stats (not loaded? crashed? exit $_rl)"
		sed -n 1,5p "$_o.shim.err"
		return 1
	fi
	if [ "$_rs" != "$_rl" ]; then
		fail "$_c/$_t: exit status stock $_rs, shim $_rl: perf $*"
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
	_nd=$(diff "$_o.stock" "$_o.shim" | grep -c '^[<>]')
	fail "$_c/$_t: output differs ($_nd diff lines; stock < > shim): perf $*"
	show_diff "$_o.stock" "$_o.shim" 12
	if same_notip "$_o.stock" "$_o.shim"; then
		info "$_c/$_t: only the '# (Tip: ...)' line differs: perf's random() sequence was changed (time is fixed)"
	fi
	return 1
}

# hot_sym FILE PATTERN: first "[.] name" in a stock perf report matching PATTERN
hot_sym() {   # (perf 7.x reports inline frames as "name (inlined)": not a symbol to annotate)
	sed -n 's/^ *[0-9.]*%.*\[\.\] //p' "$1" | sed 's/ *$//' | grep -v ' (inlined)$' | grep -F -- "$2" | head -1
}

# stats CASE EXPECT MAIN...: see tests/corpus/stats_check.py
stats() {
	[ -n "$PY" ] || return 0
	_c=$1
	shift
	"$PY" "$SRC/stats_check.py" "$_c" "$OUT/$_c.script.json" "$@" || failed=1
}

# budget_honest CASE: lazy mode under small budgets prints, line by line,
# what stock prints or an unknown symbol there, never another name (a
# budget that ran out inside a kept group once let perf pick another
# same-start alias, or finish a pass it aborts)
budget_honest() {
	_c=$1 _d=$DATA/$1.data
	[ -s "$_d" ] && [ -s "$OUT/$_c.script.stock" ] || return 0
	# --no-inline on both sides: perf 7.x appends inline frames only to
	# entries with a symbol, so a dropped symbol also drops its inline lines
	LD_PRELOAD=$FIXT "$PERF" script --no-inline -i "$_d" >"$OUT/$_c.noinl.stock" 2>/dev/null
	for _b in 200 600 2K; do
		LD_PRELOAD=$SO:$FIXT SYMLAZY_MAX_BYTES=$_b SYMLAZY_CACHE_DIR=$B/cache/$_c-b$_b \
			"$PERF" script --no-inline -i "$_d" >"$OUT/$_c.b$_b.shim" 2>"$OUT/$_c.b$_b.err"
		_bad=$(diff "$OUT/$_c.noinl.stock" "$OUT/$_c.b$_b.shim" | grep '^>' | grep -vc 'unknown')
		_nl=$(wc -l <"$OUT/$_c.b$_b.shim")
		if [ -s "$OUT/$_c.noinl.stock" ] && [ "$_nl" -eq "$(wc -l <"$OUT/$_c.noinl.stock")" ] && [ "$_bad" = 0 ]; then
			pass "$_c/budget-$_b: every line stock's or unknown ($(diff "$OUT/$_c.noinl.stock" "$OUT/$_c.b$_b.shim" | grep -c '^>') unknown)"
		else
			fail "$_c/budget-$_b: $_bad lines with a name stock does not print there ($_nl lines)"
			diff "$OUT/$_c.script.stock" "$OUT/$_c.b$_b.shim" | grep '^>' | grep -v unknown | head -4
		fi
	done
}
# analyse CASE ANNOTATE_PATTERN EXPECT "MAIN..." [perf script/report options]:
# compares perf report, perf script and (when ANNOTATE_PATTERN is not "-")
# perf annotate of the first reported symbol matching it (?PATTERN: SKIP
# instead of FAIL when no symbol matches); checks the stats
analyse() {
	_case=$1 _pat=$2 _exp=$3 _mains=$4 _extra=${5:-}
	_d=$DATA/$_case.data
	# shellcheck disable=SC2086
	compare "$_case" report report --stdio $_extra -i "$_d"
	# shellcheck disable=SC2086
	compare "$_case" script script $_extra -i "$_d"
	if [ "$_pat" = - ]; then
		:
	elif [ "$HAVE_OBJDUMP" = 1 ]; then
		_sym=$(hot_sym "$OUT/$_case.report.stock" "${_pat#\?}")
		if [ -z "$_sym" ] && [ "${_pat#\?}" != "$_pat" ]; then
			skip "$_case/annotate: no sample in a symbol matching '${_pat#\?}' this time (stock perf report)"
		elif [ -z "$_sym" ]; then
			fail "$_case/annotate: no symbol matching '$_pat' in the stock perf report"
		else
			compare "$_case" annotate annotate --stdio -i "$_d" -- "$_sym"
		fi
	else
		skip "$_case/annotate: objdump not installed"
	fi
	# shellcheck disable=SC2086
	stats "$_case" "$_exp" $_mains
}

# run_case CASE "record options" ANNOTATE_PATTERN EXPECT "MAIN..." cmd...
# records cmd, then analyse
run_case() {
	_case=$1 _ropt=$2 _pat=$3 _exp=$4 _mains=$5
	shift 5
	want "$_case" || return 0
	record "$_case" "$_ropt" "$@" || return 0
	_x=
	case $_ropt in *dwarf*) _x=--no-inline ;; esac
	analyse "$_case" "$_pat" "$_exp" "$_mains" "$_x"
}

# ---- cases ---------------------------------------------------------------
BASIC=$(bid "$BIN/basic")
# C, PIE, without and with frame-pointer callchains
run_case c-pie-nocg "" leaf_mul lazy "$BASIC" "$BIN/basic" "$SECS"
run_case c-pie-fp "-g" leaf_xorshift lazy "$BASIC" "$BIN/basic" "$SECS"
if want c-pie-fp && [ -s "$DATA/c-pie-fp.data" ]; then
	compare c-pie-fp report-no-children report --stdio --no-children -i "$DATA/c-pie-fp.data"
	# the default input ./perf.data (no -i)
	mkdir -p "$DATA/cwd" && cp "$DATA/c-pie-fp.data" "$DATA/cwd/perf.data" &&
		{ (cd "$DATA/cwd" && compare c-pie-fp script-default-input script) || failed=1; }
	# the same data with lazy mode switched off
	LD_PRELOAD=$SO:$FIXT SYMLAZY_LAZY=off SYMLAZY_STATS=$OUT/c-pie-fp.off.json \
		"$PERF" script -i "$DATA/c-pie-fp.data" >"$OUT/c-pie-fp.off.shim" 2>"$OUT/c-pie-fp.off.err"
	if cmp -s "$OUT/c-pie-fp.script.stock" "$OUT/c-pie-fp.off.shim" &&
		grep -q '"lazy":"off"' "$OUT/c-pie-fp.off.json"; then
		pass "c-pie-fp/script-lazy-off (identical, stats lazy off)"
	else
		fail "c-pie-fp/script-lazy-off: SYMLAZY_LAZY=off output differs or stats not lazy off"
		show_diff "$OUT/c-pie-fp.script.stock" "$OUT/c-pie-fp.off.shim" 8
	fi
fi
run_case c-nopie-fp "-g" leaf_mul lazy "$(bid "$BIN/nopie")" "$BIN/nopie" "$SECS"
run_case shlib "-g" shl_hot_mix lazy "$(bid "$BIN/libcorpus_shlib.so")" "$BIN/shlib_main" "$SECS"
run_case dlopen "-g" dl_hot_a lazy "$(bid "$BIN/libcorpus_dl.so")" "$BIN/dl_main" "$SECS"
# dlopen, dlclose, a filler library takes the range, dlopen again elsewhere
run_case dlopen-reload "-g" dl_hot_a lazy "$(bid "$BIN/libcorpus_dl.so")" "$BIN/dl_main" "$SECS" reload
if want dlopen-reload && [ -s "$DATA/dlopen-reload.data" ]; then
	n=$("$PERF" script --show-mmap-events -i "$DATA/dlopen-reload.data" 2>/dev/null |
		grep 'PERF_RECORD_MMAP2' | grep -c "r-xp $BIN/libcorpus_dl.so\$")
	info "dlopen-reload: libcorpus_dl.so mapped $n times"
fi
# --no-buildid-cache: ~/.debug gets no copy of the stripped binary, so perf
# must find the symbols through .gnu_debuglink (checked via the stats path)
run_case stripped-next "-g --no-buildid-cache" leaf_mul lazy \
	"$(bid "$B/strip-next/stripped")=$B/strip-next/stripped.debug" "$B/strip-next/stripped" "$SECS"
run_case stripped-dotdebug "-g --no-buildid-cache" leaf_mul lazy \
	"$(bid "$B/strip-dotdebug/stripped")=$B/strip-dotdebug/.debug/stripped.debug" \
	"$B/strip-dotdebug/stripped" "$SECS"
# libc's symbols from the distro debug file (Debian libc6-dbg): perf reads
# libc's .symtab from /usr/lib/debug/.build-id/xx/rest.debug (recorded with
# --no-buildid-cache), or from perf record's copy of it in the build-id cache
# (~/.debug/<libc path>/<build-id>/debug). Output identical to stock; stock
# names libc frames with names that only the debug file's .symtab has
# (msort_with_tmp.part.0, __memmove_avx_unaligned_erms, ...); the stats show
# libc's .symtab scan from that exact file in mode lazy (0 < passed <
# scanned/2). Without libc6-dbg: SKIP.
LIBC=$(ldd "$BIN/libcdbg" 2>/dev/null | awk '$1 == "libc.so.6" { print $3 }')
[ -n "$LIBC" ] && LIBC=$(readlink -f "$LIBC")
LIBC_BID=$([ -n "$LIBC" ] && bid "$LIBC")
LIBC_DBG=/usr/lib/debug/.build-id/$(echo "$LIBC_BID" | cut -c1-2)/$(echo "$LIBC_BID" | cut -c3-).debug
# libc_names CASE DEBUGFILE: stock perf script names libc frames from the
# debug file's .symtab (a name in it and not in libc's .dynsym)
libc_names() {
	[ -n "$PY" ] || return 0
	"$PY" - "$1" "$OUT/$1.script.stock" "$LIBC" "$2" <<'PY' || failed=1
import re, subprocess, sys
case, out, libc, dbg = sys.argv[1:5]
def nm(*a):
    r = subprocess.run(["nm", "--defined-only"] + list(a), capture_output=True, text=True)
    return {l.split()[-1] for l in r.stdout.splitlines() if len(l.split()) == 3}
dyn, full = nm("-D", libc), nm(dbg)
rx = re.compile(r"^\s*[0-9a-f]+ (\S+?)\+0x[0-9a-f]+ \(" + re.escape(libc) + r"\)$")
frames = [m.group(1) for m in map(rx.match, open(out, errors="replace")) if m]
names = set(frames)
only = sorted(n for n in names if n in full and n not in dyn)
unk = sum(1 for l in open(out, errors="replace") if l.rstrip().endswith("[unknown] (%s)" % libc))
if only and len(full) > len(dyn):
    print("PASS: %s/libc-names: %d libc frames by name (%d [unknown]), %d names; only in %s's .symtab (%d symbols, .dynsym %d): %s"
          % (case, len(frames), unk, len(names), dbg, len(full), len(dyn), ", ".join(only[:4])))
    sys.exit(0)
print("FAIL: %s/libc-names: no libc frame named from the debug file's .symtab (%d frames, names %s; %s: %d symbols, .dynsym %d)"
      % (case, len(frames), sorted(names)[:5], dbg, len(full), len(dyn)))
sys.exit(1)
PY
}
if ! want libc-debug && ! want libc-debug-cache; then
	:
elif [ -z "$LIBC_BID" ]; then
	fail "libc-debug: no build-id for libc (ldd $BIN/libcdbg: '${LIBC:-libc not found}')"
elif [ ! -f "$LIBC_DBG" ]; then
	skip "libc-debug: $LIBC_DBG absent (libc6-dbg not installed): libc's symbols come from its .dynsym"
else
	# each with its own HOME: whether perf reads the build-id cache's copy
	# must not depend on what earlier cases put into ~/.debug
	LIBCDBG_BID=$(bid "$BIN/libcdbg")
	_home=$HOME
	export HOME=$B/home-libc-debug
	mkdir -p "$HOME"
	run_case libc-debug "-g --no-buildid-cache" msort_with_tmp lazy \
		"$LIBCDBG_BID $LIBC_BID=$LIBC_DBG" "$BIN/libcdbg" "$SECS"
	want libc-debug && [ -s "$OUT/libc-debug.script.stock" ] && libc_names libc-debug "$LIBC_DBG"
	if want libc-debug && [ -d "$HOME/.debug" ] && [ -n "$(ls -A "$HOME/.debug")" ]; then
		fail "libc-debug/no-cache: perf record --no-buildid-cache wrote $HOME/.debug: $(ls -A "$HOME/.debug" | head -3 | tr '\n' ' ')"
	fi
	export HOME=$B/home-libc-debug-cache
	mkdir -p "$HOME"
	LIBC_CACHED=$HOME/.debug$LIBC/$LIBC_BID/debug
	run_case libc-debug-cache "-g" msort_with_tmp lazy \
		"$LIBCDBG_BID $LIBC_BID=$LIBC_CACHED" "$BIN/libcdbg" "$SECS"
	if want libc-debug-cache && [ -s "$OUT/libc-debug-cache.script.stock" ]; then
		if cmp -s "$LIBC_CACHED" "$LIBC_DBG"; then
			pass "libc-debug-cache/copy: perf record put $LIBC_DBG into the build-id cache ($LIBC_CACHED, $(stat -c %s "$LIBC_CACHED") bytes, identical)"
		else
			fail "libc-debug-cache/copy: $LIBC_CACHED is not a copy of $LIBC_DBG ($(ls -l "$LIBC_CACHED" 2>&1))"
		fi
		libc_names libc-debug-cache "$LIBC_CACHED"
		budget_honest libc-debug-cache  # libc's same-start aliases
	fi
	export HOME=$_home
fi
if [ "$HAVE_CXX" = 1 ]; then
	run_case cxx "-g" "Mixer<unsigned long, 7>::churn" lazy "$(bid "$BIN/cxx")" "$BIN/cxx" "$SECS"
	if want cxx && [ -s "$DATA/cxx.data" ]; then
		compare cxx report-no-demangle report --stdio --no-demangle -i "$DATA/cxx.data"
		compare cxx script-no-demangle script --no-demangle -i "$DATA/cxx.data"
		_sym=$(hot_sym "$OUT/cxx.report-no-demangle.stock" "MixerImLi7EE5churn")
		if [ -n "$_sym" ] && [ "$HAVE_OBJDUMP" = 1 ]; then
			compare cxx annotate-no-demangle annotate --stdio --no-demangle -i "$DATA/cxx.data" -- "$_sym"
		elif [ "$HAVE_OBJDUMP" = 1 ]; then
			fail "cxx/annotate-no-demangle: no mangled Mixer<unsigned long, 7>::churn in the stock report"
		fi
		# -v: perf demangles with parameters (DMGL_PARAMS), other names
		compare cxx script-verbose script -v -i "$DATA/cxx.data"
	fi
else
	skip "cxx: no C++ compiler ($CXX)"
fi
if [ "$HAVE_RUST" = 1 ]; then
	run_case rust "-g" "Mixer<u64>::churn" lazy "$(bid "$BIN/rust")" "$BIN/rust" "$SECS"
else
	skip "rust: rustc not installed or not usable (no toolchain)"
fi
run_case zerosize "-g" zs_untyped_hot lazy "$(bid "$BIN/zerosize")" "$BIN/zerosize" "$SECS"
run_case overlap "-g" ov_outer "lazy|fallback" "$(bid "$BIN/overlap")" "$BIN/overlap" "$SECS"
run_case alias "-g" aw_ lazy "$(bid "$BIN/alias")" "$BIN/alias" "$SECS"
run_case ifunc "-g" if_impl_fast "lazy|fallback" "$(bid "$BIN/ifunc")" "$BIN/ifunc" "$SECS"
# perf inserts the symbols before the bad one, no fixups for that pass, no
# PLT symbols, the first lookup in the DSO fails (map__load() = -1); lazy
# mode keeps the bad symbol visible so perf stops at it again
for _t in $ABORT_CASES; do
	_p="?leaf_"
	[ "$_t" = alias ] && _p="?aw_"
	run_case "abort-$_t" "-g" "$_p" lazy "$(bid "$BIN/abort-$_t")" "$BIN/abort-$_t" "$SECS"
done
[ -n "$PY" ] || skip "abort-*: no python3 to patch the section index"

for _t in $ABORT_CASES; do
	want "abort-$_t" || continue
	budget_honest "abort-$_t"
	# the index header's abort fields are under the checksum: a flipped
	# abort_pass (byte 52) is a rebuilt index, not another replayed load
	for _f in "$B/cache/abort-$_t"/*.idx; do
		[ -f "$_f" ] || continue
		"$PY" -c 'import sys; p=sys.argv[1]; d=bytearray(open(p,"rb").read()); d[52]^=3; open(p,"wb").write(d)' "$_f"
	done
	compare "abort-$_t" script-flipped-header script -i "$DATA/abort-$_t.data"
done
# (plt_loop gets few samples - the time goes to ld.so's lazy-binding resolver
# and strlen, whose frames hide it from the callchain - and on a loaded
# machine sometimes none: then its annotation is skipped)
run_case plt "-g" "?plt_loop" "lazy|fallback" "$(bid "$BIN/plt")" "$BIN/plt" "$SECS"
if want plt && [ -s "$OUT/plt.script.stock" ]; then
	n=$(grep -c -E "(@plt|_init)\\+0x[0-9a-f]+ \\($BIN/plt\\)" "$OUT/plt.script.stock")
	if [ "$n" -gt 0 ]; then
		info "plt: $n perf script lines resolve into the PLT of plt"
	else
		skip "plt/plt-samples: no sample landed in a PLT stub this time"
	fi
fi
# threads; recorded compressed (-z: PERF_RECORD_COMPRESSED, zstd)
run_case threads "-g -z" th_mul lazy "$(bid "$BIN/threads")" "$BIN/threads" "$SECS"
run_case split "-g" sp_hot_a lazy "$(bid "$BIN/split")" "$BIN/split" "$SECS"
if [ "$HAVE_CXX" = 1 ]; then
	run_case forkexec "-g" fe_parent_spin lazy "$(bid "$BIN/forkexec") $BASIC $(bid "$BIN/cxx")" \
		"$BIN/forkexec" "$SECS"
else
	skip "forkexec: needs the cxx binary"
fi
# two processes of one PIE binary, started together: with ASLR each maps it
# at its own address
run_case twoproc "-g" leaf_mul lazy "$BASIC" sh -c "'$BIN/basic' $SECS & '$BIN/basic' $SECS; wait"
if want twoproc && [ -s "$DATA/twoproc.data" ]; then
	n=$("$PERF" script --show-mmap-events -i "$DATA/twoproc.data" 2>/dev/null |
		grep 'PERF_RECORD_MMAP2' | grep "r-xp $BIN/basic\$" | sed 's/.*: \[\(0x[0-9a-f]*\).*/\1/' |
		sort -u | wc -l)
	if [ "$n" -ge 2 ]; then
		info "twoproc: basic mapped at $n different addresses"
	else
		skip "twoproc/aslr: both processes mapped basic at one address (ASLR off? randomize_va_space=$(cat /proc/sys/kernel/randomize_va_space 2>/dev/null))"
	fi
fi
# two files with one build-id (a copy of basic) running different leaves
mkdir -p "$B/copy" && cp "$BIN/basic" "$B/copy/basic"
run_case samebid "-g" leaf_xorshift lazy "$BASIC" \
	sh -c "'$BIN/basic' $SECS mul & '$B/copy/basic' $SECS xor; wait"
# perf.data variants (the shim pre-reads perf.data itself): attached to a
# running process (synthesized maps), no build-id table (-B), build-ids in
# MMAP2 records, a sample group with PERF_SAMPLE_READ, data addresses of
# page faults resolved by perf script -F addr
if want attach; then
	# the target outlives the recording even on a loaded machine (it ran
	# 1.5 s before, and ended before perf attached under load), then is
	# stopped
	"$BIN/basic" 20 &
	apid=$!
	sleep 0.3
	record attach "-g -p $apid" sleep "$SECS" && analyse attach - lazy "$BASIC"
	kill "$apid" 2>/dev/null
	wait "$apid" 2>/dev/null
fi
run_case no-buildid "-g -B" - lazy "$BASIC" "$BIN/basic" "$SECS"
run_case buildid-mmap "-g --buildid-mmap" - lazy "$BASIC" "$BIN/basic" "$SECS"
run_case group-read "-g -e {cpu-clock,page-faults}:S" - lazy "$BASIC" "$BIN/basic" "$SECS"
if want pf-addr && record pf-addr "-g -e page-faults -c 1 -d" "$BIN/basic" "$SECS"; then
	compare pf-addr script-addr script -F comm,tid,ip,sym,symoff,dso,addr -i "$DATA/pf-addr.data"
	cp "$OUT/pf-addr.script-addr.json" "$OUT/pf-addr.script.json" 2>/dev/null
	compare pf-addr report report --stdio -i "$DATA/pf-addr.data"
	n=$(grep -c '[0-9a-f] [A-Za-z_][A-Za-z0-9_.]*+0x[0-9a-f]* (' "$OUT/pf-addr.script-addr.stock")
	info "pf-addr: $n lines with a resolved data or code address"
	stats pf-addr lazy "$BASIC"
fi
# DWARF callchains: lazy mode stays on (perfdata/unwind.c), output identical
# (more DWARF cases: tests/integration/dwarf.sh)
run_case dwarf "--call-graph dwarf,4096" leaf_mul lazy "$BASIC" "$BIN/basic" "$SECS"

info "corpus: total $(($(date +%s) - t0))s"
exit $failed
