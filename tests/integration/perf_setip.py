#!/usr/bin/python3
# perf_setip.py IN OUT DSO OFFSET... - copy the perf.data IN to OUT with the
# sample IPs inside DSO's executable mapping moved to the given file offsets
# (hex or decimal; "A-B[/S]" = every S-th offset of [A, B)), one offset per
# sample, in record order. Samples must carry no callchain (record without
# -g) and the data must not be compressed (no -z): then the sample IP is the
# only address perf looks up for that sample, so each listed offset is looked
# up exactly where stock perf and the shim must agree (PLT stubs, the edges
# of .init/.plt/.plt.got/.plt.sec, overlapping symbols).
# Format facts: tools/perf/Documentation/perf.data-file-format.txt (header,
# attrs), include/uapi/linux/perf_event.h (MMAP/MMAP2/SAMPLE layouts).
# Any sample of the process that mapped DSO may be moved (its cpumode becomes
# user). Prints "setip: N samples moved (of M offsets)" on stderr; exits 1 if
# the mapping was not found or there were fewer samples than offsets.
import struct
import sys

SAMPLE_IP = 1 << 0
SAMPLE_TID = 1 << 1
SAMPLE_TIME = 1 << 2
MISC_CPUMODE_MASK = 7
MISC_USER = 2
SAMPLE_CALLCHAIN = 1 << 5
SAMPLE_IDENTIFIER = 1 << 16
PROT_EXEC = 4


def offsets(args):
    out = []
    for a in args:
        if '-' in a:
            rng, _, step = a.partition('/')
            lo, hi = (int(x, 0) for x in rng.split('-'))
            out.extend(range(lo, hi, int(step, 0) if step else 1))
        else:
            out.append(int(a, 0))
    return out


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__ or 'usage: perf_setip.py IN OUT DSO OFFSET...')
    src, dst, dso = sys.argv[1:4]
    offs = offsets(sys.argv[4:])
    buf = bytearray(open(src, 'rb').read())
    if buf[:8] != b'PERFILE2':
        sys.exit('setip: not a file-mode perf.data')
    attr_size, = struct.unpack_from('<Q', buf, 16)
    a_off, a_size, d_off, d_size = struct.unpack_from('<QQQQ', buf, 24)
    types = set()
    for p in range(a_off, a_off + a_size, attr_size):
        types.add(struct.unpack_from('<Q', buf, p + 24)[0])   # attr.sample_type
    if len(types) != 1:
        sys.exit('setip: events with different sample_type')
    st = types.pop()
    if not st & SAMPLE_IP or not st & SAMPLE_TID or st & SAMPLE_CALLCHAIN:
        sys.exit('setip: samples need PERF_SAMPLE_IP|TID and no callchain')
    ip_at = 8 + (8 if st & SAMPLE_IDENTIFIER else 0)
    if not st & SAMPLE_TIME:
        sys.exit('setip: samples need PERF_SAMPLE_TIME')
    # pass 1: the mappings (perf writes records per CPU buffer, not in time
    # order: a mapping may follow its samples in the file); the time of a
    # non-sample record is in its sample_id trailer (TID, TIME: 8 bytes from
    # the end, perf sets sample_id_all)
    maps, end = [], d_off + d_size
    p = d_off
    while p + 8 <= end:
        typ, misc, size = struct.unpack_from('<IHH', buf, p)
        if size < 8:
            sys.exit('setip: bad record size at %#x' % p)
        if typ == 81:
            sys.exit('setip: compressed data (record without -z)')
        if typ in (1, 10):
            pid, = struct.unpack_from('<I', buf, p + 8)
            addr, ln, pgoff = struct.unpack_from('<QQQ', buf, p + 16)
            t, = struct.unpack_from('<Q', buf, p + size - 8)
            if typ == 10:
                prot, = struct.unpack_from('<I', buf, p + 64)
                name = bytes(buf[p + 72:p + size]).split(b'\0')[0].decode(errors='replace')
            else:
                prot = PROT_EXEC
                name = bytes(buf[p + 40:p + size]).split(b'\0')[0].decode(errors='replace')
            if name == dso and prot & PROT_EXEC:
                maps.append((pid, addr, ln, pgoff, t))
        p += size
    # pass 2: samples of that process after the mapping, in file order
    moved, k, p = 0, 0, d_off
    while p + 8 <= end and k < len(offs) and maps:
        typ, misc, size = struct.unpack_from('<IHH', buf, p)
        if typ == 9:
            spid, = struct.unpack_from('<I', buf, p + ip_at + 8)
            stime, = struct.unpack_from('<Q', buf, p + ip_at + 16)
            for pid, addr, ln, pgoff, t in maps:
                if pid == spid and stime > t and pgoff <= offs[k] < pgoff + ln:
                    struct.pack_into('<Q', buf, p + ip_at, addr + offs[k] - pgoff)
                    struct.pack_into('<H', buf, p + 4, (misc & ~MISC_CPUMODE_MASK) | MISC_USER)
                    k += 1
                    moved += 1
                    break
        p += size
    open(dst, 'wb').write(buf)
    print('setip: %d samples moved (of %d offsets)' % (moved, len(offs)), file=sys.stderr)
    if not maps:
        sys.exit('setip: no executable mapping of %s' % dso)
    if moved < len(offs):
        sys.exit(1)


main()
