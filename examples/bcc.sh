#!/bin/sh
# bcc.sh PID [ADDR...] - bcc symbolization under libsymlazy.so.
# bcc reads ELF symbol tables through libelf too (libbcc -> libelf.so.1), so
# the shim bounds it the same way: mmap'ed tables always, with
# SYMLAZY_MAX_BYTES a cap at libbcc's own cost per symbol (a binary loaded for
# many PIDs is charged once), with SYMLAZY_ADDRS (file offsets) lazy mode.
# Python reaches libbcc through ctypes, so BPF.sym is answered by libbcc
# itself; bpftrace and C/C++ tools get libbcc's symcache from symlazy's index.
#   sh examples/bcc.sh 1234 0x55d0c0de1130     # resolve addresses with BPF.sym()
#   sh examples/bcc.sh 1234                    # profile-bpfcc for 5 s (needs kernel headers)
SO=${SYMLAZY_SO:-$(cd "$(dirname "$0")/.." && pwd)/build/libsymlazy.so}
[ -f "$SO" ] || SO=/usr/local/lib/libsymlazy.so
[ $# -ge 1 ] || { echo "usage: $0 PID [ADDR...]" >&2; exit 2; }
pid=$1; shift
export LD_PRELOAD=$SO SYMLAZY_MAX_BYTES=${SYMLAZY_MAX_BYTES:-256M} SYMLAZY_STATS=${SYMLAZY_STATS:-1}
if [ $# -gt 0 ]; then
	# bcc's Python bindings need Debian's /usr/bin/python3 (python3-bpfcc)
	exec /usr/bin/python3 - "$pid" "$@" <<'PY'
import sys
from bcc import BPF
pid = int(sys.argv[1])
for a in sys.argv[2:]:
    print(a, BPF.sym(int(a, 16), pid, show_module=True, show_offset=True).decode())
PY
fi
exec profile-bpfcc -U -p "$pid" 5
