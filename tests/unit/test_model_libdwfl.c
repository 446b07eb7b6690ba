/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the libdwfl 0.188 model (core/model/libdwfl188.c) and of the
 * index that feeds it (index/dwflindex.c), on synthetic symbol tables:
 *   - the rules one by one (eligibility, binding rank, the sized fold);
 *   - hand-made tables for each selection case (globals before locals,
 *     bigger binding over closer start, same start smaller size, sizeless
 *     fallback and min_label, the exact-address sizeless that skips the
 *     locals pass, SHN_ABS, first_global 0);
 *   - random tables (overlaps, aliases, zero sizes, ABS and non-ALLOC
 *     symbols, two Elfs with different biases, ET_REL) answered by the index
 *     + model and by a literal re-statement of upstream's scan
 *     (libdwfl/dwfl_module_addrsym.c __libdwfl_addrsym, search_table,
 *     try_sym_value), compared at every address of the table's range.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include "core/models.h"
#include "index/dwflindex.h"
#include "util/reason.h"

/* the formatted text of a reason (util/reason.h), as the stats print it */
static const char *why_text(const struct sl_why *w)
{
	static char text[SL_WHY_DETAIL + 256];

	sl_why_format(w, text, sizeof(text));
	return text;
}

/* ---- rules ---------------------------------------------------------------- */

static GElf_Sym mk(unsigned bind, unsigned type, unsigned shndx, uint64_t value, uint64_t size)
{
	GElf_Sym s;

	memset(&s, 0, sizeof(s));
	s.st_info = GELF_ST_INFO(bind, type);
	s.st_shndx = (uint16_t)shndx;
	s.st_value = value;
	s.st_size = size;
	return s;
}

static void test_eligible(void **state)
{
	GElf_Sym s = mk(STB_GLOBAL, STT_FUNC, 1, 0x10, 4);

	(void)state;
	assert_true(dwfl188_eligible("f", &s));
	assert_false(dwfl188_eligible("", &s));
	assert_false(dwfl188_eligible(NULL, &s));
	s = mk(STB_GLOBAL, STT_FUNC, SHN_UNDEF, 0x10, 4);
	assert_false(dwfl188_eligible("f", &s));
	s = mk(STB_LOCAL, STT_SECTION, 1, 0x10, 0);
	assert_false(dwfl188_eligible("s", &s));
	s = mk(STB_LOCAL, STT_FILE, SHN_ABS, 0, 0);
	assert_false(dwfl188_eligible("a.c", &s));
	s = mk(STB_GLOBAL, STT_TLS, 5, 0, 8);
	assert_false(dwfl188_eligible("t", &s));
	s = mk(STB_GLOBAL, STT_NOTYPE, SHN_ABS, 0x10, 0);
	assert_true(dwfl188_eligible("abs", &s));
	s = mk(STB_GLOBAL, STT_OBJECT, 7, 0x10, 0);
	assert_true(dwfl188_eligible("o", &s));
}

static void test_bind_rank(void **state)
{
	GElf_Sym g = mk(STB_GLOBAL, STT_FUNC, 1, 0, 0), w = mk(STB_WEAK, STT_FUNC, 1, 0, 0),
		 l = mk(STB_LOCAL, STT_FUNC, 1, 0, 0), u = mk(STB_GNU_UNIQUE, STT_FUNC, 1, 0, 0);

	(void)state;
	assert_int_equal(dwfl188_bind_rank(&g), 3);
	assert_int_equal(dwfl188_bind_rank(&w), 2);
	assert_int_equal(dwfl188_bind_rank(&l), 1);
	assert_int_equal(dwfl188_bind_rank(&u), 0);
}

static struct sl_lk_sym lk(uint64_t v, uint64_t size, uint32_t ndx, int bind)
{
	struct sl_lk_sym s = { v, size, ndx, (uint8_t)bind, 0 };

	return s;
}

