#!/bin/sh
# cli.sh - the `symlazy` command (cmd/) against real perf 6.1 and the
# generated fixture (build/fixture, shared with perf_shim.sh):
#   usage      exit codes 0/1/2, one "symlazy <sub>: ..." line per error
#   doctor     lazy on/off with the reason the shim then reports in its stats
#   index      `index -i perf.data` builds what a later perf script maps
#              (cache files untouched by the run: same inode, mtime, count)
#   run        CMD's stdout byte-identical to stock perf, exit status passed
#              through (code, 128+signal, 127), summary numbers == stats JSON
#   stats      table totals == JSON, --json passes the file through, bad files
#   lookup     names == perf script's for callchain offsets and for sample
#              ips converted with the MMAP2 start/pgoff, incl. PLT stubs and
#              overlapping symbols (a small program like lazy_plt.sh's)
#   addrs      the SYMLAZY_ADDRS list
#   man        doc/symlazy.1 and doc/libsymlazy.7 render
# Prints PASS:/FAIL:/SKIP: <name>: detail lines; exits 1 on a failure.
set -u
. "$(dirname "$0")/../lib/common.sh"
FIX=${PERF_SHIM_FIXTURE:-$ROOT/build/fixture}
unset_symlazy_env SYMLAZY_LIB XDG_CACHE_HOME
[ -x "$CLI" ] || { fail "cli: $CLI missing (run make)"; exit 1; }

test_tmpdir cli
export HOME=$T/home        # perf's ~/.debug and the index cache stay here
mkdir -p "$HOME"
CACHE=$HOME/.cache/symlazy

# rc EXPECTED NAME CMD...: exit code and "one stderr line, prefixed" checks
rc() {
	_want=$1 _name=$2
	shift 2
	"$@" >"$T/rc.out" 2>"$T/rc.err"
	_got=$?
	if [ "$_got" != "$_want" ]; then
		fail "$_name: exit $_got, want $_want ($(head -c 200 "$T/rc.err"))"
		return 1
	fi
	if [ "$_want" != 0 ]; then
		_n=$(wc -l <"$T/rc.err")
		if [ "$_n" != 1 ] || ! grep -q '^symlazy' "$T/rc.err"; then
			fail "$_name: want one 'symlazy ...' stderr line, got $_n: $(head -c 200 "$T/rc.err")"
			return 1
		fi
	fi
	pass "$_name: exit $_want${3:+ }$(head -c 100 "$T/rc.err" | tr '\n' ' ')"
}

# ---- usage ----------------------------------------------------------------
"$CLI" >/dev/null 2>"$T/e"; r=$?
[ $r = 2 ] && grep -q '^usage: symlazy <command>' "$T/e" && pass "usage-no-command: exit 2, usage on stderr" ||
	fail "usage-no-command: exit $r"
"$CLI" nosuch >/dev/null 2>"$T/e"; r=$?
[ $r = 2 ] && grep -q "^symlazy: 'nosuch' is not a symlazy command" "$T/e" && pass "usage-unknown-command: exit 2" ||
	fail "usage-unknown-command: exit $r"
n=0
for s in run doctor stats index lookup addrs; do
	"$CLI" "$s" --help >"$T/h" 2>&1 && grep -q "^usage: symlazy $s" "$T/h" && n=$((n + 1))
done
[ $n = 6 ] && pass "usage-help: 6 subcommands print usage, exit 0" || fail "usage-help: $n of 6"
rc 2 usage-unknown-option "$CLI" lookup --bogus x
rc 2 usage-missing-argument "$CLI" run --budget
rc 2 usage-bad-budget "$CLI" run --budget 12Q -- true
rc 2 usage-bad-lazy "$CLI" run --lazy sometimes -- true
rc 2 usage-run-no-cmd "$CLI" run
rc 2 usage-stats-no-file "$CLI" stats
rc 2 usage-index-nothing "$CLI" index
rc 2 usage-lookup-bad-addr "$CLI" lookup /bin/true 0xzz
rc 1 lookup-not-elf "$CLI" lookup /etc/passwd 0
rc 1 lookup-missing-file "$CLI" lookup "$T/none" 0
rc 1 index-not-elf "$CLI" index /etc/passwd
rc 1 addrs-missing-file "$CLI" addrs -i "$T/none.data" -o "$T/a.txt"

