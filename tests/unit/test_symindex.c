/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the lazy keep-set (index/symindex.c) on a real shared object
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
#include "core/models.h"
#include "index/format.h"
#include "index/symindex.h"
#include "util/reason.h"

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

		symindex_src_init(&src, ops, elf, &lay, bid, (size_t)r, &id, -1, SYMIDX_DEM_UNKNOWN,
				  &sl_model_perf61.sym);
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
	struct sl_why w;

	memset(p, 0, sizeof(*p));
	p->ret = symindex_plan(idx, &lay, NULL, a, n, p->ks, p->kd, &p->groups, &w);
	sl_why_format(&w, p->why, sizeof(p->why));      /* the text the stats print */
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

/* The cache files' checksum computed piecewise (as tree_save streams a
 * file) equals the one-call form, for every cut of the payload. */
static void test_checksum_piecewise(void **state)
{
	unsigned char buf[301];
	size_t i, a, b;

	(void)state;
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 131u + 7u);
	for (a = 0; a <= sizeof(buf); a += 7)
		for (b = a; b <= sizeof(buf); b += 13) {
			struct symidx_cks c;

			symidx_cks_init(&c);
			symidx_cks_update(&c, buf, a);
			symidx_cks_update(&c, buf + a, b - a);
			symidx_cks_update(&c, buf + b, sizeof(buf) - b);
			assert_true(symidx_cks_final(&c) == symindex_checksum(buf, sizeof(buf)));
		}
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

/* ---- the replay of perf's full tree ------------------------------------ */

struct dso {
	int fd;
	Elf *elf;
	struct symidx_layout lay;
	struct symidx_src src;
	unsigned char bid[20];
};

/* the model dso_open() gives the source (check_replay under 6.1 and 6.12) */
static const struct sl_tool_model *replay_model = &sl_model_perf61;

static int dso_open(struct dso *d, const char *path)
{
	int r;

	memset(d, 0, sizeof(*d));
	d->fd = open(path, O_RDONLY);
	if (d->fd < 0)
		return -1;
	d->elf = ops->elf_begin(d->fd, ELF_C_READ_MMAP, NULL);
	if (!d->elf || symindex_layout(ops, d->elf, 0, &d->lay) < 0)
		return -1;
	{
		struct sl_file_id id = { .dev = 1, .ino = 7, .valid = 1 };

		r = elf_read_build_id(ops, d->elf, d->bid, sizeof(d->bid));
		symindex_src_init(&d->src, ops, d->elf, &d->lay, d->bid, r > 0 ? (size_t)r : 0, &id, -1,
				  SYMIDX_DEM_NOOPTS, &replay_model->sym);
	}
	return 0;
}

static void dso_close(struct dso *d)
{
	ops->elf_end(d->elf);
	close(d->fd);
}

/* Addresses around every group (start, inside, last byte, end, past the
 * end) and in every PLT entry: where the tree's shape can matter. */
static uint64_t *probe_addrs(const struct symidx *idx, const struct symidx_layout *l, size_t *n)
{
	size_t cap = (size_t)idx->ngroups * 5 + (l->plt_ok ? (size_t)l->nplt_rel * 2 : 0) + 1, m = 0, i, k;
	uint64_t *a = malloc(cap * sizeof(*a));

	for (i = 0; i < idx->ngroups; i++) {
		const struct symidx_group *G = &idx->groups[i];

		a[m++] = G->start;
		a[m++] = G->start + 1;
		a[m++] = G->min_end > G->start ? G->min_end - 1 : G->start;
		a[m++] = G->max_end;
		a[m++] = G->max_end + 3;
	}
	for (i = 0; l->plt_ok && i < l->nplt_rel; i++) {
		a[m++] = l->plt_first + i * l->plt_entsize;
		a[m++] = l->plt_first + i * l->plt_entsize + 6;
	}
	for (i = 1; i < m; i++)         /* insertion sort is plenty here */
		for (k = i; k > 0 && a[k - 1] > a[k]; k--) {
			uint64_t t = a[k];

			a[k] = a[k - 1]; a[k - 1] = t;
		}
	for (i = 0, k = 0; i < m; i++)
		if (!k || a[k - 1] != a[i])
			a[k++] = a[i];
	*n = k;
	return a;
}

/* The deferred replay (and its cached tree) answers every probe like the
 * replay that makes each duplicate choice when perf makes it. */
