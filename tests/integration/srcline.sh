#!/bin/sh
# srcline.sh - inline frames and source lines through perf's addr2line child
# (issue 20; core/a2lsess.h, srcline/a2l.h). perf 6.1 forks
# `addr2line -e DSO -i -f` for every DSO it resolves inline frames or source
# lines of; perf 6.12 `addr2line -e DSO -a -i -f`, only for a DSO with
# .debug_line. Under the shim, a child whose DSO carries no debug
# information (nor a debug file binutils would find) is served in-process
# from the symbol table, one with its own DWARF from the DWARF table
# (srcline/a2l_dwarf.h); any other runs the real addr2line.
# Programs (tests/corpus/cxx.cpp, C++ with libstdc++, built without frame
# pointers): "nodbg" without -g (served), and with debug information (the
# real addr2line): "dbg" (-g, DWARF 5), "debuglink" (stripped, a
# .gnu_debuglink file beside it: binutils follows the link), "dwarf4",
# "zlib" and "zstd" (compressed .debug_* sections), "split" (-gsplit-dwarf),
# "rust" (tests/corpus/rust.rs, -C debuginfo=2). Each recorded with --call-graph
# dwarf by the perf under test (perf 6.1 = this host's perf; 6.12 from
# scripts/build-perf612.sh, cached; SKIP when it cannot be built).
# Checks per perf version and program, stock vs LD_PRELOAD=build/libsymlazy.so:
#   <v>/<prog>/<tool>   stdout byte-identical (perf report's random
#                       "# (Tip: ...)" line removed) for perf script (inline
#                       frames, its default), perf script -F +srcline, perf
#                       report --stdio --inline -g, perf report --stdio
#                       --sort srcline, perf annotate --stdio (6.1: nodbg, dbg);
#   <v>/<prog>/children the stats' "a2l" object (SYMLAZY_STATS) of perf
#                       script: the program's DSO served (nodbg; dbg, dwarf4,
#                       zlib, zstd, rust from DWARF without a hand-over) or
#                       run by addr2line with reason a2l_debug_info
#                       (debuglink) or a2l_dwarf (split);
#                       6.12 starts no child for a DSO without .debug_line.
# And, perf 6.1:
#   off       SYMLAZY_A2L=off: every child is the real addr2line, identical;
#   budget    SYMLAZY_MAX_BYTES=1G on "dbg": addr2line is not run for the DSO
#             whose DWARF it would read: perf script prints the program's
#             frames (and every sample header) as stock perf script
#             --no-inline does, byte for byte, and one stderr line says why;
#   cache     a corrupt cached table (.a2l files overwritten with junk) is
#             rebuilt: identical again, no crash.
# Outputs stay in build/srcline/. Prints PASS:/FAIL:/SKIP:/INFO: lines.
# Env: SYMLAZY_ROOT, SYMLAZY_SO, PERF, PERF612.
set -u
. "$(dirname "$0")/../lib/common.sh"
TEST_PREFIX=srcline/
PY=$(command -v python3 || true)
B=$ROOT/build/srcline

unset_symlazy_env SYMLAZY_A2L PERF_CONFIG LD_BIND_NOW
command -v "$PERF" >/dev/null 2>&1 || { skip "perf not installed"; exit 0; }
command -v addr2line >/dev/null 2>&1 || { skip "binutils' addr2line not installed"; exit 0; }
command -v c++ >/dev/null 2>&1 || { skip "no C++ compiler"; exit 0; }
[ -n "$PY" ] || { skip "python3 missing"; exit 0; }
[ -f "$SO" ] || { fail "setup: $SO missing (run make)"; exit 1; }
PERFS="6.1:$(command -v "$PERF")"
if [ -z "${PERF612:-}" ]; then
	PERF612=$(sh "$ROOT/scripts/build-perf612.sh" 2>"$ROOT/build/srcline-612.err") || PERF612=
fi
if [ -n "$PERF612" ] && [ -x "$PERF612" ]; then
	PERFS="$PERFS 6.12:$PERF612"
