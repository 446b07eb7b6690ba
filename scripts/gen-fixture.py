#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""gen-fixture.py - generate and build the symlazy benchmark/test fixture.

Writes into OUTDIR:
  big.s             assembly for the large PIE executable (~150k functions with
                    long C++ / legacy-Rust mangled names, so .strtab is tens of MB)
  libbigshared.s    assembly for libbigshared.so (~50k functions, most exported,
                    so both .symtab and .dynsym/.dynstr are large)
  main.c            driver: spins for N seconds (argv[1] or FIXTURE_SECONDS,
                    default 2) in a fixed hot subset of big and libbigshared,
                    with real frame-pointer call chains 3-4 frames deep
  main              the PIE executable (main.c + big.s), .symtab kept, build-id,
                    RUNPATH $ORIGIN
  libbigshared.so   the shared library
  hot.txt           "<big|lib> <mangled name>" for every hot function
  fixture.json      parameters and sizes

Everything is deterministic for given options (seeded RNG). Only the standard
library is used; building needs gcc (as, ld) and make-style parallelism is done
with two concurrent gcc processes.

Hot functions are written in assembly with a frame-pointer prologue and CFI, so
both `perf record -g` (frame pointers) and `--call-graph dwarf` unwind through
them. Each hot function runs a multiply loop of --work iterations, then (when
its depth argument in %edi is > 0) calls one other hot function of big and one
of the library with depth-1. main() calls hot_big[i](2) round-robin, giving
chains main -> big -> big -> lib and main -> big -> lib -> lib.

Cold functions are 3 instructions; every 97th gets a FUNC alias with the same
start and size, every 1009th is preceded by a zero-size NOTYPE label (never
inside a hot function). Half of the hot functions are directly preceded by a
zero-size local symbol (NOTYPE label or FUNC without size) - perf 6.1 stretches
such a symbol to the next one it keeps (symbols__fixup_end), the trap a
symbol-dropping shim must handle.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import time

NS_WORDS = """alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega
core detail impl internal runtime storage network render physics audio codec
parser lexer scheduler allocator container memory graph geometry tensor kernel
reactor executor pipeline frontend backend protocol transport session security
crypto compression database query planner optimizer index journal snapshot
telemetry metrics tracing logging config platform unicode filesystem""".split()
CLASS_WORDS = """Widget Handler Manager Factory Builder Visitor Adapter Registry
Context Allocator Buffer Stream Reader Writer Iterator Cursor Channel Future
Promise Executor Scheduler Resolver Serializer Deserializer Encoder Decoder
Controller Dispatcher Observer Listener Provider Service Client Server Proxy
Transaction Snapshot Segment Partition Shard Replica Document Element Node Tree
Graph Vertex Edge Matrix Vector Tensor Kernel Shader Texture Material Mesh""".split()
METHOD_WORDS = """process handle update compute evaluate dispatch schedule resolve
serialize deserialize encode decode flush reset insert erase find lookup emplace
reserve resize visit accept notify subscribe publish validate transform reduce
merge split compact rebuild rehash acquire release lock unlock poll wait signal
initialize finalize destroy construct clone swap apply commit rollback""".split()
RUST_CRATES = """tokio serde hyper rayon regex futures bytes tracing clap mio
parking_lot crossbeam hashbrown smallvec itertools chrono rand nom syn quote
my_service my_engine storage_core query_exec""".split()
RUST_MODS = """sync task runtime io net fs de ser iter collections raw map set
vec string fmt ops cell rc arc alloc ptr slice str num time thread park
scheduler worker driver reactor""".split()
RUST_ESC = ["$LT$impl$u20$core..fmt..Debug$u20$for$u20${}$GT$",
            "$LT${}$u20$as$u20$core..ops..drop..Drop$GT$",
            "$LT$alloc..vec..Vec$LT${}$GT$$u20$as$u20$core..clone..Clone$GT$",
            "$LT$impl$u20$core..iter..traits..iterator..Iterator$u20$for$u20${}$GT$"]
BUILTIN = "ijlmcbdfhtsy"   # int unsigned long ulong char bool double float uchar ushort short ulonglong


def src(s):
    """<source-name> of the Itanium ABI: decimal length + identifier."""
    return "%d%s" % (len(s), s)


def nested_type(r, idx):
    """A nested class type N..E, sometimes itself a template."""
    n = "N" + "".join(src(r.choice(NS_WORDS)) for _ in range(r.randint(1, 3)))
    n += src(r.choice(CLASS_WORDS))
    if r.random() < 0.4:
        n += "I" + r.choice(BUILTIN) + "E"
    return n + "E"


