/* SPDX-License-Identifier: MIT */
/*
 * test_perfdata.c - perfdata_read() on synthetic perf.data files built byte
 * by byte (layouts: perf.data-file-format.txt, uapi perf_event.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include <linux/perf_event.h>

#include "perfdata/unwind.h"
#include "perfdata/perfdata.h"

/* ---------------------------------------------------------- byte buffer */

struct buf {
	unsigned char *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	if (d)
		memcpy(b->p + b->len, d, n);
	else
		memset(b->p + b->len, 0, n);
	b->len += n;
}
static void put64(struct buf *b, uint64_t v) { put(b, &v, 8); }
static void put32(struct buf *b, uint32_t v) { put(b, &v, 4); }
static void put16(struct buf *b, uint16_t v) { put(b, &v, 2); }
static void put8(struct buf *b, uint8_t v) { put(b, &v, 1); }
static void pad8(struct buf *b) { while (b->len % 8) put8(b, 0); }
static void set16(struct buf *b, size_t at, uint16_t v) { memcpy(b->p + at, &v, 2); }
/* perf_event_header.size of the record starting at @at */
static void set_size(struct buf *b, size_t at, uint16_t v) { set16(b, at + 6, v); }

/* perf_event_header; returns the record start for fixing up the size */
static size_t rec_begin(struct buf *b, uint32_t type, uint16_t misc)
{
	size_t at = b->len;

	put32(b, type);
	put16(b, misc);
	put16(b, 0);
	return at;
}
static void rec_end(struct buf *b, size_t at)
{
	pad8(b);
	set_size(b, at, (uint16_t)(b->len - at));
}

#define MISC_USER PERF_RECORD_MISC_USER
#define MISC_KERNEL PERF_RECORD_MISC_KERNEL

static void rec_mmap2(struct buf *b, uint16_t misc, uint32_t pid, uint64_t addr, uint64_t len,
		      uint64_t pgoff, uint32_t prot, const char *fname,
		      const unsigned char *bid, unsigned bidsz)
{
	size_t at = rec_begin(b, PERF_RECORD_MMAP2, misc | (bid ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0));

	put32(b, pid);
	put32(b, pid);
	put64(b, addr);
	put64(b, len);
	put64(b, pgoff);
	if (bid) {
		unsigned char u[24] = { (unsigned char)bidsz };

		memcpy(u + 4, bid, bidsz);
		put(b, u, 24);
	} else {
		put(b, NULL, 24);	/* maj, min, ino, ino_generation */
	}
	put32(b, prot);
	put32(b, MAP_PRIVATE);
	put(b, fname, strlen(fname) + 1);
	rec_end(b, at);
}

/* MMAP of thread @tid, pid field @pid */
static void rec_mmap_t(struct buf *b, uint16_t misc, uint32_t pid, uint32_t tid, uint64_t addr,
		       uint64_t len, uint64_t pgoff, const char *fname)
{
	size_t at = rec_begin(b, PERF_RECORD_MMAP, misc);

	put32(b, pid);
	put32(b, tid);
	put64(b, addr);
	put64(b, len);
	put64(b, pgoff);
	put(b, fname, strlen(fname) + 1);
	rec_end(b, at);
}

static void rec_mmap(struct buf *b, uint16_t misc, uint32_t pid, uint64_t addr, uint64_t len,
		     uint64_t pgoff, const char *fname)
{
	rec_mmap_t(b, misc, pid, pid, addr, len, pgoff, fname);
}

static void rec_fork(struct buf *b, uint32_t pid, uint32_t ppid)
{
	size_t at = rec_begin(b, PERF_RECORD_FORK, 0);

	put32(b, pid);
	put32(b, ppid);
	put32(b, pid);
	put32(b, ppid);
	put64(b, 0);
	rec_end(b, at);
}

static void rec_comm(struct buf *b, uint32_t pid, const char *comm)
{
	size_t at = rec_begin(b, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);

	put32(b, pid);
	put32(b, pid);
	put(b, comm, strlen(comm) + 1);
	rec_end(b, at);
}

/* SAMPLE whose body is @n u64 words (TID word = pid | tid << 32) */
static void rec_sample(struct buf *b, uint16_t misc, const uint64_t *w, size_t n)
{
	size_t at = rec_begin(b, PERF_RECORD_SAMPLE, misc);

	put(b, w, n * 8);
	rec_end(b, at);
}
#define SAMPLE(b, misc, ...) do { \
	const uint64_t w_[] = { __VA_ARGS__ }; \
	rec_sample(b, misc, w_, sizeof(w_) / 8); \
} while (0)
#define TIDW(pid) ((uint64_t)(uint32_t)(pid) | (uint64_t)(uint32_t)(pid) << 32)

/* ------------------------------------------------------ perf.data file */

struct attr_spec {
	uint64_t sample_type, read_format, branch_sample_type, regs_user;
	uint32_t stack_user;
	uint64_t ids[4];
	size_t nr_ids;
};

struct bid_entry {
	uint16_t misc;
	const char *path;
	unsigned char id[20];
	unsigned size;
};

struct pdfile {
	struct attr_spec attrs[4];
	size_t nr_attrs;
	struct buf data;
	struct bid_entry bids[4];
	size_t nr_bids;
	uint64_t data_size_delta;	/* added to data.size in the header */
	size_t truncate_to;		/* 0 = keep whole file */
	uint64_t magic, hdr_size;	/* 0 = defaults */
	uint64_t dir_version;		/* HEADER_DIR_FORMAT (bit 24); 0 = none */
	char path[64];
};

#define ATTR_SIZE 128	/* PERF_ATTR_SIZE_VER7 */
#define PD_MAGIC 0x32454c4946524550ULL

/* Write the file: header | ids | attrs | data | feature table | features. */
static const char *pdfile_write(struct pdfile *f)
{
	struct buf o = { 0 }, feat = { 0 };
	uint64_t ids_off[4], attrs_off, data_off, tab_off;
	size_t i, j;
	int fd;

	put(&o, NULL, 104);
	for (i = 0; i < f->nr_attrs; i++) {
		ids_off[i] = o.len;
		for (j = 0; j < f->attrs[i].nr_ids; j++)
			put64(&o, f->attrs[i].ids[j]);
	}
	attrs_off = o.len;
	for (i = 0; i < f->nr_attrs; i++) {
		const struct attr_spec *a = &f->attrs[i];
		size_t at = o.len;

		put(&o, NULL, ATTR_SIZE);
		memcpy(o.p + at + 4, &(uint32_t){ ATTR_SIZE }, 4);		/* size */
		memcpy(o.p + at + 24, &a->sample_type, 8);
		memcpy(o.p + at + 32, &a->read_format, 8);
		memcpy(o.p + at + 40, &(uint64_t){ 1ull << 18 | 1ull << 23 }, 8); /* sample_id_all, mmap2 */
		memcpy(o.p + at + 72, &a->branch_sample_type, 8);
		memcpy(o.p + at + 80, &a->regs_user, 8);
		memcpy(o.p + at + 88, &a->stack_user, 4);
		put64(&o, ids_off[i]);
		put64(&o, a->nr_ids * 8);
	}
	data_off = o.len;
	put(&o, f->data.p, f->data.len);
	tab_off = o.len;
	{
		/* feature bits 2 (BUILD_ID) and 3 (HOSTNAME, empty) with
		 * build-ids, 24 (DIR_FORMAT, u64 version); the table holds
		 * one {offset, size} per set bit, sections follow it */
		size_t nbits = (f->nr_bids ? 2 : 0) + (f->dir_version ? 1 : 0), k = 0;
		uint64_t sect = tab_off + 16 * nbits;

		put(&o, NULL, 16 * nbits);
		for (i = 0; i < f->nr_bids; i++) {
			const struct bid_entry *e = &f->bids[i];
			size_t at = rec_begin(&feat, 0, e->misc);
			unsigned char id[24] = { 0 };

			memcpy(id, e->id, 20);
			id[20] = (unsigned char)e->size;
			put32(&feat, (uint32_t)-1);
			put(&feat, id, 24);
			put(&feat, e->path, strlen(e->path) + 1);
			rec_end(&feat, at);
		}
		if (f->nr_bids) {
			memcpy(o.p + tab_off, &(uint64_t){ sect }, 8);
			memcpy(o.p + tab_off + 8, &(uint64_t){ feat.len }, 8);
			memcpy(o.p + tab_off + 16, &(uint64_t){ sect + feat.len }, 8);
			k = 2;
		}
		if (f->dir_version) {
			memcpy(o.p + tab_off + 16 * k, &(uint64_t){ sect + feat.len }, 8);
			memcpy(o.p + tab_off + 16 * k + 8, &(uint64_t){ 8 }, 8);
			put64(&feat, f->dir_version);
		}
		put(&o, feat.p, feat.len);
	}
	/* perf_file_header */
	memcpy(o.p, &(uint64_t){ f->magic ? f->magic : PD_MAGIC }, 8);
	memcpy(o.p + 8, &(uint64_t){ f->hdr_size ? f->hdr_size : 104 }, 8);
	memcpy(o.p + 16, &(uint64_t){ ATTR_SIZE + 16 }, 8);
	memcpy(o.p + 24, &attrs_off, 8);
	memcpy(o.p + 32, &(uint64_t){ f->nr_attrs * (ATTR_SIZE + 16) }, 8);
	memcpy(o.p + 40, &data_off, 8);
	memcpy(o.p + 48, &(uint64_t){ f->data.len + f->data_size_delta }, 8);
	if (f->nr_bids)
		o.p[72] = 1u << 2 | 1u << 3;
	if (f->dir_version)
		o.p[72 + 3] |= 1u << 0;	/* bit 24 */

	strcpy(f->path, "/tmp/test_perfdata.XXXXXX");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, o.p, f->truncate_to ? f->truncate_to : o.len),
			 (ssize_t)(f->truncate_to ? f->truncate_to : o.len));
	close(fd);
	free(o.p);
	free(feat.p);
	free(f->data.p);
	f->data.p = NULL;
	return f->path;
}

static int read_file(struct pdfile *f, const struct elf_ops *ops, struct pd_result *r,
		     char *err, size_t errsz)
{
	int rc = perfdata_read(pdfile_write(f), ops, r, err, errsz);

	unlink(f->path);
	return rc;
}

static const struct pd_dso *dso_by_path(const struct pd_result *r, const char *path)
{
	size_t i;

	for (i = 0; i < r->nr_dsos; i++)
		if (!strcmp(r->dsos[i].path, path))
			return &r->dsos[i];
	return NULL;
}

