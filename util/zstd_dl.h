/* SPDX-License-Identifier: MIT */
/*
 * zstd_dl.h - libzstd, loaded on first use.
 * libsymlazy.so must not carry NEEDED entries beyond libc: it is preloaded
 * into every process of a session (and musl programs cannot resolve glibc's
 * multiarch libzstd). perf links libzstd itself, so inside perf the dlopen
 * finds the copy already mapped.
 * Include this instead of <zstd.h>; the ZSTD_* names below become calls
 * through pointers resolved by zstd_dl_load().
 */
#ifndef SYMLAZY_ZSTD_DL_H
#define SYMLAZY_ZSTD_DL_H

#include <zstd.h>

struct zstd_dl {
	ZSTD_DStream *(*createDStream)(void);
	size_t (*initDStream)(ZSTD_DStream *);
	size_t (*decompressStream)(ZSTD_DStream *, ZSTD_outBuffer *, ZSTD_inBuffer *);
	size_t (*freeDStream)(ZSTD_DStream *);
	unsigned (*isError)(size_t);
	const char *(*getErrorName)(size_t);
};

/* zstd_dl_load - resolve libzstd.so.1 once (thread-safe). NULL if missing. */
const struct zstd_dl *zstd_dl_load(void);

/*
 * zstd_dl_dstream - libzstd loaded and a new, initialized decompression
 * stream: *@zsp the functions, *@dsp the stream (free it with
 * (*zsp)->freeDStream). Returns 0, -ENOSYS without libzstd, -ENOMEM when the
 * stream cannot be made (nothing to free then).
 */
int zstd_dl_dstream(const struct zstd_dl **zsp, ZSTD_DStream **dsp);

#endif
