/* SPDX-License-Identifier: MIT */
/*
 * perfdata.c - the address collector: perfdata_read() (perfdata.h) on top
 * of the record iterator (perfdata/record.h) and the thread/map model
 * (perfdata/machine.h).
 *
 * One pass over the records collects
 *   - HEADER_BUILD_ID names (feature section, or records in pipe mode),
 *   - threads, maps and FORK edges into the machine (MMAP/MMAP2/FORK/
 *     COMM/EXIT, and every SAMPLE's pid/tid),
 *   - the set of unique (tid, user ip) pairs (sample ip, callchain, branch
 *     stack, sampled addr);
 * then every (tid, ip) is converted through every mapping the machine lets
 * thread tid reach (the "superset rule" in perfdata.h), so event order
 * (ordered_events in perf) does not matter.
 * Which records perf resolves through ELF symbol tables, and the address
 * space, as perf 6.1 has them: the record and sample layouts in
 * tools/perf/Documentation/perf.data-file-format.txt, include/uapi/linux/
 * perf_event.h and util/evsel.c evsel__parse_sample; maps and their FORK
 * inheritance in util/machine.c (machine__process_mmap2_event,
 * machine__process_fork_event) and util/maps.c (maps__fixup_overlappings);
 * the lookup address in util/map.c (map__map_ip: ip - start + pgoff, the
 * file offset; identity__map_ip for JIT and kallsyms maps).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "perfdata/htab.h"
#include "perfdata/kernel.h"
#include "perfdata/machine.h"
#include "perfdata/record.h"
#include "perfdata/unwind.h"
#include "perfdata/perfdata.h"
#include "util/util.h"

#define PD_PATH_MAX 4096

/* perf's own record types 64..83 (tools/lib/perf/include/perf/event.h;
 * 83 = COMPRESSED2 of newer perf) are known, like kernel types below
 * PERF_RECORD_MAX; anything else counts as unknown. */
#define PD_REC_USER_FIRST 64
#define PD_REC_USER_LAST  83

/* The SAMPLE fields up to BRANCH_STACK, the last one holding code
 * addresses: the collector needs them parsed, and attrs that agree on
 * them parse a sample alike. */
#define PREFIX_FIELDS (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
	PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | \
	PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | \
	PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK)

/* kinds of looked-up addresses (ipent.used bits) */
#define IP_CODE 1u	/* sample ip, callchain, branch */
#define IP_ADDR 2u	/* sample addr */

struct ipent {
	uint64_t ip;
	int32_t tid;		/* -1: samples without PERF_SAMPLE_TID */
	uint32_t used;		/* IP_CODE | IP_ADDR */
};

struct bidname {		/* HEADER_BUILD_ID entry (USER cpumode) */
	char *path;
	unsigned char id[PD_BUILD_ID_MAX];
	unsigned size;
};

struct addrset {		/* file offsets per machine DSO */
	uint64_t *v;
	size_t n, alloc;
	unsigned unsure;	/* enum pd_unsure: the set may miss unwound frames */
};

struct unsure_tid {		/* a thread with a sample pd_unwind cannot bound */
	int32_t tid;
	unsigned why;		/* enum pd_unsure */
};

struct col {
	struct pd_reader *rd;
	struct pd_machine m;
	char *err;
	size_t errsz;

	size_t attrs_seen;	/* attrs when prefix_same was computed */
	int prefix_same;	/* all attrs parse PREFIX_FIELDS alike */

	struct ipent *ips;
	size_t nr_ips, alloc_ips;
	struct pd_htab ip_tab;

	struct bidname *bids;
	size_t nr_bids, alloc_bids;
	struct pd_htab bid_tab;

	struct addrset *addrs;	/* indexed like m.dsos */
	size_t alloc_addrs;

	uint64_t nr_unwind;	/* samples perf unwinds (DWARF): second pass */
	int unwind_mode;	/* enum pd_unwind_mode */
	uint64_t *vdso;		/* [vdso] mappings: [start, end) pairs (the replay) */
	size_t nr_vdso, alloc_vdso;
	struct unsure_tid *unsure;
	size_t nr_unsure, alloc_unsure;

	struct pd_result res;
};

