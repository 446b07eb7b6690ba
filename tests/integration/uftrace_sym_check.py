#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""uftrace_sym_check.py STOCK_DIR BUDGET_DIR - the .sym files uftrace record
saved under a budget against stock's: every symbol line must be one of
stock's (same address, type, name), and the line after it must start where
the line after it starts in stock's file (uftrace's load_symbol_file makes a
symbol end where the next line starts, so anything else stretches it over
dropped symbols). Prints "<symbols> <lies> <stretched> <files>".
"""
import glob
import os
import sys


def read(p):
    out = []
    for l in open(p, errors='replace'):
        if l.startswith('#'):
            continue
        f = l.rstrip('\n').split(' ', 2)
        if len(f) == 3:
            out.append((int(f[0], 16), f[1], f[2]))
    return out


stock_dir, budget_dir = sys.argv[1], sys.argv[2]
n = lies = stretched = files = 0
for bp in sorted(glob.glob(os.path.join(budget_dir, '*.sym'))):
    sp = os.path.join(stock_dir, os.path.basename(bp))
    if not os.path.exists(sp):
        continue
    files += 1
    s, b = read(sp), read(bp)
    pos = {}
    for i, x in enumerate(s):
        pos.setdefault(x, i)
    for i, x in enumerate(b):
        if x[1] == '?':             # end markers
            continue
        n += 1
        if x not in pos:
            lies += 1
            continue
        j = pos[x]
        nb = b[i + 1][0] if i + 1 < len(b) else None
        ns = s[j + 1][0] if j + 1 < len(s) else None
        if nb != ns:
            stretched += 1
print(n, lies, stretched, files)
