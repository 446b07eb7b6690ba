/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for lazy kernel symbols and JIT maps (issue 11): the kallsyms
 * and perf-map record parsers, the text-source classifier, and the filters
 * against a reference: perf 6.1's load replayed step by step on the Linux
 * rb-tree replica (index/rbsim.c) - every record inserted in file order
 * (__symbols__insert), symbols__fixup_end(is_kallsyms), symbols__fixup_duplicate
 * with the whole choose_best_symbol, maps__split_kallsyms into per-module
 * trees, symbols__find - once over the whole text and once over the
 * filtered one; every lookup must get the same name, start and end. Random
 * texts include modules ("\t[mod]"), same-address aliases, unsorted module
 * sections, weak/local/global types, filtered types and odd lines.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "textsrc/kallsyms.h"
#include "perfdata/kernel.h"
#include "textsrc/perfmap.h"
#include "index/rbsim.h"
#include "textsrc/textsrc.h"

/* ------------------------------------------------------------ reference */

struct rsym {
	uint64_t start, end;
	char name[KS_NAME_MAX + 1];
	char type;
	int alive;
};

struct ref {
	struct rsym *s;
	struct rbs_node *n;
	struct rbs_val *v;           /* rbsim.h: ends and ids beside the walked nodes */
	size_t ns;
	struct rbs all, kern, mods[8];
	int64_t delta;
	int ok;                      /* the ref reloc symbol was found */
};

static int binding(char t)      /* kallsyms2elf_binding */
{
	if (t == 'W')
		return 2;
	return isupper((unsigned char)t) ? 1 : 0;
}

static int underscores(const char *n)
{
	int c = 0;

	while (n[c] == '_')
		c++;
	return c;
}

/* choose_best_symbol: 0 keep a, 1 keep b */
static int choose(const struct rsym *a, const struct rsym *b)
{
	int64_t la = (int64_t)(a->end - a->start), lb = (int64_t)(b->end - b->start);
	int wa = binding(a->type) == 2, wb = binding(b->type) == 2;
	int ga = binding(a->type) == 1, gb = binding(b->type) == 1;
	size_t na, nb;

	if (lb == 0 && la > 0)
		return 0;
	if (la == 0 && lb > 0)
		return 1;
	if (wb && !wa)
		return 0;
	if (wa && !wb)
		return 1;
	if (ga && !gb)
		return 0;
	if (gb && !ga)
		return 1;
	if (underscores(b->name) > underscores(a->name))
		return 0;
	if (underscores(a->name) > underscores(b->name))
		return 1;
	na = strlen(a->name);
	nb = strlen(b->name);
	if (na > nb)
		return 0;
	if (na < nb)
		return 1;
	if (na >= 3 && !strncmp(a->name, "SyS", 3))
		return 1;
	if (na >= 10 && !strncmp(a->name, "compat_SyS", 10))
		return 1;
	return 0;
}

