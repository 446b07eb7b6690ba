/* SPDX-License-Identifier: MIT */
/*
 * perfdata.c - stream a file-mode perf.data into per-DSO address sets.
 *
 * Format sources (facts only, no code taken):
 *   tools/perf/Documentation/perf.data-file-format.txt  file header, attrs,
 *       feature table, HEADER_BUILD_ID, HEADER_COMPRESSED
 *   include/uapi/linux/perf_event.h  record layouts (MMAP, MMAP2, FORK,
 *       SAMPLE field order, callchain context markers, read_format)
 *   tools/lib/perf/include/perf/event.h  perf-private record types (64..83),
 *       ID_INDEX, AUXTRACE, COMPRESSED layouts
 *   tools/perf/util/session.c  COMPRESSED records form one zstd stream;
 *       incomplete trailing records carry over to the next record's output
 *   /work/shared/notes/perf-6.1-symbol-loading.md §3.3, §5
 *
 * Pass structure: one sequential pass over the data section collects
 *   - threads, keyed by tid as perf 6.1 keys them, joined into classes with
 *     the thread whose tid is their pid (note_thread),
 *   - exec mappings per thread (MMAP/MMAP2),
 *   - parent edges between threads (FORK with pid != ppid),
 *   - the set of unique (tid, user ip) pairs (samples, callchains, branches);
 * then every (tid, ip) is converted through every mapping of the tid's class
 * and its ancestors' classes that contains it (the "superset rule" in
 * perfdata.h), so event order (ordered_events in perf) does not matter.
 *
 * Memory: one 1 MiB read window, one decompression buffer, one ZSTD_DStream;
 * the rest grows with mappings, processes, unique IPs and address sets.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "zstd_dl.h"
#include <linux/perf_event.h>

#include "perfdata.h"

/* "PERFILE2" read as a little-endian u64 (perf.data-file-format.txt). */
#define PD_MAGIC          0x32454c4946524550ULL
#define PD_MAGIC_SWAPPED  0x50455246494c4532ULL
#define PD_MAGIC_V1       0x454c494646524550ULL	/* "PERFFILE", pre-2.6.37 */
#define PD_FILE_HDR_SIZE  104	/* magic, size, attr_size, 3 sections, 4 u64 bitmap */
#define PD_PIPE_HDR_SIZE  16	/* magic, size */

/* perf-private record types (tools/lib/perf/include/perf/event.h). */
enum {
	PD_REC_USER_FIRST   = 64,
	PD_REC_ID_INDEX     = 69,
	PD_REC_AUXTRACE     = 71,
	PD_REC_COMPRESSED   = 81,
	PD_REC_USER_LAST_61 = 82,	/* FINISHED_INIT, newest type in perf 6.1 */
	PD_REC_COMPRESSED2  = 83,	/* newer perf: header, u64 data_size, data */
};

#define PD_FEAT_BUILD_ID  2	/* HEADER_BUILD_ID feature bit */
#define PD_MISC_BUILD_ID_SIZE (1u << 15)	/* HEADER_BUILD_ID entry: size byte valid */

#define PD_WINDOW   (1u << 20)	/* file read window */
#define PD_DBUF     (1u << 20)	/* decompressed-record buffer */
#define PD_PATH_MAX 4096

/* ------------------------------------------------------------------ utils */

static inline uint64_t rd64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline uint32_t rd32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint16_t rd16(const unsigned char *p) { uint16_t v; memcpy(&v, p, 2); return v; }

static void __attribute__((format(printf, 3, 4)))
seterr(char *err, size_t errsz, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errsz)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
}

/* Grow *@p (element size @sz) so that it holds at least @need elements. */
static int grow(void **p, size_t *alloc, size_t need, size_t sz)
{
	size_t n = *alloc ? *alloc : 8;
	void *q;

	if (need <= *alloc)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2 / sz)
			return -ENOMEM;
		n *= 2;
	}
	q = realloc(*p, n * sz);
	if (!q)
		return -ENOMEM;
	*p = q;
	*alloc = n;
	return 0;
}

static uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *c = p;
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	while (n--)
		h = (h ^ *c++) * 0x100000001b3ULL;
	return h;
}

static int all_zero(const unsigned char *p, size_t n)
{
	while (n--)
		if (*p++)
			return 0;
	return 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sort and deduplicate an address array in place; returns the new count. */
static size_t sort_unique_u64(uint64_t *v, size_t n)
{
	size_t i, o = 0;

	if (n < 2)
		return n;
	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < n; i++)
		if (o == 0 || v[o - 1] != v[i])
			v[o++] = v[i];
	return o;
}

/* ----------------------------------------------------------- read window */

struct pd_win {
	int fd;
	uint64_t fsize;
	unsigned char *buf;
	size_t cap;
	uint64_t off;	/* file offset of buf[0] */
	size_t len;	/* valid bytes in buf */
};

/*
 * Make [pos, pos+n) available and return a pointer to it, reading at most
 * up to @limit (exclusive). n must be <= cap. Returns NULL with *rc set:
 * -EINVAL (range passes @limit or the end of file) or -errno from pread.
 */