static void test_replaces(void **state)
{
	struct sl_lk_sym a = lk(0x100, 0x40, 5, 1), b;

	(void)state;
	assert_true(dwfl188_replaces(NULL, &a));
	b = lk(0x110, 0x10, 6, 1);          /* closer start */
	assert_true(dwfl188_replaces(&a, &b));
	b = lk(0x0f0, 0x80, 6, 3);          /* farther, but global over local */
	assert_true(dwfl188_replaces(&a, &b));
	b = lk(0x0f0, 0x80, 6, 1);          /* farther, same binding */
	assert_false(dwfl188_replaces(&a, &b));
	b = lk(0x100, 0x20, 6, 1);          /* same start, smaller, same binding */
	assert_true(dwfl188_replaces(&a, &b));
	b = lk(0x100, 0x40, 6, 1);          /* identical: the first found stays */
	assert_false(dwfl188_replaces(&a, &b));
	b = lk(0x100, 0x80, 6, 1);          /* bigger */
	assert_false(dwfl188_replaces(&a, &b));
	a = lk(0x100, 0x40, 5, 3);
	b = lk(0x100, 0x20, 6, 2);          /* smaller but weaker binding */
	assert_false(dwfl188_replaces(&a, &b));
}

/* ---- synthetic modules ------------------------------------------------------ */

struct tsym {
	const char *name;
	GElf_Sym sym;
	uint64_t value;              /* what __libdwfl_getsym returns */
	uint32_t shndx;              /* its section index output (-1: non-ALLOC) */
	int elf;                     /* 0 or 1 */
};

struct tsec {                    /* per Elf: sections in header order */
	uint64_t addr, size;
};

#define TMAX 200001
static struct tsym tsyms[TMAX];

struct tmod {
	struct tsym *s;
	int n;                       /* syments (s[0] is the null symbol) */
	int first_global;
	uint64_t bias[2];
	unsigned e_type;
	struct tsec sec[2][4];
	int nsec;
};

#define ELFP(i) ((Elf *)(uintptr_t)(0x1000 * ((i) + 1)))

static const char *t_getsym(void *ctx, int ndx, GElf_Sym *sym, uint64_t *value, uint32_t *shndx, Elf **elf,
			    uint64_t *bias)
{
	const struct tmod *m = ctx;

	if (ndx < 0 || ndx >= m->n)
		return NULL;
	*sym = m->s[ndx].sym;
	*value = m->s[ndx].value;
	*shndx = m->s[ndx].shndx;
	*elf = ELFP(m->s[ndx].elf);
	*bias = m->bias[m->s[ndx].elf];
	return m->s[ndx].name;
}

static int t_tracked;             /* the fake Elf 0 has a file identity */

static int t_facts(void *ctx, Elf *elf, unsigned *e_type, unsigned *e_machine, struct sl_file_id *id)
{
	const struct tmod *m = ctx;

	*e_type = m->e_type;
	*e_machine = EM_X86_64;
	memset(id, 0, sizeof(*id));
	if (t_tracked && elf == ELFP(0)) {
		id->dev = 8;
		id->ino = 1234;
		id->size = 99999;
		id->mtime_sec = 1700000000;
		id->valid = 1;
	}
	return 1;
}

/* same_section() of the addrsym variant over the synthetic sections */
static int t_same_section(const struct tmod *m, uint64_t addr, uint64_t value, int elf, uint32_t shndx)
{
	uint64_t mod_addr = addr - m->bias[elf];
	uint32_t addr_shndx = SHN_ABS;

	if (shndx >= SHN_LORESERVE)
		return value == addr;
	for (int i = 0; i < m->nsec; i++)
		if (mod_addr >= m->sec[elf][i].addr && mod_addr < m->sec[elf][i].addr + m->sec[elf][i].size) {
			addr_shndx = (uint32_t)i + 1;
			break;
		}
	return shndx == addr_shndx;
}

/* ---- upstream's scan, restated literally ---------------------------------- */

struct ref_state {
	const struct tmod *m;
	uint64_t addr;
	GElf_Sym closest_sym;
	const char *closest_name;
	uint64_t closest_value;
	int closest_ndx;
	const char *sizeless_name;
	GElf_Sym sizeless_sym;
	uint64_t sizeless_value;
	int sizeless_ndx;
	uint64_t min_label;
};

static int bv(const GElf_Sym *s)
{
	return dwfl188_bind_rank(s);
}

