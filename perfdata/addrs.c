/* SPDX-License-Identifier: MIT */
/*
 * perfdata/addrs.c - the SYMLAZY_ADDRS text format and pd_result helpers.
 *
 * Format (symlazy's own, see perfdata.h): one "<build-id-hex> <addr-hex>"
 * pair per line, addr with or without "0x"; '#' starts a comment line;
 * blank lines are ignored. Addresses are DSO file offsets (perfdata.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "perfdata/htab.h"
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

/* ---- merge (perf diff reads several recordings) -------------------------- */

/* *@a (sorted, unique, *@na) |= @b (@nb): one new array. 0 or -ENOMEM. */
static int union_addrs(uint64_t **a, size_t *na, size_t *alloc, const uint64_t *b, size_t nb)
{
	uint64_t *u;
	size_t i = 0, j = 0, n = 0;

	if (!nb)
		return 0;
	u = malloc((*na + nb) * sizeof(*u));
	if (!u)
		return -ENOMEM;
	while (i < *na || j < nb) {
		uint64_t v = j >= nb || (i < *na && (*a)[i] <= b[j]) ? (*a)[i++] : b[j++];

		if (!n || u[n - 1] != v)
			u[n++] = v;
	}
	free(*a);
	*a = u;
	*na = n;
	*alloc = *na + nb;
	return 0;
}

/* The entry of @into that @d (of another recording) names the same file as:
 * same build-id; without one, the same path (*@same_file: and the same
 * device and inode, both known). */
static struct pd_dso *same_dso(struct pd_dso *list, size_t n, const struct pd_dso *d, int *same_file)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct pd_dso *p = &list[i];

		if (d->build_id_size) {
			if (p->build_id_size == d->build_id_size &&
			    !memcmp(p->build_id, d->build_id, d->build_id_size)) {
				*same_file = 1;
				return p;
			}
			continue;
		}
		if (p->build_id_size || !p->path || !d->path || strcmp(p->path, d->path))
			continue;
		*same_file = p->have_ino && d->have_ino && p->ino == d->ino && p->maj == d->maj && p->min == d->min;
		return p;
	}
	return NULL;
}

/* Move @from's DSOs into *@list (@from's entries are emptied). */
static int merge_dsos(struct pd_dso **list, size_t *n, struct pd_dso *from, size_t nfrom)
{
	size_t i, alloc = *n;

	for (i = 0; i < nfrom; i++) {
		struct pd_dso *d = &from[i], *p;
		int same = 0;

		p = same_dso(*list, *n, d, &same);
		if (p) {
			if (union_addrs(&p->addrs, &p->nr_addrs, &p->alloc_addrs, d->addrs, d->nr_addrs) < 0)
				return -ENOMEM;
			p->unsure |= d->unsure;
			if (!same)          /* one path, two files or an unknown one: no identity */
				p->have_ino = 0;
			continue;
		}
		if (pd_grow((void **)list, &alloc, *n + 1, sizeof(**list)) < 0)
			return -ENOMEM;
		(*list)[(*n)++] = *d;
		memset(d, 0, sizeof(*d));
	}
	return 0;
}

/* Do @a and @b say the same of the kernel maps (what ks_filter reads)? */
static int same_kernel(const struct pd_kernel *a, const struct pd_kernel *b)
{
	size_t i;

	if (a->have_kmmap != b->have_kmmap || a->kstart != b->kstart || a->kend != b->kend ||
	    a->kpgoff != b->kpgoff || strcmp(a->ref_name, b->ref_name) || a->nr_mods != b->nr_mods ||
	    a->nr_extra != b->nr_extra)
		return 0;
	for (i = 0; i < a->nr_mods; i++)
		if (strcmp(a->mods[i].name, b->mods[i].name) || a->mods[i].start != b->mods[i].start ||
		    a->mods[i].end != b->mods[i].end)
			return 0;
	for (i = 0; i < a->nr_extra; i++)
		if (a->extra[i].start != b->extra[i].start || a->extra[i].end != b->extra[i].end ||
		    a->extra[i].pgoff != b->extra[i].pgoff)
			return 0;
	return 1;
}

int perfdata_merge(struct pd_result *into, struct pd_result *from, int *kernel_differs)
{
	struct pd_kernel *k = &into->kern, *f = &from->kern;
	unsigned none;
	int r;

	if ((r = merge_dsos(&into->dsos, &into->nr_dsos, from->dsos, from->nr_dsos)) < 0 ||
	    (r = merge_dsos(&into->jit, &into->nr_jit, from->jit, from->nr_jit)) < 0)
		return r;
	/* a recording without kernel map or addresses says nothing of the kernel */
	if (!f->have_kmmap && !f->nr_addrs) {
		/* nothing to add */
	} else if (!k->have_kmmap && !k->nr_addrs) {
		uint64_t guest = k->nr_guest;

		pd_kernel_free(k);
		*k = *f;
		k->nr_guest += guest;
		memset(f, 0, sizeof(*f));
	} else {
		if (!same_kernel(k, f))
			*kernel_differs = 1;
		if (union_addrs(&k->addrs, &k->nr_addrs, &k->alloc_addrs, f->addrs, f->nr_addrs) < 0)
			return -ENOMEM;
		k->nr_guest += f->nr_guest;
	}
	none = into->flags & from->flags & PD_F_NO_SAMPLES;
	into->flags = ((into->flags | from->flags) & ~(unsigned)PD_F_NO_SAMPLES) | none;
	into->nr_records += from->nr_records;
	into->nr_samples += from->nr_samples;
	into->nr_unknown_records += from->nr_unknown_records;
	into->nr_user_ips += from->nr_user_ips;
	into->nr_skipped_samples += from->nr_skipped_samples;
	into->data_bytes += from->data_bytes;
	into->decompressed_bytes += from->decompressed_bytes;
	into->unwind.samples += from->unwind.samples;
	into->unwind.unsure_samples += from->unwind.unsure_samples;
	into->unwind.stack_bytes += from->unwind.stack_bytes;
	into->unwind.windows += from->unwind.windows;
	into->unwind.candidates += from->unwind.candidates;
	into->unwind.scanned_samples += from->unwind.scanned_samples;
	perfdata_free(from);
	return 0;
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
	struct stat st;
	char *line = NULL;
	size_t cap = 0, lineno = 0, i, last = SIZE_MAX, alloc_dsos = 0;
	int fd;
	ssize_t n;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (err && errsz)
		err[0] = '\0';
	/* a regular file of bounded size, opened without blocking on a FIFO:
	 * /dev/zero, a FIFO nobody writes or a 3 GiB file must not cost more
	 * than stock (the caller then loads every symbol) */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		ret = -errno;
		if (err && errsz)
			snprintf(err, errsz, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > PD_ADDRS_MAX_BYTES) {
		if (err && errsz)
			snprintf(err, errsz, "%s: %s", path, !S_ISREG(st.st_mode) ? "not a regular file" :
				 "larger than " PD_ADDRS_MAX_TEXT);
		close(fd);
		return -EINVAL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		unsigned char id[PD_BUILD_ID_MAX];
		uint64_t addr;
		int idlen;
		char *s = line;
		struct pd_dso *d;

		lineno++;
		if (strlen(line) != (size_t)n) {
			if (err && errsz)
				snprintf(err, errsz, "%s:%zu: a NUL byte (not a text file)", path, lineno);
			ret = -EINVAL;
			goto fail;
		}
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
