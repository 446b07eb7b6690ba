#!/bin/sh
# container.sh - the Debian 13 container matrix (issue 21): a trixie root
# filesystem made by scripts/build-root.sh (cached outside the clone), entered
# by scripts/in-root.sh as a container is (mount + pid namespaces, chroot),
# with this build's libsymlazy.so bind-mounted read-only at /symlazy, running
# Debian 13's own tools against stock:
#   perf     linux-perf 6.12.x: perf script and perf report --stdio of a g++
#            -O2 frame-pointer program (tests/corpus/cxx.cpp, built in the
#            root), of rustc -O compiling a small program, and of the
#            500k-symbol fixture (scripts/build-fixture.sh);
#            identical, lazy on (SYMLAZY_STATS)
#   cgroup   perf script of the fixture in a 64 MiB cgroup v2 memory.max
#            (scripts/cgroup-run.sh): stock killed, symlazy identical
#   elfutils 0.192: eu-addr2line -f of addresses of both programs, eu-stack of
#            a stopped process; identical, lookups answered from the index
#   bcc      0.31: Python's BPF.sym (ctypes) of the running program's symbol
#            addresses, identical; needs no BPF, only libbcc
#   bpftrace 0.23: @[ustack] of a uprobe in the g++ program and in the
#            fixture (SYMLAZY_BPF=1: bpffs, tracefs, ulimit -l); identical,
#            the symcache answered from the index; a libbcc of an unknown
#            version (the same file named 0.99.0) passes through
#   deb      the packages of scripts/build-deb.sh installed with dpkg -i in
#            a throwaway overlayfs view of the root (a copy where overlayfs
#            cannot be mounted; the cached root stays as built): LD_PRELOAD=/usr/lib/MULTIARCH/libsymlazy.so perf script
#            identical and lazy, symlazy doctor finds the library
#   docs     the ```sh blocks of examples/container.md, run in such a view
#            with the shim at /opt/symlazy and the packages in /work/deb
# INFO lines give peak RssAnon stock vs shim (build/bin/peakrss in the root);
# nothing asserts on memory or time. Prints PASS:/FAIL:/SKIP:/INFO: lines;
# SKIP (exit 0) with the reason when the root cannot be built or entered.
# With --markdown (make doc-tables, doc/measurements.md) the lines go to
# build/container.log and only the table is printed, as Markdown.
# Env: SYMLAZY_ROOT, SYMLAZY_SO.
set -u
if [ "${1:-}" = --markdown ]; then
	R=$(cd "$(dirname "$0")/../.." && pwd)
	sh "$0" >"$R/build/container.log" 2>&1
	rc=$?
	echo "\`sh tests/integration/container.sh --markdown\`, $(date -u +%Y-%m-%d), Debian 13 root ($(sed -n 's/^INFO: container\/root: //p' "$R/build/container.log")):"
	echo
	echo "| tool, case | version | output == stock | lazy / index | peak RssAnon MiB stock / symlazy |"
	echo "|---|---|---|---|---:|"
	sed -n 's/^INFO: container\/table: //p' "$R/build/container.log" |
		awk -F' [|] ' '{ sub(/ MiB$/, "", $5); printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }'
	exit $rc
fi
. "$(dirname "$0")/../lib/common.sh"
TEST_PREFIX=container/
T=$ROOT/build/container

. "$ROOT/tests/lib/root.sh"
root_build container trixie
TRX=$RT
make -s -C "$ROOT" build/bin/peakrss build/bin/symlazy >/dev/null 2>&1 ||
	{ fail "setup: make build/bin/peakrss build/bin/symlazy"; exit 1; }
FIX=$ROOT/build/fixture
sh "$ROOT/scripts/build-fixture.sh" "$FIX" >/dev/null 2>&1 || { fail "setup: scripts/build-fixture.sh"; exit 1; }
root_workdir
cp "$ROOT/build/bin/peakrss" "$T/so/" || exit 1
# in the root: /work is $W, /symlazy the shim's directory (read-only), the
# fixture at its host path
inr() { SYMLAZY_WORK=$W SYMLAZY_BIND=$T/so SYMLAZY_SAME=$FIX sh "$ROOT/scripts/in-root.sh" "$TRX" "$@"; }
root_perf 6.12 "Debian 13 root"
info "root: $(sed -n 's/^version //p' "$TRX/.symlazy-root-complete" |
	awk '$1 ~ /^(linux-perf|libc6|libdw1t64|bpftrace|python3-bpfcc)$/ { printf "%s%s %s", s, $1, $2; s = ", " }')"

