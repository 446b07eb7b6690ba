/* SPDX-License-Identifier: MIT */
/* Unit tests of perf diff and perf data convert argv parsing (issue 19,
 * core/model/perfsubcmds.c through each perf model's parse_argv): which
 * words are files (parse-options' rules: option values, clusters,
 * abbreviations, --no-, --), and which runs stay eager and why. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "core/models.h"
#include "index/symindex.h"

#define ARGV(...) ((char *const[]){ __VA_ARGS__ })
#define N(...) ((int)(sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *)))
#define P61(a, ...) perf61_parse_argv(N(__VA_ARGS__), ARGV(__VA_ARGS__), a)
#define P612(a, ...) perf612_parse_argv(N(__VA_ARGS__), ARGV(__VA_ARGS__), a)
#define P72(a, ...) perf72_parse_argv(N(__VA_ARGS__), ARGV(__VA_ARGS__), a)

static void files(const struct sl_invocation *a, int n, const char *f0, const char *f1, const char *f2)
{
	const char *want[3] = { f0, f1, f2 };

	assert_int_equal(a->nr_inputs, n);
	for (int i = 0; i < n && i < 3; i++)
		assert_string_equal(a->inputs[i], want[i]);
	assert_string_equal(a->input, f0);
	assert_int_equal(a->diff, 1);
	assert_int_equal(a->default_input, 0);
}

static void test_diff_files(void **state)
{
	struct sl_invocation a;

	(void)state;
	/* data_init: none -> perf.data.old, perf.data; one -> perf.data.old, it */
	assert_int_equal(P61(&a, "perf", "diff"), 1);
	files(&a, 2, "perf.data.old", "perf.data", NULL);
	assert_int_equal(P61(&a, "perf", "diff", "new.data"), 1);
	files(&a, 2, "perf.data.old", "new.data", NULL);
	assert_int_equal(P61(&a, "perf", "diff", "a", "b", "c"), 1);
	files(&a, 3, "a", "b", "c");
	/* option values are not files: separate, attached, after '=' */
	assert_int_equal(P61(&a, "perf", "diff", "-s", "dso", "a", "--sort", "sym", "b"), 1);
	files(&a, 2, "a", "b", NULL);
	assert_int_equal(P61(&a, "perf", "diff", "-C", "x", "-d", "libc.so.6", "-S", "main", "-t", ",",
			     "-o", "1", "--percentage", "relative", "--time", "10%", "--cpu", "0",
			     "--pid", "1", "--tid", "2", "--symfs", "/", "--kallsyms", "/k", "a", "b"), 1);
	files(&a, 2, "a", "b", NULL);
	assert_string_equal(a.symfs, "/");
	assert_string_equal(a.kallsyms, "/k");
	assert_int_equal(P61(&a, "perf", "diff", "-sdso", "--comms=x", "a", "b"), 1);
	files(&a, 2, "a", "b", NULL);
	/* clusters: booleans then one option taking the rest or the next word */
	assert_int_equal(P61(&a, "perf", "diff", "-bpFqs", "sym", "a", "b"), 1);
	files(&a, 2, "a", "b", NULL);
	assert_int_equal(P61(&a, "perf", "diff", "-bCx", "a"), 1);
	files(&a, 2, "perf.data.old", "a", NULL);
	/* abbreviations, negations, options after files, "--" */
	assert_int_equal(P61(&a, "perf", "diff", "--perc", "absolute", "a", "--baseline", "b"), 1);
	files(&a, 2, "a", "b", NULL);
	assert_int_equal(P61(&a, "perf", "diff", "--no-sort", "a", "b"), 1);
	files(&a, 2, "a", "b", NULL);
	assert_int_equal(P61(&a, "perf", "diff", "--", "-s", "b"), 1);
	files(&a, 2, "-s", "b", NULL);
	/* global options before the subcommand */
	assert_int_equal(P61(&a, "perf", "--no-pager", "diff", "a", "b"), 1);
	files(&a, 2, "a", "b", NULL);
}

