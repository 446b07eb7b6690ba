/* SPDX-License-Identifier: MIT */
/*
 * symindex-bench FILE [REPEAT] - build the lazy-mode symbol index of FILE
 * (its .symtab and .dynsym, layout from its own program headers) in memory
 * (memfd, no cache) REPEAT times and print symbols/s; then time 100k lookups.
 * Output: one line "symbols=N groups=N build_ms=X rate_msym_s=Y lookup_ns=Z".
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "index/symindex.h"
#include "core/models.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	const struct elf_ops *ops = elfops_direct();
	struct symidx_layout lay;
	struct symidx_src src;
	struct symidx idx;
	unsigned char bid[20];
	Elf *elf;
	int fd, r, rep = argc > 2 ? atoi(argv[2]) : 3, i;
	double t0, best = 1e18;
	volatile uint32_t sink = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: symindex-bench FILE [REPEAT]\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !(elf = ops->elf_begin(fd, ELF_C_READ_MMAP, NULL)) || symindex_layout(ops, elf, 0, &lay) < 0) {
		fprintf(stderr, "symindex-bench: cannot read %s as ELF\n", argv[1]);
		return 1;
	}
	r = elf_read_build_id(ops, elf, bid, sizeof(bid));
	symindex_src_init(&src, ops, elf, &lay, bid, r > 0 ? (size_t)r : 0, NULL, -1, SYMIDX_DEM_NOOPTS,
			  &sl_model_perf61.sym);
	for (i = 0; i < rep; i++) {
		t0 = now_ms();
		if (symindex_open(&src, &idx) < 0) {
			fprintf(stderr, "symindex-bench: build failed\n");
			return 1;
		}
		t0 = now_ms() - t0;
		best = t0 < best ? t0 : best;
		if (i + 1 < rep)
			symindex_close(&idx);
	}
	t0 = now_ms();
	for (i = 0; i < 100000 && idx.ngroups; i++)
		sink += symindex_find(&idx, idx.groups[(uint32_t)i * 2654435761u % idx.ngroups].start + 1);
	t0 = now_ms() - t0;
	printf("symbols=%u groups=%u build_ms=%.1f rate_msym_s=%.2f lookup_ns=%.0f%s\n",
	       src.nsymtab + src.ndynsym, idx.ngroups, best,
	       (src.nsymtab + src.ndynsym) / best / 1e3, t0 * 1e6 / 100000,
	       idx.unmodelable ? " (unmodelable)" : "");
	symindex_close(&idx);
	ops->elf_end(elf);
	close(fd);
	return 0;
}