static void ref_load(struct ref *r, const char *buf, size_t len, const struct ks_facts *f)
{
	size_t off = 0, cap = 1024;
	uint32_t x, nx;
	int curr = -1;
	uint64_t count = 0;

	memset(r, 0, sizeof(*r));
	r->s = calloc(cap + 1, sizeof(*r->s));
	r->n = calloc(cap + 1, sizeof(*r->n));
	r->v = calloc(cap + 1, sizeof(*r->v));
	r->all.n = r->kern.n = r->n;
	r->all.v = r->kern.v = r->v;
	for (unsigned i = 0; i < 8; i++) {
		r->mods[i].n = r->n;
		r->mods[i].v = r->v;
	}
	while (off < len) {
		struct ks_rec k;
		size_t l = ks_parse_rec(buf, len, off, &k);
		char name[KS_NAME_MAX + 1], t;

		off += l;
		if (!k.sym)
			continue;
		memcpy(name, k.name, k.namelen);
		name[k.namelen] = '\0';
		t = (char)toupper((unsigned char)k.type);
		if (!r->ok && f->ref_name[0] && (t == 'T' || t == 'W' || k.type == 'A') &&
		    !strcmp(name, f->ref_name)) {
			r->ok = 1;
			r->delta = (int64_t)(k.start - f->kpgoff);
		}
		if (!(t == 'T' || t == 'W' || t == 'D' || t == 'B') || name[0] == '$')
			continue;
		if (r->ns + 1 >= cap) {
			cap *= 2;
			r->s = realloc(r->s, (cap + 1) * sizeof(*r->s));
			r->n = realloc(r->n, (cap + 1) * sizeof(*r->n));
			r->v = realloc(r->v, (cap + 1) * sizeof(*r->v));
			r->all.n = r->kern.n = r->n;
			r->all.v = r->kern.v = r->v;
			for (unsigned i = 0; i < 8; i++) {
				r->mods[i].n = r->n;
				r->mods[i].v = r->v;
			}
		}
		x = (uint32_t)++r->ns;
		memset(&r->n[x], 0, sizeof(r->n[x]));
		memset(&r->v[x], 0, sizeof(r->v[x]));
		memset(&r->s[x], 0, sizeof(r->s[x]));
		r->s[x].start = r->s[x].end = k.start;
		strcpy(r->s[x].name, name);
		r->s[x].type = k.type;
		r->s[x].alive = 1;
		r->n[x].start = r->v[x].end = k.start;
		r->v[x].id = x;
		rbs_insert(&r->all, x);
	}
	if (!f->ref_name[0])
		r->ok = 1;
	/* symbols__fixup_end(true) */
	x = rbs_first(&r->all);
	if (x) {
		uint32_t c = x;

		for (nx = rbs_next(&r->all, c); nx; nx = rbs_next(&r->all, nx)) {
			struct rsym *p = &r->s[c], *q = &r->s[nx];

			if (p->end == p->start)
				p->end = (!strchr(p->name, '[') != !strchr(q->name, '[')) ?
					 (p->end + 4096 + 4095) / 4096 * 4096 : q->start;
			c = nx;
		}
		if (r->s[c].end == r->s[c].start)
			r->s[c].end = (r->s[c].start + 4095) / 4096 * 4096 + 4096;
	}
	/* symbols__fixup_duplicate */
	x = rbs_first(&r->all);
	while (x) {
		uint32_t c = x;
again:
		nx = rbs_next(&r->all, c);
		if (!nx)
			break;
		if (r->s[c].start != r->s[nx].start) {
			x = nx;
			continue;
		}
		if (choose(&r->s[c], &r->s[nx]) == 0) {
			rbs_erase(&r->all, nx);
			r->s[nx].alive = 0;
			goto again;
		}
		x = rbs_next(&r->all, c);
		rbs_erase(&r->all, c);
		r->s[c].alive = 0;
	}
	/* maps__split_kallsyms into fresh trees (reusing the nodes) */
	{
		uint32_t order[4096 * 8], no = 0, i;

		for (x = rbs_first(&r->all); x && no < sizeof(order) / sizeof(order[0]); x = rbs_next(&r->all, x))
			order[no++] = x;
		for (i = 0; i < no; i++) {
			struct rsym *s = &r->s[order[i]];
			char *tab = strchr(s->name, '\t');

			x = order[i];
			memset(&r->n[x], 0, sizeof(r->n[x]));
		memset(&r->v[x], 0, sizeof(r->v[x]));
			r->v[x].id = x;
			if (tab) {
				int m = -1;

				*tab = '\0';
				for (size_t j = 0; j < f->nr_mods; j++)
					if (!strcmp(f->mods[j].name, tab + 1))
						m = (int)j;
				if (m < 0) {
					curr = -1;
					continue;
				}
				curr = m;
				r->n[x].start = s->start;  /* relative = absolute - map start */
				r->v[x].end = s->end;
				rbs_insert(&r->mods[m], x);
			} else if (!strcmp(s->name, "__entry_SYSCALL_64_trampoline")) {
				continue;
			} else {
				if (curr != -1 && count)
					fail_msg("reference: kernel symbol after module symbols");
				curr = -1;
				count++;
				s->start -= (uint64_t)r->delta;
				s->end -= (uint64_t)r->delta;
				r->n[x].start = s->start;
				r->v[x].end = s->end;
				rbs_insert(&r->kern, x);
			}
		}
	}
}

