# tests/lib/root.sh - sourced by the integration tests that run real tools in
# a Debian root filesystem (scripts/build-root.sh: made once with debootstrap,
# cached outside the clone; scripts/in-root.sh: entered with unshare + chroot,
# as a container is): perf72.sh, perf72_inline.sh, container.sh.
# The caller has sourced tests/lib/common.sh (ROOT, SO, pass/fail/skip/info)
# and sets T (its build dir). Setup failures FAIL and exit 1; what this host
# cannot do (not root, no root filesystem, perf record refused) SKIPs with the
# reason and exits 0.

# root_build NAME RELEASE: the root of RELEASE (sid, trixie) into RT.
root_build() {
	[ -f "$SO" ] || { fail "setup: $SO missing (run make)"; exit 1; }
	if [ "$(id -u)" != 0 ]; then
		skip "all: not root (a root filesystem needs chroot and mount)"
		exit 0
	fi
	mkdir -p "$ROOT/build"
	RT=$(sh "$ROOT/scripts/build-root.sh" "$2" 2>"$ROOT/build/$1-root.err")
	if [ $? -ne 0 ] || [ ! -d "$RT" ]; then
		skip "all: $(tail -1 "$ROOT/build/$1-root.err")"
		exit 0
	fi
}

# root_workdir: a fresh $T with W=$T/w (the root's /work, with out/) and
# $T/so holding this build's shim (the root's /symlazy, bound read-only).
root_workdir() {
	rm -rf "$T"
	mkdir -p "$T/w/out" "$T/so" || exit 1
	cp "$SO" "$T/so/libsymlazy.so" || exit 1
	W=$T/w
}

# inr CMD...: run CMD in the root (callers that bind more redefine it).
inr() { SYMLAZY_WORK=$W SYMLAZY_BIND=$T/so sh "$ROOT/scripts/in-root.sh" "$RT" "$@"; }

# root_perf VERSION LABEL: the root's perf must be VERSION.* ("7.2") and
# perf record must work in it; sets ver.
root_perf() {
	ver=$(inr perf version 2>/dev/null)
	case $ver in
	"perf version $1."*) info "perf: $ver ($2 $RT)" ;;
	*) skip "all: the root's perf is not $1 ($ver)"; exit 0 ;;
	esac
	if ! inr perf record -q -o /work/probe.data -- true >"$T/probe.log" 2>&1; then
		skip "all: perf record does not work in the root: $(grep -v schedstat "$T/probe.log" | head -1)"
		exit 0
	fi
}

# rec NAME record-args... -- CMD...: perf record in the root into
# /work/NAME.data ($W/NAME.data outside); FAIL NAME/record and 1 when perf
# record fails or writes nothing.
rec() {
	_n=$1
	shift
	if inr perf record -q -o "/work/$_n.data" "$@" >"$T/$_n.rec.log" 2>&1 && [ -s "$W/$_n.data" ]; then
		return 0
	fi
	fail "$_n/record: $(grep -v schedstat "$T/$_n.rec.log" | head -2)"
	return 1
}