static void __attribute__((format(printf, 2, 3)))
seterr(struct col *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->err || !c->errsz)
		return;
	va_start(ap, fmt);
	vsnprintf(c->err, c->errsz, fmt, ap);
	va_end(ap);
}

static int all_zero(const unsigned char *p, size_t n)
{
	while (n--)
		if (*p++)
			return 0;
	return 1;
}

/* ------------------------------------------------------ (tid, ip) set */

static uint64_t ip_key_hash(int32_t tid, uint64_t ip)
{
	return sl_mix64(ip ^ ((uint64_t)(uint32_t)tid << 40));
}

static uint64_t ip_hash(const void *ctx, uint32_t idx)
{
	const struct ipent *e = &((const struct col *)ctx)->ips[idx];

	return ip_key_hash(e->tid, e->ip);
}

static int ip_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct ipent *e = &((const struct col *)ctx)->ips[idx], *k = key;

	return e->ip == k->ip && e->tid == k->tid;
}

static int ip_add(struct col *c, int32_t tid, uint64_t ip, uint32_t kind)
{
	struct ipent k = { ip, tid, kind };
	uint64_t h = ip_key_hash(tid, ip);
	uint32_t i;

	c->res.nr_user_ips++;
	i = pd_htab_get(&c->ip_tab, h, ip_eq, c, &k);
	if (i != PD_HTAB_EMPTY) {
		c->ips[i].used |= kind;
		return 0;
	}
	if (c->nr_ips >= UINT32_MAX - 1 ||
	    pd_grow((void **)&c->ips, &c->alloc_ips, c->nr_ips + 1, sizeof(*c->ips)) < 0)
		return -ENOMEM;
	c->ips[c->nr_ips] = k;
	if (pd_htab_add(&c->ip_tab, h, (uint32_t)c->nr_ips, ip_hash, c) < 0)
		return -ENOMEM;
	c->nr_ips++;
	return 0;
}

/* --------------------------------------------- HEADER_BUILD_ID names */

static uint64_t path_hash(const char *path)
{
	return sl_mix64(sl_fnv1a(SL_FNV_OFFSET, path, strlen(path)));
}

static uint64_t bid_hash(const void *ctx, uint32_t idx)
{
	return path_hash(((const struct col *)ctx)->bids[idx].path);
}

static int bid_eq(const void *ctx, uint32_t idx, const void *key)
{
	return !strcmp(((const struct col *)ctx)->bids[idx].path, key);
}

static const struct bidname *bid_find(const struct col *c, const char *path)
{
	uint32_t i = pd_htab_get(&c->bid_tab, path_hash(path), bid_eq, c, path);

	return i == PD_HTAB_EMPTY ? NULL : &c->bids[i];
}

/* The first entry for a path wins. Only USER-cpumode entries with a
 * non-empty build-id count (perf 6.1 -z writes empty ids). */
static int do_build_id(struct col *c, const struct pd_build_id *b)
{
	char path[PD_PATH_MAX];
	size_t n;
	struct bidname *e;

	if (b->cpumode != PERF_RECORD_MISC_USER)
		return 0;
	n = strnlen(b->filename, b->filename_max);
	if (n == 0 || n >= sizeof(path))
		return 0;
	memcpy(path, b->filename, n);
	path[n] = '\0';
	if (b->size == 0 || b->size > PD_BUILD_ID_MAX || all_zero(b->build_id, b->size))
		return 0;
	if (bid_find(c, path))
		return 0;
	if (pd_grow((void **)&c->bids, &c->alloc_bids, c->nr_bids + 1, sizeof(*c->bids)) < 0)
		return -ENOMEM;
	e = &c->bids[c->nr_bids];
	if (!(e->path = strdup(path)))
		return -ENOMEM;
	memcpy(e->id, b->build_id, b->size);
	e->size = b->size;
	if (pd_htab_add(&c->bid_tab, path_hash(path), (uint32_t)c->nr_bids, bid_hash, c) < 0) {
		free(e->path);
		return -ENOMEM;
	}
	c->nr_bids++;
	return 0;
}

/* ------------------------------------------------------------- records */

