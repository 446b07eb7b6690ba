/* SPDX-License-Identifier: MIT */
/*
 * abbrevord.c - see abbrevord.h. Format facts: DWARF 5 section 7.5.1.1-3
 * (unit headers: unit_length, version, unit_type, address_size,
 * debug_abbrev_offset, then dwo_id or type_signature + type_offset),
 * DWARF 4 section 7.5.1.1-2 (version 2-4: unit_length, version,
 * debug_abbrev_offset, address_size; .debug_types adds type_signature and
 * type_offset), 7.5.3 (abbreviation entries: code, tag, children byte,
 * (name, form) pairs ending in (0, 0), DW_FORM_implicit_const (0x21)
 * followed by an SLEB128). How libdw reads them: elfutils 0.196
 * libdw/dwarf_getabbrev.c __libdw_getabbrev (a table ends at a 0 byte; code,
 * name and form read into unsigned int; "abbrevp + 1 >= end" before the
 * children byte), libdw/dwarf_tag.c __libdw_findabbrev (sequential).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "index/abbrevord.h"

#define DW_FORM_implicit_const 0x21
#define MAX_ENTRIES (1u << 20)

/* LEB128 that ends inside [*p, end) within 10 bytes; value below 2^32 */
static int uleb(const unsigned char **p, const unsigned char *end, uint32_t *v)
{
	uint64_t r = 0;

	for (int i = 0; i < 10 && *p < end; i++) {
		unsigned char b = *(*p)++;

		if (i < 9)
			r |= (uint64_t)(b & 0x7f) << (7 * i);
		else if (b & 0x7e)
			return -1;
		if (!(b & 0x80)) {
			if (r >> 32)
				return -1;
			*v = (uint32_t)r;
			return 0;
		}
	}
	return -1;
}

static int sleb_skip(const unsigned char **p, const unsigned char *end)
{
	for (int i = 0; i < 10 && *p < end; i++)
		if (!(*(*p)++ & 0x80))
			return 0;
	return -1;
}

/* one entry at @p (not the 0 that ends a table) parsed as libdw would,
 * cleanly: its length, or -1 */
static long entry(const unsigned char *p, const unsigned char *end, uint32_t *code)
{
	const unsigned char *s = p;
	uint32_t tag, name, form;

	if (uleb(&p, end, code) || !*code || p >= end || uleb(&p, end, &tag) || p + 1 >= end)
		return -1;
	p++;                                    /* DW_CHILDREN_* */
	do {
		if (p >= end || uleb(&p, end, &name) || p >= end || uleb(&p, end, &form))
			return -1;
		if (form == DW_FORM_implicit_const && (p >= end || sleb_skip(&p, end)))
			return -1;
	} while (name || form);
	return p - s;
}

static uint64_t rd(const unsigned char *p, int n)
{
	uint64_t v = 0;

	memcpy(&v, p, (size_t)n);              /* little-endian host and file */
	return v;
}

/* the unit at @off: its end, abbrev table offset and first DIE's offset
 * (0 when the header is one we do not read); returns 0, or -1 at the end
 * of the section or a length libdw stops at */
