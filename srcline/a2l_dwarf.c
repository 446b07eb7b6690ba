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

_Static_assert(sizeof(struct a2d_hdr) == 200, "a2d header layout");
_Static_assert(sizeof(struct a2d_func) == 32, "a2d func layout");

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
		return sl_whyf(b->why, SL_R_A2L_DWARF, -EFBIG, "more than 2^32 entries");
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
		rr = sl_whyf(b->why, SL_R_A2L_DWARF, -ENOTSUP, "inline depth %u", maxd);
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
	b->zone.n = a2d_arng_merge(b->zone.p, b->zone.n, b->m);
	h.nzones = (uint32_t)b->zone.n;
	h.zones_off = h.strings_off + ((in.size + 7) & ~7ull);
	size = h.file_size = h.zones_off + (uint64_t)h.nzones * sizeof(struct a2d_zone);
	if ((fd = sl_cache_backing(dirfd, (size_t)size, A2D_SUFFIX, "symlazy-a2d", tmp, sizeof(tmp))) < 0) {
		rr = sl_whyf(b->why, SL_R_A2L_INDEX, fd, "%s (DWARF table)", strerror(-fd));
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
	sl_cache_backing_drop(dirfd, fd, tmp);
	free(of);
	free(ol);
	free(depth);
	free(in.t);
	free(in.area);
	return rr;
}

/* ---- build --------------------------------------------------------------------------- */

int a2l_dw_wanted(const struct sl_elfimg *m)
{
	Elf64_Shdr sh;
	const char *n;

	for (size_t i = 1; i < m->shnum; i++)
		if (sl_elfimg_shdr(m, i, &sh) == 0 && (n = sl_elfimg_sec_name(m, &sh)) && !strcmp(n, ".debug_info"))
			return 1;
	return 0;
}

