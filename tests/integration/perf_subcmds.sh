#!/bin/sh
# perf_subcmds.sh - lazy mode for perf diff and perf data convert --to-json
# (issue 19) under perf 6.1 (this host's /usr/bin/perf) and perf 6.12
# (scripts/build-perf612.sh, cached; SKIP when it cannot be built). perf 7.2:
# tests/integration/perf72.sh (case "subcmds").
# Recordings: two runs of the generated fixture (scripts/build-fixture.sh:
# 150k-function PIE + 50k-function library), each recorded with -g by the
# perf under test. Each case runs stock and with LD_PRELOAD=build/libsymlazy.so
# (nothing else set) and asserts:
#   perf diff A B, with options, of three files, and of perf.data.old + B
#     (one positional): stdout byte-identical, lazy on, both fixture DSOs lazy
#     in every session (each session scans each DSO once);
#   perf data convert --to-json: the JSON file byte-identical (it embeds
#     nothing of the run: the header fields come from perf.data; nothing is
#     normalised), lazy on, fixture DSOs lazy;
#   perf diff -c cycles, --stream and perf data convert --to-ctf: eager with
#     their reason codes (diff_cycles, diff_stream, convert_ctf).
# Prints PASS:/FAIL:/SKIP:/INFO: lines; INFO gives peak RssAnon of perf diff
# stock vs lazy (build/bin/peakrss). Env: SYMLAZY_ROOT, SYMLAZY_SO, PERF612.
set -u
. "$(dirname "$0")/../lib/common.sh"
TEST_PREFIX=subcmds/
T=$ROOT/build/perf_subcmds

unset_symlazy_env PERF_CONFIG LD_BIND_NOW
[ -f "$SO" ] || { fail "setup: $SO missing (run make)"; exit 1; }
PERFS="6.1:$(command -v perf)"
if [ -z "${PERF612:-}" ]; then
	PERF612=$(sh "$ROOT/scripts/build-perf612.sh" 2>"$ROOT/build/perf_subcmds-612.err") || PERF612=
fi
if [ -n "$PERF612" ] && [ -x "$PERF612" ]; then
	PERFS="$PERFS 6.12:$PERF612"
else
	skip "6.12: $(sed -n 's/^SKIP: //p' "$ROOT/build/perf_subcmds-612.err" | tail -1)"
fi
FIX=$ROOT/build/fixture
sh "$ROOT/scripts/build-fixture.sh" "$FIX" >"$ROOT/build/perf_subcmds-fixture.log" 2>&1 ||
	{ fail "setup: fixture build: $(tail -2 "$ROOT/build/perf_subcmds-fixture.log")"; exit 1; }
rm -rf "$T"
mkdir -p "$T/home"
export HOME=$T/home

# verdict JSON: "lazy=on fixture=lazy(N scans) reason=CODE"
verdict() {
	"$PY" - "$1" <<'PY'
import json, re, sys
# the fixture DSOs by their own path component (build/fixture/main or
# .../libbigshared.so, directly or under ~/.debug): the clone's own path may
# hold "/main/" (a checkout named main)
FX = re.compile(r"/fixture/(main|libbigshared\.so)(/|$)")
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("lazy=none stats-unreadable"); sys.exit(0)
fx = [x["mode"] for x in d["dsos"] if x["table"] == "symtab" and
      FX.search(x["path"])]
ok = "lazy" if fx and all(m == "lazy" for m in fx) else ",".join(fx) or "none"
print("lazy=%s fixture=%s(%d scans) reason=%s" % (d["lazy"], ok, len(fx), d.get("lazy_reason_code", "-")))
PY
}

