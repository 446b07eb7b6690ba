#!/bin/sh
# in-root.sh ROOT CMD... - run CMD inside the root filesystem ROOT (one made
# by scripts/build-root.sh) the way a user's container runs it: in new mount
# and pid namespaces,
#   unshare --mount --pid --fork --mount-proc=ROOT/proc chroot ROOT CMD...
# (or, when unshare cannot make them, a plain chroot with ROOT/proc mounted
# and unmounted again by a trap). CMD runs as a child of the namespace's pid 1
# (a shell, as with `docker run --init`), with an empty environment but for PATH,
# HOME=/root, LANG=C.UTF-8 and TERM: pass variables as `env VAR=VALUE CMD...`.
#
#   ROOT=$(sh scripts/build-root.sh sid) || skip
#   SYMLAZY_WORK=$tmp sh scripts/in-root.sh "$ROOT" perf record -g -o /work/p.data -- /bin/true
#   SYMLAZY_WORK=$tmp sh scripts/in-root.sh "$ROOT" \
#       env LD_PRELOAD=/symlazy/libsymlazy.so SYMLAZY_STATS=1 perf script -i /work/p.data
#
# Mounted inside (all in the private mount namespace: they vanish when CMD
# ends, even when it or this script is killed):
#   /proc     a new procfs (of the new pid namespace; the host's procfs in the
#             chroot fallback)
#   /sys      the host's /sys (rbind), for perf's PMUs and the kernel's BTF
#   /dev      the host's /dev (rbind), for /dev/null, /dev/pts, /dev/shm
#   /symlazy  read-only bind of $SYMLAZY_BIND (default: the clone's build/
#             directory, when it exists; SYMLAZY_BIND= mounts nothing);
#             SYMLAZY_BIND_AT changes the path inside
#   /work     read-write bind of $SYMLAZY_WORK when set, else a fresh tmpfs
#   $SYMLAZY_SAME  space-separated host directories, each bound read-write at
#             its own path (e.g. a test's build directory, so host paths in
#             perf.data and on command lines mean the same files inside)
#   /root, /tmp  fresh tmpfs each run (perf record's ~/.debug build-id cache
#             would otherwise stay in the shared cached root and feed the next
#             test); SYMLAZY_KEEP_HOME=1 uses the root's own directories
# With SYMLAZY_BPF=1 also what bpftrace and bcc need: bpffs at /sys/fs/bpf,
# tracefs at /sys/kernel/tracing, debugfs at /sys/kernel/debug (each only when
# the host's /sys does not have it mounted already) and `ulimit -l unlimited`.
#
# Root only. Exit status: CMD's; 125 with one line "in-root: <why>" on stderr
# when the root cannot be entered.
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

die() { echo "in-root: $*" >&2; exit 125; }

[ $# -ge 2 ] || die "usage: in-root.sh ROOT CMD..."
ROOT=$1; shift
[ -d "$ROOT" ] && [ -x "$ROOT/bin/sh" ] || die "$ROOT is not a root filesystem (no bin/sh)"
ROOT=$(cd "$ROOT" && pwd -P) || die "cannot resolve $ROOT"
[ "$ROOT" != / ] || die "ROOT is /"
[ "$(id -u)" = 0 ] || die "not root (chroot and mount need root)"

HERE=$(cd "$(dirname "$0")" && pwd -P)
if [ "${SYMLAZY_BIND+set}" = set ]; then
	BIND=$SYMLAZY_BIND
	[ -z "$BIND" ] || [ -d "$BIND" ] || die "SYMLAZY_BIND=$BIND is not a directory"
else
	BIND=$HERE/../build
	[ -d "$BIND" ] || BIND=""
fi
[ -z "$BIND" ] || BIND=$(cd "$BIND" && pwd -P)
BIND_AT=${SYMLAZY_BIND_AT:-/symlazy}
case $BIND_AT in /?*) ;; *) die "SYMLAZY_BIND_AT=$BIND_AT is not an absolute path" ;; esac
WORK=${SYMLAZY_WORK:-}
[ -z "$WORK" ] || [ -d "$WORK" ] || die "SYMLAZY_WORK=$WORK is not a directory"
[ -z "$WORK" ] || WORK=$(cd "$WORK" && pwd -P)
BPF=${SYMLAZY_BPF:-0}
KEEP=${SYMLAZY_KEEP_HOME:-0}

