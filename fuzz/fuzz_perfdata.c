/* SPDX-License-Identifier: MIT */
/*
 * fuzz_perfdata - perfdata_read() (perfdata/perfdata.c) and the record iterator
 * under it (perfdata/record.c) on arbitrary bytes.
 *
 * The bytes are a perf.data file (file mode, or a pipe-mode stream when
 * they start with a pipe header); ops = NULL so no DSO named in the input
 * is opened (build-ids come only from the file). Inputs that start with
 * "SLFZDIR\0" + u64 n are a `perf record --threads` directory instead:
 * the next n bytes become DIR/data and the rest DIR/data.1 (a directory
 * in /tmp per process, rewritten for each input).
 *
 * Checks the documented invariants: for perfdata_read, address sets
 * sorted and unique, build-id sizes in range, an empty result on error,
 * and that the SYMLAZY_ADDRS writer accepts it; for the iterator, every
 * pointer of every record (sample arrays, registers, stack, raw, aux,
 * names) inside the record, each array read once (ASan checks the
 * bytes), have/broken disjoint, dyn_size <= size, errors sticky.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include "fuzz_common.h"
#include "perfdata/record.h"
#include "perfdata/perfdata.h"

static volatile unsigned char sink;

static void touch(const unsigned char *p, uint64_t n)
{
	unsigned char x = 0;

	while (n--)
		x ^= *p++;
	sink ^= x;
}

/* [p, p + n) lies inside the record [b, b + size) and is readable */
#define INSIDE(p, n) do { \
	const unsigned char *p_ = (const unsigned char *)(p); \
	uint64_t n_ = (n); \
	if (n_) { \
		FUZZ_CHECK(p_ != NULL && p_ >= b && p_ <= e && n_ <= (uint64_t)(e - p_)); \
		touch(p_, n_); \
	} \
} while (0)

static void check_record(const struct pd_record *rec)
{
	const unsigned char *b = rec->bytes, *e = b + rec->size;

	FUZZ_CHECK(rec->size >= 8 && b != NULL);
	touch(b, rec->size);
	switch (rec->kind) {
	case PD_K_SAMPLE: {
		const struct pd_sample *s = &rec->sample;

		FUZZ_CHECK(s->attr != NULL);
		FUZZ_CHECK(!(s->have & s->broken));
		FUZZ_CHECK(!(s->broken & (s->broken - 1)));	/* at most one bit */
		FUZZ_CHECK((s->have & ~s->attr->sample_type) == 0);
		INSIDE(s->read.data, s->read.size);
		INSIDE(s->callchain, s->callchain_nr * 8);
		INSIDE(s->raw, s->raw_size);
		INSIDE(s->branch, s->branch_nr * 24);
		INSIDE(s->user_regs.regs, 8 * (uint64_t)s->user_regs.nr);
		INSIDE(s->intr_regs.regs, 8 * (uint64_t)s->intr_regs.nr);
		FUZZ_CHECK(s->user_regs.nr <= 64 && s->intr_regs.nr <= 64);
		if (s->user_regs.abi == 0)
			FUZZ_CHECK(s->user_regs.nr == 0);
		INSIDE(s->user_stack.data, s->user_stack.size);
		FUZZ_CHECK(s->user_stack.dyn_size <= s->user_stack.size);
		INSIDE(s->aux.data, s->aux.size);
		break;
	}
	case PD_K_MMAP:
		INSIDE(rec->mmap.filename, rec->mmap.filename_max);
		if (rec->mmap.build_id)
			INSIDE(rec->mmap.build_id, 20);
		break;
	case PD_K_COMM:
		INSIDE(rec->comm.comm, rec->comm.comm_max);
		break;
	case PD_K_BUILD_ID:
		INSIDE(rec->build_id.build_id, 20);
		INSIDE(rec->build_id.filename, rec->build_id.filename_max);
		break;
	case PD_K_ATTR:
		FUZZ_CHECK(rec->attr.attr != NULL);
		break;
	default:
		break;
	}
}

