/* SPDX-License-Identifier: MIT */
/*
 * perfdata/unwind.c - which addresses perf 6.1 looks up for a DWARF-unwound
 * sample (see perfdata/unwind.h), without unwinding.
 *
 * ---- What perf does (tools/perf/util/unwind-libunwind-local.c, 6.1) ----
 * Debian's perf 6.1 unwinds with libunwind 1.6 (`perf version
 * --build-options`: libunwind on; it imports _Ux86_64_init_remote,
 * _Ux86_64_step, _Ux86_64_get_reg, _Ux86_64_is_signal_frame).
 * machine.c thread__resolve_callchain_unwind calls it when the attr has
 * REGS_USER and STACK_USER, the sample has registers and a dump of
 * user_stack.size = dyn_size bytes (evsel.c). get_entries then:
 *   ips[0] = the sampled IP register;
 *   unw_init_remote() with perf's accessors, then while unw_step() > 0 and
 *   i < max_stack: ips[i] = unw_get_reg(UNW_REG_IP), minus 1 unless
 *   unw_is_signal_frame();
 *   every non-zero ips[i] goes through entry() -> thread__find_symbol()
 *   in the sample's thread: these are the symbol lookups.
 * The accessors: access_reg returns sampled user registers (nothing else);
 * access_mem returns the dump word at addr - SP for addr in
 * [SP, SP + size - 8), and for any other addr access_dso_mem: the bytes of
 * the file of the thread's map containing addr (dso__data_read_addr), or
 * failure; find_proc_info finds .eh_frame_hdr of the IP's DSO (libunwind
 * then reads the table, FDEs and CIEs through access_mem, i.e. from the
 * file); writes are ignored.
 *
 * ---- Why the set of perfdata/unwind.h contains every ips[i] ----
 * ips[0] is a sampled register. For i >= 1, libunwind 1.6 x86_64 unw_step
 * (src/x86_64/Gstep.c, src/dwarf/Gparser.c) computes the new IP as the
 * content of loc[RIP], a location that is one of:
 *   (a) a register location: access_reg, a sampled register (DW_CFA_register
 *       and DW_CFA_same_value chains end at one), or a location restored by
 *       an earlier step, i.e. one of (b);
 *   (b) a memory location at CFA + N (DW_CFA_offset and friends, the CIE's
 *       default RA rule), at an address computed by a DWARF expression
 *       (DW_CFA_expression: glibc's __restore_rt and the vDSO's sigreturn
 *       read the interrupted RIP out of the ucontext on the stack), at
 *       CFA + 8 / RSP for PLT stubs and the "invalid previous RIP" fixup,
 *       at RBP + 8 in the frame-chain fallback (only for RBP in
 *       [CFA, CFA + 0x4000]), or in the signal frame's ucontext
 *       (x86_64_handle_signal_frame: RSP + offsets);
 *   (c) a value location (DW_CFA_val_offset / val_expression).
 * A memory location inside the dump reads a window of the dump at offset
 * addr - SP, which need not be 8-aligned: we take every byte offset, so
 * alignment is not assumed. The bases of (b) are CFA, RSP and RBP of the
 * frames being unwound: stack addresses, the CFA being derived from the
 * sampled SP by CFA rules (register + offset). A stack address outside
 * the dump is beyond the copied part of the stack; the stack is anonymous
 * memory, which perf has no map for (MMAP2 records name files; perf
 * record -d adds [stack] and //anon maps, whose "files" cannot be read),
 * so access_dso_mem fails there and unw_step() stops: nothing is looked
 * up. So a memory RA comes from the dump.
 * What access_dso_mem reads could add: a file word read as a register
 * value needs a location inside a file mapping, i.e. a DWARF rule or
 * expression whose base is not a stack address, or a stack that ends
 * within the frame-chain fallback's 16 KiB of a file mapping. Neither is
 * emitted by gcc, clang or rustc, nor by glibc's or the kernel's
 * hand-written CFI (signal trampolines read the stack). The file reads
 * that do happen - .eh_frame_hdr, FDEs, CIEs, the instruction bytes
 * unw_is_signal_frame() and is_plt_entry() compare with fixed patterns -
 * decide rules, not values.
 * (c) would make CFA + N or an expression's value the RA: no compiler or
 * libc CFI defines the RA column that way (values are for CFA-like
 * registers such as RSP, which never become IPs except through (a)).
 * The "- 1" is applied to every value (w and w - 1 both go in), max_stack
 * and unw_step() stopping early only remove lookups, zero ips are never
 * looked up, and perf resolves every ips[i] through the maps of the
 * sample's thread, which pd_machine_threads_of over-approximates.
 * Registers of an ABI other than 64-bit are left to the caller
 * (PD_UW_UNSURE): perf would hand them to another unwinder.
 *
 * The scan: every value is first tested against the high 32 bits of the
 * reachable intervals (a handful of 4 GiB regions hold every user mapping:
 * an 8 KiB bitmap of bits 32..47 when all lie below 2^48, else a list),
 * then by binary search.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "perfdata/htab.h"
#include "perfdata/unwind.h"
#include "util/util.h"

#define REGS_AND_STACK (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)

enum pd_unwind_kind pd_unwind_kind(const struct pd_sample *s, enum pd_unsure *why)
{
	if (why)
		*why = PD_UNSURE_NONE;
	if ((s->attr->sample_type & REGS_AND_STACK) != REGS_AND_STACK ||
	    (s->have & REGS_AND_STACK) != REGS_AND_STACK)
		return PD_UW_NONE;
	if (!s->user_regs.abi || !s->user_stack.dyn_size || !s->user_stack.data)
		return PD_UW_NONE;
	if (s->user_regs.abi != PERF_SAMPLE_REGS_ABI_64) {
		if (why)
			*why = PD_UNSURE_REGS_ABI;
		return PD_UW_UNSURE;
	}
	return PD_UW_SCAN;
}

/* ------------------------------------------------------------ intervals */

