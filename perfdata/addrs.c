/* SPDX-License-Identifier: MIT */
/*
 * perfdata/addrs.c - the SYMLAZY_ADDRS text format and pd_result helpers.
 *
 * Format (symlazy's own, see perfdata.h): one "<build-id-hex> <addr-hex>"
 * pair per line, addr with or without "0x"; '#' starts a comment line;
 * blank lines are ignored. Addresses are DSO file offsets (perfdata.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfdata/kernel.h"
#include "perfdata/perfdata.h"
#include "util/util.h"

void perfdata_free(struct pd_result *res)
{
	size_t i;

	if (!res)
		return;
	for (i = 0; i < res->nr_dsos; i++) {
		free(res->dsos[i].path);
		free(res->dsos[i].addrs);
	}
	free(res->dsos);
	for (i = 0; i < res->nr_jit; i++) {
		free(res->jit[i].path);
		free(res->jit[i].addrs);
	}
	free(res->jit);
	pd_kernel_free(&res->kern);
	memset(res, 0, sizeof(*res));
}

const struct pd_dso *perfdata_find_jit(const struct pd_result *res, const char *path)
{
	size_t i;

	for (i = 0; res && path && i < res->nr_jit; i++)
		if (res->jit[i].path && !strcmp(res->jit[i].path, path))
			return &res->jit[i];
	return NULL;
}

const struct pd_dso *perfdata_find_build_id(const struct pd_result *res,
					    const unsigned char *id, size_t len)
{
	size_t i;

	if (!res || !id || !len)
		return NULL;
	for (i = 0; i < res->nr_dsos; i++)	/* few DSOs: linear */
		if (res->dsos[i].build_id_size == len && !memcmp(res->dsos[i].build_id, id, len))
			return &res->dsos[i];
	return NULL;
}

/* Buffered writer on a raw fd. */
struct wbuf {
	int fd;
	size_t len;
	int err;
	char buf[65536];
};

static void wflush(struct wbuf *w)
{
	size_t off = 0;

	while (!w->err && off < w->len) {
		ssize_t n = write(w->fd, w->buf + off, w->len - off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			w->err = -errno;
		} else {
			off += (size_t)n;
		}
	}
	w->len = 0;
}

static void wputs(struct wbuf *w, const char *s, size_t n)
{
	if (w->len + n > sizeof(w->buf))
		wflush(w);
	if (n > sizeof(w->buf)) {	/* never for our lines */
		w->err = w->err ? w->err : -EINVAL;
		return;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

int perfdata_write_addrs(const struct pd_result *res, int fd)
{
	struct wbuf *w = malloc(sizeof(*w));
	size_t i, j;
	int ret;

	if (!w)
		return -ENOMEM;
	w->fd = fd;
	w->len = 0;
	w->err = 0;
	for (i = 0; i < res->nr_dsos; i++) {
		const struct pd_dso *d = &res->dsos[i];
		char hex[2 * PD_BUILD_ID_MAX + 1], line[PD_BUILD_ID_MAX * 2 + 4200];
		int n;

		if (!d->build_id_size)
			continue;
		build_id_hex(d->build_id, d->build_id_size, hex);
		n = snprintf(line, sizeof(line), "# %s %.4096s (%zu addrs)\n", hex,
			     d->path ? d->path : "?", d->nr_addrs);
		wputs(w, line, n > 0 && (size_t)n < sizeof(line) ? (size_t)n : 0);
		for (j = 0; j < d->nr_addrs; j++) {
			n = snprintf(line, sizeof(line), "%s %" PRIx64 "\n", hex, d->addrs[j]);
			wputs(w, line, (size_t)n);
		}
	}
	wflush(w);
	ret = w->err;
	free(w);
	return ret;
}

/* Parse one non-comment line: "<hex> <addr>" with optional whitespace. */
static int parse_line(char *s, unsigned char *id, int *idlen, uint64_t *addr)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	*idlen = build_id_parse(s, id, PD_BUILD_ID_MAX);
	if (*idlen < 0)
		return -1;
	s += 2 * (size_t)*idlen;
	if (*s != ' ' && *s != '\t')
		return -1;
	while (*s == ' ' || *s == '\t')
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') || (*s >= 'A' && *s <= 'F')))
		return -1;
	errno = 0;
	*addr = strtoull(s, &e, 16);
	if (errno)
		return -1;
	while (*e == ' ' || *e == '\t' || *e == '\r' || *e == '\n')
		e++;
	return *e ? -1 : 0;
}

int addrs_read(const char *path, struct pd_result *out, char *err, size_t errsz)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0, lineno = 0, i, last = SIZE_MAX, alloc_dsos = 0;
	ssize_t n;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (err && errsz)
		err[0] = '\0';
	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		if (err && errsz)
			snprintf(err, errsz, "%s: %s", path, strerror(errno));
		return ret;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		unsigned char id[PD_BUILD_ID_MAX];
		uint64_t addr;
		int idlen;
		char *s = line;
		struct pd_dso *d;

		lineno++;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '#' || *s == '\n' || *s == '\r' || *s == '\0')
			continue;
		if (parse_line(s, id, &idlen, &addr) < 0) {
			if (err && errsz)
				snprintf(err, errsz, "%s:%zu: expected \"<build-id-hex> <addr-hex>\"",
					 path, lineno);
			ret = -EINVAL;
			goto fail;
		}
		if (last == SIZE_MAX || out->dsos[last].build_id_size != (unsigned)idlen ||
		    memcmp(out->dsos[last].build_id, id, (size_t)idlen)) {
			for (i = 0; i < out->nr_dsos; i++)
				if (out->dsos[i].build_id_size == (unsigned)idlen &&
				    !memcmp(out->dsos[i].build_id, id, (size_t)idlen))
					break;
			if (i == out->nr_dsos) {
				if (out->nr_dsos == alloc_dsos) {
					size_t na = alloc_dsos ? alloc_dsos * 2 : 8;
					struct pd_dso *nd = realloc(out->dsos, na * sizeof(*nd));

					if (!nd)
						goto nomem;
					out->dsos = nd;
					alloc_dsos = na;
				}
				memset(&out->dsos[i], 0, sizeof(out->dsos[i]));
				memcpy(out->dsos[i].build_id, id, (size_t)idlen);
				out->dsos[i].build_id_size = (unsigned)idlen;
				out->nr_dsos++;
			}
			last = i;
		}
		d = &out->dsos[last];
		if (d->nr_addrs == d->alloc_addrs) {
			size_t na = d->alloc_addrs ? d->alloc_addrs * 2 : 64;
			uint64_t *nv = realloc(d->addrs, na * sizeof(*nv));

			if (!nv)
				goto nomem;
			d->addrs = nv;
			d->alloc_addrs = na;
		}
		d->addrs[d->nr_addrs++] = addr;
	}
	if (ferror(f)) {
		ret = -EIO;
		if (err && errsz)
			snprintf(err, errsz, "%s: read error", path);
		goto fail;
	}
	for (i = 0; i < out->nr_dsos; i++)
		out->dsos[i].nr_addrs = sl_sort_unique_u64(out->dsos[i].addrs, out->dsos[i].nr_addrs);
	free(line);
	fclose(f);
	return 0;
nomem:
	ret = -ENOMEM;
	if (err && errsz)
		snprintf(err, errsz, "%s: out of memory", path);
fail:
	free(line);
	fclose(f);
	perfdata_free(out);
	return ret;
}
