/* SPDX-License-Identifier: MIT */
/* Unit tests of the libbcc model (index/bccsyms.c, core/bccplan.c), the budget
 * rules (core/budgetplan.c budget_plan_rules) and tool recognition for bcc,
 * bpftrace, uftrace and perf probe (core/tool.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "index/bccsyms.h"
#include "core/budget.h"
#include "core/budgetplan.h"
#include "core/models.h"
#include "core/tool.h"
#include "util/reason.h"

/* An index by hand: @n symbols (start, size, name) in push order, sorted as bcc sorts. */
static char namebuf[1 << 16];

static void make_index(struct sl_bcc_index *idx, const uint64_t (*s)[2], const char *const *names, size_t n)
{
	size_t off = 1;

	memset(idx, 0, sizeof(*idx));
	idx->ents = calloc(n + 1, sizeof(*idx->ents));
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);

		memcpy(namebuf + off, names[i], len + 1);
		idx->ents[i].start = s[i][0];
		idx->ents[i].size = s[i][1];
		idx->ents[i].name_off = off;
		idx->ents[i].name_len = (uint32_t)len;
		idx->ents[i].idx = (uint32_t)i + 1;
		idx->ents[i].shndx = 5;
		idx->ents[i].file = 1;
		idx->ents[i].seq = (uint32_t)i;
		off += len + 1;
	}
	idx->n = n;
	idx->map[1] = namebuf;
	idx->map_size[1] = sizeof(namebuf);
	idx->id[1].valid = 1;
	idx->id[1].ino = 42;
	idx->tabs[0].file = 1;
	idx->tabs[0].shndx = 5;
	idx->tabs[0].nsyms = (uint32_t)n + 1;
	idx->ntabs = 1;
	sl_bcc_sort(idx->ents, n);
}

static const char *answer(const struct sl_bcc_index *idx, uint64_t a)
{
	long i = sl_bcc_find(idx, a);

	return i < 0 ? NULL : sl_bcc_name(idx, (size_t)i);
}

/* bcc_syms.cc find_addr's own example: nested symbols are walked back to */
static void test_find_nested(void **state)
{
	static const uint64_t s[][2] = { { 0x10, 6 }, { 0x16, 0x10 }, { 0x18, 4 }, { 0x26, 0x10 } };
	static const char *const n[] = { "goo", "foo", "bar", "baz" };
	struct sl_bcc_index idx;

	(void)state;
	make_index(&idx, s, n, 4);
	assert_string_equal(answer(&idx, 0x22), "foo");     /* past bar, inside foo */
	assert_string_equal(answer(&idx, 0x19), "bar");
	assert_string_equal(answer(&idx, 0x16), "foo");
	assert_string_equal(answer(&idx, 0x15), "goo");
	assert_null(answer(&idx, 0x0f));                    /* before everything */
	assert_null(answer(&idx, 0x36));                    /* past baz */
	free(idx.ents);
}

/* zero-size symbols never answer; the walk stops at a symbol ending before the nearest start */
static void test_find_zero_and_stop(void **state)
{
	static const uint64_t s[][2] = { { 0x100, 0x100 }, { 0x180, 0 }, { 0x190, 8 } };
	static const char *const n[] = { "outer", "label", "inner" };
	struct sl_bcc_index idx;

	(void)state;
	make_index(&idx, s, n, 3);
	assert_string_equal(answer(&idx, 0x180), "outer");  /* label has no size */
	assert_string_equal(answer(&idx, 0x194), "inner");
	/* 0x1a0: inner does not hold it and ends after the limit (its own start),
	 * the walk goes on to the label, which ends before the limit: bcc stops
	 * there and never reaches outer (find_addr's `limit > start + size`) */
	assert_null(answer(&idx, 0x1a0));
	/* without the label, the walk reaches outer */
	{
		static const uint64_t s2[][2] = { { 0x100, 0x100 }, { 0x190, 8 } };
		static const char *const n2[] = { "outer", "inner" };
		struct sl_bcc_index i2;

		make_index(&i2, s2, n2, 2);
		assert_string_equal(answer(&i2, 0x1a0), "outer");
		free(i2.ents);
	}
	free(idx.ents);
}

/* The budget plan never lets a kept symbol answer where the full vector
 * answers otherwise: nested symbols, an ICF group (same start and size). */
