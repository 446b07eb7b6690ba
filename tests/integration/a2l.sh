#!/bin/sh
# srcline/a2l.h against GNU addr2line 2.40 itself: for real DSOs in which
# binutils reads no debug information (the Rust toolchain's librustc_driver
# and libLLVM, libstdc++, libc unless libc6-dbg is installed, the fixture's
# main with its DWARF stripped and libbigshared.so, a .dynsym-only stripped
# lib), the whole byte stream of `addr2line -e F -i -f` (and `-a -i -f`) on
# perf's request stream ("%016x\n,\n" per address: symbol starts, starts - 1,
# middles, ends, gaps, random addresses in SHF_ALLOC sections, addresses
# outside any section, repeats and ascending runs for the one-entry cache;
# tests/integration/a2l_addrs.py; generated symbol tables with nested
# symbols: tests/integration/a2l_gen.py) is compared with build/bin/a2l-serve
# (scripts/a2l-serve.c: a2l_open + a2l_serve), once building the table and
# once from its cache file. Files binutils does read debug information from
# must be reported ineligible. binutils needs 90-250 ms per query on the
# big DSOs (its "," lookup demangles every symbol): few addresses there,
# thousands on the small ones (about a minute in all).
. "$(dirname "$0")/../lib/common.sh"
SERVE=$ROOT/build/bin/a2l-serve
ADDRS=$ROOT/tests/integration/a2l_addrs.py
A2L=${ADDR2LINE:-/usr/bin/addr2line}
T=$ROOT/build/a2l
rm -rf "$T"; mkdir -p "$T/cache"; chmod 700 "$T/cache"

if ! "$A2L" --version 2>/dev/null | head -1 | grep -q ' 2\.40$'; then
	skip "a2l: $A2L is not GNU addr2line 2.40 ($("$A2L" --version 2>/dev/null | head -1))"
	exit 0
fi
[ -x "$SERVE" ] || { fail_soft "a2l: $SERVE not built (make)"; exit 1; }

# compare NAME FILE N SEED [-a]: N addresses, byte streams identical?
# (sets name f n seed a g l: callers keep their own variables apart)
compare() {
	name=$1 f=$2 n=$3 seed=$4 a=$5
	/usr/bin/python3 "$ADDRS" "$f" "$n" "$seed" >"$T/$name.in" || { fail_soft "a2l $name: no addresses"; return; }
	t0=$(date +%s)
	"$A2L" -e "$f" $a -i -f <"$T/$name.in" >"$T/$name.ref" 2>"$T/$name.referr"
	t1=$(date +%s)
	"$SERVE" $a -C "$T/cache" "$f" <"$T/$name.in" >"$T/$name.got" 2>"$T/$name.err"
	rc1=$?
	"$SERVE" $a -C "$T/cache" "$f" <"$T/$name.in" >"$T/$name.got2" 2>>"$T/$name.err"
	rc2=$?
	if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ]; then
		fail_soft "a2l $name: a2l-serve exited $rc1/$rc2: $(head -c 300 "$T/$name.err")"
	elif cmp -s "$T/$name.ref" "$T/$name.got" && cmp -s "$T/$name.ref" "$T/$name.got2"; then
		pass "a2l $name: $n addresses ($(grep -vc '^,$' "$T/$name.in") queries + sentinels, $(wc -c <"$T/$name.ref") bytes) identical to addr2line ${a:+-a }-i -f, built and cached (binutils $((t1 - t0)) s)"
	else
		fail_soft "a2l $name: differs from addr2line ${a:+-a }-i -f on $f"
		for g in got got2; do
			cmp "$T/$name.ref" "$T/$name.$g" 2>&1 | head -1
			show_diff "$T/$name.ref" "$T/$name.$g" 12
		done
		# the request of the first differing output line
		l=$(cmp "$T/$name.ref" "$T/$name.got" 2>/dev/null | sed -n 's/.* line \([0-9]*\)$/\1/p')
		[ -n "$l" ] && info "a2l $name: first difference at output line $l"
	fi
}

