/* SPDX-License-Identifier: MIT */
/*
 * perfdata/record.h - a streaming record iterator over perf.data (prefix pd_).
 *
 * Three input layouts, all read through one bounded window:
 *   file mode  header {magic "PERFILE2", size 104, attr_size, attrs, data,
 *              event_types, adds_features[4]}, attrs section, data section,
 *              then one {offset, size} per set feature bit
 *              (tools/perf/Documentation/perf.data-file-format.txt);
 *   pipe mode  header {magic, size 16}, then one stream of records to the
 *              end of the file: HEADER_ATTR, HEADER_FEATURE, HEADER_BUILD_ID,
 *              HEADER_TRACING_DATA (followed by its payload), FINISHED_ROUND
 *              and kernel records in any order (a *saved* pipe stream,
 *              `perf record -o - > file`; perf 6.1 header.c
 *              perf_session__read_header tries the pipe header on regular
 *              files too, session.c __perf_session__process_pipe_events);
 *   directory  `perf record --threads`: DIR/data is a file-mode file whose
 *              HEADER_DIR_FORMAT feature (bit 24, u64 version 1) says every
 *              regular DIR/data.* file is a headerless stream of records read
 *              after it (util/data.c perf_data__open_dir, session.c
 *              __perf_session__process_dir_events). Without the feature only
 *              DIR/data is read (PERF_DIR_SINGLE_FILE).
 *
 * Records come out in file order: in file mode first the HEADER_BUILD_ID
 * feature entries (PD_K_BUILD_ID, in_feature = 1), then the data section,
 * then each data.N file (sorted by name, version order). COMPRESSED records
 * (81, and 83 = COMPRESSED2 of newer perf) are yielded themselves and then
 * the records of their payload; the payloads of one file form one zstd
 * stream whose records may straddle payloads (session.c
 * perf_session__process_compressed_event; each data.N has its own stream).
 * Payloads that follow a record (AUXTRACE data, HEADER_TRACING_DATA) are
 * skipped by the reader (rec->payload).
 *
 * Memory is bounded: a 1 MiB read window, a 1 MiB decompression buffer,
 * one ZSTD_DStream (core/zstd_dl, loaded on first use), the attrs and the
 * sample-ID index. Every pointer in a struct pd_record points into those
 * buffers: valid until the next pd_next()/pd_close(). Values are in host
 * byte order (foreign-endian files are refused); arrays are not aligned:
 * read them with pd_u64().
 *
 * Errors are negative errno values; every error that pd_open()/pd_next()
 * return comes with a one-line reason in the caller's @err buffer.
 */
#ifndef SYMLAZY_PD_RECORD_H
#define SYMLAZY_PD_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct pd_reader;

enum pd_mode {
	PD_MODE_FILE = 1,	/* file-mode perf.data */
	PD_MODE_PIPE,		/* saved pipe-mode stream in a regular file */
	PD_MODE_DIR,		/* perf record --threads directory */
};

/* Why pd_open() returned -ENOTSUP. */
enum pd_unsupported {
	PD_UNSUP_NONE = 0,
	PD_UNSUP_NOT_FILE,	/* neither a regular file nor a directory (FIFO, device) */
	PD_UNSUP_FOREIGN_ENDIAN,/* magic "2ELIFREP": written on the other byte order */
	PD_UNSUP_LAYOUT,	/* attr_size > 64 KiB */
};

/*
 * One perf_event_attr (include/uapi/linux/perf_event.h), the fields the
 * sample layout depends on. Fields past the stored attr size are 0:
 * branch_sample_type needs PERF_ATTR_SIZE_VER2 (80 bytes), sample_regs_user
 * and sample_stack_user VER3 (96), sample_regs_intr VER4 (104).
 */
