/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for index/abbrevord.c (each unit DIE's abbreviation first in
 * its table) and its use in the decompressed copy (index/dbgsec.c,
 * SL_DBGSEC_ABBREV):
 *   - hand-made tables: the exact bytes after a move (DWARF 5 compile,
 *     skeleton and type units, DWARF 4, 64-bit DWARF, .debug_types,
 *     DW_FORM_implicit_const), an entry already first, a table shared by two
 *     units, and what is left alone: a duplicate code before the entry, an
 *     entry that does not parse, a code >= 2^32, a table starting inside the
 *     bytes that would move or one before them whose entries reach into
 *     them, a unit whose code is not in its table;
 *   - a program of three C files compiled at test time with -g -gz=zlib:
 *     the copy made with SL_DBGSEC_ABBREV differs from the one without only
 *     in .debug_abbrev (same size), some units moved, and libdw (this host's)
 *     reads every DIE of both the same: offset, tag, children, each
 *     attribute's name, form and value, and each unit's line table; an
 *     ET_REL object's copy keeps its tables as inflated.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "index/abbrevord.h"
#include "index/dbgsec.h"

/* --- hand-made sections ------------------------------------------------ */

/* abbrev entries: code, tag, children, pairs..., 0, 0 */
#define E_BASE(c) c, 0x24, 0, 0x03, 0x08, 0, 0               /* base_type, name strp */
#define E_VAR(c) c, 0x34, 0, 0x03, 0x08, 0x49, 0x13, 0, 0      /* variable */
#define E_CU(c) c, 0x11, 1, 0x25, 0x08, 0x10, 0x17, 0, 0        /* compile_unit */

/* a DWARF 5 DW_UT_compile header (32-bit) for a unit whose DIE code is
 * @code, abbrev table at @ab; 4 bytes of DIE ("code 0 0 0") */
static size_t cu5(unsigned char *p, uint32_t ab, unsigned char code)
{
	unsigned char h[] = { 12, 0, 0, 0, 5, 0, 1, 8, (unsigned char)ab, (unsigned char)(ab >> 8), 0, 0,
			      code, 0, 0, 0 };

	memcpy(p, h, sizeof(h));
	return sizeof(h);
}

static void test_moves_entry_first(void **state)
{
	unsigned char ab[] = { E_BASE(1), E_VAR(2), E_CU(3), 0 };
	unsigned char want[] = { E_CU(3), E_BASE(1), E_VAR(2), 0 };
	unsigned char info[64];
	struct sl_abbrev_stats st = { 0 };
	size_t n = cu5(info, 0, 3);

	(void)state;
	assert_int_equal(sl_abbrev_front(ab, sizeof(ab), info, n, NULL, 0, &st), 0);
	assert_memory_equal(ab, want, sizeof(ab));
	assert_int_equal(st.units, 1);
	assert_int_equal(st.moved, 1);
	assert_int_equal(st.left, 0);
	/* again: already first */
	memset(&st, 0, sizeof(st));
	assert_int_equal(sl_abbrev_front(ab, sizeof(ab), info, n, NULL, 0, &st), 0);
	assert_memory_equal(ab, want, sizeof(ab));
	assert_int_equal(st.front, 1);
	assert_int_equal(st.moved, 0);
}

static void test_shared_table_two_units(void **state)
{
	unsigned char ab[] = { E_BASE(1), E_CU(2), E_VAR(3), E_CU(4), 0 };
	/* unit 1 (code 2) moves first, then unit 2 (code 4) in front of it */
	unsigned char want[] = { E_CU(4), E_CU(2), E_BASE(1), E_VAR(3), 0 };
	unsigned char info[64];
	struct sl_abbrev_stats st = { 0 };
	size_t n = cu5(info, 0, 2);

	(void)state;
	n += cu5(info + n, 0, 4);
	assert_int_equal(sl_abbrev_front(ab, sizeof(ab), info, n, NULL, 0, &st), 0);
	assert_memory_equal(ab, want, sizeof(ab));
	assert_int_equal(st.moved, 2);
}

static void test_second_table(void **state)
{
	/* two tables; the second unit's table starts at offset 17 */
	unsigned char ab[] = { E_CU(1), E_BASE(2), 0, E_BASE(1), E_CU(2), 0 };
	unsigned char want[] = { E_CU(1), E_BASE(2), 0, E_CU(2), E_BASE(1), 0 };
	unsigned char info[64];
	struct sl_abbrev_stats st = { 0 };
	size_t n = cu5(info, 0, 1);

	(void)state;
	assert_int_equal(ab[17], 1);
	n += cu5(info + n, 17, 2);
	assert_int_equal(sl_abbrev_front(ab, sizeof(ab), info, n, NULL, 0, &st), 0);
	assert_memory_equal(ab, want, sizeof(ab));
	assert_int_equal(st.front, 1);
	assert_int_equal(st.moved, 1);
}

static void test_headers(void **state)
{
	unsigned char ab0[] = { E_BASE(1), E_CU(2), 0 };
	unsigned char want[] = { E_CU(2), E_BASE(1), 0 };
	unsigned char ab[sizeof(ab0)];
	struct sl_abbrev_stats st;

	(void)state;
	/* DWARF 4: length, version 4, abbrev offset (4), address size, DIE */
	{
		unsigned char h[] = { 9, 0, 0, 0, 4, 0, 0, 0, 0, 0, 8, 2, 0 };

		memcpy(ab, ab0, sizeof(ab));
		memset(&st, 0, sizeof(st));
		assert_int_equal(sl_abbrev_front(ab, sizeof(ab), h, sizeof(h), NULL, 0, &st), 0);
		assert_memory_equal(ab, want, sizeof(ab));
		assert_int_equal(st.moved, 1);
	}
	/* DWARF 5 skeleton: dwo_id (8) before the DIE */
	{
		unsigned char h[] = { 19, 0, 0, 0, 5, 0, 4, 8, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 2, 0, 0 };

		memcpy(ab, ab0, sizeof(ab));
		memset(&st, 0, sizeof(st));
		assert_int_equal(sl_abbrev_front(ab, sizeof(ab), h, sizeof(h), NULL, 0, &st), 0);
		assert_memory_equal(ab, want, sizeof(ab));
		assert_int_equal(st.moved, 1);
	}
	/* DWARF 5 type unit: signature (8) and type offset (4) */
	{
		unsigned char h[] = { 23, 0, 0, 0, 5, 0, 2, 8, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0,
				      2, 0, 0 };

		memcpy(ab, ab0, sizeof(ab));
		memset(&st, 0, sizeof(st));
		assert_int_equal(sl_abbrev_front(ab, sizeof(ab), h, sizeof(h), NULL, 0, &st), 0);
		assert_memory_equal(ab, want, sizeof(ab));
	}
	/* 64-bit DWARF 5 compile unit: 0xffffffff, 8-byte length and abbrev offset */
	{
		unsigned char h[] = { 0xff, 0xff, 0xff, 0xff, 15, 0, 0, 0, 0, 0, 0, 0, 5, 0, 1, 8,
				      0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0 };

		memcpy(ab, ab0, sizeof(ab));
		memset(&st, 0, sizeof(st));
		assert_int_equal(sl_abbrev_front(ab, sizeof(ab), h, sizeof(h), NULL, 0, &st), 0);
		assert_memory_equal(ab, want, sizeof(ab));
	}
	/* DWARF 4 .debug_types: signature (8) and type offset (4) after address size */
	{
		unsigned char h[] = { 22, 0, 0, 0, 4, 0, 0, 0, 0, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0,
				      2, 0, 0 };

		memcpy(ab, ab0, sizeof(ab));
		memset(&st, 0, sizeof(st));
		assert_int_equal(sl_abbrev_front(ab, sizeof(ab), NULL, 0, h, sizeof(h), &st), 0);
		assert_memory_equal(ab, want, sizeof(ab));
		assert_int_equal(st.moved, 1);
	}
	/* an unknown unit type (0x80) and version 6: left alone */
	{
		unsigned char h[] = { 12, 0, 0, 0, 5, 0, 0x80, 8, 0, 0, 0, 0, 2, 0, 0, 0,
				      12, 0, 0, 0, 6, 0, 1, 8, 0, 0, 0, 0, 2, 0, 0, 0 };

		memcpy(ab, ab0, sizeof(ab));
		memset(&st, 0, sizeof(st));
		assert_int_equal(sl_abbrev_front(ab, sizeof(ab), h, sizeof(h), NULL, 0, &st), 0);
		assert_memory_equal(ab, ab0, sizeof(ab));
		assert_int_equal(st.units, 2);
		assert_int_equal(st.left, 2);
	}
}

static void test_implicit_const(void **state)
{
	/* DW_AT_decl_file DW_FORM_implicit_const -3 (SLEB 0x7d), then the CU */
	unsigned char ab[] = { 1, 0x34, 0, 0x3a, 0x21, 0x7d, 0, 0, E_CU(2), 0 };
	unsigned char want[] = { E_CU(2), 1, 0x34, 0, 0x3a, 0x21, 0x7d, 0, 0, 0 };
	unsigned char info[64];
	struct sl_abbrev_stats st = { 0 };
	size_t n = cu5(info, 0, 2);

	(void)state;
	assert_int_equal(sl_abbrev_front(ab, sizeof(ab), info, n, NULL, 0, &st), 0);
	assert_memory_equal(ab, want, sizeof(ab));
}

/* one table @ab0 with the unit DIE's code @code: must stay as it is */
static void left_alone(const unsigned char *ab0, size_t len, unsigned char code)
{
	unsigned char ab[64], info[64];
	struct sl_abbrev_stats st = { 0 };
	size_t n = cu5(info, 0, code);

	memcpy(ab, ab0, len);
	assert_int_equal(sl_abbrev_front(ab, len, info, n, NULL, 0, &st), 0);
	assert_memory_equal(ab, ab0, len);
	assert_int_equal(st.left, 1);
	assert_int_equal(st.moved, 0);
}

static void test_left_alone(void **state)
{
	(void)state;
	{       /* a duplicate code before the entry: libdw fails there */
		unsigned char ab[] = { E_BASE(1), E_VAR(1), E_CU(3), 0 };
		left_alone(ab, sizeof(ab), 3);
	}
	{       /* the code is not in the table */
		unsigned char ab[] = { E_BASE(1), E_VAR(2), 0 };
		left_alone(ab, sizeof(ab), 3);
	}
	{       /* the entry runs off the end of the section */
		unsigned char ab[] = { E_BASE(1), 3, 0x11, 1, 0x25, 0x08 };
		left_alone(ab, sizeof(ab), 3);
	}
	{       /* a code >= 2^32 before the entry (libdw truncates it) */
		unsigned char ab[] = { 0x81, 0x80, 0x80, 0x80, 0x10, 0x24, 0, 0, 0, E_CU(3), 0 };
		left_alone(ab, sizeof(ab), 3);
	}
	{       /* an attribute name LEB128 longer than 10 bytes */
		unsigned char ab[] = { 1, 0x24, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
				       0x00, 0x08, 0, 0, E_CU(3), 0 };
		left_alone(ab, sizeof(ab), 3);
	}
	{       /* the unit DIE's code is 0 */
		unsigned char ab[] = { E_BASE(1), E_CU(3), 0 };
		left_alone(ab, sizeof(ab), 0);
	}
}

static void test_overlapping_tables(void **state)
{
	/* unit 2's table starts at offset 7, inside the bytes unit 1 would move */
	unsigned char ab0[] = { E_BASE(1), E_BASE(2), E_CU(3), 0 };
	unsigned char ab[sizeof(ab0)], info[64];
	struct sl_abbrev_stats st = { 0 };
	size_t n = cu5(info, 0, 3);

	(void)state;
	n += cu5(info + n, 7, 2);
	memcpy(ab, ab0, sizeof(ab));
	assert_int_equal(sl_abbrev_front(ab, sizeof(ab), info, n, NULL, 0, &st), 0);
	/* unit 1 left; unit 2's own table [7, ...): code 2 is first already */
	assert_memory_equal(ab, ab0, sizeof(ab));
	assert_int_equal(st.units, 2);
	assert_int_equal(st.left, 1);
	assert_int_equal(st.front, 1);
}

static void test_table_reaching_into(void **state)
{
	/* table 0's first entry (code 1) has attribute pairs up to offset 21,
	 * table 1 (offset 7) starts inside it: moving table 1's code 2 first
	 * would change what libdw reads for table 0 (fuzz/seeds/abbrevord/reach-into) */
	unsigned char ab0[] = { 1, 0x24, 0, 3, 8, 0, 0xf6, 7, 0, 2, 1, 0x24, 0, 2, 0x24, 0, 0x24, 0x40, 3, 8,
				0, 0, 2, 0x24, 0, 3, 8, 0, 0, 0 };
	unsigned char ab[sizeof(ab0)], info[64];
	struct sl_abbrev_stats st = { 0 };
	size_t n = cu5(info, 0, 3);

	(void)state;
	n += cu5(info + n, 7, 2);
	memcpy(ab, ab0, sizeof(ab));
	assert_int_equal(sl_abbrev_front(ab, sizeof(ab), info, n, NULL, 0, &st), 0);
	assert_memory_equal(ab, ab0, sizeof(ab));
	assert_int_equal(st.left, 2);
	/* without unit 0, table 1 alone: moved */
	memset(&st, 0, sizeof(st));
	n = cu5(info, 7, 2);
	assert_int_equal(sl_abbrev_front(ab, sizeof(ab), info, n, NULL, 0, &st), 0);
	assert_int_equal(st.moved, 1);
	assert_int_equal(ab[7], 2);
}

static void test_truncated_info(void **state)
{
	unsigned char ab0[] = { E_BASE(1), E_CU(2), 0 };
	unsigned char ab[sizeof(ab0)], info[64];
	struct sl_abbrev_stats st = { 0 };
	size_t n = cu5(info, 0, 2);

	(void)state;
	for (size_t k = 0; k < n; k++) {        /* every truncation: no move past the data */
		memcpy(ab, ab0, sizeof(ab));
		assert_int_equal(sl_abbrev_front(ab, sizeof(ab), info, k, NULL, 0, &st), 0);
		assert_memory_equal(ab, ab0, sizeof(ab));
	}
	assert_int_equal(st.moved, 0);
}

/* --- a real program, read back with libdw --------------------------------- */

static char dir[64];

static int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static const char *src[3] = {
	"struct s { int a; double b; };\n"
	"static inline __attribute__((always_inline)) int tri(int x) { return x * 3; }\n"
	"int g(int x) { struct s v = { x, 1.0 }; return tri(v.a) + tri(x + 1); }\n",
	"extern int g(int); enum e { A, B = 7 };\n"
	"static inline __attribute__((always_inline)) int sq(int x) { return x * x; }\n"
	"int h(int x) { enum e k = B; return sq(g(x)) + k; }\n",
	"#include <stdio.h>\nextern int h(int);\n"
	"int main(int c, char **v) { (void)v; printf(\"%d\\n\", h(c)); return 0; }\n",
};

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/sl-abbrev-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	for (int i = 0; i < 3; i++) {
		char p[128];
		FILE *f;

		snprintf(p, sizeof(p), "%s/s%d.c", dir, i);
		if (!(f = fopen(p, "w")))
			return -1;
		fputs(src[i], f);
		fclose(f);
	}
	return sh("cc -O2 -g -gz=zlib -o %s/p %s/s0.c %s/s1.c %s/s2.c && printf 'struct t { int a; long b; };\\nint v3 = 1;\\n"
		  "static inline __attribute__((always_inline)) int h3(int x) { return x * 3; }\\n"
		  "int f3(struct t *p) { return h3(p->a) + (int)p->b + v3; }\\n' >%s/s3.c && "
		  "cc -O2 -g -gz=zlib -fno-asynchronous-unwind-tables -fno-unwind-tables -c -o %s/s3.o %s/s3.c",
		  dir, dir, dir, dir, dir, dir, dir) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	sh("rm -rf %s", dir);
	return 0;
}