static void ref_free(struct ref *r)
{
	free(r->s);
	free(r->n);
	free(r->v);
}

/* "name start end" perf finds for @ip in the kernel tree and each module's */
static void ref_answer(const struct ref *r, const struct ks_facts *f, uint64_t ip, char *out, size_t n)
{
	uint32_t x = r->ok ? rbs_find(&r->kern, ip) : 0;
	int o = snprintf(out, n, "k:%s %llx %llx", x ? r->s[x].name : "-",
			 x ? (unsigned long long)r->s[x].start : 0ull, x ? (unsigned long long)r->s[x].end : 0ull);

	for (size_t j = 0; j < f->nr_mods && o > 0 && (size_t)o < n; j++) {
		if (ip < f->mods[j].start || ip >= f->mods[j].end)
			continue;
		x = rbs_find(&r->mods[j], ip);
		o += snprintf(out + o, n - (size_t)o, " m%zu:%s %llx", j, x ? r->s[x].name : "-",
			      x ? (unsigned long long)r->s[x].end : 0ull);
	}
}

/* ------------------------------------------------------------- generator */

static char *gen(unsigned *seed, size_t nsyms, int mods, size_t *len)
{
	size_t cap = nsyms * 64 + 4096, o = 0, i;
	char *b = malloc(cap);
	uint64_t a = 0xffffffff81000000ull;
	static const char types[] = "TTTTtttWwDdBbRrAVU";

	o += (size_t)sprintf(b + o, "%016llx T _text\n", (unsigned long long)a);
	for (i = 0; i < nsyms; i++) {
		unsigned r = (unsigned)rand_r(seed);
		char t = types[r % (sizeof(types) - 1)];

		if (r % 5)               /* 1 in 5 is an alias of the previous */
			a += 1 + (unsigned)rand_r(seed) % 700;
		if (r % 211 == 0)        /* some odd lines */
			o += (size_t)sprintf(b + o, "%s", (r / 211) % 2 ? "\n" : "zz odd\n");
		o += (size_t)sprintf(b + o, "%016llx %c %s%s_%zu\n", (unsigned long long)a, t,
				     r % 13 == 0 ? "__" : "", r % 17 == 0 ? "SyS_x" : "f", i);
	}
	if (mods) {
		/* modules at high addresses, in an unsorted order, one unknown */
		static const char *mn[] = { "[ext4]", "[snd_hda]", "[bpf]" };
		uint64_t base[3] = { 0xffffffffc0200000ull, 0xffffffffc0000000ull, 0xffffffffc0400000ull };

		for (int m = 0; m < 3; m++) {
			uint64_t ma = base[m];

			for (i = 0; i < nsyms / 10; i++) {
				unsigned r = (unsigned)rand_r(seed);

				if (r % 4)
					ma += 1 + (unsigned)rand_r(seed) % 500;
				o += (size_t)sprintf(b + o, "%016llx %c m%d_%zu\t%s\n", (unsigned long long)ma,
						     "tTdb"[r % 4], m, i, mn[m]);
			}
		}
	}
	*len = o;
	return b;
}

