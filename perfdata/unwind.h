/* SPDX-License-Identifier: MIT */
/*
 * perfdata/unwind.h - the addresses perf 6.1 looks up for DWARF-unwound user
 * callchains (`perf record --call-graph dwarf`), as a set that contains
 * them: the second pass of the address collector (perfdata/perfdata.c).
 *
 * perf 6.1 (Debian: built with libunwind, tools/perf/util/
 * unwind-libunwind-local.c get_entries) looks up, per sample that has user
 * registers (ABI != NONE) and a non-empty user stack dump (dyn_size), the
 * user IP register and every IP libunwind steps to, the latter minus 1
 * unless libunwind calls the frame a signal frame. Which values those can
 * be, and why the set below contains every one of them, is argued at the
 * top of perfdata/unwind.c. The set, per sample of thread T:
 *   every sampled user register value, and every 8-byte little-endian
 *   window at every byte offset of the first dyn_size bytes of the dump,
 *   each as w and w - 1, that falls inside a mapping thread T can reach
 *   (pd_machine_threads_of: the same superset rule as for other IPs).
 * The pass needs the final maps (records are not time-ordered), so it
 * reads the input a second time after pd_machine_prepare(); memory stays
 * bounded (the reader's window, a small cache of per-thread intervals).
 *
 * The default source is the hybrid (pd_unwind_hybrid_pass): each sample is
 * first unwound with perf's own libunwind through perf-like accessors
 * (perfdata/unwind_replay.c, dlopen); when nothing in that replay can differ
 * from perf's (see pd_unwind_hybrid_pass) its lookups are exactly perf's,
 * else the sample is scanned as above. Measured here, the replay costs
 * about what the scan costs (both well under perf's own unwinding) and
 * gives the exact set; the scan alone keeps 2-7x the needed addresses.
 */
#ifndef SYMLAZY_PD_UNWIND_H
#define SYMLAZY_PD_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include "perfdata/machine.h"
#include "perfdata/record.h"
#include "util/reason.h"

/* Why a DSO's address set may miss a frame perf unwinds to: the DSO is
 * reachable by a thread with a sample the pass cannot bound. */
enum pd_unsure {
	PD_UNSURE_NONE = 0,
	PD_UNSURE_REGS_ABI,	/* user regs ABI other than 64-bit (32-bit task) */
};

/* What a sample asks of perf's unwinder. */
enum pd_unwind_kind {
	PD_UW_NONE = 0,		/* perf does not unwind it */
	PD_UW_SCAN,		/* perf unwinds it with x86_64 libunwind: scan */
	PD_UW_UNSURE,		/* perf may unwind it in a way the scan does not bound */
};

struct pd_unwind_stats {
	uint64_t samples;	/* samples scanned (PD_UW_SCAN) */
	uint64_t unsure_samples;/* PD_UW_UNSURE samples */
	uint64_t stack_bytes;	/* dump bytes scanned (dyn_size sums) */
	uint64_t windows;	/* values looked at (registers + windows) */
	uint64_t candidates;	/* values (w or w - 1) inside a reachable mapping */
	uint64_t records;	/* records read by the second pass */
};

/*
 * pd_unwind_kind - classify SAMPLE @s as perf 6.1 machine.c
 * thread__resolve_callchain_unwind and get_entries do: the attr has both
 * REGS_USER and STACK_USER, the sample has registers (abi != 0) and
 * user_stack.dyn_size != 0 (perf's user_stack.size). ABI 64 (2) scans;
 * any other ABI is PD_UW_UNSURE with *@why set (@why may be NULL).
 */
enum pd_unwind_kind pd_unwind_kind(const struct pd_sample *s, enum pd_unsure *why);

/* Called for a value perf may look up for thread @tid (-1: no TID field). */
typedef int (*pd_unwind_add_fn)(void *ctx, int32_t tid, uint64_t ip);
/* Called for a sample of thread @tid whose lookups the pass cannot bound. */
typedef int (*pd_unwind_unsure_fn)(void *ctx, int32_t tid, enum pd_unsure why);

/*
 * pd_unwind_pass - read @path again (pd_open/pd_next) and report, for
 * every sample perf unwinds, the values of the set above through @add
 * (repeats included; deduplicate in @add) and unsure samples through
 * @unsure. @m must be prepared (pd_machine_prepare) and gets no new
 * threads or maps. Returns 0 or a negative errno (reader errors with a
 * reason in @err, -ENOMEM, or the first negative @add/@unsure result).
 * @st (may be NULL) is filled in.
 */