static void test_plan_budget_honest(void **state)
{
	enum { N = 40 };
	uint64_t s[N][2];
	const char *names[N];
	char nb[N][32];
	struct sl_bcc_index idx, red;
	struct sl_bcc_plan plan;
	struct budget b;
	size_t k, i;

	(void)state;
	for (i = 0; i < N; i++) {
		snprintf(nb[i], sizeof(nb[i]), "f%02zu", i);
		names[i] = nb[i];
		s[i][0] = 0x1000 + 0x40 * (i / 2);  /* pairs */
		s[i][1] = 0x40;
	}
	/* 0..9: one ICF group (same start, same size); 10: an outer symbol over 11..13 */
	for (i = 0; i < 10; i++) {
		s[i][0] = 0x900;
		s[i][1] = 0x20;
	}
	s[10][0] = 0x2000; s[10][1] = 0x400;
	s[11][0] = 0x2040; s[11][1] = 0x10;
	s[12][0] = 0x2080; s[12][1] = 0x10;
	s[13][0] = 0x2100; s[13][1] = 0x10;
	make_index(&idx, (const uint64_t (*)[2])s, names, N);
	for (uint64_t cap = 0; cap <= N * 112; cap += 112 * 3) {
		budget_init(&b, cap ? cap : 1);
		assert_int_equal(sl_bcc_plan_budget(&idx, &b, &sl_model_bcc026_lazy.sym, &plan), 0);
		/* the reduced vector bcc would build: kept entries in push order */
		red = idx;
		red.ents = calloc(N, sizeof(*red.ents));
		for (k = 0, i = 0; i < N; i++) {
			for (size_t j = 0; j < N; j++) {
				const struct sl_bcc_ent *e = &idx.ents[j];

				if (e->seq == i && (plan.t[0].keep[e->idx >> 3] >> (e->idx & 7) & 1))
					red.ents[k++] = *e;
			}
		}
		red.n = k;
		sl_bcc_sort(red.ents, k);
		for (uint64_t a = 0x800; a < 0x2600; a++) {
			const char *r = answer(&red, a), *f = answer(&idx, a);

			if (r)
				assert_true(f && !strcmp(r, f));
		}
		assert_true(plan.passed <= cap / 112);
		free(red.ents);
		sl_bcc_plan_free(&plan);
	}
	free(idx.ents);
}

/* SYMLAZY_ADDRS keep-set: the answers at the listed addresses are bcc's */
static void test_plan_addrs_exact(void **state)
{
	enum { N = 300 };
	uint64_t s[N][2], want[8] = { 0x900, 0x90f, 0x2000, 0x2045, 0x3000, 0x3010, 0x5000, 0x7ff };
	const char *names[N];
	char nb[N][32];
	struct sl_bcc_index idx, red;
	struct sl_bcc_plan plan;
	struct sl_why why;
	size_t k, i;

	(void)state;
	for (i = 0; i < N; i++) {
		snprintf(nb[i], sizeof(nb[i]), "g%03zu", i);
		names[i] = nb[i];
		s[i][0] = i < 120 ? 0x900 : 0x2000 + 0x40 * i;   /* 120-symbol ICF group */
		s[i][1] = i < 120 ? 0x20 : 0x40;
	}
	make_index(&idx, (const uint64_t (*)[2])s, names, N);
	assert_int_equal(sl_bcc_plan_addrs(&idx, want, 8, &plan, &why), 0);
	red = idx;
	red.ents = calloc(N, sizeof(*red.ents));
	for (k = 0, i = 0; i < N; i++)
		for (size_t j = 0; j < N; j++)
			if (idx.ents[j].seq == i && (plan.t[0].keep[idx.ents[j].idx >> 3] >> (idx.ents[j].idx & 7) & 1))
				red.ents[k++] = idx.ents[j];
	red.n = k;
	sl_bcc_sort(red.ents, k);
	assert_true(k < 10);
	for (i = 0; i < 8; i++) {
		const char *r = answer(&red, want[i]), *f = answer(&idx, want[i]);

		assert_true((!r && !f) || (r && f && !strcmp(r, f)));
	}
	free(red.ents);
	sl_bcc_plan_free(&plan);
	free(idx.ents);
}

/* /proc/PID/maps as bcc reads it: executable file mappings in order, one
 * module per name, ranges appended; a line without all 8 fields ends it. */
