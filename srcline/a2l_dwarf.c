/* SPDX-License-Identifier: MIT */
/*
 * srcline/a2l_dwarf.c - the DWARF table of srcline/a2l_dwarf.h: build from
 * the ELF bytes (bounds-checked reader, no libdw: bfd's own reading order
 * must be mirrored), validation and the cache file.
 *
 * Format facts: DWARF 4 and DWARF 5 (sections 6.2 line number program, 7.5
 * unit headers, abbreviations and forms, 7.22 line number header entry
 * formats, 7.25 range lists); binutils-2.40 bfd/dwarf2.c read_abbrevs,
 * read_attribute_value, parse_comp_unit, decode_line_info, add_line_info,
 * sort_line_sequences, concat_filename, read_ranges / read_rnglists,
 * arange_add, scan_unit_for_symbols, find_abstract_instance, mangle_style,
 * lookup_address_in_function_table; gABI SHF_COMPRESSED / Elf64_Chdr.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elf.h>
#include <dwarf.h>
#include "index/cache.h"
#include "index/format.h"
#include "srcline/a2l.h"
#include "srcline/a2l_dwarf.h"
#include "srcline/a2l_elf.h"
#include "util/zlib_dl.h"
#include "util/zstd_dl.h"

#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2     /* gABI */
#endif

_Static_assert(sizeof(struct a2d_hdr) == 200, "a2d header layout");
_Static_assert(sizeof(struct a2d_func) == 32, "a2d func layout");

#define A2D_MAX_DWARF (16u << 20)    /* ~1.5 s of table build */
#define MAX_ACTIVE 4096         /* overlapping function ranges at one address */