static void check_replay(const char *path, const char *cachedir)
{
	struct dso d;
	struct symidx idx;
	uint64_t *a, *ref, *refs, *got, *gots;
	size_t n, i;
	int rr, rg, dfd = -1, pass;

	assert_int_equal(dso_open(&d, path), 0);
	assert_int_equal(symindex_open(&d.src, &idx), 0);
	if (idx.unmodelable) {
		symindex_close(&idx);
		dso_close(&d);
		return;
	}
	/* the one-pass build's radix sort: (start, table, index) order */
	for (i = 1; i < idx.nentries; i++) {
		const struct symidx_entry *p = &idx.entries[i - 1], *q = &idx.entries[i];

		assert_true(p->start < q->start || (p->start == q->start &&
			    (p->table < q->table || (p->table == q->table && p->idx < q->idx))));
	}
	a = probe_addrs(&idx, &d.lay, &n);
	ref = malloc(n * 8); refs = malloc(n * 8); got = malloc(n * 8); gots = malloc(n * 8);
	symindex_debug_eager(1);
	rr = symindex_replay_ids(&idx, &d.src, &d.lay, a, n, ref, refs);
	symindex_debug_eager(0);
	if (cachedir) {
		dfd = open(cachedir, O_RDONLY | O_DIRECTORY);
		assert_true(dfd >= 0);
	}
	for (pass = 0; pass < (cachedir ? 2 : 1); pass++) {   /* replayed, then from the file */
		d.src.cache_dirfd = dfd;
		rg = symindex_replay_ids(&idx, &d.src, &d.lay, a, n, got, gots);
		d.src.cache_dirfd = -1;
		/* deferral can only spare the eager replay's uncertainty */
		assert_true(rg == 0 || rr != 0);
		if (rr == 0) {
			assert_int_equal(rg, 0);
			for (i = 0; i < n; i++) {
				if (got[i] != ref[i] || gots[i] != refs[i])
					fail_msg("%s: %#llx answered %#llx (start %#llx), eager replay %#llx (start %#llx)",
						 path, (unsigned long long)a[i], (unsigned long long)got[i],
						 (unsigned long long)gots[i], (unsigned long long)ref[i],
						 (unsigned long long)refs[i]);
			}
		}
	}
	if (dfd >= 0)
		close(dfd);
	free(a); free(ref); free(refs); free(got); free(gots);
	symindex_close(&idx);
	dso_close(&d);
}

/*
 * A library made of duplicate choices: 3000 functions, each with 0-3
 * aliases at its start - C1/C2 constructor pairs, names that differ in
 * leading underscores or length, weak and global, equal and different
 * sizes, zero-size labels - exported (.dynsym copies) and calling through
 * the PLT.
 */
static void make_alias_lib_kinds(const char *sfile, const char *out, unsigned kinds);

static void make_alias_lib(const char *sfile, const char *out)
{
	make_alias_lib_kinds(sfile, out, 6);
}

/* ... with @kinds 7: also sized NOTYPE labels (weak or global) beside the
 * functions, for perf 7.x's NOTYPE rule of choose_best_symbol. */
