#!/usr/bin/env python3
"""set_shndx.py FILE TABLE NAME - give symbol NAME of TABLE (.symtab or
.dynsym) of the ELF64 little-endian FILE (NAME "@last": its last defined
FUNC or OBJECT symbol) a section index past the section count (e_shnum + 4),
in place, as the BOLT-linked librustc_driver of the
Rust toolchain has one (rust_metadata_* in .dynsym, index 48 of 44): perf's
symbol pass stops there (dso__load_sym_internal(), tools/perf/util/
symbol-elf.c: elf_getscn() fails -> goto out_elf_end). Prints the symbol's
index in its table. Exit 1 if the symbol is not there.
ELF facts (gABI): Elf64_Ehdr e_shoff at 0x28, e_shentsize 0x3a, e_shnum
0x3c, e_shstrndx 0x3e; Elf64_Shdr sh_name 0, sh_offset 0x18, sh_size 0x20,
sh_link 0x28, sh_entsize 0x38; Elf64_Sym st_name 0, st_shndx 6, 24 bytes."""
import struct
import sys


def main():
    path, table, name = sys.argv[1:4]
    with open(path, "r+b") as f:
        d = bytearray(f.read())
        shoff, = struct.unpack_from("<Q", d, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3a)

        def shdr(i):
            o = shoff + i * shentsize
            nm, = struct.unpack_from("<I", d, o)
            off, size = struct.unpack_from("<QQ", d, o + 0x18)
            link, = struct.unpack_from("<I", d, o + 0x28)
            ent, = struct.unpack_from("<Q", d, o + 0x38)
            return nm, off, size, link, ent

        def cstr(off):
            return bytes(d[off:d.index(b"\0", off)]).decode()

        stroff = shdr(shstrndx)[1]
        for i in range(shnum):
            nm, off, size, link, ent = shdr(i)
            if cstr(stroff + nm) != table:
                continue
            names = shdr(link)[1]
            ks = range(size // ent)
            for k in (reversed(ks) if name == "@last" else ks):
                o = off + k * ent
                st_name, = struct.unpack_from("<I", d, o)
                st_info, st_shndx = d[o + 4], struct.unpack_from("<H", d, o + 6)[0]
                if name == "@last":
                    hit = st_name and st_info & 0xf in (1, 2) and 0 < st_shndx < shnum
                else:
                    hit = st_name and cstr(names + st_name) == name
                if hit:
                    struct.pack_into("<H", d, o + 6, shnum + 4)
                    f.seek(0)
                    f.write(d)
                    print(k)
                    return 0
    print("set_shndx: %s not in %s of %s" % (name, table, path), file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
