/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>
#include "activate.h"
#include "symindex.h"

int activate_parse(int argc, char *const argv[], struct activation *out)
{
	int i, sub = -1;

	memset(out, 0, sizeof(*out));
	out->demangle = SYMIDX_DEM_NOOPTS;
	for (i = 1; i < argc; i++) {
		if (argv[i][0] != '-') {
			sub = i;
			break;
		}
	}
	if (sub < 0 || (strcmp(argv[sub], "script") && strcmp(argv[sub], "report") &&
			strcmp(argv[sub], "annotate"))) {
		snprintf(out->why, sizeof(out->why), "not perf script/report/annotate");
		return 0;
	}
	out->annotate = !strcmp(argv[sub], "annotate");
	out->report = !strcmp(argv[sub], "report");
	for (i = sub + 1; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		size_t ln = eq ? (size_t)(eq - a) : strlen(a);

		if (!strcmp(a, "-i")) {
			if (i + 1 < argc)
				out->input = argv[++i];
		} else if (!strncmp(a, "--", 2) && ln >= 5 && !strncmp("--input", a, ln)) {
			/* --input, or an abbreviation perf accepts ("--inp") */
			if (eq)
				out->input = eq + 1;
			else if (i + 1 < argc)
				out->input = argv[++i];
		} else if (!strncmp(a, "-i", 2) && a[2]) {
			out->input = a + 2;
		} else if (a[0] == '-' && a[1] && a[1] != '-' && a[2] && strchr(a + 1, 'i') &&
			   strspn(a + 1, "v") != strlen(a + 1)) {
			snprintf(out->why, sizeof(out->why), "cannot parse grouped option %s", a);
			out->input = NULL;
			return 0;
		} else if (!strcmp(a, "--stdio")) {
			out->flags |= ACT_STDIO;
		} else if (!strcmp(a, "--tui") || !strcmp(a, "--gtk") || !strcmp(a, "--stdio2")) {
			out->flags |= ACT_NOT_STDIO;
		} else if (!strcmp(a, "--no-demangle")) {
			out->demangle = SYMIDX_DEM_NONE;
		} else if (!strcmp(a, "--demangle")) {
			out->demangle = SYMIDX_DEM_NOOPTS;
		} else if (!strcmp(a, "--verbose") ||
			   (a[0] == '-' && a[1] == 'v' && strspn(a + 1, "v") == strlen(a + 1))) {
			if (out->demangle != SYMIDX_DEM_NONE)
				out->demangle = SYMIDX_DEM_VERBOSE;
		} else if (!strcmp(a, "--")) {
			break;
		}
	}
	if (!out->input) {
		out->input = "perf.data";
		out->default_input = 1;
	}
	if (!strcmp(out->input, "-")) {
		snprintf(out->why, sizeof(out->why), "perf.data comes from a pipe");
		out->input = NULL;
		return 0;
	}
	return 1;
}

int perf_image_is_61(const char *img, size_t len)
{
	const char *p = img, *end = img + len;

	while (p < end && (p = memmem(p, (size_t)(end - p), "\0" "6.1.", 5)) != NULL) {
		const char *q = p + 5;

		while (q < end && *q >= '0' && *q <= '9')
			q++;
		if (q > p + 5 && q < end && *q == '\0')
			return 1;
		p++;
	}
	return 0;
}

int activate_text_output(struct activation *a, int out_is_tty)
{
	if (!a->annotate && !a->report)
		return 1;
	if (a->flags & ACT_NOT_STDIO) {
		snprintf(a->why, sizeof(a->why), "interactive or --stdio2 output annotates call targets");
		return 0;
	}
	if (a->annotate && !(a->flags & ACT_STDIO)) {
		snprintf(a->why, sizeof(a->why), "perf annotate without --stdio");
		return 0;
	}
	if (!(a->flags & ACT_STDIO) && out_is_tty) {
		snprintf(a->why, sizeof(a->why), "interactive perf report (TUI) annotates call targets");
		return 0;
	}
	return 1;
}
