/* SPDX-License-Identifier: MIT */
/*
 * statsjson.c - a recursive-descent reader (RFC 8259 grammar) for the one
 * JSON shape core/stats.c writes. No allocation beyond the strings and the
 * dsos array; nesting of skipped values is bounded.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/util.h"
#include "core/statsjson.h"

#define SKIP_DEPTH_MAX 32
#define LOAD_MAX (256u << 20)

struct jp {
	const char *base, *p, *end;
	char *err;
	size_t errsz;
	int failed;
	int nomem;
};

static int jfail(struct jp *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int jfail(struct jp *j, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (j->failed)
		return -1;
	j->failed = 1;
	if (!j->errsz)
		return -1;
	n = snprintf(j->err, j->errsz, "offset %zu: ", (size_t)(j->p - j->base));
	if (n < 0 || (size_t)n >= j->errsz)
		return -1;
	va_start(ap, fmt);
	vsnprintf(j->err + n, j->errsz - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static void ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static int peek(struct jp *j)
{
	ws(j);
	return j->p < j->end ? (unsigned char)*j->p : -1;
}

static int expect(struct jp *j, char c)
{
	if (peek(j) != (unsigned char)c)
		return jfail(j, j->p < j->end ? "expected '%c'" : "expected '%c', got end of input", c);
	j->p++;
	return 0;
}

static int hex4(struct jp *j, unsigned *out)
{
	unsigned v = 0;

	if (j->end - j->p < 4)
		return jfail(j, "truncated \\u escape");
	for (int i = 0; i < 4; i++) {
		char c = j->p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return jfail(j, "bad \\u escape");
	}
	j->p += 4;
	*out = v;
	return 0;
}

/* A string; *@out gets a malloc'ed decoded copy (NULL: decode and drop). */
static int jstring(struct jp *j, char **out)
{
	const char *s;
	char *o = NULL;
	size_t n = 0;

	if (out)
		*out = NULL;
	if (expect(j, '"') < 0)
		return -1;
	s = j->p;
	/* decoded text is never longer than the source (a \uXXXX escape is
	 * 6 bytes for at most 3, a surrogate pair 12 for 4) */
	while (j->p < j->end && *j->p != '"') {
		if (*j->p == '\\' && j->p + 1 < j->end)
			j->p++;
		j->p++;
	}
	if (j->p >= j->end)
		return jfail(j, "unterminated string");
	if (out && !(o = malloc((size_t)(j->p - s) + 1))) {
		j->nomem = 1;
		return jfail(j, "out of memory");
	}
	j->p = s;
	while (*j->p != '"') {
		unsigned char c = (unsigned char)*j->p;
		char tmp[4];
		size_t k = 1;

		if (c < 0x20) {
			free(o);
			return jfail(j, "control character in string");
		}
		if (c != '\\') {
			tmp[0] = (char)c;
			j->p++;
		} else {
			j->p++;
			switch (*j->p++) {
			case '"': tmp[0] = '"'; break;
			case '\\': tmp[0] = '\\'; break;
			case '/': tmp[0] = '/'; break;
			case 'b': tmp[0] = '\b'; break;
			case 'f': tmp[0] = '\f'; break;
			case 'n': tmp[0] = '\n'; break;
			case 'r': tmp[0] = '\r'; break;
			case 't': tmp[0] = '\t'; break;
			case 'u': {
				unsigned cp, lo;

				if (hex4(j, &cp) < 0) {
					free(o);
					return -1;
				}
				if (cp >= 0xd800 && cp < 0xdc00) {
					if (j->end - j->p < 6 || j->p[0] != '\\' || j->p[1] != 'u') {
						free(o);
						return jfail(j, "unpaired surrogate in \\u escape");
					}
					j->p += 2;
					if (hex4(j, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff) {
						free(o);
						return jfail(j, "unpaired surrogate in \\u escape");
					}
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				} else if (cp >= 0xdc00 && cp < 0xe000) {
					free(o);
					return jfail(j, "unpaired surrogate in \\u escape");
				}
				if (cp == 0) {
					free(o);
					return jfail(j, "NUL in string");
				}
				k = sl_utf8_put(tmp, cp);
				break;
			}
			default:
				j->p--;
				free(o);
				return jfail(j, "bad escape in string");
			}
		}
		if (o) {
			memcpy(o + n, tmp, k);
			n += k;
		}
	}
	j->p++;
	if (o) {
		o[n] = '\0';
		*out = o;
	}
	return 0;
}

/* A non-negative integer that fits 64 bits. */
static int ju64(struct jp *j, uint64_t *out)
{
	uint64_t v = 0;
	const char *s;

	if (peek(j) < 0)
		return jfail(j, "expected a number, got end of input");
	s = j->p;
	if (*j->p < '0' || *j->p > '9')
		return jfail(j, "expected a non-negative integer");
	if (*j->p == '0' && j->p + 1 < j->end && j->p[1] >= '0' && j->p[1] <= '9')
		return jfail(j, "leading zero in number");
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
		unsigned d = (unsigned)(*j->p - '0');

		if (v > (UINT64_MAX - d) / 10) {
			j->p = s;
			return jfail(j, "number too large");
		}
		v = v * 10 + d;
		j->p++;
	}
	if (j->p < j->end && (*j->p == '.' || *j->p == 'e' || *j->p == 'E')) {
		j->p = s;
		return jfail(j, "expected a non-negative integer");
	}
	*out = v;
	return 0;
}

