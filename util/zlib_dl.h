/* SPDX-License-Identifier: MIT */
/*
 * zlib_dl.h - zlib's inflate, loaded on first use (the zstd_dl.h treatment:
 * libsymlazy.so keeps libc as its only NEEDED; perf and libelf link libz, so
 * inside them the dlopen finds the copy already mapped).
 * The z_stream layout and the inflateInit_ version/size handshake are
 * zlib.h's own (zlib 1.2+: inflateInit() is a macro for inflateInit_).
 */
#ifndef SYMLAZY_ZLIB_DL_H
#define SYMLAZY_ZLIB_DL_H

#include <zlib.h>

struct zlib_dl {
	int (*inflateInit_)(z_streamp, const char *version, int stream_size);
	int (*inflate)(z_streamp, int flush);
	int (*inflateEnd)(z_streamp);
};

/* zlib_dl_load - resolve libz.so.1 once (thread-safe). NULL if missing. */
const struct zlib_dl *zlib_dl_load(void);

#endif
