#!/bin/sh
# perf72.sh - lazy mode under perf 7.2 (issue 19): Debian sid's own perf
# (linux-perf 7.2.x, built with libdw unwinding and debuginfod) in a sid root
# filesystem made by scripts/build-root.sh (cached outside the clone) and
# entered by scripts/in-root.sh the way a container is (mount + pid
# namespaces, chroot), with this build's libsymlazy.so bind-mounted in.
# Recordings are made inside by perf 7.2 itself, of programs of that root:
#   cxx      g++ -O2 -g, frame pointers (tests/corpus/cxx.cpp)
#   cxxdw    the same, --call-graph dwarf (libdw unwinding)
#   rustc    rustc -O compiling a small program (librustc_driver), fp
#   node     node running a loop, fp
#   system   perf record -a -g while the programs above run
#   subcmds  two cxx recordings: perf diff (stdout) and perf data convert
#            --to-json (the JSON file, nothing normalised) identical and lazy;
#            perf diff -c cycles and --to-ctf eager with their reasons (issue 19)
# Each is compared stock vs shim, stdout byte for byte: perf script (inline
# frames: 7.x's default), perf script --no-inline, perf report --stdio (its
# random "# (Tip: ...)" line aside, stock perf's equal-weight sibling order
# allowed by tests/report_same.py), perf annotate --stdio of the hottest
# symbol; and the stats say whether lazy mode ran.
# Prints PASS:/FAIL:/SKIP:/INFO: lines; SKIP (exit 0) with the reason when the
# sid root cannot be built or entered here.
# Env: SYMLAZY_ROOT, SYMLAZY_SO, PERF72_CASES (default: all five).
set -u
. "$(dirname "$0")/../lib/common.sh"
TEST_PREFIX=perf72/
T=$ROOT/build/perf72

. "$ROOT/tests/lib/root.sh"
root_build perf72 sid
SID=$RT
root_workdir
root_perf 7.2 "Debian sid root"

# cmp72 NAME perf-args...: stock vs shim stdout and exit status, in the root
cmp72() {
	_n=$1
	shift
	inr perf "$@" >"$W/out/$_n.stock" 2>"$W/out/$_n.stock.err"
	_rs=$?
	inr env LD_PRELOAD=/symlazy/libsymlazy.so SYMLAZY_STATS=/work/out/$_n.json \
		SYMLAZY_CACHE_DIR=/work/cache perf "$@" >"$W/out/$_n.shim" 2>"$W/out/$_n.shim.err"
	_rl=$?
	if [ ! -s "$W/out/$_n.stock" ]; then
		fail "$_n: stock perf printed nothing (exit $_rs): perf $*"
		grep -v schedstat "$W/out/$_n.stock.err" | sed -n 1,3p
	elif [ "$_rs" != "$_rl" ]; then
		fail "$_n: exit status stock $_rs, shim $_rl"
		sed -n 1,3p "$W/out/$_n.shim.err"
	elif [ "$1" = report ] && same_notip "$W/out/$_n.stock" "$W/out/$_n.shim"; then
		# perf report's random "# (Tip: ...)" line: stock differs from itself there
		pass "$_n ($(wc -l <"$W/out/$_n.stock") lines identical but the random Tip line; $(lazy_of "$W/out/$_n.json"))"
		return 0
	elif ! grep -q '"lazy":"on"' "$W/out/$_n.json" 2>/dev/null; then
		# perf 7.2 gets lazy mode without SYMLAZY_LAZY (core/model/perf72.c)
		fail "$_n: lazy mode did not run: $(lazy_of "$W/out/$_n.json")"
	elif cmp -s "$W/out/$_n.stock" "$W/out/$_n.shim"; then
		pass "$_n ($(wc -l <"$W/out/$_n.stock") lines identical; $(lazy_of "$W/out/$_n.json"))"
		return 0
	elif sed 's#/tmp/perf-vdso\.so-[A-Za-z0-9]\{6\}#/tmp/perf-vdso.so-XXXXXX#g' "$W/out/$_n.stock" >"$W/out/$_n.stock.vdso" &&
		sed 's#/tmp/perf-vdso\.so-[A-Za-z0-9]\{6\}#/tmp/perf-vdso.so-XXXXXX#g' "$W/out/$_n.shim" >"$W/out/$_n.shim.vdso" &&
		cmp -s "$W/out/$_n.stock.vdso" "$W/out/$_n.shim.vdso"; then
		# with no build-id cache entry for the vdso, perf writes it to a
		# mkstemp file (util/vdso.c, "/tmp/perf-vdso.so-XXXXXX") and perf
		# diff -v prints that name: stock differs from itself there
		pass "$_n ($(wc -l <"$W/out/$_n.stock") lines identical but perf's random vdso temp name; $(lazy_of "$W/out/$_n.json"))"
		return 0
	elif [ "$1" = report ] && _ties=$("$PY" "$ROOT/tests/report_same.py" "$W/out/$_n.stock.notip" "$W/out/$_n.shim.notip"); then
		pass "$_n ($(wc -l <"$W/out/$_n.stock") lines, $_ties; $(lazy_of "$W/out/$_n.json"))"
		return 0
	else
		fail "$_n: output differs: perf $*"
		show_diff "$W/out/$_n.stock" "$W/out/$_n.shim" 8
	fi
	return 1
}
want() { in_list "$1" "${PERF72_CASES:-cxx cxxdw rustc node system debuginfod gnu_debugdata subcmds corpus}"; }