static void assert_addrs(const struct pd_dso *d, const uint64_t *want, size_t n)
{
	size_t i;

	assert_non_null(d);
	if (d->nr_addrs != n) {
		for (i = 0; i < d->nr_addrs; i++)
			print_message("  got %#" PRIx64 "\n", d->addrs[i]);
	}
	assert_int_equal(d->nr_addrs, n);
	for (i = 0; i < n; i++)
		assert_int_equal(d->addrs[i], want[i]);
}
#define ASSERT_ADDRS(d, ...) do { \
	const uint64_t a_[] = { __VA_ARGS__ }; \
	assert_addrs(d, a_, sizeof(a_) / 8); \
} while (0)

/* PIE-like text mapping: file offset 0x1000 mapped at BASE + 0x1000 */
#define BASE   0x555555554000ull
#define TSTART (BASE + 0x1000)
#define TLEN   0x3000ull
#define TPGOFF 0x1000ull
#define EXE    "/usr/bin/fake-exe"
#define LIB    "/usr/lib/libfake.so"
#define LSTART 0x7f0000001000ull
#define RX     (PROT_READ | PROT_EXEC)

#define ST_BASIC (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)

static void one_attr(struct pdfile *f, uint64_t sample_type)
{
	f->nr_attrs = 1;
	f->attrs[0].sample_type = sample_type;
}

/* ---------------------------------------------------------------- tests */

static void test_mmap2_sample_pie(void **state)
{
	struct pdfile f = { 0 };
	struct pd_result r;
	char err[256];

	one_attr(&f, ST_BASIC);
	rec_comm(&f.data, 100, "fake");
	rec_mmap2(&f.data, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, EXE, NULL, 0);
	/* data mapping of the same file: never an exec map */
	rec_mmap2(&f.data, MISC_USER | PERF_RECORD_MISC_MMAP_DATA, 100, BASE + 0x10000, 0x1000,
		  0x5000, PROT_READ | PROT_WRITE, EXE, NULL, 0);
	SAMPLE(&f.data, MISC_USER, TSTART + 0x234, TIDW(100), 1, 1);	/* -> 0x1234 */
	SAMPLE(&f.data, MISC_USER, TSTART, TIDW(100), 2, 1);		/* -> 0x1000 */
	SAMPLE(&f.data, MISC_USER, TSTART + TLEN - 1, TIDW(100), 3, 1);	/* -> 0x3fff */
	SAMPLE(&f.data, MISC_USER, TSTART + TLEN, TIDW(100), 4, 1);	/* outside */
	SAMPLE(&f.data, MISC_USER, BASE + 0x10010, TIDW(100), 5, 1);	/* data map */
	SAMPLE(&f.data, MISC_KERNEL, TSTART + 0x500, TIDW(100), 6, 1);	/* kernel cpumode */
	SAMPLE(&f.data, MISC_USER, TSTART + 0x234, TIDW(100), 7, 1);	/* duplicate */
	SAMPLE(&f.data, MISC_USER, TSTART + 0x100, TIDW(555), 8, 1);	/* other pid, no maps */
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), 0);
	assert_int_equal(r.nr_samples, 8);
	assert_int_equal(r.nr_records, 11);
	assert_int_equal(r.flags, 0);
	assert_int_equal(r.nr_dsos, 1);
	assert_int_equal(r.dsos[0].build_id_size, 0);
	/* the data map resolves the sample too: perf 6.1 has one map tree */
	ASSERT_ADDRS(dso_by_path(&r, EXE), 0x1000, 0x1234, 0x3fff, 0x5010);
	perfdata_free(&r);
}

/* Sampled ADDR values resolve through data mappings too (perf -d / mem). */
static void test_addr_data_maps(void **state)
{
	struct pdfile f = { 0 };
	struct pd_result r;
	char err[256];

	one_attr(&f, ST_BASIC | PERF_SAMPLE_ADDR);
	rec_mmap2(&f.data, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, EXE, NULL, 0);
	rec_mmap2(&f.data, MISC_USER | PERF_RECORD_MISC_MMAP_DATA, 100, BASE + 0x10000, 0x1000,
		  0x5000, PROT_READ | PROT_WRITE, EXE, NULL, 0);
	rec_mmap(&f.data, MISC_USER | PERF_RECORD_MISC_MMAP_DATA, 100, LSTART, 0x1000, 0x7000, LIB);
	rec_mmap2(&f.data, MISC_USER | PERF_RECORD_MISC_MMAP_DATA, 100, 0x7f0000200000, 0x1000,
		  0, PROT_READ | PROT_WRITE, "[heap]", NULL, 0);
	/* fields: ip, tid, time, addr, period */
	SAMPLE(&f.data, MISC_USER, TSTART + 0x1, TIDW(100), 1, BASE + 0x10010, 1);
	SAMPLE(&f.data, MISC_USER, TSTART + 0x2, TIDW(100), 1, LSTART + 0x20, 1);
	SAMPLE(&f.data, MISC_USER, TSTART + 0x3, TIDW(100), 1, 0x7f0000200030, 1);
	SAMPLE(&f.data, MISC_USER, TSTART + 0x4, TIDW(100), 1, TSTART + 0x40, 1);
	/* a code address inside a data mapping is resolved there too (perf
	 * prints e.g. gobj+0x20 for a callchain frame in .data, recorded -d) */
	SAMPLE(&f.data, MISC_USER, LSTART + 0x50, TIDW(100), 1, 0, 1);
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), 0);
	assert_int_equal(r.nr_dsos, 2);
	ASSERT_ADDRS(dso_by_path(&r, EXE), 0x1001, 0x1002, 0x1003, 0x1004, 0x1040, 0x5010);
	ASSERT_ADDRS(dso_by_path(&r, LIB), 0x7020, 0x7050);
	perfdata_free(&r);
}

static void test_mmap_v1_and_filters(void **state)
{
	struct pdfile f = { 0 };
	struct pd_result r;
	char err[256];

	one_attr(&f, ST_BASIC);
	/* old MMAP record, pgoff 0 */
	rec_mmap(&f.data, MISC_USER, 100, 0x400000, 0x2000, 0, "/usr/bin/old");
	rec_mmap(&f.data, MISC_USER | PERF_RECORD_MISC_MMAP_DATA, 100, 0x600000, 0x1000, 0,
		 "/usr/bin/old-data");
	rec_mmap(&f.data, MISC_KERNEL, -1, 0x600000, 0x1000, 0, "/lib/modules/x.ko");
	/* [vdso] is a DSO (perf resolves it in its build-id cache copy);
	 * the other names are skipped; all cover 0x7f00000xx000 */
	rec_mmap2(&f.data, MISC_USER, 100, 0x7f0000010000, 0x1000, 0, RX, "[vdso]", NULL, 0);
	rec_mmap2(&f.data, MISC_USER, 100, 0x7f0000060000, 0x1000, 0, RX, "[heap]", NULL, 0);
	rec_mmap2(&f.data, MISC_USER, 100, 0x7f0000020000, 0x1000, 0, RX, "//anon", NULL, 0);
	rec_mmap2(&f.data, MISC_USER, 100, 0x7f0000030000, 0x1000, 0, RX, "/memfd:jit (deleted)", NULL, 0);
	rec_mmap2(&f.data, MISC_USER, 100, 0x7f0000040000, 0x1000, 0, RX, "/tmp/perf-100.map", NULL, 0);
	rec_mmap2(&f.data, MISC_USER, 100, 0x7f0000050000, 0x1000, 0, RX, "/usr/lib/gone.so (deleted)", NULL, 0);
	SAMPLE(&f.data, MISC_USER, 0x400123, TIDW(100), 1, 1);
	SAMPLE(&f.data, MISC_USER, 0x600010, TIDW(100), 1, 1);
	SAMPLE(&f.data, MISC_USER, 0x7f0000010010, TIDW(100), 1, 1);
	SAMPLE(&f.data, MISC_USER, 0x7f0000020010, TIDW(100), 1, 1);
	SAMPLE(&f.data, MISC_USER, 0x7f0000030010, TIDW(100), 1, 1);
	SAMPLE(&f.data, MISC_USER, 0x7f0000040010, TIDW(100), 1, 1);
	SAMPLE(&f.data, MISC_USER, 0x7f0000050010, TIDW(100), 1, 1);
	SAMPLE(&f.data, MISC_USER, 0x7f0000060010, TIDW(100), 1, 1);
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), 0);
	assert_int_equal(r.nr_dsos, 3);              /* the data mapping resolves too */
	ASSERT_ADDRS(dso_by_path(&r, "/usr/bin/old"), 0x123);
	ASSERT_ADDRS(dso_by_path(&r, "/usr/bin/old-data"), 0x10);
	ASSERT_ADDRS(dso_by_path(&r, "[vdso]"), 0x10);
	perfdata_free(&r);
}

static void test_callchain_markers(void **state)
{
	struct pdfile f = { 0 };
	struct pd_result r;
	char err[256];
	const uint64_t K = (uint64_t)PERF_CONTEXT_KERNEL, U = (uint64_t)PERF_CONTEXT_USER;
	const uint64_t GU = (uint64_t)PERF_CONTEXT_GUEST_USER;

	one_attr(&f, ST_BASIC | PERF_SAMPLE_CALLCHAIN);
	rec_mmap2(&f.data, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, EXE, NULL, 0);
	rec_mmap2(&f.data, MISC_USER, 100, LSTART, 0x1000, 0x2000, RX, LIB, NULL, 0);
	/* kernel sample: [KERNEL, k, k(in user range), USER, u, u, u, 0] */
	SAMPLE(&f.data, MISC_KERNEL, 0xffffffff81000000ull, TIDW(100), 1, 1,
	       8, K, 0xffffffff81000000ull, TSTART + 0x900, U,
	       TSTART + 0x10, TSTART + 0x20, LSTART + 0x30, 0);
	/* user sample, chain [USER, ip, ret], then a guest-user part */
	SAMPLE(&f.data, MISC_USER, TSTART + 0x40, TIDW(100), 2, 1,
	       5, U, TSTART + 0x40, TSTART + 0x50, GU, TSTART + 0x60);
	/* entries before any marker count as user (perf starts in USER) */
	SAMPLE(&f.data, MISC_USER, TSTART + 0x70, TIDW(100), 3, 1,
	       2, TSTART + 0x70, LSTART + 0x80);
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), 0);
	assert_int_equal(r.nr_dsos, 2);
	ASSERT_ADDRS(dso_by_path(&r, EXE), 0x1010, 0x1020, 0x1040, 0x1050, 0x1070);
	ASSERT_ADDRS(dso_by_path(&r, LIB), 0x2030, 0x2080);
	perfdata_free(&r);
}

