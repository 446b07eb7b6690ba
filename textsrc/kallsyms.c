/* SPDX-License-Identifier: MIT */
/*
 * kallsyms.c - perf 6.1's kallsyms loading as a model, and the filter built
 * on it (see kallsyms.h for the rules and their sources).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "textsrc/kallsyms.h"
#include "util/util.h"

#define ENTRY_TRAMPOLINE_NAME "__entry_SYSCALL_64_trampoline"
#define X86_64_CPU_ENTRY_AREA_PER_CPU 0xfffffe0000000000ULL
#define X86_64_CPU_ENTRY_AREA_SIZE    0x2c000ULL
#define X86_64_ENTRY_TRAMPOLINE       0x6000ULL
#define KS_MAX_CPUS 8192u
#define KS_PAGE 4096u
#define KS_ROUNDS 12

/* ------------------------------------------------------------ parsing */

/* tools/lib/api/io.h over a memory buffer: io__get_char returns the byte as
 * a (signed) char, -1 past the end (eof). */
struct io {
	const unsigned char *p;
	size_t pos, len;
	int eof;
};

static int io_char(struct io *io)
{
	if (io->eof || io->pos >= io->len) {
		io->eof = 1;
		return -1;
	}
	return (signed char)io->p[io->pos++];
}

/* io__get_hex: -2 if the first char is no hex digit, a negative char or -1
 * at once, else the char after the digits. */
static int io_hex(struct io *io, uint64_t *v)
{
	int first = 1;

	*v = 0;
	for (;;) {
		int ch = io_char(io);

		if (ch < 0)
			return ch;
		if (ch >= '0' && ch <= '9')
			*v = (*v << 4) | (uint64_t)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			*v = (*v << 4) | (uint64_t)(ch - 'a' + 10);
		else if (ch >= 'A' && ch <= 'F')
			*v = (*v << 4) | (uint64_t)(ch - 'A' + 10);
		else if (first)
			return -2;
		else
			return ch;
		first = 0;
	}
}

static void io_eol(struct io *io)
{
	for (;;) {
		int ch = io_char(io);

		if (ch < 0 || ch == '\n')
			return;
	}
}

size_t ks_parse_rec(const char *buf, size_t len, size_t off, struct ks_rec *r)
{
	struct io io = { (const unsigned char *)buf, off, len, 0 };
	size_t i;
	int ch;

	memset(r, 0, sizeof(*r));
	if (off >= len)
		return 0;
	if (io_hex(&io, &r->start) != ' ') {
		io_eol(&io);
		goto out;
	}
	r->type = (char)io_char(&io);
	if (io_char(&io) != ' ') {
		io_eol(&io);
		goto out;
	}
	r->name = buf + io.pos;
	for (i = 0; i < KS_NAME_MAX; i++) {
		ch = io_char(&io);
		if (ch < 0 || ch == '\n')
			break;
	}
	r->namelen = i;
	r->name_full = i == KS_NAME_MAX;
	r->sym = 1;
out:
	r->len = io.pos - off;
	return r->len;
}

/* ------------------------------------------------------------ entries */

enum {
	E_BRACKET = 1u << 0,     /* '[' in the name (symbols__fixup_end) */
	E_MODULE  = 1u << 1,     /* '\t' in the name: "sym\t[mod]" */
	E_TRAMP   = 1u << 2,     /* ENTRY_TRAMPOLINE_NAME: dropped by the split */
	E_TNAME   = 1u << 3,     /* a name find_entry_trampoline looks for */
	E_GLOBAL  = 1u << 4,     /* kallsyms2elf_binding: STB_GLOBAL */
};
#define E_MOD_SHIFT 16
#define E_NOMOD 0xffffu

struct ent {                 /* one accepted record */
	uint64_t start;
	uint32_t off;            /* record offset in the text */
	uint32_t info;           /* E_* | module id << 16 */
};

static inline unsigned ent_mod(const struct ent *e)
{
	return e->info >> E_MOD_SHIFT;
}

struct modname {
	const char *p;           /* into the text */
	size_t n;
	int map;                 /* index into facts->mods, -1: none */
};

enum ans_kind { A_NONE = 0, A_FOUND, A_AMBIG };

