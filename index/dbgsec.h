/* SPDX-License-Identifier: MIT */
/*
 * dbgsec.h - compressed debug sections as file-backed data.
 *
 * libdw decompresses every SHF_COMPRESSED .debug_* section it reads onto the
 * heap (elfutils libdw/dwarf_begin_elf.c check_section: elf_compress(scn, 0,
 * 0) then elf_getdata; libelf/elf_compress.c mallocs the inflated bytes). For
 * such a file this module writes, once, a copy whose compressed sections are
 * stored inflated (the "decompressed copy", "<key>.dbg" in the cache dir) so
 * that libelf maps it (ELF_C_READ_MMAP) and libdw reads the very same bytes
 * from the page cache instead of a malloc'd buffer.
 *
 * The copy: bytes [0, X) of the file verbatim, X the lowest offset of a
 * compressed section; every non-NOBITS section at or past X follows in file
 * order at its own alignment, compressed ones inflated (size ch_size, align
 * ch_addralign, SHF_COMPRESSED cleared: what elf_compress(scn, 0, 0) leaves
 * in the section header, libelf/elf_compress.c); then a new section header
 * table; e_shoff the only ELF header change. Program headers, notes, .symtab
 * contents and every other section's bytes are unchanged.
 * Only ELFCLASS64 little-endian files that util/elfimg.h reads, with e_shnum
 * in range (no gABI extended section numbering), whose program
 * headers and pre-X sections all end at or before X, with no SHF_ALLOC
 * section (but NOBITS) past X, and whose compressed
 * sections are non-alloc with ch_type ELFCOMPRESS_ZLIB or ELFCOMPRESS_ZSTD
 * (Elf64_Chdr, glibc elf.h), and whose moved sections' alignments
 * (sh_addralign, ch_addralign) are at most 64 KiB, are rewritten; anything
 * else is left alone.
 */
#ifndef SYMLAZY_DBGSEC_H
#define SYMLAZY_DBGSEC_H

#include <stddef.h>
#include <stdint.h>
#include <elf.h>

/* what one decompressed copy holds */
struct sl_dbgsec_info {
	uint32_t sections;      /* compressed sections stored inflated */
	uint64_t bytes;         /* their inflated bytes */
	int built;              /* 1: written by this call, 0: found in the cache */
	uint64_t abbrev_moved;  /* SL_DBGSEC_ABBREV, built 1: units whose DIE's
				 * abbreviation was moved first (index/abbrevord.h) */
};

/* sl_dbgsec_open flags: what the copy changes besides inflating */
#define SL_DBGSEC_ABBREV 1u     /* each unit DIE's abbreviation entry first in
				 * its table (index/abbrevord.h); part of the key */

/* the rewrite of one file, computed from its headers (no section bytes) */
/* bytes after a copy's ELF bytes: "SLDBGSUM" and the u64 symindex_checksum()
 * of them; a copy whose trailer does not match is rebuilt */
#define SL_DBGSEC_TRAILER 16

struct sl_dbgsec_plan {
	Elf64_Ehdr eh;          /* the copy's ELF header (e_shoff updated) */
	Elf64_Shdr *old_sh;     /* e_shnum headers of the file (malloc'd) */
	Elf64_Shdr *new_sh;     /* e_shnum headers of the copy (malloc'd) */
	uint32_t *order;        /* indexes of the moved sections, file order */
	uint32_t nmoved;
	uint64_t cut;           /* X: bytes copied verbatim */
	uint64_t size;          /* size of the copy's ELF bytes (the file has
				 * SL_DBGSEC_TRAILER more: index/dbgsec.c copy_seal) */
	uint64_t file_size;     /* size of the file (identity) */
	struct sl_dbgsec_info info;
};

/*
 * sl_dbgsec_plan - read the ELF header, section headers and Elf64_Chdr of
 * each compressed section of the file at @fd (headers through a read-only
 * mapping, util/elfimg.h; the Chdrs with pread; @fd's offset untouched) and
 * compute the copy into @p (free with sl_dbgsec_plan_free). Returns 0;
 * -ENOENT: no compressed section (nothing to do); -EINVAL: not a layout
 * this module rewrites (see above); -ENOMEM; -errno of mmap/pread/fstat.
 */
int sl_dbgsec_plan(int fd, struct sl_dbgsec_plan *p);
void sl_dbgsec_plan_free(struct sl_dbgsec_plan *p);

/*
 * sl_dbgsec_open - an O_RDONLY fd of the decompressed copy of the file at
 * @fd, from the cache dir @dirfd: "dwarf-<key %016x>.dbg", key = FNV-1a of
 * the format version, @flags (SL_DBGSEC_*) and the file's identity (st_dev,
 * st_ino, st_size, st_mtim, st_ctim). With SL_DBGSEC_ABBREV the copy's
 * .debug_abbrev is rewritten after inflating (index/abbrevord.h; not for
 * ET_REL). An existing copy is used when it is a regular file
 * owned by us, of the planned size, whose ELF header and section header
 * table equal the plan's; else it is rebuilt (temp file, inflated through
 * 256 KiB buffers, renamed into place). Inflating uses libz.so.1 / libzstd.so.1
 * loaded with dlopen (util/zlib_dl.h, util/zstd_dl.h); an inflated size other
 * than ch_size fails the build. *@info says what the copy holds.
 * Returns the fd (caller closes), -ENOENT (nothing compressed), -EINVAL
 * (a layout not rewritten), -EBADMSG (a stream that does not inflate to
 * exactly ch_size bytes), -ENOSYS (library missing for a ch_type), other
 * -errno (I/O, no space).
 */
int sl_dbgsec_open(int fd, int dirfd, unsigned flags, struct sl_dbgsec_info *info);

#endif