static void ref_try(struct ref_state *st, uint64_t value, const GElf_Sym *sym, const char *name, int ndx)
{
	const struct tsym *t = &st->m->s[ndx];

	if (value + sym->st_size > st->min_label)
		st->min_label = value + sym->st_size;
	if (sym->st_size == 0 || st->addr - value < sym->st_size) {
		if (st->closest_name == NULL || st->closest_value < value || bv(&st->closest_sym) < bv(sym)) {
			if (sym->st_size != 0) {
				st->closest_sym = *sym;
				st->closest_value = value;
				st->closest_name = name;
				st->closest_ndx = ndx;
			} else if (st->closest_name == NULL && value >= st->min_label &&
				   t_same_section(st->m, st->addr, value, t->elf, t->shndx)) {
				st->sizeless_sym = *sym;
				st->sizeless_value = value;
				st->sizeless_name = name;
				st->sizeless_ndx = ndx;
			}
		} else if (sym->st_size != 0 && st->closest_value == value &&
			   ((st->closest_sym.st_size > sym->st_size && bv(&st->closest_sym) <= bv(sym)) ||
			    (st->closest_sym.st_size >= sym->st_size && bv(&st->closest_sym) < bv(sym)))) {
			st->closest_sym = *sym;
			st->closest_value = value;
			st->closest_name = name;
			st->closest_ndx = ndx;
		}
	}
}

static void ref_table(struct ref_state *st, int start, int end)
{
	for (int i = start; i < end; ++i) {
		const struct tsym *t = &st->m->s[i];
		unsigned type = GELF_ST_TYPE(t->sym.st_info);

		if (t->name && t->name[0] && t->sym.st_shndx != SHN_UNDEF && t->value <= st->addr &&
		    type != STT_SECTION && type != STT_FILE && type != STT_TLS)
			ref_try(st, t->value, &t->sym, t->name, i);
	}
}

/* the answer's symbol index, or -1 */
static int ref_lookup(const struct tmod *m, uint64_t addr)
{
	struct ref_state st;
	int fg = m->first_global;

	memset(&st, 0, sizeof(st));
	st.m = m;
	st.addr = addr;
	ref_table(&st, fg == 0 ? 1 : fg, m->n);
	if (st.closest_name == NULL && fg > 1 && (st.sizeless_name == NULL || st.sizeless_value != st.addr))
		ref_table(&st, 1, fg);
	if (st.closest_name == NULL && st.sizeless_name != NULL && st.sizeless_value >= st.min_label)
		return st.sizeless_ndx;
	return st.closest_name ? st.closest_ndx : -1;
}

/* ---- index + model ------------------------------------------------------- */

struct qctx {
	const struct tmod *m;
	uint64_t addr;
};

static int q_same_section(void *ctx, const struct sl_lk_sym *s)
{
	const struct qctx *c = ctx;
	const struct tsym *t = &c->m->s[s->ndx];

	return t_same_section(c->m, c->addr, t->value, t->elf, t->shndx);
}

static void src_of(struct tmod *m, struct sl_dwfl_src *src)
{
	memset(src, 0, sizeof(*src));
	src->syments = m->n;
	src->first_global = m->first_global;
	src->base = m->bias[0];
	src->rules = sl_model_libdwfl188.sym.lookup;
	src->getsym = t_getsym;
	src->elf_facts = t_facts;
	src->ctx = m;
	src->cache_dirfd = -1;
}

/* -2: the index declined (the shim would ask libdwfl) */
static int idx_lookup(const struct sl_dwfl_index *x, const struct tmod *m, uint64_t addr)
{
	struct sl_dwfl_qbuf qb;
	struct sl_lk_query q;
	const struct sl_lk_sym *best = NULL;
	struct qctx c = { m, addr };
	int r = sl_dwfl_query(x, m->bias[0], addr, &qb, &q);

	if (r < 0)
		return -2;
	q.same_section = q_same_section;
	q.ctx = &c;
	r = sl_model_libdwfl188.sym.lookup->select(&q, &best);
	if (r < 0)
		return -2;
	if (r == 0)
		return -1;
	assert_int_equal(best->value, m->s[best->ndx].value);
	return (int)best->ndx;
}

static void set(struct tmod *m, int i, const char *name, unsigned bind, unsigned type, unsigned shndx,
		uint64_t st_value, uint64_t size)
{
	struct tsym *t = &m->s[i];
	int alloc = shndx != 3;

	t->name = name;
	t->sym = mk(bind, type, shndx, st_value, size);
	t->elf = 0;
	/* section 3 is a non-SHF_ALLOC section (shndx -1, no bias) */
	t->shndx = shndx == 3 ? (uint32_t)-1 : shndx;
	if (m->e_type == ET_REL || !alloc || shndx == SHN_ABS || shndx == SHN_COMMON)
		t->value = st_value;
	else
		t->value = st_value + m->bias[0];
	if (i + 1 > m->n)
		m->n = i + 1;
}