struct ans {
	uint32_t win;            /* ent index of the symbol */
	uint32_t kind;
	uint64_t end;
};

struct lookups {             /* sorted addresses of one tree, with answers */
	uint64_t *a;
	size_t n;
	struct ans *f, *r;       /* full and reduced answers */
};

struct summary {
	int have_first;
	uint64_t first_start;    /* kernel map after map__fixup_start */
	uint32_t first_win;
	int have_last;
	uint64_t last_end;       /* ... map__fixup_end */
	uint32_t last_win;
	uint64_t tramp;          /* find_entry_trampoline() (0: none) */
	uint32_t tramp_win;
	int split;               /* a kernel symbol after a module's: [kernel].N */
	uint64_t split_at;
};

struct ks {
	const char *buf;
	size_t len;
	const struct ks_facts *f;
	struct ent *e;
	size_t ne, alloc;
	struct modname *mods;
	size_t nmods, alloc_mods;
	struct lookups k;        /* kernel-symbol lookups (kallsyms space) */
	struct lookups *m;       /* one per facts->mods entry */
	uint8_t *keep;           /* per ent */
	uint32_t *succ;          /* per answer: scratch */
	uint32_t name_off[4];    /* records found by name, UINT32_MAX if none */
	struct summary sf, sr;
};

static int push_ent(struct ks *k, uint64_t start, uint32_t off, uint32_t info)
{
	if (sl_grow((void **)&k->e, &k->alloc, k->ne + 1, sizeof(*k->e), 16384) < 0)
		return -ENOMEM;
	k->e[k->ne].start = start;
	k->e[k->ne].off = off;
	k->e[k->ne].info = info;
	k->ne++;
	return 0;
}

/* module id of "[mod]" (bytes after the tab, up to the name's end) */
static long mod_id(struct ks *k, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < k->nmods; i++)
		if (k->mods[i].n == n && !memcmp(k->mods[i].p, p, n))
			return (long)i;
	if (k->nmods >= E_NOMOD)
		return -E2BIG;
	if (sl_grow((void **)&k->mods, &k->alloc_mods, k->nmods + 1, sizeof(*k->mods), 32) < 0)
		return -ENOMEM;
	k->mods[k->nmods].p = p;
	k->mods[k->nmods].n = n;
	k->mods[k->nmods].map = -1;
	for (i = 0; i < k->f->nr_mods; i++)
		if (strlen(k->f->mods[i].name) == n && !memcmp(k->f->mods[i].name, p, n)) {
			k->mods[k->nmods].map = (int)i;
			break;
		}
	return (long)k->nmods++;
}

static int name_is(const char *p, size_t n, const char *s)
{
	return strlen(s) == n && !memcmp(p, s, n);
}

