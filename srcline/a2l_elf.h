/* SPDX-License-Identifier: MIT */
/*
 * a2l_elf.h - internal to srcline/: the mapped ELF file as
 * srcline/a2l_build.c reads it (bounds-checked), shared with srcline/a2l.c
 * for the symbol-name lines of addr2line.c lookup_symbol.
 */
#ifndef SYMLAZY_A2L_ELF_H
#define SYMLAZY_A2L_ELF_H

#include <stddef.h>
#include <stdint.h>
#include <elf.h>

struct a2l_img {                /* one mapped ELF file */
	const unsigned char *p;
	size_t size;
	Elf64_Ehdr eh;
	size_t shnum, shstrndx;
};

struct a2l_tab {                /* the canonical symbol table (n = 0: none) */
	uint64_t off, str_off, str_size;
	uint32_t n;             /* entries with the null one */
	int dynamic;
};

/* Map @fd (@size bytes): 0, -EINVAL (not ELF, corrupt section headers),
 * -ENOTSUP (not ELFCLASS64 LE EM_X86_64 ET_EXEC/ET_DYN), -errno. Close it
 * with a2l_img_close even on failure. */
int a2l_img_open(struct a2l_img *m, int fd, size_t size);
void a2l_img_close(struct a2l_img *m);
int a2l_in_file(const struct a2l_img *m, uint64_t off, uint64_t len);
int a2l_shdr(const struct a2l_img *m, size_t i, Elf64_Shdr *out);
int a2l_canon_table(const struct a2l_img *m, struct a2l_tab *t);
void a2l_sym(const struct a2l_img *m, const struct a2l_tab *t, uint32_t i, Elf64_Sym *s);
const char *a2l_sym_name(const struct a2l_img *m, const struct a2l_tab *t, const Elf64_Sym *s);

/* a2l_lookup_symbol - addr2line.c lookup_symbol(@sym) + @offset on the ELF
 * file of @t (same identity as its table, else not found): 1 with *@pc, 0
 * when no symbol matches (addr2line: pc 0). */
struct a2l_table;
int a2l_lookup_symbol(const struct a2l_table *t, const char *sym, uint64_t offset, uint64_t *pc);

#endif