# ---- run: exit status and untouched output, no perf needed ----------------------
"$CLI" run -- sh -c 'echo out; echo err >&2; exit 3' >"$T/o" 2>"$T/e"; r=$?
if [ $r = 3 ] && [ "$(cat "$T/o")" = out ] && [ "$(head -1 "$T/e")" = err ] && grep -q 'exit 3' "$T/e"; then
	pass "run-exit-code: 3 passed through, stdout untouched, summary after CMD's stderr"
else fail "run-exit-code: exit $r, stdout '$(cat "$T/o")'"; fi
"$CLI" run -- sh -c 'kill -TERM $$' >/dev/null 2>&1; r=$?
[ $r = 143 ] && pass "run-signal: 128+SIGTERM = 143" || fail "run-signal: exit $r, want 143"
rc 127 run-not-found "$CLI" run -- "$T/no-such-cmd"
rc 1 run-no-lib env SYMLAZY_LIB="$T/none.so" "$CLI" run -- true

command -v "$PERF" >/dev/null 2>&1 || { skip "cli: perf not installed"; exit $failed; }
sh "$ROOT/scripts/build-fixture.sh" "$FIX" >"$T/fixture.log" 2>&1 ||
	{ cat "$T/fixture.log"; fail "cli: fixture build"; exit 1; }
cd "$T" || exit 1
if ! "$PERF" record -q -g -o fp.data -- "$FIX/main" 0.5 >/dev/null 2>rec.err; then
	cat rec.err
	skip "cli: perf record does not work here (not root / perf_event_paranoid / container)"
	exit $failed
fi
"$PERF" script -i fp.data >stock.out 2>/dev/null

# ---- doctor -------------------------------------------------------------------------
"$CLI" doctor -- "$PERF" script -i fp.data >doc.out 2>&1; r=$?
bad=$(grep -cvE '^(ok|warn|fail)  +[a-z_]+: ' doc.out)
if [ $r = 0 ] && [ "$bad" = 0 ] && grep -q '^ok    lazy: on: fp.data has [1-9][0-9]* addresses' doc.out &&
   grep -q '^ok    shim: .*NEEDED libc.so.6 only' doc.out && grep -q '^ok    version: perf 6\.1\.' doc.out &&
   grep -q '^ok    libelf: ' doc.out && grep -q '^[a-z]*  *perf_event_paranoid: [-0-9]' doc.out &&
   grep -q '^[a-z]*  *kptr_restrict: [0-9]' doc.out; then
	pass "doctor-lazy-on: exit 0, $(wc -l <doc.out) check lines ($(grep '^ok    lazy' doc.out))"
else fail "doctor-lazy-on: exit $r, $bad malformed lines"; cat doc.out; fi
# the reason doctor predicts is the one the shim then reports (stats lazy_reason)
for c in "grouped -fi fp.data" "missing -i $T/none.data" "notsub record -o x.data" "lazyoff -i fp.data"; do
	set -- $c
	n=$1
	shift
	if [ "$n" = lazyoff ]; then env="SYMLAZY_LAZY=off"; else env="SYMLAZY_X=1"; fi
	if [ "$n" = notsub ]; then
		env $env "$CLI" doctor -- "$PERF" "$@" >d.out 2>&1
		want="not perf script/report/annotate/diff/data convert"
	elif [ "$n" = missing ]; then     # perf fails before its first libelf call: no stats
		env $env "$CLI" doctor -- "$PERF" script "$@" >d.out 2>&1
		want="$T/none.data is not a regular file"
	else
		env $env "$CLI" doctor -- "$PERF" script "$@" >d.out 2>&1
		env $env "$CLI" run --stats="$T/r-$n.json" -- "$PERF" script "$@" >/dev/null 2>&1
		want=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["lazy_reason"])' "$T/r-$n.json" 2>&1)
	fi
	got=$(sed -n 's/^[a-z]*  *lazy: off: //p' d.out)
	if [ -n "$got" ] && [ "$got" = "$want" ]; then pass "doctor-reason-$n: '$got' == shim's"
	else fail "doctor-reason-$n: doctor '$got', shim '$want'"; fi
