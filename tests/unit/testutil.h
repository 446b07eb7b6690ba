/* SPDX-License-Identifier: MIT */
/*
 * testutil.h - helpers the unit tests that build small ELF files share:
 * test_sh runs a printf-formatted shell command (system(3): its status),
 * test_put writes @text to @dir/@name. Header-only: each test is one binary.
 */
#ifndef SYMLAZY_TESTUTIL_H
#define SYMLAZY_TESTUTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static inline int test_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static inline int test_sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* test_put - write @text into @dir/@name; 0, or -1 when it cannot. */
static inline int test_put(const char *dir, const char *name, const char *text)
{
	char p[512];
	FILE *f;
	int r;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if (!(f = fopen(p, "w")))
		return -1;
	r = fputs(text, f) < 0;
	return (fclose(f) != 0 || r) ? -1 : 0;
}

#endif
