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

static int fwd_open(int (*fn)(const char *, int, ...), const char *path, int flags, mode_t mode)
{
	if (fn)
		return fn(path, flags, mode);
	return sys_openat(AT_FDCWD, path, flags, mode);
}

static int fwd_openat(int (*fn)(int, const char *, int, ...), int dirfd, const char *path, int flags,
		      mode_t mode)
{
	if (fn)
		return fn(dirfd, path, flags, mode);
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
	int fd;

	MODE_ARG(flags, mode);
	shim_resolve_libc();
	if ((fd = served(AT_FDCWD, path, flags)) >= 0)
		return fd;
	return fwd_open(real_c.open, path, flags, mode);
}

SYMLAZY_EXPORT int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	int fd;

	MODE_ARG(flags, mode);
	shim_resolve_libc();
	if ((fd = served(AT_FDCWD, path, flags)) >= 0)
		return fd;
	return fwd_open(real_c64.open64 ? real_c64.open64 : real_c.open, path, flags, mode);
}

SYMLAZY_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	int fd;

	MODE_ARG(flags, mode);
	shim_resolve_libc();
	if ((fd = served(dirfd, path, flags)) >= 0)
		return fd;
	return fwd_openat(real_c.openat, dirfd, path, flags, mode);
}

SYMLAZY_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	int fd;

	MODE_ARG(flags, mode);
	shim_resolve_libc();
	if ((fd = served(dirfd, path, flags)) >= 0)
		return fd;
	return fwd_openat(real_c64.openat64 ? real_c64.openat64 : real_c.openat, dirfd, path, flags, mode);
}

/* _FORTIFY_SOURCE entry points (open without a mode argument) */
SYMLAZY_EXPORT int __open_2(const char *path, int flags)
{
	int fd;

	shim_resolve_libc();
	if ((fd = served(AT_FDCWD, path, flags)) >= 0)
		return fd;
	if (real_c64.open_2)
		return real_c64.open_2(path, flags);
	return fwd_open(real_c.open, path, flags, 0);
}

SYMLAZY_EXPORT int __open64_2(const char *path, int flags)
{
	int fd;

	shim_resolve_libc();
	if ((fd = served(AT_FDCWD, path, flags)) >= 0)
		return fd;
	if (real_c64.open64_2)
		return real_c64.open64_2(path, flags);
	return fwd_open(real_c.open, path, flags, 0);
}

SYMLAZY_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	int fd;

	shim_resolve_libc();
	if ((fd = served(dirfd, path, flags)) >= 0)
		return fd;
	if (real_c64.openat_2)
		return real_c64.openat_2(dirfd, path, flags);
	return fwd_openat(real_c.openat, dirfd, path, flags, 0);
}

SYMLAZY_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	int fd;

	shim_resolve_libc();
	if ((fd = served(dirfd, path, flags)) >= 0)
		return fd;
	if (real_c64.openat64_2)
		return real_c64.openat64_2(dirfd, path, flags);
	return fwd_openat(real_c.openat, dirfd, path, flags, 0);
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

SYMLAZY_EXPORT FILE *fopen(const char *path, const char *mode)
{
	FILE *f;

	shim_resolve_libc();
	if ((f = served_file(path, mode)) != NULL)
		return f;
	if (!real_c.fopen) {
		errno = ENOSYS;
		return NULL;
	}
	return real_c.fopen(path, mode);
}

SYMLAZY_EXPORT FILE *fopen64(const char *path, const char *mode)
{
	FILE *f;

	shim_resolve_libc();
	if ((f = served_file(path, mode)) != NULL)
		return f;
	if (real_c64.fopen64)
		return real_c64.fopen64(path, mode);
	if (!real_c.fopen) {
		errno = ENOSYS;
		return NULL;
	}
	return real_c.fopen(path, mode);
}