/* Mapping filenames perf never resolves through ELF symbol tables. */
static int skip_filename(const char *f, size_t n)
{
	static const char deleted[] = " (deleted)";

	/* [vdso] is a DSO for perf (util/vdso.c: its build-id cache copy, or a
	 * copy of perf's own vdso); [heap], [stack], [vsyscall] ... are not */
	if (n == 0 || (f[0] == '[' && strcmp(f, "[vdso]")))
		return 1;
	if (!strncmp(f, "//anon", 6) || !strncmp(f, "/memfd:", 7) || !strncmp(f, "/tmp/perf-", 10))
		return 1;
	if (n >= sizeof(deleted) - 1 && !strcmp(f + n - (sizeof(deleted) - 1), deleted))
		return 1;
	return 0;
}

/* [vdso] ranges (any process): the DWARF replay cannot read them */
static long note_vdso(struct col *c, uint64_t start, uint64_t len)
{
	size_t i;

	for (i = 0; i < c->nr_vdso; i++)
		if (c->vdso[2 * i] == start && c->vdso[2 * i + 1] == start + len)
			return 0;
	if (pd_grow((void **)&c->vdso, &c->alloc_vdso, 2 * (c->nr_vdso + 1), sizeof(*c->vdso)) < 0)
		return -ENOMEM;
	c->vdso[2 * c->nr_vdso] = start;
	c->vdso[2 * c->nr_vdso + 1] = start + len < start ? UINT64_MAX : start + len;
	c->nr_vdso++;
	return 0;
}

/* The map of @mm onto DSO @d (file offset @pgoff at mm->start), with an
 * address list (zeroed) for every DSO up to @d. */
static int map_dso(struct col *c, const struct pd_mmap *mm, uint32_t d, uint64_t pgoff, int data)
{
	if (d >= c->alloc_addrs) {
		size_t old = c->alloc_addrs;

		if (pd_grow((void **)&c->addrs, &c->alloc_addrs, (size_t)d + 1, sizeof(*c->addrs)) < 0)
			return -ENOMEM;
		memset(c->addrs + old, 0, (c->alloc_addrs - old) * sizeof(*c->addrs));
	}
	return pd_machine_mmap(&c->m, mm->pid, mm->tid, mm->start, mm->len, pgoff, d, data);
}

/* MMAP/MMAP2 of a user-space file: a map of thread tid. MMAP2 data
 * mappings (perf record -d: no PROT_EXEC, MISC_MMAP_DATA) and MMAP with
 * MISC_MMAP_DATA only serve sampled ADDRs (statistics; perf resolves
 * through them too, see pd_machine_resolve). */
static int do_mmap(struct col *c, uint16_t misc, const struct pd_mmap *mm)
{
	static const unsigned char none[PD_BUILD_ID_MAX];
	unsigned cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK, bid_size = 0;
	const unsigned char *bid = none;
	char path[PD_PATH_MAX];
	size_t n = strnlen(mm->filename, mm->filename_max);
	long d;
	int data;

	if (cpumode == PERF_RECORD_MISC_KERNEL)
		return pd_kernel_mmap(&c->res.kern, misc, mm);     /* perfdata/kernel.c */
	if (cpumode == PERF_RECORD_MISC_GUEST_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_USER)
		return 0;
	if (mm->len == 0 || n >= sizeof(path))
		return 0;
	memcpy(path, mm->filename, n);
	path[n] = '\0';
	if (pd_jit_path(misc, mm, path, path, sizeof(path))) {
		/* a JIT map; identity addresses (pgoff = start) */
		struct pd_file_ino noino = { 0, 0, 0, 0 };

		d = pd_machine_dso(&c->m, path, bid, 0, &noino);
		return d < 0 ? (int)d : map_dso(c, mm, (uint32_t)d, mm->start, 0);
	}
	if (!strcmp(path, "[vdso]") && (d = note_vdso(c, mm->start, mm->len)) < 0)
		return (int)d;
	if (skip_filename(path, n))
		return 0;
	if (mm->build_id) {
		bid_size = mm->build_id_size > PD_BUILD_ID_MAX ? PD_BUILD_ID_MAX : mm->build_id_size;
		bid = mm->build_id;
		if (all_zero(bid, bid_size)) {
			bid = none;
			bid_size = 0;
		}
	}
	data = mm->is_mmap2 ? !(mm->prot & PROT_EXEC) && (misc & PERF_RECORD_MISC_MMAP_DATA)
			    : !!(misc & PERF_RECORD_MISC_MMAP_DATA);
	{
		/* MMAP2 without build-id names the file by device and inode
		 * (include/uapi/linux/perf_event.h); 0/0/0 means unknown */
		struct pd_file_ino ino = { mm->maj, mm->min, mm->ino,
					   mm->is_mmap2 && !mm->build_id && (mm->ino || mm->maj || mm->min) };

		d = pd_machine_dso(&c->m, path, bid, bid_size, &ino);
	}
	return d < 0 ? (int)d : map_dso(c, mm, (uint32_t)d, mm->pgoff, data);
}

