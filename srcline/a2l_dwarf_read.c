/* SPDX-License-Identifier: MIT */
/*
 * srcline/a2l_dwarf_read.c - the DWARF reader of srcline/a2l_dwarf.h:
 * sections (SHF_COMPRESSED inflated), the bounds-checked reader,
 * abbreviations, attribute values, range lists, file names and the line
 * program, as binutils-2.40 bfd/dwarf2.c reads them (read_abbrevs,
 * read_attribute_value, read_ranges / read_rnglists, arange_add,
 * concat_filename, decode_line_info, add_line_info, sort_line_sequences).
 * Format facts: DWARF 4 and 5 (6.2 line number program, 7.5 forms, 7.22
 * entry formats, 7.25 range lists); gABI SHF_COMPRESSED / Elf64_Chdr.
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
#include "srcline/a2l_dwarf_int.h"
#include "srcline/a2l_elf.h"
#include "util/zlib_dl.h"
#include "util/zstd_dl.h"

/* ---- growable arrays -------------------------------------------------------------- */



void *a2d_vpush(struct vec *v)
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
			{
				const Bytef *pi = z.next_in, *po = z.next_out;

				zr = zl->inflate(&z, Z_NO_FLUSH);
				/* no progress (input cut short, output space left): corrupt */
				if (zr == Z_BUF_ERROR && (z.avail_in || z.avail_out) &&
				    (z.next_in != pi || z.next_out != po))
					zr = Z_OK;
			}
			if (zr == Z_OK && !z.avail_in && !z.avail_out &&
			    (uint64_t)(z.next_out - out) == want && z.next_in == in + inlen)
				break;
		}
		zl->inflateEnd(&z);
		return (zr == Z_STREAM_END || zr == Z_OK) && (uint64_t)(z.next_out - out) == want ? 0 : -EBADMSG;
	}
	if (type == ELFCOMPRESS_ZSTD) {
		const struct zstd_dl *zs;
		ZSTD_DStream *ds;
		ZSTD_inBuffer ib = { in, (size_t)inlen, 0 };
		ZSTD_outBuffer ob = { out, (size_t)want, 0 };
		size_t zr = 1;
		int e = zstd_dl_dstream(&zs, &ds);

		if (e < 0)
			return e;
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

int a2d_load_sec(const struct sl_elfimg *m, const Elf64_Shdr *sh, struct dsec *d)
{
	const unsigned char *raw;

	d->present = 1;
	if (sh->sh_type == SHT_NOBITS)
		return -ENOTSUP;
	if (!(raw = sl_elfimg_at(m, sh->sh_offset, sh->sh_size)))
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



uint64_t a2d_rd_n(struct rd *r, unsigned n)
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

/* One LEB128 (DWARF 5 section 7.6) as unsigned: its 7-bit groups, bits
 * past 64 dropped; *@shift: 7 per group read, *@last: the last group's
 * byte (0 when none was read), for the sign of a signed one. */
static inline uint64_t rd_leb(struct rd *r, unsigned *shift, unsigned char *last)
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
	*shift = sh;
	*last = b;
	return v;
}

uint64_t a2d_rd_uleb(struct rd *r)
{
	unsigned sh;
	unsigned char b;

	return rd_leb(r, &sh, &b);
}

int64_t a2d_rd_sleb(struct rd *r)
{
	unsigned sh;
	unsigned char b;
	uint64_t v = rd_leb(r, &sh, &b);

	if (sh < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << sh;
	return (int64_t)v;
}

/* a NUL-terminated string at @p inside [p, e): NULL when it runs off (refused) */
const char *a2d_cstr(const unsigned char *p, const unsigned char *e)
{
	return p < e && memchr(p, 0, (size_t)(e - p)) ? (const char *)p : NULL;
}

/* ---- the build state ------------------------------------------------------------- */







void a2d_bld_free(struct bld *b)
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

	if (!s || !(slot = a2d_vpush(&b->owned))) {
		free(s);
		return NULL;
	}
	return *slot = s;
}

/* ---- abbreviations (read_abbrevs) ------------------------------------------------ */

int a2d_read_abbrevs(struct bld *b, struct unit *u, uint64_t off)
{
	struct rd r;
	uint64_t code;
	uint32_t maxc = 0;
	struct abbr *ab;

	if (off >= b->abbrev.n)
		return -EINVAL;
	r = (struct rd){ b->abbrev.p + off, b->abbrev.p + b->abbrev.n, 0 };
	u->abbr_first = (uint32_t)b->abbrs.n;
	code = a2d_rd_uleb(&r);
	while (code && !r.bad) {
		struct abbr *a;
		uint64_t name, form;

		if (code > 65535)
			return -ENOTSUP;
		if (!(a = a2d_vpush(&b->abbrs)))
			return -ENOMEM;
		a->code = (uint32_t)code;
		a->tag = (uint32_t)a2d_rd_uleb(&r);
		a->children = (uint32_t)a2d_rd_n(&r, 1);
		a->first = (uint32_t)b->aattrs.n;
		maxc = a->code > maxc ? a->code : maxc;
		for (;;) {
			struct aattr *at;
			int64_t ic = -1;

			name = a2d_rd_uleb(&r);
			form = a2d_rd_uleb(&r);
			if (form == DW_FORM_implicit_const)
				ic = a2d_rd_sleb(&r);
			if (!name || r.bad)
				break;
			if (!(at = a2d_vpush(&b->aattrs)))
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
		code = a2d_rd_uleb(&r);
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

const struct abbr *a2d_abbr_of(const struct bld *b, const struct unit *u, uint64_t code)
{
	if (code > u->abbr_maxcode || u->abbr_by_code[code] == A2L_NONE)
		return NULL;
	return (const struct abbr *)b->abbrs.p + u->abbr_by_code[code];
}

/* ---- attributes (read_attribute_value) ----------------------------------------- */




int a2d_is_int_form(uint32_t f)
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
	if (!(p = a2d_cstr(s->p + off, s->p + s->n))) {
		*bad = 1;
		return NULL;
	}
	return *p ? p : NULL;
}

/* One attribute value; -ENOTSUP for forms outside the served class. */
int a2d_read_attr(struct bld *b, const struct unit *u, struct rd *r, uint32_t form, int64_t ic, struct attr *a)
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
		a->val = a2d_rd_n(r, u->addr_size);
		break;
	case DW_FORM_ref_addr:
		a->val = a2d_rd_n(r, u->version == 2 ? u->addr_size : 4);
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
		a->val = a2d_rd_n(r, 1);
		break;
	case DW_FORM_data2: case DW_FORM_ref2:
		a->val = a2d_rd_n(r, 2);
		break;
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_sec_offset:
		a->val = a2d_rd_n(r, 4);
		break;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8:
		a->val = a2d_rd_n(r, 8);
		break;
	case DW_FORM_string:
		p0 = r->p;
		if (!a2d_cstr(p0, r->e))
			return -EINVAL;
		r->p += strlen((const char *)p0) + 1;
		a->kind = AV_STR;
		a->str = *p0 ? (const char *)p0 : NULL;
		break;
	case DW_FORM_strp: case DW_FORM_line_strp: {
		int bad = 0;

		a->val = a2d_rd_n(r, 4);
		a->kind = AV_STR;
		if (r->bad)
			return -EINVAL;
		a->str = indirect(form == DW_FORM_strp ? &b->str : &b->line_str, a->val, &bad);
		if (bad)
			return -EINVAL;
		break;
	}
	case DW_FORM_exprloc: case DW_FORM_block: {
		uint64_t n = a2d_rd_uleb(r);

		if (r->bad || n > (uint64_t)(r->e - r->p))
			return -EINVAL;
		r->p += n;
		a->kind = AV_BLK;
		break;
	}
	case DW_FORM_block1: case DW_FORM_block2: case DW_FORM_block4: {
		uint64_t n = a2d_rd_n(r, form == DW_FORM_block1 ? 1 : form == DW_FORM_block2 ? 2 : 4);

		if (r->bad || n > (uint64_t)(r->e - r->p))
			return -EINVAL;
		r->p += n;
		a->kind = AV_BLK;
		break;
	}
	case DW_FORM_sdata:
		a->val = (uint64_t)a2d_rd_sleb(r);
		break;
	case DW_FORM_udata: case DW_FORM_ref_udata:
		a->val = a2d_rd_uleb(r);
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
int a2d_arange_add(struct vec *v, uint64_t lo, uint64_t hi)
{
	struct arng *a = v->p, *n;

	if (lo == hi)
		return 0;
	if (!v->n || a[0].hi == 0) {
		if (!v->n && !a2d_vpush(v))
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
	if (!(n = a2d_vpush(v)))
		return -ENOMEM;
	n->lo = lo;
	n->hi = hi;
	return 0;
}

int a2d_read_rangelist(struct bld *b, const struct unit *u, uint64_t off, struct vec *v)
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
			lo = a2d_rd_n(&rr, u->addr_size);
			hi = a2d_rd_n(&rr, u->addr_size);
			if (lo == 0 && hi == 0)
				return 0;
			if (lo == ~0ull && hi != ~0ull)
				base = hi;
			else if ((r = a2d_arange_add(v, base + lo, base + hi)) < 0)
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
			k = (unsigned)a2d_rd_n(&rr, 1);
			switch (k) {
			case DW_RLE_end_of_list:
				return 0;
			case DW_RLE_base_address:
				base = a2d_rd_n(&rr, u->addr_size);
				if (rr.bad)
					return -EINVAL;
				continue;
			case DW_RLE_start_length:
				lo = a2d_rd_n(&rr, u->addr_size);
				hi = lo + a2d_rd_uleb(&rr);
				break;
			case DW_RLE_offset_pair:
				lo = base + a2d_rd_uleb(&rr);
				hi = base + a2d_rd_uleb(&rr);
				break;
			case DW_RLE_start_end:
				lo = a2d_rd_n(&rr, u->addr_size);
				hi = a2d_rd_n(&rr, u->addr_size);
				break;
			default:
				return -ENOTSUP;
			}
			if (rr.bad)
				return -EINVAL;
			if ((r = a2d_arange_add(v, lo, hi)) < 0)
				return r;
		}
	}
}

int a2d_arange_push(struct vec *v, uint64_t lo, uint64_t hi)
{
	struct arng *a;

	if (lo == hi)
		return 0;
	if (!v->sz)
		v->sz = sizeof(struct arng);
	if (!(a = a2d_vpush(v)))
		return -ENOMEM;
	a->lo = lo;
	a->hi = hi;
	return 0;
}

/* ---- strings of the output ---------------------------------------------------------- */

/* file names built by concat_filename */
const char *a2d_concat_filename(struct bld *b, const struct unit *u, uint64_t file64)
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
	if (!(nr = a2d_vpush(cur)))
		return -ENOMEM;
	*nr = (struct lrow){ addr, file, line, discr, end };
	return 0;
}

