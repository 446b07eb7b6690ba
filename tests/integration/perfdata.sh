#!/bin/sh
# perfdata.sh - `symlazy addrs` and lazy mode against real perf.data files.
#
# Records a small forking C program with `perf record -g` (plain and -z
# compressed, system-wide, a saved pipe-mode stream `-o - > file`, and a
# `--threads` directory), runs `build/bin/symlazy addrs`, and checks that every
# address perf itself resolves for a user DSO is in the set for that DSO's
# build-id. In perf 6.1, `perf script` callchain lines print the
# map-relative file offset for user DSOs (notes §6), i.e. the same space as
# the address sets. Also checks the DWARF flag for --call-graph dwarf.
# The pipe-mode file and the --threads directory then go through
# `perf script` and `perf report --stdio` with and without
# build/libsymlazy.so: output byte-identical to stock, lazy mode on and
# every scanned DSO lazy (SYMLAZY_STATS).
# Prints PASS:/FAIL:/SKIP: lines; exits non-zero on failure.
. "$(dirname "$0")/../lib/common.sh"
cd "$(dirname "$0")/../.." || exit 1
unset_symlazy_env

if [ ! -x "$CLI" ]; then
	make -s build/bin/symlazy >/dev/null 2>&1 || { fail "build symlazy"; exit 1; }
fi
if ! command -v perf >/dev/null 2>&1 || ! command -v cc >/dev/null 2>&1; then
	skip "perfdata: perf or cc not available"
	exit 0
fi

test_tmpdir perfdata
cat >"$T/prog.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
__attribute__((noinline)) static long leaf(long x)
{ for (int i = 0; i < 1000; i++) x = x * 31 + i; return x; }
__attribute__((noinline)) long mid(long x) { return leaf(x) + leaf(x + 1); }
__attribute__((noinline)) long top(long x)
{ long s = 0; for (int i = 0; i < 50; i++) s += mid(x + i); return s; }
__attribute__((noinline)) long child_work(long n)
{ long s = 0; for (long i = 0; i < n; i++) s += top(i) ^ (long)qsort; return s; }
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 4000, s = 0;
	pid_t pid = fork();		/* child: maps only via FORK inheritance */
	if (pid == 0) { printf("%ld\n", child_work(n)); return 0; }
	for (long i = 0; i < n; i++) s += top(i);
	waitpid(pid, NULL, 0);
	printf("%ld\n", s);
	return 0;
}
EOF
if ! cc -O1 -fno-omit-frame-pointer -o "$T/prog" "$T/prog.c" 2>"$T/cc.err"; then
	skip "perfdata: cannot compile test program"; cat "$T/cc.err"; exit 0
fi