/* Do all attrs parse PREFIX_FIELDS alike (same sample_type bits there,
 * same read_format with READ, same HW_INDEX with BRANCH_STACK)? Then any
 * attr's parse serves, as for a single attr. */
static void update_prefix_same(struct col *c)
{
	size_t n, i;
	const struct pd_attr *a = pd_attrs(c->rd, &n);

	if (n == c->attrs_seen)
		return;
	c->attrs_seen = n;
	c->prefix_same = 1;
	for (i = 1; i < n; i++)
		if ((a[i].sample_type & PREFIX_FIELDS) != (a[0].sample_type & PREFIX_FIELDS) ||
		    ((a[i].sample_type & PERF_SAMPLE_READ) && a[i].read_format != a[0].read_format) ||
		    ((a[i].sample_type & PERF_SAMPLE_BRANCH_STACK) &&
		     ((a[i].branch_sample_type ^ a[0].branch_sample_type) & PERF_SAMPLE_BRANCH_HW_INDEX)))
			c->prefix_same = 0;
}

#define CTX_USER ((uint64_t)PERF_CONTEXT_USER)
#define CTX_MAX  ((uint64_t)PERF_CONTEXT_MAX)

/* The kernel addresses of a SAMPLE (perfdata/kernel.h): the ip in
 * kernel cpumode, callchain entries after PERF_CONTEXT_KERNEL, and every
 * code or data address in the upper half (a superset of perf's kernel
 * lookups, whatever cpumode perf resolves branch or data addresses in). */
static int kernel_sample(struct col *c, const struct pd_sample *s)
{
	struct pd_kernel *k = &c->res.kern;
	uint64_t i;
	int ret, kern = 0;

	if (s->cpumode == PERF_RECORD_MISC_GUEST_KERNEL || s->cpumode == PERF_RECORD_MISC_GUEST_USER) {
		k->nr_guest++;
		return 0;
	}
	if ((s->have & PERF_SAMPLE_IP) && (s->cpumode == PERF_RECORD_MISC_KERNEL || s->ip >= PD_KERNEL_HALF) &&
	    (ret = pd_kernel_addr(k, s->ip)) < 0)
		return ret;
	if ((s->have & PERF_SAMPLE_ADDR) && s->addr >= PD_KERNEL_HALF && (ret = pd_kernel_addr(k, s->addr)) < 0)
		return ret;
	if (s->have & PERF_SAMPLE_CALLCHAIN)
		for (i = 0; i < s->callchain_nr; i++) {
			uint64_t v = pd_u64(s->callchain, i);

			if (v >= (uint64_t)PERF_CONTEXT_MAX) {
				kern = v == (uint64_t)PERF_CONTEXT_KERNEL;
				continue;
			}
			if ((kern || v >= PD_KERNEL_HALF) && (ret = pd_kernel_addr(k, v)) < 0)
				return ret;
		}
	if (s->have & PERF_SAMPLE_BRANCH_STACK)
		for (i = 0; i < 2 * s->branch_nr; i++) {
			uint64_t v = pd_u64(s->branch, 3 * (i / 2) + (i & 1));

			if (v >= PD_KERNEL_HALF && (ret = pd_kernel_addr(k, v)) < 0)
				return ret;
		}
	return 0;
}