static const unsigned char *win_get(struct pd_win *w, uint64_t pos, size_t n,
				    uint64_t limit, int *rc)
{
	size_t want, got = 0;

	if (limit > w->fsize)
		limit = w->fsize;
	if (pos > limit || n > limit - pos || n > w->cap) {
		*rc = -EINVAL;
		return NULL;
	}
	if (pos >= w->off && pos + n <= w->off + w->len)
		return w->buf + (pos - w->off);
	want = limit - pos < w->cap ? (size_t)(limit - pos) : w->cap;
	while (got < want) {
		ssize_t r = pread(w->fd, w->buf + got, want - got, (off_t)(pos + got));

		if (r < 0) {
			if (errno == EINTR)
				continue;
			*rc = -errno;
			w->len = 0;
			return NULL;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	w->off = pos;
	w->len = got;
	if (got < n) {
		*rc = -EINVAL;
		return NULL;
	}
	return w->buf;
}

/* --------------------------------------------------------------- state */

struct pd_attr {
	uint64_t sample_type, read_format, branch_sample_type;
	uint64_t sample_regs_user;
	uint32_t sample_stack_user;
	int sample_id_all;
};

struct pd_map {
	uint64_t start, end, pgoff;
	uint32_t dso;
	uint32_t data;		/* non-exec mapping: only for sampled ADDR values */
};

/* A perf thread (util/thread.h), keyed by tid. */
struct pd_proc {
	int32_t tid;
	uint32_t visit;		/* generation stamp for ancestor walks */
	struct pd_map *maps;
	size_t nr_maps, alloc_maps;
	uint64_t *maxend;	/* prefix max of maps[].end after sorting */
	int sorted;
	int32_t *parents;	/* tids of FORK parents */
	size_t nr_parents, alloc_parents;
	uint32_t uf;		/* union-find parent: threads that may share maps */
	uint32_t next_member;	/* next thread of the same class, UINT32_MAX = none */
};

/* kinds of looked-up addresses (pd_ipent.used bits) */
#define IP_CODE 1u	/* sample ip, callchain, branch: exec mappings only */
#define IP_ADDR 2u	/* sample addr: exec and data mappings */

struct pd_ipent {
	uint64_t ip;
	int32_t tid;		/* -1: samples without PERF_SAMPLE_TID */
	uint32_t used;	/* 0 = empty slot, else IP_CODE|IP_ADDR */
};

/* Open-addressing table of uint32 indices (UINT32_MAX = empty). */
struct pd_itab {
	uint32_t *slot;
	size_t cap;	/* power of two */
	size_t nr;
};

struct pd_bidname {		/* HEADER_BUILD_ID entry (USER cpumode) */
	char *path;
	unsigned char id[PD_BUILD_ID_MAX];
	unsigned size;
};

struct pd_dsoent {		/* DSO as seen in MMAP/MMAP2 */
	char *path;
	unsigned char id[PD_BUILD_ID_MAX];
	unsigned size;		/* embedded (MMAP2) build-id size, 0 = none */
	uint64_t *addrs;
	size_t nr_addrs, alloc_addrs;
};

struct pd_idmap {
	uint64_t id;
	uint32_t attr;
	uint32_t used;
};

struct rd {
	struct pd_win win;
	char *err;
	size_t errsz;

	struct pd_attr *attrs;
	size_t nr_attrs;
	int attrs_same;		/* all attrs parse samples identically */
	int id_pos;		/* u64 index of the sample ID in SAMPLE, -1 none */

	struct pd_idmap *ids;	/* open addressing on id */
	size_t ids_cap, nr_ids;

	struct pd_proc *procs;
	size_t nr_procs, alloc_procs;
	struct pd_itab proc_tab;
	int32_t last_key;
	uint32_t last_proc;
	int32_t last_tid, last_tid_pid;
	int classes;		/* some thread was joined to another */

	struct pd_dsoent *dsos;
	size_t nr_dsos, alloc_dsos;
	struct pd_itab dso_tab;

	struct pd_bidname *bids;
	size_t nr_bids, alloc_bids;
	struct pd_itab bid_tab;

	struct pd_ipent *ips;	/* open addressing on (tid, ip) */
	size_t ips_cap, nr_ips;

	ZSTD_DStream *zds;
	const struct zstd_dl *zl;
	unsigned char *dbuf;
	size_t dlen;
	uint64_t dskip;		/* AUXTRACE payload left to skip in the stream */

	struct pd_result res;
	uint64_t nr_skipped_samples;
};

/* -------------------------------------------------------- index tables */

static int itab_init(struct pd_itab *t, size_t cap)
{
	t->slot = malloc(cap * sizeof(*t->slot));
	if (!t->slot)
		return -ENOMEM;
	memset(t->slot, 0xff, cap * sizeof(*t->slot));
	t->cap = cap;
	t->nr = 0;
	return 0;
}

/*
 * Find the slot for a key with hash @h: returns the slot index holding a
 * matching entry (eq() true) or the empty slot where it would go.
 */
typedef int (*itab_eq_fn)(struct rd *r, uint32_t idx, const void *key);

static size_t itab_find(struct rd *r, struct pd_itab *t, uint64_t h, itab_eq_fn eq,
			const void *key)
{
	size_t m = t->cap - 1, i = (size_t)h & m;

	while (t->slot[i] != UINT32_MAX && !eq(r, t->slot[i], key))
		i = (i + 1) & m;
	return i;
}

typedef uint64_t (*itab_hash_fn)(struct rd *r, uint32_t idx);

static int itab_grow(struct rd *r, struct pd_itab *t, itab_hash_fn hf)
{
	struct pd_itab n;
	size_t i;

	if ((t->nr + 1) * 2 <= t->cap)
		return 0;
	if (itab_init(&n, t->cap * 2) < 0)
		return -ENOMEM;
	for (i = 0; i < t->cap; i++) {
		uint32_t v = t->slot[i];
		size_t j;

		if (v == UINT32_MAX)
			continue;
		j = (size_t)hf(r, v) & (n.cap - 1);
		while (n.slot[j] != UINT32_MAX)
			j = (j + 1) & (n.cap - 1);
		n.slot[j] = v;
	}
	n.nr = t->nr;
	free(t->slot);
	*t = n;
	return 0;
}

/* threads: key = tid */
static int proc_eq(struct rd *r, uint32_t idx, const void *key)
{
	return r->procs[idx].tid == *(const int32_t *)key;
}

static uint64_t proc_hash(struct rd *r, uint32_t idx)
{
	return hash64((uint32_t)r->procs[idx].tid);
}

static struct pd_proc *proc_find(struct rd *r, int32_t tid)
{
	size_t s;

	if (r->last_proc != UINT32_MAX && r->last_key == tid)
		return &r->procs[r->last_proc];
	s = itab_find(r, &r->proc_tab, hash64((uint32_t)tid), proc_eq, &tid);
	if (r->proc_tab.slot[s] == UINT32_MAX)
		return NULL;
	r->last_key = tid;
	r->last_proc = r->proc_tab.slot[s];
	return &r->procs[r->last_proc];
}

static struct pd_proc *proc_get(struct rd *r, int32_t tid)
{
	struct pd_proc *p = proc_find(r, tid);
	size_t s;

	if (p)
		return p;
	if (itab_grow(r, &r->proc_tab, proc_hash) < 0 ||
	    grow((void **)&r->procs, &r->alloc_procs, r->nr_procs + 1, sizeof(*r->procs)) < 0)
		return NULL;
	s = itab_find(r, &r->proc_tab, hash64((uint32_t)tid), proc_eq, &tid);
	p = &r->procs[r->nr_procs];
	memset(p, 0, sizeof(*p));
	p->tid = tid;
	p->uf = (uint32_t)r->nr_procs;
	p->next_member = UINT32_MAX;
	r->proc_tab.slot[s] = (uint32_t)r->nr_procs;
	r->proc_tab.nr++;
	r->last_key = tid;
	r->last_proc = (uint32_t)r->nr_procs;
	r->nr_procs++;
	return p;
}

static uint32_t uf_root(struct rd *r, uint32_t i)
{
	while (r->procs[i].uf != i) {
		r->procs[i].uf = r->procs[r->procs[i].uf].uf;	/* path halving */
		i = r->procs[i].uf;
	}
	return i;
}

/*
 * note_thread - a record names thread @tid of process @pid; returns the
 * thread (NULL: out of memory). Facts (perf 6.1 util/machine.c, thread.c):
 * every record and sample reaches a thread through
 * machine__findnew_thread(pid, tid), which looks the thread up by tid alone,
 * whatever the pid field says, including tid 0 (idle) and -1; a thread
 * created as (pid, tid) with pid != tid and pid != -1 shares the maps of the
 * thread whose tid is pid (thread__init_maps, machine__update_thread_pid).
 * So thread @tid is joined into one class with thread @pid, and addresses
 * resolve through the maps of every thread of the class: a superset of the
 * maps perf can reach, whatever order perf sees the records in. In an intact
 * recording a class is one process.
 */
static struct pd_proc *note_thread(struct rd *r, int32_t pid, int32_t tid)
{
	struct pd_proc *t = proc_get(r, tid), *l;
	uint32_t ti, a, b;

	if (!t || pid == -1 || pid == tid || (tid == r->last_tid && pid == r->last_tid_pid))
		return t;
	ti = (uint32_t)(t - r->procs);
	if (!(l = proc_get(r, pid)))	/* may move r->procs */
		return NULL;
	if ((a = uf_root(r, ti)) != (b = uf_root(r, (uint32_t)(l - r->procs)))) {
		r->procs[a > b ? a : b].uf = a < b ? a : b;
		r->classes = 1;
	}
	r->last_tid = tid;
	r->last_tid_pid = pid;
	return &r->procs[ti];
}

/* dsos: key = (path, embedded build-id) */
struct dso_key {
	const char *path;
	const unsigned char *id;
	unsigned size;
};

static uint64_t dso_key_hash(const char *path, const unsigned char *id, unsigned size)
{
	return hash_bytes(path, strlen(path)) ^ hash64(hash_bytes(id, size) + size);
}

static int dso_eq(struct rd *r, uint32_t idx, const void *key)
{
	const struct dso_key *k = key;
	const struct pd_dsoent *d = &r->dsos[idx];

	return d->size == k->size && !memcmp(d->id, k->id, k->size) && !strcmp(d->path, k->path);
}

static uint64_t dso_hash(struct rd *r, uint32_t idx)
{
	return dso_key_hash(r->dsos[idx].path, r->dsos[idx].id, r->dsos[idx].size);
}

static int dso_get(struct rd *r, const char *path, const unsigned char *id, unsigned size)
{
	struct dso_key k = { path, id, size };
	uint64_t h = dso_key_hash(path, id, size);
	struct pd_dsoent *d;
	size_t s;

	s = itab_find(r, &r->dso_tab, h, dso_eq, &k);
	if (r->dso_tab.slot[s] != UINT32_MAX)
		return (int)r->dso_tab.slot[s];
	if (r->nr_dsos >= INT32_MAX)
		return -ENOMEM;
	if (itab_grow(r, &r->dso_tab, dso_hash) < 0 ||
	    grow((void **)&r->dsos, &r->alloc_dsos, r->nr_dsos + 1, sizeof(*r->dsos)) < 0)
		return -ENOMEM;
	d = &r->dsos[r->nr_dsos];
	memset(d, 0, sizeof(*d));
	d->path = strdup(path);
	if (!d->path)
		return -ENOMEM;
	memcpy(d->id, id, size);
	d->size = size;
	s = itab_find(r, &r->dso_tab, h, dso_eq, &k);
	r->dso_tab.slot[s] = (uint32_t)r->nr_dsos;
	r->dso_tab.nr++;
	return (int)r->nr_dsos++;
}

/* HEADER_BUILD_ID names: key = path */
static int bid_eq(struct rd *r, uint32_t idx, const void *key)
{
	return !strcmp(r->bids[idx].path, key);
}

static uint64_t bid_hash(struct rd *r, uint32_t idx)
{
	return hash_bytes(r->bids[idx].path, strlen(r->bids[idx].path));
}

static const struct pd_bidname *bid_find(struct rd *r, const char *path)
{
	size_t s = itab_find(r, &r->bid_tab, hash_bytes(path, strlen(path)), bid_eq, path);

	return r->bid_tab.slot[s] == UINT32_MAX ? NULL : &r->bids[r->bid_tab.slot[s]];
}

static int bid_add(struct rd *r, const char *path, const unsigned char *id, unsigned size)
{
	size_t s;

	if (bid_find(r, path))
		return 0;	/* first entry wins */
	if (itab_grow(r, &r->bid_tab, bid_hash) < 0 ||
	    grow((void **)&r->bids, &r->alloc_bids, r->nr_bids + 1, sizeof(*r->bids)) < 0)
		return -ENOMEM;
	r->bids[r->nr_bids].path = strdup(path);
	if (!r->bids[r->nr_bids].path)
		return -ENOMEM;
	memcpy(r->bids[r->nr_bids].id, id, size);
	r->bids[r->nr_bids].size = size;
	s = itab_find(r, &r->bid_tab, hash_bytes(path, strlen(path)), bid_eq, path);
	r->bid_tab.slot[s] = (uint32_t)r->nr_bids++;
	r->bid_tab.nr++;
	return 0;
}

/* sample IDs -> attr index */
static int id_add(struct rd *r, uint64_t id, uint32_t attr)
{
	size_t i, m;

	if ((r->nr_ids + 1) * 2 > r->ids_cap) {
		size_t ncap = r->ids_cap ? r->ids_cap * 2 : 64;
		struct pd_idmap *n = calloc(ncap, sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (i = 0; i < r->ids_cap; i++) {
			size_t j;

			if (!r->ids[i].used)
				continue;
			j = (size_t)hash64(r->ids[i].id) & (ncap - 1);
			while (n[j].used)
				j = (j + 1) & (ncap - 1);
			n[j] = r->ids[i];
		}
		free(r->ids);
		r->ids = n;
		r->ids_cap = ncap;
	}
	m = r->ids_cap - 1;
	i = (size_t)hash64(id) & m;
	while (r->ids[i].used && r->ids[i].id != id)
		i = (i + 1) & m;
	if (r->ids[i].used)
		return 0;	/* first mapping wins */
	r->ids[i].id = id;
	r->ids[i].attr = attr;
	r->ids[i].used = 1;
	r->nr_ids++;
	return 0;
}

static const struct pd_attr *id_attr(struct rd *r, uint64_t id)
{
	size_t m, i;

	if (!r->ids_cap)
		return NULL;
	m = r->ids_cap - 1;
	i = (size_t)hash64(id) & m;
	while (r->ids[i].used) {
		if (r->ids[i].id == id)
			return &r->attrs[r->ids[i].attr];
		i = (i + 1) & m;
	}
	return NULL;
}

/* (tid, ip) set */
static int ip_add(struct rd *r, int32_t tid, uint64_t ip, uint32_t kind)
{
	size_t m, i;

	r->res.nr_user_ips++;
	if ((r->nr_ips + 1) * 2 > r->ips_cap) {
		size_t ncap = r->ips_cap ? r->ips_cap * 2 : 1u << 8;
		struct pd_ipent *n = calloc(ncap, sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (i = 0; i < r->ips_cap; i++) {
			size_t j;

			if (!r->ips[i].used)
				continue;
			j = (size_t)hash64(r->ips[i].ip ^ ((uint64_t)(uint32_t)r->ips[i].tid << 40))
				& (ncap - 1);
			while (n[j].used)
				j = (j + 1) & (ncap - 1);
			n[j] = r->ips[i];
		}
		free(r->ips);
		r->ips = n;
		r->ips_cap = ncap;
	}
	m = r->ips_cap - 1;
	i = (size_t)hash64(ip ^ ((uint64_t)(uint32_t)tid << 40)) & m;
	while (r->ips[i].used) {
		if (r->ips[i].ip == ip && r->ips[i].tid == tid) {
			r->ips[i].used |= kind;
			return 0;
		}
		i = (i + 1) & m;
	}
	r->ips[i].ip = ip;
	r->ips[i].tid = tid;
	r->ips[i].used = kind;
	r->nr_ips++;
	return 0;
}

/* ------------------------------------------------------------- records */

/* Mapping filenames perf never resolves through ELF symbol tables. */
static int skip_filename(const char *f, size_t n)
{
	static const char deleted[] = " (deleted)";

	if (n == 0 || f[0] == '[')
		return 1;
	if (!strncmp(f, "//anon", 6) || !strncmp(f, "/memfd:", 7) || !strncmp(f, "/tmp/perf-", 10))
		return 1;
	if (n >= sizeof(deleted) - 1 && !strcmp(f + n - (sizeof(deleted) - 1), deleted))
		return 1;
	return 0;
}

static int add_map(struct rd *r, uint16_t misc, int32_t pid, int32_t tid, uint64_t start, uint64_t len,
		   uint64_t pgoff, const unsigned char *fname, size_t fmax,
		   const unsigned char *bid, unsigned bid_size, int data)
{
	unsigned cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	char path[PD_PATH_MAX];
	size_t n = strnlen((const char *)fname, fmax);
	struct pd_proc *p;
	int d;

	if (cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL ||
	    cpumode == PERF_RECORD_MISC_GUEST_USER)
		return 0;
	if (len == 0 || n >= sizeof(path))
		return 0;
	memcpy(path, fname, n);
	path[n] = '\0';
	if (skip_filename(path, n))
		return 0;
	if (bid_size > PD_BUILD_ID_MAX)
		bid_size = PD_BUILD_ID_MAX;
	if (!bid || all_zero(bid, bid_size)) {
		static const unsigned char none[PD_BUILD_ID_MAX];

		bid = none;
		bid_size = 0;
	}
	d = dso_get(r, path, bid, bid_size);
	if (d < 0)
		return d;
	p = note_thread(r, pid, tid);
	if (!p || grow((void **)&p->maps, &p->alloc_maps, p->nr_maps + 1, sizeof(*p->maps)) < 0)
		return -ENOMEM;
	p->maps[p->nr_maps].start = start;
	p->maps[p->nr_maps].end = start + len < start ? UINT64_MAX : start + len;
	p->maps[p->nr_maps].pgoff = pgoff;
	p->maps[p->nr_maps].dso = (uint32_t)d;
	p->maps[p->nr_maps].data = data != 0;
	p->nr_maps++;
	p->sorted = 0;
	return 0;
}

/* FORK: thread @tid starts with a copy of the maps of thread @ptid. */
static int add_parent(struct rd *r, int32_t tid, int32_t ptid)
{
	struct pd_proc *p = proc_get(r, tid);
	size_t i;

	if (!p)
		return -ENOMEM;
	for (i = 0; i < p->nr_parents; i++)
		if (p->parents[i] == ptid)
			return 0;
	if (grow((void **)&p->parents, &p->alloc_parents, p->nr_parents + 1,
		 sizeof(*p->parents)) < 0)
		return -ENOMEM;
	p->parents[p->nr_parents++] = ptid;
	return 0;
}

#define CTX_USER ((uint64_t)PERF_CONTEXT_USER)
#define CTX_MAX  ((uint64_t)PERF_CONTEXT_MAX)

/*
 * SAMPLE (uapi perf_event.h, "PERF_RECORD_SAMPLE"): fields in sample_type bit
 * order; parsed up to BRANCH_STACK, the last field that holds code addresses.
 */
static int do_sample(struct rd *r, const unsigned char *p, size_t size, uint16_t misc,
		     uint64_t off)
{
	const unsigned char *q = p + 8, *end = p + size;
	const struct pd_attr *a = &r->attrs[0];
	uint64_t st = a->sample_type, ip = 0, nr, i;
	int32_t tid = -1;	/* the (tid, ip) key; -1: no TID field */
	int has_ip = 0, ret;

	r->res.nr_samples++;
	if (!r->attrs_same && r->id_pos >= 0) {
		uint64_t id;

		if ((size_t)(end - q) < 8 * (size_t)(r->id_pos + 1))
			goto trunc;
		id = rd64(q + 8 * r->id_pos);
		if (id != 0) {	/* id 0: synthesized, perf uses the first attr */
			a = id_attr(r, id);
			if (!a) {	/* perf drops these too (unknown sample id) */
				r->nr_skipped_samples++;
				return 0;
			}
		}
	}
	st = a->sample_type;

#define NEED(n) do { if ((uint64_t)(end - q) < (uint64_t)(n)) goto trunc; } while (0)
	if (st & PERF_SAMPLE_IDENTIFIER) { NEED(8); q += 8; }
	if (st & PERF_SAMPLE_IP) { NEED(8); ip = rd64(q); q += 8; has_ip = 1; }
	if (st & PERF_SAMPLE_TID) {
		NEED(8);
		tid = (int32_t)rd32(q + 4);
		if (!note_thread(r, (int32_t)rd32(q), tid))
			return -ENOMEM;
		q += 8;
	}
	if (st & PERF_SAMPLE_TIME) { NEED(8); q += 8; }
	if (st & PERF_SAMPLE_ADDR) {
		NEED(8);
		if ((ret = ip_add(r, tid, rd64(q), IP_ADDR)) < 0)
			return ret;
		q += 8;
	}
	if (has_ip && (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER &&
	    (ret = ip_add(r, tid, ip, IP_CODE)) < 0)
		return ret;
	if (st & PERF_SAMPLE_ID) { NEED(8); q += 8; }
	if (st & PERF_SAMPLE_STREAM_ID) { NEED(8); q += 8; }
	if (st & PERF_SAMPLE_CPU) { NEED(8); q += 8; }
	if (st & PERF_SAMPLE_PERIOD) { NEED(8); q += 8; }
	if (st & PERF_SAMPLE_READ) {
		uint64_t rf = a->read_format;

		if (rf & PERF_FORMAT_GROUP) {
			uint64_t per = 8 + (rf & PERF_FORMAT_ID ? 8 : 0) + (rf & PERF_FORMAT_LOST ? 8 : 0);

			NEED(8);
			nr = rd64(q);
			q += 8;
			if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) { NEED(8); q += 8; }
			if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) { NEED(8); q += 8; }
			if (nr > (uint64_t)(end - q) / per)
				goto trunc;
			q += nr * per;
		} else {
			uint64_t n = 8 * (1 + !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
					  !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING) +
					  !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST));
			NEED(n);
			q += n;
		}
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		/* Entries before the first marker are treated as user, like
		 * perf's resolver, which starts in USER mode (superset). */
		int user = 1;

		NEED(8);
		nr = rd64(q);
		q += 8;
		if (nr > (uint64_t)(end - q) / 8)
			goto trunc;
		for (i = 0; i < nr; i++, q += 8) {
			uint64_t v = rd64(q);

			if (v >= CTX_MAX) {
				user = v == CTX_USER;
				continue;
			}
			if (user && (ret = ip_add(r, tid, v, IP_CODE)) < 0)
				return ret;
		}
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t rsz;

		NEED(4);
		rsz = rd32(q);
		NEED(4 + (uint64_t)rsz);
		q += 4 + (size_t)rsz;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		NEED(8);
		nr = rd64(q);
		q += 8;
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) { NEED(8); q += 8; }
		if (nr > (uint64_t)(end - q) / 24)
			goto trunc;
		for (i = 0; i < nr; i++, q += 24) {
			if ((ret = ip_add(r, tid, rd64(q), IP_CODE)) < 0 ||
			    (ret = ip_add(r, tid, rd64(q + 8), IP_CODE)) < 0)
				return ret;
		}
	}
#undef NEED
	return 0;
trunc:
	seterr(r->err, r->errsz, "SAMPLE record at offset %#" PRIx64 " (size %zu) is shorter than its sample_type %#" PRIx64 " needs",
	       off, size, st);
	return -EINVAL;
}