# TABLE rows for the closing INFO lines: tool|version|identical|lazy|stock|shim
row() { echo "$*" >>"$T/table"; }

# cmpp NAME perf-args...: stock vs shim perf, stdout and exit status, each
# under peakrss; the stats say whether lazy mode ran
cmpp() {
	_n=$1
	shift
	inr /symlazy/peakrss -o "/work/out/$_n.stock.rss" perf "$@" >"$W/out/$_n.stock" 2>"$W/out/$_n.stock.err"
	_rs=$?
	inr /symlazy/peakrss -o "/work/out/$_n.shim.rss" env LD_PRELOAD=/symlazy/libsymlazy.so \
		SYMLAZY_STATS=/work/out/$_n.json SYMLAZY_CACHE_DIR=/work/cache perf "$@" \
		>"$W/out/$_n.shim" 2>"$W/out/$_n.shim.err"
	_rl=$?
	_sa=$(rss_anon "$W/out/$_n.stock.rss") _la=$(rss_anon "$W/out/$_n.shim.rss")
	_lz=$(lazy_of "$W/out/$_n.json")
	_same=no
	notip "$W/out/$_n.stock" >"$W/out/$_n.a"
	notip "$W/out/$_n.shim" >"$W/out/$_n.b"
	if cmp -s "$W/out/$_n.a" "$W/out/$_n.b"; then
		_same=identical
	elif [ "$1" = report ] && _ties=$("$PY" "$ROOT/tests/report_same.py" "$W/out/$_n.a" "$W/out/$_n.b"); then
		_same="identical ($_ties)"
	fi
	if [ ! -s "$W/out/$_n.stock" ]; then
		fail "$_n: stock perf printed nothing (exit $_rs): perf $*"
		grep -v schedstat "$W/out/$_n.stock.err" | sed -n 1,3p
	elif [ "$_rs" != "$_rl" ]; then
		fail "$_n: exit status stock $_rs, shim $_rl"
		sed -n 1,3p "$W/out/$_n.shim.err"
	elif [ "$_same" = no ]; then
		fail "$_n: output differs: perf $*"
		show_diff "$W/out/$_n.a" "$W/out/$_n.b" 6
	elif ! grep -q '"lazy":"on"' "$W/out/$_n.json" 2>/dev/null; then
		fail "$_n: lazy mode did not run: $_lz"
	else
		pass "$_n ($(wc -l <"$W/out/$_n.stock") lines $_same; $_lz)"
	fi
	info "$_n: peak RssAnon stock $(mib "$_sa") MiB, symlazy $(mib "$_la") MiB"
	row "perf $1 ($_n)|${ver#perf version }|$_same|$(echo "$_lz" | cut -d, -f1)|$(mib "$_sa")|$(mib "$_la")"
}

# ---- perf 6.12: a g++ frame-pointer program and the 500k-symbol fixture ------
cp "$ROOT/tests/corpus/cxx.cpp" "$ROOT/tests/corpus/corpus.h" "$W/"
if ! inr g++ -O2 -g -fno-omit-frame-pointer -o /work/cxx /work/cxx.cpp >"$T/build.log" 2>&1; then
	fail "setup: g++ in the root: $(head -3 "$T/build.log")"
	exit 1
fi
if rec cxx -g -- /work/cxx 1; then
	cmpp cxx-script script -i /work/cxx.data
	cmpp cxx-report report --stdio -i /work/cxx.data
fi
# rustc -O compiling a small program: librustc_driver's symbols (fp)
cat >"$W/hello.rs" <<'RS'
use std::collections::HashMap;
fn main() {
    let mut m: HashMap<String, Vec<u64>> = HashMap::new();
    for i in 0..1000u64 { m.entry(format!("k{}", i % 97)).or_default().push(i * i); }
    println!("{}", m.len());
}
RS
if rec rustc -g -- rustc -O -o /work/hello /work/hello.rs; then
	cmpp rustc-script script -i /work/rustc.data
	cmpp rustc-report report --stdio -i /work/rustc.data
