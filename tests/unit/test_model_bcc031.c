/* SPDX-License-Identifier: MIT */
/* Unit tests of the Debian 13 models (issue 21): libbcc 0.31
 * (core/model/bcc031.c) chosen by the library's file name, bpftrace 0.23
 * (core/model/bpftrace023.c) by its version literal, and unknown versions
 * getting no model (passed through untouched). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "core/models.h"

#define IMG(s) (s), sizeof(s) - 1

static void test_bcc_version_of_file(void **state)
{
	char v[32];

	(void)state;
	assert_true(sl_bcc_version_of_file("/usr/lib/x86_64-linux-gnu/libbcc_bpf.so.0.31.0", v, sizeof(v)));
	assert_string_equal(v, "0.31.0");
	assert_true(sl_bcc_version_of_file("/usr/lib/x86_64-linux-gnu/libbcc.so.0.26.0", v, sizeof(v)));
	assert_string_equal(v, "0.26.0");
	assert_true(sl_bcc_version_of_file("libbcc.so.0.31.12", v, sizeof(v)));
	assert_string_equal(v, "0.31.12");
	/* the soname alone (a realpath that did not resolve), other names */
	assert_false(sl_bcc_version_of_file("/usr/lib/x86_64-linux-gnu/libbcc_bpf.so.0", v, sizeof(v)));
	assert_string_equal(v, "");
	assert_false(sl_bcc_version_of_file("/usr/lib/libbcc.so", v, sizeof(v)));
	assert_false(sl_bcc_version_of_file("/usr/lib/libbcc_foo.so.0.31.0", v, sizeof(v)));
	assert_false(sl_bcc_version_of_file("/usr/lib/libbcc.so.0.31.0.bak", v, sizeof(v)));
	assert_false(sl_bcc_version_of_file("/usr/lib/libbcc.so.0..31", v, sizeof(v)));
	assert_false(sl_bcc_version_of_file("/usr/lib/libbcc.so.0.31.", v, sizeof(v)));
	assert_false(sl_bcc_version_of_file("/usr/lib/libbcc.so.0.31.0.1", v, sizeof(v)));
	assert_false(sl_bcc_version_of_file(NULL, v, sizeof(v)));
	assert_false(sl_bcc_version_of_file("libbcc.so.0.31.0", v, 6));   /* no room */
}

static void test_bcc_models_for_version(void **state)
{
	const struct sl_bcc_models *m;

	(void)state;
	m = sl_bcc_models_for_version("0.31.0");
	assert_non_null(m);
	assert_ptr_equal(m->lazy, &sl_model_bcc031_lazy);
	assert_ptr_equal(m->eager, &sl_model_bcc031);
	assert_ptr_equal(m->build, &sl_model_bcc031_build);
	assert_string_equal(m->eager->sym.name, "libbcc-0.31");
	m = sl_bcc_models_for_version("0.26.0");
	assert_non_null(m);
	assert_ptr_equal(m->lazy, &sl_model_bcc026_lazy);
	assert_ptr_equal(m->eager, &sl_model_bcc026);
	assert_ptr_equal(m->build, &sl_model_bcc026_build);
	/* unknown versions: no model, libbcc passes through */
	assert_null(sl_bcc_models_for_version("0.30.0"));
	assert_null(sl_bcc_models_for_version("0.32.0"));
	assert_null(sl_bcc_models_for_version("0.311.0"));
	assert_null(sl_bcc_models_for_version("0.3"));
	assert_null(sl_bcc_models_for_version("0.31"));
	assert_null(sl_bcc_models_for_version(""));
	assert_null(sl_bcc_models_for_version(NULL));
}

/* 0.31 keeps and charges what 0.26 does (bcc_syms.cc, syms.h unchanged) */
static void test_bcc031_rules(void **state)
{
	GElf_Sym f = { .st_name = 1, .st_value = 0x10, .st_info = GELF_ST_INFO(STB_GLOBAL, STT_FUNC) };
	GElf_Sym o = f, n = f;

	(void)state;
	o.st_info = GELF_ST_INFO(STB_GLOBAL, STT_OBJECT);
	n.st_info = GELF_ST_INFO(STB_GLOBAL, STT_NOTYPE);
	assert_true(sl_model_keeps_types(&sl_model_bcc031.sym, &f, 1u << STT_FUNC));
	assert_false(sl_model_keeps_types(&sl_model_bcc031.sym, &o, 1u << STT_FUNC));
	assert_true(sl_model_keeps_types(&sl_model_bcc031.sym, &o, 0xffff));
	assert_true(sl_model_keeps(&sl_model_bcc031_lazy.sym, &f));    /* default: FUNC | GNU_IFUNC */
	assert_false(sl_model_keeps(&sl_model_bcc031_lazy.sym, &n));
	f.st_value = 0;
	assert_false(sl_model_keeps_types(&sl_model_bcc031.sym, &f, 0xffff));
	assert_int_equal(sl_model_cost(&sl_model_bcc031_lazy.sym, NULL, 124, 0), 112);
	assert_int_equal(sl_model_cost(&sl_model_bcc031.sym, NULL, 124, 0), 112 + 64 + 16 + 124 + 1 + 31);
	assert_int_equal(sl_model_bcc031_build.budget_rules, SL_BR_NEXT_STRETCH | SL_BR_OVERLAP);
	assert_int_equal(sl_model_bcc031.budget_rules, SL_BR_OVERLAP);
}

static void test_bpftrace_versions(void **state)
{
	(void)state;
	assert_ptr_equal(sl_bpftrace_model_for_image(IMG("x\0v0.23.2\0y")), &sl_model_bpftrace023);
	assert_ptr_equal(sl_bpftrace_model_for_image(IMG("x\0v0.17.0\0y")), &sl_model_bpftrace017);
	assert_null(sl_bpftrace_model_for_image(IMG("x\0v0.21.2\0y")));       /* unknown */
	assert_null(sl_bpftrace_model_for_image(IMG("xv0.23.2\0y")));         /* not a literal */
	assert_null(sl_bpftrace_model_for_image(IMG("\0v0.17.0\0v0.23.2\0"))); /* two versions */
	assert_int_equal(sl_model_cost(&sl_model_bpftrace023.sym, NULL, 124, 0), 320 + 3 * 125);
	assert_true(sl_model_bpftrace023.launches_workloads);
	assert_string_equal(sl_model_bpftrace023.sym.name, "bpftrace-0.23");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bcc_version_of_file),
		cmocka_unit_test(test_bcc_models_for_version),
		cmocka_unit_test(test_bcc031_rules),
		cmocka_unit_test(test_bpftrace_versions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
