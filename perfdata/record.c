/* SPDX-License-Identifier: MIT */
/*
 * perfdata/record.c - the perf.data record iterator (see perfdata/record.h).
 *
 * Format sources (facts only, no code taken):
 *   tools/perf/Documentation/perf.data-file-format.txt  file and pipe
 *       headers, attrs, feature table, HEADER_BUILD_ID, HEADER_DIR_FORMAT
 *   include/uapi/linux/perf_event.h  perf_event_attr, record layouts,
 *       sample_id, read_format
 *   tools/lib/perf/include/perf/event.h  perf's own record types (64..83):
 *       HEADER_ATTR, HEADER_TRACING_DATA, HEADER_BUILD_ID, ID_INDEX,
 *       AUXTRACE, COMPRESSED
 *   tools/perf/util/evsel.c  evsel__parse_sample (field order after
 *       PHYS_ADDR: CGROUP, DATA_PAGE_SIZE, CODE_PAGE_SIZE, AUX; REGS_* carry
 *       registers only for abi != 0; STACK_USER dyn_size only for size != 0),
 *       perf_evsel__parse_id_sample, evsel__calc_id_pos / is_pos
 *   tools/perf/util/header.c  perf_event__process_attr (ids follow
 *       attr.size bytes of attr), perf_session__read_header (pipe header
 *       tried on regular files), process_dir_format
 *   tools/perf/util/session.c  COMPRESSED payloads form one zstd stream
 *       per file; user events that carry a payload (TRACING_DATA, AUXTRACE)
 *   tools/perf/util/data.c  perf_data__open_dir: regular files "data.*"
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "perfdata/htab.h"
#include "perfdata/record.h"
#include "util/util.h"
#include "util/zstd_dl.h"

/* "PERFILE2" read as a little-endian u64 (perf.data-file-format.txt). */
#define PD_MAGIC          0x32454c4946524550ULL
#define PD_MAGIC_SWAPPED  0x50455246494c4532ULL
#define PD_MAGIC_V1       0x454c494646524550ULL	/* "PERFFILE", pre-2.6.37 */
#define PD_FILE_HDR_SIZE  104	/* magic, size, attr_size, 3 sections, 4 u64 bitmap */
#define PD_PIPE_HDR_SIZE  16	/* magic, size */
#define PD_ATTR_SIZE_VER0 64

/* perf's own record types (tools/lib/perf/include/perf/event.h). */
enum {
	PD_REC_HEADER_ATTR	= 64,
	PD_REC_TRACING_DATA	= 66,
	PD_REC_HEADER_BUILD_ID	= 67,
	PD_REC_ID_INDEX		= 69,
	PD_REC_AUXTRACE		= 71,
	PD_REC_COMPRESSED	= 81,
	PD_REC_COMPRESSED2	= 83,	/* newer perf: header, u64 data_size, data */
};

#define PD_FEAT_BUILD_ID   2	/* HEADER_BUILD_ID feature bit */
#define PD_FEAT_DIR_FORMAT 24	/* HEADER_DIR_FORMAT: u64 version */
#define PD_DIR_VERSION     1	/* util/data.h PERF_DIR_VERSION */
#define PD_MISC_BUILD_ID_SIZE (1u << 15)

#define PD_WINDOW   (1u << 20)	/* file read window */
#define PD_DBUF     (1u << 20)	/* decompressed-record buffer */
#define PD_MAX_ATTRS (1u << 20)
#define PD_MAX_FILES (1u << 16)

static inline uint64_t rd64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline uint32_t rd32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint16_t rd16(const unsigned char *p) { uint16_t v; memcpy(&v, p, 2); return v; }

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
 * up to @limit (exclusive). Returns NULL with *rc set: -EINVAL (range
 * passes @limit, the end of file or the window) or -errno from pread.
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

/* Point the window at @fd of @fsize bytes; a small file needs no full-size
 * buffer (no request can exceed the file size). */
static int win_reset(struct pd_win *w, int fd, uint64_t fsize)
{
	size_t cap = fsize < PD_WINDOW ? (size_t)fsize + 1 : PD_WINDOW;

	if (cap > w->cap) {
		unsigned char *b = realloc(w->buf, cap);

		if (!b)
			return -ENOMEM;
		w->buf = b;
		w->cap = cap;
	}
	w->fd = fd;
	w->fsize = fsize;
	w->off = 0;
	w->len = 0;
	return 0;
}

/* ---------------------------------------------------------------- reader */

struct pd_idmap {
	uint64_t id;
	uint32_t attr;
};

enum phase {
	PH_FEATURE,	/* HEADER_BUILD_ID feature entries of the header file */
	PH_DATA,	/* records of [pos, end) in the current file */
	PH_END,
};

struct pd_reader {
	struct pd_win win;
	char *err;
	size_t errsz;
	enum pd_mode mode;
	int dirfd;		/* PD_MODE_DIR: the directory, and its path */
	char *dir;

	struct pd_attr *attrs;
	size_t nr_attrs, alloc_attrs;
	int id_pos, is_pos;	/* of attrs[0]: u64 index of the sample ID in a
				 * SAMPLE / from the end of a sample_id; -1 none */
	struct pd_idmap *ids;
	size_t nr_ids, alloc_ids;
	struct pd_htab id_tab;

	enum phase phase;
	uint64_t pos, end;	/* current section of the current file */
	uint64_t feat_pos, feat_end;
	unsigned file;		/* current file: 0 header file, n data.N */
	char **names;		/* [0] = path of the header file, then data.N */
	uint64_t *sizes;
	size_t nr_names;
	uint64_t data_bytes;

	const struct zstd_dl *zl;
	ZSTD_DStream *zds;
	int zinit;		/* the stream of this file has begun */
	ZSTD_inBuffer zin;	/* the COMPRESSED payload being decompressed */
	int zactive, zfinal;
	uint64_t zoff;		/* offset of that COMPRESSED record */
	unsigned char *dbuf;
	size_t dlen, dpos;
	uint64_t dskip;		/* payload left to skip in the stream */
	uint64_t decompressed;

	int failed;		/* sticky error */
	char where[128];	/* sect_name() */
};

