/* SPDX-License-Identifier: MIT */
/*
 * fuzz_abbrevord - each unit DIE's abbreviation first in its table
 * (index/abbrevord.h) on arbitrary bytes. The input is
 *   byte 0        n: the number of units (n % 16)
 *   n * 3 bytes   per unit: abbrev table offset (u16 LE), DIE code (u8)
 *   the rest      the .debug_abbrev bytes
 * from which the harness writes a .debug_info of n DWARF 5 compile units
 * (32-bit headers; every fourth one DWARF 4). Checked:
 *   - sl_abbrev_front returns 0 (or -ENOMEM), moved + front + left = units;
 *   - the section keeps its length and its bytes (a permutation);
 *   - libdw's answer (elfutils 0.196 libdw/dwarf_tag.c __libdw_findabbrev:
 *     entries parsed in order from the table start, the first entry with
 *     the code wins, a duplicate code or an entry that does not parse ends
 *     the search for every code not seen before it) is the same before and
 *     after for every unit's table and every code 1..300: found or not, and
 *     the same entry bytes (a table's first entry in the middle of another
 *     table is a start like any other);
 * and, second, the same input's bytes after byte 0 as raw .debug_info and
 * as .debug_types (no crash, a permutation).
 */
#include "fuzz_common.h"
#include "index/abbrevord.h"

#define MAXU 16

static int leb(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	uint64_t r = 0;

	for (int i = 0; i < 10 && *p < end; i++) {
		unsigned char b = *(*p)++;

		if (i < 9)
			r |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*v = r;
			return 0;
		}
	}
	return -1;
}

/* the reference: an entry's length as libdw parses it, or -1 (an error;
 * the conservative reading: any LEB128 not ending within 10 bytes or a
 * value >= 2^32 counts as an error, as abbrevord treats it) */
static long ent(const unsigned char *p, const unsigned char *end, uint64_t *code)
{
	const unsigned char *s = p;
	uint64_t tag, name, form, k;

	if (leb(&p, end, code) || !*code || (*code >> 32) || p >= end || leb(&p, end, &tag) || (tag >> 32) ||
	    p + 1 >= end)
		return -1;
	p++;
	do {
		if (p >= end || leb(&p, end, &name) || (name >> 32) || p >= end || leb(&p, end, &form) ||
		    (form >> 32))
			return -1;
		if (form == 0x21 && (p >= end || leb(&p, end, &k)))
			return -1;
	} while (name || form);
	return p - s;
}

/* libdw's answers for the table at @t: for each code 1..300 the offset of
 * its entry (0: not found) and its length; one walk: the search for any code
 * not seen ends at the first entry that does not parse or repeats a code */
#define NC 301
#define HS 8192
static void answers(const unsigned char *ab, size_t alen, size_t t, size_t off[NC], long len[NC])
{
	const unsigned char *p = ab + t, *end = ab + alen;
	static uint64_t set[HS];
	static unsigned char used[HS];

	memset(used, 0, sizeof(used));
	memset(off, 0, NC * sizeof(off[0]));
	while (p < end && *p) {
		uint64_t c, h;
		long l = ent(p, end, &c);

		if (l < 0)
			return;
		for (h = (c * 0x9E3779B97F4A7C15ull) >> 51; used[h]; h = (h + 1) & (HS - 1))
			if (set[h] == c)
				return;         /* a duplicate: libdw stops here */
		used[h] = 1;
		set[h] = c;
		if (c < NC) {
			off[c] = (size_t)(p - ab) + 1;
			len[c] = l;
		}
		p += l;
	}
}

static void same_bytes(const unsigned char *a, const unsigned char *b, size_t n)
{
	size_t ha[256] = { 0 }, hb[256] = { 0 };

	for (size_t i = 0; i < n; i++) {
		ha[a[i]]++;
		hb[b[i]]++;
	}
	FUZZ_CHECK(!memcmp(ha, hb, sizeof(ha)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char info[MAXU * 32], *ab, *ab2;
	size_t n, ilen = 0, alen, t[MAXU];
	struct sl_abbrev_stats st = { 0 };
	int r;

	if (size < 1)
		return 0;
	n = data[0] % MAXU;
	if (size < 1 + 3 * n)
		return 0;
	alen = size - 1 - 3 * n;
	ab = malloc(alen + 1);
	ab2 = malloc(alen + 1);
	FUZZ_CHECK(ab && ab2);
	memcpy(ab, data + 1 + 3 * n, alen);
	memcpy(ab2, ab, alen);
	for (size_t u = 0; u < n; u++) {
		const uint8_t *d = data + 1 + 3 * u;
		unsigned char *h = info + ilen;

		t[u] = (size_t)d[0] | (size_t)d[1] << 8;
		if (u % 4 == 3) {       /* DWARF 4: length 9, version, abbrev offset, address size, DIE */
			unsigned char v4[] = { 9, 0, 0, 0, 4, 0, d[0], d[1], 0, 0, 8, d[2], 0 };

			memcpy(h, v4, sizeof(v4));
			ilen += sizeof(v4);
		} else {
			unsigned char v5[] = { 12, 0, 0, 0, 5, 0, 1, 8, d[0], d[1], 0, 0, d[2], 0, 0, 0 };

			memcpy(h, v5, sizeof(v5));
			ilen += sizeof(v5);
		}
	}
	r = sl_abbrev_front(ab2, alen, info, ilen, NULL, 0, &st);
	FUZZ_CHECK(r == 0 || r == -12);
	if (r == 0) {
		FUZZ_CHECK(st.units == (alen ? n : 0));
		FUZZ_CHECK(st.moved + st.front + st.left == st.units);
	}
	same_bytes(ab, ab2, alen);
	for (size_t u = 0; u < n; u++) {
		if (t[u] >= alen)
			continue;
		static size_t oa[NC], ob[NC];
		static long la[NC], lb[NC];

		answers(ab, alen, t[u], oa, la);
		answers(ab2, alen, t[u], ob, lb);
		for (int c = 1; c < NC; c++) {
			FUZZ_CHECK(!oa[c] == !ob[c]);
			if (oa[c]) {
				FUZZ_CHECK(la[c] == lb[c]);
				FUZZ_CHECK(!memcmp(ab + oa[c] - 1, ab2 + ob[c] - 1, (size_t)la[c]));
			}
		}
	}
	/* raw bytes as unit headers: no crash, a permutation */
	memcpy(ab2, ab, alen);
	r = sl_abbrev_front(ab2, alen, data + 1, size - 1, data + 1, size - 1, &st);
	FUZZ_CHECK(r == 0 || r == -12);
	same_bytes(ab, ab2, alen);
	free(ab);
	free(ab2);
	return 0;
}
