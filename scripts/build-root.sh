#!/bin/sh
# build-root.sh SUITE - build a Debian root filesystem for SUITE (sid, trixie,
# bookworm, ...) once into a cache directory outside the clone, with the tools
# the cross-release tests run (tests/lib/root.sh: container.sh, perf72.sh,
# perf72_inline.sh), and print its path.
#
#   ROOT=$(sh scripts/build-root.sh trixie) || echo "SKIP: no trixie root"
#   sh scripts/in-root.sh "$ROOT" perf --version
#
# The root is made with
#   debootstrap --variant=minbase SUITE DIR http://deb.debian.org/debian
# (the archive this machine's apt uses, /etc/apt/sources.list.d/debian.sources)
# and then, inside it, apt-get installs (with --no-install-recommends and
# -o Acquire::Check-Valid-Until=false: a suite's Release file may be older
# than the clock, e.g. sid's expires a week after it was written):
#   sid:    linux-perf g++ rustc nodejs libc6-dbg binutils elfutils libdw1
#   trixie: linux-perf g++ rustc nodejs libc6-dbg binutils elfutils bpftrace
#           bpfcc-tools python3-bpfcc
#   other:  linux-perf g++ libc6-dbg binutils elfutils
# (SYMLAZY_ROOT_PACKAGES replaces the list). A stable suite also gets its
# -updates and -security archives, as in a debian:SUITE container image.
# linux-perf is required; a package of the list that cannot be installed is
# left out with a warning on stderr and named in the stamp file.
#
# Cache: ${SYMLAZY_ROOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/symlazy-roots}/SUITE
# (the root), SUITE.log beside it (debootstrap's and apt's output), SUITE.lock
# (one build at a time). The stamp DIR/.symlazy-root-complete is written last,
# with the versions of the main packages: a root without it is half built
# (an interrupted run) and is unmounted, removed and built again. Delete the
# directory to rebuild. About 5-15 minutes and 1-2 GB per root.
#
# debootstrap and apt run inside `unshare --mount`, so the /proc, /sys and
# /dev mounts they make vanish with them even when they are killed.
#
# Root only (debootstrap needs it; the debootstrap package is installed with
# apt-get when missing). On success the root's path is the only line on
# stdout; on failure one line "build-root: <why>" goes to stderr and the exit
# status is 1 (callers turn the line into a SKIP).
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
MIRROR=http://deb.debian.org/debian
SECURITY_MIRROR=http://deb.debian.org/debian-security
STAMP_NAME=.symlazy-root-complete

die() { echo "build-root: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: build-root.sh SUITE (e.g. sid, trixie)"
SUITE=$1
case $SUITE in
'' | *[!a-z0-9-]*) die "bad suite name '$SUITE'" ;;
esac
case $SUITE in
sid | unstable)
	PKGS="linux-perf g++ rustc nodejs libc6-dbg binutils elfutils libdw1" ;;
trixie)
	PKGS="linux-perf g++ rustc nodejs libc6-dbg binutils elfutils bpftrace bpfcc-tools python3-bpfcc" ;;
*)
	PKGS="linux-perf g++ libc6-dbg binutils elfutils" ;;
esac
PKGS=${SYMLAZY_ROOT_PACKAGES:-$PKGS}

CACHE_ROOT=${SYMLAZY_ROOT_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/symlazy-roots}
DIR=$CACHE_ROOT/$SUITE
STAMP=$DIR/$STAMP_NAME
LOG=$CACHE_ROOT/$SUITE.log

if [ -f "$STAMP" ] && [ -x "$DIR/bin/sh" ]; then
	echo "$DIR"
	exit 0
fi

[ "$(id -u)" = 0 ] || die "not root (debootstrap needs root to build $DIR)"
command -v unshare >/dev/null 2>&1 || die "no unshare (util-linux)"
command -v chroot >/dev/null 2>&1 || die "no chroot (coreutils)"
mkdir -p "$CACHE_ROOT" || die "cannot create $CACHE_ROOT"

# one build per suite at a time (two test runs may start together)
if command -v flock >/dev/null 2>&1; then
	exec 8>"$CACHE_ROOT/$SUITE.lock"
	flock -w 3600 8 || die "$CACHE_ROOT/$SUITE.lock is held by another build"
	if [ -f "$STAMP" ] && [ -x "$DIR/bin/sh" ]; then
		echo "$DIR"
		exit 0
	fi
fi

if ! command -v debootstrap >/dev/null 2>&1; then
	echo "build-root: installing debootstrap" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -qq --no-install-recommends debootstrap >/dev/null 2>&1 ||
		{ apt-get update -qq >/dev/null 2>&1 &&
			apt-get install -y -qq --no-install-recommends debootstrap >/dev/null 2>&1; } ||
		die "apt-get cannot install debootstrap"
fi

# unmount whatever is still mounted under $DIR (deepest first), so that
# removing a half-built root cannot reach into the host's /proc, /sys or /dev
unmount_under() {
	awk -v d="$DIR" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo |
		sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
}
remove_root() {
	unmount_under
	if awk -v d="$DIR" '$5 == d || index($5, d "/") == 1 { f = 1 } END { exit !f }' /proc/self/mountinfo; then
		die "cannot unmount everything under $DIR; remove it by hand"
	fi
	rm -rf --one-file-system "$DIR" 2>/dev/null
	[ ! -e "$DIR" ] || die "cannot remove the half-built $DIR"
}
# the last error line of a log section, for the one-line reason
why() { # default message
	w=$(grep -E '^(E:|W: Failure|W: Couldn|dpkg: error|debootstrap: )' "$LOG" 2>/dev/null | tail -1 | cut -c1-200)
	echo "${w:-$1}"
}