static void __attribute__((format(printf, 2, 3)))
seterr(struct pd_reader *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->err || !r->errsz)
		return;
	va_start(ap, fmt);
	vsnprintf(r->err, r->errsz, fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------- attrs and ids */

static uint64_t id_hash(const void *ctx, uint32_t idx)
{
	return sl_mix64(((const struct pd_reader *)ctx)->ids[idx].id);
}

static int id_eq(const void *ctx, uint32_t idx, const void *key)
{
	return ((const struct pd_reader *)ctx)->ids[idx].id == *(const uint64_t *)key;
}

/* sample ID -> attr index; the first mapping of an ID wins */
static int id_add(struct pd_reader *r, uint64_t id, uint32_t attr)
{
	uint64_t h = sl_mix64(id);

	if (pd_htab_get(&r->id_tab, h, id_eq, r, &id) != PD_HTAB_EMPTY)
		return 0;
	if (r->nr_ids >= UINT32_MAX - 1 ||
	    pd_grow((void **)&r->ids, &r->alloc_ids, r->nr_ids + 1, sizeof(*r->ids)) < 0)
		return -ENOMEM;
	r->ids[r->nr_ids].id = id;
	r->ids[r->nr_ids].attr = attr;
	if (pd_htab_add(&r->id_tab, h, (uint32_t)r->nr_ids, id_hash, r) < 0)
		return -ENOMEM;
	r->nr_ids++;
	return 0;
}

long pd_attr_of_id(const struct pd_reader *r, uint64_t id)
{
	uint32_t i = pd_htab_get(&r->id_tab, sl_mix64(id), id_eq, r, &id);

	return i == PD_HTAB_EMPTY ? -1 : (long)r->ids[i].attr;
}

/*
 * perf_event_attr fields (uapi): type u32 @0, size u32 @4, config @8,
 * sample_period @16, sample_type @24, read_format @32, flags @40
 * (sample_id_all bit 18), branch_sample_type @72 (VER2), sample_regs_user
 * @80, sample_stack_user u32 @88 (VER3), sample_regs_intr @96 (VER4).
 * @asz >= 64 bytes are readable at @e.
 */
static void parse_attr(const unsigned char *e, size_t asz, struct pd_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->type = rd32(e);
	a->size = (uint32_t)asz;
	a->config = rd64(e + 8);
	a->sample_period = rd64(e + 16);
	a->sample_type = rd64(e + 24);
	a->read_format = rd64(e + 32);
	a->flags = rd64(e + 40);
	a->sample_id_all = (a->flags >> 18) & 1;
	if (asz >= 80)
		a->branch_sample_type = rd64(e + 72);
	if (asz >= 96) {
		a->sample_regs_user = rd64(e + 80);
		a->sample_stack_user = rd32(e + 88);
	}
	if (asz >= 104)
		a->sample_regs_intr = rd64(e + 96);
}

/* ID positions of the first attr (perf: evsel__calc_id_pos, _is_pos; the
 * evlist takes them from its first evsel). */
static void set_id_pos(struct pd_reader *r)
{
	uint64_t st = r->attrs[0].sample_type;

	if (st & PERF_SAMPLE_IDENTIFIER)
		r->id_pos = 0;
	else if (st & PERF_SAMPLE_ID)
		r->id_pos = !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
			    !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR);
	else
		r->id_pos = -1;
	if (st & PERF_SAMPLE_IDENTIFIER)
		r->is_pos = 1;
	else if (st & PERF_SAMPLE_ID)
		r->is_pos = 1 + !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_STREAM_ID);
	else
		r->is_pos = -1;
}

static struct pd_attr *attr_new(struct pd_reader *r)
{
	if (r->nr_attrs >= PD_MAX_ATTRS ||
	    pd_grow((void **)&r->attrs, &r->alloc_attrs, r->nr_attrs + 1, sizeof(*r->attrs)) < 0)
		return NULL;
	return &r->attrs[r->nr_attrs++];
}

/* File-mode attrs section: perf_file_attr { attr (attr_size - 16 bytes);
 * perf_file_section ids; } x n. */
static int read_attrs(struct pd_reader *r, uint64_t attr_size, uint64_t off, uint64_t size)
{
	uint64_t i, n;
	int rc = 0;

	if (attr_size < 16 + PD_ATTR_SIZE_VER0 || attr_size > 65536) {
		seterr(r, "unsupported attr_size %" PRIu64, attr_size);
		return attr_size < 16 + PD_ATTR_SIZE_VER0 ? -EINVAL : -ENOTSUP;
	}
	n = size / attr_size;
	if (n == 0 || n > PD_MAX_ATTRS) {
		seterr(r, "bad attrs section (size %" PRIu64 ", attr_size %" PRIu64 ")", size, attr_size);
		return -EINVAL;
	}
	r->attrs = calloc((size_t)n, sizeof(*r->attrs));
	if (!r->attrs)
		return -ENOMEM;
	r->alloc_attrs = (size_t)n;
	for (i = 0; i < n; i++) {
		uint64_t pos = off + i * attr_size, asz = attr_size - 16, j, ids_off, ids_size;
		const unsigned char *e = win_get(&r->win, pos, (size_t)attr_size, UINT64_MAX, &rc);

		if (!e) {
			seterr(r, "attr %" PRIu64 " at offset %#" PRIx64 " past end of file", i, pos);
			return rc;
		}
		parse_attr(e, (size_t)asz, &r->attrs[i]);
		r->nr_attrs++;
		ids_off = rd64(e + asz);
		ids_size = rd64(e + asz + 8);
		if (ids_size > r->win.fsize || ids_off > r->win.fsize - ids_size) {
			seterr(r, "ids of attr %" PRIu64 " past end of file", i);
			return -EINVAL;
		}
		/* the window is reused below: e is dead from here on */
		for (j = 0; j + 8 <= ids_size; j += 8) {
			const unsigned char *v = win_get(&r->win, ids_off + j, 8, UINT64_MAX, &rc);

			if (!v)
				return rc;
			if ((rc = id_add(r, rd64(v), (uint32_t)i)) < 0)
				return rc;
		}
	}
	set_id_pos(r);
	return 0;
}

/* HEADER_ATTR (header.c perf_event__process_attr): { header; attr
 * (attr.size bytes); u64 id[] to the end of the record }. */
static int do_header_attr(struct pd_reader *r, const unsigned char *p, size_t size,
			  struct pd_record *rec)
{
	uint32_t asz;
	size_t i;
	struct pd_attr *a;
	int rc;

