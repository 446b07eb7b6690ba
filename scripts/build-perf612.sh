#!/bin/sh
# build-perf612.sh - build perf 6.12 (Debian's linux-source-6.12, e.g.
# 6.12.117-1~deb12u1, the perf of Debian 13 / RHEL 10's kernel line) once into
# a cache directory outside the clone, and print the path of the binary.
#
#   PERF612=$(sh scripts/build-perf612.sh) || echo "no perf 6.12"
#
# Cache: ${SYMLAZY_PERF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/symlazy-perf}/<upstream
# version>/perf (plus build-options.txt and build.log beside it). A finished
# build is reused by every later run (and every worktree); a failed one is
# remembered (build.failed) so later runs skip at once: delete that file, or
# the directory, to retry.
#
# As root, missing Debian packages (linux-source-6.12 and perf's build deps)
# are installed with apt-get, like scripts/install-deps.sh. Otherwise, or when
# the package or the build is unavailable, one line "SKIP: <reason>" goes to
# stderr and the exit status is 77.
#
# Only the paths in the tarball's tools/perf/MANIFEST are extracted (the way
# `make perf-tar-src-pkg` packs perf), then
#   make -C tools/perf O=OBJ prefix=/usr WERROR=0 NO_LIBCRYPTO=1 NO_LIBLLVM=1
#        NO_CAPSTONE=1 NO_LIBDEBUGINFOD=1 PYTHON=/usr/bin/python3
#        PYTHON_CONFIG=/usr/bin/python3-config
# with PATH=/usr/sbin:/usr/bin:/sbin:/bin (a pyenv python first on PATH would
# be picked for the python binding). About 100-150 s on 2 cores, 45 MB of
# source and ~250 MB of objects, deleted after the build.
# Environment: PERF612_DEB_VERSION (package version to install, default
# 6.12.117-1~deb12u1; an installed linux-source-6.12 of another version is used
# as it is), SYMLAZY_PERF_CACHE, PERF612_JOBS (default: nproc).
set -u
PKG=linux-source-6.12
WANT_VER=${PERF612_DEB_VERSION:-6.12.117-1~deb12u1}
TARBALL=/usr/src/linux-source-6.12.tar.xz
DEPS="libelf-dev libdw-dev libunwind-dev libzstd-dev liblzma-dev zlib1g-dev libslang2-dev libperl-dev
python3-dev libcap-dev libnuma-dev libbabeltrace-dev systemtap-sdt-dev libtraceevent-dev flex bison
pkg-config make gcc g++ xz-utils"
CACHE_ROOT=${SYMLAZY_PERF_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/symlazy-perf}
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
unset PYTHONPATH PYTHONHOME VIRTUAL_ENV PYENV_VERSION

skip() { echo "SKIP: perf 6.12: $*" >&2; exit 77; }
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
is_root() { [ "$(id -u)" = 0 ]; }

command -v dpkg-query >/dev/null 2>&1 || skip "not a Debian system (no dpkg-query)"

apt_install() { # packages...: as root only
	is_root || return 1
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1 && return 0
	apt-get update -qq >/dev/null 2>&1
	apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1
}

# the source package: the pinned version, else any linux-source-6.12
if ! installed "$PKG" || [ ! -f "$TARBALL" ]; then
	is_root || skip "$PKG is not installed (run as root to install it: apt-get install $PKG=$WANT_VER)"
	echo "build-perf612: installing $PKG=$WANT_VER" >&2
	apt_install "$PKG=$WANT_VER" || apt_install "$PKG" ||
		skip "apt-get cannot install $PKG (not in the configured archives?)"
	[ -f "$TARBALL" ] || skip "$PKG installed but $TARBALL is missing"
fi
DEB_VER=$(dpkg-query -W -f='${Version}' "$PKG" 2>/dev/null)
UP_VER=${DEB_VER%%-*}           # 6.12.117
case $UP_VER in 6.12.*) ;; *) skip "$PKG has version '$DEB_VER', not 6.12.x" ;; esac
CACHE=$CACHE_ROOT/$UP_VER
PERF=$CACHE/perf

if [ -x "$PERF" ] && [ -f "$CACHE/build-options.txt" ]; then
	echo "$PERF"
	exit 0
