/* SPDX-License-Identifier: MIT */
/*
 * dwflindex.c - build, cache and search the index of dwflindex.h. The scan
 * order, the candidate rule and the bias rules mirror elfutils 0.188
 * libdwfl/dwfl_module_addrsym.c (search_table, __libdwfl_addrsym) and
 * libdwfl/dwfl_module_getsym.c (__libdwfl_getsym); the choice between the
 * candidates is the model's (core/model/libdwfl188.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "index/dwflindex.h"
#include "index/symindex.h"
#include "util/reason.h"
#include "util/util.h"

/* ---- scan order --------------------------------------------------------- */

/* libdwfl's two passes: [gstart, syments) then, if first_global > 1,
 * [1, first_global). */
static int gstart(const struct sl_dwfl_src *src)
{
	return src->first_global == 0 ? 1 : src->first_global;
}

static int two_passes(int first_global)
{
	return first_global > 1;
}

/* The @k-th index in scan order, or -1 past the end. */
static int scan_ndx(const struct sl_dwfl_src *src, long k)
{
	long g = src->syments - gstart(src);

	if (g < 0)
		g = 0;
	if (k < g)
		return (int)(gstart(src) + k);
	k -= g;
	if (two_passes(src->first_global) && k < src->first_global - 1)
		return (int)(1 + k);
	return -1;
}

/* ---- sort --------------------------------------------------------------- */

/* (key, scan order): equal keys in libdwfl's scan order, first pass first */
static int ent_less(const struct sl_dwfl_ent *a, const struct sl_dwfl_ent *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	if (de_pass(a) != de_pass(b))
		return de_pass(a) < de_pass(b);
	return de_ndx(a) < de_ndx(b);
}

SL_HEAPSORT(heapsort_ents, struct sl_dwfl_ent, ent_less)

void sl_dwfl_sort(struct sl_dwfl_ent *e, size_t n)
{
	size_t i;

	if (n < 2)
		return;
	/* already sorted (common for .symtab in address order)? */
	for (i = 1; i < n && !ent_less(&e[i], &e[i - 1]); i++)
		;
	if (i == n)
		return;
	heapsort_ents(e, n);
}

/* ---- blocks ------------------------------------------------------------- */

struct blk_acc {
	uint64_t pmax[2];
	uint32_t last0[2];
};

static void acc_init(struct blk_acc *a)
{
	a->pmax[0] = a->pmax[1] = 0;
	a->last0[0] = a->last0[1] = SL_DWFL_NONE;
}

/* Fold entry @i into the prefix summary. */
static void acc_add(struct blk_acc *a, const struct sl_dwfl_ent *e, uint32_t i)
{
	uint64_t end = e->key + e->size;

	for (int s = de_pass(e); s < 2; s++) {      /* pass 2 entries: scope 1 only */
		if (end > a->pmax[s])
			a->pmax[s] = end;
		if (!e->size)
			a->last0[s] = i;
	}
}

static uint32_t nblocks(uint32_t n)
{
	return (n + SL_DWFL_BLK - 1) / SL_DWFL_BLK;
}

static size_t file_size(const struct sl_dwfl_hdr *h)
{
	return sizeof(*h) + ((size_t)h->n[0] + h->n[1]) * sizeof(struct sl_dwfl_ent) +
	       ((size_t)h->nblk[0] + h->nblk[1]) * sizeof(struct sl_dwfl_blk);
}

/* Take @fd (the complete index file with header @h) and @keys (the first
 * key of every block of each array, malloc'ed) into @x. */
static void attach(struct sl_dwfl_index *x, int fd, const struct sl_dwfl_hdr *h, uint64_t *keys[2])
{
	memset(x, 0, sizeof(*x));
	x->keys[0] = keys[0];
	x->keys[1] = keys[1];
	keys[0] = keys[1] = NULL;
	x->fd = fd;
	x->hdr = *h;
	x->h = &x->hdr;
	x->eoff[0] = (off_t)sizeof(*h);
	x->eoff[1] = x->eoff[0] + (off_t)h->n[0] * (off_t)sizeof(struct sl_dwfl_ent);
	x->boff[0] = x->eoff[1] + (off_t)h->n[1] * (off_t)sizeof(struct sl_dwfl_ent);
	x->boff[1] = x->boff[0] + (off_t)h->nblk[0] * (off_t)sizeof(struct sl_dwfl_blk);
}

/* ---- identity ----------------------------------------------------------- */

static void desc_from(struct sl_dwfl_elfdesc *d, int probe, const struct sl_file_id *id, uint64_t delta)
{
	memset(d, 0, sizeof(*d));
	d->probe = probe;
	d->tracked = id->valid ? 1 : 0;
	if (id->valid) {
		d->dev = id->dev;
		d->ino = id->ino;
		d->size = id->size;
		d->mtime_sec = id->mtime_sec;
		d->mtime_nsec = id->mtime_nsec;
	}
	d->delta = delta;
}

static uint64_t name_key(const struct sl_dwfl_src *src, unsigned e_type, unsigned e_machine,
			 const struct sl_dwfl_elfdesc *d0)
{
	uint64_t h = SL_FNV_OFFSET, v = SL_DWFL_VERSION;

	h = sl_fnv1a(h, &v, sizeof(v));
	h = sl_fnv1a_u64(h, (uint64_t)(uint32_t)src->syments);
	h = sl_fnv1a_u64(h, (uint64_t)(uint32_t)src->first_global);
	h = sl_fnv1a_u64(h, e_type);
	h = sl_fnv1a_u64(h, e_machine);
	h = sl_fnv1a(h, d0, sizeof(*d0));
	return h;
}

