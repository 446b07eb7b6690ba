/* SPDX-License-Identifier: MIT */
/*
 * textsrc.c - kallsyms and perf-map sources (textsrc.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "textsrc/kallsyms.h"
#include "textsrc/perfmap.h"
#include "textsrc/textsrc.h"

static int ends_with(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);

	return n >= k && !memcmp(s + n - k, suf, k);
}

enum sl_text_kind sl_text_classify(const char *p, const char *arg)
{
	size_t n;

	if (!p || p[0] == '\0')
		return SL_TEXT_NONE;
	if (arg && arg[0] && !strcmp(p, arg))
		return SL_TEXT_KALLSYMS;
	if (p[0] != '/')
		return SL_TEXT_NONE;
	if (p[1] == 'p' && !strcmp(p, "/proc/kallsyms"))
		return SL_TEXT_KALLSYMS;
	if (p[1] == 't' && !strncmp(p, "/tmp/perf-", 10)) {
		const char *q = p + 10;

		if (*q < '0' || *q > '9')
			return SL_TEXT_NONE;
		while (*q >= '0' && *q <= '9')
			q++;
		return !strcmp(q, ".map") ? SL_TEXT_PERFMAP : SL_TEXT_NONE;
	}
	n = strlen(p);
	if (ends_with(p, n, "/kallsyms") &&
	    (strstr(p, "/[kernel.kallsyms]/") || strstr(p, "/.build-id/")))
		return SL_TEXT_KALLSYMS;
	return SL_TEXT_NONE;
}

void sl_text_free(struct sl_text *t)
{
	free(t->text);
	t->text = NULL;
	t->len = 0;
}

/* A filter's answer into @out: with @filtered its text (@text, @len bytes,
 * @kept of the @records records), else the whole file (every record kept). */
static void set_out(struct sl_text *out, uint64_t records, uint64_t symbols, const struct sl_why *why,
		    int filtered, char *text, size_t len, uint64_t kept)
{
	out->records = records;
	out->symbols = symbols;
	out->why = *why;
	if (filtered) {
		out->filtered = 1;
		out->text = text;
		out->len = len;
		out->kept = kept;
	} else {
		out->kept = records;
	}
}

int sl_text_filter(const struct pd_result *res, enum sl_text_kind kind, const char *path,
		   const char *buf, size_t len, int kcore, unsigned ks_rules, struct sl_text *out)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if (kind == SL_TEXT_KALLSYMS) {
		struct ks_facts f;
		struct ks_result r;

		memset(&f, 0, sizeof(f));
		f.have_kmmap = res->kern.have_kmmap;
		f.kstart = res->kern.kstart;
		f.kend = res->kern.kend;
		f.kpgoff = res->kern.kpgoff;
		memcpy(f.ref_name, res->kern.ref_name, sizeof(f.ref_name));
		/* struct pd_kmod and struct ks_module have one layout */
		f.mods = (const struct ks_module *)res->kern.mods;
		f.nr_mods = res->kern.nr_mods;
		f.extra = (const struct ks_extra *)res->kern.extra;
		f.nr_extra = res->kern.nr_extra;
		f.addrs = res->kern.addrs;
		f.nr_addrs = res->kern.nr_addrs;
		f.rules = ks_rules;
		rc = ks_filter(buf, len, &f, kcore, &r);
		if (rc < 0)
			return rc;
		set_out(out, r.records, r.symbols, &r.why, r.mode == KS_FILTERED, r.out, r.out_len, r.kept);
		return 0;
	}
	if (kind == SL_TEXT_PERFMAP) {
		const struct pd_dso *d = perfdata_find_jit(res, path);
		static const uint64_t none[1];
		struct pm_result r;

		rc = pm_filter(buf, len, d ? d->addrs : none, d ? d->nr_addrs : 0, &r);
		if (rc < 0)
			return rc;
		set_out(out, r.lines, r.symbols, &r.why, r.mode == PM_FILTERED, r.out, r.out_len, r.kept);
		return 0;
	}
	sl_why_set(&out->why, SL_R_TEXT_UNREADABLE, "%s", path ? path : "?");
	return 0;
}

int sl_text_memfd(const char *data, size_t len, int cloexec)
{
	int fd = memfd_create("symlazy-text", cloexec ? MFD_CLOEXEC : 0);
	size_t o = 0;

	if (fd < 0)
		return -errno;
	while (o < len) {
		ssize_t w = write(fd, data + o, len - o);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			w = -errno;
			close(fd);
			return (int)w;
		}
		o += (size_t)w;
	}
	if (lseek(fd, 0, SEEK_SET) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

int sl_text_load(int fd, const char **buf, size_t *len, size_t *maplen)
{
	struct stat st;
	char *m;
	int mfd = -1;
	size_t n = 0;

	*buf = NULL;
	*len = *maplen = 0;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISREG(st.st_mode) && st.st_size > 0 && major(st.st_dev) != 0) {
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED)
			return -errno;
		*buf = m;
		*len = *maplen = (size_t)st.st_size;
		return 0;
	}
	/* procfs (size 0) and the like: copy into a memfd, then map it (page
	 * cache, not the tool's heap) */
	mfd = memfd_create("symlazy-snapshot", MFD_CLOEXEC);
	if (mfd < 0)
		return -errno;
	{
		char chunk[65536];

		for (;;) {
			ssize_t r = read(fd, chunk, sizeof(chunk)), w, o = 0;

			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				r = -errno;
				close(mfd);
				return (int)r;
			}
			if (r == 0)
				break;
			while (o < r) {
				w = write(mfd, chunk + o, (size_t)(r - o));
				if (w < 0 && errno == EINTR)
					continue;
				if (w < 0) {
					w = -errno;
					close(mfd);
					return (int)w;
				}
				o += w;
			}
			n += (size_t)r;
		}
	}
	if (n == 0) {
		close(mfd);
		*buf = "";
		return 0;
	}
	m = mmap(NULL, n, PROT_READ, MAP_PRIVATE, mfd, 0);
	close(mfd);
	if (m == MAP_FAILED)
		return -errno;
	*buf = m;
	*len = *maplen = n;
	return 0;
}

void sl_text_unload(const char *buf, size_t maplen)
{
	if (buf && maplen)
		munmap((void *)buf, maplen);
}

int sl_text_kcore(const char *path)
{
	char k[PATH_MAX];
	const char *slash = strrchr(path, '/');
	size_t dn;
	int fd;

	if (!slash || strcmp(slash + 1, "kallsyms"))
		return 0;
	dn = (size_t)(slash - path) + 1;
	if (dn + 6 > sizeof(k))
		return 0;
	memcpy(k, path, dn);
	memcpy(k + dn, "kcore", 6);
	fd = open(k, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}