static void test_maps_parse(void **state)
{
	char dir[] = "/tmp/symlazy-bccXXXXXX", p[512], exe[512];
	struct sl_bcc_registry r;
	struct sl_bcc_proc proc;
	ssize_t n;
	const char *maps =
		"00400000-00401000 r--p 00000000 fe:00 1 /bin/prog\n"
		"00401000-00402000 r-xp 00001000 fe:00 1 /bin/prog\n"
		"7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n"
		"7f0000001000-7f0000002000 r-xp 00000000 00:00 0 [vdso]\n"
		"7f0000002000-7f0000003000 r-xp 00000000 00:00 0 \n"
		"7f0000003000-7f0000004000 r-xp 00002000 fe:00 1 /bin/prog\n"
		"7f0000004000-7f0000005000 r-xp 00000000 00:00 0 [heap]\n"
		"garbage\n"
		"7f0000005000-7f0000006000 r-xp 00000000 fe:00 2 /bin/other\n";

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "mkdir -p %s/7/root/bin && cp /proc/%d/exe %s/7/root/bin/prog", dir, getpid(), dir);
	assert_int_equal(system(p), 0);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	sl_bcc_registry_init(&r, elfops_direct(), NULL);
	memset(&proc, 0, sizeof(proc));
	proc.pid = 7;
	assert_int_equal(sl_bcc_proc_parse_maps(&proc, &r, maps, dir), 0);
	assert_int_equal(proc.nmods, 2);
	assert_string_equal(proc.mods[0].name, "/bin/prog");
	assert_int_equal(proc.mods[0].nr, 2);                 /* two executable ranges */
	assert_int_equal(proc.mods[0].r[1].file_offset, 0x2000);
	assert_int_equal(proc.mods[0].kind, SL_BCC_MOD_SO);   /* the test binary is a PIE */
	assert_string_equal(proc.mods[1].name, "[vdso]");
	assert_int_equal(proc.mods[1].kind, SL_BCC_MOD_DELEGATE);
	sl_bcc_proc_free(&proc);
	snprintf(p, sizeof(p), "rm -rf %s", dir);
	assert_int_equal(system(p), 0);
}

/* budget rules */
static const struct bp_sym rtab[] = {
	{ 0, 0, 0, 0, NULL },
	{ 0x100, 0x10, 10, 1, NULL },   /* 1 */
	{ 0x200, 0x10, 10, 1, NULL },   /* 2 */
	{ 0x110, 0x10, 10, 1, NULL },   /* 3 */
	{ 0x100, 0x100, 10, 1, NULL },  /* 4: overlaps 1 and 3 */
	{ 0x300, 0x10, 10, 1, NULL },   /* 5 */
};

static int rget(void *ctx, uint32_t i, struct bp_sym *out)
{
	(void)ctx;
	*out = rtab[i];
	return 0;
}

static void test_rules_overlap(void **state)
{
	struct budget b;
	struct budget_plan p;

	(void)state;
	budget_init(&b, 30);                        /* admits 1, 2, 3 */
	assert_int_equal(budget_plan_rules(&b, 6, rget, NULL, SL_BR_OVERLAP, &p), 0);
	/* 4 is dropped and overlaps 1 and 3: those go too; 2 stays */
	assert_true(budget_plan_dropped(&p, 1));
	assert_true(budget_plan_dropped(&p, 3));
	assert_true(budget_plan_dropped(&p, 4));
	assert_false(budget_plan_dropped(&p, 2));
	assert_true(budget_plan_dropped(&p, 5));
	assert_int_equal(p.passed, 1);
	assert_int_equal(p.charged, 30);            /* strict: admitted bytes stay charged */
	budget_plan_free(&p);
}

static void test_rules_suffix(void **state)
{
	struct budget b;
	struct budget_plan p;

	(void)state;
	budget_init(&b, 20);                        /* two symbols, from the top address */
	assert_int_equal(budget_plan_rules(&b, 6, rget, NULL, SL_BR_NEXT_STRETCH, &p), 0);
	assert_false(budget_plan_dropped(&p, 5));   /* 0x300 */
	assert_false(budget_plan_dropped(&p, 2));   /* 0x200 */
	assert_true(budget_plan_dropped(&p, 3));
	assert_true(budget_plan_dropped(&p, 1));
	assert_true(budget_plan_dropped(&p, 4));
	budget_plan_free(&p);
	budget_init(&b, 40);                        /* the refusal splits the 0x100 group: drop it */
	assert_int_equal(budget_plan_rules(&b, 6, rget, NULL, SL_BR_NEXT_STRETCH, &p), 0);
	assert_false(budget_plan_dropped(&p, 3));
	assert_true(budget_plan_dropped(&p, 1));
	assert_true(budget_plan_dropped(&p, 4));
	budget_plan_free(&p);
}

/* uftrace's alias rule: A and B share an address, X (lower, dropped) lies
 * between them in the table: keeping A and B would make B an alias of A */
static const struct bp_sym atab[] = {
	{ 0, 0, 0, 0, NULL },
	{ 0x300, 0x10, 10, 1, NULL },   /* 1 A */
	{ 0x100, 0x10, 10, 1, NULL },   /* 2 X */
	{ 0x300, 0x10, 10, 1, NULL },   /* 3 B */
	{ 0x400, 0x10, 10, 1, NULL },   /* 4 C */
};

static int aget(void *ctx, uint32_t i, struct bp_sym *out)
{
	(void)ctx;
	*out = atab[i];
	return 0;
}