static void test_fork_inheritance(void **state)
{
	struct pdfile f = { 0 };
	struct pd_result r;
	char err[256];

	one_attr(&f, ST_BASIC);
	rec_mmap2(&f.data, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, EXE, NULL, 0);
	/* child sample before its FORK record: order must not matter */
	SAMPLE(&f.data, MISC_USER, TSTART + 0x11, TIDW(200), 1, 1);
	rec_fork(&f.data, 200, 100);		/* process fork */
	rec_fork(&f.data, 300, 200);		/* grandchild */
	rec_fork(&f.data, 200, 200);		/* thread of 200: no edge */
	rec_mmap2(&f.data, MISC_USER, 300, LSTART, 0x1000, 0, RX, LIB, NULL, 0);
	SAMPLE(&f.data, MISC_USER, TSTART + 0x33, TIDW(300), 2, 1);	/* via 200 -> 100 */
	SAMPLE(&f.data, MISC_USER, LSTART + 0x44, TIDW(300), 3, 1);	/* own map */
	SAMPLE(&f.data, MISC_USER, LSTART + 0x55, TIDW(200), 4, 1);	/* child's map: not ours */
	SAMPLE(&f.data, MISC_USER, TSTART + 0x66, TIDW(400), 5, 1);	/* unrelated pid */
	/* a fork cycle from pid reuse must not loop */
	rec_fork(&f.data, 100, 300);
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), 0);
	ASSERT_ADDRS(dso_by_path(&r, EXE), 0x1011, 0x1033);
	/* 0x55 is in pid 300's map only; the cycle 100 -> 300 makes 300 an
	 * "ancestor" of 200, so it is included too (superset rule) */
	ASSERT_ADDRS(dso_by_path(&r, LIB), 0x44, 0x55);
	perfdata_free(&r);
}

/* perf finds a thread by tid and keeps the pid it was created with: a
 * sample or MMAP whose pid field is wrong but whose tid is known reaches
 * that thread's maps (util/machine.c ____machine__findnew_thread). */
#define TIDW2(pid, tid) ((uint64_t)(uint32_t)(pid) | (uint64_t)(uint32_t)(tid) << 32)
static void test_tid_wins_over_pid(void **state)
{
	struct pdfile f = { 0 };
	struct pd_result r;
	char err[256];

	one_attr(&f, ST_BASIC);
	rec_comm(&f.data, 100, "fake");
	rec_mmap2(&f.data, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, EXE, NULL, 0);
	SAMPLE(&f.data, MISC_USER, TSTART + 0x77, TIDW2(999, 100), 1, 1);	/* pid corrupt */
	SAMPLE(&f.data, MISC_USER, TSTART + 0x88, TIDW2(100, 4242), 2, 1);	/* new thread of 100 */
	SAMPLE(&f.data, MISC_USER, TSTART + 0x99, TIDW2(555, 555), 3, 1);	/* unrelated */
	/* an MMAP of tid 700 (process 700) whose pid field reads 701 */
	rec_comm(&f.data, 700, "other");
	rec_mmap_t(&f.data, MISC_USER, 701, 700, LSTART, 0x1000, 0, LIB);
	SAMPLE(&f.data, MISC_USER, LSTART + 0x10, TIDW(700), 4, 1);
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), 0);
	ASSERT_ADDRS(dso_by_path(&r, EXE), 0x1077, 0x1088);
	ASSERT_ADDRS(dso_by_path(&r, LIB), 0x10);
	perfdata_free(&r);
}

static void rec_fork4(struct buf *b, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	size_t at = rec_begin(b, PERF_RECORD_FORK, 0);

	put32(b, pid);
	put32(b, ppid);
	put32(b, tid);
	put32(b, ptid);
	put64(b, 0);
	rec_end(b, at);
}

/* Damaged thread identities (found by a review sweep of pid/tid fields):
 * perf reaches every record's thread by tid, and a thread (P, T) shares
 * thread P's maps; FORK copies the forking thread's maps. */
static void test_thread_identity_damage(void **state)
{
	struct pdfile f = { 0 };
	struct pd_result r;
	char err[256];

	one_attr(&f, ST_BASIC);
	rec_comm(&f.data, 100, "parent");
	rec_mmap2(&f.data, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, EXE, NULL, 0);
	/* A: FORK whose pid field is -1: child 200 still copies 100's maps */
	rec_fork4(&f.data, (uint32_t)-1, 100, 200, 100);
	SAMPLE(&f.data, MISC_USER, TSTART + 0x11, TIDW(200), 1, 1);
	/* B: an MMAP of child 300 with pid -1, tid intact */
	rec_fork4(&f.data, 300, 100, 300, 100);
	rec_mmap_t(&f.data, MISC_USER, (uint32_t)-1, 300, LSTART, 0x1000, 0, LIB);
	SAMPLE(&f.data, MISC_USER, LSTART + 0x22, TIDW(300), 2, 1);
	/* C: tid 0 in an MMAP and in samples with garbage pids */
	rec_mmap_t(&f.data, MISC_USER, 500, 0, LSTART + 0x100000, 0x1000, 0, "/usr/lib/libzero.so");
	SAMPLE(&f.data, MISC_USER, LSTART + 0x100033, TIDW2(0x3fff1234, 0), 3, 1);
	/* D: child 600 created as (X, 600); its library mapped by thread X
	 * under yet another pid: 600 shares X's maps */
	rec_fork4(&f.data, 0x3fff1234, 100, 600, 100);
	rec_mmap_t(&f.data, MISC_USER, 0x3fff5678, 0x3fff1234, LSTART + 0x200000, 0x1000, 0, "/usr/lib/libleader.so");
	SAMPLE(&f.data, MISC_USER, LSTART + 0x200044, TIDW2(601, 600), 4, 1);
	SAMPLE(&f.data, MISC_USER, TSTART + 0x55, TIDW2(601, 600), 5, 1);
	/* unrelated thread: nothing */
	SAMPLE(&f.data, MISC_USER, LSTART + 0x66, TIDW(777), 6, 1);
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), 0);
	ASSERT_ADDRS(dso_by_path(&r, EXE), 0x1011, 0x1055);
	ASSERT_ADDRS(dso_by_path(&r, LIB), 0x22);
	ASSERT_ADDRS(dso_by_path(&r, "/usr/lib/libzero.so"), 0x33);
	ASSERT_ADDRS(dso_by_path(&r, "/usr/lib/libleader.so"), 0x44);
	perfdata_free(&r);

	/* E: the very first record names thread -1 of process 0: thread -1
	 * shares thread 0's maps, so a sample of tid 0 reaches that MMAP */
	memset(&f, 0, sizeof(f));
	one_attr(&f, ST_BASIC);
	rec_mmap_t(&f.data, MISC_USER, 0, (uint32_t)-1, LSTART, 0x1000, 0, LIB);
	SAMPLE(&f.data, MISC_USER, LSTART + 0x77, TIDW2(0, 0), 1, 1);
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), 0);
	ASSERT_ADDRS(dso_by_path(&r, LIB), 0x77);
	perfdata_free(&r);
}

static void test_fork_no_cycle(void **state)
{
	struct pdfile f = { 0 };
	struct pd_result r;
	char err[256];

	one_attr(&f, ST_BASIC);
	rec_fork(&f.data, 200, 100);
	rec_mmap2(&f.data, MISC_USER, 200, LSTART, 0x1000, 0, RX, LIB, NULL, 0);
	SAMPLE(&f.data, MISC_USER, LSTART + 0x55, TIDW(100), 1, 1);	/* parent: child's map n/a */
	SAMPLE(&f.data, MISC_USER, LSTART + 0x66, TIDW(200), 1, 1);
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), 0);
	ASSERT_ADDRS(dso_by_path(&r, LIB), 0x66);
	perfdata_free(&r);
}

/* Two attrs with different layouts, told apart by IDENTIFIER. */
static void test_two_attrs_identifier(void **state)
{
	struct pdfile f = { 0 };
	struct pd_result r;
	char err[256];

	f.nr_attrs = 2;
	f.attrs[0].sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	f.attrs[0].ids[0] = 11;
	f.attrs[0].ids[1] = 12;
	f.attrs[0].nr_ids = 2;
	f.attrs[1].sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				 PERF_SAMPLE_ADDR | PERF_SAMPLE_CALLCHAIN;
	f.attrs[1].ids[0] = 21;
	f.attrs[1].nr_ids = 1;
	rec_mmap2(&f.data, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, EXE, NULL, 0);
	SAMPLE(&f.data, MISC_USER, 11, TSTART + 0x1, TIDW(100));
	SAMPLE(&f.data, MISC_USER, 21, TSTART + 0x2, TIDW(100), TSTART + 0x3,
	       2, (uint64_t)PERF_CONTEXT_USER, TSTART + 0x4);
	SAMPLE(&f.data, MISC_USER, 12, TSTART + 0x5, TIDW(100));
	/* unknown id: dropped like perf does */
	SAMPLE(&f.data, MISC_USER, 99, TSTART + 0x6, TIDW(100));
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), 0);
	assert_int_equal(r.nr_samples, 4);
	assert_int_equal(r.nr_skipped_samples, 1);
	ASSERT_ADDRS(dso_by_path(&r, EXE), 0x1001, 0x1002, 0x1003, 0x1004, 0x1005);
	perfdata_free(&r);
}

/* Two attrs, ID (not IDENTIFIER) at position 3 (after IP, TID, TIME). */
static void test_two_attrs_id_pos(void **state)
{
	struct pdfile f = { 0 };
	struct pd_result r;
	char err[256];

	f.nr_attrs = 2;
	f.attrs[0].sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID;
	f.attrs[0].ids[0] = 7;
	f.attrs[0].nr_ids = 1;
	f.attrs[1].sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
				 PERF_SAMPLE_PERIOD | PERF_SAMPLE_BRANCH_STACK;
	f.attrs[1].branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
	f.attrs[1].ids[0] = 8;
	f.attrs[1].nr_ids = 1;
	rec_mmap2(&f.data, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, EXE, NULL, 0);
	SAMPLE(&f.data, MISC_USER, TSTART + 0x10, TIDW(100), 1, 7);
	/* branch stack: nr 2, hw_idx, {from, to, flags} x 2 */
	SAMPLE(&f.data, MISC_USER, TSTART + 0x20, TIDW(100), 2, 8, 1000,
	       2, 0, TSTART + 0x30, TSTART + 0x40, 0, TSTART + 0x50, 0xffffffff81000000ull, 0);
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), 0);
	assert_int_equal(r.flags, 0);
	ASSERT_ADDRS(dso_by_path(&r, EXE), 0x1010, 0x1020, 0x1030, 0x1040, 0x1050);
	perfdata_free(&r);
}