/* A SAMPLE: which user addresses perf will look up (perfdata.h). */
static int do_sample(struct col *c, const struct pd_record *rec)
{
	const struct pd_sample *s = &rec->sample;
	int32_t tid = -1;	/* the (tid, ip) key; -1: no TID field */
	uint64_t i;
	int ret;

	c->res.nr_samples++;
	update_prefix_same(c);
	if (s->id_unknown && !c->prefix_same) {	/* perf drops these too */
		c->res.nr_skipped_samples++;
		return 0;
	}
	if (s->broken & PREFIX_FIELDS) {
		seterr(c, "SAMPLE record at offset %#" PRIx64 " (size %u) is shorter than its sample_type %#" PRIx64 " needs",
		       rec->offset, rec->size, s->attr->sample_type);
		return -EINVAL;
	}
	if (s->have & PERF_SAMPLE_TID) {
		tid = s->tid;
		if (!pd_machine_thread(&c->m, s->pid, tid))
			return -ENOMEM;
	}
	if (pd_unwind_kind(s, NULL) != PD_UW_NONE)	/* its dump: pd_unwind_pass */
		c->nr_unwind++;
	if ((s->have & PERF_SAMPLE_ADDR) && (ret = ip_add(c, tid, s->addr, IP_ADDR)) < 0)
		return ret;
	if ((s->have & PERF_SAMPLE_IP) && s->cpumode == PERF_RECORD_MISC_USER &&
	    (ret = ip_add(c, tid, s->ip, IP_CODE)) < 0)
		return ret;
	if ((ret = kernel_sample(c, s)) < 0)     /* kallsyms' addresses */
		return ret;
	if (s->have & PERF_SAMPLE_CALLCHAIN) {
		/* Entries before the first marker are treated as user, like
		 * perf's resolver, which starts in USER mode (superset). */
		int user = 1;

		for (i = 0; i < s->callchain_nr; i++) {
			uint64_t v = pd_u64(s->callchain, i);

			if (v >= CTX_MAX) {
				user = v == CTX_USER;
				continue;
			}
			if (user && (ret = ip_add(c, tid, v, IP_CODE)) < 0)
				return ret;
		}
	}
	if (s->have & PERF_SAMPLE_BRANCH_STACK)
		for (i = 0; i < s->branch_nr; i++)
			if ((ret = ip_add(c, tid, pd_u64(s->branch, 3 * i), IP_CODE)) < 0 ||
			    (ret = ip_add(c, tid, pd_u64(s->branch, 3 * i + 1), IP_CODE)) < 0)
				return ret;
	return 0;
}

static int do_record(struct col *c, const struct pd_record *rec)
{
	if (rec->in_feature)
		return rec->kind == PD_K_BUILD_ID ? do_build_id(c, &rec->build_id) : 0;
	c->res.nr_records++;
	if (!((rec->type >= 1 && rec->type < PERF_RECORD_MAX) ||
	      (rec->type >= PD_REC_USER_FIRST && rec->type <= PD_REC_USER_LAST)))
		c->res.nr_unknown_records++;
	switch (rec->kind) {
	case PD_K_SAMPLE:
		return do_sample(c, rec);
	case PD_K_MMAP:
		return do_mmap(c, rec->misc, &rec->mmap);
	case PD_K_FORK:
		return pd_machine_fork(&c->m, rec->fork.pid, rec->fork.ppid, rec->fork.tid,
				       rec->fork.ptid);
	case PD_K_COMM:
		/* superset rule: exec never removes mappings */
		return pd_machine_thread(&c->m, rec->comm.pid, rec->comm.tid) ? 0 : -ENOMEM;
	case PD_K_EXIT:
		return pd_machine_thread(&c->m, rec->fork.pid, rec->fork.tid) ? 0 : -ENOMEM;
	case PD_K_BUILD_ID:
		return do_build_id(c, &rec->build_id);
	default:
		return 0;
	}
}

/* ------------------------------------------ DWARF-unwound callchains */

static int unwind_add(void *ctx, int32_t tid, uint64_t ip)
{
	return ip_add(ctx, tid, ip, IP_CODE);
}

static int unwind_unsure(void *ctx, int32_t tid, enum pd_unsure why)
{
	struct col *c = ctx;
	size_t i;

	for (i = 0; i < c->nr_unsure; i++)
		if (c->unsure[i].tid == tid)
			return 0;
	if (pd_grow((void **)&c->unsure, &c->alloc_unsure, c->nr_unsure + 1, sizeof(*c->unsure)) < 0)
		return -ENOMEM;
	c->unsure[c->nr_unsure].tid = tid;
	c->unsure[c->nr_unsure++].why = why;
	return 0;
}