static int dfail(char *why, size_t n, int r, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int dfail(char *why, size_t n, int r, const char *fmt, ...)
{
	va_list ap;

	if (n) {
		va_start(ap, fmt);
		vsnprintf(why, n, fmt, ap);
		va_end(ap);
	}
	return r;
}

/* ---- growable arrays -------------------------------------------------------------- */

struct vec { void *p; size_t n, cap, sz; };

static void *vpush(struct vec *v)
{
	if (v->n == v->cap) {
		size_t nc = v->cap ? v->cap * 2 : 64;
		void *np = realloc(v->p, nc * v->sz);

		if (!np)
			return NULL;
		v->p = np;
		v->cap = nc;
	}
	return memset((char *)v->p + v->n++ * v->sz, 0, v->sz);
}

/* ---- sections -------------------------------------------------------------------- */

struct dsec { const unsigned char *p; uint64_t n; void *owned; int present; };

static const unsigned char *img_at(const struct a2l_img *m, uint64_t off, uint64_t len)
{
	return a2l_in_file(m, off, len) ? m->p + off : NULL;
}

static const char *img_sec_name(const struct a2l_img *m, const Elf64_Shdr *sh)
{
	Elf64_Shdr ss;
	const unsigned char *d;

	if (!a2l_shdr(m, m->shstrndx, &ss) || sh->sh_name >= ss.sh_size || !(d = img_at(m, ss.sh_offset, ss.sh_size)))
		return NULL;
	if (!memchr(d + sh->sh_name, 0, ss.sh_size - sh->sh_name))
		return NULL;
	return (const char *)d + sh->sh_name;
}

/* inflate SHF_COMPRESSED section data (bfd: BFD_DECOMPRESS on read) */
static int inflate_into(const unsigned char *in, uint64_t inlen, uint32_t type, unsigned char *out, uint64_t want)
{
	if (type == ELFCOMPRESS_ZLIB) {
		const struct zlib_dl *zl = zlib_dl_load();
		z_stream z;
		int zr;

		if (!zl)
			return -ENOSYS;
		memset(&z, 0, sizeof(z));
		if (zl->inflateInit_(&z, ZLIB_VERSION, (int)sizeof(z)) != Z_OK)
			return -ENOMEM;
		z.next_in = (Bytef *)in;
		z.next_out = out;
		zr = Z_OK;
		/* uInt chunks */
		while (zr == Z_OK) {
			uint64_t il = (uint64_t)(in + inlen - z.next_in), ol = (uint64_t)(out + want - z.next_out);

			z.avail_in = il > (1u << 30) ? 1u << 30 : (uInt)il;
			z.avail_out = ol > (1u << 30) ? 1u << 30 : (uInt)ol;
			zr = zl->inflate(&z, Z_NO_FLUSH);
			if (zr == Z_BUF_ERROR && (z.avail_in || z.avail_out))
				zr = Z_OK;
			if (zr == Z_OK && !z.avail_in && !z.avail_out &&
			    (uint64_t)(z.next_out - out) == want && z.next_in == in + inlen)
				break;
		}
		zl->inflateEnd(&z);
		return (zr == Z_STREAM_END || zr == Z_OK) && (uint64_t)(z.next_out - out) == want ? 0 : -EBADMSG;
	}
	if (type == ELFCOMPRESS_ZSTD) {
		const struct zstd_dl *zs = zstd_dl_load();
		ZSTD_DStream *ds;
		ZSTD_inBuffer ib = { in, (size_t)inlen, 0 };
		ZSTD_outBuffer ob = { out, (size_t)want, 0 };
		size_t zr = 1;

		if (!zs)
			return -ENOSYS;
		if (!(ds = zs->createDStream()))
			return -ENOMEM;
		if (zs->isError(zs->initDStream(ds))) {
			zs->freeDStream(ds);
			return -ENOMEM;
		}
		while (ib.pos < ib.size || zr) {
			size_t before = ob.pos + ib.pos;

			zr = zs->decompressStream(ds, &ob, &ib);
			if (zs->isError(zr) || (zr && ob.pos + ib.pos == before))
				break;
			if (!zr && ib.pos == ib.size)
				break;
		}
		zs->freeDStream(ds);
		return !zs->isError(zr) && zr == 0 && ob.pos == want ? 0 : -EBADMSG;
	}
	return -ENOTSUP;
}

static int load_sec(const struct a2l_img *m, const Elf64_Shdr *sh, struct dsec *d)
{
	const unsigned char *raw;

	d->present = 1;
	if (sh->sh_type == SHT_NOBITS)
		return -ENOTSUP;
	if (!(raw = img_at(m, sh->sh_offset, sh->sh_size)))
		return -EINVAL;
	if (sh->sh_flags & SHF_COMPRESSED) {
		Elf64_Chdr ch;
		int r;

		if (sh->sh_size < sizeof(ch))
			return -EINVAL;
		memcpy(&ch, raw, sizeof(ch));
		if (ch.ch_size > 4ull * A2D_MAX_DWARF)
			return -EFBIG;         /* inflated on the heap: bounded */
		if (!(d->owned = malloc(ch.ch_size ? ch.ch_size : 1)))
			return -ENOMEM;
		r = inflate_into(raw + sizeof(ch), sh->sh_size - sizeof(ch), ch.ch_type, d->owned, ch.ch_size);
		if (r < 0)
			return r;
		d->p = d->owned;
		d->n = ch.ch_size;
		return 0;
	}
	d->p = raw;
	d->n = sh->sh_size;
	return 0;
}

/* ---- the reader -------------------------------------------------------------------- */

struct rd { const unsigned char *p, *e; int bad; };

static uint64_t rd_n(struct rd *r, unsigned n)
{
	uint64_t v = 0;

	if (r->bad || (size_t)(r->e - r->p) < n) {
		r->bad = 1;
		r->p = r->e;
		return 0;
	}
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

static uint64_t rd_uleb(struct rd *r)
{
	uint64_t v = 0;
	unsigned sh = 0;

	while (!r->bad) {
		unsigned char b;

		if (r->p >= r->e) {
			r->bad = 1;
			break;
		}
		b = *r->p++;
		if (sh < 64)
			v |= (uint64_t)(b & 0x7f) << sh;
		sh += 7;
		if (!(b & 0x80))
			break;
	}
	return v;
}

static int64_t rd_sleb(struct rd *r)
{
	uint64_t v = 0;
	unsigned sh = 0;
	unsigned char b = 0;

	while (!r->bad) {
		if (r->p >= r->e) {
			r->bad = 1;
			break;
		}
		b = *r->p++;
		if (sh < 64)
			v |= (uint64_t)(b & 0x7f) << sh;
		sh += 7;
		if (!(b & 0x80))
			break;
	}
	if (sh < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << sh;
	return (int64_t)v;
}

/* a NUL-terminated string at @p inside [p, e): NULL when it runs off (refused) */
static const char *cstr(const unsigned char *p, const unsigned char *e)
{
	return p < e && memchr(p, 0, (size_t)(e - p)) ? (const char *)p : NULL;
}

/* ---- the build state ------------------------------------------------------------- */

struct abbr { uint32_t code, tag, children, first, nattr; };
struct aattr { uint32_t name, form; int64_t ic; };

struct arng { uint64_t lo, hi; };

struct fn {                     /* one funcinfo while building */
	uint32_t cu, caller, flags, call_line;
	const char *name, *call_file_s;
	char *call_file;        /* owned */
	uint32_t first_rng, nrng;       /* in b->frng, bfd's arange list order */
	uint64_t die;           /* .debug_info offset */
};

struct file_ent { const char *name; uint32_t dir; };

struct unit {
	uint64_t off, end, first_die;   /* in .debug_info */
	unsigned version, addr_size;
	uint32_t abbr_first, abbr_n, abbr_maxcode, *abbr_by_code;
	uint64_t lang, base, line_off;
	int stmtlist, compile;
	const char *comp_dir;
	struct vec own;         /* struct arng: initial aranges */
	struct vec extra;       /* struct arng: function ranges and line sequences */
	/* line table */
	struct vec dirs, files; /* const char *, struct file_ent */
	int use0;
	uint32_t fn_first, fn_end;
	uint32_t l_first, l_end, f_first, f_end;    /* output slices */
};

struct ltmp { uint64_t lo, hi; const char *f; uint32_t line, discr; };
struct lrow { uint64_t addr; const char *file; uint32_t line, discr; int end; };
struct seq { uint64_t low, end; uint32_t first, n, idx; };  /* rows in b->rows */

struct bld {
	const struct a2l_img *m;
	struct dsec info, abbrev, line, str, line_str, ranges, rnglists;
	struct vec units, abbrs, aattrs, fns, frng, rows, seqs, lints, fints, cranges, strs, owned;
	struct vec zone;        /* struct arng: where laziness could matter */
	char *why;
	size_t whysz;
};

static void bld_free(struct bld *b)
{
	struct dsec *ds[] = { &b->info, &b->abbrev, &b->line, &b->str, &b->line_str, &b->ranges, &b->rnglists };
	struct unit *u = b->units.p;

	for (size_t i = 0; i < sizeof(ds) / sizeof(ds[0]); i++)
		free(ds[i]->owned);
	for (size_t i = 0; i < b->units.n; i++) {
		free(u[i].own.p);
		free(u[i].extra.p);
		free(u[i].dirs.p);
		free(u[i].files.p);
		free(u[i].abbr_by_code);
	}
	for (size_t i = 0; i < b->owned.n; i++)
		free(((char **)b->owned.p)[i]);
	free(b->units.p);
	free(b->abbrs.p);
	free(b->aattrs.p);
	free(b->fns.p);
	free(b->frng.p);
	free(b->rows.p);
	free(b->seqs.p);
	free(b->lints.p);
	free(b->fints.p);
	free(b->cranges.p);
	free(b->strs.p);
	free(b->owned.p);
	free(b->zone.p);
}

static char *own_str(struct bld *b, char *s)
{
	char **slot;

	if (!s || !(slot = vpush(&b->owned))) {
		free(s);
		return NULL;
	}
	return *slot = s;
}

/* ---- abbreviations (read_abbrevs) ------------------------------------------------ */

static int read_abbrevs(struct bld *b, struct unit *u, uint64_t off)
{
	struct rd r;
	uint64_t code;
	uint32_t maxc = 0;
	struct abbr *ab;

	if (off >= b->abbrev.n)
		return -EINVAL;
	r = (struct rd){ b->abbrev.p + off, b->abbrev.p + b->abbrev.n, 0 };
	u->abbr_first = (uint32_t)b->abbrs.n;
	code = rd_uleb(&r);
	while (code && !r.bad) {
		struct abbr *a;
		uint64_t name, form;

		if (code > 65535)
			return -ENOTSUP;
		if (!(a = vpush(&b->abbrs)))
			return -ENOMEM;
		a->code = (uint32_t)code;
		a->tag = (uint32_t)rd_uleb(&r);
		a->children = (uint32_t)rd_n(&r, 1);
		a->first = (uint32_t)b->aattrs.n;
		maxc = a->code > maxc ? a->code : maxc;
		for (;;) {
			struct aattr *at;
			int64_t ic = -1;

			name = rd_uleb(&r);
			form = rd_uleb(&r);
			if (form == DW_FORM_implicit_const)
				ic = rd_sleb(&r);
			if (!name || r.bad)
				break;
			if (!(at = vpush(&b->aattrs)))
				return -ENOMEM;
			at->name = (uint32_t)name;
			at->form = (uint32_t)form;
			at->ic = ic;
			((struct abbr *)b->abbrs.p)[b->abbrs.n - 1].nattr++;
		}
		if (r.bad)
			return -EINVAL;
		if ((uint64_t)(r.p - b->abbrev.p) >= b->abbrev.n)
			break;
		code = rd_uleb(&r);
		/* an abbrev number seen before ends the table (read_abbrevs) */
		ab = b->abbrs.n > u->abbr_first ? (struct abbr *)b->abbrs.p + u->abbr_first : NULL;
		for (size_t i = 0; i + u->abbr_first < b->abbrs.n; i++)
			if (ab[i].code == code)
				goto done;
	}
	if (r.bad)
		return -EINVAL;
done:
	u->abbr_n = (uint32_t)(b->abbrs.n - u->abbr_first);
	u->abbr_maxcode = maxc;
	if (!(u->abbr_by_code = malloc(((size_t)maxc + 1) * 4)))
		return -ENOMEM;
	memset(u->abbr_by_code, 0xff, ((size_t)maxc + 1) * 4);
	ab = u->abbr_n ? (struct abbr *)b->abbrs.p + u->abbr_first : NULL;
	for (uint32_t i = 0; i < u->abbr_n; i++)
		if (u->abbr_by_code[ab[i].code] == A2L_NONE)
			u->abbr_by_code[ab[i].code] = u->abbr_first + i;
	return 0;
}

static const struct abbr *abbr_of(const struct bld *b, const struct unit *u, uint64_t code)
{
	if (code > u->abbr_maxcode || u->abbr_by_code[code] == A2L_NONE)
		return NULL;
	return (const struct abbr *)b->abbrs.p + u->abbr_by_code[code];
}

/* ---- attributes (read_attribute_value) ----------------------------------------- */

enum { AV_NONE, AV_INT, AV_STR, AV_BLK };

struct attr {
	uint32_t name, form;
	int kind;
	uint64_t val;
	const char *str;        /* AV_STR: NULL = empty or missing (bfd: NULL) */
};

static int is_int_form(uint32_t f)
{
	switch (f) {
	case DW_FORM_addr: case DW_FORM_data2: case DW_FORM_data4: case DW_FORM_data8: case DW_FORM_data1:
	case DW_FORM_flag: case DW_FORM_sdata: case DW_FORM_udata: case DW_FORM_ref_addr: case DW_FORM_ref1:
	case DW_FORM_ref2: case DW_FORM_ref4: case DW_FORM_ref8: case DW_FORM_ref_udata: case DW_FORM_sec_offset:
	case DW_FORM_flag_present: case DW_FORM_ref_sig8: case DW_FORM_implicit_const:
		return 1;
	default:
		return 0;
	}
}

static const char *indirect(const struct dsec *s, uint64_t off, int *bad)
{
	const char *p;

	if (off >= s->n) {
		*bad = 1;       /* bfd: read_section fails, attribute NULL; refused */
		return NULL;
	}
	if (!(p = cstr(s->p + off, s->p + s->n))) {
		*bad = 1;
		return NULL;
	}
	return *p ? p : NULL;
}

/* One attribute value; -ENOTSUP for forms outside the served class. */
static int read_attr(struct bld *b, const struct unit *u, struct rd *r, uint32_t form, int64_t ic, struct attr *a)
{
	const unsigned char *p0;

	a->form = form;
	a->kind = AV_INT;
	a->str = NULL;
	a->val = 0;
	if (r->p >= r->e && form != DW_FORM_flag_present)
		return -EINVAL;
	switch (form) {
	case DW_FORM_addr:
		a->val = rd_n(r, u->addr_size);
		break;
	case DW_FORM_ref_addr:
		a->val = rd_n(r, u->version == 2 ? u->addr_size : 4);
		break;
	case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt: case DW_FORM_strx: case DW_FORM_strx1:
	case DW_FORM_strx2: case DW_FORM_strx3: case DW_FORM_strx4: case DW_FORM_addrx: case DW_FORM_addrx1:
	case DW_FORM_addrx2: case DW_FORM_addrx3: case DW_FORM_addrx4: case DW_FORM_rnglistx:
	case DW_FORM_loclistx: case DW_FORM_indirect:
		return -ENOTSUP;
	case DW_FORM_flag_present:
		a->val = 1;
		break;
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag:
		a->val = rd_n(r, 1);
		break;
	case DW_FORM_data2: case DW_FORM_ref2:
		a->val = rd_n(r, 2);
		break;
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_sec_offset:
		a->val = rd_n(r, 4);
		break;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8:
		a->val = rd_n(r, 8);
		break;
	case DW_FORM_string:
		p0 = r->p;
		if (!cstr(p0, r->e))
			return -EINVAL;
		r->p += strlen((const char *)p0) + 1;
		a->kind = AV_STR;
		a->str = *p0 ? (const char *)p0 : NULL;
		break;
	case DW_FORM_strp: case DW_FORM_line_strp: {
		int bad = 0;

		a->val = rd_n(r, 4);
		a->kind = AV_STR;
		if (r->bad)
			return -EINVAL;
		a->str = indirect(form == DW_FORM_strp ? &b->str : &b->line_str, a->val, &bad);
		if (bad)
			return -EINVAL;
		break;
	}
	case DW_FORM_exprloc: case DW_FORM_block: {
		uint64_t n = rd_uleb(r);

		if (r->bad || n > (uint64_t)(r->e - r->p))
			return -EINVAL;
		r->p += n;
		a->kind = AV_BLK;
		break;
	}
	case DW_FORM_block1: case DW_FORM_block2: case DW_FORM_block4: {
		uint64_t n = rd_n(r, form == DW_FORM_block1 ? 1 : form == DW_FORM_block2 ? 2 : 4);

		if (r->bad || n > (uint64_t)(r->e - r->p))
			return -EINVAL;
		r->p += n;
		a->kind = AV_BLK;
		break;
	}
	case DW_FORM_sdata:
		a->val = (uint64_t)rd_sleb(r);
		break;
	case DW_FORM_udata: case DW_FORM_ref_udata:
		a->val = rd_uleb(r);
		break;
	case DW_FORM_implicit_const:
		a->form = DW_FORM_sdata;
		a->val = (uint64_t)ic;
		break;
	case DW_FORM_data16:
		if ((size_t)(r->e - r->p) < 16)
			return -EINVAL;
		r->p += 16;
		a->kind = AV_BLK;
		break;
	default:
		return -ENOTSUP;
	}
	return r->bad ? -EINVAL : 0;
}

/* ---- ranges (arange_add, read_ranges, read_rnglists) ------------------------------ */

/* bfd/dwarf2.c arange_add on the list @v (struct arng, [0] = first_arange) */
static int arange_add(struct vec *v, uint64_t lo, uint64_t hi)
{
	struct arng *a = v->p, *n;

	if (lo == hi)
		return 0;
	if (!v->n || a[0].hi == 0) {
		if (!v->n && !vpush(v))
			return -ENOMEM;
		a = v->p;
		a[0].lo = lo;
		a[0].hi = hi;
		return 0;
	}
	/* bfd walks first, then the list after it: first, its next (= the last
	 * inserted), ... - inserted after the first, so list order is
	 * [0], [n-1], [n-2], ..., [1] */
	for (size_t k = 0; k < v->n; k++) {
		size_t i = k == 0 ? 0 : v->n - k;

		if (lo == a[i].hi) {
			a[i].hi = hi;
			return 0;
		}
		if (hi == a[i].lo) {
			a[i].lo = lo;
			return 0;
		}
	}
	if (!(n = vpush(v)))
		return -ENOMEM;
	n->lo = lo;
	n->hi = hi;
	return 0;
}

static int read_rangelist(struct bld *b, const struct unit *u, uint64_t off, struct vec *v)
{
	uint64_t base = u->base;
	int r;

	if (u->version <= 4) {
		struct rd rr;

		if (!b->ranges.present || off > b->ranges.n)
			return -EINVAL;
		rr = (struct rd){ b->ranges.p + off, b->ranges.p + b->ranges.n, 0 };
		for (;;) {
			uint64_t lo, hi;

			if ((size_t)(rr.e - rr.p) < 2u * u->addr_size)
				return -EINVAL;
			lo = rd_n(&rr, u->addr_size);
			hi = rd_n(&rr, u->addr_size);
			if (lo == 0 && hi == 0)
				return 0;
			if (lo == ~0ull && hi != ~0ull)
				base = hi;
			else if ((r = arange_add(v, base + lo, base + hi)) < 0)
				return r;
		}
	} else {
		struct rd rr;

		if (!b->rnglists.present || off > b->rnglists.n)
			return -EINVAL;
		rr = (struct rd){ b->rnglists.p + off, b->rnglists.p + b->rnglists.n, 0 };
		for (;;) {
			uint64_t lo, hi;
			unsigned k;

			if (rr.p >= rr.e)
				return -EINVAL;
			k = (unsigned)rd_n(&rr, 1);
			switch (k) {
			case DW_RLE_end_of_list:
				return 0;
			case DW_RLE_base_address:
				base = rd_n(&rr, u->addr_size);
				if (rr.bad)
					return -EINVAL;
				continue;
			case DW_RLE_start_length:
				lo = rd_n(&rr, u->addr_size);
				hi = lo + rd_uleb(&rr);
				break;
			case DW_RLE_offset_pair:
				lo = base + rd_uleb(&rr);
				hi = base + rd_uleb(&rr);
				break;
			case DW_RLE_start_end:
				lo = rd_n(&rr, u->addr_size);
				hi = rd_n(&rr, u->addr_size);
				break;
			default:
				return -ENOTSUP;
			}
			if (rr.bad)
				return -EINVAL;
			if ((r = arange_add(v, lo, hi)) < 0)
				return r;
		}
	}
}

static int arange_push(struct vec *v, uint64_t lo, uint64_t hi)
{
	struct arng *a;

	if (lo == hi)
		return 0;
	if (!v->sz)
		v->sz = sizeof(struct arng);
	if (!(a = vpush(v)))
		return -ENOMEM;
	a->lo = lo;
	a->hi = hi;
	return 0;
}

/* ---- strings of the output ---------------------------------------------------------- */

/* file names built by concat_filename */
static const char *concat_filename(struct bld *b, const struct unit *u, uint64_t file64)
{
	const struct file_ent *f = u->files.p;
	const char *const *dirs = u->dirs.p;
	unsigned file = (unsigned)file64, dir;
	const char *dir_name = NULL, *sub = NULL, *name;
	char *out;
	size_t len;

	if (!u->use0) {
		if (file == 0)
			return "<unknown>";
		file--;
	}
	if (file >= u->files.n)
		return "<unknown>";
	name = f[file].name;
	if (!name)
		return "<unknown>";
	if (name[0] == '/')
		return name;
	dir = f[file].dir;
	if (!u->use0)
		dir--;
	if (dir < u->dirs.n)
		sub = dirs[dir];
	if (!sub || sub[0] != '/')
		dir_name = u->comp_dir;
	if (!dir_name) {
		dir_name = sub;
		sub = NULL;
	}
	if (!dir_name)
		return name;
	len = strlen(dir_name) + strlen(name) + (sub ? strlen(sub) : 0) + 3;
	if (!(out = malloc(len)))
		return NULL;
	if (sub)
		snprintf(out, len, "%s/%s/%s", dir_name, sub, name);
	else
		snprintf(out, len, "%s/%s", dir_name, name);
	return own_str(b, out);
}

/* ---- the line program (decode_line_info, add_line_info, sort_line_sequences) ----- */

static int seq_cmp(const void *pa, const void *pb)
{
	const struct seq *a = pa, *b = pb;

	if (a->low != b->low)
		return a->low < b->low ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int add_row(struct bld *b, struct vec *cur, uint64_t addr, const char *file, uint32_t line, uint32_t discr,
		   int end)
{
	struct lrow *rows = cur->p, *nr;

	if (file && !file[0])
		file = NULL;
	if (cur->n) {
		struct lrow *last = &rows[cur->n - 1];

		if (last->addr == addr && last->end == end) {   /* PR ld/4986: keep the last */
			*last = (struct lrow){ addr, file, line, discr, end };
			return 0;
		}
		if (addr < last->addr)
			return -ENOTSUP;       /* lcl_head heuristics not mirrored */
	}
	(void)b;
	if (!(nr = vpush(cur)))
		return -ENOMEM;
	*nr = (struct lrow){ addr, file, line, discr, end };
	return 0;
}

static int read_entries(struct bld *b, struct unit *u, struct rd *r, int files)
{
	unsigned nfmt = (unsigned)rd_n(r, 1);
	uint64_t fmt[2 * 256], cnt;

	for (unsigned i = 0; i < nfmt; i++) {
		fmt[2 * i] = rd_uleb(r);
		fmt[2 * i + 1] = rd_uleb(r);
	}
	cnt = rd_uleb(r);
	if (r->bad || (nfmt == 0 && cnt) || cnt > (uint64_t)(r->e - r->p))
		return -EINVAL;
	for (uint64_t k = 0; k < cnt; k++) {
		struct file_ent fe = { NULL, 0 };
		struct attr a;
		int rr;

		for (unsigned i = 0; i < nfmt; i++) {
			uint64_t ct = fmt[2 * i], form = fmt[2 * i + 1];

			if (ct != DW_LNCT_path && ct != DW_LNCT_directory_index && ct != DW_LNCT_timestamp &&
			    ct != DW_LNCT_size && ct != DW_LNCT_MD5)
				return -EINVAL;
			if (form > 0xffff)
				return -ENOTSUP;
			if ((rr = read_attr(b, u, r, (uint32_t)form, 0, &a)) < 0)
				return rr;
			if (form == DW_FORM_string || form == DW_FORM_line_strp) {
				if (ct == DW_LNCT_path)
					fe.name = a.str;
			} else if (form == DW_FORM_data1 || form == DW_FORM_data2 || form == DW_FORM_data4 ||
				   form == DW_FORM_data8 || form == DW_FORM_udata) {
				if (ct == DW_LNCT_directory_index)
					fe.dir = (uint32_t)a.val;
			}
		}
		if (files) {
			struct file_ent *f = vpush(&u->files);

			if (!f)
				return -ENOMEM;
			*f = fe;
		} else {
			const char **d = vpush(&u->dirs);

			if (!d)
				return -ENOMEM;
			*d = fe.name;
		}
	}
	return 0;
}

static int decode_lines_in(struct bld *b, struct unit *u, uint32_t ui, struct vec *curp);

/* the rows of the sequence being decoded live in one vector, freed here
 * whatever way decode_lines_in leaves */
static int decode_lines(struct bld *b, struct unit *u, uint32_t ui)
{
	struct vec cur = { NULL, 0, 0, sizeof(struct lrow) };
	int r = decode_lines_in(b, u, ui, &cur);

	free(cur.p);
	return r;
}

static int decode_lines_in(struct bld *b, struct unit *u, uint32_t ui, struct vec *curp)
{
	struct rd r;
	uint64_t len;
	unsigned ver, min_insn, max_ops, opbase, lrange;
	int line_base, rr;
	unsigned char oplen[256];
#define cur (*curp)
	uint32_t seq_first = (uint32_t)b->seqs.n;

	if (!b->line.present || u->line_off >= b->line.n || b->line.n < 16)
		return -EINVAL;
	r = (struct rd){ b->line.p + u->line_off, b->line.p + b->line.n, 0 };
	len = rd_n(&r, 4);
	if (len == 0xffffffff || len == 0)
		return -ENOTSUP;       /* 64-bit DWARF */
	if (len > (uint64_t)(r.e - r.p))
		return -EINVAL;
	r.e = r.p + len;
	ver = (unsigned)rd_n(&r, 2);
	if (ver < 4 || ver > 5 || ver != u->version)
		return -ENOTSUP;
	if (r.p + 4 + (ver >= 5 ? 8 : 6) >= r.e)
		return -EINVAL;
	if (ver >= 5) {
		rd_n(&r, 1);
		if (rd_n(&r, 1) != 0)
			return -ENOTSUP;
	}
	rd_n(&r, 4);            /* header_length */
	min_insn = (unsigned)rd_n(&r, 1);
	max_ops = (unsigned)rd_n(&r, 1);
	if (max_ops != 1)
		return -ENOTSUP;
	int default_is_stmt = (int)rd_n(&r, 1);
	(void)default_is_stmt;
	line_base = (signed char)rd_n(&r, 1);
	lrange = (unsigned)rd_n(&r, 1);
	opbase = (unsigned)rd_n(&r, 1);
	if (r.bad || opbase == 0 || r.p + (opbase - 1) >= r.e)
		return -EINVAL;
	oplen[0] = 1;
	for (unsigned i = 1; i < opbase; i++)
		oplen[i] = (unsigned char)rd_n(&r, 1);
	if (ver >= 5) {
		if ((rr = read_entries(b, u, &r, 0)) < 0 || (rr = read_entries(b, u, &r, 1)) < 0)
			return rr;
		u->use0 = 1;
	} else {
		for (;;) {
			const char *s = cstr(r.p, r.e), **d;

			if (!s)
				return -EINVAL;
			r.p += strlen(s) + 1;
			if (!*s)
				break;
			if (!(d = vpush(&u->dirs)))
				return -ENOMEM;
			*d = s;
		}
		for (;;) {
			const char *s = cstr(r.p, r.e);
			struct file_ent *f;

			if (!s)
				return -EINVAL;
			r.p += strlen(s) + 1;
			if (!*s)
				break;
			if (!(f = vpush(&u->files)))
				return -ENOMEM;
			f->name = s;
			f->dir = (uint32_t)rd_uleb(&r);
			rd_uleb(&r);
			rd_uleb(&r);
		}
		u->use0 = 0;
	}
	if (r.bad)
		return -EINVAL;
	while (r.p < r.e) {
		uint64_t addr = 0, lo = ~0ull, hi = 0;
		uint32_t line = 1, discr = 0;
		const char *file = NULL;
		int end = 0;

		if (u->files.n)
			file = concat_filename(b, u, u->use0 ? 0 : 1);
		cur.n = 0;
		while (!end && r.p < r.e) {
			unsigned op = (unsigned)rd_n(&r, 1);

			if (op >= opbase) {
				unsigned adj = op - opbase;

				if (lrange == 0)
					return -EINVAL;
				addr += adj / lrange * min_insn;
				line += (uint32_t)(line_base + (int)(adj % lrange));
				if ((rr = add_row(b, &cur, addr, file, line, discr, 0)) < 0)
					goto fail;
				discr = 0;
				lo = addr < lo ? addr : lo;
				hi = addr > hi ? addr : hi;
				continue;
			}
			switch (op) {
			case 0: {      /* DW_LNS_extended_op */
				uint64_t exlen = rd_uleb(&r);
				unsigned ex = (unsigned)rd_n(&r, 1);

				switch (ex) {
				case DW_LNE_end_sequence:
					end = 1;
					if ((rr = add_row(b, &cur, addr, file, line, discr, 1)) < 0)
						goto fail;
					discr = 0;
					lo = addr < lo ? addr : lo;
					hi = addr > hi ? addr : hi;
					break;
				case DW_LNE_set_address:
					if (exlen != 1 + u->addr_size)
						return -ENOTSUP;
					addr = rd_n(&r, u->addr_size);
					break;
				case DW_LNE_set_discriminator:
					discr = (uint32_t)rd_uleb(&r);
					break;
				default:
					return -ENOTSUP;        /* define_file, HP, vendor */
				}
				break;
			}
			case DW_LNS_copy:
				if ((rr = add_row(b, &cur, addr, file, line, discr, 0)) < 0)
					goto fail;
				discr = 0;
				lo = addr < lo ? addr : lo;
				hi = addr > hi ? addr : hi;
				break;
			case DW_LNS_advance_pc:
				addr += min_insn * rd_uleb(&r);
				break;
			case DW_LNS_advance_line:
				line += (uint32_t)rd_sleb(&r);
				break;
			case DW_LNS_set_file:
				file = concat_filename(b, u, rd_uleb(&r));
				if (!file)
					return -ENOMEM;
				break;
			case DW_LNS_set_column:
				rd_uleb(&r);
				break;
			case DW_LNS_negate_stmt:
			case DW_LNS_set_basic_block:
				break;
			case DW_LNS_const_add_pc:
				if (lrange == 0)
					return -EINVAL;
				addr += min_insn * ((255 - opbase) / lrange);
				break;
			case DW_LNS_fixed_advance_pc:
				addr += rd_n(&r, 2);
				break;
			default:
				for (unsigned i = 0; i < oplen[op]; i++)
					rd_uleb(&r);
				break;
			}
			if (r.bad)
				return -EINVAL;
		}
		if (r.bad)
			return -EINVAL;
		if (cur.n) {
			struct lrow *rows = cur.p;
			struct seq *s;

			if (!rows[cur.n - 1].end) {
				rr = -ENOTSUP;  /* a sequence without its end: bfd keeps it open */
				goto fail;
			}
			if (!(s = vpush(&b->seqs))) {
				rr = -ENOMEM;
				goto fail;
			}
			s->low = rows[0].addr;
			s->end = rows[cur.n - 1].addr;
			s->first = (uint32_t)b->rows.n;
			s->n = (uint32_t)cur.n;
			for (size_t i = 0; i < cur.n; i++) {
				struct lrow *d = vpush(&b->rows);

				if (!d) {
					rr = -ENOMEM;
					goto fail;
				}
				*d = rows[i];
			}
			/* decode_line_info adds [low_pc, high_pc] to the unit's ranges:
			 * outside them, laziness could matter (checked per unit) */
			if ((rr = arange_push(&u->extra, lo, hi)) < 0)
				goto fail;
		}
	}
	/* the line intervals of the unit */
	{
		struct seq *sq = (struct seq *)b->seqs.p + seq_first;
		size_t ns = b->seqs.n - seq_first, kept = 0;
		uint64_t last_high;

		/* num_lines is the index in bfd's reversed sequence list */
		for (size_t i = 0; i < ns; i++)
			sq[i].idx = (uint32_t)(ns - 1 - i);
		u->l_first = (uint32_t)b->lints.n;
		if (ns) {
			qsort(sq, ns, sizeof(*sq), seq_cmp);
			last_high = sq[0].end;
			kept = 1;
			for (size_t n = 1; n < ns; n++) {
				if (sq[n].low < last_high) {
					if (sq[n].end <= last_high)
						continue;
					sq[n].low = last_high;
				}
				last_high = sq[n].end;
				sq[kept++] = sq[n];
			}
		}
		for (size_t i = 0; i < kept; i++) {
			const struct lrow *rows = (const struct lrow *)b->rows.p + sq[i].first;

			for (uint32_t k = 0; k + 1 < sq[i].n; k++) {
				uint64_t lo = rows[k].addr > sq[i].low ? rows[k].addr : sq[i].low, hi = rows[k + 1].addr;
				struct ltmp *li;

				if (lo >= hi)
					continue;
				li = vpush(&b->lints);
				if (!li)
					return -ENOMEM;
				li->lo = lo;
				li->hi = hi;
				li->f = rows[k].file;
				li->line = rows[k].line;
				li->discr = rows[k].discr;
			}
		}
		u->l_end = (uint32_t)b->lints.n;
		b->seqs.n = seq_first;
		(void)ui;
	}
	return 0;
fail:
	return rr;
#undef cur
}

/* ---- units and DIEs (parse_comp_unit, scan_unit_for_symbols) --------------------- */

/* bfd/dwarf2.c mangle_style(lang) == 0: DW_AT_name is the linkage name */
static int name_is_linkage(uint64_t lang)
{
	switch (lang) {
	case 0x1: case 0x2: case 0x5: case 0x6: case 0x7: case 0x9: case 0xf: case 0xc: case 0x12: case 0x1d:
	case 0x8001: case 0x8765: case 0x8004: case 0x8006: case 0x8007:
		return 1;
	default:
		return 0;
	}
}

static int parse_unit(struct bld *b, uint64_t off, uint64_t *next)
{
	struct rd r = { b->info.p + off, b->info.p + b->info.n, 0 };
	struct unit *u;
	uint64_t len, abo, code, low = 0, high = 0;
	const struct abbr *ab;
	const struct aattr *at;
	int rel = 0, rr;

	len = rd_n(&r, 4);
	if (r.bad || len == 0xffffffff || len == 0)
		return -ENOTSUP;       /* 64-bit DWARF (or IRIX's) */
	if (len > (uint64_t)(r.e - r.p))
		return -EINVAL;
	r.e = r.p + len;
	*next = off + 4 + len;
	if (!(u = vpush(&b->units)))
		return -ENOMEM;
	u->off = off;
	u->end = *next;
	u->own.sz = u->extra.sz = sizeof(struct arng);
	u->dirs.sz = sizeof(const char *);
	u->files.sz = sizeof(struct file_ent);
	u->version = (unsigned)rd_n(&r, 2);
	if (u->version < 4 || u->version > 5)
		return -ENOTSUP;
	if (u->version == 5) {
		if (rd_n(&r, 1) != DW_UT_compile)
			return -ENOTSUP;
		u->addr_size = (unsigned)rd_n(&r, 1);
		abo = rd_n(&r, 4);
	} else {
		abo = rd_n(&r, 4);
		u->addr_size = (unsigned)rd_n(&r, 1);
	}
	if (r.bad)
		return -EINVAL;
	if (u->addr_size != 8)
		return -ENOTSUP;
	if ((rr = read_abbrevs(b, u, abo)) < 0)
		return rr;
	code = rd_uleb(&r);
	if (r.bad || !code || !(ab = abbr_of(b, u, code)))
		return -EINVAL;
	if (ab->tag != DW_TAG_compile_unit)
		return -ENOTSUP;
	u->compile = 1;
	at = ab->nattr ? (const struct aattr *)b->aattrs.p + ab->first : NULL;
	for (uint32_t i = 0; i < ab->nattr; i++) {
		struct attr a;

		if ((rr = read_attr(b, u, &r, at[i].form, at[i].ic, &a)) < 0)
			return rr;
		switch (at[i].name) {
		case DW_AT_stmt_list:
			if (is_int_form(a.form)) {
				u->stmtlist = 1;
				u->line_off = a.val;
			}
			break;
		case DW_AT_low_pc:
			if (is_int_form(a.form))
				low = u->base = a.val;
			break;
		case DW_AT_high_pc:
			if (is_int_form(a.form)) {
				high = a.val;
				rel = a.form != DW_FORM_addr;
			}
			break;
		case DW_AT_ranges:
			if (is_int_form(a.form) && (rr = read_rangelist(b, u, a.val, &u->own)) < 0)
				return rr;
			break;
		case DW_AT_comp_dir: {
			const char *cd = a.kind == AV_STR ? a.str : NULL, *cp;

			if (cd && (cp = strchr(cd, ':')) && cp != cd && cp[-1] == '.' && cp[1] == '/')
				cd = cp + 1;    /* Irix 6.2 "<machine>.:" */
			u->comp_dir = cd;
			break;
		}
		case DW_AT_language:
			if (is_int_form(a.form))
				u->lang = a.val;
			break;
		case DW_AT_addr_base:
		case DW_AT_str_offsets_base:
		case DW_AT_GNU_dwo_name:
		case DW_AT_dwo_name:
			return -ENOTSUP;
		default:
			break;
		}
	}
	if (rel)
		high += low;
	if (high != 0 && (rr = arange_add(&u->own, low, high)) < 0)
		return rr;
	u->first_die = (uint64_t)(r.p - b->info.p);
	return 0;
}

static const struct unit *unit_at(const struct bld *b, uint64_t off)
{
	const struct unit *u = b->units.p;
	size_t lo = 0, hi = b->units.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (off < u[mid].off)
			hi = mid;
		else if (off >= u[mid].end)
			lo = mid + 1;
		else
			return &u[mid];
	}
	return NULL;
}

/* bfd/dwarf2.c find_abstract_instance: the name (and is_linkage) of the DIE @a refers to */
static int find_abstract(struct bld *b, const struct unit *u, const struct attr *ref, unsigned depth,
			 const char **pname, int *linkage)
{
	uint64_t die;
	struct rd r;
	const struct abbr *ab;
	const struct aattr *at;
	uint64_t code;
	int rr;

	if (depth == 100)
		return -EINVAL;
	if (ref->form == DW_FORM_ref_addr) {
		if (!ref->val)
			return 0;
		if (ref->val >= b->info.n || !(u = unit_at(b, ref->val)))
			return -EINVAL;
		die = ref->val;
	} else if (ref->form == DW_FORM_ref1 || ref->form == DW_FORM_ref2 || ref->form == DW_FORM_ref4 ||
		   ref->form == DW_FORM_ref8 || ref->form == DW_FORM_ref_udata) {
		if (!ref->val || ref->val >= u->end - u->off)
			return -EINVAL;
		die = u->off + ref->val;
	} else {
		return -ENOTSUP;
	}
	r = (struct rd){ b->info.p + die, b->info.p + u->end, 0 };
	code = rd_uleb(&r);
	if (r.bad)
		return -EINVAL;
	if (!code)
		return 0;
	if (!(ab = abbr_of(b, u, code)))
		return -EINVAL;
	at = ab->nattr ? (const struct aattr *)b->aattrs.p + ab->first : NULL;
	for (uint32_t i = 0; i < ab->nattr; i++) {
		struct attr a;

		if ((rr = read_attr(b, u, &r, at[i].form, at[i].ic, &a)) < 0)
			return rr;      /* bfd stops quietly: refused */
		switch (at[i].name) {
		case DW_AT_name:
			if (!*pname && a.kind == AV_STR) {
				*pname = a.str;
				if (name_is_linkage(u->lang))
					*linkage = 1;
			}
			break;
		case DW_AT_specification:
			if (is_int_form(a.form) && (rr = find_abstract(b, u, &a, depth + 1, pname, linkage)) < 0)
				return rr;
			break;
		case DW_AT_linkage_name:
		case DW_AT_MIPS_linkage_name:
			if (a.kind == AV_STR) {
				*pname = a.str;
				*linkage = 1;
			}
			break;
		case DW_AT_decl_file:
			/* comp_unit_maybe_decode_line_info(unit) must succeed */
			if (!u->stmtlist)
				return -ENOTSUP;
			break;
		default:
			break;
		}
	}
	return 0;
}

static int scan_unit(struct bld *b, uint32_t ui)
{
	struct unit *u = (struct unit *)b->units.p + ui;
	struct rd r = { b->info.p + u->first_die, b->info.p + u->end, 0 };
	uint32_t *stack = NULL;
	size_t cap = 0;
	long level = 0;
	struct vec rng = { NULL, 0, 0, sizeof(struct arng) };
	int rr = 0;

	u->fn_first = (uint32_t)b->fns.n;
	if (u->first_die >= u->end)
		goto out;
	cap = 64;
	if (!(stack = malloc(cap * 4)))
		return -ENOMEM;
	stack[0] = A2L_NONE;
	while (level >= 0) {
		uint64_t die = (uint64_t)(r.p - b->info.p), code, low = 0, high = 0;
		const struct abbr *ab;
		const struct aattr *at;
		uint32_t fi = A2L_NONE;
		struct fn *f = NULL;
		int rel = 0;

		if (r.p >= r.e) {
			rr = -EINVAL;
			goto out;
		}
		code = rd_uleb(&r);
		if (r.bad) {
			rr = -EINVAL;
			goto out;
		}
		if (!code) {
			level--;
			continue;
		}
		if (!(ab = abbr_of(b, u, code))) {
			rr = -EINVAL;
			goto out;
		}
		if (ab->tag == DW_TAG_subprogram || ab->tag == DW_TAG_entry_point ||
		    ab->tag == DW_TAG_inlined_subroutine) {
			if (b->fns.n >= A2L_NONE - 1 || !(f = vpush(&b->fns))) {
				rr = -ENOMEM;
				goto out;
			}
			fi = (uint32_t)(b->fns.n - 1);
			f->cu = ui;
			f->die = die;
			f->caller = A2L_NONE;
			f->call_file_s = NULL;
			if (ab->tag == DW_TAG_inlined_subroutine) {
				f->flags |= A2D_F_INLINED;
				for (long i = level; i-- > 0;)
					if (stack[i] != A2L_NONE) {
						f->caller = stack[i];
						break;
					}
			}
		}
		stack[level] = fi;
		rng.n = 0;
		at = ab->nattr ? (const struct aattr *)b->aattrs.p + ab->first : NULL;
		for (uint32_t i = 0; i < ab->nattr; i++) {
			struct attr a;
			const char *name;
			int lk;

			if ((rr = read_attr(b, u, &r, at[i].form, at[i].ic, &a)) < 0)
				goto out;
			if (fi == A2L_NONE)
				continue;
			f = (struct fn *)b->fns.p + fi;
			switch (at[i].name) {
			case DW_AT_call_file:
				if (is_int_form(a.form) && !(f->call_file_s = concat_filename(b, u, a.val))) {
					rr = -ENOMEM;
					goto out;
				}
				break;
			case DW_AT_call_line:
				if (is_int_form(a.form))
					f->call_line = (uint32_t)a.val;
				break;
			case DW_AT_abstract_origin:
			case DW_AT_specification:
				if (is_int_form(a.form)) {
					name = f->name;
					lk = !!(f->flags & A2D_F_LINKAGE);
					if ((rr = find_abstract(b, u, &a, 0, &name, &lk)) < 0)
						goto out;
					f = (struct fn *)b->fns.p + fi;
					f->name = name;
					f->flags = (f->flags & ~A2D_F_LINKAGE) | (lk ? A2D_F_LINKAGE : 0);
				}
				break;
			case DW_AT_name:
				if (!f->name && a.kind == AV_STR) {
					f->name = a.str;
					if (name_is_linkage(u->lang))
						f->flags |= A2D_F_LINKAGE;
				}
				break;
			case DW_AT_linkage_name:
			case DW_AT_MIPS_linkage_name:
				if (a.kind == AV_STR) {
					f->name = a.str;
					f->flags |= A2D_F_LINKAGE;
				}
				break;
			case DW_AT_low_pc:
				if (is_int_form(a.form))
					low = a.val;
				break;
			case DW_AT_high_pc:
				if (is_int_form(a.form)) {
					high = a.val;
					rel = a.form != DW_FORM_addr;
				}
				break;
			case DW_AT_ranges:
				if (is_int_form(a.form) && (rr = read_rangelist(b, u, a.val, &rng)) < 0)
					goto out;
				break;
			default:
				break;
			}
		}
		if (ab->children) {
			level++;
			if ((size_t)level >= cap) {
				uint32_t *ns = realloc(stack, cap * 2 * 4);

				if (!ns) {
					rr = -ENOMEM;
					goto out;
				}
				stack = ns;
				cap *= 2;
			}
			stack[level] = A2L_NONE;
		}
		if (rel)
			high += low;
		if (fi != A2L_NONE && high != 0 && (rr = arange_add(&rng, low, high)) < 0)
			goto out;
		if (fi != A2L_NONE) {
			const struct arng *a = rng.p;

			f = (struct fn *)b->fns.p + fi;
			f->first_rng = (uint32_t)b->frng.n;
			f->nrng = (uint32_t)rng.n;
			for (size_t k = 0; k < rng.n; k++) {
				struct arng *d = vpush(&b->frng);

				if (!d) {
					rr = -ENOMEM;
					goto out;
				}
				*d = a[k];
				if ((rr = arange_push(&u->extra, a[k].lo, a[k].hi)) < 0)
					goto out;
			}
		}
	}
out:
	u->fn_end = (uint32_t)b->fns.n;
	free(stack);
	free(rng.p);
	return rr;
}

/* ---- where laziness could matter ---------------------------------------------------- */

static int arng_cmp(const void *pa, const void *pb)
{
	const struct arng *a = pa, *b = pb;

	return a->lo < b->lo ? -1 : a->lo > b->lo ? 1 : (a->hi < b->hi ? -1 : a->hi > b->hi);
}

struct crng { uint64_t lo, hi; uint32_t cu; };

/* 1 when [lo, hi) meets an SHF_ALLOC section (a query can land there) */
static int meets_alloc(const struct a2l_img *m, uint64_t lo, uint64_t hi)
{
	Elf64_Shdr sh;

	for (size_t i = 1; i < m->shnum; i++)
		if (a2l_shdr(m, i, &sh) && (sh.sh_flags & SHF_ALLOC) && sh.sh_type != SHT_NULL && sh.sh_size &&
		    lo < sh.sh_addr + sh.sh_size && sh.sh_addr < hi)
			return 1;
	return 0;
}

/* [lo, hi) inside one of the merged, sorted ranges @o[0, n) */
static int inside(const struct arng *o, size_t n, uint64_t lo, uint64_t hi)
{
	size_t a = 0, z = n;

	while (a < z) {         /* last own range with lo <= x.lo */
		size_t mid = (a + z) / 2;

		if (o[mid].lo <= lo)
			a = mid + 1;
		else
			z = mid;
	}
	return a > 0 && hi <= o[a - 1].hi;
}

/* [lo, hi) meets one of the merged, sorted ranges @o[0, n) */
static int meets_own(const struct arng *o, size_t n, uint64_t lo, uint64_t hi)
{
	size_t a = 0, z = n;

	while (a < z) {         /* first own range with hi > lo */
		size_t mid = (a + z) / 2;

		if (o[mid].hi <= lo)
			a = mid + 1;
		else
			z = mid;
	}
	return a < n && o[a].lo < hi;
}

/* merge each unit's own ranges (sorted, disjoint) */
static void merge_own(struct bld *b)
{
	struct unit *u = b->units.p;

	for (size_t i = 0; i < b->units.n; i++) {
		struct arng *o = u[i].own.p;
		size_t n = 0;

		if (u[i].own.n)
			qsort(o, u[i].own.n, sizeof(*o), arng_cmp);
		for (size_t k = 0; k < u[i].own.n; k++) {
			if (o[k].lo >= o[k].hi)
				continue;
			if (n && o[k].lo <= o[n - 1].hi) {
				if (o[k].hi > o[n - 1].hi)
					o[n - 1].hi = o[k].hi;
			} else {
				o[n++] = o[k];
			}
		}
		u[i].own.n = n;
	}
}

/* unit @u answers (a function or a line) everywhere in [lo, hi) */
static int unit_covers(const struct bld *b, const struct unit *u, uint64_t lo, uint64_t hi)
{
	const struct a2d_fint *f = b->fints.p;
	const struct ltmp *l = b->lints.p;

	while (lo < hi) {
		uint64_t next = lo;
		uint32_t a, z;

		for (a = u->f_first, z = u->f_end; a < z;) {
			uint32_t mid = a + (z - a) / 2;

			if (f[mid].hi <= lo)
				a = mid + 1;
			else
				z = mid;
		}
		if (a < u->f_end && f[a].lo <= lo)
			next = f[a].hi;
		for (a = u->l_first, z = u->l_end; a < z;) {
			uint32_t mid = a + (z - a) / 2;

			if (l[mid].hi <= lo)
				a = mid + 1;
			else
				z = mid;
		}
		if (a < u->l_end && l[a].lo <= lo && l[a].hi > next)
			next = l[a].hi;
		if (next == lo)
			return 0;
		lo = next;
	}
	return 1;
}

static int u64_cmp(const void *pa, const void *pb);

struct mev { uint64_t lo, hi; uint32_t unit; int extra; };

static int mev_cmp(const void *pa, const void *pb)
{
	const struct mev *a = pa, *b = pb;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/*
 * The unit map and the zones. bfd's trie keeps each leaf's ranges in the
 * order they were inserted (a range of the same unit that overlaps or
 * touches one already there widens that entry: insert_arange_in_trie), and
 * asks the units in that order; a unit's own ranges are inserted when it is
 * read (in .debug_info order), its function ranges and line sequences when
 * it is first asked (decoded). So at an address the first unit U (in
 * .debug_info order) whose own ranges hold it is asked before any other,
 * unless an earlier unit's function range or sequence outside its own
 * ranges holds it too (inserted whenever that unit was decoded): a zone.
 * Where U answers (a function or a line) its answer is binutils'; where it
 * does not and another unit could (its own ranges, or a function range or
 * sequence outside them), a zone; where no unit's own ranges hold the
 * address and none's function range or sequence does, no unit answers.
 * Only addresses inside SHF_ALLOC sections matter (no query lands elsewhere).
 */
static int build_map(struct bld *b)
{
	struct unit *u = b->units.p;
	struct vec ev = { NULL, 0, 0, sizeof(struct mev) }, act = { NULL, 0, 0, sizeof(uint32_t) };
	uint64_t *bd = NULL;
	size_t nb = 0, j = 0;
	int rr = 0;

	for (size_t i = 0; i < b->units.n; i++) {
		const struct arng *o = u[i].own.p, *x = u[i].extra.p;

		if (!u[i].stmtlist)
			continue;       /* comp_unit_maybe_decode_line_info fails: never answers */
		for (size_t k = 0; k < u[i].own.n; k++) {
			struct mev *e = vpush(&ev);

			if (!e)
				goto nomem;
			*e = (struct mev){ o[k].lo, o[k].hi, (uint32_t)i, 0 };
		}
		for (size_t k = 0; k < u[i].extra.n; k++) {
			struct mev *e;

			if (x[k].lo >= x[k].hi || inside(o, u[i].own.n, x[k].lo, x[k].hi) ||
			    !meets_alloc(b->m, x[k].lo, x[k].hi))
				continue;
			if (!(e = vpush(&ev)))
				goto nomem;
			*e = (struct mev){ x[k].lo, x[k].hi, (uint32_t)i, 1 };
		}
	}
	if (!ev.n)
		goto out;
	qsort(ev.p, ev.n, sizeof(struct mev), mev_cmp);
	if (!(bd = malloc(2 * ev.n * sizeof(*bd))))
		goto nomem;
	for (size_t k = 0; k < ev.n; k++) {
		bd[nb++] = ((struct mev *)ev.p)[k].lo;
		bd[nb++] = ((struct mev *)ev.p)[k].hi;
	}
	qsort(bd, nb, sizeof(*bd), u64_cmp);
	for (size_t i = 0; i < nb; i++) {
		const struct mev *e = ev.p;
		uint32_t *a, U = A2L_NONE, emin = A2L_NONE, on = 0, en = 0;
		uint64_t x = bd[i], y;
		size_t w = 0, i2 = i + 1;

		if (i && bd[i - 1] == x)
			continue;
		while (i2 < nb && bd[i2] == x)
			i2++;
		if (i2 >= nb)
			break;
		y = bd[i2];
		a = act.p;
		for (size_t k = 0; k < act.n; k++)
			if (e[a[k]].hi > x)
				a[w++] = a[k];
		act.n = w;
		while (j < ev.n && e[j].lo == x) {
			uint32_t *s;

			if (act.n >= 1u << 20) {
				rr = dfail(b->why, b->whysz, -ENOTSUP, "more than 2^20 ranges overlap at %#llx",
					   (unsigned long long)x);
				goto out;
			}
			if (!(s = vpush(&act)))
				goto nomem;
			*s = (uint32_t)j++;
		}
		if (!meets_alloc(b->m, x, y))
			continue;
		a = act.p;
		for (size_t k = 0; k < act.n; k++) {
			const struct mev *c = &e[a[k]];

			if (c->extra) {
				en++;
				emin = c->unit < emin ? c->unit : emin;
			} else {
				on++;
				U = c->unit < U ? c->unit : U;
			}
		}
		if (U == A2L_NONE ? en > 0 : (emin < U || ((on > 1 || en) && !unit_covers(b, &u[U], x, y)))) {
			if ((rr = arange_push(&b->zone, x, y)) < 0)
				goto out;
		} else if (U != A2L_NONE) {
			struct crng *c = b->cranges.n ? (struct crng *)b->cranges.p + b->cranges.n - 1 : NULL;

			if (c && c->hi == x && c->cu == U) {
				c->hi = y;
			} else {
				if (!(c = vpush(&b->cranges)))
					goto nomem;
				*c = (struct crng){ x, y, U };
			}
		}
	}
	goto out;
nomem:
	rr = -ENOMEM;
out:
	free(ev.p);
	free(act.p);
	free(bd);
	return rr;
}

/* ---- the best function per address (lookup_address_in_function_table) ------------ */

struct fr { uint64_t lo, hi; uint32_t fn; };

static int fr_cmp(const void *pa, const void *pb)
{
	const struct fr *a = pa, *b = pb;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

static int u64_cmp(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

static int func_intervals(struct bld *b, struct unit *u)
{
	const struct fn *fns = b->fns.p;
	const struct arng *fr = b->frng.p;
	struct fr *v = NULL;
	uint64_t *bd = NULL;
	uint32_t *act = NULL;
	size_t n = 0, nb = 0, na = 0, j = 0;
	int rr = 0;

	u->f_first = (uint32_t)b->fints.n;
	for (uint32_t f = u->fn_first; f < u->fn_end; f++)
		n += fns[f].nrng;
	if (!n)
		goto done;
	v = malloc(n * sizeof(*v));
	bd = malloc(2 * n * sizeof(*bd));
	act = malloc(MAX_ACTIVE * sizeof(*act));
	if (!v || !bd || !act) {
		rr = -ENOMEM;
		goto done;
	}
	n = 0;
	for (uint32_t f = u->fn_first; f < u->fn_end; f++)
		for (uint32_t k = 0; k < fns[f].nrng; k++) {
			const struct arng *a = &fr[fns[f].first_rng + k];

			if (a->lo >= a->hi)
				continue;       /* never holds an address */
			/* only answers for addresses inside the unit's own ranges
			 * are used (build_map): a range meeting none is left out */
			if (!meets_own(u->own.p, u->own.n, a->lo, a->hi))
				continue;
			v[n] = (struct fr){ a->lo, a->hi, f };
			bd[nb++] = a->lo;
			bd[nb++] = a->hi;
			n++;
		}
	qsort(v, n, sizeof(*v), fr_cmp);
	qsort(bd, nb, sizeof(*bd), u64_cmp);
	for (size_t i = 0; i < nb; i++) {
		uint64_t x = bd[i];
		uint32_t best = A2L_NONE;
		uint64_t blen = 0;
		size_t w = 0;

		if (i && bd[i - 1] == x)
			continue;
		for (size_t k = 0; k < na; k++)         /* drop the ended ones */
			if (v[act[k]].hi > x)
				act[w++] = act[k];
		na = w;
		while (j < n && v[j].lo == x) {
			if (na == MAX_ACTIVE) {
				rr = dfail(b->why, b->whysz, -ENOTSUP, "more than %d function ranges overlap at %#llx",
					   MAX_ACTIVE, (unsigned long long)x);
				goto done;
			}
			act[na++] = (uint32_t)j++;
		}
		for (size_t k = 0; k < na; k++) {
			const struct fr *c = &v[act[k]];
			uint64_t len = c->hi - c->lo;

			if (best == A2L_NONE || len < blen || (len == blen && c->fn > best)) {
				best = c->fn;
				blen = len;
			}
		}
		if (best != A2L_NONE) {
			size_t i2 = i + 1;
			struct a2d_fint *o = b->fints.n ? (struct a2d_fint *)b->fints.p + b->fints.n - 1 : NULL;

			while (i2 < nb && bd[i2] == x)
				i2++;
			if (i2 >= nb)
				break;
			if (o && b->fints.n > u->f_first && o->hi == x && o->fn == best) {
				o->hi = bd[i2];
			} else {
				if (!(o = vpush(&b->fints))) {
					rr = -ENOMEM;
					goto done;
				}
				*o = (struct a2d_fint){ x, bd[i2], best, 0 };
			}
		}
	}
done:
	u->f_end = (uint32_t)b->fints.n;
	free(v);
	free(bd);
	free(act);
	return rr;
}

/* ---- strings -------------------------------------------------------------------------- */

struct istr { const char *s; uint32_t ref; };
struct intern { struct istr *t; size_t cap, n; unsigned char *area; uint64_t size, acap; uint32_t max; };

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

/* the ref of @s in the area (A2L_NONE for NULL), interned */
static int intern(struct intern *in, const char *s, uint32_t *ref)
{
	size_t len, need, i;
	uint64_t h;

	if (!s) {
		*ref = A2L_NONE;
		return 0;
	}
	if (in->n * 2 >= in->cap) {
		size_t nc = in->cap ? in->cap * 2 : 1024;
		struct istr *nt = calloc(nc, sizeof(*nt));

		if (!nt)
			return -ENOMEM;
		for (size_t k = 0; k < in->cap; k++)
			if (in->t[k].s) {
				size_t p = str_hash(in->t[k].s) & (nc - 1);

				while (nt[p].s)
					p = (p + 1) & (nc - 1);
				nt[p] = in->t[k];
			}
		free(in->t);
		in->t = nt;
		in->cap = nc;
	}
	h = str_hash(s);
	for (i = h & (in->cap - 1); in->t[i].s; i = (i + 1) & (in->cap - 1))
		if (!strcmp(in->t[i].s, s)) {
			*ref = in->t[i].ref;
			return 0;
		}
	len = strlen(s);
	if (len > UINT32_MAX / 2)
		return -EFBIG;
	need = (4 + len + 1 + 3) & ~(size_t)3;
	if (in->size + need > UINT32_MAX - 8)
		return -EFBIG;
	if (in->size + need > in->acap) {
		uint64_t nc = in->acap ? in->acap * 2 : 65536;
		unsigned char *na;

		while (nc < in->size + need)
			nc *= 2;
		if (!(na = realloc(in->area, nc)))
			return -ENOMEM;
		in->area = na;
		in->acap = nc;
	}
	{
		uint32_t l = (uint32_t)len;

		memcpy(in->area + in->size, &l, 4);
		memcpy(in->area + in->size + 4, s, len);
		memset(in->area + in->size + 4 + len, 0, need - 4 - len);
	}
	*ref = (uint32_t)in->size;
	in->t[i] = (struct istr){ s, (uint32_t)in->size };
	in->n++;
	in->size += need;
	in->max = len > in->max ? (uint32_t)len : in->max;
	return 0;
}

/* ---- the file ---------------------------------------------------------------------------- */

static int backing_file(int dirfd, size_t size, char *tmp, size_t n)
{
	static _Atomic unsigned long seq;
	int fd = -1;

	tmp[0] = '\0';
	if (dirfd >= 0) {
		snprintf(tmp, n, ".tmp-%d-%lu" A2D_SUFFIX, (int)getpid(), atomic_fetch_add(&seq, 1));
		fd = openat(dirfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 && posix_fallocate(fd, 0, (off_t)size) != 0) {
			close(fd);
			unlinkat(dirfd, tmp, 0);
			fd = -1;
		}
		if (fd < 0)
			tmp[0] = '\0';
	}
	if (fd < 0) {
		fd = memfd_create("symlazy-a2d", MFD_CLOEXEC);
		if (fd >= 0 && ftruncate(fd, (off_t)size) < 0) {
			close(fd);
			fd = -1;
		}
	}
	return fd < 0 ? -errno : fd;
}

static int write_a2d(struct bld *b, const struct stat *st, int dirfd, void **omap, size_t *osize)
{
	struct intern in = { 0 };
	const struct fn *fns = b->fns.p;
	const struct ltmp *lt = b->lints.p;
	struct a2d_func *of = NULL;
	struct a2d_lint *ol = NULL;
	uint32_t *depth = NULL, maxd = 1;
	struct a2d_hdr h;
	unsigned char *map = NULL;
	char tmp[64], name[64];
	uint64_t size;
	int fd = -1, rr = 0;

	if (b->fns.n >= A2L_NONE || b->lints.n >= A2L_NONE || b->fints.n >= A2L_NONE || b->cranges.n >= A2L_NONE)
		return dfail(b->why, b->whysz, -EFBIG, "more than 2^32 entries");
	of = calloc(b->fns.n ? b->fns.n : 1, sizeof(*of));
	ol = calloc(b->lints.n ? b->lints.n : 1, sizeof(*ol));
	depth = calloc(b->fns.n ? b->fns.n : 1, 4);
	if (!of || !ol || !depth) {
		rr = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < b->fns.n; i++) {
		const struct fn *f = &fns[i];

		of[i].low = f->nrng ? ((const struct arng *)b->frng.p)[f->first_rng].lo : 0;
		of[i].caller = f->caller;
		of[i].call_line = f->call_line;
		of[i].flags = f->flags;
		if ((rr = intern(&in, f->name, &of[i].name)) < 0 || (rr = intern(&in, f->call_file_s, &of[i].call_file)) < 0)
			goto out;
		depth[i] = f->caller == A2L_NONE ? 1 : depth[f->caller] + 1;
		maxd = depth[i] > maxd ? depth[i] : maxd;
	}
	if (maxd > A2D_MAX_DEPTH) {
		rr = dfail(b->why, b->whysz, -ENOTSUP, "inline depth %u", maxd);
		goto out;
	}
	for (size_t i = 0; i < b->lints.n; i++) {
		ol[i] = (struct a2d_lint){ lt[i].lo, lt[i].hi, 0, lt[i].line, lt[i].discr, 0 };
		if ((rr = intern(&in, lt[i].f, &ol[i].file)) < 0)
			goto out;
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, A2D_MAGIC, 8);
	h.version = A2D_VERSION;
	h.hdr_size = sizeof(h);
	h.endian = A2L_ENDIAN;
	h.key = a2l_key(st);
	h.dev = (uint64_t)st->st_dev;
	h.ino = (uint64_t)st->st_ino;
	h.size = (uint64_t)st->st_size;
	h.mtime_sec = st->st_mtim.tv_sec;
	h.mtime_nsec = st->st_mtim.tv_nsec;
	h.ctime_sec = st->st_ctim.tv_sec;
	h.ctime_nsec = st->st_ctim.tv_nsec;
	h.nranges = (uint32_t)b->cranges.n;
	h.ncus = (uint32_t)b->units.n;
	h.nfints = (uint32_t)b->fints.n;
	h.nlints = (uint32_t)b->lints.n;
	h.nfuncs = (uint32_t)b->fns.n;
	h.max_str = in.max;
	h.max_depth = maxd;
	h.ranges_off = sizeof(h);
	h.cus_off = h.ranges_off + (uint64_t)h.nranges * sizeof(struct a2d_range);
	h.fints_off = h.cus_off + (((uint64_t)h.ncus * sizeof(struct a2d_cu) + 7) & ~7ull);
	h.lints_off = h.fints_off + (uint64_t)h.nfints * sizeof(struct a2d_fint);
	h.funcs_off = h.lints_off + (uint64_t)h.nlints * sizeof(struct a2d_lint);
	h.strings_off = h.funcs_off + (uint64_t)h.nfuncs * sizeof(struct a2d_func);
	h.strings_size = in.size;
	{
		struct arng *z = b->zone.p;
		size_t nz = 0;

		if (b->zone.n)
			qsort(z, b->zone.n, sizeof(*z), arng_cmp);
		for (size_t k = 0; k < b->zone.n; k++) {
			if (z[k].lo >= z[k].hi || !meets_alloc(b->m, z[k].lo, z[k].hi))
				continue;
			if (nz && z[k].lo <= z[nz - 1].hi) {
				if (z[k].hi > z[nz - 1].hi)
					z[nz - 1].hi = z[k].hi;
			} else {
				z[nz++] = z[k];
			}
		}
		b->zone.n = nz;
		h.nzones = (uint32_t)nz;
	}
	h.zones_off = h.strings_off + ((in.size + 7) & ~7ull);
	size = h.file_size = h.zones_off + (uint64_t)h.nzones * sizeof(struct a2d_zone);
	if ((fd = backing_file(dirfd, (size_t)size, tmp, sizeof(tmp))) < 0) {
		rr = dfail(b->why, b->whysz, fd, "DWARF table file: %s", strerror(-fd));
		fd = -1;
		goto out;
	}
	map = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		map = NULL;
		rr = -errno;
		goto out;
	}
	memcpy(map, &h, sizeof(h));
	{
		struct a2d_range *r = (void *)(map + h.ranges_off);
		const struct crng *c = b->cranges.p;
		struct a2d_cu *cu = (void *)(map + h.cus_off);
		const struct unit *u = b->units.p;

		for (size_t i = 0; i < b->cranges.n; i++)
			r[i] = (struct a2d_range){ c[i].lo, c[i].hi, c[i].cu, 0 };
		for (size_t i = 0; i < b->units.n; i++)
			cu[i] = (struct a2d_cu){ u[i].f_first, u[i].f_end, u[i].l_first, u[i].l_end };
	}
	if (b->fints.n)
		memcpy(map + h.fints_off, b->fints.p, b->fints.n * sizeof(struct a2d_fint));
	if (b->lints.n)
		memcpy(map + h.lints_off, ol, b->lints.n * sizeof(*ol));
	if (b->fns.n)
		memcpy(map + h.funcs_off, of, b->fns.n * sizeof(*of));
	if (in.size)
		memcpy(map + h.strings_off, in.area, in.size);
	if (h.nzones)
		memcpy(map + h.zones_off, b->zone.p, h.nzones * sizeof(struct a2d_zone));
	((struct a2d_hdr *)map)->checksum = symindex_checksum(map + 32, (size_t)size - 32);
	mprotect(map, (size_t)size, PROT_READ);
	if (tmp[0]) {
		snprintf(name, sizeof(name), "%016llx" A2D_SUFFIX, (unsigned long long)h.key);
		if (renameat(dirfd, tmp, dirfd, name) < 0)
			unlinkat(dirfd, tmp, 0);
		tmp[0] = '\0';
	}
	*omap = map;
	*osize = (size_t)size;
	map = NULL;
out:
	if (map)
		munmap(map, (size_t)size);
	if (fd >= 0) {
		if (tmp[0])
			unlinkat(dirfd, tmp, 0);
		close(fd);
	}
	free(of);
	free(ol);
	free(depth);
	free(in.t);
	free(in.area);
	return rr;
}

/* ---- build --------------------------------------------------------------------------- */

int a2l_dw_wanted(const struct a2l_img *m)
{
	Elf64_Shdr sh;
	const char *n;

	for (size_t i = 1; i < m->shnum; i++)
		if (a2l_shdr(m, i, &sh) && (n = img_sec_name(m, &sh)) && !strcmp(n, ".debug_info"))
			return 1;
	return 0;
}

static int build(struct bld *b, const struct stat *st, int dirfd, void **map, size_t *size)
{
	static const char *const names[] = { ".debug_info", ".debug_abbrev", ".debug_line", ".debug_str",
					     ".debug_line_str", ".debug_ranges", ".debug_rnglists" };
	struct dsec *ds[] = { &b->info, &b->abbrev, &b->line, &b->str, &b->line_str, &b->ranges, &b->rnglists };
	const struct a2l_img *m = b->m;
	Elf64_Shdr sh;
	uint64_t off = 0, line0 = 0;
	int rr;

	for (size_t i = 1; i < m->shnum; i++) {
		const char *n;

		if (!a2l_shdr(m, i, &sh) || !(n = img_sec_name(m, &sh)))
			return dfail(b->why, b->whysz, -EINVAL, "section %zu has no readable name", i);
		if (!strncmp(n, ".zdebug", 7) || !strncmp(n, ".gnu.linkonce.wi.", 17) || !strcmp(n, ".gnu_debugaltlink") ||
		    (strstr(n, ".dwo") && !strncmp(n, ".debug_", 7)))
			return dfail(b->why, b->whysz, -ENOTSUP, "section %s not mirrored", n);
		for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (!strcmp(n, names[k])) {
				if (ds[k]->present)
					return dfail(b->why, b->whysz, -ENOTSUP, "more than one %s", n);
				if ((rr = load_sec(m, &sh, ds[k])) < 0)
					return dfail(b->why, b->whysz, rr, "%s: %s", n,
						     rr == -ENOTSUP ? "not mirrored (NOBITS or compression type)" :
						     rr == -ENOSYS ? "no zlib/zstd to inflate it" : strerror(-rr));
			}
	}
	if (!b->info.present || !b->abbrev.present)
		return dfail(b->why, b->whysz, -ENOTSUP, "no .debug_info/.debug_abbrev");
	/* the table is built eagerly in perf's child before its first answer
	 * (perf 6.12 waits 5 s): larger DWARF stays with binutils' lazy reading */
	if (b->info.n + b->line.n > A2D_MAX_DWARF)
		return dfail(b->why, b->whysz, -EFBIG, ".debug_info + .debug_line: %llu bytes, more than %u MiB",
			     (unsigned long long)(b->info.n + b->line.n), A2D_MAX_DWARF >> 20);
	/* stash_comp_unit: every unit in order; any error stops bfd's reading */
	while (off < b->info.n) {
		uint64_t next;

		if ((rr = parse_unit(b, off, &next)) < 0)
			return dfail(b->why, b->whysz, rr, "unit at .debug_info+%#llx %s", (unsigned long long)off,
				     rr == -ENOTSUP ? "outside the mirrored DWARF 4/5 class" : "malformed");
		off = next;
	}
	for (size_t i = 0; i < b->units.n; i++) {
		struct unit *u = (struct unit *)b->units.p + i;

		u->fn_first = u->fn_end = (uint32_t)b->fns.n;
		if (!u->stmtlist)
			continue;
		if (u->line_off == 0 && line0++)
			return dfail(b->why, b->whysz, -ENOTSUP, "two units share line table offset 0");
		if ((rr = decode_lines(b, u, (uint32_t)i)) < 0)
			return dfail(b->why, b->whysz, rr, "line table of unit at .debug_info+%#llx %s",
				     (unsigned long long)u->off, rr == -ENOTSUP ? "outside the mirrored class" : "malformed");
	}
	for (size_t i = 0; i < b->units.n; i++) {
		struct unit *u = (struct unit *)b->units.p + i;

		if (!u->stmtlist)
			continue;
		if ((rr = scan_unit(b, (uint32_t)i)) < 0)
			return dfail(b->why, b->whysz, rr, "DIEs of unit at .debug_info+%#llx %s",
				     (unsigned long long)u->off, rr == -ENOTSUP ? "outside the mirrored class" : "malformed");
	}
	merge_own(b);
	for (size_t i = 0; i < b->units.n; i++) {
		struct unit *u = (struct unit *)b->units.p + i;

		if (!u->stmtlist) {
			u->f_first = u->f_end = (uint32_t)b->fints.n;
			u->l_first = u->l_end = (uint32_t)b->lints.n;
			continue;
		}
		if ((rr = func_intervals(b, u)) < 0)
			return rr;
	}
	if ((rr = build_map(b)) < 0)
		return rr;
	return write_a2d(b, st, dirfd, map, size);
}

/* ---- validation ------------------------------------------------------------------------ */

static int sref_ok(const unsigned char *area, uint64_t size, uint32_t ref, uint32_t max)
{
	uint32_t len;

	if (ref == A2L_NONE)
		return 1;
	if (ref % 4 || (uint64_t)ref + 4 > size)
		return 0;
	memcpy(&len, area + ref, 4);
	return len <= max && (uint64_t)ref + 4 + len + 1 <= size && area[(uint64_t)ref + 4 + len] == 0;
}

int a2l_dw_validate(const void *map, size_t size)
{
	const struct a2d_hdr *h = map;
	const unsigned char *base = map, *str;
	const struct a2d_range *r;
	const struct a2d_cu *cu;
	const struct a2d_fint *fi;
	const struct a2d_lint *li;
	const struct a2d_func *fn;

	if (size < sizeof(*h) || memcmp(h->magic, A2D_MAGIC, 8) || h->version != A2D_VERSION ||
	    h->hdr_size != sizeof(*h) || h->endian != A2L_ENDIAN || h->file_size != size ||
	    h->max_str > h->strings_size || !h->max_depth || h->max_depth > A2D_MAX_DEPTH)
		return -EINVAL;
	if (h->ranges_off != sizeof(*h) ||
	    h->cus_off != h->ranges_off + (uint64_t)h->nranges * sizeof(*r) ||
	    h->fints_off != h->cus_off + (((uint64_t)h->ncus * sizeof(*cu) + 7) & ~7ull) ||
	    h->lints_off != h->fints_off + (uint64_t)h->nfints * sizeof(*fi) ||
	    h->funcs_off != h->lints_off + (uint64_t)h->nlints * sizeof(*li) ||
	    h->strings_off != h->funcs_off + (uint64_t)h->nfuncs * sizeof(*fn) ||
	    h->strings_size > UINT32_MAX || h->zones_off != h->strings_off + ((h->strings_size + 7) & ~7ull) ||
	    h->zones_off + (uint64_t)h->nzones * sizeof(struct a2d_zone) != size)
		return -EINVAL;
	if (symindex_checksum(base + 32, size - 32) != h->checksum)
		return -EINVAL;
	r = (const void *)(base + h->ranges_off);
	cu = (const void *)(base + h->cus_off);
	fi = (const void *)(base + h->fints_off);
	li = (const void *)(base + h->lints_off);
	fn = (const void *)(base + h->funcs_off);
	str = base + h->strings_off;
	for (uint32_t i = 0; i < h->nzones; i++) {
		const struct a2d_zone *z = (const void *)(base + h->zones_off);

		if (z[i].lo >= z[i].hi || (i && z[i].lo <= z[i - 1].hi))
			return -EINVAL;
	}
	for (uint32_t i = 0; i < h->nranges; i++)
		if (r[i].lo >= r[i].hi || r[i].cu >= h->ncus || (i && r[i].lo < r[i - 1].hi))
			return -EINVAL;
	for (uint32_t i = 0; i < h->ncus; i++) {
		if (cu[i].f_first > cu[i].f_end || cu[i].f_end > h->nfints || cu[i].l_first > cu[i].l_end ||
		    cu[i].l_end > h->nlints)
			return -EINVAL;
		for (uint32_t k = cu[i].f_first; k < cu[i].f_end; k++)
			if (fi[k].lo >= fi[k].hi || fi[k].fn >= h->nfuncs || (k > cu[i].f_first && fi[k].lo < fi[k - 1].hi))
				return -EINVAL;
		for (uint32_t k = cu[i].l_first; k < cu[i].l_end; k++)
			if (li[k].lo >= li[k].hi || !sref_ok(str, h->strings_size, li[k].file, h->max_str) ||
			    (k > cu[i].l_first && li[k].lo < li[k - 1].hi))
				return -EINVAL;
	}
	for (uint32_t i = 0; i < h->nfuncs; i++)
		if ((fn[i].caller != A2L_NONE && fn[i].caller >= i) || fn[i].flags > 3 ||
		    !sref_ok(str, h->strings_size, fn[i].name, h->max_str) ||
		    !sref_ok(str, h->strings_size, fn[i].call_file, h->max_str))
			return -EINVAL;
	/* chains are at most max_depth long (callers are earlier: no cycle) */
	for (uint32_t i = 0; i < h->nfuncs; i++) {
		uint32_t d = 1, c = fn[i].caller;

		while (c != A2L_NONE && d <= h->max_depth) {
			d++;
			c = fn[c].caller;
		}
		if (d > h->max_depth)
			return -EINVAL;
	}
	return 0;
}

/* ---- open ------------------------------------------------------------------------------ */

int a2l_dw_open(struct a2l_table *t, const char *path, int fd, const struct stat *st, int dirfd, char *why,
		size_t whysz)
{
	char name[64];
	void *map = NULL;
	size_t msize = 0;
	int r = -ENOENT;

	(void)path;
	snprintf(name, sizeof(name), "%016llx" A2D_SUFFIX, (unsigned long long)a2l_key(st));
	if (dirfd >= 0 && sl_cache_file_map(dirfd, name, sizeof(struct a2d_hdr), &map, &msize) == 0) {
		const struct a2d_hdr *h = map;

		if (a2l_dw_validate(map, msize) == 0 && h->dev == (uint64_t)st->st_dev &&
		    h->ino == (uint64_t)st->st_ino && h->size == (uint64_t)st->st_size &&
		    h->mtime_sec == st->st_mtim.tv_sec && h->mtime_nsec == st->st_mtim.tv_nsec &&
		    h->ctime_sec == st->st_ctim.tv_sec && h->ctime_nsec == st->st_ctim.tv_nsec) {
			madvise(map, msize, MADV_DONTNEED);
			r = 0;
		} else {
			munmap(map, msize);
			map = NULL;
		}
	}
	if (r < 0) {
		struct a2l_img m;
		struct bld b;

		memset(&b, 0, sizeof(b));
		b.why = why;
		b.whysz = whysz;
		b.units.sz = sizeof(struct unit);
		b.abbrs.sz = sizeof(struct abbr);
		b.aattrs.sz = sizeof(struct aattr);
		b.fns.sz = sizeof(struct fn);
		b.frng.sz = sizeof(struct arng);
		b.rows.sz = sizeof(struct lrow);
		b.seqs.sz = sizeof(struct seq);
		b.lints.sz = sizeof(struct ltmp);
		b.fints.sz = sizeof(struct a2d_fint);
		b.cranges.sz = sizeof(struct crng);
		b.strs.sz = 1;
		b.owned.sz = sizeof(char *);
		b.zone.sz = sizeof(struct arng);
		r = a2l_img_open(&m, fd, (size_t)st->st_size);
		if (r < 0) {
			a2l_img_close(&m);
			return dfail(why, whysz, r, "not an ELF file");
		}
		b.m = &m;
		r = build(&b, st, dirfd, &map, &msize);
		if (r < 0 && why && !why[0])
			dfail(why, whysz, r, "DWARF table: %s", strerror(-r));
		bld_free(&b);
		a2l_img_close(&m);
		if (r < 0)
			return r;
		if (a2l_dw_validate(map, msize) < 0) {
			munmap(map, msize);
			return dfail(why, whysz, -EINVAL, "DWARF table built invalid");
		}
	}
	t->dmap = map;
	t->dmap_size = msize;
	t->dh = map;
	t->dh_nfuncs = t->dh->nfuncs;
	/* mmap, not calloc: see srcline/a2l.c amap (zero pages until written) */
	t->fstate = mmap(NULL, ((size_t)t->dh_nfuncs ? (size_t)t->dh_nfuncs : 1) * 4, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t->fstate == MAP_FAILED) {
		t->fstate = NULL;
		munmap(map, msize);
		t->dmap = NULL;
		t->dh = NULL;
		return dfail(why, whysz, -ENOMEM, "out of memory");
	}
	return 0;
}