static void same_attr(Dwarf_Attribute *a, Dwarf_Attribute *b)
{
	Dwarf_Word ua, ub;
	Dwarf_Sword sa, sb;
	Dwarf_Addr xa, xb;
	Dwarf_Block ba, bb;
	Dwarf_Die da, db;
	const char *ta, *tb;

	assert_int_equal(dwarf_whatattr(a), dwarf_whatattr(b));
	assert_int_equal(dwarf_whatform(a), dwarf_whatform(b));
	assert_int_equal(dwarf_formudata(a, &ua), dwarf_formudata(b, &ub));
	if (dwarf_formudata(a, &ua) == 0) {
		dwarf_formudata(b, &ub);
		assert_int_equal(ua, ub);
	}
	if (dwarf_formsdata(a, &sa) == 0) {
		assert_int_equal(dwarf_formsdata(b, &sb), 0);
		assert_int_equal(sa, sb);
	}
	if (dwarf_formaddr(a, &xa) == 0) {
		assert_int_equal(dwarf_formaddr(b, &xb), 0);
		assert_int_equal(xa, xb);
	}
	ta = dwarf_formstring(a);
	tb = dwarf_formstring(b);
	assert_true((ta == NULL) == (tb == NULL));
	if (ta)
		assert_string_equal(ta, tb);
	if (dwarf_formblock(a, &ba) == 0) {
		assert_int_equal(dwarf_formblock(b, &bb), 0);
		assert_int_equal(ba.length, bb.length);
		assert_memory_equal(ba.data, bb.data, ba.length);
	}
	if (dwarf_formref_die(a, &da)) {
		assert_non_null(dwarf_formref_die(b, &db));
		assert_int_equal(dwarf_dieoffset(&da), dwarf_dieoffset(&db));
	}
}

