/* SPDX-License-Identifier: MIT */
/*
 * a2l_elf.h - internal to srcline/: the ELF file as srcline/a2l_build.c and
 * the DWARF reader read it (util/elfimg.h, bounds-checked), shared with
 * srcline/a2l.c for the symbol-name lines of addr2line.c lookup_symbol.
 */
#ifndef SYMLAZY_A2L_ELF_H
#define SYMLAZY_A2L_ELF_H

#include <stddef.h>
#include <stdint.h>
#include <elf.h>
#include "util/elfimg.h"

struct a2l_tab {                /* the canonical symbol table (n = 0: none) */
	uint64_t off, str_off, str_size;
	uint32_t n;             /* entries with the null one */
	int dynamic;
};

/* Map @fd (@size bytes) with sl_elfimg_open: 0, -EINVAL (not ELF, corrupt
 * section headers), -ENOTSUP (not ELFCLASS64 LE EM_X86_64 ET_EXEC/ET_DYN),
 * -errno. sl_elfimg_close it (also allowed after a failure). */
int a2l_img_open(struct sl_elfimg *m, int fd, size_t size);
int a2l_canon_table(const struct sl_elfimg *m, struct a2l_tab *t);
void a2l_sym(const struct sl_elfimg *m, const struct a2l_tab *t, uint32_t i, Elf64_Sym *s);
const char *a2l_sym_name(const struct sl_elfimg *m, const struct a2l_tab *t, const Elf64_Sym *s);

/* a2l_lookup_symbol - addr2line.c lookup_symbol(@sym) + @offset on the ELF
 * file of @t (same identity as its table, else not found): 1 with *@pc, 0
 * when no symbol matches (addr2line: pc 0). */
struct a2l_table;
int a2l_lookup_symbol(const struct a2l_table *t, const char *sym, uint64_t offset, uint64_t *pc);

#endif