static int unit(const unsigned char *sec, size_t len, uint64_t off, int types,
		uint64_t *next, uint64_t *abbr, uint64_t *die)
{
	const unsigned char *p = sec + off, *end;
	uint64_t ul;
	int osz = 4;
	unsigned ver, ut = 1;

	*die = 0;
	if (len - off < 4)
		return -1;
	ul = rd(p, 4);
	p += 4;
	if (ul == 0xffffffffu) {
		if (len - off < 12)
			return -1;
		ul = rd(p, 8);
		p += 8;
		osz = 8;
	} else if (ul >= 0xfffffff0u) {
		return -1;
	}
	if (ul > len - (size_t)(p - sec))
		return -1;
	end = p + ul;
	*next = (uint64_t)(end - sec);
	if (end - p < 2)
		return 0;
	ver = (unsigned)rd(p, 2);
	p += 2;
	if (ver < 2 || ver > 5 || (types && ver != 4))
		return 0;
	if (ver == 5) {
		if (end - p < 2 + osz)
			return 0;
		ut = p[0];
		p += 2;                         /* unit_type, address_size */
		*abbr = rd(p, osz);
		p += osz;
		if (ut == 4 || ut == 5)         /* DW_UT_skeleton, DW_UT_split_compile */
			p += 8;
		else if (ut == 2 || ut == 6)    /* DW_UT_type, DW_UT_split_type */
			p += 8 + osz;
		else if (ut != 1 && ut != 3)    /* DW_UT_compile, DW_UT_partial */
			return 0;
	} else {
		if (end - p < osz + 1)
			return 0;
		*abbr = rd(p, osz);
		p += osz + 1;                   /* address_size */
		if (types)
			p += 8 + osz;
	}
	if (p >= end)
		return 0;
	*die = (uint64_t)(p - sec);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void reverse(unsigned char *a, size_t n)
{
	for (size_t i = 0, j = n; i + 1 < j; i++, j--) {
		unsigned char t = a[i];

		a[i] = a[j - 1];
		a[j - 1] = t;
	}
}

/* collect the table starts of every unit of one section (append to *v) */
static int starts(const unsigned char *sec, size_t len, int types, uint64_t **v, size_t *n, size_t *cap)
{
	uint64_t off = 0, next, ab, die;

	while (off < len && unit(sec, len, off, types, &next, &ab, &die) == 0) {
		if (die) {
			if (*n == *cap) {
				size_t c = *cap ? *cap * 2 : 256;
				uint64_t *t = realloc(*v, c * sizeof(**v));

				if (!t)
					return -ENOMEM;
				*v = t;
				*cap = c;
			}
			(*v)[(*n)++] = ab;
		}
		off = next;
	}
	return 0;
}

struct ctx {
	unsigned char *ab;
	size_t alen;
	const uint64_t *st;     /* sorted unique table starts */
	const uint64_t *reach;  /* reach[i]: max over starts 0..i of where libdw's
				 * walk of that table can end (past its 0 byte;
				 * the section end when an entry does not parse) */
	size_t nst;
	uint32_t *codes;
	size_t ncap;
	uint64_t budget;
	struct sl_abbrev_stats *s;
};

/* does another table's walk touch [lo, hi) (lo a table start)? a start S
 * with lo < S < hi, or a table starting before lo whose walk goes past lo */
static int start_inside(const struct ctx *c, uint64_t lo, uint64_t hi)
{
	size_t l = 0, u = c->nst;

	while (l < u) {                         /* first start > lo */
		size_t m = (l + u) / 2;

		if (c->st[m] <= lo)
			l = m + 1;
		else
			u = m;
	}
	if (l < c->nst && c->st[l] < hi)
		return 1;
	/* st[l - 1] == lo; the starts before it */
	return l >= 2 && c->reach[l - 2] > lo;
}

/* where libdw's walk of the table at @t can end: past its 0 byte, or the
 * section end when an entry does not parse */
static uint64_t table_end(const unsigned char *ab, size_t alen, uint64_t t)
{
	const unsigned char *q = ab + t, *end = ab + alen;
	uint32_t code;
	long el;

	while (q < end && *q) {
		if ((el = entry(q, end, &code)) < 0)
			return alen;
		q += el;
	}
	return q < end ? (uint64_t)(q - ab) + 1 : alen;
}

static int one_unit(struct ctx *c, const unsigned char *sec, size_t len, uint64_t ab, uint64_t die)
{
	const unsigned char *p = sec + die, *aend = c->ab + c->alen, *q;
	uint32_t want, code;
	size_t n = 0;
	long el;

	c->s->units++;
	if (uleb(&p, sec + len, &want) || !want || ab >= c->alen) {
		c->s->left++;
		return 0;
	}
	for (q = c->ab + ab;; q += el) {
		if (q >= aend || !*q || n == MAX_ENTRIES || (el = entry(q, aend, &code)) < 0) {
			c->s->left++;           /* not found, unclean or too long */
			return 0;
		}
		if (n == c->ncap) {
			size_t nc = c->ncap ? c->ncap * 2 : 256;
			uint32_t *t = realloc(c->codes, nc * sizeof(*t));

			if (!t)
				return -ENOMEM;
			c->codes = t;
			c->ncap = nc;
		}
		c->codes[n++] = code;
		if (code == want)
			break;
	}
	if (q == c->ab + ab) {
		c->s->front++;
		return 0;
	}
	qsort(c->codes, n, sizeof(*c->codes), cmp_u32);
	for (size_t i = 1; i < n; i++) {
		if (c->codes[i] == c->codes[i - 1]) {
			c->s->left++;           /* libdw fails on a duplicate: keep its order */
			return 0;
		}
	}
	uint64_t lo = ab, hi = (uint64_t)(q - c->ab) + (uint64_t)el;

	if (start_inside(c, lo, hi) || hi - lo > c->budget) {
		c->s->left++;
		return 0;
	}
	c->budget -= hi - lo;
	/* rotate [lo, hi) right by el: the entry first, the rest in order */
	reverse(c->ab + lo, (size_t)(hi - lo));
	reverse(c->ab + lo, (size_t)el);
	reverse(c->ab + lo + el, (size_t)(hi - lo - el));
	c->s->moved++;
	return 0;
}

static int pass(struct ctx *c, const unsigned char *sec, size_t len, int types)
{
	uint64_t off = 0, next, ab, die;
	int r;

	while (off < len && unit(sec, len, off, types, &next, &ab, &die) == 0) {
		if (die && (r = one_unit(c, sec, len, ab, die)) < 0)
			return r;
		if (!die)
			c->s->units++, c->s->left++;
		off = next;
	}
	return 0;
}

int sl_abbrev_front(unsigned char *abbrev, size_t alen, const unsigned char *info, size_t ilen,
		    const unsigned char *types, size_t tlen, struct sl_abbrev_stats *st)
{
	struct ctx c = { .ab = abbrev, .alen = alen, .s = st };
	uint64_t *v = NULL, *reach = NULL;
	size_t n = 0, cap = 0, u = 0;
	int r;

	if (!abbrev || !alen)
		return 0;
	if ((info && (r = starts(info, ilen, 0, &v, &n, &cap)) < 0) ||
	    (types && (r = starts(types, tlen, 1, &v, &n, &cap)) < 0))
		goto out;
	if (n)
		qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (!u || v[i] != v[u - 1])
			v[u++] = v[i];
	c.st = v;
	c.nst = u;
	c.budget = 16 * (uint64_t)alen + (1u << 20);
	if (u && !(reach = malloc(u * sizeof(*reach)))) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < u; i++) {
		/* tables are walked once, on the bytes before any move (a move
		 * never touches another table's walk, so they stay valid);
		 * past the work bound, a table reaches the section end */
		uint64_t e = v[i] >= alen ? v[i] : c.budget ? table_end(abbrev, alen, v[i]) : alen;

		c.budget -= e - v[i] < c.budget ? e - v[i] : c.budget;
		reach[i] = i && reach[i - 1] > e ? reach[i - 1] : e;
	}
	c.reach = reach;
	r = 0;
	if (info)
		r = pass(&c, info, ilen, 0);
	if (r == 0 && types)
		r = pass(&c, types, tlen, 1);
out:
	free(v);
	free(reach);
	free(c.codes);
	return r;
}
