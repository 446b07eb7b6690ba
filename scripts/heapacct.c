/* SPDX-License-Identifier: MIT */
/*
 * heapacct.c - a measuring aid (doc/perf.md), not part of libsymlazy.so: an
 * LD_PRELOAD malloc accountant that attributes the heap bytes live at the
 * process's peak to their call stacks.
 *
 *   cc -O2 -shared -fPIC -o build/bin/heapacct.so scripts/heapacct.c
 *   HEAPACCT_OUT=/tmp/h.txt LD_PRELOAD=build/bin/heapacct.so:libsymlazy.so perf script ...
 *   python3 scripts/heapacct.py /tmp/h.txt
 *
 * Every malloc/calloc/realloc/memalign/posix_memalign/aligned_alloc is
 * recorded with its size and a backtrace (glibc backtrace(), up to DEPTH
 * frames, this file's own frame dropped); free subtracts it again. Whenever
 * the live total exceeds the last snapshot by SNAP_STEP bytes, the live bytes
 * per stack are copied: at exit the snapshot of the highest live total is
 * written, one line per stack: "live_bytes count frame frame ...", each
 * frame "object+0xoffset" (object: the basename dladdr names), sorted by
 * live bytes; the header line "peak_live=N total_allocs=N". Requested
 * sizes, not malloc's chunk sizes (8-16 bytes of overhead per chunk and
 * fragmentation come on top in RssAnon).
 * Not thread-scalable (one spin lock), good enough for perf script.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <execinfo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEPTH 14
#define NSITES (1 << 17)
#define NPTRS (1 << 23)
#define SNAP_STEP (64 << 10)

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

struct site {
	uint64_t hash;
	int n;
	void *pc[DEPTH];
	long live, count;
};
struct ent {
	void *p;
	size_t size;
	uint32_t site;
};

static struct site *sites;
static long *snap;
static struct ent *ptrs;
static long live, peak, snap_at, allocs;
static int lock, ready;
static __thread int busy;

static void lk(void) { while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE)) ; }
static void ulk(void) { __atomic_store_n(&lock, 0, __ATOMIC_RELEASE); }

static uint32_t site_of(void **pc, int n)
{
	uint64_t h = 1469598103934665603ull;
	for (int i = 0; i < n; i++)
		h = (h ^ (uintptr_t)pc[i]) * 1099511628211ull;
	for (uint32_t i = h & (NSITES - 1), k = 0; k < NSITES; k++, i = (i + 1) & (NSITES - 1)) {
		struct site *s = &sites[i];
		if (!s->n) {
			s->hash = h;
			s->n = n;
			memcpy(s->pc, pc, n * sizeof(void *));
			return i;
		}
		if (s->hash == h && s->n == n && !memcmp(s->pc, pc, n * sizeof(void *)))
			return i;
	}
	return 0;
}

static struct ent *slot(void *p, int add)
{
	uintptr_t h = ((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull;
	for (size_t i = h >> (64 - 23), k = 0; k < NPTRS; k++, i = (i + 1) & (NPTRS - 1)) {
		struct ent *e = &ptrs[i];
		if (e->p == p)
			return e;
		if (!e->p)
			return add ? e : NULL;
	}
	return NULL;
}

/* linear probing with deletion: re-insert the run after a hole */
static void del(struct ent *e)
{
	size_t i = e - ptrs;
	e->p = NULL;
	for (size_t j = (i + 1) & (NPTRS - 1); ptrs[j].p; j = (j + 1) & (NPTRS - 1)) {
		struct ent t = ptrs[j];
		ptrs[j].p = NULL;
		*slot(t.p, 1) = t;
	}
}

static void note(void *p, size_t size)
{
	void *pc[DEPTH + 2];
	int n;

	if (!p || !ready || busy)
		return;
	busy = 1;
	n = backtrace(pc, DEPTH + 2);
	lk();
	uint32_t s = site_of(pc + 2, n > 2 ? n - 2 : 0);
	struct ent *e = slot(p, 1);
	if (e) {
		e->p = p;
		e->size = size;
		e->site = s;
		sites[s].live += size;
		sites[s].count++;
		live += size;
		allocs++;
		if (live > peak)
			peak = live;
		if (live > snap_at + SNAP_STEP) {
			snap_at = live;
			for (int i = 0; i < NSITES; i++)
				snap[i] = sites[i].live;
		}
	}
	ulk();
	busy = 0;
}

static void forget(void *p)
{
	if (!p || !ready)
		return;
	lk();
	struct ent *e = slot(p, 0);
	if (e) {
		sites[e->site].live -= e->size;
		live -= e->size;
		del(e);
	}
	ulk();
}

void *malloc(size_t n) { void *p = __libc_malloc(n); note(p, n); return p; }
void *calloc(size_t a, size_t b) { void *p = __libc_calloc(a, b); note(p, a * b); return p; }
void free(void *p) { forget(p); __libc_free(p); }
void *realloc(void *o, size_t n)
{
	forget(o);
	void *p = __libc_realloc(o, n);
	if (!p && o && n) {     /* failed: the old block stays */
		return NULL;
	}
	note(p, n);
	return p;
}
void *memalign(size_t a, size_t n) { void *p = __libc_memalign(a, n); note(p, n); return p; }
void *aligned_alloc(size_t a, size_t n) { return memalign(a, n); }
int posix_memalign(void **r, size_t a, size_t n)
{
	void *p = __libc_memalign(a, n);
	if (!p)
		return 12;
	note(p, n);
	*r = p;
	return 0;
}

static void frame(FILE *f, void *pc)
{
	Dl_info di;
	if (dladdr(pc, &di) && di.dli_fname) {
		const char *b = strrchr(di.dli_fname, '/');
		fprintf(f, " %s+0x%lx", b ? b + 1 : di.dli_fname,
			(unsigned long)((uintptr_t)pc - (uintptr_t)di.dli_fbase));
		if (di.dli_sname)
			fprintf(f, "(%s+0x%lx)", di.dli_sname,
				(unsigned long)((uintptr_t)pc - (uintptr_t)di.dli_saddr));
	} else
		fprintf(f, " ?+%p", pc);
}

__attribute__((constructor)) static void init(void)
{
	void *pc[2];

	busy = 1;
	backtrace(pc, 2);       /* loads libgcc_s now, not inside a malloc */
	sites = __libc_calloc(NSITES, sizeof(*sites));
	snap = __libc_calloc(NSITES, sizeof(*snap));
	ptrs = __libc_calloc(NPTRS, sizeof(*ptrs));
	ready = sites && snap && ptrs;
	busy = 0;
}

__attribute__((destructor)) static void fini(void)
{
	const char *o = getenv("HEAPACCT_OUT");
	FILE *f;

	if (!ready)
		return;
	busy = 1;
	f = fopen(o ? o : "/dev/stderr", "w");
	if (!f)
		return;
	fprintf(f, "peak_live=%ld snap_live=%ld total_allocs=%ld\n", peak, snap_at, allocs);
	for (int i = 0; i < NSITES; i++) {
		if (snap[i] <= 0)
			continue;
		fprintf(f, "%ld %ld", snap[i], sites[i].count);
		for (int k = 0; k < sites[i].n; k++)
			frame(f, sites[i].pc[k]);
		fputc('\n', f);
	}
	fclose(f);
}