static int build(struct bld *b, const struct stat *st, int dirfd, void **map, size_t *size)
{
	static const char *const names[] = { ".debug_info", ".debug_abbrev", ".debug_line", ".debug_str",
					     ".debug_line_str", ".debug_ranges", ".debug_rnglists" };
	struct dsec *ds[] = { &b->info, &b->abbrev, &b->line, &b->str, &b->line_str, &b->ranges, &b->rnglists };
	const struct sl_elfimg *m = b->m;
	Elf64_Shdr sh;
	uint64_t off = 0, line0 = 0;
	int rr;

	for (size_t i = 1; i < m->shnum; i++) {
		const char *n;

		if (sl_elfimg_shdr(m, i, &sh) < 0 || !(n = sl_elfimg_sec_name(m, &sh)))
			return sl_whyf(b->why, SL_R_A2L_DWARF, -EINVAL, "section %zu has no readable name", i);
		if (!strncmp(n, ".zdebug", 7) || !strncmp(n, ".gnu.linkonce.wi.", 17) || !strcmp(n, ".gnu_debugaltlink") ||
		    (strstr(n, ".dwo") && !strncmp(n, ".debug_", 7)))
			return sl_whyf(b->why, SL_R_A2L_DWARF, -ENOTSUP, "section %s not mirrored", n);
		for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (!strcmp(n, names[k])) {
				if (ds[k]->present)
					return sl_whyf(b->why, SL_R_A2L_DWARF, -ENOTSUP, "more than one %s", n);
				if ((rr = a2d_load_sec(m, &sh, ds[k])) < 0)
					return sl_whyf(b->why, SL_R_A2L_DWARF, rr, "%s: %s", n,
						     rr == -ENOTSUP ? "not mirrored (NOBITS or compression type)" :
						     rr == -ENOSYS ? "no zlib/zstd to inflate it" : strerror(-rr));
			}
	}
	if (!b->info.present || !b->abbrev.present)
		return sl_whyf(b->why, SL_R_A2L_DWARF, -ENOTSUP, "no .debug_info/.debug_abbrev");
	/* the table is built eagerly in perf's child before its first answer
	 * (perf 6.12 waits 5 s): larger DWARF stays with binutils' lazy reading */
	if (b->info.n + b->line.n > A2D_MAX_DWARF)
		return sl_whyf(b->why, SL_R_A2L_DWARF, -EFBIG, ".debug_info + .debug_line: %llu bytes, more than %u MiB",
			     (unsigned long long)(b->info.n + b->line.n), A2D_MAX_DWARF >> 20);
	/* stash_comp_unit: every unit in order; any error stops bfd's reading */
	while (off < b->info.n) {
		uint64_t next;

		if ((rr = a2d_parse_unit(b, off, &next)) < 0)
			return sl_whyf(b->why, SL_R_A2L_DWARF, rr, "unit at .debug_info+%#llx %s", (unsigned long long)off,
				     rr == -ENOTSUP ? "outside the mirrored DWARF 4/5 class" : "malformed");
		off = next;
	}
	for (size_t i = 0; i < b->units.n; i++) {
		struct unit *u = (struct unit *)b->units.p + i;

		u->fn_first = u->fn_end = (uint32_t)b->fns.n;
		if (!u->stmtlist)
			continue;
		if (u->line_off == 0 && line0++)
			return sl_whyf(b->why, SL_R_A2L_DWARF, -ENOTSUP, "two units share line table offset 0");
		if ((rr = a2d_decode_lines(b, u, (uint32_t)i)) < 0)
			return sl_whyf(b->why, SL_R_A2L_DWARF, rr, "line table of unit at .debug_info+%#llx %s",
				     (unsigned long long)u->off, rr == -ENOTSUP ? "outside the mirrored class" : "malformed");
	}
	for (size_t i = 0; i < b->units.n; i++) {
		struct unit *u = (struct unit *)b->units.p + i;

		if (!u->stmtlist)
			continue;
		if ((rr = a2d_scan_unit(b, (uint32_t)i)) < 0)
			return sl_whyf(b->why, SL_R_A2L_DWARF, rr, "DIEs of unit at .debug_info+%#llx %s",
				     (unsigned long long)u->off, rr == -ENOTSUP ? "outside the mirrored class" : "malformed");
	}
	a2d_merge_own(b);
	for (size_t i = 0; i < b->units.n; i++) {
		struct unit *u = (struct unit *)b->units.p + i;

		if (!u->stmtlist) {
			u->f_first = u->f_end = (uint32_t)b->fints.n;
			u->l_first = u->l_end = (uint32_t)b->lints.n;
			continue;
		}
		if ((rr = a2d_func_intervals(b, u)) < 0)
			return rr;
	}
	if ((rr = a2d_build_map(b)) < 0)
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

int a2l_dw_open(struct a2l_table *t, const char *path, int fd, const struct stat *st, int dirfd,
		struct sl_why *why)
{
	char name[64];
	void *map = NULL;
	size_t msize = 0;
	int r = -ENOENT;

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
		struct sl_elfimg m;
		struct bld b;

		memset(&b, 0, sizeof(b));
		b.why = why;
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
			sl_elfimg_close(&m);
			return sl_whyf(why, SL_R_NOT_ELF, r, "%s", path);
		}
		b.m = &m;
		r = build(&b, st, dirfd, &map, &msize);
		if (r < 0 && why && why->code == SL_R_NONE)
			sl_why_set(why, SL_R_A2L_DWARF, "%s", strerror(-r));
		a2d_bld_free(&b);
		sl_elfimg_close(&m);
		if (r < 0)
			return r;
		if (a2l_dw_validate(map, msize) < 0) {
			munmap(map, msize);
			return sl_whyf(why, SL_R_A2L_DWARF, -EINVAL, "table built invalid");
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
		return sl_whyf(why, SL_R_NOMEM, -ENOMEM, NULL);
	}
	return 0;
}

