#!/usr/bin/env python3
"""report_same.py STOCK SHIM - are two `perf report --stdio` outputs the same
up to stock perf's own nondeterminism in callchain graphs?

Exit 0: byte-identical ("identical" on stdout), or identical except that sibling branches of equal weight in a
        callchain graph are printed in another order. perf 6.1 orders a
        node's children by match_chain_dso_addresses()
        (tools/perf/util/callchain.c): by the addresses of their struct dso
        objects, i.e. by where malloc put them, and sorts them by weight
        only afterwards (a stable insert in sort_chain_graph_abs), so a tie
        across DSOs prints in heap order; stock perf alone flips it under
        MALLOC_MMAP_THRESHOLD_=0 (doc/perf.md "Exactness"). Required for this
        verdict, per report entry (the lines between two flat
        "NN.NN% ... [.] sym" lines): the flat lines are identical and in the
        same order, the entry's graph lines are the same multiset once the
        tree-drawing characters ("|" and indentation) are dropped, and every
        branch line ("--NN.NN%--name") that moved has a weight that occurs
        at least twice among the moved branch lines of that entry.
Exit 1: any other difference (a line on stdout says which).
"""
import re
import sys

BRANCH = re.compile(r"--([0-9.]+%)--")


def is_graph(line):
    s = line.strip()
    return bool(s) and not s.startswith("#") and (s[0] in "|-" or line.startswith("   ") and
                                                 not re.match(r"^\s+[0-9.]+%\s", line))


def entries(lines):
    """[(flat_line_or_None, [graph lines])]"""
    out = [(None, [])]
    for ln in lines:
        if is_graph(ln):
            out[-1][1].append(ln)
        else:
            out.append((ln, []))
    return out


def norm(line):
    return re.sub(r"[|\s]+", " ", line).strip()


def canon(graph):
    """The callchain graph as a tree, children in a canonical order: each
    "--NN.NN%--name" line opens a child of the nearest open branch whose
    marker is left of it; other lines (names below it) belong to the branch
    they follow. A node is (its lines, its children's weights in printed
    order, its children sorted): equal trees with equal weight sequences
    differ at most in the order of equal-weight siblings."""
    root = {"text": [], "kids": [], "col": -1, "w": ""}
    stack = [root]
    for ln in graph:
        m = BRANCH.search(ln)
        if m:
            while stack[-1]["col"] >= m.start():
                stack.pop()
            node = {"text": [norm(ln)], "kids": [], "col": m.start(), "w": m.group(1)}
            stack[-1]["kids"].append(node)
            stack.append(node)
        elif norm(ln):
            stack[-1]["text"].append(norm(ln))

    def f(n):
        return (tuple(n["text"]), tuple(k["w"] for k in n["kids"]), tuple(sorted(f(k) for k in n["kids"])))
    return f(root)


def main():
    a = open(sys.argv[1], errors="replace").read().splitlines()
    b = open(sys.argv[2], errors="replace").read().splitlines()
    if a == b:
        print("identical")
        return 0
    ea, eb = entries(a), entries(b)
    if len(ea) != len(eb):
        print("different number of report entries (%d, %d)" % (len(ea), len(eb)))
        return 1
    moved = 0
    for (fa, ga), (fb, gb) in zip(ea, eb):
        if fa != fb:
            print("flat line differs: %r / %r" % (fa, fb))
            return 1
        if ga == gb:
            continue
        if canon(ga) != canon(gb):
            print("callchain graph differs under %r" % (fa,))
            return 1
        moved += 1
    print("identical but for the order of equal-weight callchain siblings in %d entr%s"
          " (stock perf's struct dso address order)" % (moved, "y" if moved == 1 else "ies"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