# The mounts, done by a shell already inside the new mount namespace (or, in
# the fallback, in the host's: then the trap below undoes them). Arguments:
# ROOT BIND BIND_AT WORK BPF KEEP MOUNT_PROC CMD...
SETUP='
set -u
R=$1 BIND=$2 BIND_AT=$3 WORK=$4 BPF=$5 KEEP=$6 MPROC=$7; shift 7
fail() { echo "in-root: $*" >&2; exit 125; }
mnt() { # dir mount-args...
	d=$1; shift
	mkdir -p "$d" 2>/dev/null
	mount "$@" "$d" || fail "mount $* $d failed"
	echo "$d" >>"$MOUNTED"
}
[ "$MPROC" = 1 ] && mnt "$R/proc" -t proc proc
mnt "$R/sys" --rbind /sys
mnt "$R/dev" --rbind /dev
if [ -n "$BIND" ]; then
	mnt "$R$BIND_AT" --bind "$BIND"
	mount -o remount,bind,ro "$R$BIND_AT" || fail "cannot make $R$BIND_AT read-only"
fi
if [ -n "$WORK" ]; then
	mnt "$R/work" --bind "$WORK"
else
	mnt "$R/work" -t tmpfs -o mode=1777 tmpfs
fi
if [ "$BPF" = 1 ]; then
	mounted() { awk -v d="$1" -v t="$2" "\$5 == d && \$0 ~ (\" - \" t \" \") { f = 1 } END { exit !f }" /proc/self/mountinfo; }
	mounted "$R/sys/fs/bpf" bpf || mnt "$R/sys/fs/bpf" -t bpf bpf
	mounted "$R/sys/kernel/tracing" tracefs || mnt "$R/sys/kernel/tracing" -t tracefs tracefs
	mounted "$R/sys/kernel/debug" debugfs || mnt "$R/sys/kernel/debug" -t debugfs debugfs
	# the old path of tracefs, which bcc and older bpftrace still try
	if ! mounted "$R/sys/kernel/debug/tracing" tracefs &&
		mount -t tracefs tracefs "$R/sys/kernel/debug/tracing" 2>/dev/null; then
		echo "$R/sys/kernel/debug/tracing" >>"$MOUNTED"
	fi
	ulimit -l unlimited 2>/dev/null || ulimit -l 1048576 2>/dev/null || :
fi
if [ "$KEEP" != 1 ]; then
	# fresh /root (the ~/.debug build-id cache of perf) and /tmp per run: the
	# cached root stays as built, one test cannot feed the next
	mnt "$R/root" -t tmpfs -o mode=0700 tmpfs
	mnt "$R/tmp" -t tmpfs -o mode=1777 tmpfs
fi
# host directories at their own paths inside (SYMLAZY_SAME), read-write,
# after /tmp so that a clone under /tmp stays visible
for d in ${SYMLAZY_SAME:-}; do
	[ -d "$d" ] || fail "SYMLAZY_SAME: $d is not a directory"
	mnt "$R$d" --bind "$d"
done
# not exec: this shell stays pid 1 of the new pid namespace (like
# `docker run --init`), CMD runs as its child
chroot "$R" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" "$@"
'

MOUNTED=$(mktemp "${TMPDIR:-/tmp}/in-root.XXXXXX") || die "mktemp failed"
export MOUNTED

# 1. unshare: the mounts live in the new mount namespace only
if unshare --mount --pid --fork --propagation private true 2>/dev/null; then
	rm -f "$MOUNTED"
	MOUNTED=/dev/null
	# --kill-child: when unshare is killed (a test's timeout), so is the
	# namespace's pid 1, and with it every process inside
	exec unshare --mount --pid --fork --kill-child --propagation private --mount-proc="$ROOT/proc" \
		sh -c "$SETUP" sh "$ROOT" "$BIND" "$BIND_AT" "$WORK" "$BPF" "$KEEP" 0 "$@"
fi

# 2. fallback: a plain chroot in the host's namespaces; undo the mounts on exit
echo "in-root: unshare --mount --pid failed; using a plain chroot" >&2
cleanup() {
	[ -f "$MOUNTED" ] || return 0
	sort -r "$MOUNTED" | while read -r d; do umount -l "$d" 2>/dev/null; done
	rm -f "$MOUNTED"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
sh -c "$SETUP" sh "$ROOT" "$BIND" "$BIND_AT" "$WORK" "$BPF" "$KEEP" 1 "$@"
rc=$?
exit $rc