static void base_mod(struct tmod *m, int first_global, uint64_t bias)
{
	memset(m, 0, sizeof(*m));
	memset(tsyms, 0, sizeof(tsyms[0]) * 1024);
	m->s = tsyms;
	m->n = 1;
	m->first_global = first_global;
	m->bias[0] = m->bias[1] = bias;
	m->e_type = ET_DYN;
	m->nsec = 3;
	m->sec[0][0] = (struct tsec){ 0x1000, 0x1000 };      /* section 1: .text */
	m->sec[0][1] = (struct tsec){ 0x2000, 0x1000 };      /* section 2: .data */
	m->sec[0][2] = (struct tsec){ 0, 0x100 };            /* section 3: non-ALLOC */
	m->sec[1][0] = m->sec[0][0];
	m->sec[1][1] = m->sec[0][1];
	m->sec[1][2] = m->sec[0][2];
}

/* compare index and reference over [lo, hi) */
static void compare(struct tmod *m, uint64_t lo, uint64_t hi, int *declined)
{
	struct sl_dwfl_src src;
	struct sl_dwfl_index x;
	struct sl_why why;
	int r;

	src_of(m, &src);
	r = sl_dwfl_index_build(&src, &x, &why);
	if (r != 0)
		fail_msg("build: %d %s", r, why_text(&why));
	for (uint64_t a = lo; a < hi; a++) {
		int want = ref_lookup(m, a), got = idx_lookup(&x, m, a);

		if (got == -2) {
			(*declined)++;
			continue;
		}
		if (want != got)
			fail_msg("addr %#llx: upstream says %d, index says %d", (unsigned long long)a, want, got);
	}
	sl_dwfl_index_close(&x);
}

static void test_globals_before_locals(void **state)
{
	struct tmod m;
	int d = 0;

	(void)state;
	base_mod(&m, 3, 0);
	set(&m, 1, "local_big", STB_LOCAL, STT_FUNC, 1, 0x1100, 0x100);
	set(&m, 2, "local_near", STB_LOCAL, STT_FUNC, 1, 0x1180, 0x10);
	set(&m, 3, "global_far", STB_GLOBAL, STT_FUNC, 1, 0x1000, 0x400);
	set(&m, 4, "weak_mid", STB_WEAK, STT_FUNC, 1, 0x1080, 0x40);
	assert_int_equal(ref_lookup(&m, 0x1184), 3);     /* a global contains it: no locals pass */
	assert_int_equal(ref_lookup(&m, 0x1090), 4);     /* weak later start beats the global */
	compare(&m, 0xff0, 0x1500, &d);
	assert_int_equal(d, 0);
}

static void test_binding_over_start(void **state)
{
	struct tmod m;
	int d = 0;

	(void)state;
	/* scan order decides: a later global replaces a closer weak one */
	base_mod(&m, 1, 0x10000);
	set(&m, 1, "weak_close", STB_WEAK, STT_FUNC, 1, 0x1100, 0x20);
	set(&m, 2, "global_far", STB_GLOBAL, STT_FUNC, 1, 0x1000, 0x200);
	set(&m, 3, "alias_small", STB_GLOBAL, STT_FUNC, 1, 0x1000, 0x180);
	set(&m, 4, "alias_same", STB_GLOBAL, STT_FUNC, 1, 0x1000, 0x180);
	assert_int_equal(ref_lookup(&m, 0x11110), 3);
	compare(&m, 0x10ff0, 0x11300, &d);
	assert_int_equal(d, 0);
}

static void test_sizeless(void **state)
{
	struct tmod m;
	int d = 0;

	(void)state;
	base_mod(&m, 4, 0);
	set(&m, 1, "label_a", STB_LOCAL, STT_NOTYPE, 1, 0x1200, 0);
	set(&m, 2, "label_data", STB_LOCAL, STT_NOTYPE, 2, 0x1300, 0);   /* other section */
	set(&m, 3, "sized", STB_LOCAL, STT_FUNC, 1, 0x1100, 0x180);       /* ends past label_a */
	set(&m, 4, "g_label", STB_GLOBAL, STT_FUNC, 1, 0x1400, 0);
	set(&m, 5, "g_sized", STB_GLOBAL, STT_FUNC, 1, 0x1500, 0x10);
	set(&m, 6, "abs", STB_GLOBAL, STT_NOTYPE, SHN_ABS, 0x1600, 0);
	set(&m, 7, "nonalloc", STB_GLOBAL, STT_OBJECT, 3, 0x1700, 0);
	assert_int_equal(ref_lookup(&m, 0x1290), -1);    /* label_a is below min_label */
	assert_int_equal(ref_lookup(&m, 0x1450), 4);
	assert_int_equal(ref_lookup(&m, 0x1600), 6);     /* SHN_ABS: exact only */
	assert_int_equal(ref_lookup(&m, 0x1601), -1);    /* abs raised min_label past g_label */
	compare(&m, 0xff0, 0x1800, &d);
	assert_int_equal(d, 0);
}

