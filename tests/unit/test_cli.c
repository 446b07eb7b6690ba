/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for what the `symlazy` command is built on: the stats JSON
 * reader (core/statsjson.c, against what core/stats.c writes and against
 * damaged documents) and the lookup API (core/lookup.h) on a shared object
 * assembled at test time, whose every answer is also checked against the
 * replay of perf's whole load (symindex_replay).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "index/elfx.h"
#include "core/lookup.h"
#include "core/stats.h"
#include "core/statsjson.h"
#include "index/symindex.h"
#include "core/models.h"

/* ---- stats JSON ------------------------------------------------------------ */

static char *write_doc(const struct stats_totals *t, const struct scan_stats *list, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	assert_non_null(f);
	assert_int_equal(stats_write_json(f, t, list), 0);
	fclose(f);
	return buf;
}

static void sample_doc(struct stats_totals *t, struct scan_stats s[2])
{
	memset(t, 0, sizeof(*t));
	memset(s, 0, 2 * sizeof(*s));
	t->budget_bytes = 8u << 20;
	t->charged_bytes = 1234;
	t->refused_bytes = 5;
	t->lazy = "off";
	snprintf(t->lazy_reason, sizeof(t->lazy_reason), "%s", "cannot parse grouped option -fi \"x\"\\\t\x01");
	t->lazy_reason_code = "grouped_option";
	t->addr_dsos = 2;
	t->addrs = 311;
	s[0].next = &s[1];
	snprintf(s[0].path, sizeof(s[0].path), "/usr/lib/x86_64-linux-gnu/libc.so.6");
	snprintf(s[0].build_id, sizeof(s[0].build_id), "93ac61ec5a8eb1396f9fbd350e3169a558528a40");
	s[0].table = "symtab";
	s[0].mode = "budget";
	s[0].scanned = 10014;
	s[0].passed = 100;
	s[0].dropped = 9000;
	s[0].bytes = 1000;
	s[0].mmap = 1;
	s[1].table = "dynsym";
	s[1].mode = "passthrough";
	s[1].reason_code = "kernel";
	snprintf(s[1].reason, sizeof(s[1].reason), "kernel image or module");
	s[1].scanned = 7;
	s[1].passed = 3;
	s[1].bytes = 234;
}