fi
if rec fixture -g -- "$FIX/main" 1; then
	cmpp fixture-script script -i /work/fixture.data
	cmpp fixture-report report --stdio -i /work/fixture.data
fi
info "perf done at $(($(date +%s) - t0))s"

# ---- a 64 MiB memory cgroup around perf script of the fixture -----------------
if [ -s "$W/fixture.data" ] && [ -s "$W/out/fixture-script.stock" ]; then
	cg() { # NAME CMD...: in-root under scripts/cgroup-run.sh 64M; rc into $W/out/NAME.cg
		_n=$1
		shift
		sh "$ROOT/scripts/cgroup-run.sh" 67108864 -- env SYMLAZY_WORK="$W" SYMLAZY_BIND="$T/so" \
			SYMLAZY_SAME="$FIX" sh "$ROOT/scripts/in-root.sh" "$TRX" "$@" \
			>"$W/out/$_n.out" 2>"$W/out/$_n.err"
		echo $? >"$W/out/$_n.rc"
	}
	cg cg-stock perf script -i /work/fixture.data
	if grep -q 'cgroup-run: SKIP' "$W/out/cg-stock.err"; then
		skip "cgroup-64M: $(sed -n 's/.*cgroup-run: SKIP: //p' "$W/out/cg-stock.err" | head -1)"
	else
		cg cg-shim env LD_PRELOAD=/symlazy/libsymlazy.so SYMLAZY_STATS=/work/out/cg-shim.json \
			SYMLAZY_CACHE_DIR=/work/cache perf script -i /work/fixture.data
		rs=$(cat "$W/out/cg-stock.rc") rl=$(cat "$W/out/cg-shim.rc")
		ps=$(sed -n 's/.*peak_kb=\([0-9]*\).*/\1/p' "$W/out/cg-stock.err" | tail -1)
		pl=$(sed -n 's/.*peak_kb=\([0-9]*\).*/\1/p' "$W/out/cg-shim.err" | tail -1)
		if [ "$rs" != 137 ]; then
			fail "cgroup-64M: stock perf script was not OOM-killed (exit $rs, cgroup peak ${ps:-?} KiB)"
		elif [ "$rl" = 0 ] && cmp -s "$W/out/cg-shim.out" "$W/out/fixture-script.stock" &&
			grep -q '"lazy":"on"' "$W/out/cg-shim.json"; then
			pass "cgroup-64M: stock perf script killed (exit 137), symlazy finished with the uncapped stock output ($(wc -l <"$W/out/cg-shim.out") lines; $(lazy_of "$W/out/cg-shim.json"))"
		else
			fail "cgroup-64M: symlazy exit $rl; $(cmp "$W/out/cg-shim.out" "$W/out/fixture-script.stock" 2>&1 | head -1)"
		fi
		info "cgroup-64M: cgroup peak stock ${ps:-?} KiB (killed), symlazy ${pl:-?} KiB"
		row "perf script, fixture, 64 MiB cgroup|${ver#perf version }|stock exit $rs, symlazy exit $rl $(cmp -s "$W/out/cg-shim.out" "$W/out/fixture-script.stock" && echo identical)|$(lazy_of "$W/out/cg-shim.json" | cut -d, -f1)|cgroup $(mib "$ps")|$(mib "$pl")"
	fi
fi

# ---- elfutils 0.192: eu-addr2line, eu-stack ------------------------------------
eu_ver=$(inr eu-addr2line --version 2>/dev/null | sed -n '1s/.* //p')
# addresses: every function symbol of cxx, and 200 of the fixture's main
# (stock libdwfl scans the whole table per address), +1 inside each
inr sh -c 'nm --defined-only /work/cxx | awk "\$2 ~ /^[Tt]\$/ { print \"0x\" \$1 }" | sort -u' >"$W/cxx.addrs" 2>/dev/null
inr sh -c "nm --defined-only $FIX/main | awk '\$2 ~ /^[Tt]\$/ { print \$1 }' | sort -u |
	awk 'NR % 700 == 1 { printf \"0x%s\\n\", \$1 }' | head -200" >"$W/fix.addrs" 2>/dev/null