static int process_stream(struct rd *r, const unsigned char *in, size_t len, uint64_t off);

/*
 * One record of @size bytes at @p (complete in memory). @off: its offset in
 * the file (or of the COMPRESSED record it came from), for messages.
 * *@extra: bytes that follow the record but belong to it (AUXTRACE payload).
 */
static int do_record(struct rd *r, const unsigned char *p, size_t size, uint64_t off,
		     int in_stream, uint64_t *extra)
{
	uint32_t type = rd32(p);
	uint16_t misc = rd16(p + 4);

	r->res.nr_records++;
	switch (type) {
	case PERF_RECORD_SAMPLE:
		return do_sample(r, p, size, misc, off);
	case PERF_RECORD_MMAP:
		/* header, u32 pid, tid, u64 addr, len, pgoff, char filename[] */
		if (size < 40)
			goto short_rec;
		return add_map(r, misc, (int32_t)rd32(p + 8), (int32_t)rd32(p + 12), rd64(p + 16), rd64(p + 24),
			       rd64(p + 32), p + 40, size - 40, NULL, 0,
			       misc & PERF_RECORD_MISC_MMAP_DATA);
	case PERF_RECORD_MMAP2: {
		/* header, u32 pid, tid, u64 addr, len, pgoff, 24-byte union
		 * {maj, min, ino, ino_generation | build_id_size, res, res,
		 * build_id[20]}, u32 prot, flags, char filename[] */
		int data;

		if (size < 72)
			goto short_rec;
		/* exec mapping: prot has PROT_EXEC or not marked MMAP_DATA;
		 * data mappings (perf record -d) only serve sampled ADDRs */
		data = !(rd32(p + 64) & PROT_EXEC) && (misc & PERF_RECORD_MISC_MMAP_DATA);
		if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID)
			return add_map(r, misc, (int32_t)rd32(p + 8), (int32_t)rd32(p + 12), rd64(p + 16),
				       rd64(p + 24), rd64(p + 32), p + 72, size - 72, p + 44, p[40], data);
		return add_map(r, misc, (int32_t)rd32(p + 8), (int32_t)rd32(p + 12), rd64(p + 16), rd64(p + 24),
			       rd64(p + 32), p + 72, size - 72, NULL, 0, data);
	}
	case PERF_RECORD_FORK: {
		/* header, u32 pid, ppid, tid, ptid, u64 time */
		int32_t pid, ppid;

		if (size < 24)
			goto short_rec;
		pid = (int32_t)rd32(p + 8);
		ppid = (int32_t)rd32(p + 12);
		if (!note_thread(r, pid, (int32_t)rd32(p + 16)) ||
		    !note_thread(r, ppid, (int32_t)rd32(p + 20)))
			return -ENOMEM;
		if (pid == ppid)	/* new thread: shares its process's maps */
			return 0;
		/* util/thread.c thread__clone_maps: a new process copies
		 * the maps of the forking thread */
		return add_parent(r, (int32_t)rd32(p + 16), (int32_t)rd32(p + 20));
	}
	case PERF_RECORD_COMM:
	case PERF_RECORD_EXIT:
		/* superset rule: exec and exit never remove mappings.
		 * COMM: header, u32 pid, tid; EXIT: header, u32 pid, ppid, tid */
		if (size >= 24 && !note_thread(r, (int32_t)rd32(p + 8),
					       (int32_t)rd32(p + (type == PERF_RECORD_COMM ? 12 : 16))))
			return -ENOMEM;
		return 0;
	case PD_REC_ID_INDEX: {
		/* header, u64 nr, {u64 id, idx, cpu, tid}[nr] (+ optional v2 part) */
		uint64_t nr, i;

		if (size < 16)
			goto short_rec;
		nr = rd64(p + 8);
		if (nr > (size - 16) / 32)
			goto short_rec;
		for (i = 0; i < nr; i++) {
			const unsigned char *e = p + 16 + 32 * i;
			uint64_t idx = rd64(e + 8);
			int ret;

			if (idx < r->nr_attrs && (ret = id_add(r, rd64(e), (uint32_t)idx)) < 0)
				return ret;
		}
		return 0;
	}
	case PD_REC_AUXTRACE:
		/* header, u64 size, offset, reference, u32 idx, tid, cpu, res;
		 * followed by `size` payload bytes not counted in header.size */
		if (size < 16)
			goto short_rec;
		*extra = rd64(p + 8);
		return 0;
	case PD_REC_COMPRESSED:
	case PD_REC_COMPRESSED2: {
		const unsigned char *data = p + 8;
		size_t dlen = size - 8;

		if (in_stream) {
			seterr(r->err, r->errsz, "COMPRESSED record nested in a compressed stream (offset %#" PRIx64 ")", off);
			return -EINVAL;
		}
		if (type == PD_REC_COMPRESSED2) {
			uint64_t ds;

			if (size < 16)
				goto short_rec;
			ds = rd64(p + 8);
			if (ds > size - 16)
				goto short_rec;
			data = p + 16;
			dlen = (size_t)ds;
		}
		return process_stream(r, data, dlen, off);
	}
	default:
		if ((type >= 1 && type < PERF_RECORD_MAX) ||
		    (type >= PD_REC_USER_FIRST && type <= PD_REC_COMPRESSED2))
			return 0;
		r->res.nr_unknown_records++;
		return 0;
	}