static int jword(struct jp *j, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n))
		return jfail(j, "bad literal");
	j->p += n;
	return 0;
}

static int jbool(struct jp *j, int *out)
{
	int c = peek(j);

	if (c == 't' && jword(j, "true") == 0) {
		*out = 1;
		return 0;
	}
	if (c == 'f' && jword(j, "false") == 0) {
		*out = 0;
		return 0;
	}
	return jfail(j, "expected true or false");
}

/* Any JSON value (for keys a newer writer may add). */
static int jskip(struct jp *j, int depth)
{
	int c = peek(j);

	if (depth > SKIP_DEPTH_MAX)
		return jfail(j, "nesting too deep");
	if (c == '"')
		return jstring(j, NULL);
	if (c == 't')
		return jword(j, "true");
	if (c == 'f')
		return jword(j, "false");
	if (c == 'n')
		return jword(j, "null");
	if (c == '-' || (c >= '0' && c <= '9')) {
		const char *s = j->p;

		if (*j->p == '-')
			j->p++;
		if (j->p >= j->end || *j->p < '0' || *j->p > '9')
			return jfail(j, "bad number");
		while (j->p < j->end && strchr("0123456789.eE+-", *j->p))
			j->p++;
		return j->p > s ? 0 : jfail(j, "bad number");
	}
	if (c == '[' || c == '{') {
		char close = c == '[' ? ']' : '}';

		j->p++;
		if (peek(j) == close) {
			j->p++;
			return 0;
		}
		for (;;) {
			if (close == '}' && (jstring(j, NULL) < 0 || expect(j, ':') < 0))
				return -1;
			if (jskip(j, depth + 1) < 0)
				return -1;
			if (peek(j) == ',') {
				j->p++;
				continue;
			}
			return expect(j, close);
		}
	}
	return jfail(j, c < 0 ? "expected a value, got end of input" : "expected a value");
}

/* Object walker: calls @fn(j, key, ctx) with the cursor on the value. */
static int jobject(struct jp *j, int (*fn)(struct jp *, const char *, void *), void *ctx)
{
	if (expect(j, '{') < 0)
		return -1;
	if (peek(j) == '}') {
		j->p++;
		return 0;
	}
	for (;;) {
		char *key;
		int r;

		if (jstring(j, &key) < 0)
			return -1;
		if (expect(j, ':') < 0) {
			free(key);
			return -1;
		}
		r = fn(j, key, ctx);
		free(key);
		if (r < 0)
			return -1;
		if (peek(j) == ',') {
			j->p++;
			continue;
		}
		return expect(j, '}');
	}
}

/* ---- the stats shape ---------------------------------------------------- */

static int one_of(const char *s, const char *const *words)
{
	for (; *words; words++)
		if (!strcmp(s, *words))
			return 1;
	return 0;
}

static const char *const lazy_words[] = { "on", "off", NULL };
static const char *const table_words[] = { "symtab", "dynsym", NULL };
static const char *const mode_words[] = { "eager", "budget", "lazy", "hidden", "passthrough", NULL };

/* A string field that must be set once; @words: allowed values or NULL. */
static int str_field(struct jp *j, const char *key, char **dst, const char *const *words)
{
	const char *at = (peek(j), j->p);

	if (*dst)
		return jfail(j, "duplicate key \"%s\"", key);
	if (jstring(j, dst) < 0)
		return -1;
	if (words && !one_of(*dst, words)) {
		j->p = at;
		return jfail(j, "unexpected \"%s\" value \"%s\"", key, *dst);
	}
	return 0;
}