# check NAME RECORD-OPTIONS... (PIPE=1: record a pipe-mode stream, `-o -`,
# into the file)
check() {
	name=$1; shift
	data=$T/$name.data
	if [ "${PIPE:-0}" = 1 ]; then
		perf record -q -o - "$@" -- ${WORKLOAD:-"$T/prog" 6000} >"$data" 2>"$T/$name.rec"
	else
		perf record -q -o "$data" "$@" -- ${WORKLOAD:-"$T/prog" 6000} >"$T/$name.rec" 2>&1
	fi
	if [ $? -ne 0 ]; then
		skip "$name: perf record failed ($(tail -1 "$T/$name.rec"))"
		return
	fi
	if ! "$CLI" addrs -i "$data" -o "$T/$name.addrs" 2>"$T/$name.err"; then
		fail "$name: symlazy addrs: $(cat "$T/$name.err")"
		return
	fi
	# "<build-id> <path>" per DSO; perf 6.1 -z files carry empty build-ids
	# in HEADER_BUILD_ID, so fall back to the file's own note (readelf).
	perf buildid-list -i "$data" 2>/dev/null | while read -r id path; do
		case "$id" in
		/*) path=$id; id=$(bid "$path") ;;
		esac
		[ -n "$id" ] && [ -n "$path" ] && echo "$id $path"
	done >"$T/$name.bids"
	perf script -i "$data" -F ip,sym,dso 2>/dev/null >"$T/$name.script"
	# DSOs perf resolved but listed without a build-id: read the file's note
	grep -o '(/[^ ()]*)$' "$T/$name.script" | tr -d '()' | sort -u | while read -r path; do
		grep -qF " $path" "$T/$name.bids" && continue
		id=$(bid "$path")
		[ -n "$id" ] && echo "$id $path"
	done >>"$T/$name.bids"
	# Each callchain line: "<hex> <sym...> (<dso>)". Keep user DSOs that have
	# a build-id; print "<build-id> <addr>" keys, then look each key up.
	awk -v addrs="$T/$name.addrs" -v bids="$T/$name.bids" -v prog="$T/prog" '
	BEGIN {
		while ((getline l < bids) > 0) {
			split(l, f, " "); p = substr(l, length(f[1]) + 2)
			if (p !~ /^\[/) bid[p] = f[1]
		}
		while ((getline l < addrs) > 0) {
			if (l ~ /^#/) continue
			split(l, f, " "); have[f[1] " " f[2]] = 1
		}
	}
	/\)$/ {
		dso = $0; sub(/.*\(/, "", dso); sub(/\)$/, "", dso)
		if (!(dso in bid)) next
		a = $1; sub(/^0+/, "", a); if (a == "") a = "0"
		k = bid[dso] " " tolower(a); checked++
		if (dso == prog) inprog++
		if (!(k in have)) { missing++; if (missing <= 5) print "missing: " k " (" dso ")" }
	}
	END {
		printf "checked=%d prog=%d missing=%d\n", checked, inprog, missing
		exit (missing > 0 || inprog == 0 || checked == 0) ? 1 : 0
	}' "$T/$name.script" >"$T/$name.cmp"
	if [ $? -eq 0 ]; then
		pass "$name: all perf-resolved user addresses covered ($(tail -1 "$T/$name.cmp"))"
	else
		fail "$name: $(tr '\n' ';' <"$T/$name.cmp")"
	fi
}

check fp -g
check fp-compressed -z -g
check fp-cpu-clock -e cpu-clock -g
# system-wide: many processes, threads, synthesized MMAP2/FORK for tasks
# that existed before recording
"$T/prog" 3000 >/dev/null 2>&1 &
bg=$!
WORKLOAD="sleep 1" check system-wide -a -g
wait "$bg"

# DWARF callchains: the reader flags them and its second pass unwinds them
# (perfdata/unwind.c; tests/integration/dwarf.sh checks the sets)
if perf record -q -o "$T/dw.data" --call-graph dwarf,4096 -- "$T/prog" 1000 >/dev/null 2>&1; then
	"$CLI" addrs -i "$T/dw.data" --stats >"$T/dw.stats" 2>/dev/null
	if grep -q '^flags:.*dwarf-unwind' "$T/dw.stats" && grep -q '^unwind: samples: [1-9]' "$T/dw.stats"; then
		pass "dwarf: PD_F_DWARF_UNWIND reported, $(sed -n 's/^unwind: samples: \([0-9]*\).*/\1/p' "$T/dw.stats") samples unwound"
	else
		fail "dwarf: dwarf-unwind flag or unwound samples missing: $(tr '\n' ';' <"$T/dw.stats")"
	fi
else
	skip "dwarf: perf record --call-graph dwarf failed"
fi

# Saved pipe-mode streams (plain and -z) and --threads directories (the
# header in DIR/data, the records in DIR/data.N, HEADER_DIR_FORMAT).
PIPE=1 check pipe -g
PIPE=1 check pipe-compressed -z -g
check threads -g --threads
check threads-compressed -z -g --threads

# lazy NAME INPUT: perf script and perf report --stdio on INPUT, stock and
# with the shim (lazy mode at its default): same stdout (perf report's
# random "# (Tip: ...)" line aside), stderr and exit code; stats say lazy
# on, and every DSO perf scanned was served lazily.
lazy() {
	name=$1 in=$2
	if [ ! -e "$in" ]; then
		skip "lazy-$name: no recording"
		return
	fi
	for sub in script report; do
		n=lazy-$name-$sub
		if [ $sub = script ]; then set -- script -i "$in"; else set -- report --stdio -i "$in"; fi
		perf "$@" >"$T/$n.stock" 2>"$T/$n.stock.err"
		rs=$?
		env LD_PRELOAD="$SO" SYMLAZY_STATS="$T/$n.json" perf "$@" >"$T/$n.shim" 2>"$T/$n.shim.err"
		rz=$?
		notip "$T/$n.stock" >"$T/$n.a"
		notip "$T/$n.shim" >"$T/$n.b"
		st=$("$PY" -c 'import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception:
    print("no-stats"); sys.exit()
modes = sorted({x["mode"] for x in d["dsos"]})
print("lazy=%s dsos=%d modes=%s addrs=%d reason=%s" % (d["lazy"], len(d["dsos"]),
      ",".join(modes) or "none", d["addrs"], d.get("lazy_reason", "").replace(" ", "_") or "-"))' "$T/$n.json")
		if ! cmp -s "$T/$n.a" "$T/$n.b"; then
			fail "$n: output differs from stock ($(diff "$T/$n.a" "$T/$n.b" | grep -c '^>') lines; $st)"
			show_diff "$T/$n.a" "$T/$n.b" 4
		elif [ "$rs" != "$rz" ] || ! cmp -s "$T/$n.stock.err" "$T/$n.shim.err"; then
			fail "$n: exit $rz / stderr differ from stock (exit $rs): $(head -2 "$T/$n.shim.err" | tr '\n' ' ')"
		else
			case $st in
			"lazy=on dsos=0 "*) fail "$n: identical, but the shim scanned no DSO ($st)" ;;
			"lazy=on "*"modes=lazy "*) pass "$n: $(wc -l <"$T/$n.a") lines identical to stock, $st" ;;
			*) fail "$n: identical output, but not lazy: $st" ;;
			esac
		fi
	done
}
if [ -f "$SO" ]; then
	lazy pipe "$T/pipe.data"
	lazy pipe-compressed "$T/pipe-compressed.data"
	lazy threads "$T/threads.data"
	lazy threads-compressed "$T/threads-compressed.data"
else
	fail "lazy: $SO missing (run make)"
fi

[ "$failed" -eq 0 ]