cmpeu() { # NAME ADDRFILE FILE [small: the index may leave it to libdwfl]
	inr /symlazy/peakrss -o "/work/out/$1.stock.rss" sh -c "exec eu-addr2line -f -e $3 \$(cat /work/$2)" \
		>"$W/out/$1.stock" 2>&1
	inr /symlazy/peakrss -o "/work/out/$1.shim.rss" env LD_PRELOAD=/symlazy/libsymlazy.so \
		SYMLAZY_STATS=/work/out/$1.json SYMLAZY_CACHE_DIR=/work/cache \
		sh -c "exec eu-addr2line -f -e $3 \$(cat /work/$2)" >"$W/out/$1.shim" 2>&1
	_a=$(sed -n 's/.*"dwfl":{"lookups":[0-9]*,"answered":\([0-9]*\).*/\1/p' "$W/out/$1.json" 2>/dev/null)
	_named=$(awk 'NR % 2 == 1 && $0 != "??"' "$W/out/$1.stock" | wc -l)
	_same=no
	cmp -s "$W/out/$1.stock" "$W/out/$1.shim" && _same=identical
	if [ "$_same" = identical ] && [ "$_named" -gt 0 ] && { [ "${_a:-0}" -gt 0 ] || [ -n "${4:-}" ]; }; then
		pass "$1: eu-addr2line -f of $(wc -l <"$W/$2") addresses identical ($_named named), ${_a} answered from the index"
	else
		fail "$1: same=$_same named=$_named answered=${_a:-none}; $(diff "$W/out/$1.stock" "$W/out/$1.shim" | head -3)"
	fi
	info "$1: peak RssAnon stock $(mib "$(rss_anon "$W/out/$1.stock.rss")") MiB, symlazy $(mib "$(rss_anon "$W/out/$1.shim.rss")") MiB"
	row "eu-addr2line ($1)|$eu_ver|$_same|answered ${_a:-0}|$(mib "$(rss_anon "$W/out/$1.stock.rss")")|$(mib "$(rss_anon "$W/out/$1.shim.rss")")"
}
if [ -s "$W/cxx.addrs" ] && [ -s "$W/fix.addrs" ]; then
	cmpeu eu-addr2line-cxx cxx.addrs /work/cxx small
	cmpeu eu-addr2line-fixture fix.addrs "$FIX/main"
else
	fail "eu-addr2line: no addresses from nm in the root"
fi
# eu-stack of one stopped process, stock and shim on the same stack
inr sh -c '/work/cxx 30 >/dev/null & p=$!; sleep 0.5; kill -STOP $p; sleep 0.1
	eu-stack -m -p $p >/work/out/eu-stack.stock 2>/work/out/eu-stack.stock.err
	env LD_PRELOAD=/symlazy/libsymlazy.so SYMLAZY_STATS=/work/out/eu-stack.json SYMLAZY_CACHE_DIR=/work/cache \
		eu-stack -m -p $p >/work/out/eu-stack.shim 2>/work/out/eu-stack.shim.err
	kill -9 $p' >/dev/null 2>&1
if [ -s "$W/out/eu-stack.stock" ] && grep -q ' main ' "$W/out/eu-stack.stock" &&
	cmp -s "$W/out/eu-stack.stock" "$W/out/eu-stack.shim"; then
	pass "eu-stack: $(grep -c '^#' "$W/out/eu-stack.stock") frames of a stopped process identical ($(grep -c '^#[0-9]* *0x[0-9a-f]* *[^ ?]' "$W/out/eu-stack.stock") named)"
	row "eu-stack|$eu_ver|identical|-|-|-"
else
	fail "eu-stack: $(head -2 "$W/out/eu-stack.stock.err" 2>/dev/null) $(diff "$W/out/eu-stack.stock" "$W/out/eu-stack.shim" 2>&1 | head -3)"
fi

# ---- bcc 0.31: Python's BPF.sym of a running program ------------------------------
bcc_ver=$(sed -n 's/^version python3-bpfcc //p' "$TRX/.symlazy-root-complete")
cat >"$W/pysym.py" <<'PY'
import sys, time
from bcc import BPF
pid = int(sys.argv[2])
base = None
for l in open("/proc/%d/maps" % pid):
    f = l.split()
    if len(f) >= 6 and f[5] == sys.argv[3] and f[2] == "00000000":
        base = int(f[0].split("-")[0], 16); break
for line in open(sys.argv[1]):
    a = base + int(line, 16) + 1
    print("%x" % a, BPF.sym(a, pid, show_module=True, show_offset=True).decode(errors="replace"))
