#!/usr/bin/env python3
"""dwarf-needed.py SCRIPT BIDS ADDRS NEEDED_OUT

The addresses perf 6.1 really looks up for user DSOs in a recording (the
"needed" set), from `perf script -F ip,dso --no-inline` output (SCRIPT): in
6.1 user callchain lines print the map-relative file offset followed by
"(<dso path>)" (util/evsel_fprintf.c), the space of the SYMLAZY_ADDRS sets.
BIDS: "<build-id> <path>" lines (perf buildid-list, readelf -n for the
rest). ADDRS: the SYMLAZY_ADDRS file symlazy addrs wrote for the recording
(the collected set). Writes the needed set to NEEDED_OUT in the SYMLAZY_ADDRS
format (so a run with SYMLAZY_ADDRS=NEEDED_OUT SYMLAZY_LAZY=off keeps what
an exact pre-pass would keep) and prints one line:
  dsos=N needed=A collected=B missing=M ratio=B/A
Exit 1 if a needed address is missing from the collected set.
"""
import sys


def main():
    script, bids_path, addrs_path, out_path = sys.argv[1:5]
    bid = {}
    with open(bids_path) as f:
        for line in f:
            parts = line.rstrip("\n").split(" ", 1)
            if len(parts) == 2 and not parts[1].startswith("["):
                bid.setdefault(parts[1], parts[0])
    have = {}
    with open(addrs_path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            b, a = line.split()
            have.setdefault(b, set()).add(int(a, 16))
    need = {}
    with open(script, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.endswith(")") or "(" not in line:
                continue
            dso = line[line.rindex("(") + 1:-1]
            if dso not in bid:
                continue
            try:
                a = int(line.split()[0], 16)
            except (ValueError, IndexError):
                continue
            need.setdefault(bid[dso], set()).add(a)
    missing = []
    for b, s in need.items():
        for a in sorted(s - have.get(b, set())):
            missing.append("%s %x" % (b, a))
    with open(out_path, "w") as f:
        for b in sorted(need):
            for a in sorted(need[b]):
                f.write("%s %x\n" % (b, a))
    n_need = sum(len(s) for s in need.values())
    n_have = sum(len(have.get(b, ())) for b in need)
    print("dsos=%d needed=%d collected=%d missing=%d ratio=%.2f" % (
        len(need), n_need, n_have, len(missing), n_have / n_need if n_need else 0.0))
    for m in missing[:5]:
        print("missing: " + m)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