static void test_exact_sizeless_skips_locals(void **state)
{
	struct tmod m;
	int d = 0;

	(void)state;
	base_mod(&m, 2, 0);
	set(&m, 1, "local_sized", STB_LOCAL, STT_FUNC, 1, 0x1100, 0x100);
	set(&m, 2, "g_label", STB_GLOBAL, STT_NOTYPE, 1, 0x1140, 0);
	assert_int_equal(ref_lookup(&m, 0x1140), 2);     /* locals never scanned */
	assert_int_equal(ref_lookup(&m, 0x1141), 1);
	compare(&m, 0x1000, 0x1300, &d);
	assert_int_equal(d, 0);
}

static void test_first_global_zero(void **state)
{
	struct tmod m;
	int d = 0;

	(void)state;
	base_mod(&m, 0, 0x400000);
	set(&m, 1, "a", STB_LOCAL, STT_FUNC, 1, 0x1100, 0x100);
	set(&m, 2, "b", STB_GLOBAL, STT_FUNC, 1, 0x1180, 0x100);
	compare(&m, 0x401000, 0x401400, &d);
	assert_int_equal(d, 0);
}

/* ---- random tables ------------------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? rng % n : 0;
}

static const char *names[] = { "f", "g", "h", "", "alias", "_start", "x" };

static void random_mod(struct tmod *m, int rel)
{
	int n = 2 + (int)rnd(300), fg;
	static const unsigned types[] = { STT_FUNC, STT_FUNC, STT_OBJECT, STT_NOTYPE, STT_SECTION, STT_FILE,
					  STT_TLS, STT_GNU_IFUNC };
	static const unsigned shndxs[] = { 1, 1, 1, 2, 2, 3, SHN_ABS, SHN_UNDEF, SHN_COMMON };

	fg = (int)rnd(4) == 0 ? 0 : 1 + (int)rnd((uint64_t)n);
	base_mod(m, fg, rnd(2) ? 0 : 0x7f0000000000ull + 0x1000 * rnd(16));
	m->e_type = rel ? ET_REL : ET_DYN;
	for (int i = 1; i <= n; i++) {
		unsigned bind = i < fg ? STB_LOCAL : (rnd(3) ? STB_GLOBAL : STB_WEAK);
		uint64_t v = 0x1000 + rnd(0x600), size = rnd(3) ? rnd(0x80) : 0;

		if (rnd(8) == 0 && i > 1) {                       /* alias of the previous symbol */
			v = m->s[i - 1].sym.st_value;
			size = rnd(2) ? m->s[i - 1].sym.st_size : size;
		}
		if (rnd(20) == 0)
			bind = STB_GNU_UNIQUE;
		set(m, i, names[rnd(sizeof(names) / sizeof(names[0]))], bind, types[rnd(8)],
		    shndxs[rnd(sizeof(shndxs) / sizeof(shndxs[0]))], v, size);
	}
	/* sometimes a second Elf (the .gnu_debugdata minisymtab) with its own
	 * bias for the symbols of one range */
	if (!rel && rnd(3) == 0) {
		m->bias[1] = m->bias[0] + 0x100 * rnd(3);
		for (int i = 1; i < m->n; i++)
			if (rnd(2) && m->s[i].shndx != (uint32_t)-1 && m->s[i].sym.st_shndx != SHN_ABS &&
			    m->s[i].sym.st_shndx != SHN_COMMON) {
				m->s[i].elf = 1;
				m->s[i].value = m->s[i].sym.st_value + m->bias[1];
			}
	}
}