	if (size < 8 + PD_ATTR_SIZE_VER0)
		goto bad;
	asz = rd32(p + 8 + 4);
	if (asz < PD_ATTR_SIZE_VER0 || asz > size - 8)
		goto bad;
	if (!(a = attr_new(r)))
		return -ENOMEM;
	parse_attr(p + 8, asz, a);
	if (r->nr_attrs == 1)
		set_id_pos(r);
	for (i = 8 + asz; i + 8 <= size; i += 8)
		if ((rc = id_add(r, rd64(p + i), (uint32_t)(r->nr_attrs - 1))) < 0)
			return rc;
	rec->kind = PD_K_ATTR;
	rec->attr.attr = a;
	rec->attr.idx = (uint32_t)(r->nr_attrs - 1);
	return 0;
bad:
	seterr(r, "HEADER_ATTR record at offset %#" PRIx64 " has a bad attr size", rec->offset);
	return -EINVAL;
}

/* ------------------------------------------------------------- samples */

/*
 * Parse a SAMPLE. The attr: the first one, or with several attrs the one
 * the sample ID at id_pos names (id 0 = synthesized: the first; perf 6.1
 * evlist__event2evsel).
 */
static void parse_sample(const struct pd_reader *r, const unsigned char *p, size_t size,
			 uint16_t misc, struct pd_sample *s)
{
	const unsigned char *q = p + 8, *end = p + size;
	const struct pd_attr *a;
	uint64_t st, nr;
	uint32_t idx = 0;

	memset(s, 0, sizeof(*s));
	s->pid = s->tid = -1;
	s->cpu = UINT32_MAX;
	s->cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (r->nr_attrs > 1 && r->id_pos >= 0 && (size_t)(end - q) >= 8 * (size_t)(r->id_pos + 1)) {
		uint64_t id = rd64(q + 8 * r->id_pos);

		if (id != 0) {
			long k = pd_attr_of_id(r, id);

			if (k < 0)
				s->id_unknown = 1;
			else
				idx = (uint32_t)k;
		}
	}
	a = &r->attrs[idx];
	s->attr = a;
	s->attr_idx = idx;
	st = a->sample_type;

#define NEED(n, bit) do { \
	if ((uint64_t)(end - q) < (uint64_t)(n)) { s->broken = (bit); return; } \
} while (0)
#define U64(bit, field) do { \
	if (st & (bit)) { NEED(8, bit); s->field = rd64(q); q += 8; s->have |= (bit); } \
} while (0)
	U64(PERF_SAMPLE_IDENTIFIER, id);
	U64(PERF_SAMPLE_IP, ip);
	if (st & PERF_SAMPLE_TID) {
		NEED(8, PERF_SAMPLE_TID);
		s->pid = (int32_t)rd32(q);
		s->tid = (int32_t)rd32(q + 4);
		q += 8;
		s->have |= PERF_SAMPLE_TID;
	}
	U64(PERF_SAMPLE_TIME, time);
	U64(PERF_SAMPLE_ADDR, addr);
	U64(PERF_SAMPLE_ID, id);
	U64(PERF_SAMPLE_STREAM_ID, stream_id);
	if (st & PERF_SAMPLE_CPU) {
		NEED(8, PERF_SAMPLE_CPU);
		s->cpu = rd32(q);
		s->cpu_res = rd32(q + 4);
		q += 8;
		s->have |= PERF_SAMPLE_CPU;
	}
	U64(PERF_SAMPLE_PERIOD, period);
	if (st & PERF_SAMPLE_READ) {
		/* struct read_format (uapi): GROUP: { nr; [time_enabled];
		 * [time_running]; { value; [id]; [lost]; } [nr] }, else
		 * { value; [time_enabled]; [time_running]; [id]; [lost]; } */
		uint64_t rf = a->read_format;
		const unsigned char *start = q;

		if (rf & PERF_FORMAT_GROUP) {
			uint64_t per = 8 + (rf & PERF_FORMAT_ID ? 8 : 0) + (rf & PERF_FORMAT_LOST ? 8 : 0);

			NEED(8, PERF_SAMPLE_READ);
			nr = rd64(q);
			q += 8;
			if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) { NEED(8, PERF_SAMPLE_READ); q += 8; }
			if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) { NEED(8, PERF_SAMPLE_READ); q += 8; }
			if (nr > (uint64_t)(end - q) / per) {
				s->broken = PERF_SAMPLE_READ;
				return;
			}
			q += nr * per;
		} else {
			uint64_t n = 8 * (1 + !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
					  !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING) +
					  !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST));

			NEED(n, PERF_SAMPLE_READ);
			q += n;
			nr = 1;
		}
		s->read.nr = nr;
		s->read.data = start;
		s->read.size = (size_t)(q - start);
		s->have |= PERF_SAMPLE_READ;
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		NEED(8, PERF_SAMPLE_CALLCHAIN);
		nr = rd64(q);
		q += 8;
		if (nr > (uint64_t)(end - q) / 8) {
			s->broken = PERF_SAMPLE_CALLCHAIN;
			return;
		}
		s->callchain_nr = nr;
		s->callchain = q;
		q += nr * 8;
		s->have |= PERF_SAMPLE_CALLCHAIN;
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t rsz;

		NEED(4, PERF_SAMPLE_RAW);
		rsz = rd32(q);
		NEED(4 + (uint64_t)rsz, PERF_SAMPLE_RAW);
		s->raw_size = rsz;
		s->raw = q + 4;
		q += 4 + (size_t)rsz;
		s->have |= PERF_SAMPLE_RAW;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		NEED(8, PERF_SAMPLE_BRANCH_STACK);
		nr = rd64(q);
		q += 8;
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) {
			NEED(8, PERF_SAMPLE_BRANCH_STACK);
			s->branch_has_hw_idx = 1;
			s->branch_hw_idx = rd64(q);
			q += 8;
		}
		if (nr > (uint64_t)(end - q) / 24) {
			s->broken = PERF_SAMPLE_BRANCH_STACK;
			return;
		}
		s->branch_nr = nr;
		s->branch = q;
		q += nr * 24;
		s->have |= PERF_SAMPLE_BRANCH_STACK;
	}