#define HI_MAX 8	/* distinct high halves before the prefilter gives up */

struct reach {
	int32_t tid;
	int valid;
	uint64_t *iv;		/* [start, end) pairs, sorted, merged */
	size_t nr, alloc;	/* pairs */
	uint32_t hi[HI_MAX];
	unsigned nhi;		/* HI_MAX + 1: no prefilter */
	/* bit b set: some interval touches [b << 32, (b + 1) << 32); used when
	 * every high half is below 2^16 (user space: addresses < 2^48) */
	uint8_t *bits;		/* 8 KiB, NULL if not usable */
};

static int in_iv(const uint64_t *iv, size_t nr, uint64_t v)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {	/* first interval whose end > v */
		size_t mid = lo + (hi - lo) / 2;

		if (iv[2 * mid + 1] > v)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo < nr && iv[2 * lo] <= v;
}

static void add_hi(uint32_t *hi, unsigned *nhi, uint64_t a, uint64_t b)
{
	uint64_t h;
	unsigned k;

	for (h = a >> 32; h <= b >> 32 && *nhi <= HI_MAX; h++) {
		for (k = 0; k < *nhi && hi[k] != (uint32_t)h; k++)
			;
		if (k == *nhi) {
			if (*nhi == HI_MAX) {
				*nhi = HI_MAX + 1;
				return;
			}
			hi[(*nhi)++] = (uint32_t)h;
		}
		if (h == UINT32_MAX)
			break;
	}
}

static int report(const uint64_t *iv, size_t nr, uint64_t v, int32_t tid, pd_unwind_add_fn add,
		  void *ctx, struct pd_unwind_stats *st)
{
	int rc;

	if (in_iv(iv, nr, v)) {
		if (st)
			st->candidates++;
		if ((rc = add(ctx, tid, v)) != 0)
			return rc;
	}
	if (v && in_iv(iv, nr, v - 1)) {
		if (st)
			st->candidates++;
		if ((rc = add(ctx, tid, v - 1)) != 0)
			return rc;
	}
	return 0;
}

