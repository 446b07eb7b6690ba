/* SPDX-License-Identifier: MIT */
/*
 * fuzz_elf.h - turn an Elf into a struct symidx_src the way the shim does in
 * make_lazy_plan() (shim/state.c): tables found by section name and type,
 * counts = sh_size / sh_entsize, the runtime layout of the same file.
 */
#ifndef SYMLAZY_FUZZ_ELF_H
#define SYMLAZY_FUZZ_ELF_H

#include <string.h>
#include "symindex.h"

static inline Elf_Data *fuzz_table(const struct elf_ops *ops, Elf *elf, const char *name,
				   Elf64_Word type, uint32_t *n)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	*n = 0;
	if (ops->elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = ops->elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *nm;

		if (!ops->gelf_getshdr(scn, &sh))
			continue;
		nm = ops->elf_strptr(elf, shstrndx, sh.sh_name);
		if (!nm || strcmp(nm, name))
			continue;
		if (sh.sh_type != type || !sh.sh_entsize)
			return NULL;
		*n = (uint32_t)(sh.sh_size / sh.sh_entsize);
		return ops->elf_getdata(scn, NULL);
	}
	return NULL;
}

/* Fill @src for @elf (layout into @lay, build-id into @bid[20]). */
static inline void fuzz_elf_src(const struct elf_ops *ops, Elf *elf, struct symidx_layout *lay,
				struct symidx_src *src, unsigned char *bid)
{
	int r;

	if (symindex_layout(ops, elf, lay) < 0)
		memset(lay, 0, sizeof(*lay));
	memset(src, 0, sizeof(*src));
	src->ops = ops;
	src->elf = elf;
	src->symtab = fuzz_table(ops, elf, ".symtab", SHT_SYMTAB, &src->nsymtab);
	src->dynsym = fuzz_table(ops, elf, ".dynsym", SHT_DYNSYM, &src->ndynsym);
	src->layout = lay;
	r = elf_read_build_id(ops, elf, bid, 20);
	src->build_id = bid;
	src->build_id_len = r > 0 ? (size_t)r : 0;
	src->cache_dirfd = -1;
	src->file_key = 42;
}

#endif