struct pd_attr {
	uint32_t type;			/* attr.type (PERF_TYPE_*) */
	uint32_t size;			/* bytes of the attr as stored */
	uint64_t config;
	uint64_t sample_period;		/* or sample_freq (attr.freq) */
	uint64_t sample_type;		/* PERF_SAMPLE_* */
	uint64_t read_format;		/* PERF_FORMAT_* */
	uint64_t flags;			/* the bit-field word (disabled, ..., @40) */
	uint64_t branch_sample_type;	/* PERF_SAMPLE_BRANCH_* */
	uint64_t sample_regs_user;	/* register mask, bit n = register n */
	uint32_t sample_stack_user;	/* bytes of user stack asked for */
	uint64_t sample_regs_intr;
	int sample_id_all;		/* flags bit 18: non-SAMPLE records carry a sample_id */
};

/* Registers of a SAMPLE (REGS_USER / REGS_INTR): { u64 abi; u64 regs[weight(mask)]; } */
struct pd_regs {
	uint64_t abi;			/* PERF_SAMPLE_REGS_ABI_*: 0 = none, nothing follows */
	uint64_t mask;			/* the attr's sample_regs_user / sample_regs_intr */
	unsigned nr;			/* popcount(mask) if abi != 0, else 0 */
	const unsigned char *regs;	/* nr u64, lowest mask bit first; NULL if nr == 0 */
};

/*
 * A PERF_RECORD_SAMPLE parsed with its attr, every field in the order of
 * the uapi comment / the kernel's perf_output_sample, as perf 6.1
 * util/evsel.c evsel__parse_sample reads them: IDENTIFIER, IP, TID, TIME,
 * ADDR, ID, STREAM_ID, CPU, PERIOD, READ, CALLCHAIN, RAW, BRANCH_STACK,
 * REGS_USER, STACK_USER, WEIGHT/WEIGHT_STRUCT, DATA_SRC, TRANSACTION,
 * REGS_INTR, PHYS_ADDR, CGROUP, DATA_PAGE_SIZE, CODE_PAGE_SIZE, AUX.
 * A field is valid iff its PERF_SAMPLE_* bit is in @have; absent fields are
 * 0 (pid/tid -1, cpu UINT32_MAX).
 */
struct pd_sample {
	const struct pd_attr *attr;	/* attr the record was parsed with (never NULL) */
	uint32_t attr_idx;		/* its index (pd_attrs) */
	int id_unknown;			/* the sample ID names no attr: parsed with attr 0
					 * (perf 6.1 drops such samples: "unknown sample id") */
	uint16_t cpumode;		/* header.misc & PERF_RECORD_MISC_CPUMODE_MASK */
	uint64_t have;			/* PERF_SAMPLE_* bits parsed */
	uint64_t broken;		/* 0, or the bit of the first field that runs past
					 * the record or is inconsistent (evsel.c -EFAULT);
					 * it and every later field are absent */
	uint64_t id;			/* IDENTIFIER, else ID */
	uint64_t ip;
	int32_t pid, tid;
	uint64_t time, addr, stream_id;
	uint32_t cpu, cpu_res;
	uint64_t period;
	struct {			/* struct read_format, raw (uapi) */
		uint64_t nr;		/* PERF_FORMAT_GROUP: nr, else 1 */
		const unsigned char *data;
		size_t size;		/* bytes */
	} read;
	uint64_t callchain_nr;		/* entries incl. PERF_CONTEXT_* markers */
	const unsigned char *callchain;	/* callchain_nr u64 */
	uint32_t raw_size;
	const unsigned char *raw;
	uint64_t branch_nr;
	int branch_has_hw_idx;		/* attr branch_sample_type & BRANCH_HW_INDEX */
	uint64_t branch_hw_idx;
	const unsigned char *branch;	/* branch_nr x { u64 from, to, flags } */
	struct pd_regs user_regs;
	struct {
		uint64_t size;		/* bytes dumped (0: nothing else follows) */
		const unsigned char *data;
		uint64_t dyn_size;	/* bytes of @data that are valid (<= size) */
	} user_stack;
	uint64_t weight;		/* WEIGHT: the u64; WEIGHT_STRUCT: the union (var1_dw
					 * low 32 bits, var2_w, var3_w) */
	uint64_t data_src, transaction;
	struct pd_regs intr_regs;
	uint64_t phys_addr, cgroup, data_page_size, code_page_size;
	struct {
		uint64_t size;
		const unsigned char *data;
	} aux;
};