static void test_read_raw_layout(void **state)
{
	struct pdfile f = { 0 };
	struct pd_result r;
	char err[256];

	one_attr(&f, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CPU | PERF_SAMPLE_READ |
		 PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK);
	f.attrs[0].read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED;
	rec_mmap2(&f.data, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, EXE, NULL, 0);
	{
		size_t at = rec_begin(&f.data, PERF_RECORD_SAMPLE, MISC_USER);

		put64(&f.data, TSTART + 0x1);	/* ip */
		put64(&f.data, TIDW(100));
		put64(&f.data, 0);		/* cpu */
		put64(&f.data, 2);		/* read: nr */
		put64(&f.data, 5);		/* time_enabled */
		put64(&f.data, 1); put64(&f.data, 70);	/* value, id */
		put64(&f.data, 2); put64(&f.data, 71);
		put64(&f.data, 2);		/* callchain */
		put64(&f.data, (uint64_t)PERF_CONTEXT_USER);
		put64(&f.data, TSTART + 0x2);
		put32(&f.data, 12);		/* raw: size 12 -> 16 bytes with the u32 */
		put(&f.data, "abcdefghijkl", 12);
		put64(&f.data, 1);		/* branch stack, no hw_idx */
		put64(&f.data, TSTART + 0x3);
		put64(&f.data, TSTART + 0x4);
		put64(&f.data, 0);
		rec_end(&f.data, at);
	}
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), 0);
	ASSERT_ADDRS(dso_by_path(&r, EXE), 0x1001, 0x1002, 0x1003, 0x1004);
	perfdata_free(&r);
}

static void test_header_build_id(void **state)
{
	struct pdfile f = { 0 };
	struct pd_result r, back;
	char err[256], tmpl[] = "/tmp/test_perfdata_addrs.XXXXXX";
	static const unsigned char id_exe[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6,
						  7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	static const unsigned char id_lib[20] = { 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x11, 0x22 };
	const struct pd_dso *d;
	int fd;

	one_attr(&f, ST_BASIC);
	f.nr_bids = 3;
	f.bids[0] = (struct bid_entry){ PERF_RECORD_MISC_KERNEL, EXE, { 0x99 }, 20 };	/* kernel: ignored */
	f.bids[1] = (struct bid_entry){ MISC_USER | (1u << 15), EXE, { 0 }, 20 };
	memcpy(f.bids[1].id, id_exe, 20);
	/* 8-byte build-id, size given by misc bit 15 */
	f.bids[2] = (struct bid_entry){ MISC_USER | (1u << 15), LIB, { 0 }, 8 };
	memcpy(f.bids[2].id, id_lib, 8);
	/* all-zero id (perf 6.1 -z writes these): treated as unknown */
	f.bids[3] = (struct bid_entry){ MISC_USER, "/usr/lib/nobid.so", { 0 }, 0 };
	f.nr_bids = 4;
	rec_mmap2(&f.data, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, EXE, NULL, 0);
	rec_mmap2(&f.data, MISC_USER, 100, LSTART, 0x1000, 0x3000, RX, LIB, NULL, 0);
	rec_mmap2(&f.data, MISC_USER, 100, 0x7f0000100000, 0x1000, 0, RX, "/usr/lib/nobid.so", NULL, 0);
	SAMPLE(&f.data, MISC_USER, TSTART + 0x99, TIDW(100), 1, 1);
	SAMPLE(&f.data, MISC_USER, LSTART + 0x8, TIDW(100), 1, 1);
	SAMPLE(&f.data, MISC_USER, 0x7f0000100010, TIDW(100), 1, 1);
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), 0);
	assert_int_equal(r.nr_dsos, 3);
	d = perfdata_find_build_id(&r, id_exe, 20);
	assert_non_null(d);
	assert_string_equal(d->path, EXE);
	ASSERT_ADDRS(d, 0x1099);
	d = perfdata_find_build_id(&r, id_lib, 8);
	assert_non_null(d);
	assert_string_equal(d->path, LIB);
	ASSERT_ADDRS(d, 0x3008);
	assert_null(perfdata_find_build_id(&r, id_lib, 20));
	assert_int_equal(dso_by_path(&r, "/usr/lib/nobid.so")->build_id_size, 0);

	/* SYMLAZY_ADDRS round trip: only DSOs with build-ids are written */
	fd = mkstemp(tmpl);
	assert_true(fd >= 0);
	assert_int_equal(perfdata_write_addrs(&r, fd), 0);
	close(fd);
	assert_int_equal(addrs_read(tmpl, &back, err, sizeof(err)), 0);
	unlink(tmpl);
	assert_int_equal(back.nr_dsos, 2);
	ASSERT_ADDRS(perfdata_find_build_id(&back, id_exe, 20), 0x1099);
	ASSERT_ADDRS(perfdata_find_build_id(&back, id_lib, 8), 0x3008);
	assert_null(perfdata_find_build_id(&back, id_exe, 20)->path);
	perfdata_free(&back);
	perfdata_free(&r);
}

static void test_mmap2_embedded_build_id(void **state)
{
	struct pdfile f = { 0 };
	struct pd_result r;
	char err[256];
	static const unsigned char id1[20] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	static const unsigned char id2[20] = { 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2 };

	one_attr(&f, ST_BASIC);
	/* same path, two builds (file replaced between runs) */
	rec_mmap2(&f.data, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, EXE, id1, 20);
	rec_mmap2(&f.data, MISC_USER, 200, TSTART, TLEN, 0, RX, EXE, id2, 20);
	/* another path, same build-id as id1: merged */
	rec_mmap2(&f.data, MISC_USER, 300, LSTART, 0x1000, 0, RX, "/usr/bin/fake-exe-link", id1, 20);
	SAMPLE(&f.data, MISC_USER, TSTART + 0x5, TIDW(100), 1, 1);
	SAMPLE(&f.data, MISC_USER, TSTART + 0x6, TIDW(200), 1, 1);
	SAMPLE(&f.data, MISC_USER, LSTART + 0x7, TIDW(300), 1, 1);
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), 0);
	assert_int_equal(r.nr_dsos, 2);
	ASSERT_ADDRS(perfdata_find_build_id(&r, id1, 20), 0x7, 0x1005);
	ASSERT_ADDRS(perfdata_find_build_id(&r, id2, 20), 0x6);
	perfdata_free(&r);
}

static void test_elf_build_id_fallback(void **state)
{
	struct pdfile f = { 0 };
	struct pd_result r;
	char err[256], self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	unsigned char id[20];
	const struct elf_ops *ops = elfops_direct();
	int fd, k;
	Elf *e;

	assert_true(n > 0);
	self[n] = '\0';
	fd = open(self, O_RDONLY);
	assert_true(fd >= 0);
	e = ops->elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(e);
	k = elf_read_build_id(ops, e, id, sizeof(id));
	ops->elf_end(e);
	close(fd);
	if (k <= 0)
		skip();		/* test binary linked without --build-id */

	one_attr(&f, ST_BASIC);
	rec_mmap2(&f.data, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, self, NULL, 0);
	SAMPLE(&f.data, MISC_USER, TSTART + 0x5, TIDW(100), 1, 1);
	assert_int_equal(read_file(&f, ops, &r, err, sizeof(err)), 0);
	assert_int_equal(r.nr_dsos, 1);
	assert_int_equal(r.dsos[0].build_id_size, k);
	assert_memory_equal(r.dsos[0].build_id, id, (size_t)k);
	perfdata_free(&r);
}

/* zstd-compress @in into COMPRESSED records; @split: flush after this
 * many input bytes and start a new record there (mid-record on purpose). */
static void put_compressed(struct buf *out, const struct buf *in, size_t split, int nframes)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t cut[3] = { 0, split, in->len }, i;
	struct buf z = { 0 };

	assert_non_null(cc);
	for (i = 0; i < 2; i++) {
		ZSTD_inBuffer ib = { in->p + cut[i], cut[i + 1] - cut[i], 0 };
		/* nframes == 2: end a frame at the split; else only flush */
		ZSTD_EndDirective mode = i == 1 || nframes == 2 ? ZSTD_e_end : ZSTD_e_flush;
		size_t rem;

		z.len = 0;
		do {
			unsigned char tmp[4096];
			ZSTD_outBuffer ob = { tmp, sizeof(tmp), 0 };

			rem = ZSTD_compressStream2(cc, &ob, &ib, mode);
			assert_false(ZSTD_isError(rem));
			put(&z, tmp, ob.pos);
		} while (rem != 0 || ib.pos < ib.size);
		/* one COMPRESSED record may hold at most 65535 - 8 bytes */
		for (size_t off = 0; off < z.len;) {
			size_t chunk = z.len - off > 60000 ? 60000 : z.len - off;
			size_t at = rec_begin(out, 81, 0);

			put(out, z.p + off, chunk);
			set_size(out, at, (uint16_t)(out->len - at));	/* unpadded */
			off += chunk;
		}
	}
	free(z.p);
	ZSTD_freeCCtx(cc);
}

static void test_compressed_split(void **state)
{
	struct pdfile f = { 0 };
	struct buf in = { 0 };
	struct pd_result r;
	char err[256];
	size_t split;

	one_attr(&f, ST_BASIC | PERF_SAMPLE_CALLCHAIN);
	rec_mmap2(&f.data, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, EXE, NULL, 0); /* plain */
	rec_mmap2(&in, MISC_USER, 100, LSTART, 0x1000, 0x2000, RX, LIB, NULL, 0);
	SAMPLE(&in, MISC_USER, TSTART + 0x1, TIDW(100), 1, 1, 0);
	split = in.len + 20;	/* inside the next sample */
	SAMPLE(&in, MISC_USER, TSTART + 0x2, TIDW(100), 2, 1,
	       3, (uint64_t)PERF_CONTEXT_USER, TSTART + 0x3, LSTART + 0x4);
	SAMPLE(&in, MISC_USER, LSTART + 0x5, TIDW(100), 3, 1, 0);
	put_compressed(&f.data, &in, split, 1);
	SAMPLE(&f.data, MISC_USER, TSTART + 0x6, TIDW(100), 4, 1, 0);	/* plain again */
	free(in.p);
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), 0);
	assert_int_equal(r.nr_samples, 4);
	ASSERT_ADDRS(dso_by_path(&r, EXE), 0x1001, 0x1002, 0x1003, 0x1006);
	ASSERT_ADDRS(dso_by_path(&r, LIB), 0x2004, 0x2005);
	perfdata_free(&r);
}

