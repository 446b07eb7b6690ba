#!/usr/bin/env python3
"""heapacct.py FILE [--by entry|inner|both|stack] - group heapacct.c's peak
snapshot: 'entry' = the outermost frame in a library perf called (the API
perf called: libdw/libelf/libz...), 'inner' = the innermost frame outside
libc; bytes per group, biggest first."""
import sys, collections
f = sys.argv[1]
by = sys.argv[2] if len(sys.argv) > 2 else "both"
LIBC = ("libc.so", "ld-linux", "heapacct", "libgcc_s")
def obj(fr): return fr.split("+", 1)[0]
g = collections.Counter(); cnt = collections.Counter()
lines = open(f).read().splitlines()
print(lines[0])
for l in lines[1:]:
    p = l.split(" ")
    live, n, frames = int(p[0]), int(p[1]), p[2:]
    inner = next((x for x in frames if not obj(x).startswith(LIBC)), "?")
    entry = "perf"
    for i, x in enumerate(frames):
        if obj(x) == "perf":
            entry = frames[i - 1] if i > 0 and not obj(frames[i-1]).startswith(LIBC) else "perf"
            break
    if by == "entry": k = entry
    elif by == "inner": k = inner
    elif by == "stack": k = " ".join(frames[:10])
    else: k = entry + "  <-inner- " + inner
    g[k] += live; cnt[k] += n
tot = sum(g.values())
for k, v in g.most_common(60):
    print("%9d %5.1f%% %6d  %s" % (v, 100.0 * v / tot, cnt[k], k))
