#!/usr/bin/env python3
"""The layout as the folder READMEs state it (tests/integration/layout.sh).

Each product folder's README.md has one line "May include: A/ B/ ...": the
folders whose headers its files may include. Checked for every .c/.cc/.h
directly in the folder: each quoted include names a folder on that list (or
is a header beside the file); a header whose first comment says "internal to
X/" is included only from X/; no product source file is over MAX_LINES.
Prints PASS:/FAIL: lines; exit status 1 on a failure.
"""
import os, re, sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else '.'
FOLDERS = ['shim', 'cmd', 'core', 'core/model', 'index', 'perfdata', 'srcline', 'textsrc', 'util']
MAX_LINES = 1200
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
fails = 0


def result(ok, what):
    global fails
    print(('PASS: ' if ok else 'FAIL: ') + what)
    fails += 0 if ok else 1


def folder_of(path):
    d = os.path.dirname(path)
    return d if d in FOLDERS else None


rules = {}
for d in FOLDERS:
    readme = os.path.join(ROOT, d, 'README.md')
    line = None
    if os.path.exists(readme):
        for ln in open(readme, encoding='utf-8'):
            if ln.startswith('May include:'):
                line = ln
    result(line is not None, 'layout %s/README.md states what %s/ may include' % (d, d))
    if line:
        rules[d] = {w.rstrip('/') for w in line.split(':', 1)[1].split()}

internal = {}
sources = []
for d in FOLDERS:
    for f in sorted(os.listdir(os.path.join(ROOT, d))):
        if f.endswith(('.c', '.cc', '.h')):
            p = d + '/' + f
            sources.append(p)
            text = open(os.path.join(ROOT, p), encoding='utf-8').read()
            m = re.search(r'internal to ([a-z/]+)/', text[:600])
            if f.endswith('.h') and m:
                internal[p] = m.group(1)

for p in sources:
    d = os.path.dirname(p)
    text = open(os.path.join(ROOT, p), encoding='utf-8').read()
    n = text.count('\n')
    if n > MAX_LINES:
        result(False, 'layout %s has %d lines (over %d)' % (p, n, MAX_LINES))
    bad = []
    for inc in INC.findall(text):
        if '/' not in inc:
            if not os.path.exists(os.path.join(ROOT, d, inc)):
                bad.append(inc + ' (not beside it)')
            continue
        target = folder_of(inc)
        if target is None or not os.path.exists(os.path.join(ROOT, inc)):
            bad.append(inc + ' (no such product header)')
        elif target != d and target not in rules.get(d, set()):
            bad.append(inc + ' (%s/ may not include %s/)' % (d, target))
        elif inc in internal and internal[inc] != d:
            bad.append(inc + ' (internal to %s/)' % internal[inc])
    if bad:
        result(False, 'layout %s includes %s' % (p, ', '.join(bad)))
result(True, 'layout %d product files: includes run one way, none over %d lines'
       % (len(sources), MAX_LINES)) if not fails else None
sys.exit(1 if fails else 0)
