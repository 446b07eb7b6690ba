/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the lazy keep-set (core/symindex.c) on a real shared object
 * assembled at test time. Each test pins one rule of symindex_plan(); the rule
 * is written next to the assertion.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "symindex.h"

static const char *asm_src =
	"\t.text\n"
	"\t.globl f1\n\t.type f1,@function\nf1:\n\t.fill 16,1,0x90\n\t.size f1,16\n"
	"\t.globl z1\n\t.type z1,@function\nz1:\n\t.fill 16,1,0x90\n"          /* zero size */
	"\t.globl f2\n\t.type f2,@function\nf2:\n\t.fill 32,1,0x90\n\t.size f2,32\n"
	"\t.weak walias\n\t.type walias,@function\n\t.set walias,f2\n\t.size walias,32\n"
	"\t.globl outer\n\t.type outer,@function\nouter:\n\t.fill 8,1,0x90\n"
	"\t.globl inner_label\ninner_label:\n\t.fill 56,1,0x90\n\t.size outer,64\n"
	"\t.globl f3\n\t.type f3,@function\nf3:\n\tjmp puts@PLT\n\t.fill 14,1,0x90\n\t.size f3,16\n"
	"\t.section .note.GNU-stack,\"\",@progbits\n";

static char dir[64], sofile[96];
static int fd = -1;
static Elf *elf;
static const struct elf_ops *ops;
static struct symidx_layout lay;
static struct symidx_src src;