static int u64_field(struct jp *j, const char *key, uint64_t *dst, unsigned *seen, unsigned bit)
{
	if (*seen & bit)
		return jfail(j, "duplicate key \"%s\"", key);
	*seen |= bit;
	return ju64(j, dst);
}

struct counts_ctx {
	struct sl_stats_counts *c;
	unsigned seen;
};

static int counts_key(struct jp *j, const char *key, void *ctx)
{
	struct counts_ctx *k = ctx;

	if (!strcmp(key, "scanned"))
		return u64_field(j, key, &k->c->scanned, &k->seen, 1);
	if (!strcmp(key, "passed"))
		return u64_field(j, key, &k->c->passed, &k->seen, 2);
	if (!strcmp(key, "dropped"))
		return u64_field(j, key, &k->c->dropped, &k->seen, 4);
	if (!strcmp(key, "bytes"))
		return u64_field(j, key, &k->c->bytes, &k->seen, 8);
	return jskip(j, 1);
}

struct dso_ctx {
	struct sl_stats_dso *d;
	struct counts_ctx c;
	int have_mmap;
};

static int dso_key(struct jp *j, const char *key, void *ctx)
{
	struct dso_ctx *k = ctx;
	struct sl_stats_dso *d = k->d;

	if (!strcmp(key, "path"))
		return str_field(j, key, &d->path, NULL);
	if (!strcmp(key, "build_id"))
		return str_field(j, key, &d->build_id, NULL);
	if (!strcmp(key, "table"))
		return str_field(j, key, &d->table, table_words);
	if (!strcmp(key, "mode"))
		return str_field(j, key, &d->mode, mode_words);
	if (!strcmp(key, "reason"))
		return str_field(j, key, &d->reason, NULL);
	if (!strcmp(key, "reason_code"))
		return str_field(j, key, &d->reason_code, NULL);
	if (!strcmp(key, "mmap")) {
		if (k->have_mmap)
			return jfail(j, "duplicate key \"mmap\"");
		k->have_mmap = 1;
		return jbool(j, &d->mmap);
	}
	if (!strcmp(key, "scanned") || !strcmp(key, "passed") || !strcmp(key, "dropped") ||
	    !strcmp(key, "bytes"))
		return counts_key(j, key, &k->c);
	return jskip(j, 1);
}

struct doc_ctx {
	struct sl_stats_doc *doc;
	unsigned seen;
	struct counts_ctx totals;
	int have_dsos;
};

static int parse_dsos(struct jp *j, struct sl_stats_doc *doc)
{
	size_t cap = 0;

	if (expect(j, '[') < 0)
		return -1;
	if (peek(j) == ']') {
		j->p++;
		return 0;
	}
	for (;;) {
		struct dso_ctx k = { 0 };
		const char *at;

		if (doc->ndsos == cap) {
			size_t nc = cap ? cap * 2 : 16;
			struct sl_stats_dso *nd = realloc(doc->dsos, nc * sizeof(*nd));

			if (!nd) {
				j->nomem = 1;
				return jfail(j, "out of memory");
			}
			doc->dsos = nd;
			cap = nc;
		}
		k.d = &doc->dsos[doc->ndsos];
		memset(k.d, 0, sizeof(*k.d));
		k.c.c = &k.d->c;
		doc->ndsos++;
		at = (peek(j), j->p);
		if (jobject(j, dso_key, &k) < 0)
			return -1;
		if (!k.d->path || !k.d->build_id || !k.d->table || !k.d->mode || !k.d->reason ||
		    !k.have_mmap || k.c.seen != 15) {
			j->p = at;
			return jfail(j, "dsos entry %zu lacks one of path, build_id, table, mode, scanned, "
				     "passed, dropped, bytes, mmap, reason", doc->ndsos - 1);
		}
		if (peek(j) == ',') {
			j->p++;
			continue;
		}
		return expect(j, ']');
	}
}