# the programs, built in the root by its own compilers
cp "$ROOT/tests/corpus/cxx.cpp" "$ROOT/tests/corpus/corpus.h" "$W/"
cat >"$W/hello.rs" <<'RS'
use std::collections::HashMap;
fn main() {
    let mut m: HashMap<String, Vec<u64>> = HashMap::new();
    for i in 0..1000u64 { m.entry(format!("k{}", i % 97)).or_default().push(i * i); }
    let s: u64 = m.values().map(|v| v.iter().sum::<u64>()).sum();
    println!("{} {}", m.len(), s);
}
RS
cat >"$W/loop.js" <<'JS'
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
const end = Date.now() + 1500; let s = 0;
while (Date.now() < end) s += fib(22);
console.log(s > 0);
JS
if ! inr g++ -O2 -g -fno-omit-frame-pointer -o /work/cxx /work/cxx.cpp >"$T/build.log" 2>&1; then
	fail "setup: g++ in the root: $(head -3 "$T/build.log")"
	exit 1
fi

hot() { # report.stock DSO: the first symbol of DSO (any user DSO if DSO is "-") with self samples
	# (not an unresolved "0x..." address, not a "name (inlined)" entry: nothing to annotate)
	awk -v d="$2" '$2 != "0.00%" && ($4 == d || (d == "-" && $4 !~ /^\[/)) && $5 == "[.]" &&
		$6 !~ /^0x/ && $0 !~ / \(inlined\)$/ {
		$1 = $2 = $3 = $4 = $5 = ""; print; exit }' "$1" |
		sed 's/^ *//; s/ *$//'
}
suite() { # NAME DSO-for-annotate
	_c=$1
	cmp72 "$_c/script" script -i "/work/$_c.data"
	cmp72 "$_c/script-no-inline" script --no-inline -i "/work/$_c.data"
	cmp72 "$_c/report" report --stdio -i "/work/$_c.data"
	_h=$(hot "$W/out/$_c/report.stock" "$2")
	if [ -n "$_h" ]; then
		cmp72 "$_c/annotate" annotate --stdio -i "/work/$_c.data" -- "$_h"
	else
		info "$_c/annotate: no symbol of $2 with self samples in the stock report"
	fi
}
mkdir -p "$W/out/cxx" "$W/out/cxxdw" "$W/out/rustc" "$W/out/node" "$W/out/system"
want cxx && rec cxx -g -- /work/cxx 1 && suite cxx cxx
want cxxdw && rec cxxdw --call-graph dwarf,8192 -- /work/cxx 1 && suite cxxdw cxx
info "g++ done at $(($(date +%s) - t0))s"
want rustc && rec rustc -g -- rustc -O -o /work/hello /work/hello.rs && suite rustc "$(cd "$SID" &&
	ls usr/lib/rustlib/*/lib/librustc_driver-*.so usr/lib/*/librustc_driver-*.so 2>/dev/null | head -1 | xargs -r basename)"
want node && rec node -g -- node /work/loop.js && suite node -
info "rustc, node done at $(($(date +%s) - t0))s"
if want system; then
	cat >"$W/sys.sh" <<'SH'