static int scan(const struct reach *r, const unsigned char *regs, size_t nregs,
		const unsigned char *stack, size_t len, int32_t tid, pd_unwind_add_fn add,
		void *ctx, struct pd_unwind_stats *st)
{
	const uint64_t *iv = r->iv;
	size_t nr = r->nr, j;
	uint64_t lo, hi;
	int rc;

	if (!nr)
		return 0;
	lo = iv[0];
	hi = iv[2 * nr - 1];	/* v in [lo, hi] can hit: v itself or v - 1 */
	if (st) {
		st->windows += nregs + (len >= 8 ? len - 7 : 0);
		st->stack_bytes += len;
	}
	for (j = 0; j < nregs; j++) {
		uint64_t v = pd_u64(regs, j);

		if (v >= lo && v <= hi && (rc = report(iv, nr, v, tid, add, ctx, st)) != 0)
			return rc;
	}
	if (len < 8)
		return 0;
	if (r->bits) {
		const uint8_t *b = r->bits;

		for (j = 0; j + 8 <= len; j++) {
			uint32_t top;
			uint64_t v;

			memcpy(&top, stack + j + 4, 4);
			if (top >> 16 || !(b[top >> 3] & (1u << (top & 7))))
				continue;
			memcpy(&v, stack + j, 8);
			if (v >= lo && v <= hi && (rc = report(iv, nr, v, tid, add, ctx, st)) != 0)
				return rc;
		}
		return 0;
	}
	if (r->nhi <= HI_MAX) {
		const uint32_t *h = r->hi;
		unsigned nh = r->nhi, k;

		for (j = 0; j + 8 <= len; j++) {
			uint32_t top;
			uint64_t v;

			memcpy(&top, stack + j + 4, 4);
			for (k = 0; k < nh && h[k] != top; k++)
				;
			if (k == nh)
				continue;
			memcpy(&v, stack + j, 8);
			if (v >= lo && v <= hi && (rc = report(iv, nr, v, tid, add, ctx, st)) != 0)
				return rc;
		}
		return 0;
	}
	for (j = 0; j + 8 <= len; j++) {
		uint64_t v;

		memcpy(&v, stack + j, 8);
		if (v >= lo && v <= hi && (rc = report(iv, nr, v, tid, add, ctx, st)) != 0)
			return rc;
	}
	return 0;
}

static void reach_hi(struct reach *r)
{
	size_t k;
	unsigned i;

	r->nhi = 0;
	for (k = 0; k < r->nr && r->nhi <= HI_MAX; k++)
		add_hi(r->hi, &r->nhi, r->iv[2 * k], r->iv[2 * k + 1]);	/* end too: v = end, v - 1 */
	if (r->bits && r->nhi <= HI_MAX) {
		memset(r->bits, 0, 8192);
		for (i = 0; i < r->nhi; i++) {
			if (r->hi[i] >> 16) {
				free(r->bits);
				r->bits = NULL;
				return;
			}
			r->bits[r->hi[i] >> 3] |= (uint8_t)(1u << (r->hi[i] & 7));
		}
	} else if (r->bits) {
		free(r->bits);
		r->bits = NULL;
	}
}

int pd_unwind_scan(const uint64_t *iv, size_t nr, const unsigned char *regs, size_t nregs,
		   const unsigned char *stack, size_t len, int32_t tid, pd_unwind_add_fn add,
		   void *ctx, struct pd_unwind_stats *st)
{
	struct reach r;

	int rc;

	memset(&r, 0, sizeof(r));
	r.iv = (uint64_t *)iv;
	r.nr = nr;
	r.bits = malloc(8192);
	reach_hi(&r);
	rc = scan(&r, regs, nregs, stack, len, tid, add, ctx, st);
	free(r.bits);
	return rc;
}

static int cmp_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* The merged intervals of every map thread @tid reaches. */
static int reach_build(struct reach *r, struct pd_machine *m, int32_t tid)
{
	const uint32_t *list;
	size_t nl = pd_machine_threads_of(m, tid, &list), q, k, n = 0, o;

	for (q = 0; q < nl; q++)
		n += m->threads[list[q]].nr_maps;
	r->tid = tid;
	r->valid = 0;
	r->nr = 0;
	if (pd_grow((void **)&r->iv, &r->alloc, 2 * (n ? n : 1), sizeof(*r->iv)) < 0)
		return -ENOMEM;
	for (q = 0; q < nl; q++) {
		const struct pd_thread *t = &m->threads[list[q]];

		for (k = 0; k < t->nr_maps; k++) {
			if (t->maps[k].end <= t->maps[k].start)
				continue;
			r->iv[2 * r->nr] = t->maps[k].start;
			r->iv[2 * r->nr + 1] = t->maps[k].end;
			r->nr++;
		}
	}
	if (r->nr > 1)
		qsort(r->iv, r->nr, 2 * sizeof(*r->iv), cmp_pair);
	for (k = 0, o = 0; k < r->nr; k++) {
		if (o && r->iv[2 * k] <= r->iv[2 * o - 1]) {
			if (r->iv[2 * k + 1] > r->iv[2 * o - 1])
				r->iv[2 * o - 1] = r->iv[2 * k + 1];
			continue;
		}
		r->iv[2 * o] = r->iv[2 * k];
		r->iv[2 * o + 1] = r->iv[2 * k + 1];
		o++;
	}
	r->nr = o;
	if (!r->bits)
		r->bits = malloc(8192);	/* NULL: the slower prefilter serves */
	reach_hi(r);
	r->valid = 1;
	return 0;
}

