/* SPDX-License-Identifier: MIT */
/*
 * test_pd_record.c - the record iterator (perfdata/record.h): every SAMPLE
 * field of a synthetic record, truncation at each field, sample_id
 * trailers; and real recordings made here with perf 6.1:
 * `perf record --call-graph dwarf` (REGS_USER / STACK_USER checked against
 * the sample ip and perf's own sample count), a saved pipe-mode stream and
 * a --threads directory. The recordings are skipped without perf.
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
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>
#if defined(__x86_64__)
#include <asm/perf_regs.h>
#endif

#include "perfdata/record.h"
#include "tests/unit/testutil.h"

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
	uint16_t n;

	while (b->len % 8)
		put(b, NULL, 1);
	n = (uint16_t)(b->len - at);
	memcpy(b->p + at + 6, &n, 2);
}

#define PD_MAGIC 0x32454c4946524550ULL
#define ATTR_SIZE 128

struct attr_spec {
	uint64_t sample_type, read_format, branch_sample_type, regs_user, regs_intr;
	uint32_t stack_user;
	uint64_t id;
};

/* HEADER_ATTR (64): { header; perf_event_attr (ATTR_SIZE bytes); u64 id; } */
static void rec_attr(struct buf *b, const struct attr_spec *a)
{
	size_t at = rec_begin(b, 64, 0), e = b->len;

	put(b, NULL, ATTR_SIZE);
	memcpy(b->p + e + 4, &(uint32_t){ ATTR_SIZE }, 4);
	memcpy(b->p + e + 16, &(uint64_t){ 4000 }, 8);		/* sample_period */
	memcpy(b->p + e + 24, &a->sample_type, 8);
	memcpy(b->p + e + 32, &a->read_format, 8);
	memcpy(b->p + e + 40, &(uint64_t){ 1ull << 18 }, 8);	/* sample_id_all */
	memcpy(b->p + e + 72, &a->branch_sample_type, 8);
	memcpy(b->p + e + 80, &a->regs_user, 8);
	memcpy(b->p + e + 88, &a->stack_user, 4);
	memcpy(b->p + e + 96, &a->regs_intr, 8);
	put64(b, a->id);
	rec_end(b, at);
}

/* A pipe-mode file of @stream; returns the path (unlink it). */
static const char *write_pipe(char *path, const struct buf *stream)
{
	int fd = mkstemp(path);
	uint64_t h[2] = { PD_MAGIC, 16 };

	assert_true(fd >= 0);
	assert_int_equal(write(fd, h, 16), 16);
	assert_int_equal(write(fd, stream->p, stream->len), (ssize_t)stream->len);
	close(fd);
	return path;
}

/* ------------------------------------------------- every SAMPLE field */

#define ST_ALL (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | \
	PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | \
	PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | \
	PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION | \
	PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP | \
	PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX)

/* The fields in uapi / evsel__parse_sample order, each with the offset
 * (from the record start) where it begins: truncating the record there
 * must report that field as broken. */
struct field_at {
	uint64_t bit;
	size_t off;
};