/work/cxx 2 >/dev/null & node /work/loop.js >/dev/null & rustc -O -o /work/hello2 /work/hello.rs & wait
SH
	rec system -a -g -- sh /work/sys.sh && suite system cxx
fi

# ---- debuginfod: symbols of a stripped binary from a local debuginfod ------------
# perf 7.2 fetches a debug file by build-id at record time (--debuginfod:
# util/build-id.c build_id_cache__find_debug -> debuginfod_find_debuginfo into
# $DEBUGINFOD_CACHE_PATH, then into ~/.debug), and perf script reads its
# .symtab from there; libdw's inline lookups may fetch too (DEBUGINFOD_URLS).
# The server is elfutils' `debuginfod -F DIR` on 127.0.0.1 (the root shares
# the host's network), serving only the debug file.
if want debuginfod; then
	if ! command -v debuginfod >/dev/null 2>&1; then
		skip "debuginfod: no debuginfod server here (Debian package debuginfod)"
	elif ! inr sh -c 'g++ -O2 -g -fno-omit-frame-pointer -Wl,--build-id -o /work/stripped /work/cxx.cpp &&
			objcopy --only-keep-debug /work/stripped /work/stripped.debug &&
			strip --strip-all /work/stripped' >"$T/dbg.log" 2>&1; then
		fail "debuginfod/build: $(head -2 "$T/dbg.log")"
	else
		mkdir -p "$W/dbgsrv" "$W/home" "$W/dcache"
		mv "$W/stripped.debug" "$W/dbgsrv/"
		port=$((18000 + $$ % 1000))
		debuginfod -F "$W/dbgsrv" -p $port -d "$T/debuginfod.sqlite" -t0 -g0 >"$T/debuginfod.log" 2>&1 &
		dpid=$!
		sbid=$(bid "$W/stripped")
		n=0
		until curl -sf -o /dev/null "http://127.0.0.1:$port/buildid/$sbid/debuginfo" || [ $n -ge 40 ]; do
			sleep 0.5; n=$((n + 1))
		done
		DENV="HOME=/work/home DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=/work/dcache"
		if [ $n -ge 40 ]; then
			fail "debuginfod/server: not serving $sbid after 20 s: $(tail -2 "$T/debuginfod.log")"
		elif inr env $DENV perf record -q --debuginfod=http://127.0.0.1:$port -g -o /work/debuginfod.data \
			-- /work/stripped 1 >"$T/debuginfod.rec.log" 2>&1 && [ -s "$W/debuginfod.data" ]; then
			fetched=$(find "$W/dcache" -name debuginfo -type f | wc -l)
			mkdir -p "$W/out/debuginfod"
			for args in "script" "script --no-inline" "report --stdio"; do
				n=debuginfod/$(echo "$args" | tr ' ' '-' | sed 's/--*/-/g')
				inr env $DENV perf $args -i /work/debuginfod.data >"$W/out/$n.stock" 2>"$W/out/$n.stock.err"
				inr env $DENV LD_PRELOAD=/symlazy/libsymlazy.so SYMLAZY_STATS=/work/out/$n.json \
					SYMLAZY_CACHE_DIR=/work/cache perf $args -i /work/debuginfod.data \
					>"$W/out/$n.shim" 2>"$W/out/$n.shim.err"
				notip "$W/out/$n.stock" >"$W/out/$n.a"; notip "$W/out/$n.shim" >"$W/out/$n.b"
				named=$(grep -c 'corpus::' "$W/out/$n.stock")
				if [ "$named" -gt 0 ] && cmp -s "$W/out/$n.a" "$W/out/$n.b"; then
					pass "$n ($named lines named from the fetched debug file, $fetched fetched into \$DEBUGINFOD_CACHE_PATH; identical; $(lazy_of "$W/out/$n.json"))"
				else
					fail "$n: named=$named, fetched=$fetched; $(diff "$W/out/$n.a" "$W/out/$n.b" | head -3)"
				fi
			done
			if grep -q '"mode":"lazy"' "$W/out/debuginfod/script.json" 2>/dev/null &&
				grep -q "$sbid" "$W/out/debuginfod/script.json"; then
				pass "debuginfod/lazy (the fetched debug file's symbols were shown lazily)"
			else
				info "debuginfod/lazy: the fetched debug file was not lazy: $(lazy_of "$W/out/debuginfod/script.json")"
			fi
		else
			fail "debuginfod/record: $(grep -v schedstat "$T/debuginfod.rec.log" | head -2)"
		fi
		kill $dpid 2>/dev/null
		wait $dpid 2>/dev/null
	fi