static void check_same(const char *buf, size_t len, const struct ks_facts *f, int expect_filtered)
{
	struct ks_result res;
	struct ref full, red;
	char x[512], y[512];
	size_t found = 0, mfound = 0;

	assert_int_equal(ks_filter(buf, len, f, 0, &res), 0);
	if (expect_filtered)
		assert_int_equal(res.mode, KS_FILTERED);
	if (res.mode != KS_FILTERED)
		return;
	assert_true(res.kept <= res.records);
	ref_load(&full, buf, len, f);
	ref_load(&red, res.out, res.out_len, f);
	assert_int_equal(full.ok, red.ok);
	assert_true(res.kept < res.records / 4);
	for (size_t i = 0; i < f->nr_addrs; i++) {
		ref_answer(&full, f, f->addrs[i], x, sizeof(x));
		ref_answer(&red, f, f->addrs[i], y, sizeof(y));
		found += strncmp(x, "k:- ", 4) != 0;
		mfound += strstr(x, " m0:m") || strstr(x, " m1:m");
		if (strcmp(x, y))
			fail_msg("ip %#llx: full \"%s\", filtered \"%s\"", (unsigned long long)f->addrs[i], x, y);
	}
	assert_true(found > f->nr_addrs / 3);          /* the answers are real symbols */
	if (f->nr_mods)
		assert_true(mfound > 0);
	/* map__fixup_start / map__fixup_end */
	{
		uint32_t a = rbs_first(&full.kern), b = rbs_first(&red.kern);

		assert_true(a && b);
		assert_true(full.s[a].start == red.s[b].start);
	}
	ref_free(&full);
	ref_free(&red);
	ks_free(&res);
}

static int cmp64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void random_case(unsigned seed, int mods, int nlook, int64_t reloc)
{
	size_t len, n;
	char *buf = gen(&seed, 4000, mods, &len);
	uint64_t *a = malloc(sizeof(*a) * (size_t)nlook);
	struct ks_module m[2] = { { "[ext4]", 0xffffffffc0200000ull, 0xffffffffc0280000ull },
				  { "[snd_hda]", 0xffffffffc0000000ull, 0xffffffffc0090000ull } };
	struct ks_facts f;

	for (int i = 0; i < nlook; i++) {
		unsigned r = (unsigned)rand_r(&seed);

		a[i] = r % 3 == 0 && mods ? 0xffffffffc0000000ull + r % 0x300000 :
		       0xffffffff81000000ull + (uint64_t)r % (4000 * 300) - (uint64_t)reloc;
	}
	qsort(a, (size_t)nlook, sizeof(*a), cmp64);
	for (n = 0; n < (size_t)nlook; n++)
		;
	memset(&f, 0, sizeof(f));
	f.have_kmmap = 1;
	f.kstart = 0xffffffff81000000ull - (uint64_t)reloc;
	f.kend = f.kstart + 0x2000000;
	f.kpgoff = f.kstart;
	strcpy(f.ref_name, "_text");
	f.mods = m;
	f.nr_mods = mods ? 2 : 0;
	f.addrs = a;
	f.nr_addrs = (size_t)nlook;
	check_same(buf, len, &f, 1);
	free(a);
	free(buf);
}

static void test_random_kernel(void **state)
{
	(void)state;
	for (unsigned s = 1; s <= 12; s++)
		random_case(s, 0, 50 + (int)s * 20, 0);
}

static void test_random_modules(void **state)
{
	(void)state;
	for (unsigned s = 100; s <= 112; s++)
		random_case(s, 1, 80 + (int)s, 0);
}

static void test_random_relocated(void **state)
{
	(void)state;
	for (unsigned s = 200; s <= 205; s++)
		random_case(s, s & 1, 100, 0x3000000);
}

/* --------------------------------------------------------- parser facts */

static void test_parse_records(void **state)
{
	/* an empty line swallows the next; a high byte ends a field; no type */
	const char t[] = "\nffffffff81000000 T lost\nffffffff81000010 T a\xe9z\nffff\nffffffff81000020 t b";
	struct ks_rec r;
	size_t off = 0, n;
	int syms = 0;
	char names[64] = "";

	(void)state;
	while ((n = ks_parse_rec(t, sizeof(t) - 1, off, &r)) > 0) {
		if (r.sym) {
			strncat(names, r.name, r.namelen);
			strcat(names, ",");
			syms++;
		}
		off += n;
	}
	assert_int_equal(off, sizeof(t) - 1);
	/* "lost" is swallowed by the empty line, "a" is cut at 0xe9, "z" is junk
	 * up to '\n', and "ffff\n" (no ' ') skips to the end of the next line:
	 * "b" is lost too - as perf 6.1 reads it */
	assert_string_equal(names, "a,");
	assert_int_equal(syms, 1);
}

