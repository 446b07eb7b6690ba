/* SPDX-License-Identifier: MIT */
/*
 * compat.c - private definitions of the glibc fortify entry points that the
 * static libiberty (linked for cplus_demangle) references. With them bound
 * inside the .so, libsymlazy.so imports nothing that musl's loader lacks, so
 * a musl program that inherits LD_PRELOAD still starts. Hidden: never
 * exported, never interposing anybody's printf.
 */
#include <stdarg.h>
#include <stdio.h>

#define HIDDEN __attribute__((visibility("hidden")))

HIDDEN int __sprintf_chk(char *s, int flag, size_t slen, const char *fmt, ...);
HIDDEN int __snprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, ...);
HIDDEN int __fprintf_chk(FILE *f, int flag, const char *fmt, ...);

int __sprintf_chk(char *s, int flag, size_t slen, const char *fmt, ...)
{
	va_list ap;
	int r;

	(void)flag;
	va_start(ap, fmt);
	r = vsnprintf(s, slen, fmt, ap);
	va_end(ap);
	return r;
}

int __snprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, ...)
{
	va_list ap;
	int r;

	(void)flag;
	(void)slen;
	va_start(ap, fmt);
	r = vsnprintf(s, n, fmt, ap);
	va_end(ap);
	return r;
}

int __fprintf_chk(FILE *f, int flag, const char *fmt, ...)
{
	va_list ap;
	int r;

	(void)flag;
	va_start(ap, fmt);
	r = vfprintf(f, fmt, ap);
	va_end(ap);
	return r;
}
