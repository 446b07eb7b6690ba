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
	for (i = sub + 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-i") || !strcmp(a, "--input")) {
			if (i + 1 < argc)
				out->input = argv[++i];
		} else if (!strncmp(a, "--input=", 8)) {
			out->input = a + 8;
		} else if (!strncmp(a, "-i", 2) && a[2]) {
			out->input = a + 2;
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