#define REGS(bit, R, m) do { \
	if (st & (bit)) { \
		NEED(8, bit); \
		s->R.abi = rd64(q); \
		q += 8; \
		s->R.mask = (m); \
		if (s->R.abi) { \
			unsigned k_ = (unsigned)__builtin_popcountll(m); \
			NEED(8 * (uint64_t)k_, bit); \
			s->R.nr = k_; \
			s->R.regs = k_ ? q : NULL; \
			q += 8 * (size_t)k_; \
		} \
		s->have |= (bit); \
	} \
} while (0)
	REGS(PERF_SAMPLE_REGS_USER, user_regs, a->sample_regs_user);
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t sz;

		NEED(8, PERF_SAMPLE_STACK_USER);
		sz = rd64(q);
		q += 8;
		if (sz) {
			NEED(sz, PERF_SAMPLE_STACK_USER);
			s->user_stack.data = q;
			q += sz;
			NEED(8, PERF_SAMPLE_STACK_USER);
			s->user_stack.dyn_size = rd64(q);
			q += 8;
			if (s->user_stack.dyn_size > sz) {	/* "user stack dump failure" */
				s->user_stack.data = NULL;
				s->user_stack.dyn_size = 0;
				s->broken = PERF_SAMPLE_STACK_USER;
				return;
			}
		}
		s->user_stack.size = sz;
		s->have |= PERF_SAMPLE_STACK_USER;
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		NEED(8, st & PERF_SAMPLE_WEIGHT ? PERF_SAMPLE_WEIGHT : PERF_SAMPLE_WEIGHT_STRUCT);
		s->weight = rd64(q);
		q += 8;
		s->have |= st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT);
	}
	U64(PERF_SAMPLE_DATA_SRC, data_src);
	U64(PERF_SAMPLE_TRANSACTION, transaction);
	REGS(PERF_SAMPLE_REGS_INTR, intr_regs, a->sample_regs_intr);
	U64(PERF_SAMPLE_PHYS_ADDR, phys_addr);
	U64(PERF_SAMPLE_CGROUP, cgroup);
	U64(PERF_SAMPLE_DATA_PAGE_SIZE, data_page_size);
	U64(PERF_SAMPLE_CODE_PAGE_SIZE, code_page_size);
	if (st & PERF_SAMPLE_AUX) {
		uint64_t sz;

		NEED(8, PERF_SAMPLE_AUX);
		sz = rd64(q);
		q += 8;
		NEED(sz, PERF_SAMPLE_AUX);
		s->aux.size = sz;
		s->aux.data = q;
		s->have |= PERF_SAMPLE_AUX;
	}
#undef REGS
#undef U64
#undef NEED
}

/* sample_id trailer of a non-SAMPLE kernel record, parsed from the end. */
static void parse_sample_id(const struct pd_reader *r, const unsigned char *p, size_t size,
			    struct pd_sample_id *sid)
{
	const struct pd_attr *a;
	size_t n = (size - 8) / 8, k;
	uint64_t st;

	memset(sid, 0, sizeof(*sid));
	sid->pid = sid->tid = -1;
	sid->cpu = UINT32_MAX;
	if (!r->nr_attrs || !r->attrs[0].sample_id_all)
		return;
	a = &r->attrs[0];
	if (r->nr_attrs > 1 && r->is_pos > 0) {
		uint64_t id;

		if ((size_t)r->is_pos > n)
			return;
		id = rd64(p + 8 + 8 * (n - (size_t)r->is_pos));
		if (id) {
			long i = pd_attr_of_id(r, id);

			if (i < 0)
				return;
			a = &r->attrs[i];
		}
	}
	if (!a->sample_id_all)
		return;
	st = a->sample_type;
	k = !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ID) +
	    !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU) +
	    !!(st & PERF_SAMPLE_IDENTIFIER);
	if (k > n)
		return;
	p += 8 + 8 * (n - k);	/* the trailer: k u64 in uapi order */
	if (st & PERF_SAMPLE_TID) {
		sid->pid = (int32_t)rd32(p);
		sid->tid = (int32_t)rd32(p + 4);
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) { sid->time = rd64(p); p += 8; }
	if (st & PERF_SAMPLE_ID) { sid->id = rd64(p); p += 8; }
	if (st & PERF_SAMPLE_STREAM_ID) { sid->stream_id = rd64(p); p += 8; }
	if (st & PERF_SAMPLE_CPU) { sid->cpu = rd32(p); p += 8; }
	if (st & PERF_SAMPLE_IDENTIFIER)
		sid->id = rd64(p);
	sid->have = st & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);
	sid->valid = 1;
}

/* ------------------------------------------------------------- records */

/* A HEADER_BUILD_ID entry of @size >= 36 bytes at @p (record or feature
 * section entry: the same layout, see struct pd_build_id). */
static void fill_build_id(struct pd_record *rec, const unsigned char *p, size_t size)
{
	uint16_t misc = rd16(p + 4);

	rec->kind = PD_K_BUILD_ID;
	rec->build_id.pid = (int32_t)rd32(p + 8);
	rec->build_id.cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	rec->build_id.build_id = p + 12;
	rec->build_id.size = misc & PD_MISC_BUILD_ID_SIZE ? p[32] : 20;
	rec->build_id.filename = (const char *)p + 36;
	rec->build_id.filename_max = size - 36;
}