static int read_entries(struct bld *b, struct unit *u, struct rd *r, int files)
{
	unsigned nfmt = (unsigned)a2d_rd_n(r, 1);
	uint64_t fmt[2 * 256], cnt;

	for (unsigned i = 0; i < nfmt; i++) {
		fmt[2 * i] = a2d_rd_uleb(r);
		fmt[2 * i + 1] = a2d_rd_uleb(r);
	}
	cnt = a2d_rd_uleb(r);
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
			if ((rr = a2d_read_attr(b, u, r, (uint32_t)form, 0, &a)) < 0)
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
			struct file_ent *f = a2d_vpush(&u->files);

			if (!f)
				return -ENOMEM;
			*f = fe;
		} else {
			const char **d = a2d_vpush(&u->dirs);

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
int a2d_decode_lines(struct bld *b, struct unit *u, uint32_t ui)
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
	len = a2d_rd_n(&r, 4);
	if (len == 0xffffffff || len == 0)
		return -ENOTSUP;       /* 64-bit DWARF */
	if (len > (uint64_t)(r.e - r.p))
		return -EINVAL;
	r.e = r.p + len;
	ver = (unsigned)a2d_rd_n(&r, 2);
	if (ver < 4 || ver > 5 || ver != u->version)
		return -ENOTSUP;
	if (r.p + 4 + (ver >= 5 ? 8 : 6) >= r.e)
		return -EINVAL;
	if (ver >= 5) {
		a2d_rd_n(&r, 1);
		if (a2d_rd_n(&r, 1) != 0)
			return -ENOTSUP;
	}
	a2d_rd_n(&r, 4);            /* header_length */
	min_insn = (unsigned)a2d_rd_n(&r, 1);
	max_ops = (unsigned)a2d_rd_n(&r, 1);
	if (max_ops != 1)
		return -ENOTSUP;
	int default_is_stmt = (int)a2d_rd_n(&r, 1);
	(void)default_is_stmt;
	line_base = (signed char)a2d_rd_n(&r, 1);
	lrange = (unsigned)a2d_rd_n(&r, 1);
	opbase = (unsigned)a2d_rd_n(&r, 1);
	if (r.bad || opbase == 0 || r.p + (opbase - 1) >= r.e)
		return -EINVAL;
	oplen[0] = 1;
	for (unsigned i = 1; i < opbase; i++)
		oplen[i] = (unsigned char)a2d_rd_n(&r, 1);
	if (ver >= 5) {
		if ((rr = read_entries(b, u, &r, 0)) < 0 || (rr = read_entries(b, u, &r, 1)) < 0)
			return rr;
		u->use0 = 1;
	} else {
		for (;;) {
			const char *s = a2d_cstr(r.p, r.e), **d;

			if (!s)
				return -EINVAL;
			r.p += strlen(s) + 1;
			if (!*s)
				break;
			if (!(d = a2d_vpush(&u->dirs)))
				return -ENOMEM;
			*d = s;
		}
		for (;;) {
			const char *s = a2d_cstr(r.p, r.e);
			struct file_ent *f;

			if (!s)
				return -EINVAL;
			r.p += strlen(s) + 1;
			if (!*s)
				break;
			if (!(f = a2d_vpush(&u->files)))
				return -ENOMEM;
			f->name = s;
			f->dir = (uint32_t)a2d_rd_uleb(&r);
			a2d_rd_uleb(&r);
			a2d_rd_uleb(&r);
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
			file = a2d_concat_filename(b, u, u->use0 ? 0 : 1);
		cur.n = 0;
		while (!end && r.p < r.e) {
			unsigned op = (unsigned)a2d_rd_n(&r, 1);

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
				uint64_t exlen = a2d_rd_uleb(&r);
				unsigned ex = (unsigned)a2d_rd_n(&r, 1);

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
					addr = a2d_rd_n(&r, u->addr_size);
					break;
				case DW_LNE_set_discriminator:
					discr = (uint32_t)a2d_rd_uleb(&r);
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
				addr += min_insn * a2d_rd_uleb(&r);
				break;
			case DW_LNS_advance_line:
				line += (uint32_t)a2d_rd_sleb(&r);
				break;
			case DW_LNS_set_file:
				file = a2d_concat_filename(b, u, a2d_rd_uleb(&r));
				if (!file)
					return -ENOMEM;
				break;
			case DW_LNS_set_column:
				a2d_rd_uleb(&r);
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
				addr += a2d_rd_n(&r, 2);
				break;
			default:
				for (unsigned i = 0; i < oplen[op]; i++)
					a2d_rd_uleb(&r);
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
			if (!(s = a2d_vpush(&b->seqs))) {
				rr = -ENOMEM;
				goto fail;
			}
			s->low = rows[0].addr;
			s->end = rows[cur.n - 1].addr;
			s->first = (uint32_t)b->rows.n;
			s->n = (uint32_t)cur.n;
			for (size_t i = 0; i < cur.n; i++) {
				struct lrow *d = a2d_vpush(&b->rows);

				if (!d) {
					rr = -ENOMEM;
					goto fail;
				}
				*d = rows[i];
			}
			/* decode_line_info adds [low_pc, high_pc] to the unit's ranges:
			 * outside them, laziness could matter (checked per unit) */
			if ((rr = a2d_arange_push(&u->extra, lo, hi)) < 0)
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
				li = a2d_vpush(&b->lints);
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

