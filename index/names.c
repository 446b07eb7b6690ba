/* SPDX-License-Identifier: MIT */
/*
 * index/names.c - the name index (index/names.h; format: doc/index-format.md):
 * key and hash, validation, the cache file, name and offset queries. The
 * build from the ELF file is index/names_build.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elf.h>
#include "index/cache.h"
#include "index/format.h"
#include "index/names.h"
#include "util/reason.h"
#include "util/util.h"

_Static_assert(sizeof(struct symnames_hdr) == 672, "names header layout");
_Static_assert(sizeof(struct symnames_sym) == 48, "names record layout");
_Static_assert(sizeof(struct symnames_slot) == 12, "names slot layout");
_Static_assert(sizeof(struct symnames_addr) == 24, "names address entry layout");

static uint64_t load64(const unsigned char *p)
{
	uint64_t w;

	memcpy(&w, p, 8);
	return w;
}

uint64_t symnames_hash(const char *s, size_t n)
{
	const unsigned char *c = (const unsigned char *)s;
	uint64_t h = SL_FNV_OFFSET, t = 0;
	size_t i = 0;

	for (; i + 8 <= n; i += 8)
		h = (h ^ load64(c + i)) * SL_FNV_PRIME;
	for (size_t k = 0; i + k < n; k++)
		t |= (uint64_t)c[i + k] << (8 * k);
	t ^= (uint64_t)n << 56;
	h = (h ^ t) * SL_FNV_PRIME;
	return sl_mix64(h);
}

uint64_t symnames_key(uint64_t dev, uint64_t ino, uint64_t size, int64_t mtime_sec, int64_t mtime_nsec,
		      int64_t ctime_sec, int64_t ctime_nsec)
{
	uint64_t w[8] = { SYMNAMES_VERSION, dev, ino, size, (uint64_t)mtime_sec, (uint64_t)mtime_nsec,
			  (uint64_t)ctime_sec, (uint64_t)ctime_nsec };

	return sl_fnv1a(SL_FNV_OFFSET, w, sizeof(w));
}

void symnames_file_name(uint64_t key, char *buf, size_t n)
{
	snprintf(buf, n, "%016llx" SYMNAMES_SUFFIX, (unsigned long long)key);
}

/* ---- validation ------------------------------------------------------------ */

uint32_t symnames_next_ref(const unsigned char *area, uint32_t ref)
{
	uint32_t len;

	memcpy(&len, area + ref, 4);
	return ref + ((4 + len + 1 + 3) & ~3u);
}

static uint64_t align8(uint64_t x)
{
	return (x + 7) & ~7ull;
}

/* A string ref inside @area (@size bytes): 4-aligned, length, bytes and NUL in bounds. */
static int ref_ok(const unsigned char *area, uint64_t size, uint32_t ref)
{
	uint32_t len;

	if (ref % 4 || (uint64_t)ref + 4 > size)
		return 0;
	memcpy(&len, area + ref, 4);
	return (uint64_t)ref + 4 + len + 1 <= size && area[(uint64_t)ref + 4 + len] == 0;
}

static int hdr_ok(const struct symnames_hdr *h, size_t size)
{
	uint64_t off;

	if (size < sizeof(*h) || memcmp(h->magic, SYMNAMES_MAGIC, 8) || h->version != SYMNAMES_VERSION ||
	    h->hdr_size != sizeof(*h) || h->endian != SYMNAMES_ENDIAN || h->file_size != size)
		return 0;
	if (!h->nbuckets || (h->nbuckets & (h->nbuckets - 1)) || h->nloads > SYMNAMES_MAX_LOADS ||
	    h->build_id_len > sizeof(h->build_id) || h->flags > 15 || h->naddrs > h->nsyms)
		return 0;
	/* the parts follow each other, each 8-aligned: one canonical layout */
	off = sizeof(*h);
	if (h->syms_off != off)
		return 0;
	off = align8(off + (uint64_t)h->nsyms * sizeof(struct symnames_sym));
	if (h->buckets_off != off)
		return 0;
	off = align8(off + ((uint64_t)h->nbuckets + 1) * 4);
	if (h->slots_off != off)
		return 0;
	off = align8(off + (uint64_t)h->nslots * sizeof(struct symnames_slot));
	if (h->addrs_off != off)
		return 0;
	off += (uint64_t)h->naddrs * sizeof(struct symnames_addr);
	if (h->strings_off != off || h->strings_size > UINT32_MAX || off + h->strings_size != size)
		return 0;
	return 1;
}