/* with names: B merged under A's name either way, nothing to drop */
static const struct bp_sym ntab[] = {
	{ 0, 0, 0, 0, NULL },
	{ 0x300, 0x10, 10, 1, "alpha" },   /* 1 A */
	{ 0x100, 0x10, 10, 1, "x" },       /* 2 X */
	{ 0x300, 0x10, 10, 1, "_beta" },   /* 3 B */
	{ 0x400, 0x10, 10, 1, "gamma" },   /* 4 C */
};

static int nget(void *ctx, uint32_t i, struct bp_sym *out)
{
	(void)ctx;
	*out = ntab[i];
	return 0;
}

static void test_rules_suffix_aliases(void **state)
{
	struct budget b;
	struct budget_plan p;

	(void)state;
	budget_init(&b, 30);                        /* C, A, B fit; X does not */
	assert_int_equal(budget_plan_rules(&b, 5, aget, NULL, SL_BR_NEXT_STRETCH, &p), 0);
	assert_false(budget_plan_dropped(&p, 4));
	assert_true(budget_plan_dropped(&p, 1));
	assert_true(budget_plan_dropped(&p, 3));
	assert_true(budget_plan_dropped(&p, 2));
	assert_int_equal(p.honest_drops, 2);
	budget_plan_free(&p);
	budget_init(&b, 30);
	assert_int_equal(budget_plan_rules(&b, 5, nget, NULL, SL_BR_NEXT_STRETCH, &p), 0);
	assert_false(budget_plan_dropped(&p, 1));   /* "alpha" wins with or without B */
	assert_false(budget_plan_dropped(&p, 3));
	assert_true(budget_plan_dropped(&p, 2));
	budget_plan_free(&p);
}

#define ARGV(...) ((char *const[]){ __VA_ARGS__ })
#define NARGS(...) ((int)(sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *)))

static void test_tools(void **state)
{
	(void)state;
	assert_int_equal(sl_tool_from_exe("/usr/bin/bpftrace"), SL_TOOL_BPFTRACE);
	assert_int_equal(sl_tool_from_exe("/usr/bin/uftrace"), SL_TOOL_UFTRACE);
	assert_int_equal(sl_tool_from_exe("/usr/bin/eu-nm"), SL_TOOL_LISTER);
	assert_int_equal(sl_tool_from_exe("bpftrace2"), SL_TOOL_OTHER);
	assert_int_equal(sl_tool_from_exe("/opt/uftrace.sh"), SL_TOOL_OTHER);
	assert_ptr_equal(sl_charge_model(SL_TOOL_PERF, NARGS("perf", "probe", "-F"), ARGV("perf", "probe", "-F")),
			 &sl_model_perf61_probe);
	assert_ptr_equal(sl_charge_model(SL_TOOL_PERF, NARGS("perf", "--no-pager", "probe", "-x", "a"),
					 ARGV("perf", "--no-pager", "probe", "-x", "a")), &sl_model_perf61_probe);
	assert_ptr_equal(sl_charge_model(SL_TOOL_PERF, NARGS("perf", "script"), ARGV("perf", "script")),
			 &sl_model_perf61);
	/* this test program holds no bpftrace version literal: an unknown version */
	assert_ptr_equal(sl_charge_model(SL_TOOL_BPFTRACE, 0, NULL), &sl_model_other);
	assert_ptr_equal(sl_charge_model(SL_TOOL_UFTRACE, 0, NULL), &sl_model_uftrace013);
	assert_ptr_equal(sl_charge_model(SL_TOOL_OTHER, 0, NULL), &sl_model_other);
	/* bcc's keep rule: a name, st_value != 0, type in use_symbol_type */
	{
		GElf_Sym f = { .st_name = 1, .st_value = 0x10, .st_info = GELF_ST_INFO(STB_GLOBAL, STT_FUNC) };
		GElf_Sym o = f;

		o.st_info = GELF_ST_INFO(STB_GLOBAL, STT_OBJECT);
		assert_true(sl_model_keeps_types(&sl_model_bcc026.sym, &f, 1u << STT_FUNC));
		assert_false(sl_model_keeps_types(&sl_model_bcc026.sym, &o, 1u << STT_FUNC));
		assert_true(sl_model_keeps_types(&sl_model_bcc026.sym, &o, 0xffff));
		f.st_value = 0;
		assert_false(sl_model_keeps_types(&sl_model_bcc026.sym, &f, 0xffff));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_nested),
		cmocka_unit_test(test_find_zero_and_stop),
		cmocka_unit_test(test_plan_budget_honest),
		cmocka_unit_test(test_plan_addrs_exact),
		cmocka_unit_test(test_maps_parse),
		cmocka_unit_test(test_rules_overlap),
		cmocka_unit_test(test_rules_suffix),
		cmocka_unit_test(test_rules_suffix_aliases),
		cmocka_unit_test(test_tools),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