static void test_random_tables(void **state)
{
	struct tmod *m = malloc(sizeof(*m));
	int declined = 0, tables = 0;

	(void)state;
	assert_non_null(m);
	for (int t = 0; t < 1500; t++) {
		random_mod(m, t % 5 == 4);
		compare(m, m->bias[0] + 0xff0, m->bias[0] + 0x1700, &declined);
		if (m->bias[1] != m->bias[0])
			compare(m, m->bias[1] + 0xff0, m->bias[1] + 0x1700, &declined);
		tables++;
	}
	/* the index declines only when a lookup needs more candidates than its
	 * scratch: never on tables this small */
	assert_int_equal(declined, 0);
	free(m);
}

/* more symbols than one in-memory run of the builder (RUN_ENTS): the merge
 * of sorted runs, checked at sampled addresses */
static void test_large_table(void **state)
{
	struct tmod *m = malloc(sizeof(*m));
	struct sl_dwfl_src src;
	struct sl_dwfl_index x;
	struct sl_why why;
	int n = 150000;

	(void)state;
	assert_non_null(m);
	base_mod(m, 50000, 0x555500000000ull);
	m->sec[0][0] = (struct tsec){ 0x1000, 0x1000000 };
	memset(tsyms, 0, sizeof(tsyms[0]) * (size_t)(n + 1));
	for (int i = 1; i <= n; i++) {
		uint64_t v = 0x1000 + rnd(0x800000), size = rnd(4) ? rnd(0x200) : 0;

		set(m, i, rnd(50) ? "f" : "", i < 50000 ? STB_LOCAL : STB_GLOBAL, rnd(10) ? STT_FUNC : STT_NOTYPE,
		    rnd(30) ? 1 : SHN_ABS, v, size);
	}
	src_of(m, &src);
	assert_int_equal(sl_dwfl_index_build(&src, &x, &why), 0);
	assert_int_equal(x.h->n[0] + x.h->n[1] > 4096 * 4, 1);
	for (int k = 0; k < 400; k++) {
		uint64_t a = m->bias[0] + 0x1000 + rnd(0x801000);
		int got = idx_lookup(&x, m, a);

		if (got != -2)
			assert_int_equal(got, ref_lookup(m, a));
	}
	for (int k = 0; k < 100; k++) {             /* SHN_ABS values are not biased */
		uint64_t a = 0x1000 + rnd(0x801000);
		int got = idx_lookup(&x, m, a);

		if (got != -2)
			assert_int_equal(got, ref_lookup(m, a));
	}
	sl_dwfl_index_close(&x);
	free(m);
}

/* cache round trip: built into the cache dir, mapped back with the same
 * answers; a flipped byte, another bias delta or another file identity is
 * not used */
