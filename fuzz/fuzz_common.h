/* SPDX-License-Identifier: MIT */
/*
 * fuzz_common.h - helpers shared by the libFuzzer harnesses in fuzz/.
 * Inputs that core/ reads by path are handed over as a memfd reached
 * through /proc/self/fd/N (no disk writes, no name clashes between jobs).
 */
#ifndef SYMLAZY_FUZZ_COMMON_H
#define SYMLAZY_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

/* Abort with a message: libFuzzer reports it as a crash with this input. */
#define FUZZ_CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
	abort(); } } while (0)

#endif
