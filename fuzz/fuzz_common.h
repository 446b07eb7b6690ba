/* SPDX-License-Identifier: MIT */
/*
 * fuzz_common.h - helpers shared by the libFuzzer harnesses in fuzz/.
 * Inputs that core/ reads by path are handed over as a memfd reached
 * through /proc/self/fd/N (no disk writes, no name clashes between jobs).
 */
#ifndef SYMLAZY_FUZZ_COMMON_H
#define SYMLAZY_FUZZ_COMMON_H

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "index/cache.h"

/* A memfd holding @data; *@path gets "/proc/self/fd/N". Returns the fd or -1. */
static inline int fuzz_memfd(const uint8_t *data, size_t size, char *path, size_t pathsz)
{
	int fd = memfd_create("symlazy-fuzz", MFD_CLOEXEC);
	size_t off = 0;

	if (fd < 0)
		return -1;
	while (off < size) {
		ssize_t n = write(fd, data + off, size - off);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		off += (size_t)n;
	}
	snprintf(path, pathsz, "/proc/self/fd/%d", fd);
	return fd;
}

/* A private cache directory per fuzzing process (/tmp/symlazy-fuzz-cache-PID,
 * made by index/cache.c sl_cache_dir_open, removed at exit): its fd, opened
 * on the first call, or -1. fuzz_cache_clean empties it (between inputs),
 * fuzz_cache_entries counts what is in it. */
static char fuzz_cache_path[64];
static int fuzz_cache_fd = -1;

static inline int fuzz_cache_entries(void)
{
	DIR *d;
	struct dirent *e;
	int n = 0;

	if (fuzz_cache_fd < 0 || !(d = fdopendir(dup(fuzz_cache_fd))))
		return -1;
	rewinddir(d);   /* dup() shares the offset the last scan left at the end */
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static inline void fuzz_cache_clean(void)
{
	DIR *d;
	struct dirent *e;

	if (fuzz_cache_fd < 0 || !(d = fdopendir(dup(fuzz_cache_fd))))
		return;
	rewinddir(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(fuzz_cache_fd, e->d_name, 0);
	closedir(d);
}

static inline void fuzz_cache_drop(void)
{
	fuzz_cache_clean();
	if (fuzz_cache_fd >= 0)
		close(fuzz_cache_fd);
	rmdir(fuzz_cache_path);
}

static inline int fuzz_cache_dir(void)
{
	struct sl_why w = { 0 };

	if (fuzz_cache_fd >= 0)
		return fuzz_cache_fd;
	snprintf(fuzz_cache_path, sizeof(fuzz_cache_path), "/tmp/symlazy-fuzz-cache-%d", (int)getpid());
	fuzz_cache_fd = sl_cache_dir_open(fuzz_cache_path, &w);
	if (fuzz_cache_fd >= 0)
		atexit(fuzz_cache_drop);
	return fuzz_cache_fd;
}

/* Abort with a message: libFuzzer reports it as a crash with this input. */
#define FUZZ_CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
	abort(); } } while (0)

#endif