# same V NAME SCANS OUT perf-args: stdout (or the file OUT, "-" for stdout)
# stock vs shim, then lazy on with SCANS fixture symtab scans lazy
same() {
	_v=$1 _n=$2 _scans=$3 _out=$4
	shift 4
	_d=$T/$_v
	if [ "$_out" = - ]; then
		"$P" "$@" >"$_d/$_n.stock" 2>"$_d/$_n.stock.err"
		SYMLAZY_STATS=$_d/$_n.json LD_PRELOAD=$SO "$P" "$@" >"$_d/$_n.shim" 2>"$_d/$_n.shim.err"
	else
		rm -f "$_out"
		"$P" "$@" >/dev/null 2>"$_d/$_n.stock.err" && mv "$_out" "$_d/$_n.stock"
		SYMLAZY_STATS=$_d/$_n.json LD_PRELOAD=$SO "$P" "$@" >/dev/null 2>"$_d/$_n.shim.err" &&
			mv "$_out" "$_d/$_n.shim"
	fi
	_st=$(verdict "$_d/$_n.json")
	if [ ! -s "$_d/$_n.stock" ]; then
		fail "$_v/$_n: stock perf wrote nothing: $(head -2 "$_d/$_n.stock.err")"
	elif ! cmp -s "$_d/$_n.stock" "$_d/$_n.shim"; then
		fail "$_v/$_n: output differs ($_st)"
		show_diff "$_d/$_n.stock" "$_d/$_n.shim" 6
	elif [ "$_st" != "lazy=on fixture=lazy($_scans scans) reason=-" ]; then
		fail "$_v/$_n: identical, but $_st (want lazy on, $_scans fixture scans lazy)"
	else
		pass "$_v/$_n: $(wc -l <"$_d/$_n.stock") lines identical; $_st"
	fi
}

# eager V NAME CODE perf-args: the shim's stats give reason CODE
eager() {
	_v=$1 _n=$2 _code=$3
	shift 3
	SYMLAZY_STATS=$T/$_v/$_n.json LD_PRELOAD=$SO "$P" "$@" >/dev/null 2>&1
	_st=$(verdict "$T/$_v/$_n.json")
	case $_st in
	"lazy=off "*"reason=$_code") pass "$_v/$_n: eager, reason $_code" ;;
	*) fail "$_v/$_n: $_st (want lazy off, reason $_code)" ;;
	esac
}

for pv in $PERFS; do
	V=${pv%%:*} P=${pv#*:}
	D=$T/$V
	mkdir -p "$D"
	if ! "$P" record -q -g -o "$D/a.data" -- "$FIX/main" 1 >/dev/null 2>"$D/rec.err" ||
		! "$P" record -q -g -o "$D/b.data" -- "$FIX/main" 1 >/dev/null 2>>"$D/rec.err"; then
		fail "$V/record: $(head -2 "$D/rec.err")"
		continue
	fi
	# two sessions, each scanning main and libbigshared.so: 4 scans
	same "$V" diff 4 - diff "$D/a.data" "$D/b.data"
	same "$V" diff-opts 4 - diff -v -p -F -c wdiff:1,2 -s dso,sym --percentage absolute "$D/a.data" "$D/b.data"
	same "$V" diff-3 6 - diff -q "$D/a.data" "$D/b.data" "$D/a.data"
	cp "$D/a.data" "$D/perf.data.old"
	cd "$D" && same "$V" diff-old 4 - diff b.data
	cd "$ROOT" || exit 1
	same "$V" convert 2 "$D/out.json" data convert --to-json "$D/out.json" -i "$D/a.data"
	eager "$V" diff-cycles diff_cycles diff -c cycles "$D/a.data" "$D/b.data"
	eager "$V" diff-stream diff_stream diff --stream "$D/a.data" "$D/b.data"
	eager "$V" convert-ctf convert_ctf data convert --to-ctf "$D/ctf" -i "$D/a.data"
	if [ -x "$ROOT/build/bin/peakrss" ]; then
		"$ROOT/build/bin/peakrss" -o "$D/rss.stock" -- "$P" diff "$D/a.data" "$D/b.data" >/dev/null 2>&1
		LD_PRELOAD=$SO "$ROOT/build/bin/peakrss" -o "$D/rss.shim" -- "$P" diff "$D/a.data" "$D/b.data" \
			>/dev/null 2>&1
		info "$V/diff peak RssAnon: stock $(rss_anon "$D/rss.stock") kB," \
			"lazy $(rss_anon "$D/rss.shim") kB (fixture, 2 recordings)"
	fi
done
info "total $(($(date +%s) - t0))s"
exit $failed