fi

# ---- .gnu_debugdata (MiniDebugInfo): perf 7.2 reads its symbols --------------
# The binary keeps .dynsym only; its function symbols ride in an xz-compressed
# ELF in .gnu_debugdata (the Fedora recipe). perf 7.2 decompresses it to a
# temporary file and scans its .symtab, then the binary's .dynsym again:
# symlazy shows such a DSO whole (reason gnu_debugdata) and the output
# must stay identical.
if want gnu_debugdata; then
	mkdir -p "$W/out/gnu_debugdata"
	if inr sh -c 'set -e; cd /work; g++ -O2 -g -fno-omit-frame-pointer -o mini cxx.cpp
		nm -D mini --format=posix --defined-only | awk "{print \$1}" | sort >dyn.syms
		nm mini --format=posix --defined-only | awk "\$2 ~ /^[TtDd]\$/ {print \$1}" | sort >func.syms
		comm -13 dyn.syms func.syms >keep.syms
		objcopy --only-keep-debug mini mini.dbg
		objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols=keep.syms mini.dbg mini.mdi
		strip --strip-all mini' >"$T/mdi.log" 2>&1 &&
		xz -f "$W/mini.mdi" 2>>"$T/mdi.log" &&   # the root has no xz: the host compresses
		inr objcopy --add-section .gnu_debugdata=/work/mini.mdi.xz /work/mini >>"$T/mdi.log" 2>&1 &&
		rec gnu_debugdata -g -- /work/mini 1; then
		cmp72 gnu_debugdata/script script -i /work/gnu_debugdata.data
		cmp72 gnu_debugdata/report report --stdio -i /work/gnu_debugdata.data
		if grep -q 'corpus::' "$W/out/gnu_debugdata/script.stock"; then
			pass "gnu_debugdata/named (perf 7.2 names the stripped binary's functions from .gnu_debugdata)"
		else
			info "gnu_debugdata/named: stock perf named nothing from .gnu_debugdata"
		fi
		mbid=$(bid "$W/mini")
		if "$PY" - "$W/out/gnu_debugdata/script.json" "$mbid" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = [x for x in d["dsos"] if x.get("build_id") == sys.argv[2]]
sys.exit(0 if s and all(x.get("reason_code") == "gnu_debugdata" and x["mode"] != "lazy" for x in s) else 1)
PY
		then
			pass "gnu_debugdata/eager (the MiniDebugInfo binary is shown whole, reason gnu_debugdata; the rest stays lazy)"
		else
			fail "gnu_debugdata/eager: the MiniDebugInfo binary $mbid was not shown whole with reason gnu_debugdata"
		fi
	else
		fail "gnu_debugdata/build: $(tail -2 "$T/mdi.log")"
	fi