static size_t full_sample(struct buf *b, struct field_at *f, size_t *nf)
{
	size_t at = rec_begin(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER), i;
	size_t n = 0;

#define AT(B) (f[n].bit = (B), f[n++].off = b->len - at)
	AT(PERF_SAMPLE_IDENTIFIER);	put64(b, 77);
	AT(PERF_SAMPLE_IP);		put64(b, 0x401000);
	AT(PERF_SAMPLE_TID);		put32(b, 100); put32(b, 101);
	AT(PERF_SAMPLE_TIME);		put64(b, 123456789);
	AT(PERF_SAMPLE_ADDR);		put64(b, 0xdead0000);
	AT(PERF_SAMPLE_ID);		put64(b, 77);
	AT(PERF_SAMPLE_STREAM_ID);	put64(b, 55);
	AT(PERF_SAMPLE_CPU);		put32(b, 3); put32(b, 9);
	AT(PERF_SAMPLE_PERIOD);		put64(b, 4000);
	/* read_format GROUP|ID|TOTAL_TIME_ENABLED: nr, enabled, {value, id} x 2 */
	AT(PERF_SAMPLE_READ);		put64(b, 2); put64(b, 1000); put64(b, 5); put64(b, 77);
					put64(b, 6); put64(b, 78);
	AT(PERF_SAMPLE_CALLCHAIN);	put64(b, 3); put64(b, (uint64_t)PERF_CONTEXT_USER);
					put64(b, 0x401000); put64(b, 0x401234);
	AT(PERF_SAMPLE_RAW);		put32(b, 12); put(b, "raw-payload!", 12);
	AT(PERF_SAMPLE_BRANCH_STACK);	put64(b, 1); put64(b, 42);	/* nr, hw_idx */
					put64(b, 0x401100); put64(b, 0x401200); put64(b, 0);
	AT(PERF_SAMPLE_REGS_USER);	put64(b, PERF_SAMPLE_REGS_ABI_64);
					put64(b, 0x1111); put64(b, 0x2222); put64(b, 0x3333);
	AT(PERF_SAMPLE_STACK_USER);	put64(b, 16); put(b, "0123456789abcdef", 16); put64(b, 12);
	AT(PERF_SAMPLE_WEIGHT);		put64(b, 31);
	AT(PERF_SAMPLE_DATA_SRC);	put64(b, 0x5080021);
	AT(PERF_SAMPLE_TRANSACTION);	put64(b, 0x7);
	AT(PERF_SAMPLE_REGS_INTR);	put64(b, PERF_SAMPLE_REGS_ABI_64); put64(b, 0x4444);
	AT(PERF_SAMPLE_PHYS_ADDR);	put64(b, 0x12345000);
	AT(PERF_SAMPLE_CGROUP);		put64(b, 0xc6);
	AT(PERF_SAMPLE_DATA_PAGE_SIZE);	put64(b, 4096);
	AT(PERF_SAMPLE_CODE_PAGE_SIZE);	put64(b, 2097152);
	AT(PERF_SAMPLE_AUX);		put64(b, 8); put(b, "AUXDATA!", 8);
#undef AT
	rec_end(b, at);
	*nf = n;
	for (i = 1; i < n; i++)
		assert_true(f[i].off > f[i - 1].off);
	return at;
}

static const struct attr_spec all_attr = {
	.sample_type = ST_ALL,
	.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED,
	.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX,
	.regs_user = (1u << 0) | (1u << 7) | (1u << 8),	/* 3 registers */
	.regs_intr = 1u << 5,
	.stack_user = 16,
	.id = 77,
};

/* one record of @stream (after the HEADER_ATTR) through the iterator */
static int first_sample(const struct buf *stream, struct pd_reader **rp, struct pd_record *rec)
{
	char path[] = "/tmp/test_pd_record.XXXXXX", err[256];
	int rc;

	rc = pd_open(rp, write_pipe(path, stream), NULL, err, sizeof(err));
	unlink(path);
	assert_int_equal(rc, 0);
	assert_int_equal(pd_mode(*rp), PD_MODE_PIPE);
	while ((rc = pd_next(*rp, rec)) > 0)
		if (rec->kind == PD_K_SAMPLE)
			return 1;
	return rc;
}