else
	skip "6.12: $(sed -n 's/^SKIP: //p' "$ROOT/build/srcline-612.err" | tail -1)"
fi
rm -rf "$B"
mkdir -p "$B/bin" "$B/home" "$B/xdg" || exit 1
# rustup's rustc finds its toolchain through $HOME: keep it for rustc
[ -d "$HOME/.rustup" ] && export RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"
export HOME=$B/home XDG_CACHE_HOME=$B/xdg
# perf 6.12 waits 1 s per answer of its addr2line child (util/srcline.c
# addr2line_timeout_ms), then prints the frame without its inline frames: on a
# loaded machine stock then differs from itself. Both sides get 10 minutes
# (6.12's core.addr2line-timeout; perf 6.1 has no timeout and ignores the key).
printf '[core]\n\taddr2line-timeout = 600000\n' >"$HOME/.perfconfig"

# ---- programs --------------------------------------------------------------
CXXF="-O2 -fomit-frame-pointer -I$ROOT/tests/corpus"
CXXS=$ROOT/tests/corpus/cxx.cpp
c++ $CXXF -o "$B/bin/nodbg" "$CXXS" 2>"$B/build.log" &&
	c++ $CXXF -g -o "$B/bin/dbg" "$CXXS" 2>>"$B/build.log" &&
	c++ $CXXF -g -o "$B/bin/debuglink" "$CXXS" 2>>"$B/build.log" &&
	objcopy --only-keep-debug "$B/bin/debuglink" "$B/bin/debuglink.debug" &&
	strip --strip-debug "$B/bin/debuglink" &&
	(cd "$B/bin" && objcopy --add-gnu-debuglink=debuglink.debug debuglink) &&
	c++ $CXXF -g -gdwarf-4 -o "$B/bin/dwarf4" "$CXXS" 2>>"$B/build.log" &&
	c++ $CXXF -g -gz=zlib -o "$B/bin/zlib" "$CXXS" 2>>"$B/build.log" &&
	c++ $CXXF -g -o "$B/bin/zstd" "$CXXS" 2>>"$B/build.log" &&
	objcopy --compress-debug-sections=zstd "$B/bin/zstd" &&
	(cd "$B/bin" && c++ $CXXF -g -gsplit-dwarf -o split "$CXXS" 2>>"$B/build.log") ||
	{ fail "setup: build: $(tail -3 "$B/build.log")"; exit 1; }
# nodbg: no debug information (served by perf 6.1's child); dbg: DWARF 5;
# debuglink: stripped, debug file beside it; dwarf4; zlib/zstd: compressed
# .debug_* (SHF_COMPRESSED); split: -gsplit-dwarf (.dwo files beside it);
# multi: two units sharing a COMDAT template;
# rust: rustc -C debuginfo=2
# multi: two units sharing a COMDAT template (its range claimed by both
# units: bfd's trie asks the first unit read, the owner; srcline/a2l_dwarf.h)
cat >"$B/multi.h" <<'C'
#include <chrono>
template <class T> __attribute__((noinline)) T churn(T y)
{
	for (int i = 0; i < 1000; i++)
		y = (y ^ (y >> 9)) * (T)0x9e3779b97f4a7c15ull;
	return y;
}
unsigned long two(unsigned long);
C
printf '#include "multi.h"\nunsigned long two(unsigned long x) { return churn(x + 1); }\n' >"$B/multi2.cpp"
cat >"$B/multi1.cpp" <<'C'
#include <cstdlib>
#include "multi.h"
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.2;
	auto t0 = std::chrono::steady_clock::now();
	unsigned long x = 1;
	while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < secs)
		x = two(churn(x));
	return x == 42 ? 1 : 0;     /* perf record exits with the program's status */
}
C
c++ $CXXF -g -o "$B/bin/multi" "$B/multi1.cpp" "$B/multi2.cpp" 2>>"$B/build.log" ||
	{ fail "setup: build multi: $(tail -3 "$B/build.log")"; exit 1; }