/* Every DSO an unsure thread can reach gets the reason. */
static int mark_unsure(struct col *c)
{
	size_t i, q, k, nl;
	const uint32_t *list;

	for (i = 0; i < c->nr_unsure; i++) {
		nl = pd_machine_threads_of(&c->m, c->unsure[i].tid, &list);
		for (q = 0; q < nl; q++) {
			const struct pd_thread *t = &c->m.threads[list[q]];

			for (k = 0; k < t->nr_maps; k++) {
				uint32_t d = t->maps[k].dso;

				if (d < c->alloc_addrs && !c->addrs[d].unsure)
					c->addrs[d].unsure = c->unsure[i].why;
			}
		}
	}
	return 0;
}

/* Second pass over @path for the stack dumps of DWARF samples (perfdata/unwind.h):
 * their candidates join the (tid, ip) set before resolve_all. */
static int collect_unwind(struct col *c, const char *path)
{
	struct pd_unwind_stats st;
	int rc = 0;

	memset(&st, 0, sizeof(st));
	if (!c->nr_unwind)
		return 0;
	if ((rc = pd_machine_prepare(&c->m)) < 0)
		return rc;
	switch (c->unwind_mode) {
	case PD_UNWIND_HYBRID: {
		/* the build-id perf.data records per machine DSO, for the replay's
		 * file check */
		size_t i, nd = c->m.nr_dsos;
		unsigned char (*ids)[20] = calloc(nd ? nd : 1, sizeof(*ids));
		unsigned *sizes = calloc(nd ? nd : 1, sizeof(*sizes));
		struct pd_unwind_env env = { (const unsigned char (*)[20])ids, sizes, c->vdso,
					     c->nr_vdso };

		if (!ids || !sizes) {
			free(ids);
			free(sizes);
			return -ENOMEM;
		}
		for (i = 0; i < nd; i++) {
			const struct pd_machine_dso *d = &c->m.dsos[i];
			const struct bidname *b;

			if (d->build_id_size) {
				memcpy(ids[i], d->build_id, d->build_id_size);
				sizes[i] = d->build_id_size;
			} else if ((b = bid_find(c, d->path)) != NULL) {
				memcpy(ids[i], b->id, b->size);
				sizes[i] = b->size;
			}
		}
		rc = pd_unwind_hybrid_pass(path, &c->m, &env, unwind_add, unwind_unsure, c, &st,
					   &c->res.unwind.scanned_samples, c->err, c->errsz);
		free(ids);
		free(sizes);
		break;
	}
	case PD_UNWIND_REPLAY:
		rc = pd_unwind_replay_pass(path, &c->m, unwind_add, unwind_unsure, c, &st, c->err,
					   c->errsz);
		break;
	case PD_UNWIND_BOTH: {
		struct pd_unwind_stats rs;

		rc = pd_unwind_replay_pass(path, &c->m, unwind_add, unwind_unsure, c, &rs, c->err,
					   c->errsz);
		if (rc < 0)
			break;
	}
		__attribute__((fallthrough));
	default:
		rc = pd_unwind_pass(path, &c->m, unwind_add, unwind_unsure, c, &st, c->err, c->errsz);
		c->res.unwind.scanned_samples = st.samples;
		break;
	}
	c->res.unwind.samples = st.samples;
	c->res.unwind.unsure_samples = st.unsure_samples;
	c->res.unwind.stack_bytes = st.stack_bytes;
	c->res.unwind.windows = st.windows;
	c->res.unwind.candidates = st.candidates;
	if (rc < 0)
		return rc;
	return mark_unsure(c);
}

/* ------------------------------------------------------------- results */