done
SYMLAZY_LIB=/etc/passwd "$CLI" doctor >d.out 2>&1; r=$?
[ $r = 1 ] && grep -q '^fail  shim: /etc/passwd is not an ELF shared object' d.out &&
	pass "doctor-bad-lib: fail line, exit 1" || { fail "doctor-bad-lib: exit $r"; cat d.out; }
SYMLAZY_LIB=/bin/true "$CLI" doctor >d.out 2>&1; r=$?
[ $r = 1 ] && grep -q '^fail  shim: ' d.out && pass "doctor-lib-not-a-shared-object: exit 1" ||
	fail "doctor-lib-not-a-shared-object: exit $r"
"$CLI" doctor -- /bin/true >d.out 2>&1; r=$?
[ $r = 0 ] && grep -q '^warn  lazy: off: not perf$' d.out && pass "doctor-not-perf: lazy off: not perf" ||
	{ fail "doctor-not-perf: exit $r"; cat d.out; }
"$CLI" doctor -- no-such-tool-xyz >d.out 2>&1; r=$?
[ $r = 1 ] && grep -q '^fail  tool: no-such-tool-xyz: not found in PATH' d.out && pass "doctor-no-tool: exit 1" ||
	fail "doctor-no-tool: exit $r"

# ---- index: built ahead, then a cache hit inside perf ------------------------------------
"$CLI" index --clean >/dev/null 2>&1
"$CLI" index -i fp.data >idx.out 2>idx.err; r=$?
nb=$(grep -c ': built ' idx.out)
if [ $r = 0 ] && grep -q "(for $FIX/main)" idx.out && grep -q "(for $FIX/libbigshared.so)" idx.out; then
	pass "index-perfdata: exit 0, $nb indexes built"