fi
mkdir -p "$CACHE" || skip "cannot create $CACHE"
[ -f "$CACHE/build.failed" ] && skip "an earlier build failed ($(head -c 300 "$CACHE/build.failed")); see $CACHE/build.log, delete $CACHE/build.failed to retry"

# one build at a time (two worktrees may start make check together)
if command -v flock >/dev/null 2>&1; then
	exec 8>"$CACHE/.lock"
	flock -w 1200 8 || skip "$CACHE/.lock is held by another build"
	if [ -x "$PERF" ] && [ -f "$CACHE/build-options.txt" ]; then
		echo "$PERF"
		exit 0
	fi
fi

missing=""
for p in $DEPS; do
	installed "$p" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	is_root || skip "missing build dependencies:$missing (run as root to install them)"
	echo "build-perf612: installing$missing" >&2
	# shellcheck disable=SC2086
	apt_install $missing || skip "apt-get cannot install:$missing"
fi

failed() {
	printf '%s\n' "$*" >"$CACHE/build.failed"
	rm -rf "$CACHE/src" "$CACHE/obj"
	skip "$*; see $CACHE/build.log"
}

t0=$(date +%s)
LOG=$CACHE/build.log
: >"$LOG"
rm -rf "$CACHE/src" "$CACHE/obj"
mkdir -p "$CACHE/src" "$CACHE/obj" || failed "cannot create $CACHE/src"
echo "build-perf612: extracting tools/perf/MANIFEST paths of $TARBALL ($DEB_VER)" >&2
TOP=linux-source-6.12
tar -xJf "$TARBALL" -C "$CACHE/src" --wildcards "$TOP/tools/perf/MANIFEST" >>"$LOG" 2>&1 ||
	failed "tools/perf/MANIFEST not found in $TARBALL"
# shellcheck disable=SC2046
tar -xJf "$TARBALL" -C "$CACHE/src" --wildcards \
	$(sed -e '/^[[:space:]]*$/d' -e '/^#/d' -e "s|^|$TOP/|" "$CACHE/src/$TOP/tools/perf/MANIFEST") \
	>>"$LOG" 2>&1 || failed "extracting the MANIFEST paths failed"
# the version perf prints: tools/perf/util/PERF-VERSION-GEN reads it from
# PERF-VERSION-FILE at the top (what `make perf-tar-src-pkg` writes), else it
# asks the top Makefile, which is not in the MANIFEST
printf '#define PERF_VERSION "%s"\n' "$UP_VER" >"$CACHE/src/$TOP/PERF-VERSION-FILE"
JOBS=${PERF612_JOBS:-$(nproc 2>/dev/null || echo 2)}
echo "build-perf612: make -C tools/perf -j$JOBS (about 2 minutes on 2 cores; log: $LOG)" >&2
if ! make -C "$CACHE/src/$TOP/tools/perf" -j"$JOBS" O="$CACHE/obj" prefix=/usr WERROR=0 \
	NO_LIBCRYPTO=1 NO_LIBLLVM=1 NO_CAPSTONE=1 NO_LIBDEBUGINFOD=1 \
	PYTHON=/usr/bin/python3 PYTHON_CONFIG=/usr/bin/python3-config >>"$LOG" 2>&1; then
	failed "make -C tools/perf failed: $(grep -m1 -E 'error|Error' "$LOG" | head -c 200)"
fi
[ -x "$CACHE/obj/perf" ] || failed "make succeeded but $CACHE/obj/perf is missing"
cp "$CACHE/obj/perf" "$PERF.tmp" && mv "$PERF.tmp" "$PERF" || failed "cannot install $PERF"
"$PERF" version --build-options >"$CACHE/build-options.tmp" 2>&1 ||
	{ rm -f "$PERF"; failed "the built perf does not run: $(head -c 200 "$CACHE/build-options.tmp")"; }
v=$("$PERF" version 2>&1 | head -1)
case $v in
"perf version $UP_VER") ;;
*) rm -f "$PERF"; failed "the built perf says '$v', not 'perf version $UP_VER'" ;;
esac
printf '%s (%s), built %s in %ss\n' "$DEB_VER" "$PKG" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
	"$(($(date +%s) - t0))" >"$CACHE/built-from.txt"
mv "$CACHE/build-options.tmp" "$CACHE/build-options.txt"
rm -rf "$CACHE/src" "$CACHE/obj"
echo "build-perf612: built $PERF in $(($(date +%s) - t0))s" >&2
echo "$PERF"
