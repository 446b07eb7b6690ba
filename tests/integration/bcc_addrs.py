#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""bcc_addrs.py PID [N [ADDRS_OUT]] - runtime addresses worth resolving in process PID:
for every executable file mapping, symbol starts (each start shared by 3+
symbols - identical-code folding - and a sample of the others), start+1,
the byte before each sampled start, and N uniform random addresses per
mapping (default 200). Seeded: the same process gives the same list.
Prints "<hex addr>" lines. With ADDRS_OUT, also writes the same addresses as
a SYMLAZY_ADDRS list ("<build-id> <file offset>" lines) there.
Only the standard library (a small ELF64 reader).
"""
import random
import struct
import sys


def build_id(d, shdrs):
    for sh in shdrs:
        if sh[1] != 7:
            continue
        off, end = sh[4], sh[4] + sh[5]
        while off + 12 <= end:
            namesz, descsz, typ = struct.unpack_from('<III', d, off)
            name = d[off + 12:off + 12 + namesz]
            desc = off + 12 + ((namesz + 3) & ~3)
            if typ == 3 and name[:3] == b'GNU':
                return d[desc:desc + descsz].hex()
            off = desc + ((descsz + 3) & ~3)
    return None


BIDS = {}


def elf_syms(path):
    with open(path, 'rb') as f:
        d = f.read()
    if d[:4] != b'\x7fELF' or d[4] != 2:
        return None
    (e_type, _m, _v, _entry, e_phoff, e_shoff, _fl, _eh, e_phentsize, e_phnum,
     e_shentsize, e_shnum, _shstrndx) = struct.unpack_from('<HHIQQQIHHHHHH', d, 16)
    loads = []
    for i in range(e_phnum):
        p_type, _pf, p_offset, p_vaddr, _pa, p_filesz, p_memsz, _al = struct.unpack_from(
            '<IIQQQQQQ', d, e_phoff + i * e_phentsize)
        if p_type == 1:
            loads.append((p_vaddr, p_offset, max(p_filesz, p_memsz)))
    shdrs = [struct.unpack_from('<IIQQQQIIQQ', d, e_shoff + i * e_shentsize) for i in range(e_shnum)]
    BIDS[path] = build_id(d, shdrs)
    syms = []
    for sh in shdrs:
        if sh[1] not in (2, 11) or not sh[9]:
            continue
        off, size, ent = sh[4], sh[5], sh[9]
        for k in range(size // ent):
            st_name, st_info, _o, st_shndx, st_value, st_size = struct.unpack_from('<IBBHQQ', d, off + k * ent)
            if st_value and st_name and (st_info & 0xf) in (2, 10):
                syms.append((st_value, st_size))
    return e_type, loads, syms


def main():
    pid = int(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    rnd = random.Random(pid & 0)  # fixed seed: same list for the same binaries
    seen = set()
    out = []
    maps = []
    with open('/proc/%d/maps' % pid) as f:
        for line in f:
            parts = line.split(None, 5)
            if len(parts) < 6 or parts[1][2] != 'x' or not parts[5].startswith('/'):
                continue
            lo, hi = (int(x, 16) for x in parts[0].split('-'))
            maps.append((lo, hi, int(parts[2], 16), parts[5].strip()))
    for lo, hi, moff, path in maps:
        for _ in range(n):
            out.append(rnd.randrange(lo, hi))
        if path in seen:
            continue
        seen.add(path)
        try:
            r = elf_syms('/proc/%d/root%s' % (pid, path))
        except OSError:
            continue
        if not r:
            continue
        e_type, loads, syms = r
        starts = {}
        for v, s in syms:
            starts[v] = starts.get(v, 0) + 1
        icf = sorted(v for v, c in starts.items() if c >= 3)
        pick = rnd.sample(icf, min(len(icf), 4 * n))
        rest = sorted(v for v, c in starts.items() if c < 3)
        pick += rnd.sample(rest, min(len(rest), n))
        for v in sorted(pick):
            for seg_v, seg_off, seg_sz in loads:
                if seg_v <= v < seg_v + seg_sz:
                    fo = v - seg_v + seg_off
                    rt = v if e_type == 2 else lo - moff + fo
                    if lo <= rt < hi:
                        out += [rt, rt + 1, rt - 1]
                    break
    for a in out:
        print('%x' % a)
    if len(sys.argv) > 3:
        with open(sys.argv[3], 'w') as f:
            for a in out:
                for lo, hi, moff, path in maps:
                    bid = BIDS.get('/proc/%d/root%s' % (pid, path))
                    if bid and lo <= a < hi:
                        f.write('%s %x\n' % (bid, a - lo + moff))
                        break


main()