static void cache_name(uint64_t key, char *buf, size_t n)
{
	snprintf(buf, n, "dwfl-%016llx.idx", (unsigned long long)key);
}

/* The first scanned symbol's Elf: its description, e_type and machine.
 * 0, or -1 when it cannot be read. */
static int first_elf(const struct sl_dwfl_src *src, struct sl_dwfl_elfdesc *d, unsigned *e_type,
		     unsigned *e_machine)
{
	int ndx = scan_ndx(src, 0);
	struct sl_file_id id;
	uint64_t value, bias;
	uint32_t shndx;
	GElf_Sym sym;
	Elf *elf = NULL;

	if (ndx < 0 || !src->getsym(src->ctx, ndx, &sym, &value, &shndx, &elf, &bias) || !elf)
		return -1;
	memset(&id, 0, sizeof(id));
	if (!src->elf_facts(src->ctx, elf, e_type, e_machine, &id))
		return -1;
	desc_from(d, ndx, &id, bias - src->base);
	return 0;
}

/* Does the live module's Elf at @d->probe still match @d? */
static int desc_matches(const struct sl_dwfl_src *src, const struct sl_dwfl_elfdesc *d)
{
	struct sl_dwfl_elfdesc now;
	struct sl_file_id id;
	unsigned t, m;
	uint64_t value, bias;
	uint32_t shndx;
	GElf_Sym sym;
	Elf *elf = NULL;

	if (d->probe < 1 || d->probe >= src->syments ||
	    !src->getsym(src->ctx, d->probe, &sym, &value, &shndx, &elf, &bias) || !elf)
		return 0;
	memset(&id, 0, sizeof(id));
	if (!src->elf_facts(src->ctx, elf, &t, &m, &id))
		return 0;
	desc_from(&now, d->probe, &id, bias - src->base);
	return !memcmp(&now, d, sizeof(now));
}

/* ---- cache -------------------------------------------------------------- */

/* Stream the payload with pread (page cache, not this process's memory):
 * checksum, order, bounds and block summaries. 0 if valid. */
static int validate(int fd, const struct sl_dwfl_hdr *h, const struct sl_dwfl_src *src, uint64_t *keys[2])
{
	enum { CH = 512, BW = 128 };
	struct sl_dwfl_ent *buf = malloc(CH * sizeof(*buf));
	struct sl_dwfl_blk *win = malloc(BW * sizeof(*win));
	int ret = -EINVAL;
	off_t off = sizeof(*h), boff = sizeof(*h) + ((off_t)h->n[0] + h->n[1]) * (off_t)sizeof(*buf);
	int gs = src->first_global == 0 ? 1 : src->first_global;

	if (!buf || !win) {
		ret = -ENOMEM;
		goto out;
	}
	for (int a = 0; a < 2; a++) {
		struct blk_acc acc;
		struct sl_dwfl_ent prev = { 0 };
		uint64_t lo = UINT64_MAX, hi = 0;
		uint32_t wfirst = 0, wn = 0;     /* block window: blocks [wfirst, wfirst + wn) */

		acc_init(&acc);
		for (uint32_t i = 0; i < h->n[a];) {
			uint32_t k = h->n[a] - i < CH ? h->n[a] - i : CH;
			ssize_t r = pread(fd, buf, k * sizeof(buf[0]), off);

			if (r != (ssize_t)(k * sizeof(buf[0])))
				goto out;
			off += r;
			for (uint32_t j = 0; j < k; j++, i++) {
				const struct sl_dwfl_ent *e = &buf[j];
				uint32_t ndx = de_ndx(e), b = i / SL_DWFL_BLK;
				int p2 = de_pass(e);
				const struct sl_dwfl_blk *X;

				if (ndx < 1 || ndx >= (uint32_t)src->syments ||
				    (p2 ? !(two_passes(src->first_global) && ndx < (uint32_t)src->first_global)
					: ndx < (uint32_t)gs) ||
				    ((e->info & DE_ELF1) && h->nelf < 2) ||
				    e->key + e->size < e->key || (i && ent_less(e, &prev)))
					goto out;
				if (b >= wfirst + wn) {
					uint32_t nw = h->nblk[a] - b < BW ? h->nblk[a] - b : BW;
					size_t len = nw * sizeof(*win);

					if (pread(fd, win, len, boff + (off_t)b * (off_t)sizeof(*win)) != (ssize_t)len)
						goto out;
					wfirst = b;
					wn = nw;
				}
				X = &win[b - wfirst];
				if (i % SL_DWFL_BLK == 0) {
					if (X->first_key != e->key)
						goto out;
					keys[a][b] = e->key;
				}
				acc_add(&acc, e, i);
				if ((i % SL_DWFL_BLK == SL_DWFL_BLK - 1 || i + 1 == h->n[a]) &&
				    (X->pmax[0] != acc.pmax[0] || X->pmax[1] != acc.pmax[1] ||
				     X->last0[0] != acc.last0[0] || X->last0[1] != acc.last0[1]))
					goto out;
				lo = e->key < lo ? e->key : lo;
				hi = e->key + e->size > hi ? e->key + e->size : hi;
				prev = *e;
			}
		}
		if (h->n[a] && (h->lo[a] != lo || h->hi[a] != hi))
			goto out;
		boff += (off_t)h->nblk[a] * (off_t)sizeof(*win);
	}
	ret = 0;
out:
	free(buf);
	free(win);
	return ret;
}