static void test_cache(void **state)
{
	struct tmod *m = malloc(sizeof(*m));
	struct sl_dwfl_src src;
	struct sl_dwfl_index x, y;
	char dir[] = "/tmp/symlazy-test-dwfl-XXXXXX", path[512];
	struct sl_why why;
	int dfd;

	(void)state;
	assert_non_null(m);
	assert_non_null(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	t_tracked = 1;
	random_mod(m, 0);
	while (m->n < 50)
		random_mod(m, 0);
	src_of(m, &src);
	src.cache_dirfd = dfd;
	assert_int_equal(sl_dwfl_index_cached(&src, &x), -ENOENT);
	assert_int_equal(sl_dwfl_index_build(&src, &x, &why), 0);
	assert_int_equal(x.from_cache, 0);
	assert_int_equal(sl_dwfl_index_cached(&src, &y), 0);
	assert_int_equal(y.from_cache, 1);
	for (uint64_t a = m->bias[0] + 0xff0; a < m->bias[0] + 0x1700; a++)
		assert_int_equal(idx_lookup(&x, m, a), idx_lookup(&y, m, a));
	sl_dwfl_index_close(&y);
	/* another base (ASLR): the same file serves, keys are bias-free */
	{
		uint64_t d = 0x100000;

		m->bias[0] += d;
		m->bias[1] += d;
		for (int i = 1; i < m->n; i++) {
			const struct tsym *t = &m->s[i];
			int fixed = t->shndx == (uint32_t)-1 || t->sym.st_shndx == SHN_ABS ||
				    t->sym.st_shndx == SHN_COMMON;

			m->s[i].value = fixed ? t->sym.st_value : t->sym.st_value + m->bias[t->elf];
		}
		src_of(m, &src);
		src.cache_dirfd = dfd;
		assert_int_equal(sl_dwfl_index_cached(&src, &y), 0);
		for (uint64_t a = m->bias[0] + 0xff0; a < m->bias[0] + 0x1700; a++) {
			int got = idx_lookup(&y, m, a);

			if (got != -2)
				assert_int_equal(got, ref_lookup(m, a));
		}
		sl_dwfl_index_close(&y);
	}
	/* a corrupt byte in the payload */
	{
		struct dirent *de;
		DIR *dp = opendir(dir);
		int fd = -1;

		while ((de = readdir(dp)) != NULL)
			if (!strncmp(de->d_name, "dwfl-", 5)) {
				snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
				fd = open(path, O_RDWR);
			}
		closedir(dp);
		assert_true(fd >= 0);
		assert_int_equal(pwrite(fd, "\x7f", 1, (off_t)sizeof(struct sl_dwfl_hdr) + 3), 1);
		close(fd);
		assert_int_equal(sl_dwfl_index_cached(&src, &y), -ENOENT);
		unlink(path);
	}
	/* another file identity: another name, nothing found */
	t_tracked = 0;
	assert_int_equal(sl_dwfl_index_cached(&src, &y), -ENOENT);
	sl_dwfl_index_close(&x);
	close(dfd);
	rmdir(dir);
	free(m);
}

static void test_unmodelable(void **state)
{
	struct tmod m;
	struct sl_dwfl_src src;
	struct sl_dwfl_index x;
	struct sl_why why;

	(void)state;
	base_mod(&m, 1, 0x1000);
	set(&m, 1, "f", STB_GLOBAL, STT_FUNC, 1, 0x1100, 0x10);
	set(&m, 2, "g", STB_GLOBAL, STT_FUNC, 1, 0x1200, 0x10);
	m.s[2].value = 0x1234567;                               /* resolved / descriptor value */
	src_of(&m, &src);
	assert_int_equal(sl_dwfl_index_build(&src, &x, &why), 1);
	assert_non_null(strstr(why_text(&why), "not st_value"));
	set(&m, 2, "g", STB_GLOBAL, STT_FUNC, 1, 0x1200, 0x100000000ull);
	src_of(&m, &src);
	assert_int_equal(sl_dwfl_index_build(&src, &x, &why), 1);
	m.s[2].name = NULL;                                     /* libdwfl error on this symbol */
	src_of(&m, &src);
	assert_int_equal(sl_dwfl_index_build(&src, &x, &why), 1);
	assert_non_null(strstr(why_text(&why), "unreadable"));
}

static void test_version_machine(void **state)
{
	const struct sl_lookup_rules *R = sl_model_libdwfl188.sym.lookup;

	(void)state;
	assert_true(R->version_matches("0.188"));
	assert_false(R->version_matches("0.189"));
	assert_true(R->version_matches("0.192"));   /* same lookup sources (libdwfl188.c) */
	assert_false(R->version_matches("0.191"));
	assert_false(R->version_matches("0.193"));
	assert_false(R->version_matches("0.192.1"));
	assert_false(R->version_matches(NULL));
	assert_true(R->machine_ok(EM_X86_64));
	assert_true(R->machine_ok(EM_AARCH64));
	assert_false(R->machine_ok(EM_ARM));
	assert_false(R->machine_ok(EM_PPC64));
}

static void test_sort(void **state)
{
	struct sl_dwfl_ent e[500];

	(void)state;
	for (int i = 0; i < 500; i++) {
		e[i].key = rnd(50);
		e[i].size = 0;
		e[i].info = (uint32_t)i;
	}
	sl_dwfl_sort(e, 500);
	for (int i = 1; i < 500; i++)
		assert_true(e[i - 1].key < e[i].key || (e[i - 1].key == e[i].key && e[i - 1].info < e[i].info));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eligible),
		cmocka_unit_test(test_bind_rank),
		cmocka_unit_test(test_replaces),
		cmocka_unit_test(test_globals_before_locals),
		cmocka_unit_test(test_binding_over_start),
		cmocka_unit_test(test_sizeless),
		cmocka_unit_test(test_exact_sizeless_skips_locals),
		cmocka_unit_test(test_first_global_zero),
		cmocka_unit_test(test_random_tables),
		cmocka_unit_test(test_large_table),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_unmodelable),
		cmocka_unit_test(test_version_machine),
		cmocka_unit_test(test_sort),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
