#!/bin/sh
# perf72_inline.sh - perf 7.2's in-process inline frames / source lines (libdw,
# issue 20) on files whose DWARF is compressed, in the Debian sid root
# (scripts/build-root.sh sid, entered with scripts/in-root.sh):
#   zlib    g++ -O2 -g -gz=zlib -fno-omit-frame-pointer (tests/corpus/cxx.cpp), fp
#   zstd    the same with -gz=zstd
# both also sample libc, whose libc6-dbg debug file has zstd-compressed
# .debug_* sections. For each, stdout stock vs shim must be identical for
# perf script (inline frames: 7.x's default), perf script -F +srcline and
# perf report --stdio --inline (the random "# (Tip: ...)" line aside, stock's
# equal-weight sibling order allowed by tests/report_same.py); the stats must
# show libdw reading the program and libc's debug file from their
# decompressed copies ("dwarf_sections": files >= 2, the program's own
# sections counted; the first run builds the copies, the second maps them),
# and with SYMLAZY_DWARF_MAP=0 no copy is used and the output is the same.
# The copies hold each unit DIE's abbreviation first in its table
# (index/abbrevord.h: for at least 90% of the units, by
# tests/integration/abbrev_first.py); with SYMLAZY_DWARF_ABBREV=0 other
# copies are built (their own key) that do not (below 50%: GCC puts the
# unit's entry last), and the output is the same.
# Prints PASS:/FAIL:/SKIP:/INFO: lines; SKIP (exit 0) with the reason when
# the sid root cannot be built or entered, or libc6-dbg is missing there.
# Env: SYMLAZY_ROOT, SYMLAZY_SO.
set -u
. "$(dirname "$0")/../lib/common.sh"
TEST_PREFIX=perf72_inline/
T=$ROOT/build/perf72_inline

. "$ROOT/tests/lib/root.sh"
root_build perf72_inline sid
SID=$RT
root_workdir
root_perf 7.2 "Debian sid root"
if ! inr dpkg -s libc6-dbg >/dev/null 2>&1; then
	skip "all: libc6-dbg is not installed in the sid root"
	exit 0
fi
cp "$ROOT/tests/corpus/cxx.cpp" "$ROOT/tests/corpus/corpus.h" "$W/"

# stats NAME: "files sections bytes built left" of dwarf_sections, or "none"
stats() {
	"$PY" - "$W/out/$1.json" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1])).get("dwarf_sections")
except Exception as e:
    print("unreadable: %s" % e); sys.exit(0)
print("none" if d is None else "%d %d %d %d %d" % (d["files"], d["mapped"], d["bytes"], d["built"], d["left"]))
PY
}

# first_units FILE...: "F U": of the U units of the copies FILE (names in
# $W/cache), F have their DIE's abbreviation first in its table
first_units() {
	(cd "$W/cache" && "$PY" "$ROOT/tests/integration/abbrev_first.py" "$@")
}

# same NAME: stdout of NAME.stock and NAME.shim identical (report: Tip line aside, ties)
same() {
	_a=$W/out/$1.stock _b=$W/out/$1.shim
	if [ ! -s "$_a" ]; then
		echo "stock printed nothing: $(grep -v schedstat "$_a.err" | head -1)"
		return 1
	fi
	cmp -s "$_a" "$_b" && return 0
	same_notip "$_a" "$_b" && return 0
	case $1 in *report*) "$PY" "$ROOT/tests/report_same.py" "$_a.notip" "$_b.notip" >/dev/null && return 0 ;; esac
	show_diff "$_a" "$_b" 6
	return 1
}