short_rec:
	seterr(r->err, r->errsz, "record type %u at offset %#" PRIx64 " is too short (%zu bytes)",
	       type, off, size);
	return -EINVAL;
}

/* Consume complete records from r->dbuf[0..dlen); keep the incomplete tail. */
static int drain_dbuf(struct rd *r, uint64_t off)
{
	size_t pos = 0;
	int ret = 0;

	for (;;) {
		uint16_t sz;
		uint64_t extra = 0;

		if (r->dskip) {
			size_t take = r->dlen - pos < r->dskip ? r->dlen - pos : (size_t)r->dskip;

			pos += take;
			r->dskip -= take;
			if (r->dskip)
				break;
		}
		if (r->dlen - pos < 8)
			break;
		sz = rd16(r->dbuf + pos + 6);
		if (sz < 8) {
			seterr(r->err, r->errsz, "record with size %u < 8 in compressed stream (COMPRESSED record at offset %#" PRIx64 ")",
			       sz, off);
			return -EINVAL;
		}
		if (r->dlen - pos < sz)
			break;
		ret = do_record(r, r->dbuf + pos, sz, off, 1, &extra);
		if (ret < 0)
			return ret;
		pos += sz;
		r->dskip = extra;
	}
	if (pos) {
		memmove(r->dbuf, r->dbuf + pos, r->dlen - pos);
		r->dlen -= pos;
	}
	return 0;
}