static void test_long_name_passes(void **state)
{
	char buf[2048];
	uint64_t a[1] = { 0xffffffff81000005ull };
	struct ks_facts f = { .have_kmmap = 1, .kstart = 0xffffffff81000000ull, .kend = ~0ull,
			      .kpgoff = 0xffffffff81000000ull, .ref_name = "_text", .addrs = a, .nr_addrs = 1 };
	struct ks_result r;
	int o;

	(void)state;
	o = sprintf(buf, "ffffffff81000000 T _text\nffffffff81000004 t ");
	memset(buf + o, 'x', 600);
	strcpy(buf + o + 600, "\n");
	assert_int_equal(ks_filter(buf, strlen(buf), &f, 0, &r), 0);
	assert_int_equal(r.mode, KS_PASS);
	assert_int_equal(r.why.code, SL_R_KS_LONG_NAME);
}

static void test_zero_and_kcore_pass(void **state)
{
	const char z[] = "0000000000000000 T _text\n0000000000000000 T b\n";
	uint64_t a[1] = { 5 };
	struct ks_facts f = { .have_kmmap = 1, .kend = ~0ull, .addrs = a, .nr_addrs = 1 };
	struct ks_result r;

	(void)state;
	assert_int_equal(ks_filter(z, sizeof(z) - 1, &f, 0, &r), 0);
	assert_int_equal(r.why.code, SL_R_KS_ZERO);
	assert_int_equal(ks_filter(z, sizeof(z) - 1, &f, 1, &r), 0);
	assert_int_equal(r.why.code, SL_R_KS_KCORE);
	f.have_kmmap = 0;
	assert_int_equal(ks_filter(z, sizeof(z) - 1, &f, 0, &r), 0);
	assert_int_equal(r.why.code, SL_R_KS_NO_KMMAP);
}

/* perf 7.x drops ".L*" and "L0*" names (KS_RULE_DROP_LOCAL_LABELS): the
 * address inside ".Lcold" is then answered by "hot", whose line must stay;
 * under 6.1's rules ".Lcold" is a symbol and answers it. */
static void test_drop_local_labels(void **state)
{
	const char *txt = "ffffffff81000000 T _text\nffffffff81000100 T hot\n"
			  "ffffffff81000180 t .Lcold\nffffffff81000200 T next\n"
			  "ffffffff81000300 T L0x\nffffffff81000400 T last\n";
	uint64_t a[2] = { 0xffffffff81000190ull, 0xffffffff81000310ull };
	struct ks_facts f = { .have_kmmap = 1, .kstart = 0xffffffff81000000ull, .kend = ~0ull,
			      .kpgoff = 0xffffffff81000000ull, .ref_name = "_text", .addrs = a, .nr_addrs = 2 };
	struct ks_result r;

	(void)state;
	assert_int_equal(ks_filter(txt, strlen(txt), &f, 0, &r), 0);
	assert_int_equal(r.mode, KS_FILTERED);
	assert_non_null(strstr(r.out, " .Lcold\n"));
	assert_non_null(strstr(r.out, " L0x\n"));
	assert_int_equal(r.symbols, 6);
	ks_free(&r);
	f.rules = KS_RULE_DROP_LOCAL_LABELS;
	assert_int_equal(ks_filter(txt, strlen(txt), &f, 0, &r), 0);
	assert_int_equal(r.mode, KS_FILTERED);
	assert_int_equal(r.symbols, 4);
	assert_non_null(strstr(r.out, " hot\n"));
	assert_non_null(strstr(r.out, " next\n"));
	ks_free(&r);
}

