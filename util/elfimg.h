/* SPDX-License-Identifier: MIT */
/*
 * elfimg.h - one bounds-checked reader of an ELF64 file's bytes (prefix
 * sl_elfimg_), libc only: the name index builder (index/names_build.c), the
 * addr2line tables (srcline/a2l_build.c and the DWARF reader beside it), the
 * decompressed debug copy (index/dbgsec.c), the DWARF unwinding replay
 * (perfdata/unwind_replay.c) and the build-id note walk of util/elfops.c
 * read ELF through it.
 *
 * Format facts: the System V ABI (gABI) chapters "ELF Header", "Sections"
 * (section 0 and the SHN_XINDEX / e_shnum 0 escapes), "String Table",
 * "Symbol Table", "Note Section", "Program Header"; glibc <elf.h> for the
 * structures.
 *
 * What is accepted: ELFCLASS64, ELFDATA2LSB on a little-endian host,
 * EI_VERSION EV_CURRENT, e_shentsize == sizeof(Elf64_Shdr) when there is a
 * section header table, the whole table inside the file. Every offset+size
 * read later is checked against the file size without overflow. Nothing is
 * allocated; the reader copies headers out (the bytes need not be aligned).
 *
 * Returns: 0 or -errno where a call can fail (-EINVAL: not ELF or a
 * structure outside the file / of a bad size; -ENOTSUP: an ELF file of
 * another class or byte order; -ENOENT: no such entry); lookups return a
 * pointer (NULL: none) or a section index (0: none).
 */
#ifndef SYMLAZY_ELFIMG_H
#define SYMLAZY_ELFIMG_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

struct sl_elfimg {              /* one ELF file's bytes */
	const unsigned char *p;
	size_t size;                /* bytes at p: the file size */
	Elf64_Ehdr eh;              /* a copy of the ELF header */
	size_t shnum;               /* section headers (gABI escape applied; 0: no table) */
	size_t shstrndx;            /* section name string table (SHN_XINDEX resolved) */
	int mapped;                 /* p is a mapping sl_elfimg_close unmaps */
};

/*
 * sl_elfimg_open - map @size bytes of @fd read-only (MAP_PRIVATE) and read
 * the headers; sl_elfimg_init - the same over @size bytes at @p the caller
 * keeps (not copied, not freed). 0; -EINVAL (shorter than e_ident, not ELF,
 * EI_VERSION not EV_CURRENT, shorter than the ELF header, e_shentsize not
 * 64, section header table outside the file); -ENOTSUP (not ELFCLASS64
 * ELFDATA2LSB, or a big-endian host); -errno of mmap. On failure @m holds
 * no mapping; sl_elfimg_close may be called on it either way (and on a
 * zeroed struct).
 */
int sl_elfimg_open(struct sl_elfimg *m, int fd, size_t size);
int sl_elfimg_init(struct sl_elfimg *m, const void *p, size_t size);
void sl_elfimg_close(struct sl_elfimg *m);

/* sl_elfimg_in_file - 1 when [@off, @off + @len) lies inside the file
 * (no overflow), else 0. sl_elfimg_at - those bytes, or NULL. */
int sl_elfimg_in_file(const struct sl_elfimg *m, uint64_t off, uint64_t len);
const unsigned char *sl_elfimg_at(const struct sl_elfimg *m, uint64_t off, uint64_t len);

/* sl_elfimg_shdr - section header @i copied into @out: 0, -ENOENT (@i >=
 * shnum). Every header below shnum is inside the file (checked at open). */
int sl_elfimg_shdr(const struct sl_elfimg *m, size_t i, Elf64_Shdr *out);

/* sl_elfimg_sec_data - the bytes of section @sh, or NULL (SHT_NOBITS, or
 * [sh_offset, sh_offset + sh_size) outside the file). */
const unsigned char *sl_elfimg_sec_data(const struct sl_elfimg *m, const Elf64_Shdr *sh);

/* sl_elfimg_str - the string at offset @off of string table section @sec:
 * NULL unless @sec is a section with file bytes, @off < its sh_size and a
 * NUL follows inside the section. The section's type is not checked (the
 * readers here take what sh_link / e_shstrndx name). */
const char *sl_elfimg_str(const struct sl_elfimg *m, size_t sec, uint64_t off);

/* sl_elfimg_sec_name - the name of section @sh in the section name string
 * table (sl_elfimg_str of shstrndx, sh_name), or NULL. */
const char *sl_elfimg_sec_name(const struct sl_elfimg *m, const Elf64_Shdr *sh);

/* sl_elfimg_find_type / sl_elfimg_find_name - the first section from 1 up
 * of type @type / named @name: its index with *@out filled, or 0. */
size_t sl_elfimg_find_type(const struct sl_elfimg *m, uint32_t type, Elf64_Shdr *out);
size_t sl_elfimg_find_name(const struct sl_elfimg *m, const char *name, Elf64_Shdr *out);