/* Two zstd frames; the split falls in a record header (after 4 bytes). */
static void test_compressed_two_frames(void **state)
{
	struct pdfile f = { 0 };
	struct buf in = { 0 };
	struct pd_result r;
	char err[256];
	size_t split;

	one_attr(&f, ST_BASIC);
	rec_mmap2(&in, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, EXE, NULL, 0);
	split = in.len + 4;
	SAMPLE(&in, MISC_USER, TSTART + 0x7, TIDW(100), 1, 1);
	put_compressed(&f.data, &in, split, 2);
	free(in.p);
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), 0);
	ASSERT_ADDRS(dso_by_path(&r, EXE), 0x1007);
	perfdata_free(&r);
}

/* Highly compressible: one small COMPRESSED record expands to > 1 MiB. */
static void test_compressed_large_expansion(void **state)
{
	struct pdfile f = { 0 };
	struct buf in = { 0 };
	struct pd_result r;
	char err[256];
	int i;

	one_attr(&f, ST_BASIC);
	rec_mmap2(&in, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, EXE, NULL, 0);
	for (i = 0; i < 60000; i++)	/* 40 bytes each: 2.4 MB */
		SAMPLE(&in, MISC_USER, TSTART + (i % 16), TIDW(100), 1, 1);
	put_compressed(&f.data, &in, in.len / 3 + 3, 1);
	free(in.p);
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), 0);
	assert_int_equal(r.nr_samples, 60000);
	assert_int_equal(dso_by_path(&r, EXE)->nr_addrs, 16);
	perfdata_free(&r);
}

/*
 * The 1 MiB decompression buffer fills up inside the last zstd block of a
 * COMPRESSED record, with a 2000-byte partial record carried in from the
 * previous COMPRESSED record (the flush at 2096 bytes ends inside a 4080-byte
 * sample). The reader must call ZSTD_decompressStream() again after draining
 * a full buffer, and keep the carried bytes in front of the new output.
 */
static void test_compressed_pending_output(void **state)
{
	struct pdfile f = { 0 };
	struct buf in = { 0 };
	struct pd_result r;
	char err[256];
	size_t at;
	int i, n;

	one_attr(&f, ST_BASIC | PERF_SAMPLE_CALLCHAIN);
	rec_mmap2(&in, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, EXE, NULL, 0);
	assert_int_equal(in.len, 96);
	/* one 4080-byte sample: ip, tid, time, period, nr = 504 */
	at = rec_begin(&in, PERF_RECORD_SAMPLE, MISC_USER);
	put64(&in, TSTART + 0x100);
	put64(&in, TIDW(100));
	put64(&in, 1);
	put64(&in, 1);
	put64(&in, 504);
	put64(&in, (uint64_t)PERF_CONTEXT_USER);
	for (i = 0; i < 503; i++)
		put64(&in, TSTART + 0x200 + (uint64_t)(i % 4));
	rec_end(&in, at);
	assert_int_equal(in.len, 96 + 4080);
	/* 48-byte samples (nr = 0) up to 2096 + 1 MiB bytes in all */
	n = (2096 + 7 * 131072 + 130016 - 96 - 4080) / 48;
	for (i = 0; i < n; i++)
		SAMPLE(&in, MISC_USER, TSTART + (uint64_t)(i == n - 1 ? 0xabc : i % 2), TIDW(100), 1, 1, 0);
	assert_int_equal(in.len, 2096 + 7 * 131072 + 130016);
	put_compressed(&f.data, &in, 2096, 1);
	free(in.p);
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), 0);
	assert_int_equal(r.nr_samples, n + 1);
	ASSERT_ADDRS(dso_by_path(&r, EXE), 0x1000, 0x1001, 0x1100, 0x1200, 0x1201, 0x1202,
		     0x1203, 0x1abc);
	perfdata_free(&r);
}

/* Data section larger than the 1 MiB read window. */
static void test_window_straddle(void **state)
{
	struct pdfile f = { 0 };
	struct pd_result r;
	char err[256];
	int i;

	one_attr(&f, ST_BASIC | PERF_SAMPLE_CALLCHAIN);
	rec_mmap2(&f.data, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, EXE, NULL, 0);
	for (i = 0; i < 50000; i++) {	/* 48 or 56 bytes: 2.6 MB */
		if (i % 2)
			SAMPLE(&f.data, MISC_USER, TSTART + (uint64_t)(i % 1000), TIDW(100), 1, 1, 0);
		else
			SAMPLE(&f.data, MISC_USER, TSTART + (uint64_t)(i % 1000), TIDW(100), 1, 1,
			       1, TSTART + 0x2000);
	}
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), 0);
	assert_int_equal(r.nr_samples, 50000);
	assert_int_equal(dso_by_path(&r, EXE)->nr_addrs, 1001);
	assert_int_equal(dso_by_path(&r, EXE)->addrs[1000], 0x3000);
	perfdata_free(&r);
}

static void test_unknown_and_auxtrace_skipped(void **state)
{
	struct pdfile f = { 0 };
	struct pd_result r;
	char err[256];
	size_t at;

	one_attr(&f, ST_BASIC);
	rec_mmap2(&f.data, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, EXE, NULL, 0);
	at = rec_begin(&f.data, 200, 0);		/* unknown type */
	put64(&f.data, 0x1122334455667788ull);
	put64(&f.data, 0);
	rec_end(&f.data, at);
	at = rec_begin(&f.data, 68, 0);			/* FINISHED_ROUND: known */
	rec_end(&f.data, at);
	at = rec_begin(&f.data, 71, 0);			/* AUXTRACE + 24-byte payload */
	put64(&f.data, 24);
	put(&f.data, NULL, 32);
	rec_end(&f.data, at);
	put(&f.data, "\x09\x00\x00\x00\x02\x00\x28\x00 payload looks like a SAMPLE", 24);
	SAMPLE(&f.data, MISC_USER, TSTART + 0x8, TIDW(100), 1, 1);
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), 0);
	assert_int_equal(r.nr_unknown_records, 1);
	assert_int_equal(r.nr_samples, 1);
	assert_int_equal(r.nr_records, 5);
	ASSERT_ADDRS(dso_by_path(&r, EXE), 0x1008);
	perfdata_free(&r);
}

static void expect_einval(struct pdfile *f, const char *what)
{
	struct pd_result r;
	char err[256] = "";

	memset(&r, 0x5a, sizeof(r));
	assert_int_equal(read_file(f, NULL, &r, err, sizeof(err)), -EINVAL);
	assert_true(err[0] != '\0');
	assert_null(strchr(err, '\n'));
	assert_null(r.dsos);
	assert_int_equal(r.nr_dsos, 0);
	print_message("  %s: %s\n", what, err);
	perfdata_free(&r);
}

static void test_corrupt(void **state)
{
	struct pdfile f;
	size_t at;

	/* header.size < 8 */
	memset(&f, 0, sizeof(f));
	one_attr(&f, ST_BASIC);
	SAMPLE(&f.data, MISC_USER, TSTART, TIDW(100), 1, 1);
	at = rec_begin(&f.data, PERF_RECORD_SAMPLE, MISC_USER);
	put64(&f.data, 0);
	set_size(&f.data, at, 4);
	expect_einval(&f, "size<8");

	/* record runs past the data section */
	memset(&f, 0, sizeof(f));
	one_attr(&f, ST_BASIC);
	SAMPLE(&f.data, MISC_USER, TSTART, TIDW(100), 1, 1);
	f.data_size_delta = (uint64_t)-8;
	expect_einval(&f, "past data");

	/* truncated file: data section ends past EOF */
	memset(&f, 0, sizeof(f));
	one_attr(&f, ST_BASIC);
	rec_mmap2(&f.data, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, EXE, NULL, 0);
	SAMPLE(&f.data, MISC_USER, TSTART, TIDW(100), 1, 1);
	f.truncate_to = 104 + 144 + f.data.len - 10;
	expect_einval(&f, "truncated");

	/* SAMPLE shorter than sample_type says */
	memset(&f, 0, sizeof(f));
	one_attr(&f, ST_BASIC | PERF_SAMPLE_CALLCHAIN);
	SAMPLE(&f.data, MISC_USER, TSTART, TIDW(100), 1, 1, 1000, 0);
	expect_einval(&f, "short sample");

	/* short MMAP2 */
	memset(&f, 0, sizeof(f));
	one_attr(&f, ST_BASIC);
	at = rec_begin(&f.data, PERF_RECORD_MMAP2, MISC_USER);
	put(&f.data, NULL, 32);
	rec_end(&f.data, at);
	expect_einval(&f, "short mmap2");

	/* garbage in a COMPRESSED record */
	memset(&f, 0, sizeof(f));
	one_attr(&f, ST_BASIC);
	at = rec_begin(&f.data, 81, 0);
	put(&f.data, "not zstd at all!", 16);
	rec_end(&f.data, at);
	expect_einval(&f, "bad zstd");

	/* bad magic */
	memset(&f, 0, sizeof(f));
	one_attr(&f, ST_BASIC);
	f.magic = 0x1234;
	expect_einval(&f, "magic");

	/* a file shorter than the header */
	memset(&f, 0, sizeof(f));
	one_attr(&f, ST_BASIC);
	f.truncate_to = 60;
	expect_einval(&f, "tiny");
}