/* Fill @rec from the complete record at @p. 0 or -errno. */
static int decode(struct pd_reader *r, const unsigned char *p, size_t size, struct pd_record *rec)
{
	uint32_t type = rd32(p);
	uint16_t misc = rd16(p + 4);

	rec->type = type;
	rec->misc = misc;
	rec->size = (uint16_t)size;
	rec->kind = PD_K_OTHER;
	rec->bytes = p;
	rec->payload = 0;
	memset(&rec->sid, 0, sizeof(rec->sid));
	if (type >= 1 && type < PERF_RECORD_MAX && type != PERF_RECORD_SAMPLE)
		parse_sample_id(r, p, size, &rec->sid);
	switch (type) {
	case PERF_RECORD_SAMPLE:
		if (!r->nr_attrs) {
			seterr(r, "SAMPLE record at offset %#" PRIx64 " before any attr (HEADER_ATTR)",
			       rec->offset);
			return -EINVAL;
		}
		rec->kind = PD_K_SAMPLE;
		parse_sample(r, p, size, misc, &rec->sample);
		return 0;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		struct pd_mmap *m = &rec->mmap;
		size_t fo = type == PERF_RECORD_MMAP ? 40 : 72;

		if (size < fo)
			goto short_rec;
		memset(m, 0, sizeof(*m));
		rec->kind = PD_K_MMAP;
		m->pid = (int32_t)rd32(p + 8);
		m->tid = (int32_t)rd32(p + 12);
		m->start = rd64(p + 16);
		m->len = rd64(p + 24);
		m->pgoff = rd64(p + 32);
		if (type == PERF_RECORD_MMAP2) {
			m->is_mmap2 = 1;
			if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
				m->build_id_size = p[40];
				m->build_id = p + 44;
			} else {
				m->maj = rd32(p + 40);
				m->min = rd32(p + 44);
				m->ino = rd64(p + 48);
				m->ino_generation = rd64(p + 56);
			}
			m->prot = rd32(p + 64);
			m->flags = rd32(p + 68);
		}
		m->filename = (const char *)p + fo;
		m->filename_max = size - fo;
		return 0;
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (size < 24) {
			if (type == PERF_RECORD_FORK)
				goto short_rec;
			return 0;	/* a short EXIT names no thread */
		}
		rec->kind = type == PERF_RECORD_FORK ? PD_K_FORK : PD_K_EXIT;
		rec->fork.pid = (int32_t)rd32(p + 8);
		rec->fork.ppid = (int32_t)rd32(p + 12);
		rec->fork.tid = (int32_t)rd32(p + 16);
		rec->fork.ptid = (int32_t)rd32(p + 20);
		rec->fork.time = size >= 32 ? rd64(p + 24) : 0;
		return 0;
	case PERF_RECORD_COMM:
		if (size < 24)
			return 0;
		rec->kind = PD_K_COMM;
		rec->comm.pid = (int32_t)rd32(p + 8);
		rec->comm.tid = (int32_t)rd32(p + 12);
		rec->comm.comm = (const char *)p + 16;
		rec->comm.comm_max = size - 16;
		return 0;
	case PD_REC_HEADER_ATTR:
		return do_header_attr(r, p, size, rec);
	case PD_REC_HEADER_BUILD_ID:
		if (size >= 36)
			fill_build_id(rec, p, size);
		return 0;
	case PD_REC_TRACING_DATA:
		/* { header; u32 size; } then size bytes of tracing data
		 * (header.c perf_event__process_tracing_data) */
		if (size < 12)
			goto short_rec;
		rec->payload = rd32(p + 8);
		return 0;
	case PD_REC_ID_INDEX: {
		/* { header; u64 nr; { u64 id, idx, cpu, tid; } [nr]; } */
		uint64_t nr, i;
		int rc;

		if (size < 16)
			goto short_rec;
		nr = rd64(p + 8);
		if (nr > (size - 16) / 32)
			goto short_rec;
		for (i = 0; i < nr; i++) {
			const unsigned char *e = p + 16 + 32 * i;
			uint64_t idx = rd64(e + 8);

			if (idx < r->nr_attrs && (rc = id_add(r, rd64(e), (uint32_t)idx)) < 0)
				return rc;
		}
		return 0;
	}
	case PD_REC_AUXTRACE:
		/* { header; u64 size, offset, reference; u32 idx, tid, cpu,
		 * reserved; } followed by `size` bytes not in header.size */
		if (size < 16)
			goto short_rec;
		rec->payload = rd64(p + 8);
		return 0;
	case PD_REC_COMPRESSED:
	case PD_REC_COMPRESSED2:
		if (rec->in_compressed) {
			seterr(r, "COMPRESSED record nested in a compressed stream (offset %#" PRIx64 ")",
			       rec->offset);
			return -EINVAL;
		}
		if (type == PD_REC_COMPRESSED2 && (size < 16 || rd64(p + 8) > size - 16))
			goto short_rec;
		return 0;
	default:
		return 0;
	}
short_rec:
	seterr(r, "record type %u at offset %#" PRIx64 " is too short (%zu bytes)", type,
	       rec->offset, size);
	return -EINVAL;
}

/* ---------------------------------------------------------------- zstd */

/* Begin decompressing the COMPRESSED record just yielded (@p, @size). */
static int z_begin(struct pd_reader *r, const unsigned char *p, size_t size, uint64_t off)
{
	if (!r->zds) {
		if (!(r->zl = zstd_dl_load())) {
			seterr(r, "COMPRESSED records but libzstd.so.1 cannot be loaded");
			return -ENOTSUP;
		}
		r->zds = r->zl->createDStream();
		r->dbuf = malloc(PD_DBUF);
		if (!r->zds || !r->dbuf)
			return -ENOMEM;
	}
	if (!r->zinit) {
		r->zl->initDStream(r->zds);
		r->zinit = 1;
	}
	if (rd32(p) == PD_REC_COMPRESSED2) {
		r->zin.src = p + 16;
		r->zin.size = (size_t)rd64(p + 8);
	} else {
		r->zin.src = p + 8;
		r->zin.size = size - 8;
	}
	r->zin.pos = 0;
	r->zactive = 1;
	r->zfinal = 0;
	r->zoff = off;
	return 0;
}

/*
 * The next complete record of the stream into @rec: 1, or 0 once the
 * payload is used up and zstd has no output pending (a partial record
 * waits for the next payload), or -errno.
 */
static int z_next(struct pd_reader *r, struct pd_record *rec)
{
	for (;;) {
		size_t avail = r->dlen - r->dpos;

		if (r->dskip) {
			size_t take = avail < r->dskip ? avail : (size_t)r->dskip;

			r->dpos += take;
			r->dskip -= take;
			avail -= take;
		}
		if (!r->dskip && avail >= 8) {
			uint16_t sz = rd16(r->dbuf + r->dpos + 6);
			int rc;

			if (sz < 8) {
				seterr(r, "record with size %u < 8 in compressed stream (COMPRESSED record at offset %#" PRIx64 ")",
				       sz, r->zoff);
				return -EINVAL;
			}
			if (avail >= sz) {
				rec->file = r->file;
				rec->offset = r->zoff;
				rec->in_compressed = 1;
				rec->in_feature = 0;
				if ((rc = decode(r, r->dbuf + r->dpos, sz, rec)) < 0)
					return rc;
				r->dpos += sz;
				r->dskip = rec->payload;
				return 1;
			}
		}
		if (r->zfinal) {
			r->zactive = 0;
			return 0;
		}
		/* keep the incomplete tail, decompress more after it */
		if (r->dpos) {
			memmove(r->dbuf, r->dbuf + r->dpos, r->dlen - r->dpos);
			r->dlen -= r->dpos;
			r->dpos = 0;
		}
		{
			ZSTD_outBuffer ob = { r->dbuf + r->dlen, PD_DBUF - r->dlen, 0 };
			size_t z = r->zl->decompressStream(r->zds, &ob, &r->zin);

			if (r->zl->isError(z)) {
				seterr(r, "zstd error in COMPRESSED record at offset %#" PRIx64 ": %s",
				       r->zoff, r->zl->getErrorName(z));
				return -EINVAL;
			}
			r->dlen += ob.pos;
			r->decompressed += ob.pos;
			/* done when all input is consumed and zstd had room to
			 * spare (a full output buffer may mean more is pending) */
			if (r->zin.pos == r->zin.size && (ob.pos < ob.size || ob.pos == 0))
				r->zfinal = 1;
		}
	}
}