static int cmp_ent(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int ent_less(const struct ent *x, const struct ent *y)
{
	return cmp_ent(x, y) < 0;
}

/* Sort by (start, off) in place: nothing when the text is already in address
 * order (the kernel's part of /proc/kallsyms is), else a heap sort - qsort()
 * would allocate a second array as large as k->e (glibc msort), which was
 * the largest allocation of a small profile's whole perf run. */
static void sort_ents(struct ent *e, size_t n)
{
	size_t i, start, end, root, child;
	struct ent t;

	for (i = 1; i < n && !ent_less(&e[i], &e[i - 1]); i++)
		;
	if (i >= n)
		return;
	for (start = n / 2; start-- > 0;) {
		for (root = start; (child = 2 * root + 1) < n; root = child) {
			if (child + 1 < n && ent_less(&e[child], &e[child + 1]))
				child++;
			if (!ent_less(&e[root], &e[child]))
				break;
			t = e[root], e[root] = e[child], e[child] = t;
		}
	}
	for (end = n; end-- > 1;) {
		t = e[0], e[0] = e[end], e[end] = t;
		for (root = 0; (child = 2 * root + 1) < end; root = child) {
			if (child + 1 < end && ent_less(&e[child], &e[child + 1]))
				child++;
			if (!ent_less(&e[root], &e[child]))
				break;
			t = e[root], e[root] = e[child], e[child] = t;
		}
	}
}

/* Parse the whole text into k->e; sets @why and returns 1 when the model
 * does not apply, 0 when it does, -ENOMEM. */
static int collect(struct ks *k, struct ks_result *res)
{
	size_t off = 0;
	int all_zero = 1;
	const char *want[4] = { k->f->ref_name, "_text", "_stext", "_etext" };
	unsigned w;

	for (w = 0; w < 4; w++)
		k->name_off[w] = UINT32_MAX;
	if (k->len > UINT32_MAX - 1) {
		sl_why_set(&res->why, SL_R_KS_TOO_LARGE, NULL);
		return 1;
	}
	{
		/* one allocation of the right size: growing by doubling would hold
		 * the old and the new array at once (the peak the tool pays) */
		size_t lines = 1;
		const char *p = k->buf, *end = k->buf + k->len;

		while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
			lines++;
			p++;
		}
		k->e = malloc(lines * sizeof(*k->e));
		if (!k->e)
			return -ENOMEM;
		k->alloc = lines;
	}
	while (off < k->len) {
		struct ks_rec r;
		size_t n = ks_parse_rec(k->buf, k->len, off, &r), nl;
		char t;
		uint32_t info = 0;
		const char *tab;

		res->records++;
		if (!r.sym)
			goto next;
		if (r.name_full) {
			sl_why_set(&res->why, SL_R_KS_LONG_NAME, "at offset %zu", off);
			return 1;
		}
		nl = strnlen(r.name, r.namelen);     /* perf's C string */
		/* find_symbol_cb: kallsyms__is_function(type) || type == 'A' */
		t = (char)toupper((unsigned char)r.type);
		if (t == 'T' || t == 'W' || r.type == 'A')
			for (w = 0; w < 4; w++)
				if (k->name_off[w] == UINT32_MAX && want[w][0] && name_is(r.name, nl, want[w]))
					k->name_off[w] = (uint32_t)off;
		/* symbol_type__filter, '$' names (7.x: ".L" and "L0" names too) */
		if (!(t == 'T' || t == 'W' || t == 'D' || t == 'B') || (nl && r.name[0] == '$'))
			goto next;
		if ((k->f->rules & KS_RULE_DROP_LOCAL_LABELS) && nl >= 2 &&
		    ((r.name[0] == '.' && r.name[1] == 'L') || (r.name[0] == 'L' && r.name[1] == '0')))
			goto next;
		res->symbols++;
		if (r.start)
			all_zero = 0;
		if (memchr(r.name, '[', nl))
			info |= E_BRACKET;
		tab = memchr(r.name, '\t', nl);
		info |= (uint32_t)E_NOMOD << E_MOD_SHIFT;
		if (tab) {
			long id = mod_id(k, tab + 1, nl - (size_t)(tab + 1 - r.name));

			if (id == -ENOMEM)
				return -ENOMEM;
			if (id < 0) {
				sl_why_set(&res->why, SL_R_KS_MODULES, NULL);
				return 1;
			}
			info = (info & 0xffffu) | E_MODULE | ((uint32_t)id << E_MOD_SHIFT);
		} else {
			if (name_is(r.name, nl, ENTRY_TRAMPOLINE_NAME))
				info |= E_TRAMP;
			if (name_is(r.name, nl, "_entry_trampoline") ||
			    name_is(r.name, nl, "__entry_trampoline_start") ||
			    name_is(r.name, nl, "entry_SYSCALL_64_trampoline"))
				info |= E_TNAME;
		}
		/* kallsyms2elf_binding: 'W' weak, upper case global */
		if (r.type != 'W' && isupper((unsigned char)r.type))
			info |= E_GLOBAL;
		if (push_ent(k, r.start, (uint32_t)off, info) < 0)
			return -ENOMEM;
next:
		off += n;
	}
	if (k->ne && all_zero) {
		sl_why_set(&res->why, SL_R_KS_ZERO, NULL);
		return 1;
	}
	if (k->f->ref_name[0] && k->name_off[0] == UINT32_MAX) {
		sl_why_set(&res->why, SL_R_KS_NO_REF, "%s", k->f->ref_name);
		return 1;
	}
	sort_ents(k->e, k->ne);
	return 0;
}

