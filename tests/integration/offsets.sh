#!/bin/sh
# offsets.sh - name lookups and uprobe offsets (index/names.h, `symlazy offsets`, go/):
#   readelf  `symlazy offsets` prints, for every symbol name and near misses, the
#            offset readelf -sW / -lW give by the documented rule
#            (tests/integration/offsets_ref.py): librustc_driver (rustup or
#            `rustc --print sysroot`), libLLVM (if there), node, the fixture
#            (build/fixture), libc with its build-id debug file (libc6-dbg), a
#            stripped copy of the fixture's library with a .gnu_debuglink file
#   cli      exit codes, names on stdin, --json, --no-cache, index --names /
#            --list / --clean; libsymlazy.so unchanged (NEEDED libc only, no
#            name-index code in it)
#   go       with a Go toolchain: go vet, then go test on the same binaries, the
#            500k-symbol fixture (build/fix500k, when scripts/bench-go.sh or
#            OFFSETS_FIX500K=1 built it) and a Go binary: every name's offset ==
#            Go's debug/elf as cilium/ebpf uses it, C and Go builds byte-identical
#            (also on scripts/gen-malformed.py's 470 broken ELF files: both refuse
#            or both build the same bytes), <= 64 KiB Go heap per open index, no
#            allocation per lookup, >= 1M lookups/s; SKIP without Go
# Prints PASS:/FAIL:/SKIP: lines; exits 1 on a failure.
set -u
. "$(dirname "$0")/../lib/common.sh"
B=$ROOT/build/offsets
unset_symlazy_env SYMLAZY_LIB XDG_CACHE_HOME SYMLAZY_TEST_BINS
[ -x "$CLI" ] || { fail "offsets: $CLI missing (run make)"; exit 1; }
rm -rf "$B"
mkdir -p "$B"
export SYMLAZY_CACHE_DIR="$B/cache"