/* End of one file's stream: nothing may be left half-way. */
static int z_end_file(struct pd_reader *r)
{
	if (r->dlen - r->dpos || r->dskip) {
		seterr(r, "compressed stream ends inside a record (%zu bytes left)", r->dlen - r->dpos);
		return -EINVAL;
	}
	r->dlen = r->dpos = 0;
	r->zinit = 0;		/* the next file's payloads are a new stream */
	return 0;
}

/* ------------------------------------------------------------ features */

/*
 * Locate feature @bit: the feature table follows the data section, one
 * perf_file_section {u64 offset, size} per set bit of adds_features, in bit
 * order. 1 with the section in *@off and *@size, 0 if absent or the table is unreadable
 * (perf would fail on its own), <0 on read errors.
 */
static int feat_section(struct pd_reader *r, const unsigned char *bits, uint64_t tab,
			unsigned bit, uint64_t *off, uint64_t *size)
{
	const unsigned char *e;
	unsigned b, idx = 0;
	int rc = 0;

	if (!(bits[bit / 8] & (1u << (bit % 8))))
		return 0;
	for (b = 0; b < bit; b++)
		if (bits[b / 8] & (1u << (b % 8)))
			idx++;
	e = win_get(&r->win, tab + 16 * (uint64_t)idx, 16, UINT64_MAX, &rc);
	if (!e)
		return rc == -EINVAL ? 0 : rc;
	*off = rd64(e);
	*size = rd64(e + 8);
	return 1;
}

/* The next HEADER_BUILD_ID feature entry. Malformed sections end the list
 * silently (perf falls back to reading build-ids from the files). */