static uint64_t start_of(const char *name, uint32_t *symidx)
{
	Elf_Data *d = src.symtab;
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;
	size_t strndx = 0;
	uint32_t i;

	while ((scn = ops->elf_nextscn(elf, scn)) != NULL)
		if (ops->gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			strndx = sh.sh_link;
	for (i = 0; i < src.nsymtab; i++) {
		GElf_Sym s;
		const char *n;

		ops->gelf_getsym(d, (int)i, &s);
		n = ops->elf_strptr(elf, strndx, s.st_name);
		if (n && !strcmp(n, name)) {
			unsigned k;

			if (symidx)
				*symidx = i;
			for (k = 0; k < lay.nloads; k++)
				if (s.st_value >= lay.loads[k].vaddr && s.st_value < lay.loads[k].vaddr + lay.loads[k].size)
					return s.st_value - (lay.loads[k].vaddr - lay.loads[k].offset);
		}
	}
	fail_msg("symbol %s not found", name);
	return 0;
}

static int setup(void **state)
{
	char cmd[256], sfile[96];
	FILE *f;
	static unsigned char bid[20];
	int r;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/symlazy-ut-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(sfile, sizeof(sfile), "%s/fx.s", dir);
	snprintf(sofile, sizeof(sofile), "%s/fx.so", dir);
	f = fopen(sfile, "w");
	fputs(asm_src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -shared -Wl,--build-id -o %s %s", sofile, sfile);
	if (system(cmd) != 0)
		return -1;
	ops = elfops_direct();
	fd = open(sofile, O_RDONLY);
	elf = ops->elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || symindex_layout(ops, elf, 0, &lay) < 0)
		return -1;
	r = elf_read_build_id(ops, elf, bid, sizeof(bid));
	if (r <= 0)
		return -1;
	{
		struct sl_file_id id = { .dev = 1, .ino = 42, .valid = 1 };

		symindex_src_init(&src, ops, elf, &lay, bid, (size_t)r, &id, -1, SYMIDX_DEM_UNKNOWN);
	}
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	ops->elf_end(elf);
	close(fd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

struct plan {
	uint8_t ks[64], kd[64];
	uint32_t groups;
	char why[128];
	int ret;
};

static void plan_for(const struct symidx *idx, const uint64_t *a, size_t n, struct plan *p)
{
	memset(p, 0, sizeof(*p));
	p->ret = symindex_plan(idx, &lay, NULL, a, n, p->ks, p->kd, &p->groups, p->why, sizeof(p->why));
}

static int nbits(const uint8_t *b, size_t n)
{
	int c = 0;

	for (size_t i = 0; i < n * 8; i++)
		c += BIT_TEST(b, i);
	return c;
}

static void test_answer_group_only(void **state)
{
	struct symidx idx;
	struct plan p;
	uint32_t i_f1;
	uint64_t a = start_of("f1", &i_f1) + 4;

	(void)state;
	assert_int_equal(symindex_open(&src, &idx), 0);
	assert_false(idx.unmodelable);
	plan_for(&idx, &a, 1, &p);
	/* rule 1: the group answering A is kept, nothing else from .symtab */
	assert_int_equal(p.ret, 0);
	assert_int_equal(p.groups, 1);
	assert_true(BIT_TEST(p.ks, i_f1));
	assert_int_equal(nbits(p.ks, sizeof(p.ks)), 1);
	/* ... and its .dynsym twin (same start = same group) */
	assert_int_equal(nbits(p.kd, sizeof(p.kd)), 1);
	symindex_close(&idx);
}

static void test_zero_size_keeps_successor(void **state)
{
	struct symidx idx;
	struct plan p;
	uint32_t i_z1, i_f2, i_wa;
	uint64_t a = start_of("z1", &i_z1) + 4;

	(void)state;
	start_of("f2", &i_f2);
	start_of("walias", &i_wa);
	assert_int_equal(symindex_open(&src, &idx), 0);
	plan_for(&idx, &a, 1, &p);
	/* rule 3: z1 has size 0, perf ends it at its in-order successor (f2);
	 * keeping only z1 would stretch it to the next kept symbol */
	assert_int_equal(p.ret, 0);
	assert_true(BIT_TEST(p.ks, i_z1));
	assert_true(BIT_TEST(p.ks, i_f2));
	/* same-start aliases are one unit: walias is kept with f2 */
	assert_true(BIT_TEST(p.ks, i_wa));
	assert_int_equal(symindex_find(&idx, a), symindex_find(&idx, start_of("z1", NULL)));
	symindex_close(&idx);
}

static void test_overlap_means_full_table(void **state)
{
	struct symidx idx;
	struct plan p;
	uint64_t a = start_of("inner_label", NULL) + 4;   /* inside outer and inner_label */
	uint64_t b = start_of("outer", NULL) + 2;         /* before the label: outer only */

	(void)state;
	assert_int_equal(symindex_open(&src, &idx), 0);
	plan_for(&idx, &b, 1, &p);
	assert_int_equal(p.ret, 0);
	/* rule 2: two symbols may contain A: perf's answer depends on tree shape */
	plan_for(&idx, &a, 1, &p);
	assert_int_equal(p.ret, 1);
	assert_non_null(strstr(p.why, "overlapping"));
	assert_int_equal(symindex_find(&idx, a), SYMIDX_NONE);
	symindex_close(&idx);
}

static void test_plt_means_full_table(void **state)
{
	struct symidx idx;
	struct plan p;
	uint64_t a;

	(void)state;
	assert_true(lay.nplt >= 1);
	a = lay.plt_lo[0] + 4;
	assert_int_equal(symindex_open(&src, &idx), 0);
	plan_for(&idx, &a, 1, &p);
	/* rule 2: PLT answers come from synthesis and _init's stretched end */
	assert_int_equal(p.ret, 1);
	assert_non_null(strstr(p.why, "PLT"));
	symindex_close(&idx);
}

/* perf synthesizes PLT symbols only if elf_getdata(.rela.plt) succeeds, and
 * libelf refuses a section that does not fit in the file: a layout built
 * for a file too short for .rela.plt must not model PLT symbols. */
static void test_plt_rel_past_eof(void **state)
{
	struct symidx_layout l;
	struct stat st;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh, rel = { 0 };
	size_t shstrndx;

	(void)state;
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(symindex_layout(ops, elf, (uint64_t)st.st_size, &l), 0);
	assert_int_equal(l.plt_ok, 1);
	assert_int_equal(l.nplt_rel, lay.nplt_rel);
	assert_true(l.nplt_rel >= 1);
	assert_int_equal(ops->elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = ops->elf_nextscn(elf, scn)) != NULL)
		if (ops->gelf_getshdr(scn, &sh) && !strcmp(ops->elf_strptr(elf, shstrndx, sh.sh_name), ".rela.plt"))
			rel = sh;
	assert_true(rel.sh_size > 0);
	/* one byte short of the end of .rela.plt: no PLT symbols */
	assert_int_equal(symindex_layout(ops, elf, rel.sh_offset + rel.sh_size - 1, &l), 0);
	assert_int_equal(l.plt_ok, 0);
	/* exactly enough: PLT symbols again */
	assert_int_equal(symindex_layout(ops, elf, rel.sh_offset + rel.sh_size, &l), 0);
	assert_int_equal(l.plt_ok, 1);
}

static void test_no_answer_keeps_one(void **state)
{
	struct symidx idx;
	struct plan p;
	uint64_t a = 0x7fffffffull;

	(void)state;
	assert_int_equal(symindex_open(&src, &idx), 0);
	plan_for(&idx, &a, 1, &p);
	/* rule 4: nothing answers A, but one group is kept so PLT synthesis runs */
	assert_int_equal(p.ret, 0);
	assert_true(p.groups >= 1);
	assert_true(nbits(p.ks, sizeof(p.ks)) + nbits(p.kd, sizeof(p.kd)) >= 1);
	symindex_close(&idx);
}

static void test_cache_roundtrip_and_corruption(void **state)
{
	char cdir[128], cmd[256];
	struct symidx a, b, c;
	int dfd;
	uint64_t addr = start_of("f1", NULL) + 1;

	(void)state;
	snprintf(cdir, sizeof(cdir), "%s/cache", dir);
	mkdir(cdir, 0700);
	dfd = open(cdir, O_RDONLY | O_DIRECTORY);
	src.cache_dirfd = dfd;
	assert_int_equal(symindex_open(&src, &a), 0);
	assert_int_equal(a.from_cache, 0);
	assert_int_equal(symindex_open(&src, &b), 0);
	assert_int_equal(b.from_cache, 1);              /* second run maps the file */
	assert_int_equal(b.ngroups, a.ngroups);
	assert_int_equal(symindex_find(&b, addr), symindex_find(&a, addr));
	symindex_close(&a);
	symindex_close(&b);
	/* flip one payload byte: checksum mismatch -> ignored and rebuilt */
	snprintf(cmd, sizeof(cmd),
		 "f=$(ls %s/*.idx); printf '\\377' | dd of=$f bs=1 seek=200 conv=notrunc 2>/dev/null", cdir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(symindex_open(&src, &c), 0);
	assert_int_equal(c.from_cache, 0);
	assert_int_equal(symindex_find(&c, addr) != SYMIDX_NONE, 1);
	symindex_close(&c);
	/* truncated file -> rebuilt too */
	snprintf(cmd, sizeof(cmd), "f=$(ls %s/*.idx); truncate -s 100 $f", cdir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(symindex_open(&src, &c), 0);
	assert_int_equal(c.from_cache, 0);
	symindex_close(&c);
	src.cache_dirfd = -1;
	close(dfd);
}

static void test_sort(void **state)
{
	struct symidx_entry e[1000];
	unsigned i;

	(void)state;
	for (i = 0; i < 1000; i++) {
		e[i].start = (i * 7919u) % 613u;
		e[i].table = i & 1;
		e[i].idx = 1000 - i;
		e[i].size = 0;
	}
	symindex_sort(e, 1000);
	for (i = 1; i < 1000; i++) {
		assert_true(e[i - 1].start <= e[i].start);
		if (e[i - 1].start == e[i].start && e[i - 1].table == e[i].table)
			assert_true(e[i - 1].idx < e[i].idx);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_answer_group_only),
		cmocka_unit_test(test_zero_size_keeps_successor),
		cmocka_unit_test(test_overlap_means_full_table),
		cmocka_unit_test(test_plt_means_full_table),
		cmocka_unit_test(test_plt_rel_past_eof),
		cmocka_unit_test(test_no_answer_keeps_one),
		cmocka_unit_test(test_cache_roundtrip_and_corruption),
		cmocka_unit_test(test_sort),
	};
	return cmocka_run_group_tests_name("symindex", tests, setup, teardown);
}