else fail "index-perfdata: exit $r: $(cat idx.err)"; cat idx.out; fi
ls -li --time-style=full-iso "$CACHE" | grep '\.idx$' >before.ls
"$CLI" index -i fp.data >idx2.out 2>&1
nc=$(grep -c ': cached ' idx2.out)
[ "$nc" = "$nb" ] && pass "index-again: all $nc found in the cache" || fail "index-again: $nc cached of $nb"
"$CLI" run --stats="$T/s.json" -- "$PERF" script -i fp.data >run.out 2>run.err; r=$?
ls -li --time-style=full-iso "$CACHE" | grep '\.idx$' >after.ls
lazy=$("$PY" -c 'import json,sys
d=json.load(open(sys.argv[1]))
m=[x["mode"] for x in d["dsos"] if x["table"]=="symtab" and "/fixture/main/" in x["path"]]
print(d["lazy"], m[0] if m else "none")' "$T/s.json" 2>&1)
if [ $r = 0 ] && [ "$lazy" = "on lazy" ] && cmp -s before.ls after.ls && [ -s before.ls ]; then
	pass "index-cache-hit: perf script under the shim is lazy ($lazy) and left all $(wc -l <before.ls) index files as built (inode, mtime)"
else fail "index-cache-hit: exit $r, lazy '$lazy'"; diff before.ls after.ls; fi
# the other way round: files the shim wrote are the ones index computes (same keys)
"$CLI" index --clean >/dev/null 2>&1
"$CLI" run -- "$PERF" script -i fp.data >/dev/null 2>&1
"$CLI" index -i fp.data >idx4.out 2>&1
nc=$(grep -c ': cached ' idx4.out)
[ "$nc" = "$nb" ] && [ "$(grep -c ': built ' idx4.out)" = 0 ] &&
	pass "index-same-keys: all $nc indexes the shim wrote are the ones index -i computes" ||
	{ fail "index-same-keys: $nc cached of $nb"; cat idx4.out; }
n=$("$CLI" index --list | wc -l)
[ "$n" = "$(wc -l <before.ls)" ] && "$CLI" index --list | grep -q "^[0-9a-f]\{40\}-[0-9a-f]\{16\}\.idx  *[0-9][0-9]*  [0-9a-f]\{40\}$" &&
	pass "index-list: $n files with size and build-id" || fail "index-list: $n lines"
"$CLI" index "$FIX/main" >idx3.out 2>&1; r=$?
grep -Eq ": (built|cached) .* build-id [0-9a-f]{40}$" idx3.out && [ $r = 0 ] && pass "index-file: $FIX/main indexed" ||
	{ fail "index-file: exit $r"; cat idx3.out; }

# ---- run: output, summary, stats ------------------------------------------------------
if cmp -s stock.out run.out; then pass "run-stdout-identical: $(wc -l <stock.out) lines == stock perf script"
else fail "run-stdout-identical: $(diff stock.out run.out | grep -c '^>') lines differ"; fi
"$PY" - "$T/s.json" run.err >sum.cmp <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
txt = open(sys.argv[2]).read()
rows = re.findall(r"^  (\S.{29}) (\S+)\s+(symtab|dynsym) (\S+)\s+(\d+)/(\d+)\s+(\d+)$", txt, re.M)
want = sorted((x["table"], x["mode"], x["passed"], x["scanned"], x["bytes"]) for x in d["dsos"])
got = sorted((r[2], r[3], int(r[4]), int(r[5]), int(r[6])) for r in rows)
tot = re.search(r"^  total\s+(\d+)/(\d+)\s+(\d+)$", txt, re.M)
ok = (got == want and tot and (int(tot.group(1)), int(tot.group(2))) == (d["totals"]["passed"], d["totals"]["scanned"])
      and re.search(r"peak RssAnon [0-9.]+ MiB, wall [0-9.]+ s, exit 0", txt) and "lazy: on (" in txt)
print("ok" if ok else "bad", len(rows), "rows", d["totals"]["passed"], "/", d["totals"]["scanned"])
PY
grep -q '^ok' sum.cmp && pass "run-summary-equals-stats: $(cat sum.cmp)" || { fail "run-summary-equals-stats: $(cat sum.cmp)"; cat run.err; }
"$CLI" run --lazy off --budget 1M --summary="$T/sum.txt" -- "$PERF" script -i fp.data >/dev/null 2>run2.err
if grep -q 'lazy: off (SYMLAZY_LAZY=off)' sum.txt && grep -q '^  budget 1048576 bytes: charged' sum.txt &&
   ! grep -q 'symlazy run:' run2.err; then pass "run-lazy-off-budget: summary in --summary file, budget shown"
else fail "run-lazy-off-budget"; cat sum.txt; fi

# ---- stats ------------------------------------------------------------------------------
"$CLI" stats s.json >st.out 2>&1; r=$?
tot=$("$PY" -c 'import json,sys; t=json.load(open(sys.argv[1]))["totals"]; print("%d/%d %d" % (t["passed"], t["scanned"], t["bytes"]))' s.json)
if [ $r = 0 ] && grep -Eq "^total +${tot%% *} +${tot#* }$" st.out && grep -q '^lazy: on (' st.out; then
	pass "stats-table: totals $tot == JSON"
else fail "stats-table: exit $r, want total $tot"; cat st.out; fi
"$CLI" stats --json s.json >sj.out && cmp -s sj.out s.json && pass "stats-json: passes the file through" || fail "stats-json"
head -c 300 s.json >cut.json
rc 1 stats-truncated "$CLI" stats cut.json
sed 's/"scanned":[0-9]*/"scanned":-1/' s.json >neg.json
rc 1 stats-corrupt "$CLI" stats --json neg.json
rc 1 stats-missing "$CLI" stats "$T/none.json"

# ---- lookup == perf ------------------------------------------------------------------------
# (a) callchain entries: perf script prints user addresses as file offsets
"$PERF" script -i fp.data -F ip,sym,symoff,dso >cs.txt 2>/dev/null
lk() {  # lk FILE < "off name+0xoff" lines: 0 if symlazy lookup prints the same
	_f=$1 _n=$2
	sort -u >"$T/lk-$_n.want"
	cut -d' ' -f1 "$T/lk-$_n.want" | "$CLI" lookup "$_f" | sed 's/^0x//' | sort -u >"$T/lk-$_n.got"
	cmp -s "$T/lk-$_n.want" "$T/lk-$_n.got"
}
for d in main libbigshared.so; do
	grep " ($FIX/$d)\$" cs.txt | sed -E 's/^[[:space:]]+//; s/ \([^()]*\)$//' | lk "$FIX/$d" "cc-$d"
	if [ $? = 0 ] && [ -s "lk-cc-$d.want" ]; then pass "lookup-callchain-$d: $(wc -l <lk-cc-$d.want) offsets, names == perf script"
	else fail "lookup-callchain-$d: $(diff lk-cc-$d.want lk-cc-$d.got | grep -c '^>') differ"; show_diff "lk-cc-$d.want" "lk-cc-$d.got" 4; fi
done
# (b) sample ips: file offset = ip - MMAP2 start + pgoff (map__map_ip)
"$PERF" script -i fp.data -F ip,sym,symoff,dso --show-mmap-events -G >ip.txt 2>/dev/null
"$PY" - ip.txt "$FIX" >conv.txt <<'PY'
import re, sys
maps, out = [], []
for l in open(sys.argv[1]):
    m = re.search(r"PERF_RECORD_MMAP2? .*\[0x([0-9a-f]+)\(0x([0-9a-f]+)\) @ (0x[0-9a-f]+|0) .*\]: [r-]-?x?p? ?(\S+)$", l)
    if m:
        maps.append((int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16), m.group(4)))
        continue
    m = re.match(r"^\s*([0-9a-f]+) (.*) \(([^()]*)\)$", l)
    if not m or not m.group(3).startswith(sys.argv[2] + "/"):
        continue
    ip = int(m.group(1), 16)
    for st, ln, pg, path in reversed(maps):
        if path == m.group(3) and st <= ip < st + ln:
            out.append("%s %x %s" % (path, ip - st + pg, m.group(2)))
            break