PROGS="nodbg dbg debuglink dwarf4 zlib zstd split multi"
if command -v rustc >/dev/null 2>&1 && rustc --version >/dev/null 2>&1 &&
	rustc -C opt-level=1 -C debuginfo=2 -C link-arg=-Wl,--build-id -o "$B/bin/rust" \
		"$ROOT/tests/corpus/rust.rs" 2>>"$B/build.log"; then
	PROGS="$PROGS rust"
else
	skip "rust: rustc not available"
fi

# a2l VERDICT-FILE PROG: "<mode of PROG's DSO>[:<reason_code>] served=N addr2line=M noinfo=K"
# (perf names the DSO by its build-id cache path or its debug file: matched by
# PROG's build-id or path); the mode carries ":dwarf" when served from the
# DWARF table and ":handed_over" when that child handed over to binutils
a2l() {
	"$PY" - "$1" "$(bid "$B/bin/$2")" "$B/bin/$2" <<'PY'
import json, os, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("stats-unreadable"); sys.exit(0)
a = d.get("a2l")
if not a:
    print("none served=0 addr2line=0 noinfo=0"); sys.exit(0)
bid = sys.argv[2]
m = [x for x in a["dsos"] if (bid and "/%s/%s" % (bid[:2], bid[2:]) in x["path"]) or
     x["path"] in (sys.argv[3], sys.argv[3] + ".debug")]
mode = ",".join(sorted(set(x["mode"] + (":dwarf" if x.get("dwarf") else "") +
                           (":handed_over" if x.get("handed_over") else "") +
                           (":" + x["reason_code"] if "reason_code" in x else "") for x in m))) or "none"
print("%s served=%d addr2line=%d noinfo=%d" % (mode, a["served"], a["addr2line"], a["noinfo"]))
PY
}

# same V PROG NAME perf-args: stock vs shim stdout
same() {
	_v=$1 _p=$2 _n=$3
	shift 3
	_o=$B/out/$_v/$_p.$_n
	"$P" "$@" >"$_o.stock" 2>"$_o.stock.err"
	_rs=$?
	SYMLAZY_STATS=$_o.json LD_PRELOAD=$SO "$P" "$@" >"$_o.shim" 2>"$_o.shim.err"
	_rh=$?
	notip "$_o.stock" >"$_o.stock.cmp"
	notip "$_o.shim" >"$_o.shim.cmp"
	if [ ! -s "$_o.stock.cmp" ]; then
		fail "$_v/$_p/$_n: stock perf printed nothing: $(head -2 "$_o.stock.err")"
	elif [ "$_rs" != "$_rh" ]; then
		fail "$_v/$_p/$_n: exit status stock $_rs, shim $_rh: $(head -2 "$_o.shim.err")"
	elif [ "$1" = report ] && ! cmp -s "$_o.stock.cmp" "$_o.shim.cmp" &&
		_why=$("$PY" "$ROOT/tests/report_same.py" "$_o.stock.cmp" "$_o.shim.cmp"); then
		# stock's own order of equal-weight siblings (by struct dso heap
		# addresses: tests/report_same.py), nothing else
		pass "$_v/$_p/$_n: $(wc -l <"$_o.stock.cmp") lines, $_why; $(a2l "$_o.json" "$_p")"
	elif ! cmp -s "$_o.stock.cmp" "$_o.shim.cmp"; then
		fail "$_v/$_p/$_n: output differs ($(a2l "$_o.json" "$_p"))"
		show_diff "$_o.stock.cmp" "$_o.shim.cmp" 6
	else
		pass "$_v/$_p/$_n: $(wc -l <"$_o.stock.cmp") lines identical; $(a2l "$_o.json" "$_p")"
	fi
}