int symnames_validate(const void *map, size_t size)
{
	const struct symnames_hdr *h = map;
	const unsigned char *base = map, *str;
	const struct symnames_sym *s;
	const struct symnames_slot *sl;
	const struct symnames_addr *a;
	const uint32_t *b;
	uint64_t pmax = 0;
	uint32_t i;

	if (!hdr_ok(h, size))
		return -EINVAL;
	if (symindex_checksum(base + 32, size - 32) != h->checksum)
		return -EINVAL;
	s = (const void *)(base + h->syms_off);
	b = (const void *)(base + h->buckets_off);
	sl = (const void *)(base + h->slots_off);
	a = (const void *)(base + h->addrs_off);
	str = base + h->strings_off;
	if ((h->flags & SN_F_DEBUG) ? !ref_ok(str, h->strings_size, h->dbg_path) : h->dbg_path != SYMNAMES_NONE)
		return -EINVAL;
	{       /* the version names follow each other from the first string ref */
		uint32_t ref = h->dbg_path == SYMNAMES_NONE ? 0 : symnames_next_ref(str, h->dbg_path);

		for (i = 0; i < h->nversions; i++, ref = symnames_next_ref(str, ref))
			if (!ref_ok(str, h->strings_size, ref))
				return -EINVAL;
	}
	for (i = 0; i < h->nsyms; i++)
		if (!ref_ok(str, h->strings_size, s[i].name) || s[i].table > 1 ||
		    s[i].index >= (s[i].table ? h->ndynsym : h->nsymtab) || s[i].flags > 7 ||
		    (s[i].version != SYMNAMES_NONE && !ref_ok(str, h->strings_size, s[i].version)))
			return -EINVAL;
	if (b[0] != 0 || b[h->nbuckets] != h->nslots)
		return -EINVAL;
	for (i = 0; i < h->nbuckets; i++)
		if (b[i] > b[i + 1])
			return -EINVAL;
	for (i = 0; i < h->nslots; i++)
		if (sl[i].rec >= h->nsyms || !ref_ok(str, h->strings_size, sl[i].key))
			return -EINVAL;
	for (i = 0; i < h->naddrs; i++) {
		uint64_t end;

		if (a[i].rec >= h->nsyms || a[i].start != s[a[i].rec].offset || (i && a[i].start < a[i - 1].start))
			return -EINVAL;
		end = a[i].start + (s[a[i].rec].size ? s[a[i].rec].size : 1);
		if (end < a[i].start)
			end = UINT64_MAX;
		pmax = end > pmax ? end : pmax;
		if (a[i].pmax != pmax)
			return -EINVAL;
	}
	return 0;
}

void symnames_attach(struct symnames *out, void *map, size_t size)
{
	const unsigned char *base = map;

	memset(out, 0, sizeof(*out));
	out->map = map;
	out->map_size = size;
	out->h = map;
	out->syms = (const void *)(base + out->h->syms_off);
	out->buckets = (const void *)(base + out->h->buckets_off);
	out->slots = (const void *)(base + out->h->slots_off);
	out->addrs = (const void *)(base + out->h->addrs_off);
	out->strings = base + out->h->strings_off;
}

/* ---- open ------------------------------------------------------------------ */

static int same_identity(const struct stat *st, uint64_t dev, uint64_t ino, uint64_t size, int64_t ms,
			 int64_t mns, int64_t cs, int64_t cns)
{
	return (uint64_t)st->st_dev == dev && (uint64_t)st->st_ino == ino && (uint64_t)st->st_size == size &&
	       (int64_t)st->st_mtim.tv_sec == ms && (int64_t)st->st_mtim.tv_nsec == mns &&
	       (int64_t)st->st_ctim.tv_sec == cs && (int64_t)st->st_ctim.tv_nsec == cns;
}