def cxx_name(r, idx):
    parts = ["_ZN"]
    for _ in range(r.randint(3, 6)):
        parts.append(src(r.choice(NS_WORDS)))
    cls = r.choice(CLASS_WORDS) + ("%d" % (idx % 977))
    parts.append(src(cls))
    if r.random() < 0.8:           # class template arguments
        targs = []
        for _ in range(r.randint(1, 4)):
            c = r.random()
            if c < 0.3:
                targs.append(r.choice(BUILTIN))
            elif c < 0.5:
                targs.append("L" + r.choice("im") + str(r.randint(1, 4096)) + "E")
            else:
                targs.append(nested_type(r, idx))
        parts.append("I" + "".join(targs) + "E")
    parts.append(src("%s_%s_%s_%d" % (r.choice(METHOD_WORDS), r.choice(METHOD_WORDS), r.choice(NS_WORDS), idx)))
    parts.append("E")
    params = []
    for _ in range(r.randint(0, 4)):
        c = r.random()
        if c < 0.4:
            params.append(r.choice(BUILTIN))
        elif c < 0.6:
            params.append("P" + r.choice(BUILTIN))
        else:
            params.append("RK" + nested_type(r, idx))
    parts.append("".join(params) if params else "v")
    return "".join(parts)


def rust_name(r, idx):
    parts = ["_ZN", src(r.choice(RUST_CRATES))]
    for _ in range(r.randint(2, 4)):
        parts.append(src(r.choice(RUST_MODS)))
    if r.random() < 0.6:
        parts.append(src(r.choice(RUST_ESC).format(r.choice(CLASS_WORDS))))
    parts.append(src("%s_%s_%d" % (r.choice(METHOD_WORDS), r.choice(RUST_MODS), idx)))
    while True:      # perf/libiberty want >= 5 distinct hex digits in the hash
        h = "%016x" % r.getrandbits(64)
        if len(set(h)) >= 5:
            break
    parts.append("17h" + h + "E")
    return "".join(parts)


def make_names(r, n, tag):
    names = []
    for i in range(n):
        nm = rust_name(r, i) if r.random() < 0.3 else cxx_name(r, i)
        names.append(nm)
    return names


HOT_TMPL = """\t.p2align 4
{glob}\t.type {name}, @function
{name}:
\t.cfi_startproc
\tpushq %rbp
\t.cfi_def_cfa_offset 16
\t.cfi_offset %rbp, -16
\tmovq %rsp, %rbp
\t.cfi_def_cfa_register %rbp
\tpushq %rbx
\tsubq $8, %rsp
\t.cfi_offset %rbx, -24
\tmovl %edi, %ebx
\tmovl ${work}, %ecx
\tmovl ${seed}, %eax
1:\timull $1103515245, %eax, %eax
\taddl $12345, %eax
\tdecl %ecx
\tjnz 1b
\ttestl %ebx, %ebx
\tjle 2f
{calls}2:\tmovq -8(%rbp), %rbx
\tleave
\t.cfi_def_cfa %rsp, 8
\tret
\t.cfi_endproc
\t.size {name}, .-{name}
"""

CALL_TMPL = "\tleal -1(%rbx), %edi\n\tcall {target}\n"

ASM_HEAD = """\t.file "{file}"
# generated by scripts/gen-fixture.py - do not edit
# C: cold function (3 instructions). args: name, index
\t.macro C name, idx
\t.type \\name, @function
\\name:
\tmovl $\\idx, %eax
\taddl %edi, %eax
\tret
\t.size \\name, .-\\name
\t.endm
# G: global cold function
\t.macro G name, idx
\t.globl \\name
\tC \\name, \\idx
\t.endm
# A: FUNC alias of the previous function (same start and size)
\t.macro A alias, name
\t.type \\alias, @function
\t.set \\alias, \\name
\t.size \\alias, .-\\name
\t.endm
\t.text
"""


def write_asm(path, names, hot_idx, hot_bodies, r, global_frac, extra=""):
    """Write one assembly file. hot_idx: index -> (global?, body text)."""
    out = [ASM_HEAD.format(file=os.path.basename(path))]
    w = out.append
    for i, nm in enumerate(names):
        if i in hot_bodies:
            w(hot_bodies[i])
            continue
        if i % 1009 == 500:
            w("__zl_%s_%d:\n" % (os.path.basename(path).split(".")[0], i))
        w("\t%s %s, %d\n" % ("G" if r.random() < global_frac else "C", nm, i))
        if i % 97 == 13:
            w("\tA _ZN5alias%s, %s\n" % (nm[3:], nm))
    w(extra)
    w('\t.section .note.GNU-stack,"",@progbits\n')
    with open(path, "w") as f:
        f.write("".join(out))