static void test_diff_eager(void **state)
{
	struct sl_invocation a;

	(void)state;
	assert_int_equal(P61(&a, "perf", "diff", "-c", "cycles", "a", "b"), 0);
	assert_int_equal(a.why.code, SL_R_DIFF_CYCLES);
	assert_int_equal(P61(&a, "perf", "diff", "-ccycles", "a", "b"), 0);
	assert_int_equal(a.why.code, SL_R_DIFF_CYCLES);
	assert_int_equal(P61(&a, "perf", "diff", "--comp=cycles:x", "a", "b"), 0);
	assert_int_equal(a.why.code, SL_R_DIFF_CYCLES);
	assert_int_equal(P61(&a, "perf", "diff", "--cycles-hist", "a", "b"), 0);
	assert_int_equal(a.why.code, SL_R_DIFF_CYCLES);
	assert_int_equal(P61(&a, "perf", "diff", "--stream", "a", "b"), 0);
	assert_int_equal(a.why.code, SL_R_DIFF_STREAM);
	/* the last -c wins; other methods are lazy */
	assert_int_equal(P61(&a, "perf", "diff", "-c", "cycles", "-c", "ratio", "a", "b"), 1);
	assert_int_equal(P61(&a, "perf", "diff", "-c", "wdiff:1,2", "--no-stream", "a", "b"), 1);
	files(&a, 2, "a", "b", NULL);
	/* 6.x cuts "wdiff:1,2" in argv at the ',' (what /proc/self/cmdline then
	 * shows); 7.x leaves it whole */
	assert_int_equal(P61(&a, "perf", "diff", "-c", "wdiff:1", "2", "a", "b"), 1);
	files(&a, 2, "a", "b", NULL);
	assert_int_equal(P612(&a, "perf", "diff", "--compute=wdiff:1", "2", "a", "b"), 1);
	files(&a, 2, "a", "b", NULL);
	assert_int_equal(P61(&a, "perf", "diff", "-cwdiff:1", "2", "b"), 1);
	files(&a, 2, "perf.data.old", "b", NULL);
	assert_int_equal(P72(&a, "perf", "diff", "-c", "wdiff:1,2", "a", "b"), 1);
	files(&a, 2, "a", "b", NULL);
	assert_int_equal(P72(&a, "perf", "diff", "-c", "wdiff:1", "2", "b"), 1);   /* perf: usage */
	files(&a, 2, "2", "b", NULL);
	/* "cycles" as a file name is a file */
	assert_int_equal(P61(&a, "perf", "diff", "-s", "sym", "cycles"), 1);
	files(&a, 2, "perf.data.old", "cycles", NULL);
	/* perf stops with usage: unknown, ambiguous, missing value, help */
	assert_int_equal(P61(&a, "perf", "diff", "-i", "a"), 0);
	assert_int_equal(a.why.code, SL_R_BAD_OPTION);
	assert_int_equal(P61(&a, "perf", "diff", "--c", "a"), 0);   /* compute, comms, cpu, cycles-hist */
	assert_int_equal(a.why.code, SL_R_BAD_OPTION);
	assert_int_equal(P61(&a, "perf", "diff", "a", "-s"), 0);
	assert_int_equal(a.why.code, SL_R_BAD_OPTION);
	assert_int_equal(P61(&a, "perf", "diff", "-bh"), 0);
	assert_int_equal(P61(&a, "perf", "diff", "--quiet=1", "a"), 0);
	assert_int_equal(P61(&a, "perf", "diff", "--per", "relative", "a"), 0);  /* period, percentage */
	assert_int_equal(a.why.code, SL_R_BAD_OPTION);
	assert_int_equal(P61(&a, "perf", "diff", "-", "b"), 0);
	assert_int_equal(a.why.code, SL_R_PIPE_INPUT);
	/* -v: names perf stores change */
	assert_int_equal(P61(&a, "perf", "diff", "-v", "a", "b"), 1);
	assert_int_equal(a.demangle, SYMIDX_DEM_VERBOSE);
	assert_int_equal(P61(&a, "perf", "diff", "-v", "--no-verbose", "a", "b"), 1);
	assert_int_equal(a.demangle, SYMIDX_DEM_NOOPTS);
	/* 6.8+: data-type sort keys resolve data addresses; 7.x: symfs layouts */
	assert_int_equal(P61(&a, "perf", "diff", "-s", "type", "a", "b"), 1);
	assert_int_equal(P612(&a, "perf", "diff", "-s", "dso,type", "a", "b"), 0);
	assert_int_equal(a.why.code, SL_R_DATA_TYPE);
	assert_int_equal(P72(&a, "perf", "diff", "--symfs=/r,flat", "a", "b"), 0);
	assert_int_equal(a.why.code, SL_R_SYMFS_LAYOUT);
	assert_int_equal(P612(&a, "perf", "diff", "--symfs=/r,flat", "a", "b"), 1);
	assert_int_equal(P72(&a, "perf", "diff", "a", "b"), 1);
	files(&a, 2, "a", "b", NULL);
}

