/* SPDX-License-Identifier: MIT */
/*
 * fuzz_elf.h - turn an Elf into a struct symidx_src the way the shim does in
 * make_lazy_plan() (shim/state.c): tables by symindex_src_tables() (section
 * name and type, counts = sh_size / sh_entsize), the runtime layout of the
 * same file.
 */
#ifndef SYMLAZY_FUZZ_ELF_H
#define SYMLAZY_FUZZ_ELF_H

#include <string.h>
#include "symindex.h"

/* Fill @src for @elf (layout into @lay, build-id into @bid[20]). */
static inline void fuzz_elf_src(const struct elf_ops *ops, Elf *elf, size_t fsize,
				struct symidx_layout *lay, struct symidx_src *src, unsigned char *bid)
{
	int r;

	if (symindex_layout(ops, elf, fsize, lay) < 0)
		memset(lay, 0, sizeof(*lay));
	memset(src, 0, sizeof(*src));
	src->ops = ops;
	src->elf = elf;
	symindex_src_tables(ops, elf, src);
	src->layout = lay;
	r = elf_read_build_id(ops, elf, bid, 20);
	src->build_id = bid;
	src->build_id_len = r > 0 ? (size_t)r : 0;
	src->cache_dirfd = -1;
	src->file_key = 42;
}

#endif