static void test_stats_roundtrip(void **state)
{
	struct stats_totals t;
	struct scan_stats s[2];
	struct sl_stats_doc d;
	char err[128], *buf;
	size_t len;

	(void)state;
	sample_doc(&t, s);
	buf = write_doc(&t, s, &len);
	assert_int_equal(sl_stats_parse(buf, len, &d, err, sizeof(err)), 0);
	assert_int_equal(d.budget_bytes, 8u << 20);
	assert_int_equal(d.charged_bytes, 1234);
	assert_int_equal(d.refused_bytes, 5);
	assert_string_equal(d.lazy, "off");
	assert_string_equal(d.lazy_reason, t.lazy_reason);     /* escapes decoded back */
	assert_string_equal(d.lazy_reason_code, "grouped_option");
	assert_int_equal(d.addrs, 311);
	assert_int_equal(d.ndsos, 2);
	assert_string_equal(d.dsos[0].path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	assert_string_equal(d.dsos[0].mode, "budget");
	assert_int_equal(d.dsos[0].c.scanned, 10014);
	assert_int_equal(d.dsos[0].mmap, 1);
	assert_null(d.dsos[0].reason_code);
	assert_string_equal(d.dsos[1].reason_code, "kernel");
	assert_int_equal(d.totals.scanned, 10021);
	assert_int_equal(d.totals.passed, 103);
	assert_int_equal(d.totals.bytes, 1234);
	sl_stats_free(&d);
	/* SYMLAZY_STATS=1 prints it after "symlazy stats: " on stderr */
	{
		char *pre = malloc(len + 16);

		memcpy(pre, "symlazy stats: ", 15);
		memcpy(pre + 15, buf, len);
		assert_int_equal(sl_stats_parse(pre, len + 15, &d, err, sizeof(err)), 0);
		sl_stats_free(&d);
		free(pre);
	}
	free(buf);
}

static void expect_bad(const char *doc, const char *want)
{
	struct sl_stats_doc d;
	char err[256];
	int r = sl_stats_parse(doc, strlen(doc), &d, err, sizeof(err));

	if (r != -EINVAL || !strstr(err, want))
		fail_msg("doc %.60s...: r=%d err='%s', want -EINVAL with '%s'", doc, r, err, want);
	assert_null(d.dsos);
	assert_null(d.lazy);
}

#define HEAD "{\"budget_bytes\":0,\"charged_bytes\":0,\"refused_bytes\":0,\"lazy\":\"on\",\"lazy_reason\":\"\"," \
	     "\"addr_dsos\":0,\"addrs\":0,"
#define TOT0 "\"totals\":{\"scanned\":0,\"passed\":0,\"dropped\":0,\"bytes\":0},"

static void test_stats_rejects(void **state)
{
	struct stats_totals t;
	struct scan_stats s[2];
	struct sl_stats_doc d;
	char err[256], *buf;
	size_t len;

	(void)state;
	expect_bad("", "empty input");
	expect_bad("[]", "not a JSON object");
	expect_bad(HEAD TOT0 "\"dsos\":[]} x", "data after");
	expect_bad(HEAD TOT0 "\"dsos\":[]", "expected '}'");
	expect_bad(HEAD "\"dsos\":[]}", "missing key");
	expect_bad(HEAD TOT0 "\"dsos\":[],\"addrs\":1}", "duplicate key");
	expect_bad("{\"budget_bytes\":-1}", "non-negative integer");
	expect_bad("{\"budget_bytes\":1.5}", "non-negative integer");
	expect_bad("{\"budget_bytes\":01}", "leading zero");
	expect_bad("{\"budget_bytes\":99999999999999999999}", "too large");
	expect_bad("{\"lazy\":\"maybe\"}", "unexpected \"lazy\" value");
	expect_bad("{\"lazy\":\"o\\x\"}", "bad escape");
	expect_bad("{\"lazy\":\"\\ud800\"}", "unpaired surrogate");
	expect_bad("{\"lazy\":\"\\u00\"}", "bad \\u escape");
	expect_bad("{\"lazy\":\"a\nb\"}", "control character");
	expect_bad("{\"lazy\":\"abc", "unterminated string");
	expect_bad("{\"x\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}", "too deep");
	expect_bad(HEAD TOT0 "\"dsos\":[{\"path\":\"a\"}]}", "lacks one of");
	expect_bad(HEAD "\"totals\":{\"scanned\":1,\"passed\":0,\"dropped\":0,\"bytes\":0},\"dsos\":[]}", "not the sums");
	expect_bad(HEAD TOT0 "\"dsos\":[{\"path\":\"\",\"build_id\":\"\",\"table\":\"strtab\"}]}", "\"table\" value");
	expect_bad(HEAD TOT0 "\"dsos\":[{\"mmap\":1}]}", "true or false");
	/* every prefix of a valid document is rejected, never crashes */
	sample_doc(&t, s);
	buf = write_doc(&t, s, &len);
	for (size_t cut = 0; cut + 1 < len; cut++) {
		assert_int_equal(sl_stats_parse(buf, cut, &d, err, sizeof(err)), -EINVAL);
		assert_true(err[0] != '\0');
	}
	free(buf);
}

static void test_stats_extra_keys_and_unicode(void **state)
{
	const char *doc = HEAD TOT0 "\"future\":{\"a\":[1,-2.5e3,true,false,null,\"s\"],\"b\":{}},"
			  "\"dsos\":[]," "\"lazy_reason_code\":\"x\\u00e9\\ud83d\\ude00\\/\"}";
	struct sl_stats_doc d;
	char err[128];

	(void)state;
	assert_int_equal(sl_stats_parse(doc, strlen(doc), &d, err, sizeof(err)), 0);
	assert_string_equal(d.lazy_reason_code, "x\xc3\xa9\xf0\x9f\x98\x80/");
	assert_int_equal(d.ndsos, 0);
	sl_stats_free(&d);
}

static void test_stats_load_errors(void **state)
{
	struct sl_stats_doc d;
	char err[128];

	(void)state;
	assert_int_equal(sl_stats_load("/nonexistent/s.json", &d, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, strerror(ENOENT));
	assert_int_equal(sl_stats_load("/", &d, err, sizeof(err)), -EINVAL);
	assert_int_equal(sl_stats_load("/etc/passwd", &d, err, sizeof(err)), -EINVAL);
}

/* ---- lookup ------------------------------------------------------------------ */

static const char *asm_src =
	"\t.text\n"
	"\t.globl f1\n\t.type f1,@function\nf1:\n\t.fill 16,1,0x90\n\t.size f1,16\n"
	"\t.globl z1\n\t.type z1,@function\nz1:\n\t.fill 16,1,0x90\n"          /* zero size */
	"\t.globl f2\n\t.type f2,@function\nf2:\n\t.fill 32,1,0x90\n\t.size f2,32\n"
	"\t.weak walias\n\t.type walias,@function\n\t.set walias,f2\n\t.size walias,32\n"
	"\t.type lalias,@function\n\t.set lalias,f2\n\t.size lalias,32\n"      /* local alias */
	"\t.globl _Z3fooi\n\t.type _Z3fooi,@function\n_Z3fooi:\n\t.fill 16,1,0x90\n\t.size _Z3fooi,16\n"
	"\t.globl foo_long\n\t.type foo_long,@function\n\t.set foo_long,_Z3fooi\n\t.size foo_long,16\n"
	"\t.globl _ZN2ns6workerEv\n\t.type _ZN2ns6workerEv,@function\n_ZN2ns6workerEv:\n\t.fill 16,1,0x90\n"
	"\t.size _ZN2ns6workerEv,16\n"
	"\t.globl outer\n\t.type outer,@function\nouter:\n\t.fill 8,1,0x90\n"
	"\t.globl inner_label\ninner_label:\n\t.fill 56,1,0x90\n\t.size outer,64\n"
	"\t.globl f3\n\t.type f3,@function\nf3:\n\tjmp puts@PLT\n\t.fill 14,1,0x90\n\t.size f3,16\n"
	"\t.section .note.GNU-stack,\"\",@progbits\n";

static char ldir[64], lso[96];

static int lookup_setup(void **state)
{
	char cmd[256], sfile[96];
	FILE *f;

	(void)state;
	snprintf(ldir, sizeof(ldir), "/tmp/symlazy-ut-cli-XXXXXX");
	if (!mkdtemp(ldir))
		return -1;
	snprintf(sfile, sizeof(sfile), "%s/lk.s", ldir);
	snprintf(lso, sizeof(lso), "%s/lk.so", ldir);
	f = fopen(sfile, "w");
	if (!f)
		return -1;
	fputs(asm_src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -shared -Wl,--build-id -o %s %s", lso, sfile);
	return system(cmd) == 0 ? 0 : -1;
}

static int lookup_teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", ldir);
	return system(cmd);
}

/* file offset of symbol @name (st_value adjusted by its PT_LOAD) */
static uint64_t off_of(const char *name)
{
	const struct elf_ops *ops = elfops_direct();
	int fd = open(lso, O_RDONLY);
	Elf *elf = ops->elf_begin(fd, ELF_C_READ_MMAP, NULL);
	struct symidx_layout lay;
	Elf_Scn *scn = NULL;
	uint64_t r = 0;
	int found = 0;

	assert_non_null(elf);
	assert_int_equal(symindex_layout(ops, elf, 0, &lay), 0);
	while (!found && (scn = ops->elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!ops->gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !(d = ops->elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			ops->gelf_getsym(d, (int)i, &s);
			n = ops->elf_strptr(elf, sh.sh_link, s.st_name);
			if (n && !strcmp(n, name)) {
				for (unsigned k = 0; k < lay.nloads; k++)
					if (s.st_value >= lay.loads[k].vaddr &&
					    s.st_value < lay.loads[k].vaddr + lay.loads[k].size)
						r = s.st_value - (lay.loads[k].vaddr - lay.loads[k].offset);
				found = 1;
				break;
			}
		}
	}
	ops->elf_end(elf);
	close(fd);
	if (!found)
		fail_msg("symbol %s not found", name);
	return r;
}

static void expect_name(struct sl_lookup *l, uint64_t a, const char *name, uint64_t off)
{
	struct sl_lookup_sym s;
	char buf[256];
	int len;

	assert_int_equal(sl_lookup_addr(l, a, &s), 1);
	assert_int_equal(s.found, 1);
	assert_int_equal(s.exact, 1);
	len = sl_lookup_name(l, &s, buf, sizeof(buf));
	if (strcmp(buf, name) || s.offset != off || len != (int)strlen(name))
		fail_msg("%#llx: got %s+%#llx, want %s+%#llx", (unsigned long long)a, buf,
			 (unsigned long long)s.offset, name, (unsigned long long)off);
}

static void test_lookup_names(void **state)
{
	struct sl_lookup *l;
	struct sl_lookup_sym s;
	struct sl_lookup_info info;
	char err[256], buf[8];
	uint64_t f1 = off_of("f1"), z1 = off_of("z1"), f2 = off_of("f2"), foo = off_of("_Z3fooi");
	uint64_t outer = off_of("outer"), inner = off_of("inner_label"), wk = off_of("_ZN2ns6workerEv");

	(void)state;
	assert_int_equal(sl_lookup_open(lso, NULL, &l, err, sizeof(err)), 0);
	sl_lookup_get_info(l, &info);
	assert_int_equal(strlen(info.build_id), 40);
	assert_true(info.nsymtab > 0 && info.ndynsym > 0 && info.ncandidates > 0);
	expect_name(l, f1, "f1", 0);
	expect_name(l, f1 + 15, "f1", 15);
	/* zero-size z1 is stretched to the next start (symbols__fixup_end) */
	expect_name(l, z1 + 9, "z1", 9);
	/* f2 (global) beats walias (weak) and lalias (local): choose_best_symbol */
	expect_name(l, f2 + 4, "f2", 4);
	/* same binding and size: fewer underscores ("foo_long" vs "_Z3fooi" -> "foo") */
	expect_name(l, foo + 1, "foo_long", 1);
	/* perf's default demangling: no parameters */
	expect_name(l, wk + 2, "ns::worker", 2);
	/* a global label inside a function: perf's rb-tree shape decides (the
	 * replay; test_lookup_matches_replay and tests/integration/cli.sh
	 * compare with it and with perf) */
	assert_int_equal(sl_lookup_addr(l, inner + 4, &s), 1);
	assert_int_equal(s.exact, 1);
	sl_lookup_name(l, &s, buf, sizeof(buf));
	assert_true((!strcmp(buf, "outer") && s.offset == inner + 4 - outer) ||
		    (!strcmp(buf, "inner_l") && s.offset == 4));
	/* a name longer than the buffer: cut, full length returned */
	assert_int_equal(sl_lookup_addr(l, wk, &s), 1);
	assert_int_equal(sl_lookup_name(l, &s, buf, sizeof(buf)), (int)strlen("ns::worker"));
	assert_string_equal(buf, "ns::wor");
	/* below every symbol */
	assert_int_equal(sl_lookup_addr(l, 0, &s), 0);
	assert_int_equal(s.found, 0);
	assert_int_equal(sl_lookup_name(l, &s, buf, sizeof(buf)), -EINVAL);
	sl_lookup_close(l);
	/* --no-demangle */
	{
		struct sl_lookup_opts o = { SYMIDX_DEM_NONE, NULL, -1 };

		assert_int_equal(sl_lookup_open(lso, &o, &l, err, sizeof(err)), 0);
		expect_name(l, wk, "_ZN2ns6workerEv", 0);
		sl_lookup_close(l);
	}
}

static void test_lookup_plt(void **state)
{
	const struct elf_ops *ops = elfops_direct();
	struct symidx_layout lay;
	struct sl_lookup *l;
	struct sl_lookup_sym s;
	char err[256], buf[64];
	int fd = open(lso, O_RDONLY);
	Elf *elf = ops->elf_begin(fd, ELF_C_READ_MMAP, NULL);

	(void)state;
	assert_int_equal(symindex_layout(ops, elf, 0, &lay), 0);
	ops->elf_end(elf);
	close(fd);
	assert_true(lay.plt_ok);
	assert_int_equal(sl_lookup_open(lso, NULL, &l, err, sizeof(err)), 0);
	/* the first stub after the PLT header is puts@plt (dso__synthesize_plt_symbols) */
	assert_int_equal(sl_lookup_addr(l, lay.plt_first + 2, &s), 1);
	assert_int_equal(s.table, SL_LOOKUP_PLT);
	assert_int_equal(s.offset, 2);
	sl_lookup_name(l, &s, buf, sizeof(buf));
	assert_string_equal(buf, "puts@plt");
	sl_lookup_close(l);
}

/* Every answer of the API equals the one of the replay of perf's whole load. */
static void test_lookup_matches_replay(void **state)
{
	const struct elf_ops *ops = elfops_direct();
	struct symidx_layout lay;
	struct symidx_src src;
	struct symidx idx;
	struct sl_lookup *l;
	struct stat st;
	unsigned char bid[20];
	char err[256];
	uint64_t *a, *ans, *ast;
	struct sl_lookup_sym *res;
	size_t n = 0;
	int fd = open(lso, O_RDONLY), bl;
	Elf *elf = ops->elf_begin(fd, ELF_C_READ_MMAP, NULL);

	(void)state;
	fstat(fd, &st);
	assert_true(sl_elf_runtime_layout(ops, elf, (uint64_t)st.st_size, &lay));
	bl = elf_read_build_id(ops, elf, bid, sizeof(bid));
	assert_true(symindex_src_init(&src, ops, elf, &lay, bid, (size_t)bl, NULL, -1, SYMIDX_DEM_NOOPTS,
				      &sl_model_perf61.sym) > 0);
	assert_int_equal(symindex_open(&src, &idx), 0);
	a = calloc(4 * idx.ngroups + 64, sizeof(*a));
	for (uint32_t g = 0; g < idx.ngroups; g++) {
		a[n++] = idx.groups[g].start;
		a[n++] = idx.groups[g].start + 1;
		a[n++] = idx.groups[g].start + 7;
		a[n++] = idx.groups[g].max_end;
	}
	for (uint64_t k = 0; k < 64; k++)
		a[n++] = lay.plt_lo[0] + k;
	ans = calloc(n, sizeof(*ans));
	ast = calloc(n, sizeof(*ast));
	res = calloc(n, sizeof(*res));
	assert_int_equal(symindex_replay_ids(&idx, &src, &lay, a, n, ans, ast), 0);
	assert_int_equal(sl_lookup_open(lso, NULL, &l, err, sizeof(err)), 0);
	assert_true(sl_lookup_addrs(l, a, n, res) > 0);
	for (size_t i = 0; i < n; i++) {
		uint64_t id = !res[i].found ? SYMIDX_ID_NULL : res[i].table == SL_LOOKUP_PLT ?
			      (SYMIDX_ID_PLT | res[i].index) : SYMIDX_ID(res[i].table, res[i].index);

		if (id != ans[i] || (res[i].found && res[i].start != ast[i]))
			fail_msg("%#llx: lookup %#llx, replay %#llx", (unsigned long long)a[i],
				 (unsigned long long)id, (unsigned long long)ans[i]);
	}
	sl_lookup_close(l);
	symindex_close(&idx);
	ops->elf_end(elf);
	close(fd);
	free(a);
	free(ans);
	free(ast);
	free(res);
}

static void test_lookup_errors(void **state)
{
	struct sl_lookup *l = (void *)1;
	struct sl_lookup_opts o = { 0, "/etc/passwd", -1 };
	char err[256];

	(void)state;
	assert_int_equal(sl_lookup_open("/nonexistent", NULL, &l, err, sizeof(err)), -ENOENT);
	assert_null(l);
	assert_non_null(strstr(err, "/nonexistent"));
	assert_int_equal(sl_lookup_open("/etc/passwd", NULL, &l, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not an ELF file"));
	assert_int_equal(sl_lookup_open("/", NULL, &l, err, sizeof(err)), -EINVAL);
	assert_int_equal(sl_lookup_open(lso, &o, &l, err, sizeof(err)), -EINVAL);
	sl_lookup_close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_roundtrip),
		cmocka_unit_test(test_stats_rejects),
		cmocka_unit_test(test_stats_extra_keys_and_unicode),
		cmocka_unit_test(test_stats_load_errors),
		cmocka_unit_test_setup_teardown(test_lookup_names, lookup_setup, lookup_teardown),
		cmocka_unit_test_setup_teardown(test_lookup_plt, lookup_setup, lookup_teardown),
		cmocka_unit_test_setup_teardown(test_lookup_matches_replay, lookup_setup, lookup_teardown),
		cmocka_unit_test_setup_teardown(test_lookup_errors, lookup_setup, lookup_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
