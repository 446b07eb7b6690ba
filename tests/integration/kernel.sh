#!/bin/sh
# kernel.sh - lazy kernel symbols and JIT maps (issue 11): kernel-heavy
# recordings (syscalls, page faults, system-wide -a, modules if loaded), a
# node --perf-basic-prof JIT profile, and perf's odd inputs (--kallsyms FILE
# with relocated, all-zero, truncated and garbage lines, a 513-byte name).
# Every case runs `perf script`, `perf report --stdio` and `perf report
# --stdio --sort dso,sym` with and without LD_PRELOAD=build/libsymlazy.so;
# stdout must be byte-identical (both runs get tests/corpus/fixtime.c, so
# perf's random Tip line is fixed too). The shim's SYMLAZY_STATS "texts"
# entries must show the kallsyms source(s) perf read (and the perf map)
# served lazily with kept < scanned, or, for the fallback cases, whole with
# the documented reason code (util/reason.h).
# PASS:/FAIL:/SKIP: <name>: detail lines; exit 1 on a failure.
# Env: SYMLAZY_ROOT, PERF (perf), KERNEL_CASES (subset of case names).
set -u
. "$(dirname "$0")/../lib/common.sh"
KT=$ROOT/build/bin/symlazy-ktext
T=$ROOT/build/kernel
CC=${CC:-cc}
PY=$(command -v python3 || true)
want() { [ -z "${KERNEL_CASES:-}" ] || in_list "$1" "$KERNEL_CASES"; }

unset_symlazy_env PERF_CONFIG
command -v "$PERF" >/dev/null 2>&1 || { skip "kernel: perf not installed"; exit 0; }
[ -f "$SO" ] && [ -x "$KT" ] || { fail "kernel: build/libsymlazy.so or build/bin/symlazy-ktext missing (run make)"; exit 1; }
[ -n "$PY" ] || { skip "kernel: python3 missing"; exit 0; }
if [ ! -r /proc/kallsyms ] || ! head -1 /proc/kallsyms | grep -qv '^0000000000000000'; then
	skip "kernel: /proc/kallsyms unreadable or restricted (kptr_restrict)"; exit 0
fi
rm -rf "$T"; mkdir -p "$T/home" "$T/cache" || exit 1
$CC -O2 -shared -fPIC -o "$T/fixtime.so" "$ROOT/tests/corpus/fixtime.c" || { fail "kernel: fixtime.so"; exit 1; }
export HOME=$T/home
cd "$T" || exit 1

# texts_check STATS KIND WANT_MODE [REASON_CODE] -> prints a summary; fails
# unless every KIND source has WANT_MODE (lazy: 0 < kept < scanned)
texts_check() {
	"$PY" - "$@" <<'PY'
import json, sys
st, kind, want = sys.argv[1], sys.argv[2], sys.argv[3]
code = sys.argv[4] if len(sys.argv) > 4 else None
try:
    d = json.load(open(st))
except Exception as e:
    print("no stats (%s)" % e); sys.exit(1)
ts = [t for t in d.get("texts", []) if t["kind"] == kind]
if not ts:
    print("no %s source in the stats" % kind); sys.exit(1)
bad = []
for t in ts:
    ok = t["mode"] == want
    if want == "lazy":
        ok = ok and 0 < t["kept"] < t["scanned"]
    if code:
        ok = ok and t.get("reason_code") == code
    if not ok:
        bad.append("%s: mode %s kept %d/%d reason %s" % (t["path"], t["mode"], t["kept"], t["scanned"], t.get("reason_code")))
if bad:
    print("; ".join(bad)); sys.exit(1)
print(", ".join("%s %s %d/%d lines" % (t["path"].split("/build/kernel/")[-1], t["mode"], t["kept"], t["scanned"]) for t in ts))
PY
}