/* ------------------------------------------------------------- model */

static uint64_t roundup_page(uint64_t x)
{
	return (x + (KS_PAGE - 1)) / KS_PAGE * KS_PAGE;
}

struct tree {                /* the walk's state for one symbol tree */
	int have;
	uint32_t win;
	uint64_t start, end;
	uint64_t prevmax;        /* largest end of the earlier symbols */
	size_t next;             /* next lookup to answer */
};

static void answer_upto(struct tree *t, const struct lookups *l, struct ans *out, int all,
			uint64_t limit)
{
	while (t->next < l->n && (all || l->a[t->next] < limit)) {
		uint64_t a = l->a[t->next];
		struct ans *o = &out[t->next];

		o->win = UINT32_MAX;
		o->end = 0;
		o->kind = A_NONE;
		if (t->have && a >= t->start) {
			int in = a < t->end, earlier = t->prevmax > a;

			if (in && !earlier) {
				o->kind = A_FOUND;
				o->win = t->win;
				o->end = t->end;
			} else if (earlier) {
				o->kind = A_AMBIG;
			}
		}
		t->next++;
	}
}

static void tree_add(struct tree *t, const struct lookups *l, struct ans *out, uint32_t win,
		     uint64_t start, uint64_t end)
{
	answer_upto(t, l, out, 0, start);
	if (t->have && t->end > t->prevmax)
		t->prevmax = t->end;
	t->have = 1;
	t->win = win;
	t->start = start;
	t->end = end;
}

/*
 * One pass of perf's load over the entries with keep[i] set (all when
 * @keep is NULL): groups of equal start (winner: the last), ends from the
 * next group's first record, the split into the kernel and module trees,
 * answers for every lookup, the summary. @reduced selects the answer arrays.
 */
static void walk(struct ks *k, const uint8_t *keep, int reduced, struct summary *s)
{
	struct tree kt = { 0 }, *mt = NULL;
	size_t i = 0, nm = k->f->nr_mods, j;
	int curr = -1;           /* -1: the initial (kernel) map, else a module map */
	unsigned curr_id = E_NOMOD;
	uint64_t count = 0;
	uint32_t pw = UINT32_MAX; /* pending winner, its group's start */
	uint64_t ps = 0;

	memset(s, 0, sizeof(*s));
	if (nm)
		mt = calloc(nm, sizeof(*mt));
	for (;;) {
		size_t first, last;

		while (i < k->ne && keep && !keep[i])
			i++;
		first = i;
		last = i;
		if (i < k->ne) {
			for (j = i + 1; j < k->ne && k->e[j].start == k->e[i].start; j++)
				if (!keep || keep[j])
					last = j;
			i = j;
		}
		/* finalize the pending winner with this group's first record */
		if (pw != UINT32_MAX) {
			const struct ent *w = &k->e[pw];
			uint64_t end;

			if (first < k->ne)
				end = !(w->info & E_BRACKET) != !(k->e[first].info & E_BRACKET) ?
				      roundup_page(ps + KS_PAGE) : k->e[first].start;
			else
				end = roundup_page(ps) + KS_PAGE;
			/* maps__split_kallsyms */
			if (w->info & E_MODULE) {
				unsigned id = ent_mod(w);

				if (curr == -1 || id != curr_id) {
					int map = k->mods[id].map;

					if (map < 0) {
						curr = -1;
						curr_id = E_NOMOD;
						goto done;
					}
					curr = map;
					curr_id = id;
				}
				if (mt && k->m)
					tree_add(&mt[curr], &k->m[curr], reduced ? k->m[curr].r : k->m[curr].f,
						 pw, ps, end);
			} else if (w->info & E_TRAMP) {
				/* dropped */
			} else {
				if (curr != -1) {
					if (count != 0 && !s->split) {
						s->split = 1;
						s->split_at = ps;
					}
					curr = -1;
					curr_id = E_NOMOD;
				}
				count++;
				tree_add(&kt, &k->k, reduced ? k->k.r : k->k.f, pw, ps, end);
				if (!s->have_first) {
					s->have_first = 1;
					s->first_start = ps;
					s->first_win = pw;
				}
				s->have_last = 1;
				s->last_end = end;
				s->last_win = pw;
				if (!s->tramp && (w->info & (E_TNAME | E_GLOBAL)) == (E_TNAME | E_GLOBAL)) {
					s->tramp = ps;
					s->tramp_win = pw;
				}
			}
		}
done:
		if (first >= k->ne)
			break;
		pw = (uint32_t)last;
		ps = k->e[first].start;
	}
	answer_upto(&kt, &k->k, reduced ? k->k.r : k->k.f, 1, 0);
	for (j = 0; mt && k->m && j < nm; j++)
		answer_upto(&mt[j], &k->m[j], reduced ? k->m[j].r : k->m[j].f, 1, 0);
	free(mt);
}

