/* SPDX-License-Identifier: MIT */
/*
 * perfdata.h - stream a perf.data (file mode, or a saved pipe-mode stream)
 * and work out, per DSO, which addresses perf 6.1 will look up symbols for.
 *
 * Format source: tools/perf/Documentation/perf.data-file-format.txt and
 * include/uapi/linux/perf_event.h (record layouts), tools/perf/util/header.c
 * (feature sections, HEADER_BUILD_ID, pipe-mode HEADER_* records),
 * tools/perf/util/session.c (COMPRESSED). The records come from the
 * iterator in perfdata/record.h, threads and maps from perfdata/machine.h.
 *
 * Address space: the addresses stored are what perf passes to
 * map__find_symbol(): `ip - map.start + map.pgoff` (map.c map__map_ip), i.e.
 * file offsets in the DSO, in the same space as perf's adjusted symbol starts
 * (st_value - (p_vaddr - p_offset)).
 *
 * Which IPs: every SAMPLE ip whose cpumode (header.misc & 7) is USER, every
 * CALLCHAIN entry in a PERF_CONTEXT_USER section (raw, not decremented),
 * BRANCH_STACK from/to, and ADDR when sampled; for DWARF samples
 * (REGS_USER + STACK_USER) what perf's unwinder can reach (perfdata/unwind.h). To stay a superset of perf's
 * lookups regardless of event ordering and of damaged pid/tid fields, an IP
 * sampled by thread T is converted through every exec mapping ever recorded
 * for a thread of T's class or of a FORK ancestor's class that contains it.
 * perf 6.1 finds threads by tid and a thread (P, T) shares the maps of
 * thread P (util/machine.c), so a class joins every T with every P a record
 * names it with; in an intact recording a class is one process.
 * Sampled ADDR values (perf mem, -d) also go through non-exec file mappings
 * (MMAP_DATA records), because perf resolves sample->addr through any map.
 */
#ifndef SYMLAZY_PERFDATA_H
#define SYMLAZY_PERFDATA_H

#include <stddef.h>
#include <stdint.h>
#include "util/elfops.h"

#define PD_BUILD_ID_MAX 20

struct pd_dso {
	char *path;                          /* filename as in MMAP/MMAP2 */
	unsigned char build_id[PD_BUILD_ID_MAX];
	unsigned build_id_size;              /* 0 = unknown */
	/* file identity from MMAP2 (include/uapi/linux/perf_event.h: maj, min,
	 * ino, ino_generation when PERF_RECORD_MISC_MMAP_BUILD_ID is clear):
	 * the device and inode perf mapped; have_ino = 0 for MMAP records,
	 * build-id-form MMAP2 records, or when mappings of one path disagree */
	uint32_t maj, min;
	uint64_t ino;
	int have_ino;
	uint64_t *addrs;                     /* sorted, unique file offsets */
	size_t nr_addrs;
	size_t alloc_addrs;                  /* internal */
	/* enum pd_unsure (perfdata/unwind.h), 0 = none: a thread that maps this DSO
	 * has a DWARF sample whose unwound frames the set cannot bound (e.g.
	 * 32-bit user registers); such a DSO is listed even without addrs */
	unsigned unsure;
};

/* Global reasons that make lazy mode unusable for the whole file. */
enum pd_flags {
	PD_F_DWARF_UNWIND = 1u << 0,   /* REGS_USER+STACK_USER: callchains need unwinding
	                                * (collected by perfdata/unwind.c; not a fallback) */
	PD_F_PIPE         = 1u << 1,   /* not a regular file (a FIFO): never read */
	PD_F_LBR_CALLSTACK= 1u << 2,   /* branch_sample_type CALL_STACK */
	PD_F_FOREIGN_ENDIAN = 1u << 3,
	PD_F_NO_SAMPLES   = 1u << 4,
};