struct pair {
	Dwarf_Die *b;
	Dwarf_Attribute list[256];
	int n;
};

static int collect(Dwarf_Attribute *at, void *arg)
{
	struct pair *p = arg;

	if (p->n < 256)
		p->list[p->n++] = *at;
	return DWARF_CB_OK;
}

/* DIE @a (copy A) and @b (copy B) and everything below them read the same */
static long same_tree(Dwarf_Die *a, Dwarf_Die *b)
{
	long n = 1;
	struct pair pa = { 0 }, pb = { 0 };
	Dwarf_Die ca, cb;
	int ra, rb;

	assert_int_equal(dwarf_dieoffset(a), dwarf_dieoffset(b));
	assert_int_equal(dwarf_tag(a), dwarf_tag(b));
	assert_int_equal(dwarf_haschildren(a), dwarf_haschildren(b));
	dwarf_getattrs(a, collect, &pa, 0);
	dwarf_getattrs(b, collect, &pb, 0);
	assert_int_equal(pa.n, pb.n);
	for (int i = 0; i < pa.n; i++)
		same_attr(&pa.list[i], &pb.list[i]);
	ra = dwarf_child(a, &ca);
	rb = dwarf_child(b, &cb);
	assert_int_equal(ra, rb);
	while (ra == 0) {
		n += same_tree(&ca, &cb);
		ra = dwarf_siblingof(&ca, &ca);
		rb = dwarf_siblingof(&cb, &cb);
		assert_int_equal(ra, rb);
	}
	return n;
}

