#!/usr/bin/env python3
"""abbrev_first.py FILE... - prints "F U": of the U units in the .debug_info
of the ELF files FILE (uncompressed sections, 64-bit little-endian), F have
their unit DIE's abbreviation as the first entry of their table (what
index/abbrevord.c arranges in libdw's copies). DWARF 2-5 unit headers
(DWARF 5 section 7.5.1), 32- and 64-bit DWARF; other units are counted in U."""
import struct, sys

def uleb(b, i):
    r = s = 0
    while True:
        c = b[i]; i += 1
        r |= (c & 0x7f) << s; s += 7
        if not c & 0x80:
            return r, i

def sections(d):
    shoff, = struct.unpack_from('<Q', d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', d, 0x3a)
    sh = [struct.unpack_from('<IIQQQQIIQQ', d, shoff + k * shentsize) for k in range(shnum)]
    so = sh[shstrndx][4]
    out = {}
    for s in sh:
        n = d[so + s[0]:d.index(b'\0', so + s[0])].decode()
        out[n] = d[s[4]:s[4] + s[5]] if s[1] != 8 else b''
    return out

f = u = 0
for path in sys.argv[1:]:
    sec = sections(open(path, 'rb').read())
    info, ab = sec.get('.debug_info', b''), sec.get('.debug_abbrev', b'')
    off = 0
    while off + 4 <= len(info):
        ln, = struct.unpack_from('<I', info, off); p = off + 4; osz = 4
        if ln == 0xffffffff:
            ln, = struct.unpack_from('<Q', info, p); p += 8; osz = 8
        end = p + ln
        ver, = struct.unpack_from('<H', info, p); p += 2
        u += 1
        if ver == 5:
            ut = info[p]; p += 2
            abo = int.from_bytes(info[p:p + osz], 'little'); p += osz
            p += {4: 8, 5: 8, 2: 8 + osz, 6: 8 + osz}.get(ut, 0)
        elif 2 <= ver <= 4:
            abo = int.from_bytes(info[p:p + osz], 'little'); p += osz + 1
        else:
            off = end; continue
        code, _ = uleb(info, p)
        first, _ = uleb(ab, abo)
        f += code == first
        off = end
print(f, u)