/*
 * Feed one COMPRESSED payload into the continuous zstd stream; records are
 * processed as they complete, a partial record waits for the next payload.
 */
static int process_stream(struct rd *r, const unsigned char *in, size_t len, uint64_t off)
{
	ZSTD_inBuffer ib = { in, len, 0 };
	int ret;

	if (!r->zds) {
		if (!(r->zl = zstd_dl_load())) {
			seterr(r->err, r->errsz, "COMPRESSED records but libzstd.so.1 cannot be loaded");
			return -ENOTSUP;
		}
		r->zds = r->zl->createDStream();
		r->dbuf = malloc(PD_DBUF);
		if (!r->zds || !r->dbuf)
			return -ENOMEM;
		r->zl->initDStream(r->zds);
	}
	for (;;) {
		ZSTD_outBuffer ob = { r->dbuf + r->dlen, PD_DBUF - r->dlen, 0 };
		size_t z = r->zl->decompressStream(r->zds, &ob, &ib);

		if (r->zl->isError(z)) {
			seterr(r->err, r->errsz, "zstd error in COMPRESSED record at offset %#" PRIx64 ": %s",
			       off, r->zl->getErrorName(z));
			return -EINVAL;
		}
		r->dlen += ob.pos;
		r->res.decompressed_bytes += ob.pos;
		if ((ret = drain_dbuf(r, off)) < 0)
			return ret;
		/* Done when all input is consumed and zstd had room to spare
		 * (a full output buffer may mean more is pending). */
		if (ib.pos == ib.size && ob.pos < ob.size)
			return 0;
		if (ob.pos == 0 && ib.pos == ib.size)
			return 0;
	}
}

/* ------------------------------------------------------------- header */

struct pd_sect { uint64_t off, size; };

