/* SPDX-License-Identifier: MIT */
/*
 * fuzz_elf.h - turn an Elf into a struct symidx_src the way the core does for the shim
 * (symindex_src_init, index/symindex.h): tables by symindex_src_tables() (section
 * name and type, counts = sh_size / sh_entsize), the runtime layout of the
 * same file.
 */
#ifndef SYMLAZY_FUZZ_ELF_H
#define SYMLAZY_FUZZ_ELF_H

#include <string.h>
#include "index/symindex.h"
#include "core/models.h"

/* Fill @src for @elf (layout into @lay, build-id into @bid[20]). */
static inline void fuzz_elf_src(const struct elf_ops *ops, Elf *elf, size_t fsize,
				struct symidx_layout *lay, struct symidx_src *src, unsigned char *bid)
{
	struct sl_file_id id = { .dev = 1, .ino = 42, .valid = 1 };
	int r;

	if (symindex_layout(ops, elf, fsize, lay) < 0)
		memset(lay, 0, sizeof(*lay));
	r = elf_read_build_id(ops, elf, bid, 20);
	symindex_src_init(src, ops, elf, lay, bid, r > 0 ? (size_t)r : 0, &id, -1, SYMIDX_DEM_UNKNOWN,
			  &sl_model_perf61.sym);
}

#endif