static void section(int fd, const char *name, Elf_Data **d)
{
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	size_t str;
	Elf_Scn *s = NULL;

	*d = NULL;
	assert_non_null(e);
	assert_int_equal(elf_getshdrstrndx(e, &str), 0);
	while ((s = elf_nextscn(e, s))) {
		GElf_Shdr h;

		gelf_getshdr(s, &h);
		if (!strcmp(elf_strptr(e, str, h.sh_name), name)) {
			Elf_Data *x = elf_getdata(s, NULL);
			Elf_Data *c = malloc(sizeof(*c) + x->d_size);

			*c = *x;
			c->d_buf = c + 1;
			memcpy(c->d_buf, x->d_buf, x->d_size);
			*d = c;
		}
	}
	elf_end(e);
}

static void test_libdw_reads_the_same(void **state)
{
	char p[128];
	int fd, dfd, ca, cb;
	struct sl_dbgsec_info ia = { 0 }, ib = { 0 };
	Dwarf *a, *b;
	Dwarf_Off off = 0, next;
	size_t hsz;
	long dies = 0, units = 0;
	Elf_Data *xa, *xb;

	(void)state;
	elf_version(EV_CURRENT);
	snprintf(p, sizeof(p), "%s/p", dir);
	fd = open(p, O_RDONLY);
	snprintf(p, sizeof(p), "%s/cache", dir);
	mkdir(p, 0700);
	dfd = open(p, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0 && dfd >= 0);
	ca = sl_dbgsec_open(fd, dfd, 0, &ia);
	cb = sl_dbgsec_open(fd, dfd, SL_DBGSEC_ABBREV, &ib);
	assert_true(ca >= 0 && cb >= 0);
	assert_int_equal(ia.built, 1);
	assert_int_equal(ib.built, 1);          /* its own key: not the plain copy */
	assert_int_equal(ia.abbrev_moved, 0);
	assert_true(ib.abbrev_moved >= 2);      /* GCC puts the unit DIE's entry last */
	/* only .debug_abbrev differs, with the same size */
	section(ca, ".debug_abbrev", &xa);
	section(cb, ".debug_abbrev", &xb);
	assert_true(xa && xb);
	assert_int_equal(xa->d_size, xb->d_size);
	assert_memory_not_equal(xa->d_buf, xb->d_buf, xa->d_size);
	free(xa);
	free(xb);
	section(ca, ".debug_info", &xa);
	section(cb, ".debug_info", &xb);
	assert_true(xa && xb);
	assert_int_equal(xa->d_size, xb->d_size);
	assert_memory_equal(xa->d_buf, xb->d_buf, xa->d_size);
	free(xa);
	free(xb);
	a = dwarf_begin(ca, DWARF_C_READ);
	b = dwarf_begin(cb, DWARF_C_READ);
	assert_true(a && b);
	while (dwarf_nextcu(a, off, &next, &hsz, NULL, NULL, NULL) == 0) {
		Dwarf_Die da, db;
		Dwarf_Lines *la, *lb;
		size_t na, nb;

		assert_non_null(dwarf_offdie(a, off + hsz, &da));
		assert_non_null(dwarf_offdie(b, off + hsz, &db));
		dies += same_tree(&da, &db);
		assert_int_equal(dwarf_getsrclines(&da, &la, &na), 0);
		assert_int_equal(dwarf_getsrclines(&db, &lb, &nb), 0);
		assert_int_equal(na, nb);
		for (size_t i = 0; i < na; i++) {
			Dwarf_Addr x, y;
			int u, v;

			dwarf_lineaddr(dwarf_onesrcline(la, i), &x);
			dwarf_lineaddr(dwarf_onesrcline(lb, i), &y);
			dwarf_lineno(dwarf_onesrcline(la, i), &u);
			dwarf_lineno(dwarf_onesrcline(lb, i), &v);
			assert_int_equal(x, y);
			assert_int_equal(u, v);
			assert_string_equal(dwarf_linesrc(dwarf_onesrcline(la, i), NULL, NULL),
					    dwarf_linesrc(dwarf_onesrcline(lb, i), NULL, NULL));
		}
		units++;
		off = next;
	}
	assert_int_equal(units, 3);
	assert_true(dies > 30);
	/* the CU lookups libdwfl makes: same units by address */
	{
		Dwarf_Aranges *ra, *rb;
		size_t nra, nrb;

		if (dwarf_getaranges(a, &ra, &nra) == 0) {
			assert_int_equal(dwarf_getaranges(b, &rb, &nrb), 0);
			assert_int_equal(nra, nrb);
		}
	}
	dwarf_end(a);
	dwarf_end(b);
	close(ca);
	close(cb);
	close(fd);
	close(dfd);
}