PY
if inr python3 -c 'import bcc' >"$T/bcc.chk" 2>&1; then
	sed 's/^0x//' "$W/fix.addrs" >"$W/fixsym.addrs"
	inr sh -c "$FIX/main 30 >/dev/null & p=\$!; sleep 0.5
		python3 /work/pysym.py /work/fixsym.addrs \$p $FIX/main >/work/out/bcc.stock 2>/work/out/bcc.stock.err
		env LD_PRELOAD=/symlazy/libsymlazy.so SYMLAZY_STATS=/work/out/bcc.json SYMLAZY_CACHE_DIR=/work/cache \
			python3 /work/pysym.py /work/fixsym.addrs \$p $FIX/main >/work/out/bcc.shim 2>/work/out/bcc.shim.err
		kill \$p" >/dev/null 2>&1 </dev/null
	named=$(grep -vc '\[unknown\]' "$W/out/bcc.stock" 2>/dev/null)
	if [ "${named:-0}" -gt 0 ] && cmp -s "$W/out/bcc.stock" "$W/out/bcc.shim"; then
		pass "bcc-sym: BPF.sym of $(wc -l <"$W/out/bcc.stock") fixture addresses identical ($named named; $(lazy_of "$W/out/bcc.json"))"
		row "bcc BPF.sym|$bcc_ver|identical|-|-|-"
	else
		fail "bcc-sym: named=${named:-0}; $(head -2 "$W/out/bcc.shim.err") $(diff "$W/out/bcc.stock" "$W/out/bcc.shim" 2>&1 | head -3)"
	fi
else
	skip "bcc-sym: python3 cannot import bcc in the root: $(tail -1 "$T/bcc.chk")"
fi

# ---- bpftrace 0.23: @[ustack] of a uprobe --------------------------------------
bt_ver=$(inr bpftrace --version 2>/dev/null)
fn=$(inr nm --defined-only /work/cxx 2>/dev/null | awk '$3 ~ /apply_twice/ { print $3; exit }')
if ! SYMLAZY_BPF=1 inr bpftrace -e 'BEGIN { exit(); }' >"$T/bt.chk" 2>&1; then
	skip "bpftrace-ustack: BPF unavailable in the root: $(grep -m1 -i -e error -e denied "$T/bt.chk")"
elif [ -z "$fn" ]; then
	fail "bpftrace-ustack: no apply_twice symbol in /work/cxx"
