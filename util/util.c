/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/reason.h"
#include "util/util.h"

int sl_grow(void **p, size_t *alloc, size_t need, size_t sz, size_t first)
{
	size_t n = *alloc ? *alloc : first;
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

int sl_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

size_t sl_sort_unique_u64(uint64_t *v, size_t n)
{
	size_t i, o = 0;

	if (n < 2)
		return n;
	qsort(v, n, sizeof(*v), sl_cmp_u64);
	for (i = 0; i < n; i++)
		if (o == 0 || v[o - 1] != v[i])
			v[o++] = v[i];
	return o;
}

size_t sl_last_le(const void *base, size_t n, size_t size, uint64_t x,
		  uint64_t (*key_of)(const void *elem))
{
	size_t lo = 0, hi = n;      /* answer in [lo-1, hi) */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (key_of((const char *)base + mid * size) <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : (size_t)-1;
}

size_t sl_last_le_u64(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : (size_t)-1;
}

void sl_warnx(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n, saved = errno;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n >= 0) {
		if (n > (int)sizeof(buf) - 2) {
			n = (int)sizeof(buf) - 2;
			memcpy(buf + n - 3, "...", 3);
		}
		buf[n++] = '\n';
		(void)!write(2, buf, (size_t)n);
	}
	errno = saved;
}

void *sl_scratch_map(size_t bytes, const char *name)
{
	int fd = memfd_create(name, MFD_CLOEXEC);
	void *p;

	if (fd < 0)
		return NULL;
	if (ftruncate(fd, (off_t)(bytes ? bytes : 1)) < 0) {
		close(fd);
		return NULL;
	}
	p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

int sl_open_regular(const char *path, struct stat *st, struct sl_why *why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), r;

	if (fd < 0) {
		r = -errno;
		return sl_whyf(why, SL_R_OPEN_FAILED, r, "%s: %s", path, strerror(-r));
	}
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		return sl_whyf(why, SL_R_NOT_REGULAR, -EINVAL, "%s", path);
	}
	return fd;
}

int sl_errf(char *err, size_t n, int r, const char *fmt, ...)
{
	va_list ap;

	if (n) {
		va_start(ap, fmt);
		vsnprintf(err, n, fmt, ap);
		va_end(ap);
	}
	return r;
}

size_t sl_utf8_put(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}