# compare_dw NAME FILE N SEED A MODE: like compare on code addresses
# (a2l_addrs.py ... code), twice (built, cached); MODE all: every query
# answered in-process; over: handed over to binutils at some query; any:
# either. The real addr2line is $A2L in the hand-over too.
compare_dw() {
	name=$1 f=$2 n=$3 seed=$4 a=$5 mode=$6
	/usr/bin/python3 "$ADDRS" "$f" "$n" "$seed" code >"$T/$name.in" || { fail_soft "a2l $name: no addresses"; return; }
	"$A2L" -e "$f" $a -i -f <"$T/$name.in" >"$T/$name.ref" 2>"$T/$name.referr"
	ADDR2LINE=$A2L A2L_SERVE_STATS=1 "$SERVE" $a -C "$T/cache" "$f" <"$T/$name.in" >"$T/$name.got" 2>"$T/$name.err"
	rc1=$?
	ADDR2LINE=$A2L A2L_SERVE_STATS=1 "$SERVE" $a -C "$T/cache" "$f" <"$T/$name.in" >"$T/$name.got2" 2>"$T/$name.err2"
	rc2=$?
	q=$(grep -c . "$T/$name.in")
	st=$(cat "$T/$name.err2")
	if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ]; then
		fail_soft "a2l $name: a2l-serve exited $rc1/$rc2: $(head -c 300 "$T/$name.err")"
	elif ! cmp -s "$T/$name.ref" "$T/$name.got" || ! cmp -s "$T/$name.ref" "$T/$name.got2"; then
		fail_soft "a2l $name: differs from addr2line ${a:+-a }-i -f on $f ($st)"
		show_diff "$T/$name.ref" "$T/$name.got" 12
	elif [ "$mode" = all ] && [ "$st" != "a2l-serve: answered $q" ]; then
		fail_soft "a2l $name: identical, but not every one of $q input lines answered in-process ($st)"
	elif [ "$mode" = over ] && ! echo "$st" | grep -q 'handed over'; then
		fail_soft "a2l $name: identical, but expected a hand-over to binutils ($st)"
	else
		pass "a2l $name: $n code addresses ($q input lines, $(wc -c <"$T/$name.ref") bytes) identical to addr2line ${a:+-a }-i -f, built and cached (${st#a2l-serve: })"
	fi
}

# eligible NAME FILE WANT: a2l_eligible says WANT (1/0)
eligible() {
	out=$("$SERVE" --eligible "$2")
	got=${out%% *}
	if [ "$got" = "$3" ]; then
		pass "a2l $1: eligible=$got ${out#"$got"}"
	else
		fail_soft "a2l $1: eligible=$got, want $3 ($out)"
	fi
	[ "$got" = 1 ]
}

# binutils_reads_lines FILE: addr2line prints a line number for some symbol
binutils_reads_lines() {
	/usr/bin/python3 "$ADDRS" "$1" 40 7 | "$A2L" -e "$1" -i -f | grep -q ':[0-9][0-9]*'
}

# the Rust toolchain: the DSOs this exists for
rs=""
for d in "$HOME"/.rustup/toolchains/*/lib; do
	[ -d "$d" ] && { rs=$d; case $d in *stable*) break ;; esac; }
done
if [ -z "$rs" ]; then
	skip "a2l rust: no ~/.rustup/toolchains/*/lib (no librustc_driver / libLLVM here)"
else
	drv=$(ls "$rs"/librustc_driver-*.so 2>/dev/null | head -1)
	llvm=""     # libLLVM-*.so is a linker script (INPUT(...)): the ELF one
	for l in "$rs"/libLLVM*.so*; do
		[ -f "$l" ] && [ "$(head -c 4 "$l" | od -An -c | tr -d ' ')" = '177ELF' ] && { llvm=$l; break; }
	done
	if [ -n "$drv" ]; then
		eligible rustc_driver "$drv" 1 && compare rustc_driver "$drv" 60 11
	else
		skip "a2l rustc_driver: none in $rs"
	fi
	if [ -n "$llvm" ]; then
		eligible libLLVM "$llvm" 1 && compare libLLVM-a "$llvm" 40 12 -a
	else
		skip "a2l libLLVM: none in $rs"
	fi
fi

# the distribution's libraries: eligible unless debug files are installed
for lib in /usr/lib/x86_64-linux-gnu/libstdc++.so.6 /usr/lib/x86_64-linux-gnu/libc.so.6; do
	[ -f "$lib" ] || { skip "a2l $lib: absent"; continue; }
	b=$(basename "$lib")
	out=$("$SERVE" --eligible "$lib")
	if [ "${out%% *}" = 1 ]; then
		pass "a2l $b: eligible"
		compare "$b" "$lib" 1000 21
		compare "$b-a" "$lib" 500 22 -a
	elif binutils_reads_lines "$lib"; then
		pass "a2l $b: ineligible, and binutils does read line numbers for it (${out#0 })"
	else
		info "a2l $b: ineligible: ${out#0 } (binutils printed no line number for 40 addresses)"
		pass "a2l $b: ineligible (conservative)"
	fi