/* The sample_id trailer of a non-SAMPLE kernel record (attr.sample_id_all):
 * { u32 pid, tid; u64 time; u64 id; u64 stream_id; u32 cpu, res; u64 id }
 * each present per sample_type, read from the end of the record as perf
 * 6.1 evsel.c perf_evsel__parse_id_sample does. */
struct pd_sample_id {
	int valid;			/* 0: no sample_id_all, too short, or unknown ID */
	uint64_t have;			/* PERF_SAMPLE_{TID,TIME,ID,STREAM_ID,CPU,IDENTIFIER} */
	int32_t pid, tid;
	uint64_t time, id, stream_id;
	uint32_t cpu;
};

/* MMAP: { u32 pid, tid; u64 addr, len, pgoff; char filename[]; }
 * MMAP2: { u32 pid, tid; u64 addr, len, pgoff; union { { u32 maj, min; u64
 * ino, ino_generation; } | { u8 build_id_size, res, res2[2]; u8 build_id[20]; } };
 * u32 prot, flags; char filename[]; } (build-id form if misc has
 * PERF_RECORD_MISC_MMAP_BUILD_ID). */
struct pd_mmap {
	int32_t pid, tid;
	uint64_t start, len, pgoff;
	int is_mmap2;
	uint32_t maj, min;		/* MMAP2 without build-id */
	uint64_t ino, ino_generation;
	const unsigned char *build_id;	/* MMAP2 build-id form: 20 bytes, else NULL */
	unsigned build_id_size;		/* as recorded (may exceed 20 in bad files) */
	uint32_t prot, flags;		/* MMAP2 */
	const char *filename;		/* NOT necessarily NUL-terminated: */
	size_t filename_max;		/* bytes up to the record's end */
};

/* COMM: { u32 pid, tid; char comm[]; } (only records of >= 24 bytes) */
struct pd_comm {
	int32_t pid, tid;
	const char *comm;		/* up to comm_max bytes, maybe unterminated */
	size_t comm_max;
};

/* FORK and EXIT: { u32 pid, ppid, tid, ptid; u64 time; } (>= 24 bytes) */
struct pd_fork {
	int32_t pid, ppid, tid, ptid;
	uint64_t time;			/* 0 if the record has no room for it */
};

/* HEADER_BUILD_ID entry: { header; s32 pid; u8 build_id[24]; char
 * filename[]; } where build_id = { data[20], u8 size, 3 reserved } and the
 * size byte counts only if misc has PERF_RECORD_MISC_BUILD_ID_SIZE (1 << 15)
 * (tools/perf/util/header.c, util/build-id.c); >= 36 bytes. */
struct pd_build_id {
	int32_t pid;
	uint16_t cpumode;
	const unsigned char *build_id;	/* 20 bytes */
	unsigned size;			/* size byte, or 20 without BUILD_ID_SIZE */
	const char *filename;		/* maybe unterminated */
	size_t filename_max;
};

enum pd_kind {
	PD_K_OTHER = 0,		/* any other record: header fields and bytes only */
	PD_K_SAMPLE,
	PD_K_MMAP,		/* MMAP and MMAP2 */
	PD_K_COMM,
	PD_K_FORK,
	PD_K_EXIT,
	PD_K_BUILD_ID,		/* feature entry (file) or HEADER_BUILD_ID record */
	PD_K_ATTR,		/* HEADER_ATTR record: the attr is registered */
};