for o in sorted(set(out))[:400]:
    print(o)
PY
nip=0 ipbad=0
for d in main libbigshared.so; do
	grep "^$FIX/$d " conv.txt | cut -d' ' -f2- | lk "$FIX/$d" "ip-$d" || ipbad=1
	nip=$((nip + $(wc -l <"lk-ip-$d.want")))
done
[ $ipbad = 0 ] && [ $nip -gt 0 ] && pass "lookup-sample-ip: $nip sample ips converted with MMAP2 start/pgoff, names == perf script" ||
	{ fail "lookup-sample-ip: $nip ips, mismatch"; show_diff lk-ip-main.want lk-ip-main.got 4; }
# (c) --json carries the same names
"$CLI" lookup --json "$FIX/main" $(head -20 lk-cc-main.want | cut -d' ' -f1) >lk.json
"$PY" -c 'import json,sys
d=json.load(open(sys.argv[1]))
print("\n".join("%s %s+%s" % (r["addr"][2:], r["name"], r["offset"]) if r["found"] else r["addr"][2:]+" [unknown]" for r in d["results"]))' lk.json | sort -u >lkj.got
head -20 lk-cc-main.want | sort -u | cmp -s - lkj.got && pass "lookup-json: 20 results == text names" || fail "lookup-json"
# (d) PLT stubs and overlapping symbols (as tests/integration/lazy_plt.sh builds them)
mkdir -p plt && cd plt || exit 1
printf 'int tiny(int x) { return x + 1; }\nint tiny2(int x) { return x ^ 3; }\n' >lib.c
cat >ov.s <<'S'
	.text
	.globl	outer
	.type	outer, @function