static void test_all_sample_fields(void **state)
{
	struct buf b = { 0 };
	struct field_at f[32];
	size_t nf, at;
	struct pd_reader *r;
	struct pd_record rec;
	const struct pd_sample *s = &rec.sample;

	rec_attr(&b, &all_attr);
	at = full_sample(&b, f, &nf);
	assert_int_equal(nf, 24);
	assert_int_equal(first_sample(&b, &r, &rec), 1);
	assert_int_equal(rec.offset, 16 + at);
	assert_int_equal(s->broken, 0);
	assert_int_equal(s->have, ST_ALL);
	assert_int_equal(s->attr_idx, 0);
	assert_false(s->id_unknown);
	assert_int_equal(s->cpumode, PERF_RECORD_MISC_USER);
	assert_int_equal(s->id, 77);
	assert_int_equal(s->ip, 0x401000);
	assert_int_equal(s->pid, 100);
	assert_int_equal(s->tid, 101);
	assert_int_equal(s->time, 123456789);
	assert_int_equal(s->addr, 0xdead0000);
	assert_int_equal(s->stream_id, 55);
	assert_int_equal(s->cpu, 3);
	assert_int_equal(s->cpu_res, 9);
	assert_int_equal(s->period, 4000);
	assert_int_equal(s->read.nr, 2);
	assert_int_equal(s->read.size, 48);
	assert_int_equal(pd_u64(s->read.data, 5), 78);
	assert_int_equal(s->callchain_nr, 3);
	assert_int_equal(pd_u64(s->callchain, 0), (uint64_t)PERF_CONTEXT_USER);
	assert_int_equal(pd_u64(s->callchain, 2), 0x401234);
	assert_int_equal(s->raw_size, 12);
	assert_memory_equal(s->raw, "raw-payload!", 12);
	assert_int_equal(s->branch_nr, 1);
	assert_true(s->branch_has_hw_idx);
	assert_int_equal(s->branch_hw_idx, 42);
	assert_int_equal(pd_u64(s->branch, 0), 0x401100);
	assert_int_equal(pd_u64(s->branch, 1), 0x401200);
	assert_int_equal(s->user_regs.abi, PERF_SAMPLE_REGS_ABI_64);
	assert_int_equal(s->user_regs.mask, all_attr.regs_user);
	assert_int_equal(s->user_regs.nr, 3);
	assert_int_equal(pd_u64(s->user_regs.regs, 2), 0x3333);
	assert_int_equal(s->user_stack.size, 16);
	assert_memory_equal(s->user_stack.data, "0123456789abcdef", 16);
	assert_int_equal(s->user_stack.dyn_size, 12);
	assert_int_equal(s->weight, 31);
	assert_int_equal(s->data_src, 0x5080021);
	assert_int_equal(s->transaction, 7);
	assert_int_equal(s->intr_regs.nr, 1);
	assert_int_equal(pd_u64(s->intr_regs.regs, 0), 0x4444);
	assert_int_equal(s->phys_addr, 0x12345000);
	assert_int_equal(s->cgroup, 0xc6);
	assert_int_equal(s->data_page_size, 4096);
	assert_int_equal(s->code_page_size, 2097152);
	assert_int_equal(s->aux.size, 8);
	assert_memory_equal(s->aux.data, "AUXDATA!", 8);
	assert_ptr_equal(s->aux.data + 8, rec.bytes + rec.size);	/* all consumed */
	assert_int_equal(pd_next(r, &rec), 0);
	pd_close(r);
	free(b.p);
}

/* Cut the record at each field: that field is broken, the earlier ones
 * parsed, no later one. */
static void test_truncation_each_field(void **state)
{
	struct field_at f[32];
	size_t nf, i, at;

	for (i = 0; i < 24; i++) {
		struct buf b = { 0 };
		struct pd_reader *r;
		struct pd_record rec;
		uint64_t before = 0;
		size_t j;
		uint16_t cut;

		rec_attr(&b, &all_attr);
		at = full_sample(&b, f, &nf);
		/* keep 4 bytes of the field (all are >= 8 bytes long; RAW
		 * keeps its u32 size then): it starts but does not fit */
		cut = (uint16_t)(f[i].off + 4);
		memcpy(b.p + at + 6, &cut, 2);
		b.len = at + cut;
		assert_int_equal(first_sample(&b, &r, &rec), 1);
		for (j = 0; j < i; j++)
			before |= f[j].bit;
		assert_int_equal(rec.sample.broken, f[i].bit);
		assert_int_equal(rec.sample.have, before);
		pd_close(r);
		free(b.p);
	}
}

/* REGS with abi 0 carry no registers; STACK_USER size 0 has no dyn_size;
 * dyn_size > size is broken (evsel.c "user stack dump failure"). */