static int read_attrs(struct rd *r, uint64_t attr_size, struct pd_sect attrs)
{
	uint64_t i, n;
	int rc = 0;

	if (attr_size < 16 + 64 || attr_size > 65536) {
		seterr(r->err, r->errsz, "unsupported attr_size %" PRIu64, attr_size);
		return attr_size < 16 + 64 ? -EINVAL : -ENOTSUP;
	}
	n = attrs.size / attr_size;
	if (n == 0 || n > 1u << 20) {
		seterr(r->err, r->errsz, "bad attrs section (size %" PRIu64 ", attr_size %" PRIu64 ")",
		       attrs.size, attr_size);
		return -EINVAL;
	}
	r->attrs = calloc((size_t)n, sizeof(*r->attrs));
	if (!r->attrs)
		return -ENOMEM;
	r->nr_attrs = (size_t)n;
	for (i = 0; i < n; i++) {
		uint64_t pos = attrs.off + i * attr_size, asz = attr_size - 16, j;
		const unsigned char *e = win_get(&r->win, pos, (size_t)attr_size, UINT64_MAX, &rc);
		struct pd_attr *a = &r->attrs[i];
		struct pd_sect ids;

		if (!e) {
			seterr(r->err, r->errsz, "attr %" PRIu64 " at offset %#" PRIx64 " past end of file", i, pos);
			return rc;
		}
		/* perf_event_attr: sample_type @24, read_format @32, flags @40
		 * (sample_id_all bit 18), branch_sample_type @72 (VER2),
		 * sample_regs_user @80, sample_stack_user u32 @88 (VER3) */
		a->sample_type = rd64(e + 24);
		a->read_format = rd64(e + 32);
		a->sample_id_all = (rd64(e + 40) >> 18) & 1;
		if (asz >= 80)
			a->branch_sample_type = rd64(e + 72);
		if (asz >= 96) {
			a->sample_regs_user = rd64(e + 80);
			a->sample_stack_user = rd32(e + 88);
		}
		ids.off = rd64(e + asz);
		ids.size = rd64(e + asz + 8);
		if ((a->sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)) ==
		    (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER))
			r->res.flags |= PD_F_DWARF_UNWIND;
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK)
			r->res.flags |= PD_F_LBR_CALLSTACK;
		if (ids.size > r->win.fsize || ids.off > r->win.fsize - ids.size) {
			seterr(r->err, r->errsz, "ids of attr %" PRIu64 " past end of file", i);
			return -EINVAL;
		}
		/* the window is reused below: e is dead from here on */
		for (j = 0; j + 8 <= ids.size; j += 8) {
			const unsigned char *v = win_get(&r->win, ids.off + j, 8, UINT64_MAX, &rc);

			if (!v)
				return rc;
			if ((rc = id_add(r, rd64(v), (uint32_t)i)) < 0)
				return rc;
		}
	}
	/* Do all attrs parse a SAMPLE the same way up to BRANCH_STACK? */
	r->attrs_same = 1;
	for (i = 1; i < n; i++) {
		const uint64_t mask = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
			PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ |
			PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK;
		const struct pd_attr *a = &r->attrs[i], *f = &r->attrs[0];

		if ((a->sample_type & mask) != (f->sample_type & mask) ||
		    ((a->sample_type & PERF_SAMPLE_READ) && a->read_format != f->read_format) ||
		    ((a->sample_type & PERF_SAMPLE_BRANCH_STACK) &&
		     ((a->branch_sample_type ^ f->branch_sample_type) & PERF_SAMPLE_BRANCH_HW_INDEX)))
			r->attrs_same = 0;
	}
	/* ID position from the first attr (perf: evlist id_pos) */
	{
		uint64_t st = r->attrs[0].sample_type;

		if (st & PERF_SAMPLE_IDENTIFIER)
			r->id_pos = 0;
		else if (st & PERF_SAMPLE_ID)
			r->id_pos = !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
				    !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR);
		else
			r->id_pos = -1;
	}
	return 0;
}

/*
 * HEADER_BUILD_ID feature: perf_record_header_build_id entries
 * { perf_event_header; s32 pid; u8 build_id[24] = {data[20], u8 size, u8, u16};
 *   char filename[] } (tools/perf/util/header.c, perf.data-file-format.txt).
 * Only USER-cpumode entries are kept. Malformed sections are ignored (perf
 * would fall back to reading build-ids from the files too).
 */
