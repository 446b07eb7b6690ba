/* SPDX-License-Identifier: MIT */
/*
 * fuzz_symindex - the lazy index on arbitrary ELF bytes (index/symindex.c,
 * util/elfops.c): elf_memory -> symindex_layout, elf_read_build_id ->
 * symindex_open (no cache dir: memfd) -> symindex_plan / symindex_find for
 * every group start, start+1, start-1 and up to 8 addresses taken from the
 * last 64 bytes of the input. Keep bitmaps are sized exactly as the shim
 * sizes them (nsyms / 8 + 1), so ASan catches any write past them.
 * Checks: groups sorted by start, each group's entries inside the entry
 * array, plan's kept bits only for candidates of the index.
 */
#include <errno.h>
#include "fuzz_common.h"
#include "fuzz_elf.h"
#include "util/reason.h"

#define MAX_ADDRS 64

static void check_index(const struct symidx *idx)
{
	uint32_t i;

	if (idx->unmodelable)
		return;
	FUZZ_CHECK(idx->ngroups <= idx->nentries);
	for (i = 0; i < idx->ngroups; i++) {
		const struct symidx_group *g = &idx->groups[i];

		FUZZ_CHECK(g->n >= 1 && g->first <= idx->nentries && g->n <= idx->nentries - g->first);
		if (i)
			FUZZ_CHECK(idx->groups[i - 1].start < g->start);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct elf_ops *ops;
	struct symidx_layout lay;
	struct symidx_src src;
	struct symidx idx;
	unsigned char bid[20];
	uint64_t addrs[MAX_ADDRS];
	size_t naddrs = 0, i;
	char *buf;
	struct sl_why why;
	Elf *elf;

	if (!ops)
		ops = elfops_direct();
	if (size < 16 || size > (1u << 20))
		return 0;
	buf = malloc(size);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	elf = ops->elf_memory(buf, size);
	if (!elf || ops->elf_kind(elf) != ELF_K_ELF)
		goto out;
	fuzz_elf_src(ops, elf, size, &lay, &src, bid);
	if (symindex_open(&src, &idx) == 0) {
		uint8_t *ks = calloc(src.nsymtab / 8 + 1, 1), *kd = calloc(src.ndynsym / 8 + 1, 1);
		uint32_t kept = 0, g;
		int r;

		check_index(&idx);
		for (g = 0; g < idx.ngroups && naddrs + 3 <= MAX_ADDRS - 8; g++) {
			addrs[naddrs++] = idx.groups[g].start - 1;
			addrs[naddrs++] = idx.groups[g].start;
			addrs[naddrs++] = idx.groups[g].start + 1;
		}
		if (size >= 128)
			for (i = 0; i < 8; i++)
				memcpy(&addrs[naddrs++], data + size - 64 + 8 * i, 8);
		/* symindex_plan wants sorted, unique addresses */
		for (i = 1; i < naddrs; i++) {
			uint64_t v = addrs[i];
			size_t j = i;

			while (j > 0 && addrs[j - 1] > v) {
				addrs[j] = addrs[j - 1];
				j--;
			}
			addrs[j] = v;
		}
		{
			size_t o = 0;

			for (i = 0; i < naddrs; i++)
				if (!o || addrs[o - 1] != addrs[i])
					addrs[o++] = addrs[i];
			naddrs = o;
		}
		if (ks && kd) {
			r = symindex_plan(&idx, &lay, &src, addrs, naddrs, ks, kd, &kept, &why);
			FUZZ_CHECK(r == 0 || r == 1 || r == -ENOMEM);
			FUZZ_CHECK(kept <= idx.ngroups || (idx.ngroups == 0 && kept == 0));
			/* one address at a time: one ambiguous address makes the
			 * whole plan give up early */
			/* (not for tables claiming millions of symbols: clearing
			 * their bitmaps would be all this harness does) */
			for (i = 0; i < naddrs && i < 2 && src.nsymtab < (1u << 20) && src.ndynsym < (1u << 20); i++) {
				memset(ks, 0, src.nsymtab / 8 + 1);
				memset(kd, 0, src.ndynsym / 8 + 1);
				r = symindex_plan(&idx, &lay, &src, &addrs[i], 1, ks, kd, &kept, &why);
				FUZZ_CHECK(r == 0 || r == 1 || r == -ENOMEM);
			}
			/* and once with no address at all (rule 4) */
			r = symindex_plan(&idx, &lay, &src, addrs, 0, ks, kd, &kept, &why);
			FUZZ_CHECK(r == 0 || r == 1 || r == -ENOMEM);
		}
		for (i = 0; i < naddrs; i++) {
			uint32_t f = symindex_find(&idx, addrs[i]);

			FUZZ_CHECK(f == SYMIDX_NONE || f < idx.ngroups);
		}
		free(ks);
		free(kd);
		symindex_close(&idx);
	}
out:
	if (elf)
		ops->elf_end(elf);
	free(buf);
	return 0;
}