static void test_regs_stack_forms(void **state)
{
	struct attr_spec a = { .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER |
					      PERF_SAMPLE_STACK_USER | PERF_SAMPLE_PERIOD,
			       .regs_user = 0xff, .stack_user = 64 };
	struct buf b = { 0 };
	struct pd_reader *r;
	struct pd_record rec;
	size_t at;

	/* PERIOD comes before the regs: ip, period, regs {abi 0}, stack {0} */
	rec_attr(&b, &a);
	at = rec_begin(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
	put64(&b, 0xffffffff81000000ull);
	put64(&b, 1);
	put64(&b, PERF_SAMPLE_REGS_ABI_NONE);
	put64(&b, 0);
	rec_end(&b, at);
	assert_int_equal(first_sample(&b, &r, &rec), 1);
	assert_int_equal(rec.sample.broken, 0);
	assert_int_equal(rec.sample.user_regs.nr, 0);
	assert_null(rec.sample.user_regs.regs);
	assert_int_equal(rec.sample.user_stack.size, 0);
	assert_null(rec.sample.user_stack.data);
	assert_int_equal(rec.sample.cpumode, PERF_RECORD_MISC_KERNEL);
	pd_close(r);
	free(b.p);

	memset(&b, 0, sizeof(b));
	rec_attr(&b, &a);
	at = rec_begin(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(&b, 0x401000);
	put64(&b, 1);
	put64(&b, PERF_SAMPLE_REGS_ABI_64);
	put(&b, NULL, 8 * 8);
	put64(&b, 8);
	put64(&b, 0);
	put64(&b, 9);		/* dyn_size 9 > size 8 */
	rec_end(&b, at);
	assert_int_equal(first_sample(&b, &r, &rec), 1);
	assert_int_equal(rec.sample.broken, PERF_SAMPLE_STACK_USER);
	assert_int_equal(rec.sample.have, PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD | PERF_SAMPLE_REGS_USER);
	assert_int_equal(rec.sample.user_regs.nr, 8);
	pd_close(r);
	free(b.p);
}

/* sample_id trailers, attrs chosen by ID, unknown IDs, MMAP2 forms */
static void test_sample_id_and_mmap2(void **state)
{
	struct attr_spec a0 = { .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
					       PERF_SAMPLE_IDENTIFIER, .id = 5 };
	struct attr_spec a1 = a0;
	struct buf b = { 0 };
	char path[] = "/tmp/test_pd_record.XXXXXX", err[256];
	struct pd_reader *r;
	struct pd_record rec;
	unsigned char bid[20] = { 0xb1, 0xd0 };
	size_t at, nattr;

	a1.sample_type |= PERF_SAMPLE_ADDR;
	a1.id = 6;
	rec_attr(&b, &a0);
	rec_attr(&b, &a1);
	/* MMAP2, build-id form, with a sample_id {tid, time, identifier 6} */
	at = rec_begin(&b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	put32(&b, 200); put32(&b, 201);
	put64(&b, 0x400000); put64(&b, 0x1000); put64(&b, 0);
	put(&b, (unsigned char[4]){ 2 }, 4); put(&b, bid, 20);
	put32(&b, 5); put32(&b, 2);		/* prot, flags */
	put(&b, "/bin/x\0\0", 8);
	put32(&b, 200); put32(&b, 201); put64(&b, 999); put64(&b, 6);
	rec_end(&b, at);
	/* MMAP2, maj/min/ino form, unterminated name up to the trailer */
	at = rec_begin(&b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	put32(&b, 200); put32(&b, 201);
	put64(&b, 0x500000); put64(&b, 0x2000); put64(&b, 0x1000);
	put32(&b, 8); put32(&b, 1); put64(&b, 4242); put64(&b, 7);
	put32(&b, 5); put32(&b, 2);
	put(&b, "/bin/yyy", 8);
	put32(&b, 200); put32(&b, 201); put64(&b, 1000); put64(&b, 99);	/* unknown id */
	rec_end(&b, at);
	/* samples: id 6 -> attr 1 (with ADDR), id 99 unknown -> attr 0 */
	at = rec_begin(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(&b, 6); put64(&b, 0x400010); put32(&b, 200); put32(&b, 201); put64(&b, 1); put64(&b, 0xadd0);
	rec_end(&b, at);
	at = rec_begin(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	put64(&b, 99); put64(&b, 0x400020); put32(&b, 200); put32(&b, 201); put64(&b, 2);
	rec_end(&b, at);

	assert_int_equal(pd_open(&r, write_pipe(path, &b), NULL, err, sizeof(err)), 0);
	unlink(path);
	assert_int_equal(pd_next(r, &rec), 1);
	assert_int_equal(rec.kind, PD_K_ATTR);
	assert_int_equal(pd_next(r, &rec), 1);
	assert_int_equal(rec.kind, PD_K_ATTR);
	assert_int_equal(rec.attr.idx, 1);
	assert_int_equal(rec.attr.attr->sample_period, 4000);
	pd_attrs(r, &nattr);
	assert_int_equal(nattr, 2);
	assert_int_equal(pd_attr_of_id(r, 6), 1);
	assert_int_equal(pd_attr_of_id(r, 7), -1);

	assert_int_equal(pd_next(r, &rec), 1);
	assert_int_equal(rec.kind, PD_K_MMAP);
	assert_true(rec.mmap.is_mmap2);
	assert_int_equal(rec.mmap.build_id_size, 2);
	assert_memory_equal(rec.mmap.build_id, bid, 2);
	assert_int_equal(rec.mmap.prot, 5);
	assert_string_equal(rec.mmap.filename, "/bin/x");
	assert_true(rec.sid.valid);
	assert_int_equal(rec.sid.tid, 201);
	assert_int_equal(rec.sid.time, 999);
	assert_int_equal(rec.sid.id, 6);
	assert_int_equal(rec.sid.have, PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER);

	assert_int_equal(pd_next(r, &rec), 1);
	assert_int_equal(rec.mmap.maj, 8);
	assert_int_equal(rec.mmap.min, 1);
	assert_int_equal(rec.mmap.ino, 4242);
	assert_int_equal(rec.mmap.ino_generation, 7);
	assert_null(rec.mmap.build_id);
	assert_int_equal(rec.mmap.pgoff, 0x1000);
	assert_int_equal(rec.mmap.filename_max, 8 + 24);	/* name runs into the trailer */
	assert_false(rec.sid.valid);				/* unknown id 99 */

	assert_int_equal(pd_next(r, &rec), 1);
	assert_int_equal(rec.kind, PD_K_SAMPLE);
	assert_int_equal(rec.sample.attr_idx, 1);
	assert_int_equal(rec.sample.addr, 0xadd0);
	assert_int_equal(rec.sample.have, a1.sample_type);

	assert_int_equal(pd_next(r, &rec), 1);
	assert_true(rec.sample.id_unknown);
	assert_int_equal(rec.sample.attr_idx, 0);
	assert_int_equal(rec.sample.time, 2);
	assert_int_equal(pd_next(r, &rec), 0);
	assert_int_equal(pd_next(r, &rec), 0);
	pd_close(r);
	free(b.p);
}

/* ------------------------------------------------- real recordings */

static char tmpdir[64];

/* perf record OPTS of a shell loop into tmpdir/OUT (PIPE: `-o - > OUT`);
 * 0 if perf is missing or fails */
static int record(const char *out, const char *opts, int pipe)
{
	if (test_sh("command -v perf >/dev/null 2>&1") != 0)
		return 0;
	return test_sh("cd %s && HOME=%s perf record -q -N %s -o %s -- sh -c "
		  "'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done' %s%s 2>/dev/null",
		  tmpdir, tmpdir, opts, pipe ? "-" : out, pipe ? "> " : "", pipe ? out : "") == 0;
}

static long perf_count(const char *input)
{
	char cmd[512];
	FILE *p;
	long n = -1;

	snprintf(cmd, sizeof(cmd), "HOME=%s perf script -G -F tid -i %s 2>/dev/null | wc -l", tmpdir, input);
	p = popen(cmd, "r");
	if (p) {
		if (fscanf(p, "%ld", &n) != 1)
			n = -1;
		pclose(p);
	}
	return n;
}

static int setup_tmp(void **state)
{
	strcpy(tmpdir, "/tmp/test_pd_record.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_tmp(void **state)
{
	return test_sh("rm -rf %s", tmpdir) == 0 ? 0 : -1;
}

/* `perf record --call-graph dwarf`: every sample parses completely; the
 * user registers are the sample_regs_user mask's popcount with the 64-bit
 * ABI, their IP is the sample ip, the stack dump is STACK_USER bytes with
 * dyn_size <= size and ends the record; as many samples as perf script
 * prints. */
static void test_dwarf_recording(void **state)
{
	char path[128], err[256];
	struct pd_reader *r;
	struct pd_record rec;
	const struct pd_attr *a;
	size_t na;
	long nsamples = 0, with_stack = 0, nmmap2 = 0, nsid = 0;
	int rc;

	if (!record("dwarf.data", "-e cpu-clock:u -c 100000 --call-graph dwarf,4096", 0))
		skip();
	snprintf(path, sizeof(path), "%s/dwarf.data", tmpdir);
	assert_int_equal(pd_open(&r, path, NULL, err, sizeof(err)), 0);
	assert_int_equal(pd_mode(r), PD_MODE_FILE);
	a = pd_attrs(r, &na);
	assert_true(na >= 1);
	assert_true(a[0].sample_type & PERF_SAMPLE_REGS_USER);
	assert_true(a[0].sample_type & PERF_SAMPLE_STACK_USER);
	assert_int_equal(a[0].sample_stack_user, 4096);
	assert_true(a[0].sample_regs_user != 0);
	while ((rc = pd_next(r, &rec)) > 0) {
		const struct pd_sample *s = &rec.sample;

		if (rec.kind == PD_K_MMAP && rec.mmap.is_mmap2) {
			nmmap2++;
			assert_non_null(memchr(rec.mmap.filename, '\0', rec.mmap.filename_max));
			nsid += rec.sid.valid && (rec.sid.have & PERF_SAMPLE_TID);
		}
		if (rec.kind != PD_K_SAMPLE)
			continue;
		nsamples++;
		assert_int_equal(s->broken, 0);
		assert_int_equal(s->have, s->attr->sample_type);
		assert_int_equal(s->cpumode, PERF_RECORD_MISC_USER);
		assert_int_equal(s->user_regs.mask, a[0].sample_regs_user);
		if (s->user_regs.abi) {
			assert_int_equal(s->user_regs.abi, sizeof(void *) == 8 ? PERF_SAMPLE_REGS_ABI_64
									 : PERF_SAMPLE_REGS_ABI_32);
			assert_int_equal(s->user_regs.nr, (unsigned)__builtin_popcountll(a[0].sample_regs_user));
			assert_non_null(s->user_regs.regs);
#if defined(__x86_64__)
			{
				uint64_t m = s->user_regs.mask;
				unsigned ipi = (unsigned)__builtin_popcountll(m & ((1ull << PERF_REG_X86_IP) - 1));
				unsigned spi = (unsigned)__builtin_popcountll(m & ((1ull << PERF_REG_X86_SP) - 1));

				assert_true(m & (1ull << PERF_REG_X86_IP));
				assert_int_equal(pd_u64(s->user_regs.regs, ipi), s->ip);
				assert_true(pd_u64(s->user_regs.regs, spi) != 0);
			}
#endif
		}
		assert_true(s->user_stack.size <= 4096 && s->user_stack.size % 8 == 0);
		if (s->user_stack.size) {
			with_stack++;
			assert_true(s->user_stack.dyn_size <= s->user_stack.size);
			if (!(s->attr->sample_type & ~(uint64_t)(2 * PERF_SAMPLE_STACK_USER - 1) &
			      ~(uint64_t)PERF_SAMPLE_IDENTIFIER))
				/* nothing after STACK_USER: data, dyn_size, end */
				assert_ptr_equal(s->user_stack.data + s->user_stack.size + 8,
						 rec.bytes + rec.size);
		}
	}
	assert_int_equal(rc, 0);
	pd_close(r);
	print_message("  %ld samples (%ld with a user stack), %ld MMAP2 (%ld with a sample_id)\n",
		      nsamples, with_stack, nmmap2, nsid);
	assert_true(nsamples > 0);
	assert_true(with_stack > 0);
	assert_true(nmmap2 > 0 && nsid == nmmap2);
	assert_int_equal(nsamples, perf_count(path));
}

/* A saved pipe-mode stream and a --threads directory of real perf. */
static void test_pipe_and_dir_recordings(void **state)
{
	char path[128], err[256];
	struct pd_reader *r;
	struct pd_record rec;
	long n, attrs = 0, nfiles;
	int rc;

	if (!record("pipe.data", "-e cpu-clock:u -c 100000 -g", 1))
		skip();
	snprintf(path, sizeof(path), "%s/pipe.data", tmpdir);
	assert_int_equal(pd_open(&r, path, NULL, err, sizeof(err)), 0);
	assert_int_equal(pd_mode(r), PD_MODE_PIPE);
	for (n = 0; (rc = pd_next(r, &rec)) > 0;) {
		n += rec.kind == PD_K_SAMPLE;
		attrs += rec.kind == PD_K_ATTR;
	}
	assert_int_equal(rc, 0);
	assert_true(attrs >= 1);
	assert_true(n > 0);
	assert_int_equal(n, perf_count(path));
	pd_close(r);

	if (!record("threads.data", "-e cpu-clock:u -c 100000 -g --threads", 0))
		skip();
	snprintf(path, sizeof(path), "%s/threads.data", tmpdir);
	assert_int_equal(pd_open(&r, path, NULL, err, sizeof(err)), 0);
	assert_int_equal(pd_mode(r), PD_MODE_DIR);
	for (nfiles = 0; pd_file_name(r, (unsigned)nfiles); nfiles++)
		;
	assert_true(nfiles >= 2);	/* data and data.N */
	assert_non_null(strstr(pd_file_name(r, 0), "/threads.data/data"));
	for (n = 0; (rc = pd_next(r, &rec)) > 0;)
		n += rec.kind == PD_K_SAMPLE;
	assert_int_equal(rc, 0);
	assert_true(n > 0);
	assert_int_equal(n, perf_count(path));
	print_message("  pipe and %ld-file directory recordings read\n", nfiles);
	pd_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_sample_fields),
		cmocka_unit_test(test_truncation_each_field),
		cmocka_unit_test(test_regs_stack_forms),
		cmocka_unit_test(test_sample_id_and_mmap2),
		cmocka_unit_test(test_dwarf_recording),
		cmocka_unit_test(test_pipe_and_dir_recordings),
	};

	return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