MAIN_C = r"""/* generated by scripts/gen-fixture.py - do not edit.
 * Spins for N seconds (argv[1], else $FIXTURE_SECONDS, else 2) in the hot
 * functions of big.s (which call each other and libbigshared.so). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int (*hot_fn)(int);
extern const hot_fn fixture_hot_big[];
extern const int fixture_hot_big_n;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static long spin_round(void)
{
	long acc = 0;
	for (int i = 0; i < fixture_hot_big_n; i++)
		acc += fixture_hot_big[i](2);
	return acc;
}

int main(int argc, char **argv)
{
	const char *s = argc > 1 ? argv[1] : getenv("FIXTURE_SECONDS");
	double secs = s ? atof(s) : 2.0;
	double end = now() + secs;
	long acc = 0, rounds = 0;
	do {
		acc += spin_round();
		rounds++;
	} while (now() < end);
	if (getenv("FIXTURE_VERBOSE"))
		printf("rounds=%ld acc=%ld\n", rounds, acc);
	return 0;
}
"""


def zero_size_before(k, tag):
    """A zero-size local symbol just before hot function k (every 4th is a
    NOTYPE label, every 4th + 2 a FUNC without .size, like crt's frame_dummy).
    perf extends a zero-size symbol to the next symbol it keeps, so a shim
    that drops the hot function but keeps this one mis-attributes samples."""
    if k % 4 == 1:
        return "\t.p2align 4\n__zl_hot_%s_%d:\n\tnop\n" % (tag, k)
    if k % 4 == 3:
        return ("\t.p2align 4\n\t.type __zf_hot_%s_%d, @function\n__zf_hot_%s_%d:\n\tnop\n"
                % (tag, k, tag, k))
    return ""