/* What perf.data says about the kernel (perfdata/kernel.c).
 * A kernel map is the last MMAP/MMAP2 in kernel cpumode whose name starts
 * with "[kernel.kallsyms" (util/machine.c machine__process_kernel_mmap_event):
 * [start, start + len), pgoff = the address of the relocation symbol named
 * by the rest of the name ("[kernel.kallsyms]_text" -> "_text"; pgoff 0 =
 * recorded under kptr_restrict). Other kernel MMAPs named "/..." or "[..."
 * are module maps; __entry_SYSCALL_64_trampoline ones are extra maps. */
struct pd_kmod {
	char name[128];                      /* perf's dso short name, "[ext4]" */
	uint64_t start, end;
};

struct pd_kextra {
	uint64_t start, end, pgoff;
};

struct pd_kernel {
	int have_kmmap;
	uint64_t kstart, kend, kpgoff;
	char ref_name[64];                   /* "" when pgoff is 0 */
	struct pd_kmod *mods;
	size_t nr_mods;
	struct pd_kextra *extra;
	size_t nr_extra;
	/* every address perf may look up in the kernel maps: sample IPs in
	 * kernel cpumode, callchain entries in PERF_CONTEXT_KERNEL sections,
	 * and any collected address in the upper half (sorted, unique) */
	uint64_t *addrs;
	size_t nr_addrs, alloc_addrs;
	uint64_t nr_guest;                   /* guest kernel samples (not served) */
};

struct pd_result {
	struct pd_dso *dsos;
	size_t nr_dsos;
	unsigned flags;                 /* enum pd_flags */
	uint64_t nr_records, nr_samples, nr_unknown_records, nr_user_ips;
	/* SAMPLE records whose sample ID matches no attr (perf drops
	 * them too: "unknown sample id"); nr_user_ips counts collected user
	 * IPs with repeats (sample ip, callchain, branch from/to, addr). */
	uint64_t nr_skipped_samples;
	/* bytes of the data section, and bytes decompressed from
	 * COMPRESSED records (for throughput statistics). */
	uint64_t data_bytes, decompressed_bytes;
	/* the kernel, and JIT DSOs: "/tmp/perf-PID.map" per
	 * process with executable anonymous mappings (util/map.c map__new),
	 * addrs = the raw IPs perf looks up there (identity map_ip). */
	struct pd_kernel kern;
	struct pd_dso *jit;
	size_t nr_jit;
	/* the second pass over DWARF samples' stack dumps (perfdata/unwind.h
	 * struct pd_unwind_stats) */
	struct {
		uint64_t samples, unsure_samples, stack_bytes, windows, candidates;
		uint64_t scanned_samples;	/* of samples: scanned, not replayed */
	} unwind;
};

/*
 * perfdata_read - read @path (a file-mode perf.data, a regular file holding
 * a saved pipe-mode stream, `perf record -o - > file`, or a
 * `perf record --threads` directory: DIR/data plus DIR/data.N) into @out.
 * @ops: libelf entry points, used only to read build-ids of DSOs that
 *       perf.data gives none for (opened read-only by path; may be NULL to skip).
 * Memory stays bounded: the file is streamed through a fixed window, COMPRESSED
 * records through one ZSTD_DStream; only the address sets grow.
 * Returns 0, or a negative errno: -ENOENT/-EACCES (open), -EINVAL (not a
 * perf.data file / corrupt header or records: *@err gets a one-line reason),
 * -ENOTSUP (not a regular file, foreign endian, unsupported attr layout,
 * COMPRESSED records without libzstd.so.1).
 * On error @out is left empty (nothing to free), except that for -ENOTSUP
 * out->flags says why (PD_F_PIPE / PD_F_FOREIGN_ENDIAN).
 * Implementation notes (perfdata/perfdata.c): records are not time-ordered;
 * COMM/EXIT never remove mappings; callchain entries before the first
 * PERF_CONTEXT_* marker count as user; DSOs without any address are left
 * out of @out unless pd_dso.unsure is set; DSOs with equal build-ids (one
 * file, two paths) are merged.
 */
int perfdata_read(const char *path, const struct elf_ops *ops, struct pd_result *out,
		  char *err, size_t errsz);