done

# the fixture: main has DWARF (ineligible); its stripped copy and the lib
sh "$ROOT/scripts/build-fixture.sh" "$ROOT/build/fixture" >"$T/fixture.log" 2>&1 ||
	fail_soft "a2l fixture: scripts/build-fixture.sh failed"
fx=$ROOT/build/fixture
if [ -x "$fx/main" ]; then
	eligible fixture-main "$fx/main" 1 && compare_dw fixture-main "$fx/main" 60 33 "" all
	cp "$fx/main" "$T/main-nodebug" && strip --strip-debug "$T/main-nodebug"
	eligible main-nodebug "$T/main-nodebug" 1 && compare main-nodebug "$T/main-nodebug" 30 31
fi
if [ -f "$fx/libbigshared.so" ]; then
	eligible libbigshared "$fx/libbigshared.so" 1 && {
		compare libbigshared "$fx/libbigshared.so" 80 41
		compare libbigshared-a "$fx/libbigshared.so" 30 42 -a
	}
	cp "$fx/libbigshared.so" "$T/libdynonly.so" && strip --strip-all "$T/libdynonly.so"
	eligible libdynonly "$T/libdynonly.so" 1 && compare libdynonly "$T/libdynonly.so" 60 43
fi

# generated symbol tables (tests/integration/a2l_gen.py): nested and
# overlapping symbols, aliases, zero sizes, annobin markers, STT_FILE states;
# here the one-entry cache of _bfd_elf_find_function changes answers
for gs in 1 2; do
	gd=$T/gen$gs
	mkdir -p "$gd"
	if /usr/bin/python3 "$ROOT/tests/integration/a2l_gen.py" "$gd" "$gs" &&
	   (cd "$gd" && cc -c g0.s g1.s g2.s && cc -shared -nostdlib -o libgen.so g0.o g1.o g2.o) >"$gd/build.log" 2>&1; then
		eligible gen$gs "$gd/libgen.so" 1 && compare gen$gs "$gd/libgen.so" 4000 6$gs
		compare gen$gs-a "$gd/libgen.so" 2000 7$gs -a
		cp "$gd/libgen.so" "$gd/libgendyn.so" && strip --strip-all "$gd/libgendyn.so" &&
			compare gen$gs-dynsym "$gd/libgendyn.so" 2000 8$gs
	else
		fail_soft "a2l gen$gs: could not build the generated lib: $(tail -3 "$gd/build.log")"
	fi
done

# a small lib: odd input lines as fgets cuts them (99-byte pieces, blanks,
# 0x prefixes, hex letters, symbol names and symbol+offset, no final newline)
cat >"$T/small.c" <<'C'
static int sfn(int x) { return x + 1; }
int gfn(int x) { return sfn(x) * 2; }
int (*keep)(int) = sfn;
C
if cc -shared -fPIC -O1 -o "$T/libsmall.so" "$T/small.c" 2>/dev/null; then
	eligible libsmall "$T/libsmall.so" 1 && {
		compare libsmall "$T/libsmall.so" 2000 51
		compare libsmall-a "$T/libsmall.so" 1000 52 -a
	}
	g=$(/usr/bin/python3 -c "import sys; print('%x' % int(sys.argv[1], 16))" \
		"$(nm "$T/libsmall.so" | awk '$3 == "gfn" {print $1}')")
	printf '%0150x\n  0x%s\n\n%s\ngfn\ngfn+0x3\n  gfn + 4\ngfn+\n+5\n-1\nzz\nabc+1\n,\nsfn\n\t%s\n%s' \
		0 "$g" "$(echo "$g" | tr a-f A-F)" "$g" "$g" >"$T/lines.in"
	for a in "" -a; do
		"$A2L" -e "$T/libsmall.so" $a -i -f <"$T/lines.in" >"$T/lines.ref"
		"$SERVE" $a "$T/libsmall.so" <"$T/lines.in" >"$T/lines.got"
		if cmp -s "$T/lines.ref" "$T/lines.got"; then
			pass "a2l lines${a:+ -a}: odd input lines answered as addr2line does"
		else
			fail_soft "a2l lines${a:+ -a}: differs"; show_diff "$T/lines.ref" "$T/lines.got" 12
		fi
	done
	# a -g build is served from its DWARF (answers with line numbers)
	cc -shared -fPIC -g -O1 -o "$T/libsmallg.so" "$T/small.c" && eligible libsmall-g "$T/libsmallg.so" 1 &&
		compare_dw libsmall-g "$T/libsmallg.so" 2000 53 "" all