def spread(n, k, phase):
    """k indices spread evenly over [0, n), deterministic."""
    return [min(n - 1, (j * n) // k + phase) for j in range(k)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--big-funcs", type=int, default=150000)
    ap.add_argument("--lib-funcs", type=int, default=50000)
    ap.add_argument("--hot-big", type=int, default=64)
    ap.add_argument("--hot-lib", type=int, default=16)
    ap.add_argument("--work", type=int, default=20000,
                    help="loop iterations per hot call (default 20000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cc", default=os.environ.get("CC", "gcc"))
    ap.add_argument("--no-build", action="store_true", help="only write sources")
    a = ap.parse_args()
    if a.hot_big < 1 or a.hot_lib < 1 or a.big_funcs < 2 * a.hot_big or \
       a.lib_funcs < 2 * a.hot_lib:
        ap.error("need at least 2 functions per hot function and >= 1 hot function")
    t0 = time.time()
    out = os.path.abspath(a.outdir)
    os.makedirs(out, exist_ok=True)
    r = random.Random(a.seed)

    big_names = make_names(r, a.big_funcs, "big")
    lib_names = make_names(r, a.lib_funcs, "lib")
    hb = spread(a.big_funcs, a.hot_big, 7)
    hl = spread(a.lib_funcs, a.hot_lib, 5)
    hot_big_names = [big_names[i] for i in hb]
    hot_lib_names = [lib_names[i] for i in hl]

    # library hot functions: exported, call the next library hot function
    lib_bodies = {}
    for k, i in enumerate(hl):
        nxt = hot_lib_names[(k + 1) % a.hot_lib]
        calls = CALL_TMPL.format(target=nxt + "@PLT")
        lib_bodies[i] = zero_size_before(k, "lib") + HOT_TMPL.format(glob="\t.globl %s\n" % lib_names[i],
                                        name=lib_names[i], work=a.work,
                                        seed=1000 + k, calls=calls)
    big_bodies = {}
    for k, i in enumerate(hb):
        nb = hot_big_names[(k * 5 + 3) % a.hot_big]
        nl = hot_lib_names[k % a.hot_lib]
        calls = CALL_TMPL.format(target=nb) + CALL_TMPL.format(target=nl + "@PLT")
        big_bodies[i] = zero_size_before(k, "big") + HOT_TMPL.format(glob="" if k % 2 else "\t.globl %s\n" % big_names[i],
                                        name=big_names[i], work=a.work,
                                        seed=2000 + k, calls=calls)
    table = ["\t.section .data.rel.ro,\"aw\"\n\t.p2align 3\n",
             "\t.globl fixture_hot_big\n\t.type fixture_hot_big, @object\n",
             "fixture_hot_big:\n"]
    table += ["\t.quad %s\n" % n for n in hot_big_names]
    table += ["\t.size fixture_hot_big, .-fixture_hot_big\n",
              "\t.section .rodata\n\t.p2align 2\n\t.globl fixture_hot_big_n\n",
              "\t.type fixture_hot_big_n, @object\nfixture_hot_big_n:\n",
              "\t.long %d\n\t.size fixture_hot_big_n, 4\n" % a.hot_big]

    rb = random.Random(a.seed + 100)
    write_asm(os.path.join(out, "big.s"), big_names, hb, big_bodies, rb, 0.3,
              "".join(table))
    write_asm(os.path.join(out, "libbigshared.s"), lib_names, hl, lib_bodies, rb, 0.8)
    with open(os.path.join(out, "main.c"), "w") as f:
        f.write(MAIN_C)
    with open(os.path.join(out, "hot.txt"), "w") as f:
        for n in hot_big_names:
            f.write("big %s\n" % n)
        for n in hot_lib_names:
            f.write("lib %s\n" % n)
    tgen = time.time() - t0

    meta = {"big_funcs": a.big_funcs, "lib_funcs": a.lib_funcs, "hot_big": a.hot_big,
            "hot_lib": a.hot_lib, "work": a.work, "seed": a.seed,
            "generate_s": round(tgen, 2)}
    if not a.no_build:
        cc = a.cc
        j = lambda *p: os.path.join(out, *p)
        # assemble both files concurrently (2 cores), then link
        p1 = subprocess.Popen([cc, "-c", "-o", j("big.o"), j("big.s")])
        p2 = subprocess.Popen([cc, "-c", "-o", j("libbigshared.o"), j("libbigshared.s")])
        p3 = subprocess.Popen([cc, "-c", "-O1", "-g", "-fno-omit-frame-pointer", "-fPIE",
                               "-o", j("main.o"), j("main.c")])
        for p in (p1, p2, p3):
            if p.wait() != 0:
                sys.exit("gen-fixture: compile failed")
        subprocess.check_call([cc, "-shared", "-Wl,--build-id", "-o", j("libbigshared.so"),
                               j("libbigshared.o")])
        subprocess.check_call([cc, "-pie", "-Wl,--build-id", "-o", j("main"), j("main.o"),
                               j("big.o"), "-L" + out, "-lbigshared",
                               "-Wl,-rpath,$ORIGIN"])
        for o in ("big.o", "libbigshared.o", "main.o"):
            os.unlink(j(o))
        meta["build_s"] = round(time.time() - t0 - tgen, 2)
        meta["sizes"] = {}
        for f in ("main", "libbigshared.so"):
            meta["sizes"][f] = section_sizes(j(f))
    meta["total_s"] = round(time.time() - t0, 2)
    with open(os.path.join(out, "fixture.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    print("gen-fixture: wrote %s/{big.s,libbigshared.s,main.c,hot.txt,fixture.json}" % out)
    if not a.no_build:
        for f, s in meta["sizes"].items():
            print("gen-fixture: %s/%s  file %.1f MiB  .symtab %.1f MiB  .strtab %.1f MiB"
                  "  .dynsym %.1f MiB  .dynstr %.1f MiB" %
                  (out, f, s["file"] / 2**20, s.get(".symtab", 0) / 2**20,
                   s.get(".strtab", 0) / 2**20, s.get(".dynsym", 0) / 2**20,
                   s.get(".dynstr", 0) / 2**20))
    print("gen-fixture: %d+%d functions, %d+%d hot, generated in %.1fs, total %.1fs" %
          (a.big_funcs, a.lib_funcs, a.hot_big, a.hot_lib, tgen, meta["total_s"]))


def section_sizes(path):
    """Section sizes in bytes from readelf -SW (plus the file size)."""
    s = {"file": os.path.getsize(path)}
    txt = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True).stdout
    for line in txt.splitlines():
        line = line.replace("[ ", "[")
        f = line.split()
        if len(f) > 6 and f[0].startswith("[") and f[1].startswith("."):
            try:
                s[f[1]] = int(f[5], 16)
            except ValueError:
                pass
    return s


if __name__ == "__main__":
    main()
