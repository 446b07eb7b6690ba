#!/bin/sh
# cgroup-run.sh LIMIT -- CMD... - run CMD in a fresh memory cgroup limited to
# LIMIT bytes (a container's memory limit: cgroup v2 memory.max + swap.max 0,
# or cgroup v1 memory.limit_in_bytes + memsw), print CMD's exit status and the
# cgroup's peak usage on stderr as "cgroup-run: rc=N peak_kb=N", and exit with
# CMD's status (137 = killed by the OOM killer, as in a container).
# Exit 3 (and one line "cgroup-run: SKIP: <reason>") when no cgroup can be made.
set -u
LIMIT=$1; shift
[ "${1:-}" = "--" ] && shift
skip() { echo "cgroup-run: SKIP: $*" >&2; exit 3; }
name=symlazy-$$
if [ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; then
	self=$(sed -n 's/^0:://p' /proc/self/cgroup)
	parent=/sys/fs/cgroup$self
	# a v2 process may not sit in an inner node that has children with
	# controllers; use a sibling of our own cgroup's parent when needed
	grep -qw memory "$parent/cgroup.subtree_control" 2>/dev/null ||
		echo +memory > "$parent/cgroup.subtree_control" 2>/dev/null || parent=$(dirname "$parent")
	cg=$parent/$name
	mkdir "$cg" 2>/dev/null || skip "cannot create a cgroup under $parent (not root, or delegated without memory)"
	echo "$LIMIT" > "$cg/memory.max" 2>/dev/null || { rmdir "$cg"; skip "memory.max not writable"; }
	echo 0 > "$cg/memory.swap.max" 2>/dev/null
	peakf=$cg/memory.peak
else
	self=$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup)
	[ -n "$self" ] || skip "no cgroup v1 memory controller"
	cg=/sys/fs/cgroup/memory$self/$name
	mkdir "$cg" 2>/dev/null || skip "cannot create a cgroup under /sys/fs/cgroup/memory$self (not root?)"
	echo "$LIMIT" > "$cg/memory.limit_in_bytes" 2>/dev/null || { rmdir "$cg"; skip "memory.limit_in_bytes not writable"; }
	echo "$LIMIT" > "$cg/memory.memsw.limit_in_bytes" 2>/dev/null
	peakf=$cg/memory.max_usage_in_bytes
fi
sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$cg" "$@"
rc=$?
peak=$(cat "$peakf" 2>/dev/null || echo 0)
# move nothing back: the command has exited; the cgroup is empty
rmdir "$cg" 2>/dev/null
echo "cgroup-run: rc=$rc peak_kb=$((peak / 1024))" >&2
exit $rc