static int read_build_ids(struct rd *r, const unsigned char *feat_bits, struct pd_sect data)
{
	uint64_t tab = data.off + data.size, pos, end;
	const unsigned char *e;
	unsigned bit, idx = 0;
	int rc = 0;

	if (!(feat_bits[PD_FEAT_BUILD_ID / 8] & (1u << (PD_FEAT_BUILD_ID % 8))))
		return 0;
	for (bit = 0; bit < PD_FEAT_BUILD_ID; bit++)
		if (feat_bits[bit / 8] & (1u << (bit % 8)))
			idx++;
	e = win_get(&r->win, tab + 16 * idx, 16, UINT64_MAX, &rc);
	if (!e)
		return rc == -EINVAL ? 0 : rc;
	pos = rd64(e);
	end = pos + rd64(e + 8);
	if (end < pos || end > r->win.fsize)
		return 0;
	while (end - pos >= 36) {
		uint16_t misc, sz;
		char path[PD_PATH_MAX];
		size_t n;
		unsigned bsz;

		e = win_get(&r->win, pos, 8, end, &rc);
		if (!e)
			return rc == -EINVAL ? 0 : rc;
		misc = rd16(e + 4);
		sz = rd16(e + 6);
		if (sz < 36 || sz > end - pos)
			return 0;
		e = win_get(&r->win, pos, sz, end, &rc);
		if (!e)
			return rc == -EINVAL ? 0 : rc;
		pos += sz;
		if ((misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER)
			continue;
		n = strnlen((const char *)e + 36, sz - 36);
		if (n == 0 || n >= sizeof(path))
			continue;
		memcpy(path, e + 36, n);
		path[n] = '\0';
		bsz = misc & PD_MISC_BUILD_ID_SIZE ? e[32] : 20;
		if (bsz == 0 || bsz > PD_BUILD_ID_MAX || all_zero(e + 12, bsz))
			continue;	/* perf 6.1 -z writes empty ids */
		if ((rc = bid_add(r, path, e + 12, bsz)) < 0)
			return rc;
	}
	return 0;
}

/* ------------------------------------------------------------- results */

static int cmp_ipent(const void *a, const void *b)
{
	const struct pd_ipent *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

static int cmp_map(const void *a, const void *b)
{
	const struct pd_map *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	if (x->pgoff != y->pgoff)
		return x->pgoff < y->pgoff ? -1 : 1;
	if (x->dso != y->dso)
		return x->dso < y->dso ? -1 : 1;
	return x->data < y->data ? -1 : x->data > y->data;
}

static int proc_sort(struct pd_proc *p)
{
	size_t i, o = 0;

	if (p->sorted)
		return 0;
	if (p->nr_maps > 1)
		qsort(p->maps, p->nr_maps, sizeof(*p->maps), cmp_map);
	for (i = 0; i < p->nr_maps; i++)
		if (!o || cmp_map(&p->maps[o - 1], &p->maps[i]))
			p->maps[o++] = p->maps[i];
	p->nr_maps = o;
	free(p->maxend);
	p->maxend = malloc((o ? o : 1) * sizeof(*p->maxend));
	if (!p->maxend)
		return -ENOMEM;
	for (i = 0; i < o; i++)
		p->maxend[i] = i && p->maxend[i - 1] > p->maps[i].end ? p->maxend[i - 1] : p->maps[i].end;
	p->sorted = 1;
	return 0;
}

static int dso_add_addr(struct pd_dsoent *d, uint64_t a)
{
	if (d->nr_addrs && d->addrs[d->nr_addrs - 1] == a)
		return 0;
	if (grow((void **)&d->addrs, &d->alloc_addrs, d->nr_addrs + 1, sizeof(*d->addrs)) < 0)
		return -ENOMEM;
	d->addrs[d->nr_addrs++] = a;
	return 0;
}

/* Add ip's file offset for every mapping of @p containing it, data mappings
 * included: perf 6.1 keeps one map tree per thread, so a callchain entry or
 * sample ip that lands in a data mapping recorded with -d is resolved there
 * too (superset rule). @kind is kept for the statistics of callers. */
static int resolve_in(struct rd *r, struct pd_proc *p, uint64_t ip, uint32_t kind)
{
	size_t lo = 0, hi = p->nr_maps;
	int ret;

	/* last map with start <= ip */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0) {
		const struct pd_map *m = &p->maps[lo];

		if (p->maxend[lo] <= ip)
			break;
		(void)kind;
		if (ip < m->end &&
		    (ret = dso_add_addr(&r->dsos[m->dso], ip - m->start + m->pgoff)) < 0)
			return ret;
	}
	return 0;
}

static int resolve_all(struct rd *r)
{
	struct pd_ipent *v;
	size_t i, n = 0, k;
	uint32_t *list = NULL, gen = 0;
	size_t nlist = 0, q0;
	int ret = 0;

	for (i = 0; i < r->nr_procs; i++)
		if ((ret = proc_sort(&r->procs[i])) < 0)
			return ret;
	/* compact the hash table into a (pid, ip)-sorted array */
	v = r->ips;
	for (i = 0; i < r->ips_cap; i++)
		if (v[i].used)
			v[n++] = v[i];
	if (n)
		qsort(v, n, sizeof(*v), cmp_ipent);
	r->ips_cap = n;		/* no longer a hash table */
	list = malloc((r->nr_procs ? r->nr_procs : 1) * sizeof(*list));
	if (!list)
		return -ENOMEM;
	/* members of each class, chained from the class root */
	if (r->classes)
		for (i = r->nr_procs; i-- > 0;) {
			uint32_t root = uf_root(r, (uint32_t)i);

			if (root != i) {
				r->procs[i].next_member = r->procs[root].next_member;
				r->procs[root].next_member = (uint32_t)i;
			}
		}
	for (i = 0; i < n; i = k) {
		int32_t tid = v[i].tid;
		size_t j;

		for (k = i; k < n && v[k].tid == tid; k++)
			;
		/* threads whose maps apply: the class of tid (note_thread),
		 * the FORK parents of its members and their classes; unknown
		 * tid (no TID in sample_type): every thread */
		nlist = 0;
		gen++;
		if (tid == -1) {
			for (j = 0; j < r->nr_procs; j++)
				list[nlist++] = (uint32_t)j;
		} else {
			struct pd_proc *p = proc_find(r, tid);

			if (p) {
				p->visit = gen;
				list[nlist++] = (uint32_t)(p - r->procs);
			}
			for (j = 0; j < nlist; j++) {
				struct pd_proc *c = &r->procs[list[j]];
				size_t q;
				uint32_t mb;

				if (r->classes)
					for (mb = uf_root(r, list[j]); mb != UINT32_MAX; mb = r->procs[mb].next_member)
						if (r->procs[mb].visit != gen) {
							r->procs[mb].visit = gen;
							list[nlist++] = mb;
						}
				for (q = 0; q < c->nr_parents; q++) {
					struct pd_proc *pp = proc_find(r, c->parents[q]);

					if (pp && pp->visit != gen) {
						pp->visit = gen;
						list[nlist++] = (uint32_t)(pp - r->procs);
					}
				}
			}
		}
		/* only threads that own mappings (in a multi-threaded
		 * process, the ones that issued an mmap) */
		for (j = 0, q0 = 0; j < nlist; j++)
			if (r->procs[list[j]].nr_maps)
				list[q0++] = list[j];
		nlist = q0;
		for (j = i; j < k; j++) {
			size_t q;

			for (q = 0; q < nlist; q++)
				if ((ret = resolve_in(r, &r->procs[list[q]], v[j].ip, v[j].used)) < 0)
					goto out;
		}
	}
out:
	free(list);
	return ret;
}

static int cmp_dso_path(const void *a, const void *b)
{
	const struct pd_dso *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	if (x->build_id_size != y->build_id_size)
		return x->build_id_size < y->build_id_size ? -1 : 1;
	return memcmp(x->build_id, y->build_id, x->build_id_size);
}

static int file_build_id(const struct elf_ops *ops, const char *path, unsigned char *out)
{
	struct stat st;
	Elf *e;
	int fd, n;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return -ENOENT;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ops->elf_version)
		ops->elf_version(EV_CURRENT);
	e = ops->elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e) {
		close(fd);
		return -EINVAL;
	}
	n = elf_read_build_id(ops, e, out, PD_BUILD_ID_MAX);
	ops->elf_end(e);
	close(fd);
	return n;
}

/* Turn internal DSO entries with addresses into r->res.dsos. */
static int build_result(struct rd *r, const struct elf_ops *ops)
{
	size_t i, j, n = 0;
	struct pd_dso *out;

	out = calloc(r->nr_dsos ? r->nr_dsos : 1, sizeof(*out));
	if (!out)
		return -ENOMEM;
	r->res.dsos = out;
	for (i = 0; i < r->nr_dsos; i++) {
		struct pd_dsoent *d = &r->dsos[i];
		struct pd_dso *o;

		if (!d->nr_addrs)
			continue;
		o = &out[n];
		if (d->size) {
			memcpy(o->build_id, d->id, d->size);
			o->build_id_size = d->size;
		} else {
			const struct pd_bidname *b = bid_find(r, d->path);

			if (b) {
				memcpy(o->build_id, b->id, b->size);
				o->build_id_size = b->size;
			} else if (ops) {
				int k = file_build_id(ops, d->path, o->build_id);

				o->build_id_size = k > 0 ? (unsigned)k : 0;
			}
		}
		/* merge into an earlier DSO with the same build-id (the same
		 * file reached through two paths) */
		for (j = 0; o->build_id_size && j < n; j++)
			if (out[j].build_id_size == o->build_id_size &&
			    !memcmp(out[j].build_id, o->build_id, o->build_id_size))
				break;
		if (o->build_id_size && j < n) {
			struct pd_dso *t = &out[j];

			if (grow((void **)&t->addrs, &t->alloc_addrs, t->nr_addrs + d->nr_addrs,
				 sizeof(*t->addrs)) < 0)
				return -ENOMEM;
			memcpy(t->addrs + t->nr_addrs, d->addrs, d->nr_addrs * sizeof(*d->addrs));
			t->nr_addrs += d->nr_addrs;
			memset(o, 0, sizeof(*o));
			continue;
		}
		o->path = d->path;
		d->path = NULL;
		o->addrs = d->addrs;
		o->nr_addrs = d->nr_addrs;
		o->alloc_addrs = d->alloc_addrs;
		d->addrs = NULL;
		n++;
	}
	r->res.nr_dsos = n;
	for (i = 0; i < n; i++)
		out[i].nr_addrs = sort_unique_u64(out[i].addrs, out[i].nr_addrs);
	qsort(out, n, sizeof(*out), cmp_dso_path);
	return 0;
}

static void rd_free(struct rd *r)
{
	size_t i;

	free(r->win.buf);
	free(r->attrs);
	free(r->ids);
	for (i = 0; i < r->nr_procs; i++) {
		free(r->procs[i].maps);
		free(r->procs[i].maxend);
		free(r->procs[i].parents);
	}
	free(r->procs);
	free(r->proc_tab.slot);
	for (i = 0; i < r->nr_dsos; i++) {
		free(r->dsos[i].path);
		free(r->dsos[i].addrs);
	}
	free(r->dsos);
	free(r->dso_tab.slot);
	for (i = 0; i < r->nr_bids; i++)
		free(r->bids[i].path);
	free(r->bids);
	free(r->bid_tab.slot);
	free(r->ips);
	if (r->zds)
		r->zl->freeDStream(r->zds);
	free(r->dbuf);
	perfdata_free(&r->res);
}