/*
 * Program headers (gABI "Program Header"): a table of e_phnum entries of
 * e_phentsize == sizeof(Elf64_Phdr) bytes at e_phoff. e_phnum is taken as
 * it stands: the PN_XNUM escape (count in section 0's sh_info, core files)
 * is not resolved. sl_elfimg_phdrs - 0 when the table is usable (e_phnum 0,
 * or the entry size right, e_phoff non-zero and every entry inside the
 * file), else -EINVAL. sl_elfimg_phdr - entry @i into @out: 0, -ENOENT
 * (@i >= e_phnum), -EINVAL (table unusable).
 */
int sl_elfimg_phdrs(const struct sl_elfimg *m);
int sl_elfimg_phdr(const struct sl_elfimg *m, size_t i, Elf64_Phdr *out);

/*
 * Symbol tables (gABI "Symbol Table"). sl_elfimg_symtab - the table of
 * section @sh (SHT_SYMTAB / SHT_DYNSYM) with its string table (section
 * sh_link) into @t: 0, or -EINVAL when its bytes are not in the file, its
 * size is not a multiple of sizeof(Elf64_Sym), or sh_entsize is not
 * sizeof(Elf64_Sym) (unless SL_ELFIMG_ANY_ENTSIZE: for a caller that models
 * a reader ignoring sh_entsize, Go's debug/elf Symbols()). The string
 * table: with SL_ELFIMG_STRTAB_NUL it must be a non-empty SHT_STRTAB in the
 * file whose last byte is NUL (-EINVAL otherwise: then every st_name below
 * strsz names a NUL-terminated string); without it, a string table that
 * cannot be read gives str NULL, strsz 0.
 */
#define SL_ELFIMG_ANY_ENTSIZE 1u
#define SL_ELFIMG_STRTAB_NUL  2u

struct sl_elfimg_symtab {
	const unsigned char *syms;  /* n entries of sizeof(Elf64_Sym), null one included */
	uint64_t n;
	const unsigned char *str;   /* its string table (NULL: none readable) */
	uint64_t strsz;
};

int sl_elfimg_symtab(const struct sl_elfimg *m, const Elf64_Shdr *sh, unsigned flags,
		     struct sl_elfimg_symtab *t);

/* sl_elfimg_sym - entry @i copied into @out: 0, -ENOENT (@i >= n). */
int sl_elfimg_sym(const struct sl_elfimg_symtab *t, uint64_t i, Elf64_Sym *out);

/* sl_elfimg_sym_name - the NUL-terminated name at @st_name of @t's string
 * table, its length in *@len (may be NULL); NULL when outside or unended. */
const char *sl_elfimg_sym_name(const struct sl_elfimg_symtab *t, uint32_t st_name, uint32_t *len);

/*
 * Notes (gABI "Note Section"): Elf64_Nhdr {n_namesz, n_descsz, n_type},
 * the name, padding to the note alignment, the descriptor, padding. The
 * alignment is 4 for SHT_NOTE sections and PT_NOTE segments of GNU notes in
 * both classes; 8 for a PT_NOTE segment with p_align 8 (.note.gnu.property,
 * gABI since 2018: "the alignment of the note segment"). Pass
 * SL_ELFIMG_NOTE_ALIGN8 for the latter.
 *
 * sl_elfimg_note_next - the note at *@off of the @size bytes at @d into @n,
 * *@off moved to the next one: 1; 0 when fewer than sizeof(Elf64_Nhdr) bytes
 * are left; -EINVAL when its name or descriptor runs past @size or, with
 * SL_ELFIMG_NOTE_PADDED, the descriptor's padding does (a walk that wants
 * every note fully inside). A last note whose descriptor ends at @size
 * unpadded is accepted without that flag (libelf gelf_getnote, bfd
 * elf_parse_notes).
 */
#define SL_ELFIMG_NOTE_ALIGN8 1u
#define SL_ELFIMG_NOTE_PADDED 2u

struct sl_elfimg_note {
	uint32_t type, namesz, descsz;
	const unsigned char *name, *desc;
};

int sl_elfimg_note_next(const unsigned char *d, uint64_t size, unsigned flags, uint64_t *off,
			struct sl_elfimg_note *n);

/* sl_elfimg_note_is - @n is named @name (n_namesz includes the NUL, as GNU
 * writes "GNU\0") and of type @type. */
int sl_elfimg_note_is(const struct sl_elfimg_note *n, const char *name, uint32_t type);

/*
 * sl_elfimg_notes_build_id - the first NT_GNU_BUILD_ID note named "GNU"
 * with 1..@max descriptor bytes among the notes at @d (@size bytes, @flags
 * as sl_elfimg_note_next; the walk stops at the first note that does not
 * fit) copied into @out: its length, 0 if none. sl_elfimg_build_id - the
 * same over the SHT_NOTE sections of @m in order, each walked with
 * SL_ELFIMG_NOTE_PADDED.
 */
uint32_t sl_elfimg_notes_build_id(const unsigned char *d, uint64_t size, unsigned flags, unsigned char *out,
				  uint32_t max);
uint32_t sl_elfimg_build_id(const struct sl_elfimg *m, unsigned char *out, uint32_t max);

#endif
