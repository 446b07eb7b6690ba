#!/usr/bin/env python3
"""Addresses to ask addr2line about (tests/integration/a2l.sh).

a2l_addrs.py FILE N SEED [code]: N addresses as perf's addr2line child gets them
("%016x\\n,\\n" each, the "," being perf's sentinel), drawn from FILE's own
ELF tables (read here with struct, no tools): symbol starts, starts - 1,
middles, last bytes, ends of the symbols of the table addr2line uses
(.symtab, else .dynsym), random addresses in SHF_ALLOC sections (.text,
.plt, .data, .bss, .tbss ...), gaps between sections, addresses outside any
section, and repeats of earlier ones (the one-entry cache of
_bfd_elf_find_function), in runs of ascending addresses and shuffled.
With "code": none in an SHF_ALLOC section that is not SHF_EXECINSTR (perf's
sample and callchain addresses; srcline/a2l.c hands a session with a DWARF
table over to binutils at the first such query).
"""
import random, struct, sys

path, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
code = len(sys.argv) > 4 and sys.argv[4] == 'code'
rnd = random.Random(seed)
data = open(path, 'rb').read()
(shoff,) = struct.unpack_from('<Q', data, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
secs = []
for i in range(shnum):
    name, typ, flags, addr, off, size, link, info, align, entsize = struct.unpack_from(
        '<IIQQQQIIQQ', data, shoff + i * shentsize)
    secs.append(dict(name=name, type=typ, flags=flags, addr=addr, off=off, size=size, link=link))
alloc = [s for s in secs if s['flags'] & 2 and s['size']]
syms = []
for want in (2, 11):            # SHT_SYMTAB, else SHT_DYNSYM
    tab = [s for s in secs if s['type'] == want]
    if not tab or tab[0]['size'] <= 24:
        continue
    t = tab[0]
    for k in range(1, t['size'] // 24):
        st_name, info, other, shndx, value, size = struct.unpack_from('<IBBHQQ', data, t['off'] + 24 * k)
        if shndx and shndx < 0xff00 and (info & 15) != 4:
            syms.append((value, size))
    break
pool = []
for v, s in syms:
    pool += [v, v - 1, v + s // 2, v + max(s, 1) - 1, v + s, v + s + 1]
pool = [a & 0xffffffffffffffff for a in pool]
# nested starts (a symbol starting inside another's [value, value + size)):
# asking the outer one first leaves it in _bfd_elf_find_function's cache,
# which then answers for the inner one's addresses too
srt = sorted(set(syms))
nested = []
for k, (v, s) in enumerate(srt):
    j = k + 1
    while j < len(srt) and srt[j][0] < v + s and len(nested) < 20000:
        if srt[j][0] > v:
            nested.append((v, srt[j][0]))
        j += 1
out = []
top = max((s['addr'] + s['size'] for s in alloc), default=0x1000)
while len(out) < n:
    r = rnd.random()
    if nested and r < 0.08:
        o, i = rnd.choice(nested)
        out += [o, i, i + 1]                 # outer, then inside the inner one
    elif pool and r < 0.55:
        out.append(rnd.choice(pool))
    elif alloc and r < 0.85:
        s = rnd.choice(alloc)
        out.append(s['addr'] + rnd.randrange(s['size']))
    elif r < 0.90:
        out.append(rnd.choice([0, 1, top, top + 0x1000, 0xffffffffffffffff, 0x7fffffffffffffff]))
    elif out and r < 0.97:
        out.append(rnd.choice(out))          # a repeat
    elif alloc:
        a = rnd.choice(alloc)                # just past a section: often a gap
        out.append(a['addr'] + a['size'] + rnd.randrange(16))
if code:
    data_secs = [s for s in alloc if not s['flags'] & 4]
    out = [a for a in out if not any(s['addr'] <= a < s['addr'] + s['size'] for s in data_secs)]
    while len(out) < n:
        out += out[:n - len(out)] if out else [0]
# runs of ascending addresses, as perf's sorted callchains give
for _ in range(max(1, n // 50)):
    i = rnd.randrange(len(out))
    j = min(len(out), i + rnd.randrange(2, 12))
    out[i:j] = sorted(out[i:j])
sys.stdout.write(''.join('%016x\n,\n' % a for a in out[:n]))
