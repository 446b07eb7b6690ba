#!/usr/bin/env python3
"""The uprobe offsets `symlazy offsets` must print, from `readelf -W` alone
(tests/integration/offsets.sh).

    offsets_ref.py SYMLAZY FILE [DEBUGFILE]

Reads `readelf -lW FILE` (the PT_LOADs with E) and `readelf -sW` (.symtab of
DEBUGFILE when given, else of FILE; .dynsym of FILE), builds the keys the
name index documents (index/names.h): every symbol's name (not index 0, not
SECTION/FILE), plus readelf's "name@VER" / "name@@VER" rendering of a
versioned .dynsym symbol; answers each key by the rule: the last FUNC
(.symtab then .dynsym), not found if its offset is 0; else the last defined
symbol of another type. Offset = value - p_vaddr + p_offset of the first
executable PT_LOAD holding value, else value. Then runs
`SYMLAZY offsets FILE` on every key and on near-miss names and compares
line by line. Prints one PASS:/FAIL: line.
"""
import re, subprocess, sys

symlazy, path = sys.argv[1], sys.argv[2]
debug = sys.argv[3] if len(sys.argv) > 3 else None
label = path.rsplit('/', 1)[-1] + (' (.symtab from %s)' % debug if debug else '')


def readelf(*args):
    return subprocess.run(['readelf', '-W'] + list(args), check=True, capture_output=True,
                          text=True, errors='surrogateescape').stdout


loads = []
for ln in readelf('-l', path).splitlines():
    f = ln.split()
    if f and f[0] == 'LOAD':
        # Type Offset VirtAddr PhysAddr FileSiz MemSiz Flg... Align
        off, vaddr, memsz = int(f[1], 16), int(f[2], 16), int(f[5], 16)
        flags = ''.join(f[6:-1])
        if 'E' in flags:
            loads.append((vaddr, memsz, off))


def offset(v):
    for vaddr, memsz, off in loads:
        if vaddr <= v < vaddr + memsz:
            return v - vaddr + off
    return v


ROW = re.compile(r'^\s*(\d+): ([0-9a-f]+)\s+(0x[0-9a-f]+|\d+) (\S+)\s+(\S+)\s+(\S+)\s+(\S+) ?(.*)$')


def table(text, want):
    """Rows of section @want: (num, value, size, type, bind, ndx, name)."""
    rows, cur = [], None
    for ln in text.splitlines():
        m = re.match(r"^Symbol table '([^']+)'", ln)
        if m:
            cur = m.group(1)
            continue
        if cur != want:
            continue
        ln = re.sub(r' bad section index\[ *(\d+)\] ', r' \1 ', ln)   # st_shndx past the section count
        m = ROW.match(ln)
        if m:
            num, val, size, typ, bind, vis, ndx, name = m.groups()
            if vis.startswith('[') or ndx.startswith('['):   # st_other extras: not on x86-64
                raise SystemExit('FAIL: offsets-ref %s: unparsed row %r' % (label, ln))
            rows.append((int(num), int(val, 16), int(size, 0), typ, bind, ndx, name))
    return rows


symtab = table(readelf('-s', debug or path), '.symtab')
dynsym = table(readelf('--dyn-syms', path), '.dynsym')
keys = {}       # key -> list of (value, type, ndx) in record order
order = []
for tab, rows in ((0, symtab), (1, dynsym)):
    for num, val, size, typ, bind, ndx, name in rows:
        if num == 0 or typ in ('SECTION', 'FILE') or not name:
            continue
        names = [name]
        if tab == 1:
            name = re.sub(r' \(\d+\)$', '', name)       # "name@VER (n)" of undefined ones
            bare = name.split('@', 1)[0]
            names = [bare] + ([name] if bare != name else [])
            if not bare:
                continue
        for k in names:
            if k not in keys:
                keys[k] = []
                order.append(k)
            keys[k].append((val, typ, ndx))


def answer(k):
    recs = keys.get(k, [])
    funcs = [r for r in recs if r[1] == 'FUNC']
    if funcs:
        off = offset(funcs[-1][0])
        return '%s\t0x%x' % (k, off) if off else '%s\tnot found' % k
    other = [r for r in recs if r[2] != 'UND']
    if other:
        return '%s\t0x%x\t%s' % (k, offset(other[-1][0]), other[-1][1])
    return '%s\tnot found' % k


missing = []
for i, k in enumerate(order):
    if i % 50 == 0:
        for m in (k + '_', '_' + k, k[:-1], k + '@@NOVER', k.upper()):
            if m and m not in keys:
                missing.append(m)
names = order + missing + ['symlazy_no_such_symbol']
expect = [answer(k) for k in names]
out = subprocess.run([symlazy, 'offsets', path], input='\n'.join(names) + '\n', capture_output=True,
                     text=True, errors='surrogateescape')
got = out.stdout.rstrip('\n').split('\n')
if out.returncode != 0:
    print('FAIL: offsets-readelf %s: exit %d: %s' % (label, out.returncode, out.stderr.strip()[:300]))
    sys.exit(1)
bad = [(e, g) for e, g in zip(expect, got) if e != g]
if len(got) != len(expect):
    bad.append(('%d lines' % len(expect), '%d lines' % len(got)))
nfun = sum(1 for e in expect if '\t0x' in e and e.count('\t') == 1)
nver = sum(1 for k in order if '@' in k)
if bad:
    print('FAIL: offsets-readelf %s: %d of %d names differ from readelf, e.g. %s' % (label, len(bad), len(names), bad[:3]))
    sys.exit(1)
print('PASS: offsets-readelf %s: %d names (%d functions with an offset, %d versioned keys, %d missing) == readelf -sW/-lW'
      % (label, len(names), nfun, nver, len(missing) + 1))