static void test_module_name(void **state)
{
	char b[64];

	(void)state;
	assert_int_equal(pd_module_name("/lib/modules/6.1.0/kernel/fs/ext4/ext4.ko", b, sizeof(b)), 0);
	assert_string_equal(b, "[ext4]");
	assert_int_equal(pd_module_name("/lib/modules/x/snd-hda-intel.ko.xz", b, sizeof(b)), 0);
	assert_string_equal(b, "[snd_hda_intel]");
	assert_int_equal(pd_module_name("[nf_tables]", b, sizeof(b)), 0);
	assert_string_equal(b, "[nf_tables]");
	assert_int_equal(pd_module_name("[kernel.kallsyms]_text", b, sizeof(b)), -1);
}

static void test_classify(void **state)
{
	(void)state;
	assert_int_equal(sl_text_classify("/proc/kallsyms", NULL), SL_TEXT_KALLSYMS);
	assert_int_equal(sl_text_classify("/proc/kallsymsx", NULL), SL_TEXT_NONE);
	assert_int_equal(sl_text_classify("/tmp/perf-123.map", NULL), SL_TEXT_PERFMAP);
	assert_int_equal(sl_text_classify("/tmp/perf-12a.map", NULL), SL_TEXT_NONE);
	assert_int_equal(sl_text_classify("/tmp/perf-.map", NULL), SL_TEXT_NONE);
	assert_int_equal(sl_text_classify("/root/.debug/[kernel.kallsyms]/abcd/kallsyms", NULL), SL_TEXT_KALLSYMS);
	assert_int_equal(sl_text_classify("/root/.debug/.build-id/ab/cdef/kallsyms", NULL), SL_TEXT_KALLSYMS);
	assert_int_equal(sl_text_classify("/home/x/kallsyms", NULL), SL_TEXT_NONE);
	assert_int_equal(sl_text_classify("ks.txt", "ks.txt"), SL_TEXT_KALLSYMS);
	assert_int_equal(sl_text_classify("/usr/lib/libc.so.6", "ks.txt"), SL_TEXT_NONE);
}

/* ------------------------------------------------------------- perf maps */

static void test_perfmap(void **state)
{
	/* a b c disjoint; d zero-size at 0x500; e overlaps c */
	/* names of 2 bytes or less are skipped (len + 2 >= line_len) */
	const char m[] = "100 10 fa\n100 10 aaa\n200 10 bbb\n300 100 ccc\nbad\n500 0 ddd\n"
			 "380 10 eee\n600 10 fff";   /* unterminated: "fff" loses its last byte -> skipped */
	uint64_t a1[] = { 0x105, 0x205, 0x500, 0x605 };
	uint64_t a2[] = { 0x385 };
	struct pm_result r;

	(void)state;
	assert_int_equal(pm_filter(m, sizeof(m) - 1, a1, 4, &r), 0);
	assert_int_equal(r.mode, PM_FILTERED);
	assert_int_equal(r.lines, 8);
	assert_int_equal(r.symbols, 5);
	assert_int_equal(r.kept, 3);
	assert_int_equal(r.out_len, strlen("100 10 aaa\n200 10 bbb\n500 0 ddd\n"));
	assert_memory_equal(r.out, "100 10 aaa\n200 10 bbb\n500 0 ddd\n", r.out_len);
	pm_free(&r);
	assert_int_equal(pm_filter(m, sizeof(m) - 1, a2, 1, &r), 0);
	assert_int_equal(r.mode, PM_PASS);    /* c and e both hold 0x385 */
	assert_int_equal(r.why.code, SL_R_PM_AMBIGUOUS);
	/* nested: 0x3f0 is in c only, but e (inside c, ends before) sorts after c */
	{
		uint64_t a3[] = { 0x3f0 };

		assert_int_equal(pm_filter(m, sizeof(m) - 1, a3, 1, &r), 0);
		assert_int_equal(r.mode, PM_PASS);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_records),
		cmocka_unit_test(test_long_name_passes),
		cmocka_unit_test(test_zero_and_kcore_pass),
		cmocka_unit_test(test_drop_local_labels),
		cmocka_unit_test(test_module_name),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_random_kernel),
		cmocka_unit_test(test_random_modules),
		cmocka_unit_test(test_random_relocated),
		cmocka_unit_test(test_perfmap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
