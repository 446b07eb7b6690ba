/* SPDX-License-Identifier: MIT */
/*
 * core/model/perf_demangle_rust.c - the Rust step of perf 7.x's
 * dso__demangle_sym (tools/perf/util/symbol.c), which perf keeps in
 * tools/perf/util/demangle-rust-v0.c (rustc-demangle's rules in C): on the
 * raw name, before the C++ demangler. Written here from those rules, not
 * copied:
 *   - a ".llvm.<[0-9A-F@]*>" tail is cut;
 *   - legacy names "_ZN"/"ZN"/"__ZN" + (<decimal length><bytes>)* + "E" + a
 *     suffix that is empty or starts with '.' and is all 0x21..0x7e print as
 *     the elements joined by "::", a last element "h" + hex digits dropped,
 *     "_$" at an element's start cut to "$", ".." as "::", the $SP$ $BP$
 *     $RF$ $LT$ $GT$ $LP$ $RP$ $C$ $u<hex>$ escapes decoded, then the suffix;
 *   - v0 names "_R"/"R"/"__R" + a path print in the alternate form; the
 *     model has the paths made of crate roots, nested names and
 *     back-references with ASCII identifiers. A v0 name that reaches generic
 *     arguments, impl paths, types or punycode is "cannot tell" (-1).
 * Used by core/model/perf72.c (perf72_demangle).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "core/models.h"

/* An output string that grows. */
struct out {
	char *s;
	size_t len, cap;
	int oom;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->oom)
		return;
	if (o->len + n + 1 > o->cap) {
		size_t cap = (o->len + n + 1) * 2 + 32;
		char *ns = realloc(o->s, cap);

		if (!ns) {
			o->oom = 1;
			return;
		}
		o->s = ns;
		o->cap = cap;
	}
	memcpy(o->s + o->len, s, n);
	o->len += n;
	o->s[o->len] = '\0';
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static int ascii(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] & 0x80)
			return 0;
	return 1;
}

static int is_hex(char c, int upper_only)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || (!upper_only && c >= 'a' && c <= 'f');
}

/* Legacy form: "<digits><bytes>" elements up to 'E' in @in (@n bytes).
 * 1 with the element count and the suffix after 'E', else 0. */
static int legacy_parse(const char *in, size_t n, size_t *elements, const char **suffix)
{
	size_t i = 0, k = 0;

	if (n == 0)
		return 0;
	while (in[i] != 'E') {
		size_t len = 0;

		if (in[i] < '0' || in[i] > '9')
			return 0;
		while (in[i] >= '0' && in[i] <= '9') {
			size_t d = (size_t)(in[i] - '0');

			if (len > SIZE_MAX / 10 || len * 10 > SIZE_MAX - d)
				return 0;
			len = len * 10 + d;
			if (++i == n)
				return 0;
		}
		if (n - i <= len)
			return 0;       /* at least one byte (the 'E') must follow */
		i += len;
		k++;
	}
	*elements = k;
	*suffix = in + i + 1;
	return 1;
}

/* 'h' followed only by hex digits (either case), the legacy hash element */
static int rust_hash(const char *s, size_t n)
{
	if (n == 0 || s[0] != 'h')
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!is_hex(s[i], 0))
			return 0;
	return 1;
}

/* The "$...$" escape at @e (@n bytes between the dollars): 1 and the bytes
 * to print in @b (*@bn), else 0 (the rest of the element prints raw). */
