#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen-malformed.py - write malformed ELF files for robustness tests.

Usage:
  gen-malformed.py [--base FILE] [--prefix P] [--keep-note] [--only GLOBS]
                   [--skip GLOBS] [--list] OUTDIR

Without --base, four small valid ELF files are built by hand (ELF64 and
ELF32, little- and big-endian: the compilers here make only ELF64 LE) and
every mutation is applied to each of them. With --base, the mutations are
applied to FILE (any class / byte order). Each output is OUTDIR/<prefix>
<base>-<mutation>; OUTDIR/MANIFEST gets "name<TAB>description" lines.
--keep-note: only mutations that leave the GNU build-id note findable (by
section name, as perf 6.1 looks it up), for the perf build-id cache test.
--only / --skip: comma-separated fnmatch patterns of mutation names.

Mutations (ELF gABI field names): truncated files, section headers past
EOF, sh_entsize 0 / odd / 12, sh_size not a multiple of sh_entsize, sh_link
to a non-string / out-of-range section, unterminated or cut string tables,
st_name past the end of the string table, huge symbol counts, SHN_XINDEX
without .symtab_shndx, st_shndx out of range, SHF_COMPRESSED with a bogus
Chdr, bad notes, program headers past EOF, bad e_ident bytes, overlapping
sections, extended section numbering, and seeded random byte flips.
Python 3 standard library only.
"""
import fnmatch
import os
import random
import struct
import sys

SHT_NULL, SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_NOTE, SHT_NOBITS, SHT_DYNSYM = 0, 1, 2, 3, 7, 8, 11
SHF_ALLOC, SHF_EXECINSTR, SHF_COMPRESSED = 2, 4, 0x800
SHN_XINDEX = 0xFFFF
PT_LOAD, PT_NOTE = 1, 4


class Elf:
    """Just enough of an ELF reader/patcher: headers, section headers, symbols."""

    def __init__(self, data):
        self.b = bytearray(data)
        if len(self.b) < 52 or self.b[:4] != b"\x7fELF" or self.b[4] not in (1, 2) or self.b[5] not in (1, 2):
            raise ValueError("not a parsable ELF file")
        self.c64 = self.b[4] == 2
        self.e = "<" if self.b[5] == 1 else ">"
        if self.c64:
            (self.phoff, self.shoff) = struct.unpack_from(self.e + "QQ", self.b, 32)
            (self.phentsize, self.phnum, self.shentsize, self.shnum, self.shstrndx) = \
                struct.unpack_from(self.e + "HHHHH", self.b, 54)
        else:
            (self.phoff, self.shoff) = struct.unpack_from(self.e + "II", self.b, 28)
            (self.phentsize, self.phnum, self.shentsize, self.shnum, self.shstrndx) = \
                struct.unpack_from(self.e + "HHHHH", self.b, 42)
        self.shfmt = self.e + ("IIQQQQIIQQ" if self.c64 else "IIIIIIIIII")
        self.symfmt = self.e + ("IBBHQQ" if self.c64 else "IIIBBH")
        self.symsize = 24 if self.c64 else 16

    # --- ELF header
    def set_ehdr(self, **kw):
        off64 = {"phoff": (32, "Q"), "shoff": (40, "Q"), "phnum": (56, "H"), "shentsize": (58, "H"),
                 "shnum": (60, "H"), "shstrndx": (62, "H")}
        off32 = {"phoff": (28, "I"), "shoff": (32, "I"), "phnum": (44, "H"), "shentsize": (46, "H"),
                 "shnum": (48, "H"), "shstrndx": (50, "H")}
        for k, v in kw.items():
            o, f = (off64 if self.c64 else off32)[k]
            mask = (1 << (8 * struct.calcsize(f))) - 1
            struct.pack_into(self.e + f, self.b, o, v & mask)

    # --- section headers: dicts with gABI names
    def shdr(self, i):
        o = self.shoff + i * self.shentsize
        v = struct.unpack_from(self.shfmt, self.b, o)
        if self.c64:
            keys = ("name", "type", "flags", "addr", "offset", "size", "link", "info", "addralign", "entsize")
        else:
            keys = ("name", "type", "flags", "addr", "offset", "size", "link", "info", "addralign", "entsize")
        return dict(zip(keys, v))

    def set_shdr(self, i, **kw):
        s = self.shdr(i)
        s.update(kw)
        mask = 0xFFFFFFFFFFFFFFFF if self.c64 else 0xFFFFFFFF
        vals = [s[k] for k in ("name", "type", "flags", "addr", "offset", "size", "link", "info",
                               "addralign", "entsize")]
        fmt = self.shfmt[1:]
        vals = [v & (0xFFFFFFFF if f == "I" else mask) for v, f in zip(vals, fmt)]
        struct.pack_into(self.shfmt, self.b, self.shoff + i * self.shentsize, *vals)

    def sections(self):
        if not (0 < self.shoff < len(self.b)) or self.shentsize == 0:
            return []
        n = self.shnum
        if n == 0 and self.shoff + self.shentsize <= len(self.b):
            n = self.shdr(0)["size"]
        out = []
        for i in range(n):
            if self.shoff + (i + 1) * self.shentsize > len(self.b):
                break
            out.append(self.shdr(i))
        return out

    def name_of(self, sh):
        secs = self.sections()
        if self.shstrndx >= len(secs):
            return ""
        st = secs[self.shstrndx]
        o = st["offset"] + sh["name"]
        if o >= len(self.b):
            return ""
        end = self.b.find(b"\0", o)
        return self.b[o:end if end >= 0 else len(self.b)].decode("latin-1")

    def find(self, name=None, type_=None):
        for i, sh in enumerate(self.sections()):
            if (name is None or self.name_of(sh) == name) and (type_ is None or sh["type"] == type_):
                return i
        return None

    # --- symbols
    def syms(self, i):
        sh = self.shdr(i)
        n = sh["size"] // self.symsize if sh["entsize"] else 0
        return [(sh["offset"] + k * self.symsize) for k in range(n)
                if sh["offset"] + (k + 1) * self.symsize <= len(self.b)]

    def sym(self, off):
        v = struct.unpack_from(self.symfmt, self.b, off)
        if self.c64:
            name, info, other, shndx, value, size = v
        else:
            name, value, size, info, other, shndx = v
        return {"name": name, "info": info, "other": other, "shndx": shndx, "value": value, "size": size}

    def set_sym(self, off, **kw):
        s = self.sym(off)
        s.update(kw)
        if self.c64:
            struct.pack_into(self.symfmt, self.b, off, s["name"] & 0xFFFFFFFF, s["info"], s["other"],
                             s["shndx"] & 0xFFFF, s["value"] & 0xFFFFFFFFFFFFFFFF, s["size"] & 0xFFFFFFFFFFFFFFFF)
        else:
            struct.pack_into(self.symfmt, self.b, off, s["name"] & 0xFFFFFFFF, s["value"] & 0xFFFFFFFF,
                             s["size"] & 0xFFFFFFFF, s["info"], s["other"], s["shndx"] & 0xFFFF)

    def symtab(self):
        i = self.find(".symtab", SHT_SYMTAB)
        if i is None:
            i = self.find(None, SHT_SYMTAB)
        if i is None:
            i = self.find(".dynsym", SHT_DYNSYM)
        return i


# ---------------------------------------------------------------- hand-built ELF
def build_elf(c64, big, etype=3):
    """A small valid ELF: .note.gnu.build-id, .text, .dynsym/.dynstr, .symtab/.strtab."""
    e = ">" if big else "<"
    mach = 62 if c64 else 3                     # x86-64 / i386 (names only matter here)
    if big:
        mach = 43 if c64 else 2                 # SPARCV9 / SPARC: real big-endian machines
    ehsize, phentsize, shentsize = (64, 56, 64) if c64 else (52, 32, 40)
    symsize = 24 if c64 else 16
    funcs = [("lf_local", 0, 8), ("alpha", 1, 16), ("beta", 1, 32), ("beta_alias", 2, 32),
             ("gamma", 1, 0), ("delta", 1, 24), ("obj_data", 1, 8)]

    def strtab(names):
        blob, offs = b"\0", {}
        for n in names:
            offs[n] = len(blob)
            blob += n.encode() + b"\0"
        return blob, offs

    shnames = ["", ".note.gnu.build-id", ".text", ".dynsym", ".dynstr", ".symtab", ".strtab", ".shstrtab"]
    shstr, shoffs = strtab(shnames[1:])
    str_blob, str_offs = strtab(["x.c"] + [f[0] for f in funcs])
    dyn_blob, dyn_offs = strtab([f[0] for f in funcs if f[1]])
    bid = bytes(range(0x10, 0x10 + 20)) if not big else bytes(range(0x40, 0x40 + 20))
    if not c64:
        bid = bytes((x ^ 0x5A) for x in bid)
    note = struct.pack(e + "III", 4, 20, 3) + b"GNU\0" + bid
    nphdr = 2
    off = ehsize + nphdr * phentsize
    layout = {}

    def place(name, size, align):
        nonlocal off
        off = (off + align - 1) // align * align
        layout[name] = (off, size)
        off += size

    place(".note.gnu.build-id", len(note), 4)
    place(".text", 0x100, 16)
    text_off = layout[".text"][0]
    addr = {}
    a = text_off
    for n, bind, size in funcs:
        addr[n] = a if n != "beta_alias" else addr["beta"]
        if n != "beta_alias":
            a += max(size, 8)
    nsym = 1 + 1 + len(funcs)                   # null, FILE, funcs
    ndyn = 1 + sum(1 for f in funcs if f[1])
    place(".dynsym", ndyn * symsize, 8 if c64 else 4)
    place(".dynstr", len(dyn_blob), 1)
    load_end = off
    place(".symtab", nsym * symsize, 8 if c64 else 4)
    place(".strtab", len(str_blob), 1)
    place(".shstrtab", len(shstr), 1)
    shoff = (off + 7) // 8 * 8
    total = shoff + len(shnames) * shentsize
    b = bytearray(total)
    # e_ident, ehdr
    b[0:16] = b"\x7fELF" + bytes([2 if c64 else 1, 2 if big else 1, 1, 0]) + bytes(8)
    if c64:
        struct.pack_into(e + "HHIQQQIHHHHHH", b, 16, etype, mach, 1, text_off, ehsize, shoff, 0,
                         ehsize, phentsize, nphdr, shentsize, len(shnames), 7)
    else:
        struct.pack_into(e + "HHIIIIIHHHHHH", b, 16, etype, mach, 1, text_off, ehsize, shoff, 0,
                         ehsize, phentsize, nphdr, shentsize, len(shnames), 7)
    # program headers: one R+X PT_LOAD from 0, PT_NOTE
    noff, nsz = layout[".note.gnu.build-id"]
    if c64:
        struct.pack_into(e + "IIQQQQQQ", b, ehsize, PT_LOAD, 5, 0, 0, 0, load_end, load_end, 0x1000)
        struct.pack_into(e + "IIQQQQQQ", b, ehsize + phentsize, PT_NOTE, 4, noff, noff, noff, nsz, nsz, 4)
    else:
        struct.pack_into(e + "IIIIIIII", b, ehsize, PT_LOAD, 0, 0, 0, load_end, load_end, 5, 0x1000)
        struct.pack_into(e + "IIIIIIII", b, ehsize + phentsize, PT_NOTE, noff, noff, noff, nsz, nsz, 4, 4)
    b[noff:noff + nsz] = note
    b[text_off:text_off + 0x100] = b"\x90" * 0x100

    def put_sym(o, name, info, shndx, value, size):
        if c64:
            struct.pack_into(e + "IBBHQQ", b, o, name, info, 0, shndx, value, size)
        else:
            struct.pack_into(e + "IIIBBH", b, o, name, value, size, info, 0, shndx)

    so, _ = layout[".symtab"]
    put_sym(so + symsize, str_offs["x.c"], 4, 0xFFF1, 0, 0)       # STT_FILE, LOCAL, SHN_ABS
    k = 2
    for n, bind, size in funcs:
        typ = 1 if n == "obj_data" else 2                            # OBJECT / FUNC
        put_sym(so + k * symsize, str_offs[n], (bind << 4) | typ, 2, addr[n], size)
        k += 1
    do, _ = layout[".dynsym"]
    k = 1
    for n, bind, size in funcs:
        if not bind:
            continue
        typ = 1 if n == "obj_data" else 2
        put_sym(do + k * symsize, dyn_offs[n], (bind << 4) | typ, 2, addr[n], size)
        k += 1
    for name, blob in ((".dynstr", dyn_blob), (".strtab", str_blob), (".shstrtab", shstr)):
        o, s = layout[name]
        b[o:o + s] = blob
    # section headers
    spec = {
        ".note.gnu.build-id": (SHT_NOTE, SHF_ALLOC, 0, 0, 4, 0),
        ".text": (SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0, 0, 16, 0),
        ".dynsym": (SHT_DYNSYM, SHF_ALLOC, 4, 1, 8 if c64 else 4, symsize),
        ".dynstr": (SHT_STRTAB, SHF_ALLOC, 0, 0, 1, 0),
        ".symtab": (SHT_SYMTAB, 0, 6, 2, 8 if c64 else 4, symsize),
        ".strtab": (SHT_STRTAB, 0, 0, 0, 1, 0),
        ".shstrtab": (SHT_STRTAB, 0, 0, 0, 1, 0),
    }
    for i, n in enumerate(shnames):
        if not n:
            continue
        t, fl, link, info, al, es = spec[n]
        o, s = layout[n]
        ad = o if fl & SHF_ALLOC else 0
        if c64:
            struct.pack_into(e + "IIQQQQIIQQ", b, shoff + i * shentsize, shoffs[n], t, fl, ad, o, s, link, info, al, es)
        else:
            struct.pack_into(e + "IIIIIIIIII", b, shoff + i * shentsize, shoffs[n], t, fl, ad, o, s, link, info, al, es)
    return bytes(b)


# ---------------------------------------------------------------- mutations
MUT = []


def mutation(name, keeps_note, desc):
    def deco(f):
        MUT.append((name, keeps_note, desc, f))
        return f
    return deco


def need(x):
    if x is None:
        raise LookupError
    return x


@mutation("trunc-16", False, "file cut to 16 bytes (inside e_ident)")
def _(E):
    return E.b[:16]


@mutation("trunc-ehdr", False, "file cut one byte short of the ELF header")
def _(E):
    return E.b[:(64 if E.c64 else 52) - 1]


@mutation("trunc-half", False, "file cut in half (section headers gone)")
def _(E):
    return E.b[:len(E.b) // 2]


@mutation("trunc-shdrs", False, "file cut in the middle of the section header table")
def _(E):
    return E.b[:E.shoff + (E.shnum * E.shentsize) // 2 + 3]


@mutation("trunc-last", False, "last byte missing")
def _(E):
    return E.b[:-1]


@mutation("trunc-symtab", True, "file cut inside the symbol table, section headers kept (moved up)")
def _(E):
    i = need(E.symtab())
    sh = E.shdr(i)
    cut = sh["offset"] + sh["size"] // 2
    if E.shoff < cut:
        raise LookupError
    shdrs = E.b[E.shoff:E.shoff + E.shnum * E.shentsize]
    out = Elf(E.b[:cut] + bytes((-cut) % 8) + shdrs)
    out.set_ehdr(shoff=(cut + 7) // 8 * 8)
    return out.b


@mutation("shoff-past-eof", False, "e_shoff past the end of the file")
def _(E):
    E.set_ehdr(shoff=len(E.b) + 4096)
    return E.b


@mutation("shoff-huge", False, "e_shoff near 2^64 (offset + size overflows)")
def _(E):
    E.set_ehdr(shoff=(1 << (64 if E.c64 else 32)) - 16)
    return E.b


@mutation("shnum-past-eof", False, "e_shnum + 40: the table runs past EOF")
def _(E):
    E.set_ehdr(shnum=E.shnum + 40)
    return E.b


@mutation("shentsize-bad", False, "e_shentsize 10")
def _(E):
    E.set_ehdr(shentsize=10)
    return E.b


@mutation("shstrndx-oob", False, "e_shstrndx past e_shnum")
def _(E):
    E.set_ehdr(shstrndx=E.shnum + 5)
    return E.b


@mutation("shnum-0-extended", True, "e_shnum 0, count in section 0's sh_size (valid extended numbering)")
def _(E):
    n = E.shnum
    E.set_ehdr(shnum=0)
    E.set_shdr(0, size=n)
    return E.b


@mutation("shnum-0-huge", False, "e_shnum 0 and section 0's sh_size 0xffffffff")
def _(E):
    E.set_ehdr(shnum=0)
    E.set_shdr(0, size=0xFFFFFFFF)
    return E.b


@mutation("ident-class", False, "EI_CLASS 3")
def _(E):
    E.b[4] = 3
    return E.b


@mutation("ident-data", False, "EI_DATA 7")
def _(E):
    E.b[5] = 7
    return E.b


@mutation("ident-version", False, "EI_VERSION 0, e_version 99")
def _(E):
    E.b[6] = 0
    struct.pack_into(E.e + "I", E.b, 20, 99)
    return E.b


@mutation("phoff-past-eof", True, "e_phoff past EOF")
def _(E):
    E.set_ehdr(phoff=len(E.b) + 64)
    return E.b


@mutation("phnum-huge", True, "e_phnum 0xfffe")
def _(E):
    E.set_ehdr(phnum=0xFFFE)
    return E.b


@mutation("entsize-0", True, "symbol table sh_entsize 0")
def _(E):
    E.set_shdr(need(E.symtab()), entsize=0)
    return E.b


@mutation("entsize-odd", True, "symbol table sh_entsize 23")
def _(E):
    E.set_shdr(need(E.symtab()), entsize=23)
    return E.b


@mutation("entsize-12", True, "symbol table sh_entsize 12 (half a symbol)")
def _(E):
    E.set_shdr(need(E.symtab()), entsize=12)
    return E.b


@mutation("entsize-big", True, "symbol table sh_entsize 4096")
def _(E):
    E.set_shdr(need(E.symtab()), entsize=4096)
    return E.b


@mutation("size-not-multiple", True, "symbol table sh_size not a multiple of sh_entsize (+7)")
def _(E):
    i = need(E.symtab())
    E.set_shdr(i, size=E.shdr(i)["size"] + 7)
    return E.b


@mutation("size-short", True, "symbol table sh_size one symbol short minus 1 byte")
def _(E):
    i = need(E.symtab())
    E.set_shdr(i, size=max(E.shdr(i)["size"] - E.symsize - 1, 1))
    return E.b


@mutation("huge-count", True, "symbol table sh_size 0x7fffffff symbols (past EOF)")
def _(E):
    i = need(E.symtab())
    E.set_shdr(i, size=0x7FFFFFFF * E.symsize if E.c64 else 0xFFFFFFF0)
    return E.b


@mutation("huge-count-2", True, "both symbol tables claim 2^31+1 symbols")
def _(E):
    for t in (SHT_SYMTAB, SHT_DYNSYM):
        i = E.find(None, t)
        if i is not None:
            E.set_shdr(i, size=((1 << 31) + 1) * E.symsize if E.c64 else 0xFFFFFFFF)
    return E.b


@mutation("symtab-off-past-eof", True, "symbol table sh_offset past EOF")
def _(E):
    E.set_shdr(need(E.symtab()), offset=len(E.b) + 100)
    return E.b


@mutation("symtab-off-overflow", True, "symbol table sh_offset + sh_size overflows")
def _(E):
    E.set_shdr(need(E.symtab()), offset=(1 << (64 if E.c64 else 32)) - 8)
    return E.b


@mutation("symtab-nobits", True, "symbol table of type SHT_NOBITS")
def _(E):
    E.set_shdr(need(E.symtab()), type=SHT_NOBITS)
    return E.b


@mutation("link-text", True, "symbol table sh_link -> a non-string section (.text)")
def _(E):
    E.set_shdr(need(E.symtab()), link=need(E.find(".text")))
    return E.b


@mutation("link-symtab-self", True, "symbol table sh_link -> itself")
def _(E):
    i = need(E.symtab())
    E.set_shdr(i, link=i)
    return E.b


@mutation("link-oob", True, "symbol table sh_link 0xfff0 (no such section)")
def _(E):
    E.set_shdr(need(E.symtab()), link=0xFFF0)
    return E.b


@mutation("link-0", True, "all symbol tables sh_link 0")
def _(E):
    for t in (SHT_SYMTAB, SHT_DYNSYM):
        i = E.find(None, t)
        if i is not None:
            E.set_shdr(i, link=0)
    return E.b


@mutation("info-oob", True, "symbol table sh_info (first global) past the count")
def _(E):
    E.set_shdr(need(E.symtab()), info=0x7FFFFFFF)
    return E.b


@mutation("dynsym-as-symtab", True, ".dynsym retyped SHT_SYMTAB (two symbol tables)")
def _(E):
    E.set_shdr(need(E.find(".dynsym")), type=SHT_SYMTAB)
    return E.b


@mutation("symtab-compressed", True, "symbol table flagged SHF_COMPRESSED (its bytes are no Chdr)")
def _(E):
    i = need(E.symtab())
    E.set_shdr(i, flags=E.shdr(i)["flags"] | SHF_COMPRESSED)
    return E.b


@mutation("strtab-compressed", True, "string table flagged SHF_COMPRESSED")
def _(E):
    i = need(E.symtab())
    s = E.shdr(i)["link"]
    E.set_shdr(s, flags=E.shdr(s)["flags"] | SHF_COMPRESSED)
    return E.b


@mutation("chdr-bogus", True, "every SHF_COMPRESSED section: ch_type 99, ch_size 2^60")
def _(E):
    hit = False
    for i, sh in enumerate(E.sections()):
        if sh["flags"] & SHF_COMPRESSED and sh["size"] >= (24 if E.c64 else 12):
            o = sh["offset"]
            if E.c64:
                struct.pack_into(E.e + "IIQ", E.b, o, 99, 0, 1 << 60)
            else:
                struct.pack_into(E.e + "II", E.b, o, 99, 0xFFFFFFF0)
            hit = True
    if not hit:
        raise LookupError
    return E.b


@mutation("chdr-size-lie", True, "every SHF_COMPRESSED section: ch_size 16x too large")
def _(E):
    hit = False
    for i, sh in enumerate(E.sections()):
        if sh["flags"] & SHF_COMPRESSED and sh["size"] >= 24:
            o = sh["offset"] + (8 if E.c64 else 4)
            f = "Q" if E.c64 else "I"
            (v,) = struct.unpack_from(E.e + f, E.b, o)
            struct.pack_into(E.e + f, E.b, o, (v * 16) & ((1 << (64 if E.c64 else 32)) - 1))
            hit = True
    if not hit:
        raise LookupError
    return E.b


@mutation("strtab-unterminated", True, "string table's last bytes not NUL (last name runs off the end)")
def _(E):
    i = need(E.symtab())
    s = E.shdr(E.shdr(i)["link"])
    end = s["offset"] + s["size"]
    if s["size"] < 4 or end > len(E.b):
        raise LookupError
    E.b[end - 1] = ord("Z")
    E.b[end - 2] = ord("Y")
    return E.b


@mutation("strtab-cut", True, "string table sh_size cut by 5 (last name cut off)")
def _(E):
    i = need(E.symtab())
    li = E.shdr(i)["link"]
    E.set_shdr(li, size=max(E.shdr(li)["size"] - 5, 1))
    return E.b


@mutation("strtab-size-0", True, "string table sh_size 0")
def _(E):
    i = need(E.symtab())
    E.set_shdr(E.shdr(i)["link"], size=0)
    return E.b


@mutation("strtab-overlaps-symtab", True, "string table sh_offset = symbol table's (names read from symbols)")
def _(E):
    i = need(E.symtab())
    sh = E.shdr(i)
    E.set_shdr(sh["link"], offset=sh["offset"])
    return E.b


@mutation("st-name-past-end", True, "every other symbol's st_name past the end of its string table")
def _(E):
    i = need(E.symtab())
    s = E.shdr(E.shdr(i)["link"])
    for k, o in enumerate(E.syms(i)):
        if k % 2:
            E.set_sym(o, name=s["size"] + 100 + k)
    return E.b


@mutation("st-name-max", True, "every symbol's st_name 0xffffffff")
def _(E):
    i = need(E.symtab())
    for o in E.syms(i)[1:]:
        E.set_sym(o, name=0xFFFFFFFF)
    return E.b


@mutation("st-name-at-end", True, "st_name == string table size (points just past the last NUL)")
def _(E):
    i = need(E.symtab())
    s = E.shdr(E.shdr(i)["link"])
    for o in E.syms(i)[1:]:
        E.set_sym(o, name=s["size"])
    return E.b


@mutation("shn-xindex", True, "st_shndx SHN_XINDEX without a .symtab_shndx section")
def _(E):
    i = need(E.symtab())
    for o in E.syms(i)[1:]:
        E.set_sym(o, shndx=SHN_XINDEX)
    return E.b


@mutation("shndx-oob", True, "st_shndx past e_shnum")
def _(E):
    i = need(E.symtab())
    for k, o in enumerate(E.syms(i)[1:]):
        E.set_sym(o, shndx=E.shnum + 10 + k)
    return E.b


@mutation("shndx-reserved", True, "st_shndx in the reserved range 0xff00..0xfffe")
def _(E):
    i = need(E.symtab())
    for k, o in enumerate(E.syms(i)[1:]):
        E.set_sym(o, shndx=0xFF00 + (k * 37) % 0xF0)
    return E.b


@mutation("values-huge", True, "symbols at 2^64-256.. with sizes 2^63")
def _(E):
    i = need(E.symtab())
    top = (1 << (64 if E.c64 else 32))
    for k, o in enumerate(E.syms(i)[1:]):
        E.set_sym(o, value=top - 256 + 16 * k, size=top // 2)
    return E.b


@mutation("values-overlap", True, "all symbols at one address with different sizes")
def _(E):
    i = need(E.symtab())
    syms = E.syms(i)[1:]
    if not syms:
        raise LookupError
    v = E.sym(syms[-1])["value"]
    for k, o in enumerate(syms):
        E.set_sym(o, value=v, size=k * 3)
    return E.b


@mutation("types-mixed", True, "symbol types/bindings/visibility cycled through every value")
def _(E):
    i = need(E.symtab())
    for k, o in enumerate(E.syms(i)[1:]):
        E.set_sym(o, info=(k * 17) & 0xFF, other=k & 0xFF)
    return E.b


@mutation("note-bad-sizes", False, "build-id note namesz/descsz 0xffffffff")
def _(E):
    i = need(E.find(None, SHT_NOTE))
    o = E.shdr(i)["offset"]
    struct.pack_into(E.e + "II", E.b, o, 0xFFFFFFFF, 0xFFFFFFFF)
    return E.b


@mutation("note-desc-0", False, "build-id note with descsz 0")
def _(E):
    i = need(E.find(None, SHT_NOTE))
    o = E.shdr(i)["offset"]
    struct.pack_into(E.e + "I", E.b, o + 4, 0)
    return E.b


@mutation("note-past-eof", False, "note section sh_size past EOF")
def _(E):
    i = need(E.find(None, SHT_NOTE))
    E.set_shdr(i, size=len(E.b) * 4)
    return E.b


@mutation("sections-all-alloc", True, "every section SHF_ALLOC|SHF_EXECINSTR at address 0")
def _(E):
    for i in range(1, E.shnum):
        E.set_shdr(i, flags=E.shdr(i)["flags"] | SHF_ALLOC | SHF_EXECINSTR, addr=0)
    return E.b


@mutation("relaplt-past-eof", True, ".rela.plt sh_size past the end of the file (libelf refuses it: perf synthesizes no PLT symbols)")
def _(E):
    i = E.find(".rela.plt")
    if i is None:
        i = need(E.find(".rel.plt"))
    E.set_shdr(i, size=E.shdr(i)["entsize"] * 0xaaaab)
    return E.b


def flips(seed, n, keep_note):
    def f(E):
        rnd = random.Random(seed)
        protect = []
        if keep_note:
            protect.append((0, 64 if E.c64 else 52))
            protect.append((E.shoff, E.shoff + E.shnum * E.shentsize))
            for i, sh in enumerate(E.sections()):
                if sh["type"] == SHT_NOTE or i == E.shstrndx:
                    protect.append((sh["offset"], sh["offset"] + sh["size"]))
        done = 0
        while done < n:
            o = rnd.randrange(len(E.b))
            if any(a <= o < b for a, b in protect):
                continue
            E.b[o] = rnd.randrange(256)
            done += 1
        return E.b
    return f


for _s in range(6):
    MUT.append(("flip-%d" % _s, False, "16 random bytes anywhere (seed %d)" % _s, flips(_s, 16, False)))
for _s in range(6):
    MUT.append(("flipdata-%d" % _s, True, "32 random bytes outside headers and notes (seed %d)" % _s,
                flips(100 + _s, 32, True)))


def main(argv):
    base = None
    prefix = ""
    keep_note = False
    listing = False
    only, skipped = ["*"], []
    args = []
    it = iter(argv)
    for a in it:
        if a == "--base":
            base = next(it)
        elif a == "--prefix":
            prefix = next(it)
        elif a == "--keep-note":
            keep_note = True
        elif a == "--only":
            only = next(it).split(",")
        elif a == "--skip":
            skipped = next(it).split(",")
        elif a == "--list":
            listing = True
        elif a.startswith("-"):
            sys.exit(__doc__)
        else:
            args.append(a)
    if listing:
        for name, kn, desc, _f in MUT:
            print("%-24s %s%s" % (name, desc, "" if kn else "  [build-id lost]"))
        return 0
    if len(args) != 1:
        sys.exit(__doc__)
    out = args[0]
    os.makedirs(out, exist_ok=True)
    if base:
        with open(base, "rb") as f:
            bases = [(prefix + "base", f.read())]
    else:
        bases = [(prefix + "elf64le", build_elf(True, False)), (prefix + "elf32le", build_elf(False, False)),
                 (prefix + "elf64be", build_elf(True, True)), (prefix + "elf32be", build_elf(False, True))]
    manifest = []
    for bname, data in bases:
        Elf(data)                               # must parse
        if not base:
            path = os.path.join(out, bname + "-valid")
            with open(path, "wb") as f:
                f.write(data)
            manifest.append((bname + "-valid", "valid hand-built ELF"))
        for name, kn, desc, fn in MUT:
            if keep_note and not kn:
                continue
            if not any(fnmatch.fnmatch(name, g) for g in only) or any(fnmatch.fnmatch(name, g) for g in skipped):
                continue
            try:
                res = bytes(fn(Elf(data)))
            except (LookupError, struct.error, ValueError, IndexError):
                continue                        # not applicable to this file
            if res == data:
                continue
            fname = "%s-%s" % (bname, name)
            with open(os.path.join(out, fname), "wb") as f:
                f.write(res)
            manifest.append((fname, desc))
    with open(os.path.join(out, "MANIFEST"), "a") as f:
        for n, d in manifest:
            f.write("%s\t%s\n" % (n, d))
    for n, d in manifest:
        print(n)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
