/* SPDX-License-Identifier: MIT */
/*
 * budgetplan.h - decide a budget scan before the tool sees it.
 *
 * At the start of a sequential scan the whole table is read once: the
 * symbols perf would keep are charged in table order until the first refusal
 * (the "cut"); every candidate from the cut on becomes the null symbol.
 * perf's symbols__fixup_end() gives a zero-size symbol the start of its
 * in-order successor as end (tools/perf/util/symbol.c); if that successor was
 * dropped, the kept symbol would swallow the dropped functions' samples. So
 * each kept zero-size symbol whose next distinct st_value belongs only to
 * dropped symbols gets st_size = successor - st_value: the end it has with the
 * full table, and the dropped range prints [unknown].
 */
#ifndef SYMLAZY_BUDGETPLAN_H
#define SYMLAZY_BUDGETPLAN_H

#include <stdint.h>
#include "core/budget.h"
#include "core/models.h"   /* SL_BR_*: a model's budget rules */

struct bp_sym {
	uint64_t value, size;   /* st_value, st_size */
	uint64_t cost;          /* bytes the tool spends keeping it (model sym_cost) */
	int candidate;          /* would perf keep it (and so: charge it)? */
	const char *name;       /* its name, or NULL (uftrace's alias and name rules) */
};

/* Read symbol @idx into @out; return 0, or -1 if unreadable (treated as non-candidate). */
typedef int (*bp_get_fn)(void *ctx, uint32_t idx, struct bp_sym *out);

struct bp_override {
	uint32_t idx;
	uint64_t size;
};

struct budget_plan {
	uint32_t cut;                /* first dropped index (== nsyms: nothing dropped) */
	uint32_t nover;
	struct bp_override *over;    /* sorted by idx; free() */
	uint8_t *drop;               /* more dropped candidates before the cut (bit per
				      * index, nsyms bits), or NULL; free() */
	uint64_t charged, passed, dropped;
	uint64_t honest_drops;       /* admitted, then dropped so none stretches (rules) */
};

/* budget_plan_dropped - is candidate @idx dropped by @p? */
static inline int budget_plan_dropped(const struct budget_plan *p, uint32_t idx)
{
	return idx >= p->cut || (p->drop && ((p->drop[idx >> 3] >> (idx & 7)) & 1));
}

/*
 * budget_plan_table - charge the candidates of indexes 1..nsyms-1 against @b
 * in order and fill @out. Returns 0, or -ENOMEM (the cut stays valid, the
 * zero-size overrides are lost).
 */
int budget_plan_table(struct budget *b, uint32_t nsyms, bp_get_fn get, void *ctx,
		      struct budget_plan *out);

/*
 * budget_plan_rules - the same with a tool's budget rules (SL_BR_*):
 *   SL_BR_NEXT_STRETCH  charge by descending address instead of table order and
 *                       keep every candidate at or above the lowest address
 *                       whose whole same-address group was admitted (uftrace);
 *   SL_BR_ZERO_STRETCH  the zero-size overrides above (perf);
 *   SL_BR_OVERLAP       candidates whose ranges overlap (zero-size ones reaching
 *                       their full-table successor under ZERO_STRETCH) form
 *                       components; a component with a dropped member is
 *                       dropped whole (so same-address groups are too).
 * Bytes admitted and then dropped by a rule stay charged (strict budget).
 * Working arrays live in a memfd mapping (page cache, not the heap) for the
 * time of the call. Returns 0, -ENOMEM (then everything is dropped).
 */
int budget_plan_rules(struct budget *b, uint32_t nsyms, bp_get_fn get, void *ctx, unsigned rules,
		      struct budget_plan *out);

/* budget_plan_free - free what a plan holds. */
void budget_plan_free(struct budget_plan *p);

#endif