static void test_unsupported(void **state)
{
	struct pdfile f;
	struct pd_result r;
	char err[256];

	/* a pipe header on a file-mode body: read as a stream, whose first
	 * "record" (attr_size, attrs offset) has size 0 (perf fails too) */
	memset(&f, 0, sizeof(f));
	one_attr(&f, ST_BASIC);
	f.hdr_size = 16;
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), -EINVAL);
	assert_int_equal(r.flags, 0);
	assert_int_equal(r.nr_dsos, 0);

	/* FIFOs are never read */
	{
		char fifo[] = "/tmp/test_perfdata_fifo.XXXXXX";
		int fd = mkstemp(fifo);

		assert_true(fd >= 0);
		close(fd);
		unlink(fifo);
		assert_int_equal(mkfifo(fifo, 0600), 0);
		assert_int_equal(perfdata_read(fifo, NULL, &r, err, sizeof(err)), -ENOTSUP);
		assert_int_equal(r.flags, PD_F_PIPE);
		unlink(fifo);
	}

	memset(&f, 0, sizeof(f));
	one_attr(&f, ST_BASIC);
	f.magic = __builtin_bswap64(PD_MAGIC);
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), -ENOTSUP);
	assert_int_equal(r.flags, PD_F_FOREIGN_ENDIAN);

	assert_int_equal(perfdata_read("/nonexistent/perf.data", NULL, &r, err, sizeof(err)), -ENOENT);
}

/* ------------------------------------------------ pipe mode, directories */

/* HEADER_ATTR (64): { header; attr (ATTR_SIZE bytes); u64 ids[]; } */
static void rec_header_attr(struct buf *b, uint64_t sample_type, const uint64_t *ids, size_t nids)
{
	size_t at = rec_begin(b, 64, 0), a = b->len;

	put(b, NULL, ATTR_SIZE);
	memcpy(b->p + a + 4, &(uint32_t){ ATTR_SIZE }, 4);
	memcpy(b->p + a + 24, &sample_type, 8);
	memcpy(b->p + a + 40, &(uint64_t){ 1ull << 18 | 1ull << 23 }, 8);
	put(b, ids, nids * 8);
	rec_end(b, at);
}

/* HEADER_BUILD_ID (67) record, as a feature entry */
static void rec_header_build_id(struct buf *b, const char *path, const unsigned char *id, unsigned n)
{
	size_t at = rec_begin(b, 67, MISC_USER | (1u << 15));
	unsigned char u[24] = { 0 };

	memcpy(u, id, n);
	u[20] = (unsigned char)n;
	put32(b, (uint32_t)-1);
	put(b, u, 24);
	put(b, path, strlen(path) + 1);
	rec_end(b, at);
}

/* a record of @size bytes that is not a multiple of 8 (pipe mode has them:
 * HEADER_FEATURE records are written unpadded) */
static void rec_unpadded(struct buf *b, uint32_t type, uint64_t word, size_t extra)
{
	size_t at = rec_begin(b, type, 0);

	put64(b, word);
	put(b, NULL, extra);
	set_size(b, at, (uint16_t)(b->len - at));
}

static const char *write_pipe(char *path, const struct buf *stream, size_t cut)
{
	int fd = mkstemp(path);
	uint64_t h[2] = { PD_MAGIC, 16 };

	assert_true(fd >= 0);
	assert_int_equal(write(fd, h, 16), 16);
	assert_int_equal(write(fd, stream->p, stream->len - cut), (ssize_t)(stream->len - cut));
	close(fd);
	return path;
}

static int read_pipe(const struct buf *stream, size_t cut, struct pd_result *r, char *err,
		     size_t errsz)
{
	char path[] = "/tmp/test_perfdata_pipe.XXXXXX";
	int rc = perfdata_read(write_pipe(path, stream, cut), NULL, r, err, errsz);

	unlink(path);
	return rc;
}

#define ST_PIPE (ST_BASIC | PERF_SAMPLE_IDENTIFIER)

static void test_pipe_mode(void **state)
{
	static const unsigned char id_exe[20] = { 0xab, 0xcd, 1, 2, 3, 4, 5, 6, 7, 8 };
	const uint64_t ids_a[] = { 11, 12 }, ids_b[] = { 22 };
	struct buf b = { 0 };
	struct pd_result r;
	char err[256];
	size_t at;

	rec_header_attr(&b, ST_PIPE, ids_a, 2);
	rec_header_attr(&b, ST_PIPE | PERF_SAMPLE_CALLCHAIN, ids_b, 1);
	rec_unpadded(&b, 80, 3, 4);		/* HEADER_FEATURE, 20 bytes */
	rec_unpadded(&b, 80, 5, 12);		/* ... and 28: records are unaligned now */
	at = rec_begin(&b, 66, 0);		/* HEADER_TRACING_DATA, 13 payload bytes */
	put32(&b, 13);
	put32(&b, 0);
	rec_end(&b, at);
	put(&b, "\x09\x00\x00\x00\x00\x00\xff\xff garbage", 13);	/* a "SAMPLE" if not skipped */
	rec_header_build_id(&b, EXE, id_exe, 10);
	rec_mmap2(&b, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, EXE, NULL, 0);
	SAMPLE(&b, MISC_USER, 11, TSTART + 0x11, TIDW(100), 1, 1);
	SAMPLE(&b, MISC_USER, 22, TSTART + 0x22, TIDW(100), 1, 1, 2, (uint64_t)PERF_CONTEXT_USER,
	       TSTART + 0x23);
	SAMPLE(&b, MISC_USER, 0, TSTART + 0x33, TIDW(100), 1, 1);	/* id 0: first attr */
	SAMPLE(&b, MISC_USER, 99, TSTART + 0x44, TIDW(100), 1, 1);	/* unknown id: dropped */
	rec_begin(&b, 68, 0);			/* FINISHED_ROUND */
	set_size(&b, b.len - 8, 8);
	assert_int_equal(read_pipe(&b, 0, &r, err, sizeof(err)), 0);
	assert_int_equal(r.flags, 0);
	assert_int_equal(r.nr_samples, 4);
	assert_int_equal(r.nr_skipped_samples, 1);
	assert_int_equal(r.nr_records, 12);
	assert_int_equal(r.nr_unknown_records, 0);
	assert_int_equal(r.nr_dsos, 1);
	assert_int_equal(r.dsos[0].build_id_size, 10);
	assert_memory_equal(r.dsos[0].build_id, id_exe, 10);
	ASSERT_ADDRS(dso_by_path(&r, EXE), 0x1011, 0x1022, 0x1023, 0x1033);
	assert_int_equal(r.data_bytes, b.len);
	perfdata_free(&r);

	/* cut inside the last record */
	assert_int_equal(read_pipe(&b, 3, &r, err, sizeof(err)), -EINVAL);
	print_message("  pipe cut: %s\n", err);
	assert_null(r.dsos);
	free(b.p);

	/* a SAMPLE before any HEADER_ATTR */
	memset(&b, 0, sizeof(b));
	SAMPLE(&b, MISC_USER, 11, TSTART, TIDW(100), 1, 1);
	assert_int_equal(read_pipe(&b, 0, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "before any attr"));
	free(b.p);

	/* HEADER_ATTR whose attr.size passes the record */
	memset(&b, 0, sizeof(b));
	rec_header_attr(&b, ST_PIPE, NULL, 0);
	memcpy(b.p + 12, &(uint32_t){ 4096 }, 4);
	assert_int_equal(read_pipe(&b, 0, &r, err, sizeof(err)), -EINVAL);
	print_message("  bad attr: %s\n", err);
	free(b.p);

	/* tracing data past the end of the file */
	memset(&b, 0, sizeof(b));
	rec_header_attr(&b, ST_PIPE, NULL, 0);
	at = rec_begin(&b, 66, 0);
	put32(&b, 1000);
	put32(&b, 0);
	rec_end(&b, at);
	assert_int_equal(read_pipe(&b, 0, &r, err, sizeof(err)), -EINVAL);
	print_message("  tracing data: %s\n", err);
	free(b.p);

	/* only a header: no samples */
	memset(&b, 0, sizeof(b));
	assert_int_equal(read_pipe(&b, 0, &r, err, sizeof(err)), 0);
	assert_int_equal(r.flags, PD_F_NO_SAMPLES);
	perfdata_free(&r);
	free(b.p);
}

/* a COMPRESSED stream in pipe mode, with the DWARF flag from HEADER_ATTR */
static void test_pipe_compressed(void **state)
{
	struct buf b = { 0 }, in = { 0 };
	struct pd_result r;
	char err[256];

	rec_header_attr(&b, ST_BASIC | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER, NULL, 0);
	rec_mmap2(&in, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, EXE, NULL, 0);
	/* regs abi 0 (none), stack size 0: nothing follows either */
	SAMPLE(&in, MISC_USER, TSTART + 0x5, TIDW(100), 1, 1, 0, 0);
	put_compressed(&b, &in, in.len - 7, 1);
	free(in.p);
	assert_int_equal(read_pipe(&b, 0, &r, err, sizeof(err)), 0);
	assert_int_equal(r.flags, PD_F_DWARF_UNWIND);
	ASSERT_ADDRS(dso_by_path(&r, EXE), 0x1005);
	assert_true(r.decompressed_bytes > 0);
	perfdata_free(&r);
	free(b.p);
}

/* perf record --threads: DIR/data (file mode, HEADER_DIR_FORMAT) + data.N */
static void write_at(int dirfd, const char *name, const void *p, size_t n)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, n), (ssize_t)n);
	close(fd);
}