if [ -e "$DIR" ]; then
	echo "build-root: removing the half-built $DIR" >&2
	remove_root
fi

t0=$(date +%s)
: >"$LOG" || die "cannot write $LOG"
echo "build-root: debootstrap --variant=minbase $SUITE $DIR $MIRROR (log: $LOG)" >&2
echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) debootstrap --variant=minbase $SUITE $DIR $MIRROR" >>"$LOG"
if ! unshare --mount --propagation private \
	debootstrap --variant=minbase "$SUITE" "$DIR" "$MIRROR" >>"$LOG" 2>&1; then
	[ -f "$DIR/debootstrap/debootstrap.log" ] && {
		echo "== $DIR/debootstrap/debootstrap.log" >>"$LOG"
		tail -50 "$DIR/debootstrap/debootstrap.log" >>"$LOG"
	}
	reason=$(why "see $LOG")
	remove_root
	die "debootstrap $SUITE failed: $reason (log: $LOG)"
fi
t1=$(date +%s)
echo "== debootstrap done in $((t1 - t0))s" >>"$LOG"

# apt's configuration inside the root: no Valid-Until check, no recommends,
# no services started by maintainer scripts
cat >"$DIR/etc/apt/apt.conf.d/99symlazy" <<'EOF'
// written by symlazy's scripts/build-root.sh
Acquire::Check-Valid-Until "false";
APT::Install-Recommends "false";
APT::Install-Suggests "false";
EOF
printf '#!/bin/sh\nexit 101\n' >"$DIR/usr/sbin/policy-rc.d" && chmod 755 "$DIR/usr/sbin/policy-rc.d"
[ -f /etc/resolv.conf ] && cp -L /etc/resolv.conf "$DIR/etc/resolv.conf" 2>/dev/null
case $SUITE in
sid | unstable | testing | experimental) ;;
*)
	# a stable suite's container image also has the point updates and security
	{
		echo "deb $MIRROR $SUITE main"
		echo "deb $MIRROR $SUITE-updates main"
		echo "deb $SECURITY_MIRROR $SUITE-security main"
	} >"$DIR/etc/apt/sources.list"
	;;
esac

# run a shell command line inside the root, with /proc, /sys and /dev
# mounted in a private mount namespace (gone when it ends)
in_root() {
	unshare --mount --propagation private sh -c '
		R=$1; shift
		mount -t proc proc "$R/proc" &&
		mount --rbind /sys "$R/sys" &&
		mount --rbind /dev "$R/dev" || exit 99
		exec chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive /bin/sh -c "$1"' sh "$DIR" "$1" >>"$LOG" 2>&1
}

APT="apt-get -y -o Acquire::Check-Valid-Until=false -o Dpkg::Use-Pty=0"
echo "build-root: apt-get install $PKGS (inside $DIR)" >&2
echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) apt-get update" >>"$LOG"
if ! in_root "$APT update"; then
	reason=$(why "apt-get update failed")
	remove_root
	die "apt-get update in the $SUITE root failed: $reason (log: $LOG)"
fi
echo "== $(date -u +%Y-%m-%dT%H:%M:%SZ) apt-get install --no-install-recommends $PKGS" >>"$LOG"
missing=""
if ! in_root "$APT install --no-install-recommends $PKGS"; then
	# one at a time: keep what installs, name what does not
	echo "== all at once failed; one package at a time" >>"$LOG"
	for p in $PKGS; do
		in_root "$APT install --no-install-recommends $p" || missing="$missing $p"
	done
fi
if ! in_root "command -v perf >/dev/null && perf version >/dev/null 2>&1"; then
	reason=$(why "no apt error")
	remove_root
	die "no working perf in the $SUITE root after apt-get install ($reason; log: $LOG)"
fi
[ -n "$missing" ] && echo "build-root: warning: not installable in $SUITE:$missing (log: $LOG)" >&2
in_root "$APT clean" || true
# mount points used by scripts/in-root.sh
mkdir -p "$DIR/symlazy" "$DIR/work"

t2=$(date +%s)
# the stamp, written last: the root is complete
{
	echo "suite=$SUITE"
	echo "mirror=$MIRROR"
	echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ) debootstrap_s=$((t1 - t0)) total_s=$((t2 - t0))"
	echo "packages=$PKGS"
	echo "missing=${missing# }"
	chroot "$DIR" dpkg-query -W -f='version ${Package} ${Version}\n' \
		linux-perf libc6 libelf1t64 libelf1 libdw1t64 libdw1 elfutils binutils g++ rustc nodejs \
		bpftrace bpfcc-tools python3-bpfcc 2>/dev/null | awk 'NF == 3'
} >"$STAMP.tmp" && mv "$STAMP.tmp" "$STAMP" || die "cannot write $STAMP"
echo "== done in $((t2 - t0))s" >>"$LOG"
echo "build-root: built $DIR in $((t2 - t0))s ($(du -sh "$DIR" 2>/dev/null | cut -f1))" >&2
echo "$DIR"