fi

# DSOs with their own DWARF (srcline/a2l_dwarf.h): perf's kind of addresses
# (code sections), answered in-process with every query ("all"), or handed
# over to binutils mid-session ("over": a zone where bfd's lazy unit order
# matters, e.g. a COMDAT function claimed by two units); every mode must be
# byte-identical. Repeats (the done: block's name state) are in every list.
dw=$T/dw
mkdir -p "$dw"
cxx=$ROOT/tests/corpus/cxx.cpp
if g++ -O2 -g -o "$dw/cxx5" "$cxx" 2>"$dw/build.log"; then
	eligible cxx-dwarf5 "$dw/cxx5" 1 && {
		compare_dw cxx-dwarf5 "$dw/cxx5" 3000 91 "" all
		compare_dw cxx-dwarf5-a "$dw/cxx5" 1500 92 -a all
		compare cxx-dwarf5-anyaddr "$dw/cxx5" 1500 93     # data sections: handed over
		# the hand-over itself: the first query in a data section
		/usr/bin/python3 "$ADDRS" "$dw/cxx5" 300 107 code >"$T/over.in"
		printf '%016x\n,\n' "$(nm "$dw/cxx5" | awk '$2 ~ /[BbDd]/ {print "0x" $1; exit}')" >>"$T/over.in"
		/usr/bin/python3 "$ADDRS" "$dw/cxx5" 300 108 code >>"$T/over.in"
		"$A2L" -e "$dw/cxx5" -a -i -f <"$T/over.in" >"$T/over.ref"
		st=$(ADDR2LINE=$A2L A2L_SERVE_STATS=1 "$SERVE" -a -C "$T/cache" "$dw/cxx5" <"$T/over.in" 2>&1 >"$T/over.got")
		if cmp -s "$T/over.ref" "$T/over.got" && [ "$st" = "a2l-serve: answered 600, then handed over to binutils" ]; then
			pass "a2l cxx-dwarf5-handover: 600 queries answered, then a data address: handed over, replayed, identical"
		else
			fail_soft "a2l cxx-dwarf5-handover: $st; $(cmp "$T/over.ref" "$T/over.got" 2>&1 | head -1)"
		fi
	}
	g++ -O2 -gdwarf-4 -o "$dw/cxx4" "$cxx" && compare_dw cxx-dwarf4 "$dw/cxx4" 3000 94 "" all
	g++ -O2 -g -gz=zlib -o "$dw/cxxz" "$cxx" && compare_dw cxx-zlib "$dw/cxxz" 2000 95 -a all
	if objcopy --compress-debug-sections=zstd "$dw/cxx5" "$dw/cxxzstd" 2>/dev/null; then
		compare_dw cxx-zstd "$dw/cxxzstd" 2000 96 "" all
	else
		skip "a2l cxx-zstd: objcopy cannot compress with zstd"
	fi
	# stripped + .gnu_debuglink: bfd follows the link: stays with binutils
	objcopy --only-keep-debug "$dw/cxx5" "$dw/cxx5.debug" && cp "$dw/cxx5" "$dw/cxxstripped" &&
		strip --strip-debug "$dw/cxxstripped" &&
		objcopy --add-gnu-debuglink="$dw/cxx5.debug" "$dw/cxxstripped" 2>/dev/null &&
		eligible cxx-debuglink "$dw/cxxstripped" 0
	# units sharing COMDAT functions (the first unit, the owner of the kept
	# copy, answers: bfd's trie asks units in the order they were read)
	cat >"$dw/m1.cpp" <<'C'
#include <map>
#include <string>
#include <vector>
int f2(int);
static int helper(std::vector<int> &v) { int s = 0; for (auto x : v) s += x * 3; return s; }
int f1(int n) { std::vector<int> v; std::map<int, std::string> m; for (int i = 0; i < n; i++) { v.push_back(i); m[i % 7] += "x"; } return helper(v) + (int)m.size() + f2(n); }
int main(int argc, char **argv) { (void)argv; return f1(argc * 1000) & 1; }
C
	cat >"$dw/m2.cpp" <<'C'