# run NAME ENV... -- perf-args: stock once, shim with ENV
run() {
	_n=$1
	shift
	_env=""
	while [ "$1" != -- ]; do _env="$_env $1"; shift; done
	shift
	[ -s "$W/out/$_n.stock" ] ||
		inr perf "$@" >"$W/out/$_n.stock" 2>"$W/out/$_n.stock.err"
	# shellcheck disable=SC2086
	inr env LD_PRELOAD=/symlazy/libsymlazy.so SYMLAZY_STATS=/work/out/$_n.json \
		SYMLAZY_CACHE_DIR=/work/cache $_env perf "$@" >"$W/out/$_n.shim" 2>"$W/out/$_n.shim.err"
}

for z in zlib zstd; do
	if ! inr g++ -O2 -g -gz=$z -fno-omit-frame-pointer -o /work/cxx-$z /work/cxx.cpp >"$T/build-$z.log" 2>&1; then
		skip "$z: g++ -gz=$z failed: $(head -1 "$T/build-$z.log")"
		continue
	fi
	if ! inr sh -c "readelf -t /work/cxx-$z | grep -qi $z"; then
		skip "$z: g++ -gz=$z made no $z-compressed section"
		continue
	fi
	# the program's compressed sections: what its copy must hold at least
	own=$(inr sh -c "readelf -SW /work/cxx-$z" | awk '$0 ~ /\] \.debug_/ && $(NF-3) ~ /C/ {n++} END {print n+0}')
	if ! inr perf record -q -g -o /work/$z.data -- /work/cxx-$z 1 >"$T/rec-$z.log" 2>&1; then
		fail "$z: perf record failed: $(grep -v schedstat "$T/rec-$z.log" | head -1)"
		continue
	fi
	rm -rf "$W/cache"
	k=0
	for v in script script-srcline report; do
		case $v in
		script) set -- script -i /work/$z.data ;;
		script-srcline) set -- script -F +srcline -i /work/$z.data ;;
		report) set -- report --stdio --inline -i /work/$z.data ;;
		esac
		n=$z-$v
		run "$n" -- "$@"
		st=$(stats "$n")
		k=$((k + 1))
		if ! d=$(same "$n"); then
			fail "$n: output differs stock vs shim: perf $*"
			echo "$d"
			continue
		fi
		case $v in
		script | report)
			if ! grep -q ' (inlined)' "$W/out/$n.stock"; then
				fail "$n: identical, but stock printed no inline frame: not the path under test"
				continue
			fi ;;
		script-srcline)
			if ! grep -q 'cxx\.cpp:[0-9]' "$W/out/$n.stock"; then
				fail "$n: identical, but stock printed no cxx.cpp source line"
				continue
			fi ;;
		esac
		# shellcheck disable=SC2086
		set -- $st
		if [ "$1" = none ] || [ "$#" -ne 5 ]; then
			fail "$n: identical, but no dwarf_sections in the stats ($st)"
		elif [ "$1" -lt 2 ] || [ "$2" -le "$own" ] || [ "$3" -le 0 ] || [ "$5" -ne 0 ]; then
			fail "$n: identical, but dwarf_sections files=$1 mapped=$2 bytes=$3 left=$5 (want files >= 2, mapped > $own: the program's and libc's debug file)"
		elif [ "$k" = 1 ] && [ "$4" -lt 2 ]; then
			fail "$n: identical, first run built $4 copies (want >= 2)"
		elif [ "$k" -gt 1 ] && [ "$4" -ne 0 ]; then
			fail "$n: identical, warm run built $4 copies (want 0: mapped from the cache)"
		else
			pass "$n ($(wc -l <"$W/out/$n.stock") lines identical; dwarf_sections files=$1 mapped=$2 bytes=$3 built=$4)"
		fi
	done
	# the copies: unit DIEs' abbreviations first; SYMLAZY_DWARF_ABBREV=0: copies without
	n=$z-script
	(cd "$W/cache" && ls dwarf-*.dbg) >"$T/copies-$z"
	# shellcheck disable=SC2046
	set -- $(first_units $(cat "$T/copies-$z"))
	if [ "$2" -lt 2 ] || [ $(($1 * 10)) -lt $(($2 * 9)) ]; then
		fail "$n-abbrev: $1 of $2 units in the copies have their DIE's abbreviation first (want >= 90%)"
	else
		pass "$n-abbrev ($1 of $2 units in $(wc -l <"$T/copies-$z") copies have their DIE's abbreviation first)"
	fi
	cp "$W/out/$n.stock" "$W/out/$n-noabbrev.stock"
	run "$n-noabbrev" SYMLAZY_DWARF_ABBREV=0 -- script -i /work/$z.data
	st=$(stats "$n-noabbrev")
	(cd "$W/cache" && ls dwarf-*.dbg) | grep -vxF -f "$T/copies-$z" >"$T/copies-$z-noabbrev"
	# shellcheck disable=SC2046
	set -- $(first_units $(cat "$T/copies-$z-noabbrev")) $st
	if ! d=$(same "$n-noabbrev"); then
		fail "$n-noabbrev: output differs stock vs shim with SYMLAZY_DWARF_ABBREV=0"
		echo "$d"
	elif [ "$#" -ne 7 ] || [ "$6" -lt 2 ] || [ "$(wc -l <"$T/copies-$z-noabbrev")" -ne "$6" ]; then
		fail "$n-noabbrev: SYMLAZY_DWARF_ABBREV=0: stats $st, $(wc -l <"$T/copies-$z-noabbrev") new copies (want >= 2 built under their own names)"
	elif [ "$2" -lt 2 ] || [ $(($1 * 2)) -ge "$2" ]; then
		fail "$n-noabbrev: $1 of $2 units have their DIE's abbreviation first without the rewrite (want < 50%)"
	else
		pass "$n-noabbrev (SYMLAZY_DWARF_ABBREV=0: identical; $6 copies of their own, $1 of $2 units with their DIE's abbreviation first)"
	fi
	rm -f $(sed "s|^|$W/cache/|" "$T/copies-$z-noabbrev")
	# damaged copies (the middle of each overwritten, size kept): the
	# checksum trailer makes them rebuilt, never shown to libdw
	n=$z-script
	nd=0
	for f in "$W"/cache/*.dbg; do
		[ -f "$f" ] || continue
		sz=$(stat -c %s "$f")
		head -c $((sz / 2)) /dev/zero | tr '\0' 'x' | dd of="$f" bs=1 seek=$((sz / 4)) conv=notrunc 2>/dev/null
		nd=$((nd + 1))
	done
	cp "$W/out/$n.stock" "$W/out/$n-damaged.stock"
	run "$n-damaged" -- script -i /work/$z.data
	st=$(stats "$n-damaged")
	# shellcheck disable=SC2086
	set -- $st
	if ! d=$(same "$n-damaged"); then
		fail "$n-damaged: output differs stock vs shim after $nd copies were damaged"
		echo "$d"
	elif [ "$nd" -lt 2 ] || [ "$#" -ne 5 ] || [ "$4" -ne "$nd" ]; then
		fail "$n-damaged: $nd copies damaged, stats $st (want all $nd rebuilt)"
	else
		pass "$n-damaged ($nd damaged copies rebuilt; identical)"
	fi
	# off: libdw inflates as it would; same output, no copy counted
	n=$z-script
	cp "$W/out/$n.stock" "$W/out/$n-off.stock"
	run "$n-off" SYMLAZY_DWARF_MAP=0 -- script -i /work/$z.data
	st=$(stats "$n-off")
	if ! d=$(same "$n-off"); then
		fail "$n-off: output differs stock vs shim with SYMLAZY_DWARF_MAP=0"
		echo "$d"
	elif [ "$st" != none ]; then
		fail "$n-off: SYMLAZY_DWARF_MAP=0 but dwarf_sections $st"
	else
		pass "$n-off (SYMLAZY_DWARF_MAP=0: identical, no copy used)"
	fi
done
exit $failed