/* ----------------------------------------------------------------- pass */

#define REACH_CACHE 16

struct pass {
	struct pd_machine *m;
	struct reach cache[REACH_CACHE];
	unsigned next;
};

static struct reach *reach_get(struct pass *p, int32_t tid, int *rc)
{
	unsigned i;
	struct reach *r;

	for (i = 0; i < REACH_CACHE; i++)
		if (p->cache[i].valid && p->cache[i].tid == tid)
			return &p->cache[i];
	r = &p->cache[p->next];
	p->next = (p->next + 1) % REACH_CACHE;
	*rc = reach_build(r, p->m, tid);
	return *rc < 0 ? NULL : r;
}

struct pd_unwind_scanner {
	struct pass p;
};

struct pd_unwind_scanner *pd_unwind_scanner_new(struct pd_machine *m)
{
	struct pd_unwind_scanner *sc = calloc(1, sizeof(*sc));

	if (sc)
		sc->p.m = m;
	return sc;
}

int pd_unwind_scanner_sample(struct pd_unwind_scanner *sc, const struct pd_sample *s, int32_t tid,
			     pd_unwind_add_fn add, void *ctx, struct pd_unwind_stats *st)
{
	struct reach *r;
	int rc = 0;

	if (!(r = reach_get(&sc->p, tid, &rc)))
		return rc;
	return scan(r, s->user_regs.regs, s->user_regs.nr, s->user_stack.data,
		    (size_t)s->user_stack.dyn_size, tid, add, ctx, st);
}

void pd_unwind_scanner_free(struct pd_unwind_scanner *sc)
{
	unsigned i;

	if (!sc)
		return;
	for (i = 0; i < REACH_CACHE; i++) {
		free(sc->p.cache[i].iv);
		free(sc->p.cache[i].bits);
	}
	free(sc);
}

int pd_unwind_next(struct pd_reader *rd, struct pd_record *rec, pd_unwind_unsure_fn unsure, void *ctx,
		   struct pd_unwind_stats *st, int32_t *tid)
{
	int rc;

	while ((rc = pd_next(rd, rec)) > 0) {
		const struct pd_sample *s = &rec->sample;
		enum pd_unsure why;

		st->records++;
		if (rec->kind != PD_K_SAMPLE || rec->in_feature)
			continue;
		*tid = (s->have & PERF_SAMPLE_TID) ? s->tid : -1;
		switch (pd_unwind_kind(s, &why)) {
		case PD_UW_NONE:
			continue;
		case PD_UW_UNSURE:
			st->unsure_samples++;
			if ((rc = unsure(ctx, *tid, why)) < 0)
				return rc;
			continue;
		case PD_UW_SCAN:
			break;
		}
		st->samples++;
		return 1;
	}
	return rc;
}

int pd_unwind_pass(const char *path, struct pd_machine *m, pd_unwind_add_fn add,
		   pd_unwind_unsure_fn unsure, void *ctx, struct pd_unwind_stats *st,
		   char *err, size_t errsz)
{
	struct pass p;
	struct pd_reader *rd = NULL;
	struct pd_record rec;
	struct pd_unwind_stats local;
	unsigned i;
	int32_t tid;
	int rc;

	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	memset(&p, 0, sizeof(p));
	p.m = m;
	if ((rc = pd_open(&rd, path, NULL, err, errsz)) < 0)
		return rc;
	while ((rc = pd_unwind_next(rd, &rec, unsure, ctx, st, &tid)) > 0) {
		const struct pd_sample *s = &rec.sample;
		struct reach *r;

		if (!(r = reach_get(&p, tid, &rc)))
			goto out;
		rc = scan(r, s->user_regs.regs, s->user_regs.nr, s->user_stack.data,
			  (size_t)s->user_stack.dyn_size, tid, add, ctx, st);
		if (rc < 0)
			goto out;
	}
out:
	pd_close(rd);
	for (i = 0; i < REACH_CACHE; i++) {
		free(p.cache[i].iv);
		free(p.cache[i].bits);
	}
	return rc < 0 ? rc : 0;
}

enum sl_reason pd_unsure_reason(unsigned unsure)
{
	switch (unsure) {
	case PD_UNSURE_REGS_ABI:
		return SL_R_DWARF_REGS_ABI;
	default:
		return SL_R_UNMODELABLE;
	}
}