static void make_alias_lib_kinds(const char *sfile, const char *out, unsigned kinds)
{
	FILE *f = fopen(sfile, "w");
	unsigned seed = 4242, i, k;
	char cmd[512];

	assert_non_null(f);
	fputs("\t.text\n", f);
	for (i = 0; i < 3000; i++) {
		unsigned na = (unsigned)rand_r(&seed) % 4, size = 16 + 16 * ((unsigned)rand_r(&seed) % 4);

		fprintf(f, "\t.globl _ZN3C%uC1Ev\n\t.type _ZN3C%uC1Ev,@function\n_ZN3C%uC1Ev:\n", i, i, i);
		for (k = 0; k < na; k++) {
			unsigned kind = (unsigned)rand_r(&seed) % kinds;
			const char *bind = rand_r(&seed) % 4 == 0 ? "weak" : "globl";

			switch (kind) {
			case 0: fprintf(f, "\t.%s _ZN3C%uC2Ev\n\t.type _ZN3C%uC2Ev,@function\n_ZN3C%uC2Ev:\n"
					"\t.size _ZN3C%uC2Ev,%u\n", bind, i, i, i, i, size); break;
			case 1: fprintf(f, "\t.%s __a%u_%u\n\t.type __a%u_%u,@function\n__a%u_%u:\n\t.size __a%u_%u,%u\n",
					bind, i, k, i, k, i, k, i, k, size); break;
			case 2: fprintf(f, "\t.%s _ZN2ns%uL7helper%uEv\n\t.type _ZN2ns%uL7helper%uEv,@function\n"
					"_ZN2ns%uL7helper%uEv:\n\t.size _ZN2ns%uL7helper%uEv,%u\n",
					bind, i, k, i, k, i, k, i, k, size); break;
			case 3: fprintf(f, "\t.%s _ZN3C%uD2Ev\n\t.type _ZN3C%uD2Ev,@function\n_ZN3C%uD2Ev:\n"
					"\t.size _ZN3C%uD2Ev,%u\n", bind, i, i, i, i, size + 16 * (k & 1)); break;
			case 4: fprintf(f, "\t.%s lab%u_%u\nlab%u_%u:\n", bind, i, k, i, k); break;   /* zero-size label */
			case 6: fprintf(f, "\t.%s nt%u_%u_label\nnt%u_%u_label:\n\t.size nt%u_%u_label,%u\n",
					bind, i, k, i, k, i, k, size); break;                 /* sized label */
			default: fprintf(f, "\t.%s x%u_%u_long_name\n\t.type x%u_%u_long_name,@function\n"
					 "x%u_%u_long_name:\n\t.size x%u_%u_long_name,%u\n",
					 bind, i, k, i, k, i, k, i, k, size); break;
			}
		}
		if (i % 50 == 0)
			fprintf(f, "\tcall puts@PLT\n\tcall abort@PLT\n\t.fill %u,1,0x90\n", size - 10);
		else
			fprintf(f, "\t.fill %u,1,0x90\n", size);
		fprintf(f, "\t.size _ZN3C%uC1Ev,%u\n", i, size);
	}
	fputs("\t.section .note.GNU-stack,\"\",@progbits\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -shared -Wl,--build-id -o %s %s", out, sfile);
	assert_int_equal(system(cmd), 0);
}

static void test_replay_deferred_equals_eager(void **state)
{
	char sfile[128], lib[128], cdir[128];

	(void)state;
	snprintf(sfile, sizeof(sfile), "%s/alias.s", dir);
	snprintf(lib, sizeof(lib), "%s/libalias.so", dir);
	snprintf(cdir, sizeof(cdir), "%s/tcache", dir);
	mkdir(cdir, 0700);
	make_alias_lib(sfile, lib);
	check_replay(lib, cdir);
	check_replay(sofile, NULL);
	/* real C++ tables where the host has them (not required) */
	if (access("/usr/lib/x86_64-linux-gnu/libstdc++.so.6", R_OK) == 0)
		check_replay("/usr/lib/x86_64-linux-gnu/libstdc++.so.6", cdir);
}

extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* The same under the perf 6.12 model (6.2+ PLT synthesis, IFUNC-alias
 * marking, __cxa_demangle's names), with its own cached trees. */
static void test_replay_deferred_equals_eager_612(void **state)
{
	static const struct perf612_demangler cxa_only = { .cxa = __cxa_demangle, .what = "__cxa_demangle" };
	char sfile[128], lib[128], cdir[128];

	(void)state;
	snprintf(sfile, sizeof(sfile), "%s/alias.s", dir);
	snprintf(lib, sizeof(lib), "%s/libalias.so", dir);
	snprintf(cdir, sizeof(cdir), "%s/tcache612", dir);
	mkdir(cdir, 0700);
	if (access(lib, R_OK) != 0)
		make_alias_lib(sfile, lib);
	perf612_demangler_set(&cxa_only);
	replay_model = &sl_model_perf612;
	check_replay(lib, cdir);
	check_replay(sofile, NULL);
	if (access("/usr/lib/x86_64-linux-gnu/libstdc++.so.6", R_OK) == 0)
		check_replay("/usr/lib/x86_64-linux-gnu/libstdc++.so.6", cdir);
	replay_model = &sl_model_perf61;
	perf612_demangler_set(NULL);
}

/* The same under the perf 7.2 model (NOTYPE labels lose before the binding
 * and name rules), on a library with sized NOTYPE labels among the aliases:
 * deferred choices must stay within one NOTYPE class. */
static void test_replay_deferred_equals_eager_72(void **state)
{
	static const struct perf612_demangler cxa_only = { .cxa = __cxa_demangle, .what = "__cxa_demangle" };
	char sfile[128], lib[128], cdir[128];

	(void)state;
	snprintf(sfile, sizeof(sfile), "%s/alias72.s", dir);
	snprintf(lib, sizeof(lib), "%s/libalias72.so", dir);
	snprintf(cdir, sizeof(cdir), "%s/tcache72", dir);
	mkdir(cdir, 0700);
	make_alias_lib_kinds(sfile, lib, 7);
	perf612_demangler_set(&cxa_only);
	replay_model = &sl_model_perf72;
	check_replay(lib, cdir);
	check_replay(sofile, NULL);
	if (access("/usr/lib/x86_64-linux-gnu/libstdc++.so.6", R_OK) == 0)
		check_replay("/usr/lib/x86_64-linux-gnu/libstdc++.so.6", cdir);
	replay_model = &sl_model_perf61;
	perf612_demangler_set(NULL);
}

/* A damaged or truncated tree file is ignored and rewritten; answers stay. */
/* The one *.tree file in @cdir, stat()ed. */
static int tree_stat(const char *cdir, struct stat *st)
{
	char cmd[256], path[512];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "ls %s/*.tree", cdir);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	n = fread(path, 1, sizeof(path) - 1, p);
	pclose(p);
	path[n] = '\0';
	path[strcspn(path, "\n")] = '\0';
	return stat(path, st);
}