/* ---------------------------------------------------------- selection */

/* first and last ent index of the group of ent @i */
static size_t group_last(const struct ks *k, size_t i)
{
	while (i + 1 < k->ne && k->e[i + 1].start == k->e[i].start)
		i++;
	return i;
}

static size_t group_first(const struct ks *k, size_t i)
{
	while (i > 0 && k->e[i - 1].start == k->e[i].start)
		i--;
	return i;
}

/* keep ent @i, its group's winner and, with @succ, the first record of the
 * next group (which sets the winner's end) */
static void keep_ent(struct ks *k, size_t i, int succ)
{
	size_t l = group_last(k, i);

	k->keep[i] = 1;
	k->keep[l] = 1;
	if (succ && l + 1 < k->ne)
		k->keep[l + 1] = 1;
}

/* the groups of the reduced set around @a: fix their ends */
static void keep_around(struct ks *k, uint64_t a)
{
	size_t lo = 0, hi = k->ne;
	uint64_t from = a > 2 * KS_PAGE ? a - 2 * KS_PAGE : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->e[mid].start < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < k->ne && k->e[lo].start <= a; lo++)
		if (k->keep[lo])
			keep_ent(k, lo, 1);
}

static int lookups_alloc(struct lookups *l, size_t n)
{
	l->a = malloc((n ? n : 1) * sizeof(*l->a));
	l->f = calloc(n ? n : 1, sizeof(*l->f));
	l->r = calloc(n ? n : 1, sizeof(*l->r));
	l->n = 0;
	return l->a && l->f && l->r ? 0 : -ENOMEM;
}

static void lookups_free(struct lookups *l)
{
	free(l->a);
	free(l->f);
	free(l->r);
}

/* Kernel-symbol lookups: every address + delta, and through the entry
 * trampoline maps (recorded ones, and the per-CPU ones perf adds from the
 * trampoline symbol @tramp, kallsyms space) */
static int build_lookups(struct ks *k, int64_t delta, uint64_t tramp)
{
	const struct ks_facts *f = k->f;
	size_t i, j, n = 0, cap = f->nr_addrs;
	int rc;

	if ((rc = lookups_alloc(&k->k, cap)) < 0)
		return rc;
	for (i = 0; i < f->nr_addrs; i++) {
		uint64_t ip = f->addrs[i], a = ip + (uint64_t)delta;

		for (j = 0; j < f->nr_extra; j++)
			if (ip >= f->extra[j].start && ip < f->extra[j].end) {
				a = f->extra[j].pgoff + (ip - f->extra[j].start) + (uint64_t)delta;
				break;
			}
		if (tramp && ip >= X86_64_CPU_ENTRY_AREA_PER_CPU &&
		    ip < X86_64_CPU_ENTRY_AREA_PER_CPU + KS_MAX_CPUS * X86_64_CPU_ENTRY_AREA_SIZE) {
			uint64_t o = (ip - X86_64_CPU_ENTRY_AREA_PER_CPU) % X86_64_CPU_ENTRY_AREA_SIZE;

			if (o >= X86_64_ENTRY_TRAMPOLINE && o < X86_64_ENTRY_TRAMPOLINE + KS_PAGE)
				a = tramp + (o - X86_64_ENTRY_TRAMPOLINE);
		}
		k->k.a[n++] = a;
	}
	/* sort + unique (answers are per address) */
	if (n > 1) {
		uint64_t *v = k->k.a;
		size_t o = 0;

		for (i = 1; i < n; i++) {      /* insertion into a sorted run is rare: qsort */
			if (v[i] < v[i - 1])
				break;
		}
		if (i < n)
			qsort(v, n, sizeof(*v), sl_cmp_u64);
		for (i = 0; i < n; i++)
			if (!o || v[o - 1] != v[i])
				v[o++] = v[i];
		n = o;
	}
	k->k.n = n;
	if (f->nr_mods) {
		k->m = calloc(f->nr_mods, sizeof(*k->m));
		if (!k->m)
			return -ENOMEM;
		for (j = 0; j < f->nr_mods; j++) {
			size_t c = 0;

			if ((rc = lookups_alloc(&k->m[j], f->nr_addrs)) < 0)
				return rc;
			for (i = 0; i < f->nr_addrs; i++)
				if (f->addrs[i] >= f->mods[j].start && f->addrs[i] < f->mods[j].end)
					k->m[j].a[c++] = f->addrs[i];
			k->m[j].n = c;
		}
	}
	return 0;
}