static int legacy_escape(const char *e, size_t n, char *b, size_t *bn)
{
	static const char *const two[] = { "SP@", "BP*", "RF&", "LT<", "GT>", "LP(", "RP)" };
	uint64_t v = 0;
	size_t i;

	for (i = 0; n == 2 && i < sizeof(two) / sizeof(two[0]); i++) {
		if (e[0] == two[i][0] && e[1] == two[i][1]) {
			b[0] = two[i][2];
			*bn = 1;
			return 1;
		}
	}
	if (n == 1 && e[0] == 'C') {
		b[0] = ',';
		*bn = 1;
		return 1;
	}
	if (n < 2 || e[0] != 'u')
		return 0;
	/* lower-case hex, leading zeros free, at most 16 significant digits */
	for (i = 1; i < n && e[i] == '0'; i++)
		;
	if (n - i > 16)
		return 0;
	for (; i < n; i++) {
		char c = e[i];

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return 0;
		v = v << 4 | (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
	}
	/* a Unicode scalar value that is no control character */
	if (v >= 0x110000 || (v >= 0xd800 && v < 0xe000) || v < 0x20 || (v >= 0x7f && v < 0xa0))
		return 0;
	*bn = sl_utf8_put(b, (uint32_t)v);
	return 1;
}

static void legacy_print(const char *in, size_t n, size_t elements, struct out *o)
{
	const char *p = in, *end = in + n;

	for (size_t k = 0; k < elements; k++) {
		size_t len = 0;
		const char *r;

		for (r = p; r < end && *r >= '0' && *r <= '9'; r++)
			len = len * 10 + (size_t)(*r - '0');
		if ((size_t)(end - r) < len)
			break;
		p = r + len;
		if (k + 1 == elements && rust_hash(r, len))
			break;
		if (k)
			puts_(o, "::");
		if (len >= 2 && r[0] == '_' && r[1] == '$') {
			r++;
			len--;
		}
		while (len > 0) {
			if (r[0] == '.') {
				size_t m = len >= 2 && r[1] == '.' ? 2 : 1;

				puts_(o, m == 2 ? "::" : ".");
				r += m;
				len -= m;
			} else if (r[0] == '$') {
				const char *d = memchr(r + 1, '$', len - 1);
				char b[4];
				size_t bn = 0;

				if (!d || !legacy_escape(r + 1, (size_t)(d - r - 1), b, &bn))
					break;
				put(o, b, bn);
				len -= (size_t)(d + 1 - r);
				r = d + 1;
			} else {
				size_t j = 0;

				while (j < len && r[j] != '$' && r[j] != '.')
					j++;
				if (j == len)
					break;
				put(o, r, j);
				r += j;
				len -= j;
			}
		}
		put(o, r, len);
	}
}

/* v0 names (the RFC 2603 mangling), as far as the model goes: paths made of
 * crate roots (C), nested names (N) and back-references (B) with ASCII
 * identifiers. V0_UNSUP: perf would go on into grammar the model does not
 * have (generic arguments, impl paths, types), or print what it cannot
 * (punycode, a back-reference to something else than such a path). */
enum { V0_OK, V0_INVALID, V0_UNSUP };

struct v0 {
	const char *s;
	size_t n, pos;
	struct out *o;              /* NULL: only parse (back-references not followed) */
};

#define V0_MAX_DEPTH 500

static char v0_peek(const struct v0 *p)
{
	return p->pos < p->n ? p->s[p->pos] : '\0';
}

static int v0_eat(struct v0 *p, char c)
{
	if (c && v0_peek(p) == c) {
		p->pos++;
		return 1;
	}
	return 0;
}

/* <base-62-number>: "_" is 0, else digits then "_" give value + 1 */
static int v0_int62(struct v0 *p, uint64_t *out)
{
	uint64_t x = 0;

	if (v0_eat(p, '_')) {
		*out = 0;
		return V0_OK;
	}
	while (!v0_eat(p, '_')) {
		char c = v0_peek(p);
		uint64_t d;

		if (c >= '0' && c <= '9')
			d = (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'z')
			d = 10 + (uint64_t)(c - 'a');
		else if (c >= 'A' && c <= 'Z')
			d = 36 + (uint64_t)(c - 'A');
		else
			return V0_INVALID;
		p->pos++;
		if (x > UINT64_MAX / 62 || x * 62 > UINT64_MAX - d)
			return V0_INVALID;
		x = x * 62 + d;
	}
	if (x == UINT64_MAX)
		return V0_INVALID;
	*out = x + 1;
	return V0_OK;
}

/* optional "s" <base-62-number>: 0 if absent, else the number + 1 */
static int v0_disambiguator(struct v0 *p, uint64_t *out)
{
	int r;

	if (!v0_eat(p, 's')) {
		*out = 0;
		return V0_OK;
	}
	if ((r = v0_int62(p, out)) != V0_OK)
		return r;
	if (*out == UINT64_MAX)
		return V0_INVALID;
	(*out)++;
	return V0_OK;
}

/* <identifier>: ["u"] <decimal> ["_"] <bytes> */
static int v0_ident(struct v0 *p, const char **id, size_t *idlen, int *puny)
{
	size_t len;

	*puny = v0_eat(p, 'u');
	if (v0_peek(p) < '0' || v0_peek(p) > '9')
		return V0_INVALID;
	len = (size_t)(p->s[p->pos++] - '0');
	if (len) {
		while (v0_peek(p) >= '0' && v0_peek(p) <= '9') {
			size_t d = (size_t)(p->s[p->pos++] - '0');

			if (len > SIZE_MAX / 10 || len * 10 > SIZE_MAX - d)
				return V0_INVALID;
			len = len * 10 + d;
		}
	}
	v0_eat(p, '_');
	if (p->n - p->pos < len)
		return V0_INVALID;
	*id = p->s + p->pos;
	*idlen = len;
	p->pos += len;
	if (*puny) {
		const char *u = NULL;

		for (size_t i = len; i > 0; i--)
			if ((*id)[i - 1] == '_') {
				u = *id + i - 1;
				break;
			}
		/* the part after the last '_' (all of it without one) is the
		 * punycode, which must not be empty */
		if ((u ? len - 1 - (size_t)(u - *id) : len) == 0)
			return V0_INVALID;
	}
	return V0_OK;
}

static int v0_path(struct v0 *p, unsigned depth)
{
	const char *id;
	size_t idlen;
	uint64_t dis;
	int r, puny;
	char tag;

	if (++depth > V0_MAX_DEPTH)
		return V0_INVALID;     /* DemangleRecursed: not a Rust name either */
	if (p->pos == p->n)
		return V0_INVALID;
	tag = p->s[p->pos++];
	switch (tag) {
	case 'C':
		if ((r = v0_disambiguator(p, &dis)) != V0_OK || (r = v0_ident(p, &id, &idlen, &puny)) != V0_OK)
			return r;
		if (p->o) {
			if (puny)
				return V0_UNSUP;
			put(p->o, id, idlen);   /* alternate form: no [disambiguator] */
		}
		return V0_OK;
	case 'N': {
		char ns = p->pos < p->n ? p->s[p->pos++] : '\0';
		char buf[32];

		if (!((ns >= 'A' && ns <= 'Z') || (ns >= 'a' && ns <= 'z')))
			return V0_INVALID;
		if ((r = v0_path(p, depth)) != V0_OK)
			return r;
		if ((r = v0_disambiguator(p, &dis)) != V0_OK || (r = v0_ident(p, &id, &idlen, &puny)) != V0_OK)
			return r;
		if (!p->o)
			return V0_OK;
		if (puny)
			return V0_UNSUP;
		if (ns >= 'A' && ns <= 'Z') {   /* closures, shims, ... */
			puts_(p->o, "::{");
			puts_(p->o, ns == 'C' ? "closure" : ns == 'S' ? "shim" : (char[]){ ns, '\0' });
			if (idlen) {
				puts_(p->o, ":");
				put(p->o, id, idlen);
			}
			snprintf(buf, sizeof(buf), "#%llu}", (unsigned long long)dis);
			puts_(p->o, buf);
		} else if (idlen) {
			puts_(p->o, "::");
			put(p->o, id, idlen);
		}
		return V0_OK;
	}
	case 'B': {
		size_t at = p->pos - 1;
		uint64_t i;
		struct v0 q;

		if ((r = v0_int62(p, &i)) != V0_OK)
			return r;
		if (i >= at)
			return V0_INVALID;
		if (depth + 1 > V0_MAX_DEPTH)
			return V0_INVALID;
		if (!p->o)
			return V0_OK;       /* parsing does not follow it */
		q = *p;
		q.pos = (size_t)i;
		/* perf prints the target whatever it holds; only a path the
		 * model parses whole is known */
		return v0_path(&q, depth + 1) == V0_OK ? V0_OK : V0_UNSUP;
	}
	case 'I': {
		int rr = v0_path(p, depth);

		return rr == V0_OK ? V0_UNSUP : rr;     /* then <generic-args> */
	}
	case 'M':
	case 'X':
		if ((r = v0_disambiguator(p, &dis)) != V0_OK)
			return r;
		{
			struct out *o = p->o;

			p->o = NULL;
			r = v0_path(p, depth);
			p->o = o;
		}
		return r == V0_OK ? V0_UNSUP : r;       /* then <type> */
	case 'Y':
		return V0_UNSUP;                        /* <type> */
	default:
		return V0_INVALID;
	}
}

/* The v0 part of rust_demangle_demangle: V0_OK with the suffix, else
 * V0_INVALID (not v0) or V0_UNSUP. */
static int v0_parse(const char *s, size_t n, const char **inner, size_t *ilen, const char **suffix)
{
	struct v0 p = { 0 };
	size_t k;
	int r;

	if (n >= 2 && s[0] == '_' && s[1] == 'R')
		k = 2;
	else if (n >= 1 && s[0] == 'R')
		k = 1;
	else if (n >= 3 && s[0] == '_' && s[1] == '_' && s[2] == 'R')
		k = 3;
	else
		return V0_INVALID;
	if (s[k] < 'A' || s[k] > 'Z' || !ascii(s + k, n - k))
		return V0_INVALID;
	p.s = s + k;
	p.n = n - k;
	if ((r = v0_path(&p, 0)) != V0_OK)
		return r;
	/* an instantiating crate follows when the next byte is upper case */
	if (p.pos < p.n && p.s[p.pos] >= 'A' && p.s[p.pos] <= 'Z' && (r = v0_path(&p, 0)) != V0_OK)
		return r;
	*inner = p.s;
	*ilen = p.n;
	*suffix = p.s + p.pos;
	return V0_OK;
}

/* Longer Rust names are uncertain: perf's output buffer search stops at
 * 1 MiB, and keeps the raw name when twice the length rounds up to that. */
#define RUST_NAME_MAX 200000

/*
 * rust_demangle_demangle + rust_demangle_display_demangle(alternate) as
 * dso__demangle_sym uses them: 1 with the stored name in *@out (malloc'ed),
 * 0 when @s is no Rust name (the C++ demangler comes next), -1 when the
 * model cannot tell.
 */
int sl_perf_rust_demangle(const char *s, char **out)
{
	size_t n = strlen(s), ilen = 0, elements = 0, sn;
	const char *llvm = strstr(s, ".llvm."), *inner = NULL, *suffix = NULL;
	struct out o = { 0 };
	int legacy = 0, r;

	*out = NULL;
	if (llvm) {
		const char *p = llvm + 6;

		while (*p && (is_hex(*p, 1) || *p == '@'))
			p++;
		if (!*p)
			n = (size_t)(llvm - s);
	}
	{
		size_t k = n >= 3 && !strncmp(s, "_ZN", 3) ? 3 : n >= 2 && !strncmp(s, "ZN", 2) ? 2 :
			   n >= 4 && !strncmp(s, "__ZN", 4) ? 4 : 0;

		if (k && ascii(s + k, n - k) && legacy_parse(s + k, n - k, &elements, &suffix)) {
			legacy = 1;
			inner = s + k;
			ilen = n - k;
		}
	}
	if (!legacy) {
		r = v0_parse(s, n, &inner, &ilen, &suffix);
		if (r == V0_INVALID)
			return 0;
		if (r == V0_UNSUP)
			return -1;
	}
	sn = n - (size_t)(suffix - s);
	if (sn) {
		if (suffix[0] != '.')
			return 0;
		for (size_t i = 0; i < sn; i++)
			if (suffix[i] < 0x21 || suffix[i] > 0x7e)
				return 0;
	}
	if (ilen > RUST_NAME_MAX)
		return -1;
	put(&o, "", 0);
	if (legacy) {
		legacy_print(inner, ilen, elements, &o);
	} else {
		struct v0 p = { .s = inner, .n = ilen, .o = &o };

		if (v0_path(&p, 0) != V0_OK) {
			free(o.s);
			return -1;
		}
	}
	put(&o, suffix, sn);
	if (o.oom) {
		free(o.s);
		return -1;
	}
	*out = o.s;
	return 1;
}