is_elf() { [ -f "$1" ] && [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }

# ---- the binaries ------------------------------------------------------------
SYSROOT=$(rustc --print sysroot 2>/dev/null || true)
RUSTC_DRIVER=""
for f in "$SYSROOT"/lib/librustc_driver-*.so "$HOME"/.rustup/toolchains/*/lib/librustc_driver-*.so; do
	is_elf "$f" && { RUSTC_DRIVER=$f; break; }
done
LIBLLVM=""
for f in "$(dirname "${RUSTC_DRIVER:-/nonexistent/x}")"/libLLVM*.so* /usr/lib/llvm-*/lib/libLLVM*.so*; do
	is_elf "$f" && { LIBLLVM=$f; break; }
done
NODE=$(command -v node 2>/dev/null || true)
[ -n "$NODE" ] && NODE=$(readlink -f "$NODE")
FIX=${PERF_SHIM_FIXTURE:-$ROOT/build/fixture}
sh "$ROOT/scripts/build-fixture.sh" "$FIX" >"$B/fixture.log" 2>&1 || { cat "$B/fixture.log"; FIX=""; }
FIX500=$ROOT/build/fix500k
if [ ! -x "$FIX500/main" ] && [ "${OFFSETS_FIX500K:-0}" = 1 ]; then
	sh "$ROOT/scripts/build-fixture.sh" "$FIX500" --big-funcs 500000 >"$B/fix500k.log" 2>&1 || true
fi
[ -x "$FIX500/main" ] || FIX500=""
LIBC=/lib/x86_64-linux-gnu/libc.so.6
LIBC_DBG=""
if is_elf "$LIBC"; then
	bid=$(bid "$LIBC")
	[ -n "$bid" ] && f=/usr/lib/debug/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug &&
		is_elf "$f" && LIBC_DBG=$f
fi
# a stripped copy with a .gnu_debuglink file in .debug/ beside it
STRIPPED=""
if [ -n "$FIX" ] && command -v objcopy >/dev/null && mkdir -p "$B/strip/.debug" &&
   objcopy --only-keep-debug "$FIX/libbigshared.so" "$B/strip/.debug/libbigshared.debug" &&
   strip -s -o "$B/strip/libbigshared.so" "$FIX/libbigshared.so" &&
   objcopy --add-gnu-debuglink="$B/strip/.debug/libbigshared.debug" "$B/strip/libbigshared.so"; then
	STRIPPED=$B/strip/libbigshared.so
fi

# ---- readelf: every name, C side ---------------------------------------------
ref() { "$PY" "$ROOT/tests/integration/offsets_ref.py" "$CLI" "$@" || failed=1; }
[ -n "$RUSTC_DRIVER" ] && ref "$RUSTC_DRIVER" || skip "offsets-readelf librustc_driver: no rust toolchain"
[ -n "$LIBLLVM" ] && ref "$LIBLLVM" || skip "offsets-readelf libLLVM: none found"
[ -n "$NODE" ] && ref "$NODE" || skip "offsets-readelf node: not installed"
[ -n "$FIX" ] && ref "$FIX/main" || fail "offsets-readelf fixture: build failed ($B/fixture.log)"
[ -n "$LIBC_DBG" ] && ref "$LIBC" "$LIBC_DBG" || skip "offsets-readelf libc: no build-id debug file (libc6-dbg)"
[ -n "$STRIPPED" ] && ref "$STRIPPED" "$B/strip/.debug/libbigshared.debug" ||
	skip "offsets-readelf stripped: no objcopy/strip or fixture"
if [ -n "$STRIPPED" ]; then
	# the stripped copy answers as the unstripped library for every name
	readelf -sW "$FIX/libbigshared.so" | awk 'NF >= 8 && $1 ~ /:$/ { print $8 }' | sort -u >"$B/strip.names"
	"$CLI" offsets "$STRIPPED" <"$B/strip.names" >"$B/strip.a"
	"$CLI" offsets "$FIX/libbigshared.so" <"$B/strip.names" >"$B/strip.b"
	if cmp -s "$B/strip.a" "$B/strip.b" && [ -s "$B/strip.a" ]; then
		pass "offsets-debuglink: stripped copy == unstripped library for $(wc -l <"$B/strip.names") names (.symtab from .debug/libbigshared.debug)"
	else
		fail "offsets-debuglink: stripped copy differs: $(diff "$B/strip.a" "$B/strip.b" | head -3 | tr '\n' ' ')"
	fi
fi

# ---- the command ---------------------------------------------------------------
rc() {
	_want=$1 _name=$2
	shift 2
	"$@" >"$B/rc.out" 2>"$B/rc.err"
	_got=$?
	if [ "$_got" = "$_want" ] && { [ "$_want" = 0 ] || [ "$(wc -l <"$B/rc.err")" = 1 ]; }; then
		pass "$_name: exit $_want $(head -c 100 "$B/rc.err")"
	else
		fail "$_name: exit $_got, want $_want ($(head -c 200 "$B/rc.err"))"
	fi
}
rc 2 offsets-usage-no-file "$CLI" offsets
rc 2 offsets-usage-bad-option "$CLI" offsets --bogus x
rc 1 offsets-not-elf "$CLI" offsets /etc/passwd main
rc 1 offsets-missing-file "$CLI" offsets "$B/none" main
rc 0 offsets-help "$CLI" offsets --help
if [ -n "$FIX" ]; then
	f1=$(awk 'NR == 1 { print $1 }' "$FIX/hot.txt" 2>/dev/null)
	want=$(readelf -sW "$FIX/main" | awk -v n=main '$8 == n && $4 == "FUNC" { print $2; exit }')
	off=$(readelf -lW "$FIX/main" | awk -v v="$want" '$1 == "LOAD" && $0 ~ / R E / {
		cmd = "printf %d 0x" v; cmd | getline vv; close(cmd)
		cmd = "printf %d " $3; cmd | getline va; close(cmd)
		cmd = "printf %d " $6; cmd | getline ms; close(cmd)
		cmd = "printf %d " $2; cmd | getline of; close(cmd)
		if (vv >= va && vv < va + ms) { printf "0x%x\n", vv - va + of; exit } }')
	got=$(printf 'main\nno_such_symbol_x\n' | "$CLI" offsets "$FIX/main")
	if [ "$got" = "$(printf 'main\t%s\nno_such_symbol_x\tnot found' "$off")" ]; then
		pass "offsets-stdin: main $off (readelf), a missing name 'not found'"
	else
		fail "offsets-stdin: got '$got', want main $off"
	fi
	"$CLI" offsets --json "$FIX/main" main no_such_symbol_x >"$B/j.json" 2>"$B/j.err"
	if "$PY" - "$B/j.json" "$off" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
r = d['results']
assert d['file'].endswith('/main') and len(d['build_id']) == 40 and d['debug_file'] == '', d
assert r[0]['name'] == 'main' and r[0]['found'] and r[0]['offset'] == sys.argv[2], r[0]
assert r[0]['type'] == 'FUNC' and r[0]['table'] in ('symtab', 'dynsym') and r[0]['size'] > 0, r[0]
assert r[1] == {'name': 'no_such_symbol_x', 'found': False}, r[1]
EOF
	then pass "offsets-json: fields of a found and a missing name"
	else fail "offsets-json: $(head -c 300 "$B/j.json") $(cat "$B/j.err")"
	fi
	rm -rf "$SYMLAZY_CACHE_DIR"
	"$CLI" offsets --no-cache "$FIX/main" main >/dev/null
	[ -z "$(ls "$SYMLAZY_CACHE_DIR" 2>/dev/null)" ] && pass "offsets-no-cache: cache directory left empty" ||
		fail "offsets-no-cache: $(ls "$SYMLAZY_CACHE_DIR")"
	out=$("$CLI" index --names "$FIX/main" 2>&1)
	n=$("$CLI" index --list | grep -c '\.names ')
	if echo "$out" | grep -q 'built names index: [0-9]* symbols' && [ "$n" = 1 ]; then
		pass "offsets-index-names: $(echo "$out" | sed 's/.*: built/built/' | head -c 120); --list shows it"
	else
		fail "offsets-index-names: '$out', --list shows $n .names files"
	fi
	"$CLI" index --clean >/dev/null
	[ -z "$(ls "$SYMLAZY_CACHE_DIR"/*.names 2>/dev/null)" ] && pass "offsets-index-clean: .names removed" ||
		fail "offsets-index-clean: $(ls "$SYMLAZY_CACHE_DIR")"
fi
needed=$(readelf -d "$ROOT/build/libsymlazy.so" | awk '/NEEDED/ { print $NF }' | tr '\n' ' ')
if [ "$needed" = "[libc.so.6] " ] && ! nm "$ROOT/build/libsymlazy.so" 2>/dev/null | grep -q symnames_; then
	pass "offsets-shim-unchanged: libsymlazy.so NEEDED $needed, no name-index code in it"
else
	fail "offsets-shim-unchanged: NEEDED $needed; $(nm "$ROOT/build/libsymlazy.so" | grep -c symnames_) symnames_ symbols"
fi

# ---- go ---------------------------------------------------------------------------
GO=$(command -v go 2>/dev/null || true)
if [ -z "$GO" ]; then
	skip "offsets-go: no Go toolchain (Debian: apt-get install golang-go; scripts/install-deps.sh installs it as root)"
else
	bins=""
	for f in "$RUSTC_DRIVER" "$LIBLLVM" "$NODE" "$FIX500${FIX500:+/main}" "$FIX${FIX:+/main}"; do
		[ -n "$f" ] && bins="$bins${bins:+:}$f"
	done
	[ -n "$LIBC_DBG" ] && bins="$bins:$LIBC=$LIBC_DBG"
	[ -n "$STRIPPED" ] && bins="$bins:$STRIPPED=$B/strip/.debug/libbigshared.debug"
	[ -n "$FIX500" ] || skip "offsets-go 500k fixture: build/fix500k not built (scripts/bench-go.sh or OFFSETS_FIX500K=1 builds it)"
	export GOFLAGS="${GOFLAGS:-} -mod=mod" GOPROXY=off GOTOOLCHAIN=local GOWORK=off
	if (cd "$ROOT/go" && "$GO" vet ./... >"$B/govet.log" 2>&1); then
		pass "offsets-go-vet: $("$GO" version | cut -d' ' -f3)"
	else
		fail "offsets-go-vet: $(head -c 300 "$B/govet.log")"
	fi
	mkdir -p "$B/malformed"
	"$PY" "$ROOT/scripts/gen-malformed.py" "$B/malformed" >/dev/null 2>&1
	for f in "$ROOT"/fuzz/seeds/symindex/*; do
		"$PY" "$ROOT/scripts/gen-malformed.py" --base "$f" --prefix "$(basename "$f")-" "$B/malformed" >/dev/null 2>&1
	done
	rm -f "$B/malformed/MANIFEST"
	(cd "$ROOT/go" && SYMLAZY_TEST_BINS="$bins" SYMLAZY_BIN="$CLI" SYMLAZY_MALFORMED_DIR="$B/malformed" \
		"$GO" test -count=1 -v ./... >"$B/gotest.log" 2>&1)
	grc=$?
	"$PY" - "$B/gotest.log" <<'EOF'
import re, sys
logs = {}
cur = None
for ln in open(sys.argv[1], errors='replace'):
    m = re.match(r'^\s*--- (PASS|FAIL|SKIP): (\S+) \(([\d.]+)s\)', ln)
    if m:
        word = {'PASS': 'PASS', 'FAIL': 'FAIL', 'SKIP': 'SKIP'}[m.group(1)]
        name = m.group(2)
        if '/' not in name and any(k.startswith(name + '/') for k in logs):
            continue        # a parent: its subtests are reported
        print('%s: go %s (%ss) %s' % (word, name, m.group(3), ' '.join(logs.get(name, []))[:300]))
        continue
    m = re.match(r'^=== (?:RUN|CONT)\s+(\S+)', ln)
    if m:
        cur = m.group(1)
        logs.setdefault(cur, [])
        continue
    m = re.match(r'^\s+symlazy_test\.go:\d+: (.*)', ln)
    if m and cur:
        logs[cur].append(m.group(1).strip())
EOF
	if [ $grc -ne 0 ]; then
		fail "offsets-go: go test exited $grc"
		grep -E '^(FAIL|panic|---|\s+symlazy_test)' "$B/gotest.log" | head -30
	fi
fi
exit $failed