/* Keep what every full answer needs. Returns 1 (with @why) if some answer
 * depends on the tree's shape. */
static int select_initial(struct ks *k, struct ks_result *res)
{
	size_t i, j;
	const struct summary *s = &k->sf;

	for (i = 0; i < k->k.n; i++) {
		if (k->k.f[i].kind == A_AMBIG) {
			sl_why_set(&res->why, SL_R_KS_AMBIGUOUS, "%#" PRIx64, k->k.a[i]);
			return 1;
		}
		if (k->k.f[i].kind == A_FOUND)
			keep_ent(k, k->k.f[i].win, 1);
	}
	for (j = 0; j < k->f->nr_mods; j++)
		for (i = 0; i < k->m[j].n; i++) {
			if (k->m[j].f[i].kind == A_AMBIG) {
				sl_why_set(&res->why, SL_R_KS_AMBIGUOUS, "%#" PRIx64, k->m[j].a[i]);
				return 1;
			}
			if (k->m[j].f[i].kind == A_FOUND)
				keep_ent(k, k->m[j].f[i].win, 1);
		}
	if (s->have_first)
		keep_ent(k, s->first_win, 0);
	if (s->have_last)
		keep_ent(k, s->last_win, 1);
	if (s->tramp)
		keep_ent(k, s->tramp_win, 1);
	return 0;
}

static int ans_eq(const struct ans *a, const struct ans *b)
{
	return a->kind == b->kind && (a->kind != A_FOUND || (a->win == b->win && a->end == b->end));
}

/* Compare the reduced answers with the full ones; keep more where they
 * differ. Returns the number of differences. */