/* The payload checksum: symindex_checksum() of each 8 KiB chunk, folded
 * (the builder's struct ostream computes it while writing). The reader
 * uses pread, so validating a cache file costs page cache, not memory of
 * the process. */
static uint64_t payload_checksum_fd(int fd, size_t size, int *err)
{
	enum { CH = SL_DWFL_CHUNK };
	unsigned char *buf = malloc(CH);
	uint64_t h = SL_FNV_OFFSET;

	if (!buf) {
		*err = 1;
		return 0;
	}
	for (size_t off = sizeof(struct sl_dwfl_hdr); off < size;) {
		size_t k = size - off < CH ? size - off : CH;
		ssize_t r = pread(fd, buf, k, (off_t)off);

		if (r != (ssize_t)k) {
			*err = 1;
			break;
		}
		h = sl_fnv1a_u64(h, symindex_checksum(buf, k));
		off += k;
	}
	free(buf);
	return h;
}


int sl_dwfl_index_cached(const struct sl_dwfl_src *src, struct sl_dwfl_index *out)
{
	struct sl_dwfl_elfdesc d0;
	struct sl_dwfl_hdr h;
	struct stat st;
	unsigned e_type = 0, e_machine = 0;
	uint64_t *keys[2] = { NULL, NULL };
	char name[64];
	int fd, err = 0;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	if (src->cache_dirfd < 0 || src->syments < 2)
		return -ENOENT;
	if (first_elf(src, &d0, &e_type, &e_machine) < 0 || !d0.tracked || e_type == ET_REL)
		return -ENOENT;
	cache_name(name_key(src, e_type, e_machine, &d0), name, sizeof(name));
	fd = openat(src->cache_dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -ENOENT;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (size_t)st.st_size < sizeof(h) || pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		goto bad;
	if (memcmp(h.magic, SL_DWFL_MAGIC, 8) || h.version != SL_DWFL_VERSION || h.hdr_size != sizeof(h) ||
	    h.key != name_key(src, e_type, e_machine, &d0) || h.syments != (uint32_t)src->syments ||
	    h.first_global != (uint32_t)src->first_global || h.e_type != e_type || h.e_machine != e_machine ||
	    h.nelf < 1 || h.nelf > 2 || h.n[0] > (uint32_t)src->syments || h.n[1] > (uint32_t)src->syments ||
	    h.nblk[0] != nblocks(h.n[0]) || h.nblk[1] != nblocks(h.n[1]) ||
	    file_size(&h) != (size_t)st.st_size || memcmp(&h.elf[0], &d0, sizeof(d0)))
		goto bad;
	for (uint32_t k = 0; k < h.nelf; k++)
		if (!desc_matches(src, &h.elf[k]))
			goto bad;
	if (payload_checksum_fd(fd, (size_t)st.st_size, &err) != h.checksum || err)
		goto bad;
	for (int a = 0; a < 2; a++)
		if (!(keys[a] = malloc(((size_t)h.nblk[a] + 1) * sizeof(uint64_t))))
			goto bad;
	if (validate(fd, &h, src, keys) < 0)
		goto bad;
	attach(out, fd, &h, keys);
	out->from_cache = 1;
	return 0;
bad:
	free(keys[0]);
	free(keys[1]);
	close(fd);
	return -ENOENT;
}

/* ---- build -------------------------------------------------------------- */

/*
 * The build never holds the index in memory: entries go into sorted runs of
 * RUN_ENTS (64 KiB) in a memfd (page cache, not this process's RSS), are
 * merged into the index file with pwrite through a 8 KiB buffer (which also
 * computes the payload checksum chunk by chunk); block summaries go to a
 * second memfd while merging and are appended. The heap holds one run
 * buffer per array, the merge cursors (1 KiB per run) and the first key of
 * every block (8 bytes per SL_DWFL_BLK entries).
 */
#define RUN_ENTS 4096u
#define CUR_ENTS 64u
#define OCHUNK SL_DWFL_CHUNK

static _Atomic unsigned tmp_seq;

struct runset {
	int fd;                         /* memfd of the runs, -1 until the first flush */
	uint64_t total;                 /* entries flushed */
	uint64_t *starts;               /* first entry of each run */
	uint32_t nruns, capruns;
	struct sl_dwfl_ent *buf;
	uint32_t nbuf, capbuf;
};

/*
 * Sort a run buffer by key, stably (LSD radix, one pass per key byte that
 * is not the same in every entry): the builder adds entries in scan order,
 * so the result is in (key, scan order), ent_less's order. @tmp: as large.
 */
static void radix_run(struct sl_dwfl_ent *e, struct sl_dwfl_ent *tmp, uint32_t n)
{
	uint64_t all_or = 0, all_and = ~0ull;
	struct sl_dwfl_ent *src = e, *dst = tmp;

	for (uint32_t i = 0; i < n; i++) {
		all_or |= e[i].key;
		all_and &= e[i].key;
	}
	for (unsigned shift = 0; shift < 64; shift += 8) {
		uint32_t count[256] = { 0 }, sum = 0;

		if ((((all_or ^ all_and) >> shift) & 0xff) == 0)
			continue;       /* this byte is the same everywhere */
		for (uint32_t i = 0; i < n; i++)
			count[(src[i].key >> shift) & 0xff]++;
		for (unsigned b = 0; b < 256; b++) {
			uint32_t c = count[b];

			count[b] = sum;
			sum += c;
		}
		for (uint32_t i = 0; i < n; i++)
			dst[count[(src[i].key >> shift) & 0xff]++] = src[i];
		{
			struct sl_dwfl_ent *t = src;

			src = dst;
			dst = t;
		}
	}
	if (src != e)
		memcpy(e, src, (size_t)n * sizeof(*e));
}

static int run_flush(struct runset *r)
{
	size_t len = (size_t)r->nbuf * sizeof(*r->buf);

	if (!r->nbuf)
		return 0;
	if (r->fd < 0 && (r->fd = memfd_create("symlazy-dwfl-runs", MFD_CLOEXEC)) < 0)
		return -errno;
	if (r->nruns == r->capruns) {
		uint32_t nc = r->capruns ? 2 * r->capruns : 8;
		uint64_t *ns = realloc(r->starts, nc * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		r->starts = ns;
		r->capruns = nc;
	}
	{
		struct sl_dwfl_ent *tmp = malloc(len);

		if (!tmp)
			return -ENOMEM;
		radix_run(r->buf, tmp, r->nbuf);
		free(tmp);
	}
	if (pwrite(r->fd, r->buf, len, (off_t)(r->total * sizeof(*r->buf))) != (ssize_t)len)
		return errno ? -errno : -EIO;
	r->starts[r->nruns++] = r->total;
	r->total += r->nbuf;
	r->nbuf = 0;
	return 0;
}

static int run_add(struct runset *r, const struct sl_dwfl_ent *e)
{
	if (r->nbuf == r->capbuf) {
		if (r->capbuf == RUN_ENTS) {
			int x = run_flush(r);

			if (x < 0)
				return x;
		} else {
			uint32_t nc = r->capbuf ? 2 * r->capbuf : 1024;
			struct sl_dwfl_ent *nb = realloc(r->buf, nc * sizeof(*nb));

			if (!nb)
				return -ENOMEM;
			r->buf = nb;
			r->capbuf = nc;
		}
	}
	r->buf[r->nbuf++] = *e;
	return 0;
}

static void run_free(struct runset *r)
{
	if (r->fd >= 0)
		close(r->fd);
	free(r->starts);
	free(r->buf);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

struct ostream {
	int fd;
	off_t off;
	unsigned char *buf;
	size_t n;
	uint64_t sum;
	int err;
};

static void os_chunk(struct ostream *o)
{
	if (!o->n || o->err)
		return;
	o->sum = sl_fnv1a_u64(o->sum, symindex_checksum(o->buf, o->n));
	if (pwrite(o->fd, o->buf, o->n, o->off) != (ssize_t)o->n)
		o->err = errno ? errno : EIO;
	o->off += (off_t)o->n;
	o->n = 0;
}

static void os_write(struct ostream *o, const void *p, size_t len)
{
	const unsigned char *c = p;

	if (o->n + len < OCHUNK) {          /* the common case: one entry */
		memcpy(o->buf + o->n, p, len);
		o->n += len;
		return;
	}
	while (len && !o->err) {
		size_t k = OCHUNK - o->n < len ? OCHUNK - o->n : len;

		memcpy(o->buf + o->n, c, k);
		o->n += k;
		c += k;
		len -= k;
		if (o->n == OCHUNK)
			os_chunk(o);
	}
}

struct cursor {
	struct sl_dwfl_ent buf[CUR_ENTS];
	uint64_t next, end;             /* entries of the run still in the memfd */
	uint32_t i, n;
};

static int cur_fill(int fd, struct cursor *c)
{
	uint64_t k = c->end - c->next < CUR_ENTS ? c->end - c->next : CUR_ENTS;
	size_t len = (size_t)k * sizeof(c->buf[0]);

	c->i = 0;
	c->n = (uint32_t)k;
	if (k && pread(fd, c->buf, len, (off_t)(c->next * sizeof(c->buf[0]))) != (ssize_t)len)
		return -EIO;
	c->next += k;
	return 0;
}

/* @heap[0..@nh): a binary min-heap of indexes into @cur by their head
 * entry; sift the one at @root down to its place */
static void cursor_sift(const struct cursor *cur, uint32_t *heap, uint32_t nh, uint32_t root)
{
#define HEAD(k) (&cur[heap[k]].buf[cur[heap[k]].i])
	for (;;) {
		uint32_t c = 2 * root + 1, t;

		if (c >= nh)
			break;
		if (c + 1 < nh && ent_less(HEAD(c + 1), HEAD(c)))
			c++;
		if (!ent_less(HEAD(c), HEAD(root)))
			break;
		t = heap[c]; heap[c] = heap[root]; heap[root] = t;
		root = c;
	}
#undef HEAD
}

/* Merge the runs of @r into @o; block summaries into @blk (nblocks(total)),
 * least key / greatest key + size into @lo / @hi. */
static int run_merge(struct runset *r, struct ostream *o, int bfd, off_t *boff, uint64_t *keys,
		     uint64_t *lo, uint64_t *hi)
{
	struct sl_dwfl_blk B, bbuf[128];
	uint32_t nb = 0;
	struct cursor *cur;
	uint32_t *heap, nh = 0, nc;
	struct blk_acc acc;
	uint64_t i = 0;
	int ret = 0;

	*lo = *hi = 0;
	if (run_flush(r) < 0)
		return -EIO;
	nc = r->nruns;
	if (!nc)
		return 0;
	cur = calloc(nc, sizeof(*cur));
	heap = calloc(nc, sizeof(*heap));
	if (!cur || !heap) {
		ret = -ENOMEM;
		goto out;
	}
	for (uint32_t k = 0; k < nc; k++) {
		cur[k].next = r->starts[k];
		cur[k].end = k + 1 < nc ? r->starts[k + 1] : r->total;
		if ((ret = cur_fill(r->fd, &cur[k])) < 0)
			goto out;
		if (cur[k].n)
			heap[nh++] = k;
	}
	for (uint32_t k = nh / 2; k-- > 0;)
		cursor_sift(cur, heap, nh, k);
	acc_init(&acc);
	*lo = UINT64_MAX;
	while (nh) {
		struct cursor *c = &cur[heap[0]];
		struct sl_dwfl_ent e = c->buf[c->i++];

		if (i % SL_DWFL_BLK == 0) {
			memset(&B, 0, sizeof(B));
			B.first_key = keys[i / SL_DWFL_BLK] = e.key;
		}
		acc_add(&acc, &e, (uint32_t)i);
		if (i % SL_DWFL_BLK == SL_DWFL_BLK - 1 || i + 1 == r->total) {
			B.pmax[0] = acc.pmax[0];
			B.pmax[1] = acc.pmax[1];
			B.last0[0] = acc.last0[0];
			B.last0[1] = acc.last0[1];
			bbuf[nb++] = B;
			if (nb == 128 || i + 1 == r->total) {
				size_t len = nb * sizeof(B);

				if (pwrite(bfd, bbuf, len, *boff) != (ssize_t)len) {
					ret = -EIO;
					goto out;
				}
				*boff += (off_t)len;
				nb = 0;
			}
		}
		*lo = e.key < *lo ? e.key : *lo;
		*hi = e.key + e.size > *hi ? e.key + e.size : *hi;
		os_write(o, &e, sizeof(e));
		i++;
		if (c->i == c->n && (ret = cur_fill(r->fd, c)) < 0)
			goto out;
		if (!c->n)
			heap[0] = heap[--nh];
		cursor_sift(cur, heap, nh, 0);
	}
	ret = o->err ? -o->err : 0;
out:
	free(cur);
	free(heap);
	return ret;
}

/* The index file: a temp file in the cache dir (renamed into place when
 * complete) or a memfd. */
static int backing(const struct sl_dwfl_src *src, int disk, char *tmp, size_t n)
{
	int fd = -1;

	tmp[0] = '\0';
	if (disk && src->cache_dirfd >= 0) {
		snprintf(tmp, n, ".tmp-dwfl-%d-%u.idx", (int)getpid(), atomic_fetch_add(&tmp_seq, 1));
		fd = openat(src->cache_dirfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			tmp[0] = '\0';
	}
	if (fd < 0) {
		fd = memfd_create("symlazy-dwfl", MFD_CLOEXEC);
		if (fd < 0)
			return -errno;
	}
	return fd;
}

static void discard(const struct sl_dwfl_src *src, const char *tmp)
{
	if (tmp[0])
		unlinkat(src->cache_dirfd, tmp, 0);
}

struct elfslot {
	Elf *elf;
	uint64_t bias;
	struct sl_dwfl_elfdesc d;
	unsigned e_type, e_machine;
};

#define FAIL(...) do { sl_why_set(why, SL_R_DWFL_UNMODELED, __VA_ARGS__); ret = 1; goto out; } while (0)

int sl_dwfl_index_build(const struct sl_dwfl_src *src, struct sl_dwfl_index *out, struct sl_why *why)
{
	const struct sl_lookup_rules *R = src->rules;
	struct elfslot slots[2];
	struct runset runs[2];
	uint64_t *keys[2] = { NULL, NULL };
	struct ostream os = { .fd = -1 };
	int bfd = -1;
	off_t boff = 0;
	struct sl_dwfl_hdr h;
	unsigned nslots = 0;
	char tmp[64], name[64];
	size_t final;
	int fd, ret = 0, is_rel = 0, disk;
	long k;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	memset(slots, 0, sizeof(slots));
	memset(runs, 0, sizeof(runs));
	runs[0].fd = runs[1].fd = -1;
	sl_why_set(why, SL_R_NONE, NULL);
	if (src->syments < 2 || src->syments > (int)DE_NDX_MASK || src->first_global < 0)
		return sl_whyf(why, SL_R_DWFL_UNMODELED, 1, "symbol table of %d entries, first global %d",
			       src->syments, src->first_global);
	/* the disk decision needs the first Elf's identity: read it first */
	{
		struct sl_dwfl_elfdesc d0;
		unsigned t = 0, m = 0;

		disk = first_elf(src, &d0, &t, &m) == 0 && d0.tracked && t != ET_REL;
	}
	fd = backing(src, disk, tmp, sizeof(tmp));
	if (fd < 0)
		return sl_whyf(why, SL_R_INDEX_FAILED, fd, "%s", strerror(-fd));

	for (k = 0;; k++) {
		int ndx = scan_ndx(src, k), slot, biased;
		GElf_Sym sym;
		uint64_t value = 0, bias = 0, key;
		uint32_t shndx = 0;
		Elf *elf = NULL;
		const char *nm;
		struct sl_dwfl_ent e;

		if (ndx < 0)
			break;
		nm = src->getsym(src->ctx, ndx, &sym, &value, &shndx, &elf, &bias);
		if (!nm || !elf)
			FAIL("symbol %d unreadable", ndx);
		for (slot = 0; slot < (int)nslots && slots[slot].elf != elf; slot++)
			;
		if (slot == (int)nslots) {
			struct sl_file_id id;

			if (nslots == 2)
				FAIL("symbols from more than two ELF files");
			memset(&id, 0, sizeof(id));
			slots[slot].elf = elf;
			slots[slot].bias = bias;
			if (!src->elf_facts(src->ctx, elf, &slots[slot].e_type, &slots[slot].e_machine, &id))
				FAIL("symbol %d: unreadable ELF header", ndx);
			if (!R->machine_ok(slots[slot].e_machine))
				FAIL("machine %u: libdwfl adjusts symbol values", slots[slot].e_machine);
			if (slot && (slots[slot].e_type == ET_REL) != is_rel)
				FAIL("ET_REL and other ELF files in one module");
			is_rel = slots[slot].e_type == ET_REL;
			desc_from(&slots[slot].d, ndx, &id, bias - src->base);
			nslots++;
		} else if (slots[slot].bias != bias) {
			FAIL("symbol %d: two biases for one ELF file", ndx);
		}
		if (!R->eligible(nm, &sym))
			continue;
		if (sym.st_size > UINT32_MAX)
			FAIL("symbol %d: st_size %#llx", ndx, (unsigned long long)sym.st_size);
		/* __libdwfl_getsym: the bias is applied unless SHN_ABS/SHN_COMMON
		 * or a non-SHF_ALLOC section (shndx -1); ET_REL values are
		 * section-relative and relocated by libdwfl */
		if (is_rel) {
			biased = 0;
		} else {
			if (sym.st_shndx == SHN_XINDEX && shndx == (uint32_t)-1)
				FAIL("symbol %d: extended section index -1", ndx);
			biased = sym.st_shndx != SHN_ABS && sym.st_shndx != SHN_COMMON && shndx != (uint32_t)-1;
			if (value != (biased ? sym.st_value + bias : sym.st_value))
				FAIL("symbol %d: value %#llx is not st_value%s", ndx, (unsigned long long)value,
				     biased ? " + bias" : "");
		}
		key = biased ? value - src->base : value;
		if (key + sym.st_size < key)
			FAIL("symbol %d: value + size past 2^64", ndx);
		e.key = key;
		e.size = (uint32_t)sym.st_size;
		e.info = (uint32_t)ndx | ((uint32_t)R->bind_rank(&sym) << DE_BIND_SHIFT) |
			 (ndx < gstart(src) ? DE_PASS2 : 0) | (slot ? DE_ELF1 : 0);
		if (run_add(&runs[!biased], &e) < 0) {
			ret = -ENOMEM;
			goto out;
		}
	}
	if (!nslots)
		FAIL("no symbols");

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, SL_DWFL_MAGIC, 8);
	h.version = SL_DWFL_VERSION;
	h.hdr_size = sizeof(h);
	h.syments = (uint32_t)src->syments;
	h.first_global = (uint32_t)src->first_global;
	h.e_type = slots[0].e_type;
	h.e_machine = slots[0].e_machine;
	for (int a = 0; a < 2; a++) {
		uint64_t n = runs[a].total + runs[a].nbuf;

		h.n[a] = (uint32_t)n;
		h.nblk[a] = nblocks(h.n[a]);
		keys[a] = malloc(((size_t)h.nblk[a] + 1) * sizeof(uint64_t));
		if (!keys[a]) {
			ret = -ENOMEM;
			goto out;
		}
	}
	h.nelf = nslots;
	for (unsigned s = 0; s < nslots; s++)
		h.elf[s] = slots[s].d;
	h.key = name_key(src, h.e_type, h.e_machine, &h.elf[0]);

	os.fd = fd;
	os.off = sizeof(h);
	os.sum = SL_FNV_OFFSET;
	if (!(os.buf = malloc(OCHUNK))) {
		ret = -ENOMEM;
		goto out;
	}
	if ((bfd = memfd_create("symlazy-dwfl-blocks", MFD_CLOEXEC)) < 0) {
		ret = -errno;
		goto out;
	}
	for (int a = 0; a < 2; a++) {
		ret = run_merge(&runs[a], &os, bfd, &boff, keys[a], &h.lo[a], &h.hi[a]);
		run_free(&runs[a]);
		if (ret < 0)
			goto out;
	}
	/* the block summaries follow the entries */
	for (off_t o = 0; o < boff && !os.err;) {
		unsigned char chunk[4096];
		size_t len = boff - o < (off_t)sizeof(chunk) ? (size_t)(boff - o) : sizeof(chunk);

		if (pread(bfd, chunk, len, o) != (ssize_t)len) {
			ret = -EIO;
			goto out;
		}
		os_write(&os, chunk, len);
		o += (off_t)len;
	}
	os_chunk(&os);
	if (os.err) {
		ret = -os.err;
		goto out;
	}
	h.checksum = os.sum;
	final = file_size(&h);
	if (pwrite(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) || (off_t)final != os.off) {
		ret = -EIO;
		goto out;
	}
	attach(out, fd, &h, keys);
	if (tmp[0]) {
		cache_name(h.key, name, sizeof(name));
		if (renameat(src->cache_dirfd, tmp, src->cache_dirfd, name) < 0)
			discard(src, tmp);
		tmp[0] = '\0';
	}
	fd = -1;                    /* the index's now */
out:
	for (int a = 0; a < 2; a++) {
		run_free(&runs[a]);
		free(keys[a]);
	}
	if (bfd >= 0)
		close(bfd);
	free(os.buf);
	if (ret != 0)
		discard(src, tmp);
	if (fd >= 0)
		close(fd);
	if (ret < 0)
		sl_why_set(why, SL_R_INDEX_FAILED, "%s", strerror(-ret));
	return ret;
}
#undef FAIL

void sl_dwfl_index_close(struct sl_dwfl_index *x)
{
	if (x->h && x->fd >= 0)
		close(x->fd);
	free(x->keys[0]);
	free(x->keys[1]);
	memset(x, 0, sizeof(*x));
	x->fd = -1;
}

/* ---- lookup ------------------------------------------------------------- */

/* One block of entries read from the file. */
struct eblk {
	uint32_t b, n;                  /* block index, entries in it */
	struct sl_dwfl_ent e[SL_DWFL_BLK];
};

static int load_ents(const struct sl_dwfl_index *x, int a, uint32_t b, struct eblk *out)
{
	uint32_t first = b * SL_DWFL_BLK, n = x->h->n[a] - first < SL_DWFL_BLK ? x->h->n[a] - first : SL_DWFL_BLK;
	size_t len = (size_t)n * sizeof(out->e[0]);

	out->b = b;
	out->n = n;
	if (pread(x->fd, out->e, len, x->eoff[a] + (off_t)first * (off_t)sizeof(out->e[0])) != (ssize_t)len)
		return -EIO;
	return 0;
}

static int load_sum(const struct sl_dwfl_index *x, int a, uint32_t b, struct sl_dwfl_blk *out)
{
	if (pread(x->fd, out, sizeof(*out), x->boff[a] + (off_t)b * (off_t)sizeof(*out)) != (ssize_t)sizeof(*out))
		return -EIO;
	return 0;
}

/* The block holding the last entry of array @a with key <= @k (loaded into
 * @eb), *@p its index; 0, 1 if there is none, -EIO. */
static int pred(const struct sl_dwfl_index *x, int a, uint64_t k, struct eblk *eb, uint32_t *p)
{
	const uint64_t *keys = x->keys[a];
	uint32_t lo = 0, hi = x->h->nblk[a], i = 0;

	while (lo < hi) {                 /* last block with first_key <= k */
		uint32_t mid = lo + (hi - lo) / 2;

		if (keys[mid] <= k)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 1;
	if (load_ents(x, a, lo - 1, eb) < 0)
		return -EIO;
	while (i + 1 < eb->n && eb->e[i + 1].key <= k)
		i++;
	*p = (lo - 1) * SL_DWFL_BLK + i;
	return 0;
}

#define WALK_MAX 4096

static int push(struct sl_lk_sym *arr, size_t *n, const struct sl_dwfl_ent *e, uint64_t value)
{
	if (*n == SL_DWFL_QCAP)
		return -E2BIG;
	arr[*n].value = value;
	arr[*n].size = e->size;
	arr[*n].ndx = de_ndx(e);
	arr[*n].bind = (uint8_t)de_bind(e);
	arr[*n].pass = (uint8_t)de_pass(e);
	(*n)++;
	return 0;
}

struct side {                       /* what one array says about addr */
	int any;                        /* some entry has value <= addr */
	uint64_t m[2];
	int have_v[2];
	uint64_t v[2];                  /* actual values */
	uint32_t lastv[2];              /* entry index of the last sizeless at v */
};

/* Scan array @a for key @k (addr in the key domain; @off: actual = key + off). */
static int scan_array(const struct sl_dwfl_index *x, int a, uint64_t k, uint64_t off,
		      struct sl_dwfl_qbuf *qb, struct sl_lk_query *q, struct side *sd)
{
	struct eblk eb;
	struct sl_dwfl_blk B;
	uint32_t p, j, blk, walked = 0, base;
	int found0[2] = { 0, 0 }, r;

	memset(sd, 0, sizeof(*sd));
	sd->lastv[0] = sd->lastv[1] = SL_DWFL_NONE;
	r = pred(x, a, k, &eb, &p);
	if (r)
		return r < 0 ? r : 0;
	sd->any = 1;
	blk = p / SL_DWFL_BLK;
	base = blk * SL_DWFL_BLK;
	/* the part of p's block up to p: containers, prefix max, last sizeless */
	for (j = p + 1; j-- > base;) {
		const struct sl_dwfl_ent *E = &eb.e[j - base];
		uint64_t end = E->key + E->size;
		int ps = de_pass(E);

		if (E->size && k - E->key < E->size && push(qb->cont[ps], &q->ncont[ps], E, E->key + off) < 0)
			return -E2BIG;
		for (int s = ps; s < 2; s++) {
			if (end > sd->m[s])
				sd->m[s] = end;
			if (!E->size && !found0[s]) {
				found0[s] = 1;
				sd->lastv[s] = j;
			}
		}
	}
	if (blk) {
		if (load_sum(x, a, blk - 1, &B) < 0)
			return -EIO;
		for (int s = 0; s < 2; s++) {
			if (B.pmax[s] > sd->m[s])
				sd->m[s] = B.pmax[s];
			if (!found0[s])
				sd->lastv[s] = B.last0[s];
		}
		/* earlier blocks, while some entry there may still reach past k */
		while (B.pmax[1] > k) {
			blk--;
			if (load_ents(x, a, blk, &eb) < 0)
				return -EIO;
			for (j = eb.n; j-- > 0;) {
				const struct sl_dwfl_ent *E = &eb.e[j];
				int ps = de_pass(E);

				if (E->size && k - E->key < E->size &&
				    push(qb->cont[ps], &q->ncont[ps], E, E->key + off) < 0)
					return -E2BIG;
			}
			if ((walked += SL_DWFL_BLK) > WALK_MAX)
				return -E2BIG;
			if (!blk)
				break;
			if (load_sum(x, a, blk - 1, &B) < 0)
				return -EIO;
		}
	}
	for (int s = 0; s < 2; s++) {
		sd->m[s] += off;            /* keys + sizes map without wrapping (checked) */
		if (sd->lastv[s] != SL_DWFL_NONE) {
			struct sl_dwfl_ent e;

			if (sd->lastv[s] >= x->h->n[a] ||
			    pread(x->fd, &e, sizeof(e), x->eoff[a] + (off_t)sd->lastv[s] * (off_t)sizeof(e)) !=
				    (ssize_t)sizeof(e))
				return -EIO;
			sd->have_v[s] = 1;
			sd->v[s] = e.key + off;
		}
	}
	return 0;
}

/* Append the sizeless entries of scope @s at the key of entry @last. */
static int collect_atv(const struct sl_dwfl_index *x, int a, uint32_t last, uint64_t off, int s,
		       struct sl_dwfl_qbuf *qb, struct sl_lk_query *q)
{
	struct eblk eb;
	uint32_t walked = 0, b = last / SL_DWFL_BLK;
	uint64_t key;

	if (load_ents(x, a, b, &eb) < 0)
		return -EIO;
	key = eb.e[last - b * SL_DWFL_BLK].key;
	for (uint32_t j = last + 1; j-- > 0;) {
		const struct sl_dwfl_ent *E;

		if (j / SL_DWFL_BLK != eb.b && load_ents(x, a, j / SL_DWFL_BLK, &eb) < 0)
			return -EIO;
		E = &eb.e[j - eb.b * SL_DWFL_BLK];
		if (E->key != key)
			break;
		if (!E->size && de_pass(E) <= s && push(qb->atv[s], &q->natv[s], E, key + off) < 0)
			return -E2BIG;
		if (++walked > WALK_MAX)
			return -E2BIG;
	}
	return 0;
}

static int cmp_scan(const void *pa, const void *pb)
{
	const struct sl_lk_sym *a = pa, *b = pb;

	if (a->pass != b->pass)
		return a->pass < b->pass ? -1 : 1;
	return a->ndx < b->ndx ? -1 : a->ndx > b->ndx;
}

int sl_dwfl_query(const struct sl_dwfl_index *x, uint64_t base, uint64_t addr,
		  struct sl_dwfl_qbuf *qb, struct sl_lk_query *q)
{
	struct side sd[2];
	uint64_t off[2] = { base, 0 }, kk[2];
	int r;

	memset(q, 0, sizeof(*q));
	q->addr = addr;
	q->two_passes = two_passes((int)x->h->first_global);
	q->cont[0] = qb->cont[0];
	q->cont[1] = qb->cont[1];
	q->atv[0] = qb->atv[0];
	q->atv[1] = qb->atv[1];
	for (int a = 0; a < 2; a++) {
		uint64_t lo, hi;

		memset(&sd[a], 0, sizeof(sd[a]));
		if (!x->h->n[a])
			continue;
		lo = x->h->lo[a] + off[a];
		hi = x->h->hi[a] + off[a];
		if (hi < lo)
			return -ERANGE;         /* the keys would wrap at this base */
		if (addr < lo)
			continue;               /* below every symbol of this array */
		kk[a] = addr >= hi ? UINT64_MAX : addr - off[a];
		r = scan_array(x, a, kk[a], off[a], qb, q, &sd[a]);
		if (r < 0)
			return r;
	}
	for (int s = 0; s < 2; s++) {
		for (int a = 0; a < 2; a++) {
			if (!sd[a].any)
				continue;
			if (sd[a].m[s] > q->m[s])
				q->m[s] = sd[a].m[s];
			if (sd[a].have_v[s] && (!q->have_v[s] || sd[a].v[s] > q->v[s])) {
				q->have_v[s] = 1;
				q->v[s] = sd[a].v[s];
			}
		}
		for (int a = 0; a < 2; a++)
			if (sd[a].any && sd[a].have_v[s] && sd[a].v[s] == q->v[s] &&
			    (r = collect_atv(x, a, sd[a].lastv[s], off[a], s, qb, q)) < 0)
				return r;
		qsort(qb->atv[s], q->natv[s], sizeof(qb->atv[s][0]), cmp_scan);
		qsort(qb->cont[s], q->ncont[s], sizeof(qb->cont[s][0]), cmp_scan);
	}
	return 0;
}