else
	# the program stays alive while bpftrace prints (at exit, after 1 s), so
	# its stack is resolved from /proc/PID/maps; the counts vary between
	# runs, the keys (the stacks) do not
	bt() { # NAME ENV...: bpftrace on $bt_exe (run with $bt_arg) at function $bt_fn
		_m=$1
		shift
		SYMLAZY_BPF=1 inr sh -c 'e=$1 a=$2 f=$3; shift 3; $e $a >/dev/null & p=$!; sleep 0.3
			exec /symlazy/peakrss -o /work/out/bt.$0.rss env "$@" bpftrace -e \
				"uprobe:$e:$f /pid == $p/ { @[ustack] = count(); } interval:s:1 { exit(); }"' \
			"$_m" "$bt_exe" "$bt_arg" "$bt_fn" "$@" >"$W/out/bt.$_m" 2>"$W/out/bt.$_m.err"
		# the keys: one line per stack (frames joined), sorted; bpftrace
		# prints the map by count, which varies between runs
		awk '/^@\[/ { k = ""; on = 1; next } on && /^\]: / { print k; on = 0; next }
			on { sub(/^ +/, ""); k = k ";" $0 }' "$W/out/bt.$_m" | LC_ALL=C sort >"$W/out/bt.$_m.keys"
	}
	bt_exe=/work/cxx bt_arg=6 bt_fn=$fn
	bt stock
	bt shim LD_PRELOAD=/symlazy/libsymlazy.so SYMLAZY_STATS=/work/out/bt.json SYMLAZY_CACHE_DIR=/work/cache
	bta=$(sed -n 's/.*"bcc":{"caches":[0-9]*,"answered":\([0-9]*\).*/\1/p' "$W/out/bt.json" 2>/dev/null)
	_same=no
	cmp -s "$W/out/bt.stock.keys" "$W/out/bt.shim.keys" && _same=identical
	if grep -q 'apply_twice' "$W/out/bt.stock" && grep -q 'main' "$W/out/bt.stock" &&
		[ "$_same" = identical ] && [ "${bta:-0}" -gt 0 ]; then
		pass "bpftrace-ustack: $bt_ver @[ustack] keys identical ($(grep -c '^  ' "$W/out/bt.stock") frames), ${bta} symcache lookups answered from the index (the root's libbcc_bpf.so.0.31.0: the 0.31 model)"
	else
		fail "bpftrace-ustack: answered=${bta:-none}; $(grep -v RLIMIT_MEMLOCK "$W/out/bt.shim.err" | head -2) $(diff "$W/out/bt.stock.keys" "$W/out/bt.shim.keys" 2>&1 | head -4)"
	fi
	grep -q RLIMIT_MEMLOCK "$W/out/bt.stock.err" &&
		info "bpftrace-ustack: bpftrace could not raise RLIMIT_MEMLOCK in the root (the kernel charges BPF memory to the memory cgroup, so it loads anyway)"
	# a libbcc of a version no model mirrors (the same library under the
	# file name of 0.99.0) passes through untouched: no cache answered,
	# the same stack
	mkdir -p "$W/bcc099"
	cp "$TRX/usr/lib/x86_64-linux-gnu/libbcc_bpf.so.0.31.0" "$W/bcc099/libbcc_bpf.so.0.99.0" &&
		ln -sf libbcc_bpf.so.0.99.0 "$W/bcc099/libbcc_bpf.so.0"
	bt unknown LD_LIBRARY_PATH=/work/bcc099 LD_PRELOAD=/symlazy/libsymlazy.so SYMLAZY_VERBOSE=1 \
		SYMLAZY_STATS=/work/out/bt.unknown.json SYMLAZY_CACHE_DIR=/work/cache
	# the stats have a "bcc" object only when a cache was tracked
	btu=$(grep -c '"bcc":{' "$W/out/bt.unknown.json" 2>/dev/null)
	if [ -s "$W/out/bt.unknown.json" ] && [ "$btu" = 0 ] &&
		grep -q 'libbcc 0.99.0 is not 0.26 or 0.31' "$W/out/bt.unknown.err" &&
		grep -q apply_twice "$W/out/bt.unknown" && cmp -s "$W/out/bt.stock.keys" "$W/out/bt.unknown.keys"; then
		pass "bpftrace-unknown-libbcc: libbcc_bpf.so.0.99.0 is recognised as unknown and passes through (no cache tracked), @[ustack] keys identical"
	else
		fail "bpftrace-unknown-libbcc: bcc objects in the stats=${btu:-none}; $(grep symlazy "$W/out/bt.unknown.err" | head -2) $(diff "$W/out/bt.stock.keys" "$W/out/bt.unknown.keys" 2>&1 | head -3)"
	fi
	info "bpftrace-ustack: peak RssAnon stock $(mib "$(rss_anon "$W/out/bt.stock.rss")") MiB, symlazy $(mib "$(rss_anon "$W/out/bt.shim.rss")") MiB"
	row "bpftrace @[ustack] (cxx)|${bt_ver#bpftrace }|$_same|answered ${bta:-0}|$(mib "$(rss_anon "$W/out/bt.stock.rss")")|$(mib "$(rss_anon "$W/out/bt.shim.rss")")"
	# the 500k-symbol fixture: stock libbcc loads every symbol of main and
	# libbigshared.so into its cache (core/model/bcc026.c: 272 bytes each)
	bt_exe=$FIX/main bt_arg=8 bt_fn=$(awk '$1 == "big" && $2 ~ /^[_A-Za-z0-9]+$/ { print $2; exit }' "$FIX/hot.txt")
	bt fix.stock
	bt fix.shim LD_PRELOAD=/symlazy/libsymlazy.so SYMLAZY_STATS=/work/out/bt.fix.json SYMLAZY_CACHE_DIR=/work/cache
	bfa=$(sed -n 's/.*"bcc":{"caches":[0-9]*,"answered":\([0-9]*\).*/\1/p' "$W/out/bt.fix.json" 2>/dev/null)
	_same=no
	cmp -s "$W/out/bt.fix.stock.keys" "$W/out/bt.fix.shim.keys" && _same=identical
	if grep -q '^ *main+' "$W/out/bt.fix.stock" && [ "$_same" = identical ] && [ "${bfa:-0}" -gt 0 ]; then
		pass "bpftrace-ustack-fixture: @[ustack] keys identical ($(wc -l <"$W/out/bt.fix.stock.keys") stacks), ${bfa} symcache lookups answered from the index"
	else
		fail "bpftrace-ustack-fixture: answered=${bfa:-none}; $(grep -v RLIMIT_MEMLOCK "$W/out/bt.fix.shim.err" | head -2) $(diff "$W/out/bt.fix.stock.keys" "$W/out/bt.fix.shim.keys" 2>&1 | head -4)"
	fi
	info "bpftrace-ustack-fixture: peak RssAnon stock $(mib "$(rss_anon "$W/out/bt.fix.stock.rss")") MiB, symlazy $(mib "$(rss_anon "$W/out/bt.fix.shim.rss")") MiB"
	row "bpftrace @[ustack] (fixture)|${bt_ver#bpftrace }|$_same|answered ${bfa:-0}|$(mib "$(rss_anon "$W/out/bt.fix.stock.rss")")|$(mib "$(rss_anon "$W/out/bt.fix.shim.rss")")"