#include <map>
#include <string>
#include <vector>
int f2(int n) { std::vector<int> v(n); std::map<int, std::string> m; for (int i = 0; i < n; i++) { v[i] = i * i; m[i % 5] += "y"; } int s = 0; for (auto x : v) s ^= x; return s + (int)m.size(); }
C
	g++ -O2 -g -o "$dw/multi" "$dw/m1.cpp" "$dw/m2.cpp" && {
		compare_dw multi-unit "$dw/multi" 2000 97 "" all
		compare_dw multi-unit-a "$dw/multi" 800 98 -a all
	}
	for i in 1 2 3 4; do
		cat >"$dw/t$i.cpp" <<C
#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>
int t$i(int n) { std::map<std::string, int> m; std::unordered_map<int, std::string> u; std::vector<double> v; std::ostringstream os;
 for (int i = 0; i < n; i++) { os.str(""); os << i * $i; m[os.str()] += i; u[i % 13] = os.str(); v.push_back(i * 0.5); }
 std::sort(v.begin(), v.end(), [](double a, double b) { return a > b; }); return (int)m.size() + (int)u.size() + (int)v[0]; }
C
	done
	printf 'int t1(int); int t2(int); int t3(int); int t4(int);\nint main(int c, char **) { return (t1(c) + t2(c) + t3(c) + t4(c)) & 1; }\n' >"$dw/tmain.cpp"
	g++ -O2 -g -o "$dw/multi4" "$dw/t1.cpp" "$dw/t2.cpp" "$dw/t3.cpp" "$dw/t4.cpp" "$dw/tmain.cpp" &&
		compare_dw multi-unit-4 "$dw/multi4" 3000 109 "" all
	g++ -O2 -g -ffunction-sections -Wl,--gc-sections -o "$dw/multigc" "$dw/m1.cpp" "$dw/m2.cpp" &&
		compare_dw multi-unit-gc "$dw/multigc" 2000 99 "" all
else
	fail_soft "a2l dwarf: g++ failed: $(tail -3 "$dw/build.log")"
fi
# libc6-dbg's debug file of libc.so.6 (perf names it when it is installed)
lcd=$(bid /usr/lib/x86_64-linux-gnu/libc.so.6)
lcd=/usr/lib/debug/.build-id/$(echo "$lcd" | cut -c1-2)/$(echo "$lcd" | cut -c3-).debug
if [ -f "$lcd" ]; then
	eligible libc-debugfile "$lcd" 1 && {
		compare_dw libc-debugfile "$lcd" 400 105 "" any
		compare_dw libc-debugfile-a "$lcd" 200 106 -a any
	}
else
	skip "a2l libc-debugfile: libc6-dbg not installed"
fi
cat >"$dw/c1.c" <<'C'
#include <stdlib.h>
static inline int sq(int x) { return x * x; }
static int __attribute__((noinline)) acc(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(a[i]) + (a[i] & 3 ? 1 : 2); return s; }
int main(int argc, char **argv) { int *a = malloc(4000 * sizeof(int)); (void)argv; for (int i = 0; i < 4000; i++) a[i] = i ^ argc; int r = acc(a, 4000); free(a); return r & 1; }
C
gcc -O2 -g -o "$dw/c1" "$dw/c1.c" && compare_dw c-dwarf5 "$dw/c1" 3000 101 "" all
gcc -O2 -g -shared -fPIC -o "$dw/libc1.so" "$dw/c1.c" && compare_dw c-lib "$dw/libc1.so" 2000 102 -a all
if command -v rustc >/dev/null 2>&1; then
	cat >"$dw/r.rs" <<'R'
use std::collections::HashMap;
#[inline(always)] fn mix(x: u64) -> u64 { x.wrapping_mul(0x9e3779b97f4a7c15).rotate_left(17) }
#[inline(never)] fn work(n: u64) -> u64 { let mut m = HashMap::new(); let mut s = 0u64; for i in 0..n { let k = mix(i) % 1000; *m.entry(k).or_insert(0u64) += i; s = s.wrapping_add(m[&k]); } let mut v: Vec<u64> = m.values().cloned().collect(); v.sort(); s ^ v.iter().sum::<u64>() }
fn main() { let n: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100000); println!("{}", work(n)); }
R
	if rustc -O -C debuginfo=2 -o "$dw/rs" "$dw/r.rs" 2>"$dw/rs.log"; then
		eligible rust-dwarf "$dw/rs" 1 && {
			compare_dw rust-dwarf "$dw/rs" 400 103 "" any
			compare_dw rust-dwarf-a "$dw/rs" 200 104 -a any
		}
	else
		fail_soft "a2l rust-dwarf: rustc failed: $(tail -2 "$dw/rs.log")"
	fi
else
	skip "a2l rust-dwarf: no rustc"
fi
exit 0