# compare NAME VARIANTS DATA KINDS MODE [CODE] [EXTRA perf args...]: the
# VARIANTS ("script report sortds": perf script, perf report --stdio,
# perf report --stdio --sort dso,sym) identical; every KINDS source checked
compare() {
	name=$1 variants=$2 data=$3 kinds=$4 mode=$5 code=$6
	shift 6
	for v in $variants; do
		case $v in
		script) args="script -i $data" ;;
		report) args="report --stdio -i $data" ;;
		sortds) args="report --stdio --sort dso,sym -i $data" ;;
		esac
		LD_PRELOAD=$T/fixtime.so "$PERF" $args "$@" >"$name.$v.stock" 2>"$name.$v.stock.err"
		rs=$?
		SYMLAZY_STATS=$T/$name.$v.json SYMLAZY_CACHE_DIR=$T/cache LD_PRELOAD="$T/fixtime.so:$SO" \
			"$PERF" $args "$@" >"$name.$v.lazy" 2>"$name.$v.lazy.err"
		rl=$?
		if [ $rs -ne $rl ]; then
			fail "$name-$v: exit $rs stock, $rl with the shim"; continue
		fi
		# perf report: stock perf's own tie order (tests/report_same.py)
		if ! cmp -s "$name.$v.stock" "$name.$v.lazy" && { [ "$v" = script ] || [ -z "$PY" ] ||
			! "$PY" "$ROOT/tests/report_same.py" "$name.$v.stock" "$name.$v.lazy" >/dev/null; }; then
			fail "$name-$v: output differs ($(diff "$name.$v.stock" "$name.$v.lazy" | grep -c '^[<>]') lines)"
			show_diff "$name.$v.stock" "$name.$v.lazy" 6; continue
		fi
		s="" ok=1
		for kind in $kinds; do
			if ! r=$(texts_check "$T/$name.$v.json" "$kind" "$mode" $code); then
				fail "$name-$v: identical, but $r"; ok=0; break
			fi
			s="$s${s:+; }$r"
		done
		[ $ok = 1 ] && pass "$name-$v: $(wc -l <"$name.$v.stock") lines identical; $s"
	done
}

kernel_samples() { "$PERF" script -i "$1" -F ip 2>/dev/null | grep -c 'ffffffff'; }

cat > sys.c <<'C'
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 200000, i;
	char buf[64];
	if (argc > 1 && argv[1][0] == 'f') {           /* page faults */
		for (i = 0; i < n / 100; i++) {
			char *p = mmap(0, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			for (long o = 0; o < (1 << 20); o += 4096) p[o] = 1;
			munmap(p, 1 << 20);
		}
		return 0;
	}
	int fd = open("/dev/zero", O_RDONLY), nul = open("/dev/null", O_WRONLY);
	for (i = 0; i < n; i++) {                      /* syscalls */
		(void)!read(fd, buf, sizeof(buf));
		(void)!write(nul, buf, sizeof(buf));
		getppid();
	}
	return 0;
}
C
$CC -O2 -g -fno-omit-frame-pointer -o sys sys.c || { fail "kernel: build sys.c"; exit 1; }

if want syscalls; then
	"$PERF" record -q -g -o sys.data ./sys s 300000 >/dev/null 2>&1 || fail "syscalls: perf record"
	[ "$(kernel_samples sys.data)" -gt 0 ] || fail "syscalls: no kernel samples recorded"
	compare syscalls "script report sortds" sys.data kallsyms lazy ""
fi
if want faults; then
	"$PERF" record -q -g -o faults.data ./sys f 300000 >/dev/null 2>&1 || fail "faults: perf record"
	compare faults "script report" faults.data kallsyms lazy ""
	"$PERF" record -q -g -e page-faults -d -o pf.data ./sys f 100000 >/dev/null 2>&1 &&
		compare pagefault-event script pf.data kallsyms lazy ""
fi
if want system; then
	if "$PERF" record -q -a -g -o all.data -- sleep 0.5 >/dev/null 2>&1; then
		compare system-wide "script report sortds" all.data kallsyms lazy ""
	else
		skip "system-wide: perf record -a not permitted"
	fi
fi
if want modules; then
	if [ -s /proc/modules ]; then
		"$PERF" record -q -a -g -o mod.data -- sleep 0.5 >/dev/null 2>&1
		compare modules "script report sortds" mod.data kallsyms lazy ""
	else
		skip "modules: no loadable modules on this kernel (/proc/modules empty or missing)"
	fi
fi

# DWARF callchains: user stacks need unwinding (ELF tables stay eager), the
# kernel part does not: kallsyms stays lazy
if want dwarf; then
	if "$PERF" record -q --call-graph dwarf,4096 -o dwarf.data ./sys s 50000 >/dev/null 2>&1; then
		compare dwarf script dwarf.data kallsyms lazy ""
	else
		skip "dwarf: perf record --call-graph dwarf failed"
	fi
