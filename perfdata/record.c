/* SPDX-License-Identifier: MIT */
/*
 * perfdata/record.c - decoding of perf.data attrs, samples and records
 * (the iterator: perfdata/record.h; its walk over files: perfdata/stream.c).
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
#include "perfdata/reader.h"

void __attribute__((format(printf, 2, 3)))
pd_seterr(struct pd_reader *r, const char *fmt, ...)
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
int pd_read_attrs(struct pd_reader *r, uint64_t attr_size, uint64_t off, uint64_t size)
{
	uint64_t i, n;
	int rc = 0;

	if (attr_size < 16 + PD_ATTR_SIZE_VER0 || attr_size > 65536) {
		pd_seterr(r, "unsupported attr_size %" PRIu64, attr_size);
		return attr_size < 16 + PD_ATTR_SIZE_VER0 ? -EINVAL : -ENOTSUP;
	}
	n = size / attr_size;
	if (n == 0 || n > PD_MAX_ATTRS) {
		pd_seterr(r, "bad attrs section (size %" PRIu64 ", attr_size %" PRIu64 ")", size, attr_size);
		return -EINVAL;
	}
	r->attrs = calloc((size_t)n, sizeof(*r->attrs));
	if (!r->attrs)
		return -ENOMEM;
	r->alloc_attrs = (size_t)n;
	for (i = 0; i < n; i++) {
		uint64_t pos = off + i * attr_size, asz = attr_size - 16, j, ids_off, ids_size;
		const unsigned char *e = pd_win_get(&r->win, pos, (size_t)attr_size, UINT64_MAX, &rc);

		if (!e) {
			pd_seterr(r, "attr %" PRIu64 " at offset %#" PRIx64 " past end of file", i, pos);
			return rc;
		}
		parse_attr(e, (size_t)asz, &r->attrs[i]);
		r->nr_attrs++;
		ids_off = rd64(e + asz);
		ids_size = rd64(e + asz + 8);
		if (ids_size > r->win.fsize || ids_off > r->win.fsize - ids_size) {
			pd_seterr(r, "ids of attr %" PRIu64 " past end of file", i);
			return -EINVAL;
		}
		/* the window is reused below: e is dead from here on */
		for (j = 0; j + 8 <= ids_size; j += 8) {
			const unsigned char *v = pd_win_get(&r->win, ids_off + j, 8, UINT64_MAX, &rc);

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
	pd_seterr(r, "HEADER_ATTR record at offset %#" PRIx64 " has a bad attr size", rec->offset);
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
void pd_fill_build_id(struct pd_record *rec, const unsigned char *p, size_t size)
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
int pd_decode(struct pd_reader *r, const unsigned char *p, size_t size, struct pd_record *rec)
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
			pd_seterr(r, "SAMPLE record at offset %#" PRIx64 " before any attr (HEADER_ATTR)",
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
			pd_fill_build_id(rec, p, size);
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
			pd_seterr(r, "COMPRESSED record nested in a compressed stream (offset %#" PRIx64 ")",
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
	pd_seterr(r, "record type %u at offset %#" PRIx64 " is too short (%zu bytes)", type,
	       rec->offset, size);
	return -EINVAL;
}