static int doc_key(struct jp *j, const char *key, void *ctx)
{
	struct doc_ctx *k = ctx;
	struct sl_stats_doc *d = k->doc;

	if (!strcmp(key, "budget_bytes"))
		return u64_field(j, key, &d->budget_bytes, &k->seen, 1);
	if (!strcmp(key, "charged_bytes"))
		return u64_field(j, key, &d->charged_bytes, &k->seen, 2);
	if (!strcmp(key, "refused_bytes"))
		return u64_field(j, key, &d->refused_bytes, &k->seen, 4);
	if (!strcmp(key, "addr_dsos"))
		return u64_field(j, key, &d->addr_dsos, &k->seen, 8);
	if (!strcmp(key, "addrs"))
		return u64_field(j, key, &d->addrs, &k->seen, 16);
	if (!strcmp(key, "lazy"))
		return str_field(j, key, &d->lazy, lazy_words);
	if (!strcmp(key, "lazy_reason"))
		return str_field(j, key, &d->lazy_reason, NULL);
	if (!strcmp(key, "lazy_reason_code"))
		return str_field(j, key, &d->lazy_reason_code, NULL);
	if (!strcmp(key, "totals")) {
		if (k->seen & 32)
			return jfail(j, "duplicate key \"totals\"");
		k->seen |= 32;
		k->totals.c = &d->totals;
		if (jobject(j, counts_key, &k->totals) < 0)
			return -1;
		return k->totals.seen == 15 ? 0 : jfail(j, "totals lacks one of scanned, passed, dropped, bytes");
	}
	if (!strcmp(key, "dsos")) {
		if (k->have_dsos)
			return jfail(j, "duplicate key \"dsos\"");
		k->have_dsos = 1;
		return parse_dsos(j, d);
	}
	return jskip(j, 1);
}

void sl_stats_free(struct sl_stats_doc *doc)
{
	for (size_t i = 0; i < doc->ndsos; i++) {
		struct sl_stats_dso *x = &doc->dsos[i];

		free(x->path); free(x->build_id); free(x->table); free(x->mode);
		free(x->reason); free(x->reason_code);
	}
	free(doc->dsos);
	free(doc->lazy);
	free(doc->lazy_reason);
	free(doc->lazy_reason_code);
	memset(doc, 0, sizeof(*doc));
}

int sl_stats_parse(const char *buf, size_t len, struct sl_stats_doc *out, char *err, size_t errsz)
{
	static const char prefix[] = "symlazy stats: ";
	struct jp j = { .base = buf, .p = buf, .end = buf + len, .err = err, .errsz = errsz };
	struct doc_ctx k = { .doc = out };
	struct sl_stats_counts sum = { 0 };

	memset(out, 0, sizeof(*out));
	if (errsz)
		err[0] = '\0';
	if (len >= sizeof(prefix) - 1 && !memcmp(buf, prefix, sizeof(prefix) - 1))
		j.p += sizeof(prefix) - 1;
	if (peek(&j) != '{') {
		jfail(&j, peek(&j) < 0 ? "empty input" : "not a JSON object");
		goto bad;
	}
	if (jobject(&j, doc_key, &k) < 0)
		goto bad;
	if (peek(&j) >= 0) {
		jfail(&j, "data after the JSON object");
		goto bad;
	}
	if (k.seen != 63 || !out->lazy || !out->lazy_reason || !k.have_dsos) {
		j.p = buf;
		jfail(&j, "missing key: need budget_bytes, charged_bytes, refused_bytes, lazy, lazy_reason, "
			  "addr_dsos, addrs, totals, dsos");
		goto bad;
	}
	for (size_t i = 0; i < out->ndsos; i++) {
		sum.scanned += out->dsos[i].c.scanned;
		sum.passed += out->dsos[i].c.passed;
		sum.dropped += out->dsos[i].c.dropped;
		sum.bytes += out->dsos[i].c.bytes;
	}
	if (memcmp(&sum, &out->totals, sizeof(sum))) {
		j.p = buf;
		jfail(&j, "totals are not the sums of the dsos entries");
		goto bad;
	}
	return 0;
bad:
	sl_stats_free(out);
	return j.nomem ? -ENOMEM : -EINVAL;
}

int sl_stats_load(const char *path, struct sl_stats_doc *out, char *err, size_t errsz)
{
	struct stat st;
	char *buf;
	size_t n = 0;
	int fd, r;

	memset(out, 0, sizeof(*out));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);   /* never block on a FIFO */
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		snprintf(err, errsz, "%s", strerror(-r));
		return r;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > LOAD_MAX) {
		close(fd);
		snprintf(err, errsz, "%s", S_ISREG(st.st_mode) ? "file too large" : "not a regular file");
		return -EINVAL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		snprintf(err, errsz, "out of memory");
		return -ENOMEM;
	}
	while (n < (size_t)st.st_size) {
		ssize_t k = read(fd, buf + n, (size_t)st.st_size - n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			r = -errno;
			close(fd);
			free(buf);
			snprintf(err, errsz, "%s", strerror(-r));
			return r;
		}
		if (k == 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	r = sl_stats_parse(buf, n, out, err, errsz);
	free(buf);
	return r;
}
