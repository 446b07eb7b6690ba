/* SPDX-License-Identifier: MIT */
/*
 * perfdata/reader.h - internal to perfdata/: the state of one perf.data
 * reader (struct pd_reader) shared by perfdata/record.c (decoding attrs,
 * samples and records) and perfdata/stream.c (the read window, zstd
 * COMPRESSED payloads, the feature section, the walk over one file or a
 * directory's data.N files, open and close). Format sources: the list at
 * the top of perfdata/record.c.
 */
#ifndef SYMLAZY_PERFDATA_READER_H
#define SYMLAZY_PERFDATA_READER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "perfdata/htab.h"
#include "perfdata/record.h"
#include "util/zstd_dl.h"

/* "PERFILE2" read as a little-endian u64 (perf.data-file-format.txt). */
#define PD_MAGIC          0x32454c4946524550ULL
#define PD_MAGIC_SWAPPED  0x50455246494c4532ULL
#define PD_MAGIC_V1       0x454c494646524550ULL	/* "PERFFILE", pre-2.6.37 */
#define PD_FILE_HDR_SIZE  104	/* magic, size, attr_size, 3 sections, 4 u64 bitmap */
#define PD_PIPE_HDR_SIZE  16	/* magic, size */
#define PD_ATTR_SIZE_VER0 64

/* perf's own record types (tools/lib/perf/include/perf/event.h). */
enum {
	PD_REC_HEADER_ATTR	= 64,
	PD_REC_TRACING_DATA	= 66,
	PD_REC_HEADER_BUILD_ID	= 67,
	PD_REC_ID_INDEX		= 69,
	PD_REC_AUXTRACE		= 71,
	PD_REC_COMPRESSED	= 81,
	PD_REC_COMPRESSED2	= 83,	/* newer perf: header, u64 data_size, data */
};

#define PD_FEAT_BUILD_ID   2	/* HEADER_BUILD_ID feature bit */
#define PD_FEAT_DIR_FORMAT 24	/* HEADER_DIR_FORMAT: u64 version */
#define PD_DIR_VERSION     1	/* util/data.h PERF_DIR_VERSION */
#define PD_MISC_BUILD_ID_SIZE (1u << 15)

#define PD_WINDOW   (1u << 20)	/* file read window */
#define PD_DBUF     (1u << 20)	/* decompressed-record buffer */
#define PD_MAX_ATTRS (1u << 20)
#define PD_MAX_FILES (1u << 16)

static inline uint64_t rd64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline uint32_t rd32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint16_t rd16(const unsigned char *p) { uint16_t v; memcpy(&v, p, 2); return v; }

/* ----------------------------------------------------------- read window */

struct pd_win {
	int fd;
	uint64_t fsize;
	unsigned char *buf;
	size_t cap;
	uint64_t off;	/* file offset of buf[0] */
	size_t len;	/* valid bytes in buf */
};

/* ---------------------------------------------------------------- reader */

struct pd_idmap {
	uint64_t id;
	uint32_t attr;
};

enum phase {
	PH_FEATURE,	/* HEADER_BUILD_ID feature entries of the header file */
	PH_DATA,	/* records of [pos, end) in the current file */
	PH_END,
};

struct pd_reader {
	struct pd_win win;
	char *err;
	size_t errsz;
	enum pd_mode mode;
	int dirfd;		/* PD_MODE_DIR: the directory, and its path */
	char *dir;

	struct pd_attr *attrs;
	size_t nr_attrs, alloc_attrs;
	int id_pos, is_pos;	/* of attrs[0]: u64 index of the sample ID in a
				 * SAMPLE / from the end of a sample_id; -1 none */
	struct pd_idmap *ids;
	size_t nr_ids, alloc_ids;
	struct pd_htab id_tab;

	enum phase phase;
	uint64_t pos, end;	/* current section of the current file */
	uint64_t feat_pos, feat_end;
	unsigned file;		/* current file: 0 header file, n data.N */
	char **names;		/* [0] = path of the header file, then data.N */
	uint64_t *sizes;
	size_t nr_names;
	uint64_t data_bytes;

	const struct zstd_dl *zl;
	ZSTD_DStream *zds;
	int zinit;		/* the stream of this file has begun */
	ZSTD_inBuffer zin;	/* the COMPRESSED payload being decompressed */
	int zactive, zfinal;
	uint64_t zoff;		/* offset of that COMPRESSED record */
	unsigned char *dbuf;
	size_t dlen, dpos;
	uint64_t dskip;		/* payload left to skip in the stream */
	uint64_t decompressed;

	int failed;		/* sticky error */
	char where[128];	/* sect_name() */
};

/* perfdata/record.c */
int pd_decode(struct pd_reader *r, const unsigned char *p, size_t size, struct pd_record *rec);
void pd_fill_build_id(struct pd_record *rec, const unsigned char *p, size_t size);
int pd_read_attrs(struct pd_reader *r, uint64_t attr_size, uint64_t off, uint64_t size);
void __attribute__((format(printf, 2, 3))) pd_seterr(struct pd_reader *r, const char *fmt, ...);
/* perfdata/stream.c */
const unsigned char *pd_win_get(struct pd_win *w, uint64_t pos, size_t n,
				 uint64_t limit, int *rc);

#endif