for pv in $PERFS; do
	V=${pv%%:*} P=${pv#*:}
	mkdir -p "$B/out/$V" "$B/data/$V"
	for p in $PROGS; do
		D=$B/data/$V/$p.data
		if ! "$P" record -q --call-graph dwarf -F 999 -o "$D" -- "$B/bin/$p" 0.2 >/dev/null 2>"$D.err"; then
			fail "$V/$p/record: $(head -2 "$D.err")"
			continue
		fi
		same "$V" "$p" script script -i "$D"
		same "$V" "$p" srcline script -F +srcline -i "$D"
		same "$V" "$p" report-inline report --stdio --inline -g -i "$D"
		same "$V" "$p" sort-srcline report --stdio --sort srcline -i "$D"
		# perf annotate --stdio: 6.1 only (the perf 6.12.118 built here
		# segfaults on these recordings, stock as well, after printing an
		# amount of stdout that depends on its heap layout)
		case $V/$p in 6.1/nodbg | 6.1/dbg) same "$V" "$p" annotate annotate --stdio -i "$D" ;; esac
		st=$(a2l "$B/out/$V/$p.script.json" "$p")
		case $V/$p in
		6.1/nodbg) want="served" ;;
		*/nodbg) want="none" ;;    # 6.12: no .debug_line in the DSO perf names: no child
		# the program's own DWARF: served in-process from the DWARF
		# table, no hand-over to binutils (srcline/a2l_dwarf.h)
		# (debuglink: perf names the .debug file, which has the DWARF)
		*/dbg | */debuglink | */dwarf4 | */zlib | */zstd | */rust) want="served:dwarf" ;;
		*/split) want="addr2line:a2l_dwarf" ;;     # skeleton units: not mirrored
		# churn<unsigned long>: the first unit (its owner) answers
		*/multi) want="served:dwarf" ;;
		*) want="addr2line:a2l_debug_info" ;;
		esac
		case $st in
		"$want "*) pass "$V/$p/children: $st" ;;
		*) fail "$V/$p/children: $st (want $want for $p)" ;;
		esac
	done
done

# ---- perf 6.1 only: off, budget, corrupt cache -------------------------------
P=$(command -v "$PERF")
D=$B/data/6.1/nodbg.data
if [ -f "$D" ]; then
	O=$B/out/6.1/nodbg
	SYMLAZY_A2L=off SYMLAZY_STATS=$O.off.json LD_PRELOAD=$SO "$P" script -i "$D" >"$O.off.shim" 2>/dev/null
	st=$(a2l "$O.off.json" nodbg)
	if cmp -s "$O.script.stock" "$O.off.shim" && case $st in "addr2line:a2l_off served=0 "*) true ;; *) false ;; esac; then
		pass "6.1/off: identical, every child the real addr2line ($st)"
	else
		fail "6.1/off: $st; $(cmp "$O.script.stock" "$O.off.shim" 2>&1 | head -1)"
	fi
	# corrupt every cached table: rebuilt, identical
	n=0
	for f in $(find "$B/xdg" -name '*.a2l' 2>/dev/null); do
		printf 'not a table' >"$f"
		n=$((n + 1))
	done
	SYMLAZY_STATS=$O.corrupt.json LD_PRELOAD=$SO "$P" script -i "$D" >"$O.corrupt.shim" 2>"$O.corrupt.err"
	st=$(a2l "$O.corrupt.json" nodbg)
	if [ "$n" -gt 0 ] && cmp -s "$O.script.stock" "$O.corrupt.shim" && case $st in "served "*) true ;; *) false ;; esac; then
		pass "6.1/cache: $n corrupt .a2l files rebuilt; identical ($st)"
	else
		fail "6.1/cache: $n .a2l files corrupted; $st; $(cmp "$O.script.stock" "$O.corrupt.shim" 2>&1 | head -1)"
	fi