static int feat_next(struct pd_reader *r, struct pd_record *rec)
{
	while (r->feat_end - r->feat_pos >= 36) {
		const unsigned char *e;
		uint16_t sz;
		int rc = 0;

		e = win_get(&r->win, r->feat_pos, 8, r->feat_end, &rc);
		if (!e)
			return rc == -EINVAL ? 0 : rc;
		sz = rd16(e + 6);
		if (sz < 36 || sz > r->feat_end - r->feat_pos)
			return 0;
		e = win_get(&r->win, r->feat_pos, sz, r->feat_end, &rc);
		if (!e)
			return rc == -EINVAL ? 0 : rc;
		rec->file = 0;
		rec->offset = r->feat_pos;
		rec->in_compressed = 0;
		rec->in_feature = 1;
		r->feat_pos += sz;
		memset(&rec->sid, 0, sizeof(rec->sid));
		rec->type = PD_REC_HEADER_BUILD_ID;	/* entries carry type 0 */
		rec->misc = rd16(e + 4);
		rec->size = sz;
		rec->bytes = e;
		rec->payload = 0;
		fill_build_id(rec, e, sz);
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------ the walk */

/* Open the next non-empty data.N file as the current section; 0 at the end. */
static int next_file(struct pd_reader *r)
{
	int rc;

	while (r->file + 1 < r->nr_names) {
		int fd;
		struct stat st;

		r->file++;
		if (!r->sizes[r->file])
			continue;	/* perf makes no reader for an empty file */
		fd = openat(r->dirfd, strrchr(r->names[r->file], '/') + 1,
			    O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			rc = fd < 0 ? -errno : -EINVAL;
			seterr(r, "%s: %s", r->names[r->file], fd < 0 ? strerror(errno) : "not a regular file");
			if (fd >= 0)
				close(fd);
			return rc;
		}
		close(r->win.fd);
		if ((rc = win_reset(&r->win, fd, (uint64_t)st.st_size)) < 0) {
			close(fd);
			r->win.fd = -1;
			return rc;
		}
#ifdef POSIX_FADV_SEQUENTIAL
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
		r->pos = 0;
		r->end = (uint64_t)st.st_size;
		return 1;
	}
	return 0;
}

/* "the data section" (file mode), else "the end of <file>" */
static const char *sect_name(struct pd_reader *r)
{
	const char *n;

	if (r->mode == PD_MODE_FILE || (r->mode == PD_MODE_DIR && r->file == 0))
		return "the data section";
	n = strrchr(r->names[r->file], '/');
	snprintf(r->where, sizeof(r->where), "the end of %.100s", r->mode == PD_MODE_DIR && n ? n + 1 : "the file");
	return r->where;
}

static int next_record(struct pd_reader *r, struct pd_record *rec)
{
	int rc = 0;

	for (;;) {
		const unsigned char *p;
		uint16_t size;

		if (r->phase == PH_FEATURE) {
			if ((rc = feat_next(r, rec)) != 0)
				return rc;
			r->phase = PH_DATA;
		}
		if (r->phase == PH_END)
			return 0;
		if (r->zactive) {
			if ((rc = z_next(r, rec)) != 0)
				return rc;
		}
		if (r->pos >= r->end) {
			if (r->zinit && (rc = z_end_file(r)) < 0)
				return rc;
			if (r->mode == PD_MODE_DIR && (rc = next_file(r)) != 0) {
				if (rc < 0)
					return rc;
				continue;
			}
			r->phase = PH_END;
			return 0;
		}
		if (r->end - r->pos < 8) {
			seterr(r, "record header at offset %#" PRIx64 " runs past %s", r->pos, sect_name(r));
			return -EINVAL;
		}
		p = win_get(&r->win, r->pos, 8, r->end, &rc);
		if (!p)
			goto io;
		size = rd16(p + 6);
		if (size < 8) {
			seterr(r, "record at offset %#" PRIx64 " has size %u < 8", r->pos, size);
			return -EINVAL;
		}
		if (size > r->end - r->pos) {
			seterr(r, "record at offset %#" PRIx64 " (type %u, size %u) runs past %s",
			       r->pos, rd32(p), size, sect_name(r));
			return -EINVAL;
		}
		p = win_get(&r->win, r->pos, size, r->end, &rc);
		if (!p)
			goto io;
		rec->file = r->file;
		rec->offset = r->pos;
		rec->in_compressed = 0;
		rec->in_feature = 0;
		if ((rc = decode(r, p, size, rec)) < 0)
			return rc;
		r->pos += size;
		if (rec->payload) {
			if (rec->payload > r->end - r->pos) {
				seterr(r, "%s payload at offset %#" PRIx64 " runs past %s",
				       rec->type == PD_REC_AUXTRACE ? "AUXTRACE" : "TRACING_DATA",
				       r->pos, sect_name(r));
				return -EINVAL;
			}
			r->pos += rec->payload;
		}
		if (rec->type == PD_REC_COMPRESSED || rec->type == PD_REC_COMPRESSED2) {
			/* p stays valid: the window is not read until the
			 * payload is used up */
			if ((rc = z_begin(r, p, size, rec->offset)) < 0)
				return rc;
		}
		return 1;
	}
io:
	if (rc == -EINVAL)
		seterr(r, "file ends inside the record at offset %#" PRIx64, r->pos);
	else
		seterr(r, "read error at offset %#" PRIx64 ": %s", r->pos, strerror(-rc));
	return rc;
}

int pd_next(struct pd_reader *r, struct pd_record *rec)
{
	int rc;

	if (r->failed)
		return r->failed;
	rc = next_record(r, rec);
	if (rc < 0) {
		if (rc == -ENOMEM && r->err && r->errsz)
			seterr(r, "out of memory");
		r->failed = rc;
	}
	return rc;
}

/* ---------------------------------------------------------------- open */

static int cmp_name(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* DIR/data.N regular files (util/data.c perf_data__open_dir), sorted. */
static int list_dir(struct pd_reader *r, const char *dir)
{
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, alloc = 0, i;
	int fd, rc = 0;

	fd = dup(r->dirfd);
	if (fd < 0 || !(d = fdopendir(fd))) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		seterr(r, "%s: %s", dir, strerror(-rc));
		return rc;
	}
	rewinddir(d);
	while ((de = readdir(d)) != NULL) {
		struct stat st;

		if (strncmp(de->d_name, "data.", 5) ||
		    fstatat(r->dirfd, de->d_name, &st, 0) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (n >= PD_MAX_FILES) {
			seterr(r, "%s: more than %u data.* files", dir, PD_MAX_FILES);
			rc = -EINVAL;
			break;
		}
		if (pd_grow((void **)&names, &alloc, n + 1, sizeof(*names)) < 0 ||
		    !(names[n] = strdup(de->d_name))) {
			rc = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (!rc) {
		char **nn;
		uint64_t *ns;

		qsort(names, n, sizeof(*names), cmp_name);
		nn = realloc(r->names, (1 + n) * sizeof(*nn));
		if (nn)
			r->names = nn;
		ns = realloc(r->sizes, (1 + n) * sizeof(*ns));
		if (ns)
			r->sizes = ns;
		if (!nn || !ns)
			rc = -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct stat st;
		size_t len = strlen(dir) + strlen(names[i]) + 2;

		if (!rc && !(r->names[1 + i] = malloc(len)))
			rc = -ENOMEM;
		if (!rc) {
			snprintf(r->names[1 + i], len, "%s/%s", dir, names[i]);
			r->sizes[1 + i] = fstatat(r->dirfd, names[i], &st, 0) == 0 ?
					  (uint64_t)st.st_size : 0;
			r->data_bytes += r->sizes[1 + i];
			r->nr_names = 2 + i;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

static int open_header(struct pd_reader *r, const char *path, enum pd_unsupported *why)
{
	const unsigned char *h;
	uint64_t magic, hsize, attr_size, a_off, a_size, d_off, d_size, off = 0, size = 0;
	unsigned char feat[32];
	int rc = 0;

	h = win_get(&r->win, 0, PD_PIPE_HDR_SIZE, UINT64_MAX, &rc);
	if (!h) {
		seterr(r, "%s: too short for a perf.data header", path);
		return rc;
	}
	magic = rd64(h);
	hsize = rd64(h + 8);
	if (magic == PD_MAGIC_SWAPPED) {
		seterr(r, "%s: foreign-endian perf.data is not supported", path);
		*why = PD_UNSUP_FOREIGN_ENDIAN;
		return -ENOTSUP;
	}
	if (magic != PD_MAGIC) {
		seterr(r, "%s: %s", path, magic == PD_MAGIC_V1 ?
		       "old PERFFILE (v1) format is not supported" : "not a perf.data file (bad magic)");
		return -EINVAL;
	}
	if (hsize == PD_PIPE_HDR_SIZE) {
		/* a saved pipe stream: records from offset 16 to the end */
		r->mode = PD_MODE_PIPE;
		r->pos = PD_PIPE_HDR_SIZE;
		r->end = r->win.fsize;
		r->data_bytes = r->win.fsize - PD_PIPE_HDR_SIZE;
		r->phase = PH_DATA;
		return 0;
	}
	if (hsize < PD_FILE_HDR_SIZE) {
		seterr(r, "%s: bad header size %" PRIu64, path, hsize);
		return -EINVAL;
	}
	h = win_get(&r->win, 0, PD_FILE_HDR_SIZE, UINT64_MAX, &rc);
	if (!h) {
		seterr(r, "%s: truncated file header", path);
		return rc;
	}
	/* perf_file_header: magic, size, attr_size, attrs{off,size},
	 * data{off,size}, event_types{off,size}, adds_features[4] */
	attr_size = rd64(h + 16);
	a_off = rd64(h + 24);
	a_size = rd64(h + 32);
	d_off = rd64(h + 40);
	d_size = rd64(h + 48);
	memcpy(feat, h + 72, sizeof(feat));
	if (a_size > r->win.fsize || a_off > r->win.fsize - a_size) {
		seterr(r, "%s: attrs section past end of file", path);
		return -EINVAL;
	}
	if (d_size > r->win.fsize || d_off > r->win.fsize - d_size) {
		seterr(r, "%s: data section [%#" PRIx64 ", +%#" PRIx64 ") past end of file (%" PRIu64 " bytes): truncated?",
		       path, d_off, d_size, r->win.fsize);
		return -EINVAL;
	}
	if ((rc = read_attrs(r, attr_size, a_off, a_size)) < 0) {
		if (rc == -ENOTSUP)
			*why = PD_UNSUP_LAYOUT;
		return rc;
	}
	r->pos = d_off;
	r->end = d_off + d_size;
	r->data_bytes = d_size;
	r->phase = PH_FEATURE;
	rc = feat_section(r, feat, r->end, PD_FEAT_BUILD_ID, &off, &size);
	if (rc < 0)
		return rc;
	if (rc > 0 && off + size >= off && off + size <= r->win.fsize) {
		r->feat_pos = off;
		r->feat_end = off + size;
	}
	if (r->mode == PD_MODE_DIR) {
		const unsigned char *v;

		rc = feat_section(r, feat, r->end, PD_FEAT_DIR_FORMAT, &off, &size);
		if (rc < 0)
			return rc;
		if (rc == 0)	/* PERF_DIR_SINGLE_FILE: only DIR/data */
			return 0;
		v = size >= 8 ? win_get(&r->win, off, 8, UINT64_MAX, &rc) : NULL;
		if (!v || rd64(v) != PD_DIR_VERSION) {
			seterr(r, "%s: unsupported or unreadable DIR_FORMAT feature", path);
			return -EINVAL;
		}
		return list_dir(r, r->dir);
	}
	return 0;
}

int pd_open(struct pd_reader **rp, const char *path, enum pd_unsupported *why,
	    char *err, size_t errsz)
{
	struct pd_reader *r;
	struct stat st;
	enum pd_unsupported dummy;
	int fd, rc;

	*rp = NULL;
	if (!why)
		why = &dummy;
	*why = PD_UNSUP_NONE;
	if (err && errsz)
		err[0] = '\0';
	r = calloc(1, sizeof(*r));
	if (!r) {
		if (err && errsz)
			snprintf(err, errsz, "out of memory");
		return -ENOMEM;
	}
	r->err = err;
	r->errsz = errsz;
	r->dirfd = -1;
	r->win.fd = -1;
	r->mode = PD_MODE_FILE;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0) {
		rc = -errno;
		seterr(r, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		/* perf record --threads: DIR/data holds the header */
		r->mode = PD_MODE_DIR;
		r->dirfd = fd;
		r->dir = strdup(path);
		fd = openat(r->dirfd, "data", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (!r->dir || fd < 0 || fstat(fd, &st) < 0) {
			rc = !r->dir ? -ENOMEM : -errno;
			seterr(r, "%s/data: %s", path, strerror(-rc));
			if (fd >= 0)
				close(fd);
			goto fail;
		}
	}
	if (!S_ISREG(st.st_mode)) {
		seterr(r, "%s: not a regular file (pipe-mode data is not supported)", path);
		*why = PD_UNSUP_NOT_FILE;
		close(fd);
		rc = -ENOTSUP;
		goto fail;
	}
	r->names = calloc(1, sizeof(*r->names));
	r->sizes = calloc(1, sizeof(*r->sizes));
	if (!r->names || !r->sizes) {
		close(fd);
		rc = -ENOMEM;
		goto fail;
	}
	r->nr_names = 1;
	if (r->mode == PD_MODE_DIR) {
		size_t len = strlen(path) + sizeof("/data");

		if ((r->names[0] = malloc(len)) != NULL)
			snprintf(r->names[0], len, "%s/data", path);
	} else {
		r->names[0] = strdup(path);
	}
	r->sizes[0] = (uint64_t)st.st_size;
	if (!r->names[0] || (rc = win_reset(&r->win, fd, (uint64_t)st.st_size)) < 0) {
		close(fd);
		rc = -ENOMEM;
		goto fail;
	}
#ifdef POSIX_FADV_SEQUENTIAL
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	if ((rc = open_header(r, r->names[0], why)) < 0)
		goto fail;
	*rp = r;
	return 0;
fail:
	if (rc == -ENOMEM && err && errsz && !err[0])
		snprintf(err, errsz, "out of memory");
	pd_close(r);
	return rc;
}

void pd_close(struct pd_reader *r)
{
	size_t i;

	if (!r)
		return;
	if (r->win.fd >= 0)
		close(r->win.fd);
	if (r->dirfd >= 0)
		close(r->dirfd);
	free(r->win.buf);
	free(r->attrs);
	free(r->ids);
	pd_htab_free(&r->id_tab);
	for (i = 0; i < r->nr_names; i++)
		free(r->names[i]);
	free(r->names);
	free(r->sizes);
	free(r->dir);
	if (r->zds)
		r->zl->freeDStream(r->zds);
	free(r->dbuf);
	free(r);
}

enum pd_mode pd_mode(const struct pd_reader *r)
{
	return r->mode;
}

const struct pd_attr *pd_attrs(const struct pd_reader *r, size_t *nr)
{
	*nr = r->nr_attrs;
	return r->attrs;
}

const char *pd_file_name(const struct pd_reader *r, unsigned n)
{
	return n < r->nr_names ? r->names[n] : NULL;
}

uint64_t pd_data_bytes(const struct pd_reader *r)
{
	return r->data_bytes;
}

uint64_t pd_decompressed_bytes(const struct pd_reader *r)
{
	return r->decompressed;
}

int pd_probe(const char *path)
{
	struct stat st;
	unsigned char h[PD_PIPE_HDR_SIZE];
	int saved = errno, fd, dfd, ok = 0;

	if (stat(path, &st) < 0) {
		ok = 0;
	} else if (S_ISREG(st.st_mode)) {
		ok = PD_MODE_FILE;
	} else if (S_ISDIR(st.st_mode) &&
		   (dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		fd = openat(dfd, "data", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    pread(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h) && rd64(h) == PD_MAGIC &&
		    rd64(h + 8) >= PD_FILE_HDR_SIZE)
			ok = PD_MODE_DIR;
		if (fd >= 0)
			close(fd);
		close(dfd);
	}
	errno = saved;
	return ok;
}