static void test_tree_cache_corruption(void **state)
{
	char lib[128], cdir[128], cmd[512];
	struct dso d;
	struct symidx idx;
	uint64_t *a, *r0, *s0, *r1, *s1;
	size_t n, i;
	int dfd, round;

	(void)state;
	snprintf(lib, sizeof(lib), "%s/libalias.so", dir);
	snprintf(cdir, sizeof(cdir), "%s/tcache2", dir);
	mkdir(cdir, 0700);
	if (access(lib, R_OK) != 0) {
		char sfile[128];

		snprintf(sfile, sizeof(sfile), "%s/alias.s", dir);
		make_alias_lib(sfile, lib);
	}
	assert_int_equal(dso_open(&d, lib), 0);
	assert_int_equal(symindex_open(&d.src, &idx), 0);
	a = probe_addrs(&idx, &d.lay, &n);
	r0 = malloc(n * 8); s0 = malloc(n * 8); r1 = malloc(n * 8); s1 = malloc(n * 8);
	assert_int_equal(symindex_replay_ids(&idx, &d.src, &d.lay, a, n, r0, s0), 0);
	dfd = open(cdir, O_RDONLY | O_DIRECTORY);
	d.src.cache_dirfd = dfd;
	for (round = 0; round < 4; round++) {
		if (round == 1)         /* one byte of a node */
			snprintf(cmd, sizeof(cmd), "f=$(ls %s/*.tree); printf '\\377' | dd of=$f bs=1 seek=100 conv=notrunc 2>/dev/null", cdir);
		else if (round == 2)    /* cut */
			snprintf(cmd, sizeof(cmd), "f=$(ls %s/*.tree); truncate -s 1000 $f", cdir);
		else if (round == 3)    /* header only */
			snprintf(cmd, sizeof(cmd), "f=$(ls %s/*.tree); truncate -s 48 $f", cdir);
		if (round)
			assert_int_equal(system(cmd), 0);
		assert_int_equal(symindex_replay_ids(&idx, &d.src, &d.lay, a, n, r1, s1), 0);
		for (i = 0; i < n; i++) {
			assert_int_equal(r1[i], r0[i]);
			assert_int_equal(s1[i], s0[i]);
		}
		snprintf(cmd, sizeof(cmd), "test $(ls %s/*.tree | wc -l) -eq 1", cdir);
		assert_int_equal(system(cmd), 0);       /* (re)written, one file */
		if (round == 0) {
			/* the file written (streamed, checksummed as written) is
			 * the one the next call uses: not replaced */
			struct stat st0, st1;

			assert_int_equal(tree_stat(cdir, &st0), 0);
			assert_int_equal(symindex_replay_ids(&idx, &d.src, &d.lay, a, n, r1, s1), 0);
			assert_int_equal(tree_stat(cdir, &st1), 0);
			assert_true(st0.st_ino == st1.st_ino && st0.st_mtim.tv_nsec == st1.st_mtim.tv_nsec &&
				    st0.st_mtim.tv_sec == st1.st_mtim.tv_sec);
		}
	}
	d.src.cache_dirfd = -1;
	close(dfd);
	free(a); free(r0); free(s0); free(r1); free(s1);
	symindex_close(&idx);
	dso_close(&d);
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
		cmocka_unit_test(test_checksum_piecewise),
		cmocka_unit_test(test_sort),
		cmocka_unit_test(test_replay_deferred_equals_eager),
		cmocka_unit_test(test_replay_deferred_equals_eager_612),
		cmocka_unit_test(test_replay_deferred_equals_eager_72),
		cmocka_unit_test(test_tree_cache_corruption),
	};
	return cmocka_run_group_tests_name("symindex", tests, setup, teardown);
}
