/* SPDX-License-Identifier: MIT */
/* Unit tests of the perf 6.1 model (core/model/perf61.c): lazy-mode activation
 * from perf's argv, perf version check. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "core/models.h"
#include "core/tool.h"
#include "index/symindex.h"

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
	assert_int_equal(sl_perf_text_output(&a, 1), 1);
	PARSE(&a, "perf", "report");
	assert_int_equal(sl_perf_text_output(&a, 1), 0);      /* TUI */
	assert_int_equal(sl_perf_text_output(&a, 0), 1);      /* piped: stdio */
	PARSE(&a, "perf", "report", "--stdio");
	assert_int_equal(sl_perf_text_output(&a, 1), 1);
	PARSE(&a, "perf", "annotate", "--stdio2");
	assert_int_equal(sl_perf_text_output(&a, 0), 0);      /* names call targets */
	PARSE(&a, "perf", "annotate");
	assert_int_equal(sl_perf_text_output(&a, 0), 1);      /* not a tty: stdio (setup_browser) */
	assert_int_equal(sl_perf_text_output(&a, 1), 0);      /* TUI */
	assert_int_equal(a.why.code, SL_R_ANNOTATE_TUI);
	PARSE(&a, "perf", "annotate", "--tui");
	assert_int_equal(sl_perf_text_output(&a, 0), 0);
	PARSE(&a, "perf", "annotate", "--stdio", "hot");
	assert_int_equal(sl_perf_text_output(&a, 1), 1);
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

/* perf.c handle_options: global options before the subcommand */
static void test_global_options(void **state)
{
	struct sl_invocation a;

	(void)state;
	assert_int_equal(PARSE(&a, "perf", "--debug", "verbose=1", "script", "-i", "x"), 1);
	assert_string_equal(a.input, "x");
	assert_int_equal(a.demangle, SYMIDX_DEM_VERBOSE);       /* verbose=1 demangles like -v */
	assert_int_equal(PARSE(&a, "perf", "--debug", "verbose=0,stderr", "report"), 1);
	assert_int_equal(a.demangle, SYMIDX_DEM_NOOPTS);
	assert_int_equal(PARSE(&a, "perf", "--debug", "verbose", "script"), 1);
	assert_int_equal(a.demangle, SYMIDX_DEM_VERBOSE);
	assert_int_equal(PARSE(&a, "perf", "--buildid-dir", "/tmp/bid", "script"), 1);
	assert_string_equal(a.buildid_dir, "/tmp/bid");
	assert_int_equal(PARSE(&a, "perf", "--no-pager", "-p", "--debugfs-dir", "/d", "--debugfs-dir=/e",
			       "--exec-path=/x", "annotate", "--stdio"), 1);
	assert_int_equal(a.annotate, 1);
	assert_int_equal(PARSE(&a, "perf", "--script"), 0);     /* "Unknown option" */
	assert_int_equal(PARSE(&a, "perf", "--buildid-dir"), 0); /* missing argument: usage */
	assert_int_equal(PARSE(&a, "perf", "--debug", "script"), 0); /* "script" is --debug's value */
	assert_int_equal(PARSE(&a, "perf", "--version", "script"), 0);
	assert_int_equal(PARSE(&a, "perf", "--exec-path", "script"), 0);
	assert_int_equal(PARSE(&a, "perf", "--frobnicate", "script"), 0);
	assert_int_equal(a.why.code, SL_R_NOT_SUBCMD);
	/* --demangle after -v keeps -v's flags */
	PARSE(&a, "perf", "script", "-v", "--demangle");
	assert_int_equal(a.demangle, SYMIDX_DEM_VERBOSE);
}

/* core/tool.c: exact tool names, whole argv, LD_PRELOAD without the shim */
static void test_tool(void **state)
{
	char path[] = "/tmp/symlazy-test-cmdline-XXXXXX", out[256], **argv = NULL;
	int fd, argc = 0;
	size_t i;

	(void)state;
	assert_int_equal(sl_tool_from_exe("/usr/bin/perf"), SL_TOOL_PERF);
	assert_int_equal(sl_tool_from_exe("/usr/bin/perf_6.1"), SL_TOOL_PERF);
	assert_int_equal(sl_tool_from_exe("perf-6.12.3"), SL_TOOL_PERF);
	assert_int_equal(sl_tool_from_exe("/usr/bin/perfetto"), SL_TOOL_OTHER);
	assert_int_equal(sl_tool_from_exe("/usr/bin/perf.sh"), SL_TOOL_OTHER);
	assert_int_equal(sl_tool_from_exe("/usr/bin/perf-tool"), SL_TOOL_OTHER);
	assert_int_equal(sl_tool_from_exe("/usr/bin/perf_"), SL_TOOL_OTHER);
	assert_int_equal(sl_tool_from_exe(""), SL_TOOL_OTHER);
	/* a command line of 300 long arguments (past any fixed 8 KiB buffer) */
	fd = mkstemp(path);
	assert_true(fd >= 0);
	for (i = 0; i < 300; i++) {
		char arg[64];
		int n = snprintf(arg, sizeof(arg), "argument-number-%03zu-padding-padding-padding", i);

		assert_int_equal(write(fd, arg, (size_t)n + 1), n + 1);
	}
	assert_int_equal(write(fd, "-i", 3), 3);
	assert_int_equal(write(fd, "last.data", 10), 10);
	close(fd);
	assert_int_equal(sl_cmdline_read(path, &argc, &argv), 0);
	assert_int_equal(argc, 302);
	assert_string_equal(argv[300], "-i");
	assert_string_equal(argv[301], "last.data");
	assert_null(argv[302]);
	sl_cmdline_free(argv);
	unlink(path);
	assert_int_equal(sl_cmdline_read("/nonexistent/cmdline", &argc, &argv), -ENOENT);
	assert_int_equal(sl_preload_without_self("/a/libsymlazy.so:/b/libzstd.so", out, sizeof(out)), 1);
	assert_string_equal(out, "/b/libzstd.so");
	assert_int_equal(sl_preload_without_self("/a/libsymlazy.so", out, sizeof(out)), 1);
	assert_string_equal(out, "");
	assert_int_equal(sl_preload_without_self("x.so y.so", out, sizeof(out)), 0);
	assert_string_equal(out, "x.so:y.so");
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
		cmocka_unit_test(test_global_options),
		cmocka_unit_test(test_tool),
		cmocka_unit_test(test_version),
	};
	return cmocka_run_group_tests_name("activate", tests, NULL, NULL);
}