struct pd_record {
	uint32_t type;			/* header.type: PERF_RECORD_* (1..), perf's own (64..) */
	uint16_t misc;
	uint16_t size;			/* header.size, >= 8 */
	enum pd_kind kind;
	const unsigned char *bytes;	/* the whole record, @size bytes */
	unsigned file;			/* 0: the perf.data file (DIR/data); n: the n-th
					 * data.N file (pd_file_name) */
	uint64_t offset;		/* in that file; for a record out of a COMPRESSED
					 * payload: that COMPRESSED record's offset */
	int in_compressed;		/* decompressed from a COMPRESSED payload */
	int in_feature;			/* HEADER_BUILD_ID feature entry, not a data record */
	uint64_t payload;		/* bytes after the record that belong to it (skipped) */
	struct pd_sample_id sid;	/* kernel records other than SAMPLE */
	union {
		struct pd_sample sample;
		struct pd_mmap mmap;
		struct pd_comm comm;
		struct pd_fork fork;	/* PD_K_FORK and PD_K_EXIT */
		struct pd_build_id build_id;
		struct {
			const struct pd_attr *attr;
			uint32_t idx;
		} attr;
	};
};

/*
 * pd_open - open @path (a perf.data file, a saved pipe stream or a
 * `perf record --threads` directory) and read its header, attrs (with
 * their sample IDs) and feature table.
 * Returns 0 with *@rp set, or a negative errno with *@rp NULL:
 * -ENOENT/-EACCES/... (open), -EINVAL (not perf.data, bad or truncated
 * header/attrs, unsupported DIR_FORMAT version), -ENOTSUP with *@why set
 * (enum pd_unsupported; @why may be NULL), -ENOMEM.
 * A FIFO is never read (opened O_NONBLOCK, refused by type).
 */
int pd_open(struct pd_reader **rp, const char *path, enum pd_unsupported *why,
	    char *err, size_t errsz);

/*
 * pd_next - the next record into *@rec. Returns 1 (a record), 0 (end of
 * input) or a negative errno: -EINVAL for a record that runs past its
 * section or file, size < 8, a too-short MMAP/MMAP2/FORK/ID_INDEX/AUXTRACE/
 * COMPRESSED2/HEADER_ATTR, a SAMPLE before any attr, corrupt zstd data or a
 * compressed stream that ends inside a record; -ENOTSUP when COMPRESSED
 * records need libzstd.so.1 and it cannot be loaded; -EIO/-errno on read
 * errors; -ENOMEM. Errors are sticky. A SAMPLE that does not fit its
 * sample_type is no error: see pd_sample.broken.
 */
int pd_next(struct pd_reader *r, struct pd_record *rec);

/* pd_close - release everything (NULL is fine). */
void pd_close(struct pd_reader *r);

/* pd_mode - the layout pd_open found. */
enum pd_mode pd_mode(const struct pd_reader *r);

/* pd_attrs - the attrs known so far (file: all, from the header; pipe: the
 * HEADER_ATTR records read so far) and their count in *@nr. The array moves
 * when a HEADER_ATTR record is read. */
const struct pd_attr *pd_attrs(const struct pd_reader *r, size_t *nr);

/* pd_attr_of_id - index of the attr a sample ID belongs to (attr ids
 * section, HEADER_ATTR ids, ID_INDEX records; the first mapping of an ID
 * wins), or -1. */
long pd_attr_of_id(const struct pd_reader *r, uint64_t id);

/* pd_file_name - path of file @n (0 = the header file), NULL past the end. */
const char *pd_file_name(const struct pd_reader *r, unsigned n);

/* pd_data_bytes - bytes of record data: the data section (file), the file
 * after its 16-byte header (pipe), the data section plus every data.N
 * (directory). pd_decompressed_bytes - bytes out of COMPRESSED payloads so far. */
uint64_t pd_data_bytes(const struct pd_reader *r);
uint64_t pd_decompressed_bytes(const struct pd_reader *r);

/*
 * pd_probe - what pd_open() would find at @path, from its type and first
 * 16 bytes only: PD_MODE_FILE for a regular file (any content: pd_open
 * judges it), PD_MODE_DIR for a directory whose "data" is a regular file
 * starting with a file-mode header (magic "PERFILE2", size >= 104), else 0.
 * Never blocks on FIFOs; errno is preserved.
 */
int pd_probe(const char *path);

/* pd_u64 - element @i of an unaligned u64 array in a record. */
static inline uint64_t pd_u64(const unsigned char *p, size_t i)
{
	uint64_t v;

	memcpy(&v, p + 8 * i, 8);
	return v;
}

#endif
