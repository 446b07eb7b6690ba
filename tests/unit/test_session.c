/* SPDX-License-Identifier: MIT */
/* Unit tests of core/session.c decisions that need no tool process:
 * matching a DSO without build-id to its perf.data mapping by path + inode. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "perfdata/unwind.h"
#include "core/session.h"

static void test_match_file(void **state)
{
	char dir[] = "/tmp/symlazy-session-XXXXXX", path[PATH_MAX], link[PATH_MAX + 8], real[PATH_MAX];
	struct pd_dso dsos[2];
	struct pd_result res = { .dsos = dsos, .nr_dsos = 1 };
	struct sl_dso d;
	struct sl_why why;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/app", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("not really ELF", f);
	fclose(f);
	assert_non_null(realpath(path, real));
	memset(&d, 0, sizeof(d));
	snprintf(d.path, sizeof(d.path), "%s", real);
	assert_int_equal(stat(path, &d.st), 0);
	d.have_st = 1;

	memset(dsos, 0, sizeof(dsos));
	dsos[0].path = path;
	dsos[0].maj = major(d.st.st_dev);
	dsos[0].min = minor(d.st.st_dev);
	dsos[0].ino = d.st.st_ino;
	dsos[0].have_ino = 1;
	assert_ptr_equal(sl_dso_match_file(&res, NULL, &d, &why), &dsos[0]);

	/* the path through a symlink, as recorded, resolves to the same file */
	snprintf(link, sizeof(link), "%s/lnk", dir);
	assert_int_equal(symlink(path, link), 0);
	dsos[0].path = link;
	assert_ptr_equal(sl_dso_match_file(&res, NULL, &d, &why), &dsos[0]);

	/* --symfs: perf opens DIR + recorded path */
	dsos[0].path = "/app";
	assert_null(sl_dso_match_file(&res, NULL, &d, &why));
	assert_int_equal(why.code, SL_R_NO_BUILD_ID);
	assert_ptr_equal(sl_dso_match_file(&res, dir, &d, &why), &dsos[0]);

	/* same path, another inode (rebuilt binary): never matched */
	dsos[0].path = path;
	dsos[0].ino = d.st.st_ino + 1;
	assert_null(sl_dso_match_file(&res, NULL, &d, &why));
	assert_int_equal(why.code, SL_R_NO_IDENTITY);
	assert_non_null(strstr(why.detail, "device/inode differ"));
	/* ... unless a second mapping of that path has the right inode */
	dsos[1] = dsos[0];
	dsos[1].ino = d.st.st_ino;
	res.nr_dsos = 2;
	assert_ptr_equal(sl_dso_match_file(&res, NULL, &d, &why), &dsos[1]);
	res.nr_dsos = 1;
	/* MMAP (no inode): not matched */
	dsos[0].have_ino = 0;
	dsos[0].ino = d.st.st_ino;
	assert_null(sl_dso_match_file(&res, NULL, &d, &why));
	assert_non_null(strstr(why.detail, "no inode"));
	/* a DSO with a build-id in perf.data is never matched by path */
	dsos[0].have_ino = 1;
	dsos[0].build_id_size = 20;
	assert_null(sl_dso_match_file(&res, NULL, &d, &why));
	/* no fstat of the scanned file */
	dsos[0].build_id_size = 0;
	d.have_st = 0;
	assert_null(sl_dso_match_file(&res, NULL, &d, &why));

	unlink(link);
	unlink(path);
	rmdir(dir);
}

/* the reason table: codes have names, formats take the detail */
static void test_reasons(void **state)
{
	struct sl_why w;
	char buf[64];
	int n;

	(void)state;
	sl_why_set(&w, SL_R_NOT_REGULAR, "%s", "/x/perf.data");
	sl_why_format(&w, buf, sizeof(buf));
	assert_string_equal(buf, "/x/perf.data is not a regular file");
	assert_string_equal(sl_reason_name(SL_R_NO_BUILD_ID), "no_build_id");
	sl_why_set(&w, SL_R_NO_BUILD_ID, "and no file identity");
	sl_why_format(&w, buf, sizeof(buf));
	assert_string_equal(buf, "no build-id: and no file identity");
	/* never cut silently: the return value tells the length needed */
	sl_why_set(&w, SL_R_PERFDATA_BAD, "%0300d", 7);
	n = sl_why_format(&w, buf, sizeof(buf));
	assert_true(n > (int)sizeof(buf));
	assert_string_equal(sl_reason_name((enum sl_reason)9999), "?");
}

/* a DSO that DWARF samples with 32-bit user registers reach stays eager
 * with its own reason; the run stays lazy (no process-wide fallback) */
static void test_dwarf_unsure_plan(void **state)
{
	static struct sl_session s;
	struct pd_dso dso;
	struct sl_dso d;
	char buf[128];

	(void)state;
	memset(&s, 0, sizeof(s));
	memset(&dso, 0, sizeof(dso));
	memset(dso.build_id, 0xab, 20);
	dso.build_id_size = 20;
	dso.unsure = PD_UNSURE_REGS_ABI;
	s.addrs.dsos = &dso;
	s.addrs.nr_dsos = 1;
	s.addrs.flags = PD_F_DWARF_UNWIND;
	s.lazy_on = 1;
	memset(&d, 0, sizeof(d));
	d.bid_state = 1;
	d.bid_len = 20;
	memset(d.bid, 0xab, 20);
	sl_dso_plan(&s, &d, NULL, NULL);
	assert_int_equal(d.plan_mode, SL_EAGER);
	assert_int_equal(d.why.code, SL_R_DWARF_REGS_ABI);
	assert_string_equal(sl_reason_name(d.why.code), "dwarf_regs_abi");
	sl_why_format(&d.why, buf, sizeof(buf));
	assert_non_null(strstr(buf, "non-64-bit user registers"));
	assert_int_equal(pd_unsure_reason(PD_UNSURE_NONE + 99), SL_R_UNMODELABLE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match_file),
		cmocka_unit_test(test_reasons),
		cmocka_unit_test(test_dwarf_unsure_plan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