/* The cache file for @st, validated and still describing @st (and its debug file). */
static int map_cached(int dirfd, const struct stat *st, struct symnames *out)
{
	char name[64];
	struct stat ds;
	const struct symnames_hdr *h;
	void *map;
	size_t msize;
	int r;

	symnames_file_name(symnames_key((uint64_t)st->st_dev, (uint64_t)st->st_ino, (uint64_t)st->st_size,
					st->st_mtim.tv_sec, st->st_mtim.tv_nsec, st->st_ctim.tv_sec,
					st->st_ctim.tv_nsec), name, sizeof(name));
	r = sl_cache_file_map(dirfd, name, sizeof(struct symnames_hdr), &map, &msize);
	if (r < 0)
		return r;
	h = map;
	if (symnames_validate(map, msize) < 0 ||
	    !same_identity(st, h->dev, h->ino, h->size, h->mtime_sec, h->mtime_nsec, h->ctime_sec,
			   h->ctime_nsec))
		goto stale;
	if (h->flags & SN_F_DEBUG) {
		const char *dbg = (const char *)map + h->strings_off + h->dbg_path + 4;

		if (stat(dbg, &ds) < 0 ||
		    !same_identity(&ds, h->dbg_dev, h->dbg_ino, h->dbg_size, h->dbg_mtime_sec, h->dbg_mtime_nsec,
				   h->dbg_ctime_sec, h->dbg_ctime_nsec))
			goto stale;
	}
	symnames_attach(out, map, msize);
	out->from_cache = 1;
	/* validation read every page: drop them from this process's RSS (they
	 * stay in the page cache); queries touch a few pages each */
	madvise(map, msize, MADV_DONTNEED);
	return 0;
stale:
	munmap(map, msize);
	return -EINVAL;
}

int symnames_open(const char *path, int dirfd, unsigned flags, struct symnames *out, struct sl_why *why)
{
	struct stat st;
	int fd, r;

	memset(out, 0, sizeof(*out));
	sl_why_set(why, SL_R_NONE, NULL);
	fd = sl_open_regular(path, &st, why);
	if (fd < 0)
		return fd;
	if (dirfd >= 0 && !(flags & SN_OPEN_REBUILD) && map_cached(dirfd, &st, out) == 0) {
		close(fd);
		return 0;
	}
	r = symnames_build(path, fd, &st, dirfd, out, why);
	close(fd);
	return r;
}

void symnames_close(struct symnames *n)
{
	if (n->map)
		munmap(n->map, n->map_size);
	memset(n, 0, sizeof(*n));
}

/* ---- queries --------------------------------------------------------------- */

const char *symnames_str(const struct symnames *n, uint32_t ref, size_t *len)
{
	uint32_t l;

	if (ref == SYMNAMES_NONE) {
		if (len)
			*len = 0;
		return "";
	}
	memcpy(&l, n->strings + ref, 4);
	if (len)
		*len = l;
	return (const char *)n->strings + ref + 4;
}

uint32_t symnames_lookup(const struct symnames *n, const char *s, size_t len, uint32_t *key)
{
	uint64_t hash = symnames_hash(s, len);
	uint32_t tag = (uint32_t)(hash >> 32), b = (uint32_t)hash & (n->h->nbuckets - 1);
	uint32_t func = SYMNAMES_NONE, other = SYMNAMES_NONE, fkey = 0, okey = 0;

	/* slots of a bucket are in record order: the last match is the last record */
	for (uint32_t i = n->buckets[b]; i < n->buckets[b + 1]; i++) {
		const struct symnames_slot *sl = &n->slots[i];
		const struct symnames_sym *r;
		uint32_t klen;

		if (sl->tag != tag)
			continue;
		memcpy(&klen, n->strings + sl->key, 4);
		if (klen != len || memcmp(n->strings + sl->key + 4, s, len))
			continue;
		r = &n->syms[sl->rec];
		if (ELF64_ST_TYPE(r->info) == STT_FUNC) {
			func = sl->rec;
			fkey = sl->key;
		} else if (r->shndx != SHN_UNDEF) {
			other = sl->rec;
			okey = sl->key;
		}
	}
	if (func != SYMNAMES_NONE && !n->syms[func].offset)
		func = other = SYMNAMES_NONE;   /* an imported function: cilium refuses it */
	if (key)
		*key = func != SYMNAMES_NONE ? fkey : okey;
	return func != SYMNAMES_NONE ? func : other;
}

uint32_t symnames_symbolize(const struct symnames *n, uint64_t off)
{
	const struct symnames_addr *a = n->addrs;
	size_t lo = 0, hi = n->h->naddrs;

	while (lo < hi) {               /* first entry with start > off */
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* walk back while some earlier entry can still reach off */
	for (size_t j = lo; j-- > 0 && a[j].pmax > off;) {
		const struct symnames_sym *r = &n->syms[a[j].rec];
		uint64_t sz = r->size ? r->size : 1;
		size_t k;

		if (off - a[j].start >= sz)
			continue;
		/* the innermost start holding off: its best-ranked holder */
		for (k = j; k > 0 && a[k - 1].start == a[j].start; k--)
			;
		for (; k <= j; k++) {
			r = &n->syms[a[k].rec];
			sz = r->size ? r->size : 1;
			if (off - a[k].start < sz)
				return a[k].rec;
		}
	}
	return SYMNAMES_NONE;
}