static void test_directory(void **state)
{
	char dir[] = "/tmp/test_perfdata_dir.XXXXXX", path[PATH_MAX];
	struct pdfile f = { 0 };
	struct buf d1 = { 0 }, d2 = { 0 }, in = { 0 };
	struct pd_result r;
	char err[256];
	int dfd, fd;

	assert_non_null(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	/* data.1: maps and samples of one CPU; data.2: zstd, its own stream */
	rec_mmap2(&d1, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, EXE, NULL, 0);
	SAMPLE(&d1, MISC_USER, TSTART + 0x1, TIDW(100), 1, 1);
	rec_mmap2(&in, MISC_USER, 200, LSTART, 0x1000, 0x2000, RX, LIB, NULL, 0);
	SAMPLE(&in, MISC_USER, LSTART + 0x2, TIDW(200), 1, 1);
	put_compressed(&d2, &in, 20, 1);
	free(in.p);
	write_at(dfd, "data.1", d1.p, d1.len);
	write_at(dfd, "data.2", d2.p, d2.len);
	write_at(dfd, "data.0", "", 0);			/* empty: no reader */
	write_at(dfd, "other", "junk", 4);		/* not data.*: ignored */
	assert_int_equal(mkdirat(dfd, "data.9", 0700), 0);	/* not regular: ignored */

	/* the header file: the synthesized records, DIR_FORMAT version 1 */
	one_attr(&f, ST_BASIC);
	f.dir_version = 1;
	rec_comm(&f.data, 100, "fake");
	SAMPLE(&f.data, MISC_USER, TSTART + 0x3, TIDW(100), 1, 1);
	pdfile_write(&f);
	snprintf(path, sizeof(path), "%s/data", dir);
	assert_int_equal(rename(f.path, path), 0);
	assert_int_equal(perfdata_read(dir, NULL, &r, err, sizeof(err)), 0);
	assert_int_equal(r.nr_samples, 3);
	assert_int_equal(r.nr_records, 8);	/* 2 + 2 + 2 COMPRESSED and their 2 */
	ASSERT_ADDRS(dso_by_path(&r, EXE), 0x1001, 0x1003);
	ASSERT_ADDRS(dso_by_path(&r, LIB), 0x2002);
	assert_int_equal(r.data_bytes, d1.len + d2.len + 24 + 40);
	perfdata_free(&r);

	/* a data.N that ends inside a record */
	write_at(dfd, "data.1", d1.p, d1.len - 4);
	assert_int_equal(perfdata_read(dir, NULL, &r, err, sizeof(err)), -EINVAL);
	print_message("  cut data.1: %s\n", err);
	assert_non_null(strstr(err, "runs past the end of data.1"));
	write_at(dfd, "data.1", d1.p, d1.len);

	/* what the shim accepts as input (perfdata_input_ok) */
	assert_int_equal(perfdata_input_ok(dir), 1);
	assert_int_equal(perfdata_input_ok(path), 1);		/* DIR/data itself */
	snprintf(path, sizeof(path), "%s/data.9", dir);
	assert_int_equal(perfdata_input_ok(path), 0);		/* a directory without data */
	snprintf(path, sizeof(path), "%s/nonexistent", dir);
	assert_int_equal(perfdata_input_ok(path), 0);
	snprintf(path, sizeof(path), "%s/data", dir);

	/* DIR_FORMAT of another version: perf refuses the directory */
	memset(&f, 0, sizeof(f));
	one_attr(&f, ST_BASIC);
	f.dir_version = 2;
	pdfile_write(&f);
	assert_int_equal(rename(f.path, path), 0);
	assert_int_equal(perfdata_read(dir, NULL, &r, err, sizeof(err)), -EINVAL);
	print_message("  version 2: %s\n", err);

	/* no DIR_FORMAT (PERF_DIR_SINGLE_FILE): only DIR/data counts */
	memset(&f, 0, sizeof(f));
	one_attr(&f, ST_BASIC);
	rec_mmap2(&f.data, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, EXE, NULL, 0);
	SAMPLE(&f.data, MISC_USER, TSTART + 0x7, TIDW(100), 1, 1);
	pdfile_write(&f);
	assert_int_equal(rename(f.path, path), 0);
	assert_int_equal(perfdata_read(dir, NULL, &r, err, sizeof(err)), 0);
	assert_int_equal(r.nr_samples, 1);
	ASSERT_ADDRS(dso_by_path(&r, EXE), 0x1007);
	assert_null(dso_by_path(&r, LIB));
	perfdata_free(&r);

	/* DIR/data with a pipe header: not a --threads directory */
	write_at(dfd, "data", (const uint64_t[]){ PD_MAGIC, 16 }, 16);
	assert_int_equal(perfdata_input_ok(dir), 0);
	{
		char fifo[PATH_MAX];

		snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
		assert_int_equal(mkfifo(fifo, 0600), 0);
		assert_int_equal(perfdata_input_ok(fifo), 0);
		assert_int_equal(unlink(fifo), 0);
	}

	/* no DIR/data at all */
	assert_int_equal(unlinkat(dfd, "data", 0), 0);
	assert_int_equal(perfdata_read(dir, NULL, &r, err, sizeof(err)), -ENOENT);
	print_message("  no data: %s\n", err);

	fd = unlinkat(dfd, "data.0", 0) | unlinkat(dfd, "data.1", 0) | unlinkat(dfd, "data.2", 0) |
	     unlinkat(dfd, "other", 0) | unlinkat(dfd, "data.9", AT_REMOVEDIR);
	assert_int_equal(fd, 0);
	close(dfd);
	assert_int_equal(rmdir(dir), 0);
	free(d1.p);
	free(d2.p);
}

static void test_dwarf_flag(void **state)
{
	struct pdfile f = { 0 };
	struct pd_result r;
	char err[256];
	size_t at;

	one_attr(&f, ST_BASIC | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
		 PERF_SAMPLE_STACK_USER);
	f.attrs[0].regs_user = 0xff0fff;
	f.attrs[0].stack_user = 64;
	rec_mmap2(&f.data, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, EXE, NULL, 0);
	at = rec_begin(&f.data, PERF_RECORD_SAMPLE, MISC_USER);
	put64(&f.data, TSTART + 0x9);
	put64(&f.data, TIDW(100));
	put64(&f.data, 1);
	put64(&f.data, 1);
	put64(&f.data, 0);		/* callchain nr 0 (exclude_callchain_user) */
	put64(&f.data, 2);		/* regs abi 64 */
	put(&f.data, NULL, 20 * 8);	/* popcount(0xff0fff) = 20 regs */
	put64(&f.data, 64);		/* stack size */
	put(&f.data, NULL, 64);
	put64(&f.data, 48);		/* dyn_size */
	rec_end(&f.data, at);
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), 0);
	assert_true(r.flags & PD_F_DWARF_UNWIND);
	assert_false(r.flags & PD_F_LBR_CALLSTACK);
	ASSERT_ADDRS(dso_by_path(&r, EXE), 0x1009);
	perfdata_free(&r);

	memset(&f, 0, sizeof(f));
	one_attr(&f, ST_BASIC | PERF_SAMPLE_BRANCH_STACK);
	f.attrs[0].branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK;
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), 0);
	assert_int_equal(r.flags, PD_F_LBR_CALLSTACK | PD_F_NO_SAMPLES);
	perfdata_free(&r);
}

/* A DWARF sample (REGS_USER + STACK_USER, user callchain excluded): 20
 * registers (mask 0xff0fff, IP is register 8), a dump of @size bytes of
 * which @dyn are valid. */
static void dwarf_sample(struct buf *b, uint32_t pid, uint64_t abi, const uint64_t *regs,
			 const unsigned char *stack, uint64_t size, uint64_t dyn)
{
	size_t at = rec_begin(b, PERF_RECORD_SAMPLE, MISC_USER);

	put64(b, regs[8]);		/* ip */
	put64(b, TIDW(pid));
	put64(b, 1);			/* time */
	put64(b, 1);			/* period */
	put64(b, 0);			/* callchain nr (exclude_callchain_user) */
	put64(b, abi);
	if (abi)
		put(b, regs, 20 * 8);
	put64(b, size);
	if (size) {
		put(b, stack, size);
		put64(b, dyn);
	}
	rec_end(b, at);
}

#define OTHER "/usr/lib/libother.so"

/* perfdata/unwind.c: sampled registers and every window of the valid part
 * of the dump (any byte offset), as w and w - 1, through the maps the
 * thread reaches; maps recorded after the sample in file order count;
 * 32-bit user registers make the thread's DSOs unsure. */
static void test_dwarf_unwind(void **state)
{
	struct pdfile f = { 0 };
	struct pd_result r;
	uint64_t regs[20] = { 0 };
	unsigned char stack[64] = { 0 };
	uint64_t v;
	char err[256];
	const struct pd_dso *d;

	one_attr(&f, ST_BASIC | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
		 PERF_SAMPLE_STACK_USER);
	f.attrs[0].regs_user = 0xff0fff;
	f.attrs[0].stack_user = 64;
	rec_mmap2(&f.data, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, EXE, NULL, 0);
	rec_mmap2(&f.data, MISC_USER, 200, LSTART, 0x1000, 0, RX, OTHER, NULL, 0);
	regs[8] = TSTART + 0x100;		/* IP */
	regs[0] = LSTART + 0x50;		/* a register pointing into the library */
	regs[7] = 0x7ffc00001000ull;		/* SP: no map */
	v = TSTART + 0x200;			/* a return address at an odd offset */
	memcpy(stack + 3, &v, 8);
	v = LSTART + 0x10;
	memcpy(stack + 16, &v, 8);
	v = 0x1234;				/* no map */
	memcpy(stack + 24, &v, 8);
	v = TSTART + 0x300;			/* past dyn_size: perf never reads it */
	memcpy(stack + 48, &v, 8);
	dwarf_sample(&f.data, 100, PERF_SAMPLE_REGS_ABI_64, regs, stack, 64, 40);
	/* the library's MMAP comes after the sample in file order */
	rec_mmap2(&f.data, MISC_USER, 100, LSTART, 0x1000, 0, RX, LIB, NULL, 0);
	/* no registers (abi 0): perf does not unwind, the dump is not read */
	v = TSTART + 0x400;
	memcpy(stack, &v, 8);
	dwarf_sample(&f.data, 100, 0, regs, stack, 64, 64);
	/* an empty dump (size 0) is not unwound either */
	dwarf_sample(&f.data, 100, PERF_SAMPLE_REGS_ABI_64, regs, stack, 0, 0);
	/* 32-bit registers in process 200: its DSOs are unsure */
	dwarf_sample(&f.data, 200, PERF_SAMPLE_REGS_ABI_32, regs, stack, 64, 64);
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), 0);
	assert_true(r.flags & PD_F_DWARF_UNWIND);
	/* 0x1100 (sample ip, IP register) and 0x10ff (IP register - 1); not
	 * 0x1300 (past dyn_size) nor 0x1400 (dump of the abi-0 sample) */
	ASSERT_ADDRS(dso_by_path(&r, EXE), 0x10ff, 0x1100, 0x11ff, 0x1200);
	d = dso_by_path(&r, LIB);
	ASSERT_ADDRS(d, 0xf, 0x10, 0x4f, 0x50);
	assert_int_equal(d->unsure, 0);
	assert_int_equal(dso_by_path(&r, EXE)->unsure, 0);
	d = dso_by_path(&r, OTHER);
	assert_non_null(d);
	assert_int_equal(d->unsure, PD_UNSURE_REGS_ABI);
	assert_int_equal(r.unwind.samples, 1);
	assert_int_equal(r.unwind.unsure_samples, 1);
	assert_int_equal(r.unwind.stack_bytes, 40);
	perfdata_free(&r);
}

/* pd_unwind_scan alone: windows at every offset, w - 1 at an interval's
 * start and end, hits across a 4 GiB boundary */