fi

# --kallsyms FILE variants (perf reads only that file)
if want kallsyms-file; then
	cat /proc/kallsyms > ks.copy
	compare kallsyms-file "script report" sys.data kallsyms lazy "" --kallsyms "$T/ks.copy"
	# relocated: every address moved by 2 MiB (a KASLR reboot): delta
	"$PY" - <<'PY' > ks.reloc
import sys
for l in open("ks.copy"):
    a, rest = l.split(" ", 1)
    print("%016x %s" % ((int(a, 16) + 0x200000) & (2**64 - 1), rest), end="")
PY
	compare kallsyms-relocated script sys.data kallsyms lazy "" --kallsyms "$T/ks.reloc"
	# odd lines: empty lines (swallow the next), garbage, no type, a high
	# byte, an unterminated last line
	"$PY" - <<'PY' > ks.odd
import random
random.seed(7)
ls = open("ks.copy").read().split("\n")[:-1]
out = []
for i, l in enumerate(ls):
    out.append(l)
    r = random.random()
    if r < 0.002: out.append("")
    elif r < 0.004: out.append("zzzz garbage")
    elif r < 0.006: out.append("ffffffff81000000")
    elif r < 0.008: out.append("ffffffff81000000 T caf\xe9_name")
print("\n".join(out), end="")
PY
	compare kallsyms-odd script sys.data kallsyms lazy "" --kallsyms "$T/ks.odd"
	head -c $(( $(wc -c < ks.copy) * 2 / 3 )) ks.copy > ks.trunc
	compare kallsyms-truncated script sys.data kallsyms lazy "" --kallsyms "$T/ks.trunc"
	# fallbacks: all-zero addresses (kptr_restrict), a 513-byte name
	sed 's/^[0-9a-f]*/0000000000000000/' ks.copy > ks.zero
	compare kallsyms-zero script sys.data kallsyms whole kallsyms_zero --kallsyms "$T/ks.zero"
	{ head -5 ks.copy; printf 'ffffffff81000100 t %0513d\n' 0; tail -n +6 ks.copy; } > ks.long
	compare kallsyms-long-name script sys.data kallsyms whole kallsyms_long_name --kallsyms "$T/ks.long"
fi

# the build-id cache copy: perf record put it in $HOME/.debug; with another
# kernel build-id in perf.data perf reads it instead of /proc/kallsyms
if want buildid-cache; then
	n=$(find "$HOME/.debug" -path '*kernel.kallsyms*' -name kallsyms 2>/dev/null | wc -l)
	if [ "$n" -gt 0 ]; then
		pass "buildid-cache: perf record cached $n kallsyms cop$( [ "$n" = 1 ] && echo y || echo ies); the syscalls runs read it (stats paths above)"
	else
		skip "buildid-cache: perf record cached no kallsyms copy"
	fi
fi

# JIT: node --perf-basic-prof writes /tmp/perf-PID.map
if want node; then
	if command -v node >/dev/null 2>&1; then
		cat > jit.js <<'JS'
const fns = [];
for (let i = 0; i < 20000; i++) fns.push(new Function('x', `let s = x; for (let j = 0; j < 3; j++) s = (s * ${i % 97 + 3} + j) | 0; return s ^ ${i};`));
let acc = 0; const t0 = Date.now();
while (Date.now() - t0 < 600) { for (let i = 0; i < fns.length; i += 7) acc += fns[i](i); }
console.log(acc > 0);
JS
		if "$PERF" record -q -g -o node.data -- node --perf-basic-prof jit.js >/dev/null 2>&1; then
			compare node "script report sortds" node.data "perfmap kallsyms" lazy ""
			rm -f /tmp/perf-$("$PERF" script -i node.data -F pid 2>/dev/null | head -1 | tr -d ' ').map
		else
			fail "node: perf record"
		fi
	else
		skip "node: node not installed"
	fi
fi

# the filter itself on the same inputs (symlazy-ktext = what the shim serves)
if want ktext; then
	line=$("$KT" -i sys.data -k /proc/kallsyms -o ks.served)
	case $line in
	mode=filtered*) pass "ktext: /proc/kallsyms for sys.data: $line" ;;
	*) fail "ktext: $line" ;;
	esac
fi
exit $failed