int pd_unwind_pass(const char *path, struct pd_machine *m, pd_unwind_add_fn add,
		   pd_unwind_unsure_fn unsure, void *ctx, struct pd_unwind_stats *st,
		   char *err, size_t errsz);

/* pd_unwind_next - the next SAMPLE record of @rd that perf unwinds
 * (pd_unwind_kind PD_UW_SCAN) into @rec, for the passes that read the input
 * again: counts records and samples into @st and hands each PD_UW_UNSURE
 * sample to @unsure on the way. 1 with *@tid (-1: no PERF_SAMPLE_TID), 0 at
 * the end, or the negative result of pd_next (reason in the reader) or of
 * @unsure. */
int pd_unwind_next(struct pd_reader *rd, struct pd_record *rec, pd_unwind_unsure_fn unsure, void *ctx,
		   struct pd_unwind_stats *st, int32_t *tid);

/* The scan of one sample (pd_unwind_kind PD_UW_SCAN) with a cache of
 * per-thread intervals; for passes that scan some samples only. */
struct pd_unwind_scanner;
struct pd_unwind_scanner *pd_unwind_scanner_new(struct pd_machine *m);
int pd_unwind_scanner_sample(struct pd_unwind_scanner *sc, const struct pd_sample *s, int32_t tid,
			     pd_unwind_add_fn add, void *ctx, struct pd_unwind_stats *st);
void pd_unwind_scanner_free(struct pd_unwind_scanner *sc);

/* What the replay needs beyond the machine: per machine DSO the build-id
 * perf.data records for it (size 0: none known), and the address ranges of
 * every [vdso] mapping (perf can read the vDSO; the machine has no map for
 * it). Either may be empty. */
struct pd_unwind_env {
	const unsigned char (*ids)[20];	/* [m->nr_dsos] or NULL */
	const unsigned *id_sizes;
	const uint64_t *vdso;		/* [start, end) pairs */
	size_t nr_vdso;
};

/*
 * pd_unwind_hybrid_pass - the default DWARF source: every sample is
 * replayed (as pd_unwind_replay_pass) and the replay's lookups are used when
 * the replay provably did what perf does; otherwise - libunwind missing, a
 * map lookup the union of maps answers ambiguously or only through a FORK
 * ancestor, a read of a file whose build-id is unknown or differs from the
 * recorded one, an address in a [vDSO], the 127-entry stack limit reached -
 * the sample is scanned (pd_unwind_scanner_sample), whose set contains
 * perf's in every case (perfdata/unwind.c). @env may be NULL. st->samples
 * counts all unwound samples, st->windows the scanned values.
 */
int pd_unwind_hybrid_pass(const char *path, struct pd_machine *m, const struct pd_unwind_env *env,
			  pd_unwind_add_fn add, pd_unwind_unsure_fn unsure, void *ctx,
			  struct pd_unwind_stats *st, uint64_t *nr_scanned, char *err,
			  size_t errsz);

/*
 * pd_unwind_replay_pass - the same contract as pd_unwind_pass, but every
 * sample is unwound with libunwind-x86_64.so.8 (dlopen) through accessors
 * that behave like perf 6.1's (perfdata/unwind_replay.c): the set perf
 * looks up, up to the maps (the union a thread reaches). -ENOTSUP with a
 * reason in @err when libunwind cannot be loaded. Costs about what perf's
 * own unwinding costs; for measurements (symlazy-addrs --unwind).
 */
int pd_unwind_replay_pass(const char *path, struct pd_machine *m, pd_unwind_add_fn add,
			  pd_unwind_unsure_fn unsure, void *ctx, struct pd_unwind_stats *st,
			  char *err, size_t errsz);

/*
 * pd_unwind_scan - the per-sample core of pd_unwind_pass, for tests and
 * benchmarks: report every value of @regs (@nregs u64) and every window
 * of @stack (@len bytes) that lies, as w or w - 1, inside one of @nr
 * sorted, disjoint, non-adjacent intervals [@iv[2k], @iv[2k+1]).
 * Returns 0, or the first nonzero @add result. @st may be NULL.
 */
int pd_unwind_scan(const uint64_t *iv, size_t nr, const unsigned char *regs, size_t nregs,
		   const unsigned char *stack, size_t len, int32_t tid, pd_unwind_add_fn add,
		   void *ctx, struct pd_unwind_stats *st);

/* pd_unsure_reason - the reason (util/reason.h) for a pd_dso.unsure value
 * (enum pd_unsure above); SL_R_UNMODELABLE for values it does not know. */
enum sl_reason pd_unsure_reason(unsigned unsure);

#endif
