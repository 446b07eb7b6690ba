/* SPDX-License-Identifier: MIT */
/*
 * perfmap.c - perf 6.1's perf map loading (dso__load_perf_map) as a model,
 * and the filter built on it (perfmap.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "textsrc/perfmap.h"

size_t pm_parse_rec(const char *buf, size_t len, size_t off, struct pm_rec *r,
		    char **scratch, size_t *scap)
{
	const char *nl;
	size_t n;
	long line_len, l;
	char *line, *p;
	uint64_t size;

	memset(r, 0, sizeof(*r));
	if (off >= len)
		return 0;
	nl = memchr(buf + off, '\n', len - off);
	n = nl ? (size_t)(nl - (buf + off)) + 1 : len - off;
	r->len = n;
	if (n + 1 > *scap) {
		size_t c = n + 1 < 256 ? 256 : n + 1;
		char *s = realloc(*scratch, c);

		if (!s)
			return n;       /* caller sees sym = 0; pm_filter checks *scratch */
		*scratch = s;
		*scap = c;
	}
	line = *scratch;
	memcpy(line, buf + off, n);
	line[n] = '\0';
	line_len = (long)n;
	line[--line_len] = '\0';                /* "\n" (or the last character) */
	r->start = strtoull(line, &p, 16);      /* hex2u64 */
	l = p - line;
	l++;
	if (l + 2 >= line_len)
		return n;
	size = strtoull(line + l, &p, 16);
	l = p - line;
	l++;
	if (l + 2 >= line_len)
		return n;
	r->sym = 1;
	r->end = size ? r->start + size : r->start;
	r->wrapped = r->end < r->start;
	return n;
}

/* first index with a[i] >= x */
static size_t lower(const uint64_t *a, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (a[m] < x)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

struct slot {                /* difference arrays over the addresses */
	int64_t cnt;
	uint64_t pos, start;     /* sums (position + 1, start) */
	uint64_t bs, bp;         /* largest (start, position + 1) of entries that
				  * end at or before the address */
	int hb;
};

void pm_free(struct pm_result *r)
{
	free(r->out);
	r->out = NULL;
	r->out_len = 0;
}

static int cmp_u64p(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int pm_filter(const char *buf, size_t len, const uint64_t *a, size_t n, struct pm_result *res)
{
	struct slot *s = NULL;
	uint64_t *keep = NULL;
	char *scratch = NULL;
	size_t scap = 0, off, i, nk = 0, total = 0;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	res->mode = PM_PASS;
	s = calloc(n + 1, sizeof(*s));
	keep = malloc((n ? n : 1) * sizeof(*keep));
	if (!s || !keep) {
		rc = -ENOMEM;
		goto out;
	}
	for (off = 0; off < len;) {
		struct pm_rec r;
		size_t l = pm_parse_rec(buf, len, off, &r, &scratch, &scap), j1, j2, je;
		uint64_t p1 = (uint64_t)off + 1;

		if (!scratch) {
			rc = -ENOMEM;
			goto out;
		}
		res->lines++;
		if (r.sym) {
			res->symbols++;
			j1 = lower(a, n, r.start);
			if (r.wrapped) {
				j2 = j1;                        /* contains nothing */
				je = j1;                        /* ends "before" every ip >= start */
			} else if (r.end == r.start) {
				j2 = lower(a, n, r.start + 1);
				if (r.start == UINT64_MAX)
					j2 = n;
				je = j2;
			} else {
				j2 = lower(a, n, r.end);
				je = j2;
			}
			if (j2 > j1) {
				s[j1].cnt++;
				s[j1].pos += p1;
				s[j1].start += r.start;
				s[j2].cnt--;
				s[j2].pos -= p1;
				s[j2].start -= r.start;
			}
			if (je < n && (!s[je].hb || r.start > s[je].bs ||
				       (r.start == s[je].bs && p1 > s[je].bp))) {
				s[je].hb = 1;
				s[je].bs = r.start;
				s[je].bp = p1;
			}
		}
		off += l;
	}
	{
		int64_t cnt = 0;
		uint64_t pos = 0, st = 0, bs = 0, bp = 0;
		int hb = 0;

		for (i = 0; i < n; i++) {
			cnt += s[i].cnt;
			pos += s[i].pos;
			st += s[i].start;
			if (s[i].hb && (!hb || s[i].bs > bs || (s[i].bs == bs && s[i].bp > bp))) {
				hb = 1;
				bs = s[i].bs;
				bp = s[i].bp;
			}
			if (cnt == 0)
				continue;
			if (cnt > 1 || (hb && (bs > st || (bs == st && bp > pos)))) {
				sl_why_set(&res->why, SL_R_PM_AMBIGUOUS, "%#" PRIx64, a[i]);
				goto out;
			}
			keep[nk++] = pos - 1;
		}
	}
	if (nk > 1)
		qsort(keep, nk, sizeof(*keep), cmp_u64p);
	for (i = 0, off = 0; i < nk; i++)
		if (!off || keep[off - 1] != keep[i])
			keep[off++] = keep[i];
	nk = off;
	for (i = 0; i < nk; i++) {
		const char *nl = memchr(buf + keep[i], '\n', len - keep[i]);

		total += nl ? (size_t)(nl - (buf + keep[i])) + 1 : len - keep[i];
	}
	res->out = malloc(total ? total : 1);
	if (!res->out) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0, off = 0; i < nk; i++) {
		const char *nl = memchr(buf + keep[i], '\n', len - keep[i]);
		size_t l = nl ? (size_t)(nl - (buf + keep[i])) + 1 : len - keep[i];

		memcpy(res->out + off, buf + keep[i], l);
		off += l;
	}
	res->out_len = off;
	res->kept = nk;
	res->mode = PM_FILTERED;
out:
	free(s);
	free(keep);
	free(scratch);
	if (rc < 0)
		pm_free(res);
	return rc;
}