fi
D=$B/data/6.1/dbg.data
if [ -f "$D" ]; then
	O=$B/out/6.1/dbg
	"$P" script --no-inline -i "$D" >"$O.noinline.stock" 2>/dev/null
	SYMLAZY_MAX_BYTES=1G SYMLAZY_STATS=$O.budget.json LD_PRELOAD=$SO "$P" script -i "$D" \
		>"$O.budget.shim" 2>"$O.budget.err"
	st=$(a2l "$O.budget.json" dbg)
	nl=$(grep -c 'SYMLAZY_MAX_BYTES: addr2line was not run' "$O.budget.err")
	# the program's own frames (and the sample headers) as stock --no-inline
	# prints them; frames of DSOs without debug information (libc, libm
	# without libc6-dbg) are served and may show binutils' symbol-table
	# names as inline frames, as stock perf script does
	for f in noinline.stock budget.shim; do
		awk -v d="($B/bin/dbg)" '/^\t/ ? index($0, d) : 1' "$O.$f" >"$O.$f.own"
	done
	if [ "$(wc -l <"$O.noinline.stock.own")" -gt 100 ] && cmp -s "$O.noinline.stock.own" "$O.budget.shim.own" &&
		[ "$nl" = 1 ] && case $st in "noinfo:a2l_budget "*) true ;; *) false ;; esac; then
		pass "6.1/budget: the program's frames as stock --no-inline ($(wc -l <"$O.budget.shim.own") lines), one stderr line ($st)"
	else
		fail "6.1/budget: $st; stderr lines $nl; $(cmp "$O.noinline.stock.own" "$O.budget.shim.own" 2>&1 | head -1)"
		show_diff "$O.noinline.stock.own" "$O.budget.shim.own" 4
	fi
fi
# stale table: a library without debug information rewritten in place with
# its size and mtime restored (same inode, other symbol names): the cached
# .a2l table must not answer for the new file (its key has st_ctim)
D=$B/stale
mkdir -p "$D"
"$PY" - "$D/lib.c" "$D/main.c" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(300):
        f.write("__attribute__((noinline)) unsigned long fn_%d(unsigned long x) { for (int k = 0; k < 20000; k++) x = x * 6364136223846793005ul + %d; return x; }\n" % (i, i))
with open(sys.argv[2], "w") as f:
    f.write("#include <stdio.h>\n")
    for i in range(300):
        f.write("unsigned long fn_%d(unsigned long);\n" % i)
    f.write("int main(void) { unsigned long x = 1; for (int r = 0; r < 40; r++) {\n")
    for i in range(300):
        f.write("x = fn_%d(x);\n" % i)
    f.write("} printf(\"%lu\\n\", x); return 0; }\n")
PY
if cc -O2 -fPIC -shared -o "$D/libhot.so" "$D/lib.c" && cc -O2 -o "$D/main" "$D/main.c" -L"$D" -lhot \
	-Wl,-rpath,"$D" && "$P" record -q -N --call-graph dwarf -o "$D/p.data" -- "$D/main" >/dev/null 2>&1; then
	touch -d '2026-01-01 00:00:00' "$D/libhot.so"
	LD_PRELOAD=$SO "$P" script -i "$D/p.data" >/dev/null 2>&1       # builds and caches the table
	"$PY" -c "import sys; b = open(sys.argv[1], 'rb').read(); open(sys.argv[2], 'wb').write(b.replace(b'fn_1', b'fq_1'))" \
		"$D/libhot.so" "$D/libhot.new"
	cat "$D/libhot.new" >"$D/libhot.so"
	touch -d '2026-01-01 00:00:00' "$D/libhot.so"
	"$P" script -i "$D/p.data" >"$D/stock" 2>/dev/null
	SYMLAZY_STATS=$D/s.json LD_PRELOAD=$SO "$P" script -i "$D/p.data" >"$D/shim" 2>/dev/null
	if ! grep -q 'fq_1' "$D/stock"; then
		fail "6.1/stale: stock perf shows no renamed symbol (fq_1*): not the case under test"
	elif cmp -s "$D/stock" "$D/shim"; then
		pass "6.1/stale: a library rewritten in place (size, mtime, inode kept): identical"
	else
		fail "6.1/stale: output differs after the library was rewritten in place"
		show_diff "$D/stock" "$D/shim" 4
	fi
else
	fail "6.1/stale: setup failed"
fi
info "total $(($(date +%s) - t0))s"
exit $failed
