#!/bin/sh
# perf.sh [perf.data] - run stock perf under libsymlazy.so.
#   sh examples/perf.sh                      # uses ./perf.data
#   SYMLAZY_SO=/usr/local/lib/libsymlazy.so sh examples/perf.sh big.data
# Nothing in perf changes: the shim only decides which ELF symbols perf sees.
SO=${SYMLAZY_SO:-$(cd "$(dirname "$0")/.." && pwd)/build/libsymlazy.so}
[ -f "$SO" ] || SO=/usr/local/lib/libsymlazy.so
DATA=${1:-perf.data}
[ -f "$DATA" ] || { echo "usage: $0 [perf.data]  (record one: perf record -g -- cmd)" >&2; exit 2; }

# 1. Default: lazy (only the symbols the samples need) + mmap'ed symbol tables.
#    Output is byte-identical to plain `perf script`; SYMLAZY_STATS=1 prints a
#    JSON summary (kept/dropped symbols per DSO, why) to stderr at exit.
LD_PRELOAD=$SO SYMLAZY_STATS=1 perf script -i "$DATA" >perf-script.txt
echo "perf script -> perf-script.txt ($(wc -l <perf-script.txt) lines)"

# 2. A hard cap instead of laziness: at most 64 MiB of symbols; past the cap
#    frames print as [unknown] and one "symlazy: symbol budget" line is printed.
LD_PRELOAD=$SO SYMLAZY_LAZY=off SYMLAZY_MAX_BYTES=64M perf report --stdio -i "$DATA" >perf-report.txt
echo "perf report (64M budget) -> perf-report.txt"

# 3. Recording is unaffected, and the recorded program never sees the shim
#    (inside perf the shim removes itself from LD_PRELOAD, so children never load it):
#    LD_PRELOAD=$SO perf record -g -- ./myprog
# 4. Switch everything off without removing the preload: SYMLAZY_DISABLE=1
