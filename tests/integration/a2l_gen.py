#!/usr/bin/env python3
"""A shared object whose symbol table exercises every rule of binutils 2.40
_bfd_elf_find_function (tests/integration/a2l.sh): a2l_gen.py OUTDIR SEED
writes OUTDIR/g0.s .. g2.s, each with its own .file (STT_FILE symbols:
locals after their file, globals after a file-after-symbol), and in .text
and .data symbols at random offsets with random sizes - nested and
overlapping ranges, aliases at one address with equal and different sizes,
zero sizes, local / global / weak bindings, function / notype / object /
ifunc types, hidden local zero-size notype markers (annobin's, which
_bfd_elf_maybe_function_sym skips). Real DSOs have no nested symbols; this
one is where the one-entry cache changes answers.
"""
import random, sys

out, seed = sys.argv[1], int(sys.argv[2])
rnd = random.Random(seed)
n = 0
for f in range(3):
    L = ['\t.file "gen%d.c"' % f]
    for sec, span in (('.text', 4096), ('.data', 512)):
        L += ['\t%s' % sec, '\t.p2align 4']
        offs = [rnd.randrange(span) for _ in range(120 if sec == '.text' else 20)]
        offs = sorted(offs + rnd.sample(offs, 10))      # with aliases
        at = 0
        for off in offs:
            if off > at:
                L.append('\t.fill %d,1,0x90' % (off - at))
                at = off
            n += 1
            name = 's%d_%d' % (f, n)
            r = rnd.random()
            typ = ('function' if r < 0.5 else 'notype' if r < 0.75 else 'object' if r < 0.9
                   else 'gnu_indirect_function')
            bind = rnd.choice(['local', 'local', 'globl', 'weak'])
            r = rnd.random()
            if r < 0.06 and bind == 'local':
                typ = 'notype'                  # annobin-style marker: hidden, zero size
                L.append('\t.hidden %s' % name)
            L.append('\t.type %s,@%s' % (name, typ))
            if bind != 'local':
                L.append('\t.%s %s' % (bind, name))
            if 0.06 <= r < 0.2:
                pass                            # zero size
            elif r >= 0.2:
                L.append('\t.size %s, %d' % (name, rnd.choice([1, 2, 8, 16, 64, 200, 1000, 3000])))
            L.append('%s:' % name)
        L.append('\t.fill %d,1,0x90' % (span - at + 1))
    L.append('\t.section .note.GNU-stack,"",@progbits')
    open('%s/g%d.s' % (out, f), 'w').write('\n'.join(L) + '\n')