fi
# ---- perf diff and perf data convert --to-json (issue 19) ---------------------
if want subcmds; then
	mkdir -p "$W/out/subcmds"
	if rec subcmds-a -g -- /work/cxx 1 && rec subcmds-b -g -- /work/cxx 1; then
		cmp72 subcmds/diff diff /work/subcmds-a.data /work/subcmds-b.data
		cmp72 subcmds/diff-opts diff -v -c ratio -s dso,sym /work/subcmds-a.data /work/subcmds-b.data
		rm -f "$W/out/subcmds/"*.json.out
		inr perf data convert --to-json /work/out/subcmds/stock.json.out -i /work/subcmds-a.data \
			>/dev/null 2>"$T/conv.stock.err"
		inr env LD_PRELOAD=/symlazy/libsymlazy.so SYMLAZY_STATS=/work/out/subcmds/convert.json \
			SYMLAZY_CACHE_DIR=/work/cache perf data convert --to-json /work/out/subcmds/shim.json.out \
			-i /work/subcmds-a.data >/dev/null 2>"$T/conv.shim.err"
		if [ ! -s "$W/out/subcmds/stock.json.out" ]; then
			fail "subcmds/convert: stock wrote no JSON: $(head -2 "$T/conv.stock.err")"
		elif ! cmp -s "$W/out/subcmds/stock.json.out" "$W/out/subcmds/shim.json.out"; then
			fail "subcmds/convert: JSON differs: $(diff "$W/out/subcmds/stock.json.out" "$W/out/subcmds/shim.json.out" | head -4)"
		elif ! grep -q '"lazy":"on"' "$W/out/subcmds/convert.json"; then
			fail "subcmds/convert: identical, but $(lazy_of "$W/out/subcmds/convert.json")"
		else
			pass "subcmds/convert ($(wc -l <"$W/out/subcmds/stock.json.out") JSON lines identical; $(lazy_of "$W/out/subcmds/convert.json"))"
		fi
		for e in "diff_cycles diff -c cycles /work/subcmds-a.data /work/subcmds-b.data" \
			"convert_ctf data convert --to-ctf /work/out/subcmds/ctf -i /work/subcmds-a.data"; do
			set -- $e
			code=$1
			shift
			inr env LD_PRELOAD=/symlazy/libsymlazy.so SYMLAZY_STATS=/work/out/subcmds/$code.json \
				SYMLAZY_CACHE_DIR=/work/cache perf "$@" >/dev/null 2>"$T/$code.err"
			if grep -q "\"lazy\":\"off\".*\"lazy_reason_code\":\"$code\"" "$W/out/subcmds/$code.json" 2>/dev/null; then
				pass "subcmds/$code (perf $1 $2 $3: eager, reason $code)"
			elif [ "$code" = convert_ctf ] && [ ! -e "$W/out/subcmds/$code.json" ] &&
				grep -q 'ctf support is not compiled in' "$T/$code.err"; then
				# Debian's 7.2 is built without babeltrace2: it stops before
				# any symbol is loaded (the argv verdict: unit tests)
				pass "subcmds/$code (this perf 7.2 has no CTF writer: it exits before loading symbols)"
			else
				fail "subcmds/$code: $(lazy_of "$W/out/subcmds/$code.json")"
			fi
		done
	fi
fi

# ---- the corpus (tests/integration/corpus.sh) under perf 7.2 ---------------------
# corpus.sh runs on the host (compilers, readelf, python3) with PERF set to a
# wrapper that runs the sid root's perf: the build directory is bound at its
# own path inside (SYMLAZY_SAME), and the wrapper carries the caller's cwd,
# HOME, LD_PRELOAD (the shim and fixtime.so, both host-built: glibc's ABI is
# backward compatible) and SYMLAZY_* into the root.
if want corpus; then
	CW=$ROOT/build/perf72-corpus
	rm -rf "$CW"; mkdir -p "$CW"
	cat >"$CW/perf" <<WRAP
#!/bin/sh
set -- "\$PWD" "\$@"
vars="HOME=\$HOME"
[ -n "\${LD_PRELOAD:-}" ] && vars="\$vars LD_PRELOAD=\$LD_PRELOAD"
for v in \$(env | sed -n 's/^\(SYMLAZY_[A-Z_]*\)=.*/\1/p'); do
	eval "vars=\"\\\$vars \$v=\\\$\$v\""
done
exec env -u LD_PRELOAD SYMLAZY_SAME="$CW $ROOT/build" SYMLAZY_BIND= SYMLAZY_WORK= \
	sh "$ROOT/scripts/in-root.sh" "$SID" env \$vars sh -c 'cd "\$0" && exec perf "\$@"' "\$@"
WRAP
	chmod +x "$CW/perf"
	CASES=${PERF72_CORPUS_CASES:-"cxx rust threads forkexec overlap abort-dynsym abort-symtab abort-alias plt dwarf"}
	PERF=$CW/perf CORPUS_DIR=$CW/corpus CORPUS_CASES=$CASES SYMLAZY_SO=$SO \
		sh "$ROOT/tests/integration/corpus.sh" >"$CW/corpus.log" 2>&1
	crc=$?
	sed -n 's/^\(PASS\|FAIL\|SKIP\|INFO\): /\1: perf72\/corpus\//p' "$CW/corpus.log"
	grep -q '^FAIL' "$CW/corpus.log" && failed=1
	[ $crc -ne 0 ] && ! grep -q '^FAIL' "$CW/corpus.log" && fail "corpus: exited $crc: $(tail -3 "$CW/corpus.log")"
fi
info "total $(($(date +%s) - t0))s"
exit $failed