static int cmp_ipent(const void *a, const void *b)
{
	const struct ipent *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

static int add_file_offset(void *ctx, const struct pd_map *map, uint64_t ip)
{
	struct addrset *a = &((struct col *)ctx)->addrs[map->dso];
	uint64_t off = ip - map->start + map->pgoff;

	if (a->n && a->v[a->n - 1] == off)
		return 0;
	if (pd_grow((void **)&a->v, &a->alloc, a->n + 1, sizeof(*a->v)) < 0)
		return -ENOMEM;
	a->v[a->n++] = off;
	return 0;
}

static int resolve_all(struct col *c)
{
	size_t i, k, j, q, nl;
	const uint32_t *list;
	int ret;

	if ((ret = pd_machine_prepare(&c->m)) < 0)
		return ret;
	pd_htab_free(&c->ip_tab);	/* the array is no longer a hash table */
	if (c->nr_ips > 1)
		qsort(c->ips, c->nr_ips, sizeof(*c->ips), cmp_ipent);
	for (i = 0; i < c->nr_ips; i = k) {
		int32_t tid = c->ips[i].tid;

		for (k = i; k < c->nr_ips && c->ips[k].tid == tid; k++)
			;
		nl = pd_machine_threads_of(&c->m, tid, &list);
		for (j = i; j < k; j++)
			for (q = 0; q < nl; q++)
				if ((ret = pd_machine_resolve(&c->m, list[q], c->ips[j].ip,
							      add_file_offset, c)) < 0)
					return ret;
	}
	return 0;
}

static int cmp_dso_path(const void *a, const void *b)
{
	const struct pd_dso *x = a, *y = b;
	int r = strcmp(x->path, y->path);

	if (r)
		return r;
	if (x->build_id_size != y->build_id_size)
		return x->build_id_size < y->build_id_size ? -1 : 1;
	return memcmp(x->build_id, y->build_id, x->build_id_size);
}

static int file_build_id(const struct elf_ops *ops, const char *path, unsigned char *out)
{
	struct stat st;
	Elf *e;
	int fd, n;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return -ENOENT;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ops->elf_version)
		ops->elf_version(EV_CURRENT);
	e = ops->elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e) {
		close(fd);
		return -EINVAL;
	}
	n = elf_read_build_id(ops, e, out, PD_BUILD_ID_MAX);
	ops->elf_end(e);
	close(fd);
	return n;
}

/* Turn the machine's DSOs with addresses into c->res.dsos: build-id from
 * MMAP2, else HEADER_BUILD_ID, else the file's own note (@ops); DSOs with
 * one build-id (one file, two paths) merged. */
static int build_result(struct col *c, const struct elf_ops *ops)
{
	size_t i, j, n = 0, nd = c->m.nr_dsos;
	struct pd_dso *out;

	out = calloc(nd ? nd : 1, sizeof(*out));
	if (!out)
		return -ENOMEM;
	c->res.dsos = out;
	for (i = 0; i < nd && i < c->alloc_addrs; i++) {
		struct pd_machine_dso *d = &c->m.dsos[i];
		struct addrset *a = &c->addrs[i];
		struct pd_dso *o;

		if (!a->n && !a->unsure)
			continue;
		if (!strncmp(d->path, "/tmp/perf-", 10)) {      /* a JIT DSO: served from its perf map */
			struct pd_dso *jt;
			size_t alloc = c->res.nr_jit;

			if (pd_grow((void **)&c->res.jit, &alloc, c->res.nr_jit + 1, sizeof(*c->res.jit)) < 0)
				return -ENOMEM;
			jt = &c->res.jit[c->res.nr_jit++];
			memset(jt, 0, sizeof(*jt));
			jt->path = d->path;
			d->path = NULL;
			jt->addrs = a->v;
			jt->nr_addrs = sl_sort_unique_u64(a->v, a->n);
			jt->alloc_addrs = a->alloc;
			memset(a, 0, sizeof(*a));
			continue;
		}
		o = &out[n];
		o->unsure = a->unsure;
		if (d->build_id_size) {
			memcpy(o->build_id, d->build_id, d->build_id_size);
			o->build_id_size = d->build_id_size;
		} else {
			const struct bidname *b = bid_find(c, d->path);

			if (b) {
				memcpy(o->build_id, b->id, b->size);
				o->build_id_size = b->size;
			} else if (ops) {
				int k = d->path[0] == '[' ? -ENOENT : file_build_id(ops, d->path, o->build_id);

				o->build_id_size = k > 0 ? (unsigned)k : 0;
			}
		}
		for (j = 0; o->build_id_size && j < n; j++)
			if (out[j].build_id_size == o->build_id_size &&
			    !memcmp(out[j].build_id, o->build_id, o->build_id_size))
				break;
		if (o->build_id_size && j < n) {
			struct pd_dso *t = &out[j];

			if (a->n && pd_grow((void **)&t->addrs, &t->alloc_addrs, t->nr_addrs + a->n,
					    sizeof(*t->addrs)) < 0)
				return -ENOMEM;
			if (a->n)       /* a->v is NULL for a DSO with no address */
				memcpy(t->addrs + t->nr_addrs, a->v, a->n * sizeof(*a->v));
			t->nr_addrs += a->n;
			if (!t->unsure)
				t->unsure = a->unsure;
			memset(o, 0, sizeof(*o));
			continue;
		}
		o->path = d->path;
		d->path = NULL;
		o->maj = d->ino.maj;
		o->min = d->ino.min;
		o->ino = d->ino.ino;
		o->have_ino = d->ino.valid;
		o->addrs = a->v;
		o->nr_addrs = a->n;
		o->alloc_addrs = a->alloc;
		memset(a, 0, sizeof(*a));
		n++;
	}
	c->res.nr_dsos = n;
	for (i = 0; i < n; i++)
		out[i].nr_addrs = sl_sort_unique_u64(out[i].addrs, out[i].nr_addrs);
	qsort(out, n, sizeof(*out), cmp_dso_path);
	return 0;
}