static void walk(const char *path)
{
	struct pd_reader *r = (struct pd_reader *)1;
	struct pd_record rec;
	char err[200];
	size_t na;
	int rc;

	memset(err, 'X', sizeof(err));
	rc = pd_open(&r, path, NULL, err, sizeof(err));
	FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL);
	if (rc < 0) {
		FUZZ_CHECK(r == NULL);
		FUZZ_CHECK(err[0] != '\0' || rc == -ENOMEM);
		return;
	}
	while ((rc = pd_next(r, &rec)) > 0) {
		check_record(&rec);
		if (rec.kind == PD_K_SAMPLE) {
			pd_attrs(r, &na);
			FUZZ_CHECK(rec.sample.attr_idx < na);
		}
	}
	FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ENOTSUP || rc == -ENOMEM || rc == -EIO);
	if (rc < 0)
		FUZZ_CHECK(err[0] != '\0');
	FUZZ_CHECK(pd_next(r, &rec) == rc);	/* end and errors are sticky */
	pd_close(r);
}

static void check_result(const char *path)
{
	struct pd_result res;
	char err[200];
	int r;
	size_t i, j;

	memset(err, 'X', sizeof(err));
	r = perfdata_read(path, NULL, &res, err, sizeof(err));
	FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL);
	if (r < 0) {
		FUZZ_CHECK(res.nr_dsos == 0 && res.dsos == NULL);
		FUZZ_CHECK(r == -EINVAL || r == -ENOTSUP || r == -ENOMEM || r == -EIO);
		FUZZ_CHECK(err[0] != '\0' || r == -ENOMEM);
	} else {
		for (i = 0; i < res.nr_dsos; i++) {
			const struct pd_dso *d = &res.dsos[i];

			FUZZ_CHECK(d->build_id_size <= PD_BUILD_ID_MAX);
			/* DSOs a 32-bit-ABI DWARF sample reaches are listed unsure,
			 * addresses or not (perfdata.h) */
			FUZZ_CHECK((d->nr_addrs > 0 && d->addrs != NULL) || d->unsure);
			for (j = 1; j < d->nr_addrs; j++)
				FUZZ_CHECK(d->addrs[j - 1] < d->addrs[j]);
			if (d->build_id_size)
				FUZZ_CHECK(perfdata_find_build_id(&res, d->build_id, d->build_id_size) != NULL);
		}
		{
			int nul = open("/dev/null", O_WRONLY | O_CLOEXEC);

			if (nul >= 0) {
				FUZZ_CHECK(perfdata_write_addrs(&res, nul) == 0);
				close(nul);
			}
		}
	}
	perfdata_free(&res);
}

/* ------------------------------------------------- directory inputs */

static char dir[64];

static void rm_dir(void)
{
	char p[96];

	snprintf(p, sizeof(p), "%s/data", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/data.1", dir);
	unlink(p);
	rmdir(dir);
}

static int put_file(const char *name, const uint8_t *p, size_t n)
{
	char path[96];
	int fd;
	size_t off = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	while (off < n) {
		ssize_t w = write(fd, p + off, n - off);

		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(fd);
	return off == n ? 0 : -1;
}

static int dir_input(const uint8_t *data, size_t size)
{
	uint64_t n;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/symlazy-fuzz-dir.%d.XXXXXX", (int)getpid());
		if (!mkdtemp(dir)) {
			dir[0] = '\0';
			return -1;
		}
		atexit(rm_dir);
	}
	memcpy(&n, data + 8, 8);
	data += 16;
	size -= 16;
	if (n > size)
		n = size;
	return put_file("data", data, (size_t)n) < 0 ||
	       put_file("data.1", data + n, size - (size_t)n) < 0 ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd;

	if (size >= 16 && !memcmp(data, "SLFZDIR", 8)) {
		if (dir_input(data, size) == 0) {
			check_result(dir);
			walk(dir);
		}
		return 0;
	}
	fd = fuzz_memfd(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	check_result(path);
	walk(path);
	close(fd);
	return 0;
}