/* Where the addresses of DWARF-unwound frames come from (perfdata/unwind.h). */
enum pd_unwind_mode {
	PD_UNWIND_HYBRID = 0,	/* replay where it is provably perf's, else scan (default) */
	PD_UNWIND_SCAN,		/* registers and dump windows in mapped ranges, always */
	PD_UNWIND_REPLAY,	/* libunwind replay only (measurements: misses [vdso] frames) */
	PD_UNWIND_BOTH,		/* the union of replay and scan */
};

/* perfdata_read_unwind - perfdata_read with the DWARF source @unwind_mode
 * (enum pd_unwind_mode; perfdata_read uses PD_UNWIND_HYBRID). -ENOTSUP if
 * the replay alone is asked for and libunwind cannot be loaded (the hybrid
 * then scans every sample). */
int perfdata_read_unwind(const char *path, const struct elf_ops *ops, int unwind_mode,
			 struct pd_result *out, char *err, size_t errsz);

/*
 * perfdata_input_ok - may perfdata_read() be given @path? 1 for a regular
 * file (perf.data or a saved pipe-mode stream; its content is judged by
 * perfdata_read) and for a `perf record --threads` directory whose "data"
 * file starts with a file-mode header; 0 otherwise (FIFOs, devices, other
 * directories, missing paths). Reads at most 16 bytes; errno preserved.
 */
int perfdata_input_ok(const char *path);

/* Free everything perfdata_read allocated. Safe on a zeroed struct. */
void perfdata_free(struct pd_result *res);

/*
 * perfdata_merge - add @from (another recording's result) to @into, as perf
 * diff reads several recordings: per DSO the union of both
 * address sets - DSOs with one build-id are one entry; without a build-id,
 * entries of one path are one entry whose file identity (have_ino) stays
 * only if both recorded the same device and inode -, likewise JIT DSOs by
 * path, kernel addresses united, flags OR'ed (PD_F_NO_SAMPLES only if both),
 * counters summed. A recording without kernel map and kernel addresses says
 * nothing of the kernel; if both have one and differ in what kallsyms
 * filtering reads (kernel map, modules, extra maps), *@kernel_differs is set
 * (the caller then serves kallsyms whole). @from is freed (empty) on
 * return. Returns 0 or -ENOMEM (then both must be freed by the caller).
 */
int perfdata_merge(struct pd_result *into, struct pd_result *from, int *kernel_differs);

/* The JIT DSO of @path ("/tmp/perf-PID.map"), or NULL. */
const struct pd_dso *perfdata_find_jit(const struct pd_result *res, const char *path);

/* Find a DSO by build-id (exact bytes and length; linear scan, results hold
 * few DSOs). NULL if absent or @res/@id is NULL. */
const struct pd_dso *perfdata_find_build_id(const struct pd_result *res,
					    const unsigned char *id, size_t len);

/*
 * perfdata_write_addrs - write "<build-id-hex> <addr-hex>\n" lines (the
 * SYMLAZY_ADDRS format) for every DSO with a known build-id, addresses in
 * ascending order, lowercase hex without "0x"; each DSO is preceded by one
 * "# <build-id-hex> <path> (<n> addrs)" comment line. DSOs without a build-id
 * are not written. Buffered write(2) to @fd (not closed). Returns 0 or -errno.
 */
int perfdata_write_addrs(const struct pd_result *res, int fd);

/*
 * addrs_read - parse a SYMLAZY_ADDRS file ("<build-id-hex> <addr-hex>" per line,
 * '#' comments, blank lines allowed; addr with or without 0x) into @out
 * (dsos with build_id set, path NULL; addrs sorted and unique per build-id,
 * lines for one build-id may be scattered). Returns 0, -errno from fopen, or
 * -EINVAL with "path:line:" in *@err. On error @out is left empty.
 */
/* The largest SYMLAZY_ADDRS file read (about 4M addresses); larger ones and
 * files that are not regular are refused with -EINVAL. */
#define PD_ADDRS_MAX_BYTES (256ll << 20)
#define PD_ADDRS_MAX_TEXT "256 MiB"
int addrs_read(const char *path, struct pd_result *out, char *err, size_t errsz);

#endif