static void test_convert(void **state)
{
	struct sl_invocation a;

	(void)state;
	assert_int_equal(P61(&a, "perf", "data", "convert", "--to-json", "o.json", "-i", "x.data"), 1);
	assert_int_equal(a.convert, 1);
	assert_int_equal(a.nr_inputs, 1);
	assert_string_equal(a.input, "x.data");
	assert_int_equal(a.default_input, 0);
	/* no -i: perf.data (or stdin when it is a FIFO) */
	assert_int_equal(P61(&a, "perf", "data", "convert", "--to-json=o.json"), 1);
	assert_string_equal(a.input, "perf.data");
	assert_int_equal(a.default_input, 1);
	/* data options before "convert" count too; abbreviations; -i attached */
	assert_int_equal(P61(&a, "perf", "data", "-iy.data", "convert", "--to-j", "o"), 1);
	assert_string_equal(a.input, "y.data");
	assert_int_equal(P61(&a, "perf", "data", "convert", "-fvi", "z", "--to-json", "o"), 1);
	assert_string_equal(a.input, "z");
	assert_int_equal(a.demangle, SYMIDX_DEM_VERBOSE);
	/* the value of --to-json is not the input even if it looks like one */
	assert_int_equal(P61(&a, "perf", "data", "convert", "--to-json", "-i", "q"), 0);
	assert_int_equal(a.why.code, SL_R_BAD_OPTION);
	/* eager: CTF, no target, leftover words, no "convert", pipe */
	assert_int_equal(P61(&a, "perf", "data", "convert", "--to-ctf", "dir", "-i", "x"), 0);
	assert_int_equal(a.why.code, SL_R_CONVERT_CTF);
	assert_int_equal(P61(&a, "perf", "data", "convert", "-i", "x"), 0);
	assert_int_equal(a.why.code, SL_R_BAD_OPTION);
	assert_int_equal(P61(&a, "perf", "data", "convert", "--to-json", "o", "x.data"), 0);
	assert_int_equal(a.why.code, SL_R_BAD_OPTION);
	assert_int_equal(P61(&a, "perf", "data", "--to-json", "o"), 0);
	assert_int_equal(a.why.code, SL_R_NOT_SUBCMD);
	assert_int_equal(P61(&a, "perf", "data", "convert", "--to-json", "o", "-i", "-"), 0);
	assert_int_equal(a.why.code, SL_R_PIPE_INPUT);
	/* --time STR is 7.x's: earlier perfs stop with usage */
	assert_int_equal(P72(&a, "perf", "data", "convert", "--time", "1,2", "--to-json", "o", "-i", "x"), 1);
	assert_string_equal(a.input, "x");
	assert_int_equal(P612(&a, "perf", "data", "convert", "--time", "1,2", "--to-json", "o", "-i", "x"), 0);
	assert_int_equal(a.why.code, SL_R_BAD_OPTION);
}

static void test_lazy_subcmd(void **state)
{
	(void)state;
	assert_int_equal(sl_perf_lazy_subcmd(N("perf", "diff"), ARGV("perf", "diff"), 1), 1);
	assert_int_equal(sl_perf_lazy_subcmd(N("perf", "data", "-i", "x", "convert"),
					     ARGV("perf", "data", "-i", "x", "convert"), 1), 1);
	assert_int_equal(sl_perf_lazy_subcmd(N("perf", "data"), ARGV("perf", "data"), 1), 0);
	assert_int_equal(sl_perf_lazy_subcmd(N("perf", "top"), ARGV("perf", "top"), 1), 0);
	assert_int_equal(sl_perf_lazy_subcmd(N("perf", "script"), ARGV("perf", "script"), 1), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff_files),
		cmocka_unit_test(test_diff_eager),
		cmocka_unit_test(test_convert),
		cmocka_unit_test(test_lazy_subcmd),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
