/* SPDX-License-Identifier: MIT */
/*
 * wrappers_libc.c - the interposed libc open functions: perf 6.1
 * reads kallsyms with open(2) (tools/lib/symbol/kallsyms.c, open64 in
 * Debian's build) and perf maps with fopen(3) (util/symbol.c, fopen64).
 * Each wrapper asks state.c (shim_text_open: a string compare for every
 * other path) and otherwise forwards to the real function with the caller's
 * arguments untouched: no allocation, errno as the real call leaves it.
 * Only read-only opens are ever served.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "shim.h"

int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

static int needs_mode(int flags)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

/* a read-only open of an existing file */
static int servable(int flags)
{
	return (flags & O_ACCMODE) == O_RDONLY &&
	       !(flags & (O_CREAT | O_TRUNC | O_DIRECTORY | O_PATH | O_TMPFILE));
}

static int served(int dirfd, const char *path, int flags)
{
	if (!path || !servable(flags) || (dirfd != AT_FDCWD && path[0] != '/'))
		return -1;
	return shim_text_open(path, !!(flags & O_CLOEXEC));
}

static int sys_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

/*
 * The body of the eight open wrappers: served, else forwarded with the
 * caller's arguments to the first function libc has of @o2 / @at2 (a
 * _FORTIFY_SOURCE entry, no mode argument), @o / @at (open-like: no
 * dirfd; openat-like), else the openat system call. An open-family
 * wrapper passes AT_FDCWD and only open-like functions, an openat-family
 * one only openat-like ones.
 */
static int serve_or_forward(int dirfd, const char *path, int flags, mode_t mode, int (*o)(const char *, int, ...),
			    int (*o2)(const char *, int), int (*at)(int, const char *, int, ...),
			    int (*at2)(int, const char *, int))
{
	int fd = served(dirfd, path, flags);

	if (fd >= 0)
		return fd;
	if (o2)
		return o2(path, flags);
	if (at2)
		return at2(dirfd, path, flags);
	if (o)
		return o(path, flags, mode);
	if (at)
		return at(dirfd, path, flags, mode);
	return sys_openat(dirfd, path, flags, mode);
}

#define MODE_ARG(flags, mode)                         \
	do {                                          \
		if (needs_mode(flags)) {              \
			va_list ap;                   \
			va_start(ap, flags);          \
			mode = (mode_t)va_arg(ap, int); \
			va_end(ap);                   \
		}                                     \
	} while (0)

SYMLAZY_EXPORT int open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	MODE_ARG(flags, mode);
	shim_resolve_libc();
	return serve_or_forward(AT_FDCWD, path, flags, mode, real_c.open, NULL, NULL, NULL);
}

SYMLAZY_EXPORT int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;

	MODE_ARG(flags, mode);
	shim_resolve_libc();
	return serve_or_forward(AT_FDCWD, path, flags, mode, real_c64.open64 ? real_c64.open64 : real_c.open, NULL,
				NULL, NULL);
}

SYMLAZY_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	MODE_ARG(flags, mode);
	shim_resolve_libc();
	return serve_or_forward(dirfd, path, flags, mode, NULL, NULL, real_c.openat, NULL);
}

SYMLAZY_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	MODE_ARG(flags, mode);
	shim_resolve_libc();
	return serve_or_forward(dirfd, path, flags, mode, NULL, NULL,
				real_c64.openat64 ? real_c64.openat64 : real_c.openat, NULL);
}

/* _FORTIFY_SOURCE entry points (open without a mode argument) */
SYMLAZY_EXPORT int __open_2(const char *path, int flags)
{
	shim_resolve_libc();
	return serve_or_forward(AT_FDCWD, path, flags, 0, real_c.open, real_c64.open_2, NULL, NULL);
}

SYMLAZY_EXPORT int __open64_2(const char *path, int flags)
{
	shim_resolve_libc();
	return serve_or_forward(AT_FDCWD, path, flags, 0, real_c.open, real_c64.open64_2, NULL, NULL);
}

SYMLAZY_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	shim_resolve_libc();
	return serve_or_forward(dirfd, path, flags, 0, NULL, NULL, real_c.openat, real_c64.openat_2);
}

SYMLAZY_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	shim_resolve_libc();
	return serve_or_forward(dirfd, path, flags, 0, NULL, NULL, real_c.openat, real_c64.openat64_2);
}

/* fopen: only plain read modes ("r", "re", "rb", ...) are served */
static FILE *served_file(const char *path, const char *mode)
{
	int fd, saved = errno;
	FILE *f;

	if (!path || !mode || mode[0] != 'r' || strchr(mode, '+') || !real_c.fdopen)
		return NULL;
	fd = shim_text_open(path, strchr(mode, 'e') != NULL);
	if (fd < 0)
		return NULL;
	f = real_c.fdopen(fd, mode);
	if (!f)
		close(fd);
	errno = saved;
	return f;
}

/* fopen and fopen64: served, else libc's @fn64 when it has one, else its fopen */
static FILE *serve_or_fopen(const char *path, const char *mode, FILE *(*fn64)(const char *, const char *))
{
	FILE *f = served_file(path, mode);

	if (f)
		return f;
	if (fn64)
		return fn64(path, mode);
	if (!real_c.fopen) {
		errno = ENOSYS;
		return NULL;
	}
	return real_c.fopen(path, mode);
}

SYMLAZY_EXPORT FILE *fopen(const char *path, const char *mode)
{
	shim_resolve_libc();
	return serve_or_fopen(path, mode, NULL);
}

SYMLAZY_EXPORT FILE *fopen64(const char *path, const char *mode)
{
	shim_resolve_libc();
	return serve_or_fopen(path, mode, real_c64.fopen64);
}