outer:
	movl	$2000, %ecx
1:	addl	$1, %eax
	.globl	inner_label
inner_label:
	addl	$2, %eax
	subl	$1, %ecx
	jnz	1b
	ret
	.size	outer, .-outer
	.section .note.GNU-stack,"",@progbits
S
cat >main.c <<'C'
#include <stdlib.h>
int tiny(int); int tiny2(int); int outer(void);
int main(int argc, char **argv) {
	long n = argc > 1 ? atol(argv[1]) : 4000000; int a = 0;
	for (long i = 0; i < n; i++) { a = tiny(a); a = tiny2(a); if ((i & 1023) == 0) a += outer(); }
	return a == 42;
}
C
if cc -O1 -fPIC -shared -o libtiny.so lib.c && cc -O1 -fno-omit-frame-pointer -o plt main.c ov.s -L. -ltiny -Wl,-rpath,'$ORIGIN' &&
   "$PERF" record -q -F 20000 -g -o plt.data ./plt >/dev/null 2>&1; then
	"$PERF" script -i plt.data -F ip,sym,symoff,dso >cs.txt 2>/dev/null
	grep " ($T/plt/plt)\$" cs.txt | sed -E 's/^[[:space:]]+//; s/ \([^()]*\)$//' | lk plt plt
	r=$?
	np=$(grep -c '@plt+' "$T/lk-plt.want") no=$(grep -c 'outer+\|inner_label+' "$T/lk-plt.want")
	if [ $r = 0 ] && [ "$no" -gt 0 ]; then pass "lookup-plt-overlap: $(wc -l <"$T/lk-plt.want") offsets ($np in PLT stubs, $no in outer/inner_label) == perf"
	else fail "lookup-plt-overlap: $np plt, $no overlap lines"; show_diff "$T/lk-plt.want" "$T/lk-plt.got" 6; fi
	[ "$np" -gt 0 ] || skip "lookup-plt-stub: no sample landed in a PLT stub this time"
else fail "lookup-plt-overlap: build or perf record failed"; fi
cd "$T" || exit 1

# ---- addrs -----------------------------------------------------------------------------------
"$CLI" addrs -i fp.data -o a.txt 2>a.err; r=$?
n=$(grep -vc '^#' a.txt)
bad=$(grep -v '^#' a.txt | grep -vc '^[0-9a-f]\{40\} [0-9a-f]\{1,16\}$')
tot=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["addrs"])' s.json)
[ $r = 0 ] && [ "$bad" = 0 ] && [ "$n" = "$tot" ] && pass "addrs: $n lines == the shim's addrs count ($tot)" ||
	fail "addrs: exit $r, $n lines, $bad malformed, shim read $tot"
"$CLI" addrs -i fp.data --stats >as.out && grep -q '^dsos: [1-9]' as.out && pass "addrs-stats" || fail "addrs-stats"

# ---- man pages ----------------------------------------------------------------------------------
if command -v man >/dev/null 2>&1; then
	MANWIDTH=80 man -l "$ROOT/doc/symlazy.1" 2>man.err | col -b >man1.txt
	MANWIDTH=80 man -l "$ROOT/doc/libsymlazy.7" 2>>man.err | col -b >man7.txt
	if grep -q 'symlazy doctor' man1.txt && grep -q 'SYMLAZY_MAX_BYTES' man7.txt && ! grep -q warning man.err; then
		pass "man: symlazy.1 ($(wc -l <man1.txt) lines), libsymlazy.7 ($(wc -l <man7.txt) lines) render"
	else fail "man: $(head -3 man.err)"; fi
else skip "man: man not installed"; fi
exit $failed