/* --------------------------------------------------------------- main */

static int read_data(struct rd *r, struct pd_sect data)
{
	uint64_t pos = data.off, end = data.off + data.size;
	int rc = 0;

	while (pos < end) {
		const unsigned char *p;
		uint64_t extra = 0;
		uint16_t size;

		if (end - pos < 8) {
			seterr(r->err, r->errsz, "record header at offset %#" PRIx64 " runs past the data section", pos);
			return -EINVAL;
		}
		p = win_get(&r->win, pos, 8, end, &rc);
		if (!p)
			goto io;
		size = rd16(p + 6);
		if (size < 8) {
			seterr(r->err, r->errsz, "record at offset %#" PRIx64 " has size %u < 8", pos, size);
			return -EINVAL;
		}
		if (size > end - pos) {
			seterr(r->err, r->errsz, "record at offset %#" PRIx64 " (type %u, size %u) runs past the data section",
			       pos, rd32(p), size);
			return -EINVAL;
		}
		p = win_get(&r->win, pos, size, end, &rc);
		if (!p)
			goto io;
		if ((rc = do_record(r, p, size, pos, 0, &extra)) < 0)
			return rc;
		pos += size;
		if (extra) {
			if (extra > end - pos) {
				seterr(r->err, r->errsz, "AUXTRACE payload at offset %#" PRIx64 " runs past the data section", pos);
				return -EINVAL;
			}
			pos += extra;
		}
	}
	if (r->dlen || r->dskip) {
		seterr(r->err, r->errsz, "compressed stream ends inside a record (%zu bytes left)", r->dlen);
		return -EINVAL;
	}
	return 0;
io:
	if (rc == -EINVAL)
		seterr(r->err, r->errsz, "file ends inside the record at offset %#" PRIx64, pos);
	else
		seterr(r->err, r->errsz, "read error at offset %#" PRIx64 ": %s", pos, strerror(-rc));
	return rc;
}

int perfdata_read(const char *path, const struct elf_ops *ops, struct pd_result *out,
		  char *err, size_t errsz)
{
	struct rd r;
	struct stat st;
	const unsigned char *h;
	struct pd_sect attrs, data;
	unsigned char feat[32];
	uint64_t magic, hsize, attr_size;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (err && errsz)
		err[0] = '\0';
	memset(&r, 0, sizeof(r));
	r.err = err;
	r.errsz = errsz;
	r.last_proc = UINT32_MAX;
	r.last_tid = -1;
	r.last_tid_pid = -1;	/* (pid -1 never reaches the cache) */
	r.win.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r.win.fd < 0) {
		rc = -errno;
		seterr(err, errsz, "%s: %s", path, strerror(errno));
		return rc;
	}
	if (fstat(r.win.fd, &st) < 0) {
		rc = -errno;
		seterr(err, errsz, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		seterr(err, errsz, "%s: not a regular file (pipe-mode data is not supported)", path);
		r.res.flags |= PD_F_PIPE;
		rc = -ENOTSUP;
		goto out;
	}
	r.win.fsize = (uint64_t)st.st_size;
	/* no request can exceed the file size (win_get), so a small file
	 * needs no full-size window */
	r.win.cap = r.win.fsize < PD_WINDOW ? (size_t)r.win.fsize + 1 : PD_WINDOW;
	r.win.buf = malloc(r.win.cap);
	if (!r.win.buf || itab_init(&r.proc_tab, 256) < 0 || itab_init(&r.dso_tab, 256) < 0 ||
	    itab_init(&r.bid_tab, 64) < 0) {
		rc = -ENOMEM;
		goto out;
	}
#ifdef POSIX_FADV_SEQUENTIAL
	posix_fadvise(r.win.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	h = win_get(&r.win, 0, PD_PIPE_HDR_SIZE, UINT64_MAX, &rc);
	if (!h) {
		seterr(err, errsz, "%s: too short for a perf.data header", path);
		goto out;
	}
	magic = rd64(h);
	hsize = rd64(h + 8);
	if (magic == PD_MAGIC_SWAPPED) {
		seterr(err, errsz, "%s: foreign-endian perf.data is not supported", path);
		r.res.flags |= PD_F_FOREIGN_ENDIAN;
		rc = -ENOTSUP;
		goto out;
	}
	if (magic != PD_MAGIC) {
		seterr(err, errsz, "%s: %s", path, magic == PD_MAGIC_V1 ?
		       "old PERFFILE (v1) format is not supported" : "not a perf.data file (bad magic)");
		rc = -EINVAL;
		goto out;
	}
	if (hsize == PD_PIPE_HDR_SIZE) {
		seterr(err, errsz, "%s: pipe-mode perf.data is not supported", path);
		r.res.flags |= PD_F_PIPE;
		rc = -ENOTSUP;
		goto out;
	}
	if (hsize < PD_FILE_HDR_SIZE) {
		seterr(err, errsz, "%s: bad header size %" PRIu64, path, hsize);
		rc = -EINVAL;
		goto out;
	}
	h = win_get(&r.win, 0, PD_FILE_HDR_SIZE, UINT64_MAX, &rc);
	if (!h) {
		seterr(err, errsz, "%s: truncated file header", path);
		goto out;
	}
	/* perf_file_header: magic, size, attr_size, attrs{off,size},
	 * data{off,size}, event_types{off,size}, adds_features[4] */
	attr_size = rd64(h + 16);
	attrs.off = rd64(h + 24);
	attrs.size = rd64(h + 32);
	data.off = rd64(h + 40);
	data.size = rd64(h + 48);
	memcpy(feat, h + 72, sizeof(feat));
	if (attrs.size > r.win.fsize || attrs.off > r.win.fsize - attrs.size) {
		seterr(err, errsz, "%s: attrs section past end of file", path);
		rc = -EINVAL;
		goto out;
	}
	if (data.size > r.win.fsize || data.off > r.win.fsize - data.size) {
		seterr(err, errsz, "%s: data section [%#" PRIx64 ", +%#" PRIx64 ") past end of file (%" PRIu64 " bytes): truncated?",
		       path, data.off, data.size, r.win.fsize);
		rc = -EINVAL;
		goto out;
	}
	if ((rc = read_attrs(&r, attr_size, attrs)) < 0)
		goto out;
	if ((rc = read_build_ids(&r, feat, data)) < 0)
		goto out;
	r.res.data_bytes = data.size;
	if ((rc = read_data(&r, data)) < 0)
		goto out;
	if ((rc = resolve_all(&r)) < 0 || (rc = build_result(&r, ops)) < 0)
		goto out;
	if (!r.res.nr_samples)
		r.res.flags |= PD_F_NO_SAMPLES;
	r.res.nr_skipped_samples = r.nr_skipped_samples;
	*out = r.res;
	memset(&r.res, 0, sizeof(r.res));
out:
	if (rc == -ENOMEM && err && errsz && !err[0])
		seterr(err, errsz, "out of memory");
	if (rc < 0) {
		/* keep only the flags that explain -ENOTSUP; nothing to free */
		out->flags = rc == -ENOTSUP ? r.res.flags & (PD_F_PIPE | PD_F_FOREIGN_ENDIAN) : 0;
	}
	close(r.win.fd);
	rd_free(&r);
	return rc;
}
