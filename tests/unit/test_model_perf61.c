/* SPDX-License-Identifier: MIT */
/* Unit tests of the perf 6.1 model (core/model_perf61.c): lazy-mode activation
 * from perf's argv, perf version check. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "model.h"
#include "symindex.h"

#define ARGV(...) ((char *const[]){ __VA_ARGS__ })
#define N(...) ((int)(sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(a, ...) perf61_parse_argv(N(__VA_ARGS__), ARGV(__VA_ARGS__), a)

static void test_inputs(void **state)
{
	struct sl_invocation a;

	(void)state;
	assert_int_equal(PARSE(&a, "perf", "script", "-i", "x.data"), 1);
	assert_string_equal(a.input, "x.data");
	assert_int_equal(a.default_input, 0);
	assert_int_equal(PARSE(&a, "perf", "report", "--stdio", "-iy.data"), 1);
	assert_string_equal(a.input, "y.data");
	assert_int_equal(PARSE(&a, "perf", "--no-pager", "annotate", "--input=z"), 1);
	assert_string_equal(a.input, "z");
	assert_int_equal(PARSE(&a, "perf", "report", "--input", "w"), 1);
	assert_string_equal(a.input, "w");
	assert_int_equal(PARSE(&a, "perf", "script"), 1);
	assert_string_equal(a.input, "perf.data");
	assert_int_equal(a.default_input, 1);
}

static void test_abbrev_and_groups(void **state)
{
	struct sl_invocation a;

	(void)state;
	/* perf accepts abbreviations of long options and grouped short options */
	assert_int_equal(PARSE(&a, "perf", "script", "--inp=B.data"), 1);
	assert_string_equal(a.input, "B.data");
	assert_int_equal(PARSE(&a, "perf", "script", "--inpu", "C.data"), 1);
	assert_string_equal(a.input, "C.data");
	assert_int_equal(PARSE(&a, "perf", "script", "-fi", "B.data"), 0);   /* can't tell: stay eager */
	assert_non_null(strstr(a.why.detail, "-fi"));
	assert_int_equal(PARSE(&a, "perf", "report", "-g", "-vv", "-i", "D"), 1);
	assert_string_equal(a.input, "D");
}

static void test_text_output(void **state)
{
	struct sl_invocation a;

	(void)state;
	PARSE(&a, "perf", "script");
	assert_int_equal(perf61_text_output(&a, 1), 1);
	PARSE(&a, "perf", "report");
	assert_int_equal(perf61_text_output(&a, 1), 0);      /* TUI */
	assert_int_equal(perf61_text_output(&a, 0), 1);      /* piped: stdio */
	PARSE(&a, "perf", "report", "--stdio");
	assert_int_equal(perf61_text_output(&a, 1), 1);
	PARSE(&a, "perf", "annotate", "--stdio2");
	assert_int_equal(perf61_text_output(&a, 0), 0);      /* names call targets */
	PARSE(&a, "perf", "annotate");
	assert_int_equal(perf61_text_output(&a, 0), 0);
	PARSE(&a, "perf", "annotate", "--stdio", "hot");
	assert_int_equal(perf61_text_output(&a, 1), 1);
}

static void test_not_lazy(void **state)
{
	struct sl_invocation a;

	(void)state;
	assert_int_equal(PARSE(&a, "perf", "script", "-i", "-"), 0);
	assert_int_equal(a.why.code, SL_R_PIPE_INPUT);
	assert_int_equal(PARSE(&a, "perf", "top"), 0);
	assert_int_equal(PARSE(&a, "perf", "record", "-g", "--", "./a"), 0);
	assert_int_equal(PARSE(&a, "perf"), 0);
}

static void test_demangle_flags(void **state)
{
	struct sl_invocation a;

	(void)state;
	PARSE(&a, "perf", "script");
	assert_int_equal(a.demangle, SYMIDX_DEM_NOOPTS);
	PARSE(&a, "perf", "report", "-v");
	assert_int_equal(a.demangle, SYMIDX_DEM_VERBOSE);
	PARSE(&a, "perf", "report", "-vv", "--stdio");
	assert_int_equal(a.demangle, SYMIDX_DEM_VERBOSE);
	PARSE(&a, "perf", "script", "--no-demangle", "-v");
	assert_int_equal(a.demangle, SYMIDX_DEM_NONE);
	PARSE(&a, "perf", "script", "-F", "ip,sym");
	assert_int_equal(a.demangle, SYMIDX_DEM_NOOPTS);
}

static void test_version(void **state)
{
	static const char img61[] = "xx\0perf\0" "6.1.187\0yy";
	static const char img62[] = "xx\0" "6.10.3\0" "16.1.2\0" "6.1.\0" "6.1.4x";

	(void)state;
	assert_int_equal(perf61_image_matches(img61, sizeof(img61)), 1);
	assert_int_equal(perf61_image_matches(img62, sizeof(img62)), 0);
	assert_int_equal(perf61_image_matches("", 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inputs),
		cmocka_unit_test(test_not_lazy),
		cmocka_unit_test(test_abbrev_and_groups),
		cmocka_unit_test(test_text_output),
		cmocka_unit_test(test_demangle_flags),
		cmocka_unit_test(test_version),
	};
	return cmocka_run_group_tests_name("activate", tests, NULL, NULL);
}