fi
info "tools done at $(($(date +%s) - t0))s"

# ---- the Debian packages in a throwaway view of the root --------------------------
# ovl CMD...: CMD with $T/ovl/merged an overlayfs of the cached root (writes
# go to $T/ovl/upper), in a private mount namespace: gone when CMD ends
# (without overlayfs: a copy of the root in $T/ovl/merged, made per call)
ovl() {
	rm -rf "$T/ovl"
	mkdir -p "$T/ovl/upper" "$T/ovl/work" "$T/ovl/merged"
	if [ "$OVL" = copy ]; then
		rmdir "$T/ovl/merged" && cp -a "$TRX" "$T/ovl/merged" || return 125
		"$@"
		return
	fi
	unshare --mount --propagation private sh -c '
		mount -t overlay overlay -o "lowerdir=$1,upperdir=$2/upper,workdir=$2/work" "$2/merged" ||
			{ echo "container: overlayfs mount failed" >&2; exit 125; }
		shift 2; exec "$@"' sh "$TRX" "$T/ovl" "$@"
}
OVL=overlay
if ! ovl test -x "$T/ovl/merged/bin/sh" 2>"$T/ovl.err"; then
	OVL=copy
	info "deb: no overlayfs here ($(head -1 "$T/ovl.err" 2>/dev/null)): the packages go into a copy of the root under $T"
fi
mkdir -p "$W/deb"
if ! SYMLAZY_DEB_OUT="$W/deb" sh "$ROOT/scripts/build-deb.sh" >"$T/deb.log" 2>&1; then
	if grep -q 'build-deb: no ' "$T/deb.log"; then
		skip "deb: $(grep 'build-deb: no ' "$T/deb.log" | head -1)"
	else
		fail "deb: scripts/build-deb.sh: $(grep -v '^/' "$T/deb.log" | head -3)"
	fi
else
	lint=$(grep -c 'not checked' "$T/deb.log")
	[ "$lint" = 0 ] && pass "deb/lintian: $(ls "$W/deb" | tr '\n' ' ')lintian-clean" ||
		skip "deb/lintian: lintian not installed (scripts/install-deps.sh as root installs it)"
	# dpkg -i, then the installed library under perf and symlazy doctor
	cat >"$W/pkg.sh" <<'SH'
set -e
dpkg -i /work/deb/libsymlazy_*.deb /work/deb/symlazy_*.deb >/work/out/dpkg.log 2>&1
dpkg-query -W -f='${Package} ${Version} ${Status}\n' libsymlazy symlazy >/work/out/dpkg.query
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
env LD_PRELOAD=/usr/lib/$ma/libsymlazy.so SYMLAZY_STATS=/work/out/pkg.json SYMLAZY_CACHE_DIR=/work/cache \
	perf script -i /work/fixture.data >/work/out/pkg.script