static void col_free(struct col *c)
{
	size_t i;

	pd_close(c->rd);
	pd_machine_free(&c->m);
	free(c->ips);
	pd_htab_free(&c->ip_tab);
	for (i = 0; i < c->nr_bids; i++)
		free(c->bids[i].path);
	free(c->bids);
	pd_htab_free(&c->bid_tab);
	for (i = 0; i < c->alloc_addrs; i++)
		free(c->addrs[i].v);
	free(c->addrs);
	free(c->unsure);
	free(c->vdso);
	perfdata_free(&c->res);
}

/* --------------------------------------------------------------- main */

int perfdata_input_ok(const char *path)
{
	return pd_probe(path) != 0;
}

int perfdata_read(const char *path, const struct elf_ops *ops, struct pd_result *out,
		  char *err, size_t errsz)
{
	return perfdata_read_unwind(path, ops, PD_UNWIND_HYBRID, out, err, errsz);
}

int perfdata_read_unwind(const char *path, const struct elf_ops *ops, int unwind_mode,
			 struct pd_result *out, char *err, size_t errsz)
{
	struct col c;
	struct pd_record rec;
	enum pd_unsupported why = PD_UNSUP_NONE;
	const struct pd_attr *a;
	size_t na, i;
	int rc;

	memset(out, 0, sizeof(*out));
	if (err && errsz)
		err[0] = '\0';
	memset(&c, 0, sizeof(c));
	c.err = err;
	c.errsz = errsz;
	c.unwind_mode = unwind_mode;
	if ((rc = pd_machine_init(&c.m)) < 0)
		goto out;
	if ((rc = pd_open(&c.rd, path, &why, err, errsz)) < 0)
		goto out;
	while ((rc = pd_next(c.rd, &rec)) > 0)
		if ((rc = do_record(&c, &rec)) < 0)
			goto out;
	if (rc < 0)
		goto out;
	a = pd_attrs(c.rd, &na);
	for (i = 0; i < na; i++) {
		if ((a[i].sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)) ==
		    (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER))
			c.res.flags |= PD_F_DWARF_UNWIND;
		if (a[i].branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK)
			c.res.flags |= PD_F_LBR_CALLSTACK;
	}
	c.res.data_bytes = pd_data_bytes(c.rd);
	c.res.decompressed_bytes = pd_decompressed_bytes(c.rd);
	if ((rc = collect_unwind(&c, path)) < 0 || (rc = resolve_all(&c)) < 0 ||
	    (rc = build_result(&c, ops)) < 0)
		goto out;
	if (!c.res.nr_samples)
		c.res.flags |= PD_F_NO_SAMPLES;
	if ((rc = pd_kernel_finish(&c.res.kern)) < 0)
		goto out;
	*out = c.res;
	memset(&c.res, 0, sizeof(c.res));
out:
	if (rc == -ENOMEM && err && errsz && !err[0])
		snprintf(err, errsz, "out of memory");
	if (rc < 0)	/* only the flags that explain -ENOTSUP; nothing to free */
		out->flags = rc != -ENOTSUP ? 0 :
			     why == PD_UNSUP_NOT_FILE ? PD_F_PIPE :
			     why == PD_UNSUP_FOREIGN_ENDIAN ? PD_F_FOREIGN_ENDIAN : 0;
	col_free(&c);
	return rc;
}