static size_t compare_fix(struct ks *k)
{
	size_t i, j, diff = 0;
	const struct summary *f = &k->sf, *r = &k->sr;

	for (i = 0; i < k->k.n; i++)
		if (!ans_eq(&k->k.f[i], &k->k.r[i])) {
			diff++;
			if (k->k.f[i].kind == A_FOUND)
				keep_ent(k, k->k.f[i].win, 1);
			keep_around(k, k->k.a[i]);
		}
	for (j = 0; j < k->f->nr_mods; j++)
		for (i = 0; i < k->m[j].n; i++)
			if (!ans_eq(&k->m[j].f[i], &k->m[j].r[i])) {
				diff++;
				if (k->m[j].f[i].kind == A_FOUND)
					keep_ent(k, k->m[j].f[i].win, 1);
				keep_around(k, k->m[j].a[i]);
			}
	if (f->have_first != r->have_first || f->first_start != r->first_start) {
		diff++;
		if (r->have_first)
			keep_ent(k, group_first(k, r->first_win), 1);
	}
	if (f->have_last != r->have_last || f->last_end != r->last_end) {
		diff++;
		if (r->have_last)
			keep_ent(k, r->last_win, 1);
	}
	if (f->tramp != r->tramp) {
		diff++;
		if (r->tramp)
			keep_ent(k, r->tramp_win, 1);
	}
	if (f->split != r->split)
		diff++;
	return diff;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int emit(struct ks *k, struct ks_result *res)
{
	size_t i, n = 0, o = 0, total = 0;
	uint32_t *offs;
	unsigned w;

	for (i = 0; i < k->ne; i++)
		n += k->keep[i] != 0;
	offs = malloc((n + 4) * sizeof(*offs));
	if (!offs)
		return -ENOMEM;
	for (i = 0; i < k->ne; i++)
		if (k->keep[i])
			offs[o++] = k->e[i].off;
	for (w = 0; w < 4; w++)
		if (k->name_off[w] != UINT32_MAX)
			offs[o++] = k->name_off[w];
	qsort(offs, o, sizeof(*offs), cmp_u32);
	for (i = 0, n = 0; i < o; i++)
		if (!n || offs[n - 1] != offs[i])
			offs[n++] = offs[i];
	for (i = 0; i < n; i++) {
		struct ks_rec r;

		total += ks_parse_rec(k->buf, k->len, offs[i], &r);
	}
	res->out = malloc(total ? total : 1);
	if (!res->out) {
		free(offs);
		return -ENOMEM;
	}
	for (i = 0, o = 0; i < n; i++) {
		struct ks_rec r;
		size_t l = ks_parse_rec(k->buf, k->len, offs[i], &r);

		memcpy(res->out + o, k->buf + offs[i], l);
		o += l;
	}
	res->out_len = o;
	res->kept = n;
	free(offs);
	return 0;
}

static void ks_state_free(struct ks *k)
{
	size_t j;

	free(k->e);
	free(k->mods);
	lookups_free(&k->k);
	if (k->m)
		for (j = 0; j < k->f->nr_mods; j++)
			lookups_free(&k->m[j]);
	free(k->m);
	free(k->keep);
}

void ks_free(struct ks_result *r)
{
	free(r->out);
	r->out = NULL;
	r->out_len = 0;
}

int ks_filter(const char *buf, size_t len, const struct ks_facts *f, int kcore,
	      struct ks_result *res)
{
	struct ks k;
	int rc;
	int64_t delta = 0;
	unsigned round;

	memset(res, 0, sizeof(*res));
	memset(&k, 0, sizeof(k));
	res->mode = KS_PASS;
	k.buf = buf;
	k.len = len;
	k.f = f;
	if (!f->have_kmmap) {
		sl_why_set(&res->why, SL_R_KS_NO_KMMAP, NULL);
		return 0;
	}
	if (kcore) {
		sl_why_set(&res->why, SL_R_KS_KCORE, NULL);
		return 0;
	}
	rc = collect(&k, res);
	if (rc)
		goto out;
	if (f->ref_name[0]) {
		struct ks_rec r;

		ks_parse_rec(buf, len, k.name_off[0], &r);
		delta = (int64_t)(r.start - f->kpgoff);
	}
	res->delta = delta;
	/* the trampoline symbol (if any) decides the per-CPU lookups: one
	 * walk without lookups finds it */
	if ((rc = lookups_alloc(&k.k, 0)) < 0)
		goto out;
	walk(&k, NULL, 0, &k.sf);
	lookups_free(&k.k);
	memset(&k.k, 0, sizeof(k.k));
	if ((rc = build_lookups(&k, delta, k.sf.tramp)) < 0)
		goto out;
	walk(&k, NULL, 0, &k.sf);
	if (k.sf.split) {
		sl_why_set(&res->why, SL_R_KS_UNMODELED, "%#" PRIx64, k.sf.split_at);
		goto out;
	}
	k.keep = calloc(k.ne ? k.ne : 1, 1);
	if (!k.keep) {
		rc = -ENOMEM;
		goto out;
	}
	if (select_initial(&k, res))
		goto out;
	for (round = 1; round <= KS_ROUNDS; round++) {
		walk(&k, k.keep, 1, &k.sr);
		if (!compare_fix(&k))
			break;
	}
	res->rounds = round;
	if (round > KS_ROUNDS) {
		sl_why_set(&res->why, SL_R_KS_DIFFERS, NULL);
		goto out;
	}
	if ((rc = emit(&k, res)) < 0)
		goto out;
	res->mode = KS_FILTERED;
out:
	ks_state_free(&k);
	if (rc == 1)
		rc = 0;
	if (rc < 0)
		ks_free(res);
	return rc < 0 ? rc : 0;
}