symlazy doctor >/work/out/doctor.out 2>&1 || echo "doctor exit $?" >>/work/out/doctor.out
man -w symlazy libsymlazy 2>/dev/null >/work/out/man.paths || ls /usr/share/man/man1/symlazy.1.gz /usr/share/man/man7/libsymlazy.7.gz >/work/out/man.paths
SH
	if ! ovl env SYMLAZY_WORK="$W" SYMLAZY_BIND= SYMLAZY_SAME="$FIX" sh "$ROOT/scripts/in-root.sh" "$T/ovl/merged" \
		sh /work/pkg.sh >"$T/pkg.log" 2>&1; then
		fail "deb/install: $(tail -3 "$T/pkg.log") $(tail -3 "$W/out/dpkg.log" 2>/dev/null)"
	else
		n=$(grep -c 'install ok installed' "$W/out/dpkg.query")
		[ "$n" = 2 ] && pass "deb/install: dpkg -i in the Debian 13 view: $(cut -d' ' -f1,2 "$W/out/dpkg.query" | tr '\n' ' ')" ||
			fail "deb/install: $(cat "$W/out/dpkg.query")"
		if cmp -s "$W/out/pkg.script" "$W/out/fixture-script.stock" && grep -q '"lazy":"on"' "$W/out/pkg.json"; then
			pass "deb/perf: LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libsymlazy.so perf script identical to stock ($(lazy_of "$W/out/pkg.json"))"
		else
			fail "deb/perf: $(lazy_of "$W/out/pkg.json"); $(cmp "$W/out/pkg.script" "$W/out/fixture-script.stock" 2>&1 | head -1)"
		fi
		if grep -q '^ok *shim: /usr/lib/x86_64-linux-gnu/libsymlazy.so' "$W/out/doctor.out" &&
			grep -q "^ok *version: perf ${ver#perf version }: symlazy's perf-6.12 model applies" "$W/out/doctor.out"; then
			pass "deb/doctor: symlazy doctor finds $(grep -o '/usr/lib/x86_64-linux-gnu/libsymlazy.so[^ ]*' "$W/out/doctor.out" | head -1) and names Debian's perf ${ver#perf version } with the perf-6.12 model"
		else
			fail "deb/doctor: $(head -5 "$W/out/doctor.out")"
		fi
		[ "$(wc -l <"$W/out/man.paths")" -ge 2 ] && pass "deb/man: $(tr '\n' ' ' <"$W/out/man.paths")" ||
			fail "deb/man: symlazy(1), libsymlazy(7) not installed"
	fi
	[ -d "$TRX/usr/share/doc/libsymlazy" ] && fail "deb: the cached root was changed (usr/share/doc/libsymlazy)"

	# ---- examples/container.md: its ```sh blocks in a fresh view ----------------
	awk '/^```sh$/ { on = 1; next } /^```/ { on = 0 } on' "$ROOT/examples/container.md" >"$W/doc.sh"
	nb=$(grep -c '^```sh$' "$ROOT/examples/container.md")
	if [ "$nb" -lt 1 ]; then
		fail "docs: no sh block in examples/container.md"
	elif ovl env SYMLAZY_WORK="$W" SYMLAZY_BIND="$T/so" SYMLAZY_BIND_AT=/opt/symlazy \
		sh "$ROOT/scripts/in-root.sh" "$T/ovl/merged" sh -e /work/doc.sh >"$W/out/doc.out" 2>"$W/out/doc.err" &&
		[ "$(grep -c '"lazy":"on"' "$W/out/doc.out")" = 2 ] && grep -q 'perf script: identical' "$W/out/doc.out" &&
		grep -q '/usr/lib/x86_64-linux-gnu/libsymlazy.so' "$W/out/doc.out"; then
		pass "docs: the $nb sh blocks of examples/container.md ($(wc -l <"$W/doc.sh") lines) ran in the Debian 13 root: $(grep 'perf script: identical' "$W/out/doc.out"), lazy on twice, doctor finds the package's library"
	else
		fail "docs: examples/container.md: $(tail -3 "$W/out/doc.err") $(tail -3 "$W/out/doc.out")"
	fi
fi
rm -rf "$T/ovl"

# the table (tool, version, identical, lazy, stock/symlazy peak RssAnon MiB)
if [ -f "$T/table" ]; then
	while IFS='|' read -r a b c d e f; do
		info "table: $a | $b | $c | $d | $e / $f MiB"
	done <"$T/table"
fi
info "done in $(($(date +%s) - t0))s"
exit $failed
