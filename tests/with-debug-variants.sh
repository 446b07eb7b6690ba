#!/bin/sh
# with-debug-variants.sh - run `make check` twice: on the host as it is, with
# its distro debug files (Debian libc6-dbg: libc's .symtab in
# /usr/lib/debug/.build-id/xx/rest.debug), and as a host without them: in a
# private mount namespace (unshare -m) with empty directories bind-mounted over
# /usr/lib/debug and over $HOME/.debug (perf's build-id cache keeps hard links
# of debug files there, .../libc.so.6/<build-id>/debug). Nothing changes
# outside the namespace; other users of the machine keep their debug files.
#
# Usage: sh tests/with-debug-variants.sh [with|without]   (default: both)
# Needs root and unshare(1) for the "without" run (SKIP otherwise). Each run's
# output goes to build/variants-<with|without>-debug.log and its per-script
# logs to build/test-logs-<with|without>-debug/. Prints one closing line per
# run ("with /usr/lib/debug: N passed, N failed, N skipped") and exits 1 if
# either run failed. Runtime: two `make check` runs (about 5 minutes each on
# 2 idle cores).
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
want=${1:-both}
case $want in with|without|both) ;; *) echo "usage: $0 [with|without]" >&2; exit 2 ;; esac
ndebug=$(find /usr/lib/debug/.build-id -name '*.debug' 2>/dev/null | wc -l)
rc=0 summary=""

# run LABEL DESCRIPTION CMD...: make check through CMD, keep the logs, note
# the closing line
run() {
	_l=$1 _d=$2
	shift 2
	rm -rf "$ROOT/build/test-logs"
	"$@" >"$ROOT/build/variants-$_l.log" 2>&1
	_rc=$?
	[ -d "$ROOT/build/test-logs" ] && rm -rf "$ROOT/build/test-logs-$_l" &&
		mv "$ROOT/build/test-logs" "$ROOT/build/test-logs-$_l"
	_s=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$ROOT/build/variants-$_l.log" | tail -1)
	[ -n "$_s" ] || _s="no summary line (exit $_rc; see build/variants-$_l.log)"
	[ "$_rc" = 0 ] || rc=1
	grep -E '^FAIL:' "$ROOT/build/variants-$_l.log" | sed "s/^/  [$_l] /" | head -20
	summary="$summary$_d: $_s
"
}

mkdir -p "$ROOT/build" || exit 1
if [ "$want" != without ]; then
	[ "$ndebug" -gt 0 ] ||
		echo "note: /usr/lib/debug/.build-id holds no debug files here (libc6-dbg not installed): the 'with' run sees none" >&2
	run with-debug "with /usr/lib/debug ($ndebug debug files)" make --no-print-directory check
fi
if [ "$want" != with ]; then
	if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null 2>&1; then
		echo "SKIP: without-debug: needs root and unshare(1) to hide /usr/lib/debug in a private mount namespace"
	else
		E=$(mktemp -d /tmp/symlazy-nodebug.XXXXXX) || exit 1
		trap 'rm -rf "$E"' EXIT
		mkdir "$E/debug" "$E/home-debug"
		# shellcheck disable=SC2016
		run without-debug "without /usr/lib/debug and \$HOME/.debug (empty bind mounts)" unshare -m --propagation private sh -c '
			if [ -d /usr/lib/debug ]; then mount --bind "$1" /usr/lib/debug || exit 97; fi
			if [ -d "$HOME/.debug" ]; then mount --bind "$2" "$HOME/.debug" || exit 97; fi
			n=$(find /usr/lib/debug "$HOME/.debug" -mindepth 1 \( -name "*.debug" -o -name debug \) 2>/dev/null | wc -l)
			[ "$n" = 0 ] || { echo "still $n debug files visible"; exit 97; }
			cd "$3" && make --no-print-directory check' sh "$E/debug" "$E/home-debug" "$ROOT"
	fi
fi
printf '%s' "$summary"
exit $rc
