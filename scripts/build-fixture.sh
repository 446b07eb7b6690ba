#!/bin/sh
# build-fixture.sh OUTDIR [gen-fixture.py options...]
# Generate and build the fixture (scripts/gen-fixture.py) into OUTDIR unless it
# is already up to date: same generator, same options, outputs present.
# Example: sh scripts/build-fixture.sh build/fixture
#          sh scripts/build-fixture.sh build/fixture-small --big-funcs 40000 --lib-funcs 15000
set -e
[ $# -ge 1 ] || { echo "usage: $0 OUTDIR [gen-fixture options]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
out=$1; shift
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
mkdir -p "$out"
# one build at a time per OUTDIR (tests run two at a time)
if command -v flock >/dev/null 2>&1; then
	exec 9>"$out/.lock"
	flock 9
fi
stamp="$out/.fixture-stamp"
want="$(cksum <"$here/gen-fixture.py") $*"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$out/main" ] &&
   [ -f "$out/libbigshared.so" ] && [ -f "$out/hot.txt" ]; then
	echo "build-fixture: $out is up to date ($out/main, $out/libbigshared.so)"
	exit 0
fi
rm -f "$stamp" "$out/perf.data" "$out"/perf*.data
"$PY" "$here/gen-fixture.py" "$out" "$@"
printf '%s\n' "$want" >"$stamp"