/* an ET_REL object: libdwfl relocates its unit headers' abbrev offsets, so
 * the copy's tables stay as inflated */
static void test_et_rel_left(void **state)
{
	char p[128];
	int fd, dfd, ca, cb;
	struct sl_dbgsec_info ia = { 0 }, ib = { 0 };
	Elf_Data *xa, *xb;

	(void)state;
	elf_version(EV_CURRENT);
	snprintf(p, sizeof(p), "%s/s3.o", dir);
	fd = open(p, O_RDONLY);
	snprintf(p, sizeof(p), "%s/cache-rel", dir);
	mkdir(p, 0700);
	dfd = open(p, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0 && dfd >= 0);
	ca = sl_dbgsec_open(fd, dfd, 0, &ia);
	cb = sl_dbgsec_open(fd, dfd, SL_DBGSEC_ABBREV, &ib);
	if (ca == -EINVAL) {
		/* GCC's object: an uncompressed section after the first compressed one
		 * has SHF_ALLOC or the layout is one dbgsec.c leaves alone: the same
		 * answer with the flag, no copy either way */
		assert_int_equal(cb, -EINVAL);
		close(fd);
		close(dfd);
		skip();
	}
	assert_true(ca >= 0 && cb >= 0);
	assert_int_equal(ib.built, 1);
	assert_int_equal(ib.abbrev_moved, 0);
	section(ca, ".debug_abbrev", &xa);
	section(cb, ".debug_abbrev", &xb);
	assert_true(xa && xb);
	assert_int_equal(xa->d_size, xb->d_size);
	assert_memory_equal(xa->d_buf, xb->d_buf, xa->d_size);
	free(xa);
	free(xb);
	close(ca);
	close(cb);
	close(fd);
	close(dfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_moves_entry_first),
		cmocka_unit_test(test_shared_table_two_units),
		cmocka_unit_test(test_second_table),
		cmocka_unit_test(test_headers),
		cmocka_unit_test(test_implicit_const),
		cmocka_unit_test(test_left_alone),
		cmocka_unit_test(test_overlapping_tables),
		cmocka_unit_test(test_table_reaching_into),
		cmocka_unit_test(test_truncated_info),
		cmocka_unit_test_setup_teardown(test_libdw_reads_the_same, setup, teardown),
		cmocka_unit_test_setup_teardown(test_et_rel_left, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