static int scan_add(void *ctx, int32_t tid, uint64_t ip)
{
	struct { uint64_t v[16]; size_t n; } *c = ctx;

	(void)tid;
	if (c->n < 16)
		c->v[c->n] = ip;
	c->n++;
	return 0;
}

static void test_unwind_scan(void **state)
{
	const uint64_t iv[] = { 0x1000, 0x2000, 0xfffff000ull, 0x100001000ull };
	unsigned char st[40] = { 0 };
	uint64_t regs[2] = { 0x2000, 0x1000 };	/* end: 0x1fff; start: 0x1000 */
	uint64_t v;
	struct { uint64_t v[16]; size_t n; } c = { { 0 }, 0 };
	struct pd_unwind_stats stats = { 0 };

	v = 0x100000000ull;	/* inside the second interval, hi32 = 1 */
	memcpy(st + 5, &v, 8);
	v = 0x1800;
	memcpy(st + 30, &v, 8);
	assert_int_equal(pd_unwind_scan(iv, 2, (const unsigned char *)regs, 2, st, sizeof(st), 7,
					scan_add, &c, &stats), 0);
	assert_int_equal(c.n, 6);
	assert_int_equal(c.v[0], 0x1fff);
	assert_int_equal(c.v[1], 0x1000);
	assert_int_equal(c.v[2], 0x100000000ull);
	assert_int_equal(c.v[3], 0xffffffffull);
	assert_int_equal(c.v[4], 0x1800);
	assert_int_equal(c.v[5], 0x17ff);
	assert_int_equal(stats.windows, 2 + sizeof(st) - 7);
}

static void test_id_index_record(void **state)
{
	struct pdfile f = { 0 };
	struct pd_result r;
	char err[256];
	size_t at;

	/* attrs without id sections; IDs come from an ID_INDEX record */
	f.nr_attrs = 2;
	f.attrs[0].sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	f.attrs[1].sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				 PERF_SAMPLE_ADDR;
	at = rec_begin(&f.data, 69, 0);
	put64(&f.data, 2);
	put64(&f.data, 31); put64(&f.data, 0); put64(&f.data, 0); put64(&f.data, 0);
	put64(&f.data, 32); put64(&f.data, 1); put64(&f.data, 0); put64(&f.data, 0);
	rec_end(&f.data, at);
	rec_mmap2(&f.data, MISC_USER, 100, TSTART, TLEN, TPGOFF, RX, EXE, NULL, 0);
	SAMPLE(&f.data, MISC_USER, 31, TSTART + 0x1, TIDW(100));
	SAMPLE(&f.data, MISC_USER, 32, TSTART + 0x2, TIDW(100), TSTART + 0x3);
	assert_int_equal(read_file(&f, NULL, &r, err, sizeof(err)), 0);
	ASSERT_ADDRS(dso_by_path(&r, EXE), 0x1001, 0x1002, 0x1003);
	perfdata_free(&r);
}

static void write_text(char *tmpl, const char *text)
{
	int fd = mkstemp(tmpl);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void test_addrs_read(void **state)
{
	struct pd_result r;
	char err[256], t1[] = "/tmp/test_pd_addrs.XXXXXX", t2[] = "/tmp/test_pd_addrs.XXXXXX";
	static const unsigned char a[4] = { 0xab, 0xcd, 0xef, 0x01 };
	static const unsigned char b[2] = { 0x12, 0x34 };

	write_text(t1, "# comment\n\nabcdef01 0x1f\nABCDEF01\t10\n  1234 ff\nabcdef01 1F\n"
		       "abcdef01 0\n");
	assert_int_equal(addrs_read(t1, &r, err, sizeof(err)), 0);
	unlink(t1);
	assert_int_equal(r.nr_dsos, 2);
	ASSERT_ADDRS(perfdata_find_build_id(&r, a, 4), 0x0, 0x10, 0x1f);
	ASSERT_ADDRS(perfdata_find_build_id(&r, b, 2), 0xff);
	perfdata_free(&r);

	write_text(t2, "abcdef01 10\nabcdef01\nabcdef01 10\n");
	assert_int_equal(addrs_read(t2, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":2:"));
	assert_int_equal(r.nr_dsos, 0);
	unlink(t2);

	strcpy(t2, "/tmp/test_pd_addrs.XXXXXX");
	write_text(t2, "abcdef01 10zz\n");
	assert_int_equal(addrs_read(t2, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":1:"));
	unlink(t2);

	strcpy(t2, "/tmp/test_pd_addrs.XXXXXX");
	write_text(t2, "abc 10\n");	/* odd-length build-id */
	assert_int_equal(addrs_read(t2, &r, err, sizeof(err)), -EINVAL);
	unlink(t2);

	assert_int_equal(addrs_read("/nonexistent/addrs", &r, err, sizeof(err)), -ENOENT);
}

/* issue 19: perf diff's union of two recordings (perfdata_merge) */
static struct pd_dso mk_dso(const char *path, unsigned char bid, uint64_t ino, int n, ...)
{
	struct pd_dso d;
	va_list ap;

	memset(&d, 0, sizeof(d));
	d.path = strdup(path);
	if (bid) {
		d.build_id[0] = bid;
		d.build_id_size = 20;
	}
	d.ino = ino;
	d.have_ino = ino != 0;
	d.addrs = calloc((size_t)n + 1, sizeof(uint64_t));
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		d.addrs[i] = va_arg(ap, uint64_t);
	va_end(ap);
	d.nr_addrs = d.alloc_addrs = (size_t)n;
	return d;
}

static void test_merge(void **state)
{
	struct pd_result a, b;
	const struct pd_dso *d;
	unsigned char id[20] = { 7 };
	int differs = 0;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.dsos = calloc(3, sizeof(*a.dsos));
	a.dsos[0] = mk_dso("/bin/x", 7, 0, 3, (uint64_t)0x10, (uint64_t)0x20, (uint64_t)0x40);
	a.dsos[1] = mk_dso("/nobid", 0, 5, 1, (uint64_t)0x1);
	a.dsos[2] = mk_dso("/nobid2", 0, 5, 1, (uint64_t)0x1);
	a.nr_dsos = 3;
	a.kern.have_kmmap = 1;
	a.kern.kstart = 0xffffffff81000000ull;
	a.kern.addrs = calloc(1, 8);
	a.kern.addrs[0] = 0xffffffff81000010ull;
	a.kern.nr_addrs = a.kern.alloc_addrs = 1;
	a.nr_samples = 5;
	a.flags = PD_F_NO_SAMPLES;
	b.dsos = calloc(4, sizeof(*b.dsos));
	b.dsos[0] = mk_dso("/other/path/x", 7, 0, 3, (uint64_t)0x8, (uint64_t)0x20, (uint64_t)0x50);
	b.dsos[1] = mk_dso("/nobid", 0, 5, 1, (uint64_t)0x2);      /* same file */
	b.dsos[2] = mk_dso("/nobid2", 0, 6, 1, (uint64_t)0x2);     /* another file at that path */
	b.dsos[3] = mk_dso("/lib/y", 9, 0, 1, (uint64_t)0x99);
	b.nr_dsos = 4;
	b.kern = a.kern;
	b.kern.addrs = calloc(1, 8);
	b.kern.addrs[0] = 0xffffffff81000020ull;
	b.nr_samples = 7;
	b.flags = PD_F_DWARF_UNWIND;
	assert_int_equal(perfdata_merge(&a, &b, &differs), 0);
	assert_int_equal(differs, 0);
	assert_int_equal(a.nr_dsos, 4);
	d = perfdata_find_build_id(&a, id, 20);
	assert_non_null(d);
	assert_int_equal(d->nr_addrs, 5);           /* 8 10 20 40 50 */
	assert_int_equal(d->addrs[0], 0x8);
	assert_int_equal(d->addrs[2], 0x20);
	assert_int_equal(d->addrs[4], 0x50);
	assert_int_equal(a.dsos[1].nr_addrs, 2);
	assert_int_equal(a.dsos[1].have_ino, 1);
	assert_int_equal(a.dsos[2].nr_addrs, 2);    /* one entry: 0x1, 0x2 ... */
	assert_int_equal(a.dsos[2].have_ino, 0);    /* ... but no identity left */
	assert_string_equal(a.dsos[3].path, "/lib/y");
	assert_int_equal(a.kern.nr_addrs, 2);
	assert_int_equal(a.nr_samples, 12);
	assert_int_equal(a.flags, PD_F_DWARF_UNWIND);   /* NO_SAMPLES only if both */
	assert_int_equal(b.nr_dsos, 0);
	/* another kernel map: flagged */
	memset(&b, 0, sizeof(b));
	b.kern.have_kmmap = 1;
	b.kern.kstart = 0xffffffff82000000ull;
	assert_int_equal(perfdata_merge(&a, &b, &differs), 0);
	assert_int_equal(differs, 1);
	perfdata_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mmap2_sample_pie),
		cmocka_unit_test(test_addr_data_maps),
		cmocka_unit_test(test_mmap_v1_and_filters),
		cmocka_unit_test(test_callchain_markers),
		cmocka_unit_test(test_fork_inheritance),
		cmocka_unit_test(test_fork_no_cycle),
		cmocka_unit_test(test_tid_wins_over_pid),
		cmocka_unit_test(test_thread_identity_damage),
		cmocka_unit_test(test_two_attrs_identifier),
		cmocka_unit_test(test_two_attrs_id_pos),
		cmocka_unit_test(test_read_raw_layout),
		cmocka_unit_test(test_header_build_id),
		cmocka_unit_test(test_mmap2_embedded_build_id),
		cmocka_unit_test(test_elf_build_id_fallback),
		cmocka_unit_test(test_compressed_split),
		cmocka_unit_test(test_compressed_two_frames),
		cmocka_unit_test(test_compressed_large_expansion),
		cmocka_unit_test(test_compressed_pending_output),
		cmocka_unit_test(test_window_straddle),
		cmocka_unit_test(test_unknown_and_auxtrace_skipped),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_unsupported),
		cmocka_unit_test(test_dwarf_flag),
		cmocka_unit_test(test_dwarf_unwind),
		cmocka_unit_test(test_unwind_scan),
		cmocka_unit_test(test_pipe_mode),
		cmocka_unit_test(test_pipe_compressed),
		cmocka_unit_test(test_directory),
		cmocka_unit_test(test_id_index_record),
		cmocka_unit_test(test_addrs_read),
		cmocka_unit_test(test_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
