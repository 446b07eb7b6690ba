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
#include "budget.h"

struct bp_sym {
	uint64_t value, size;   /* st_value, st_size */
	uint64_t cost;          /* bytes the tool spends keeping it (model sym_cost) */
	int candidate;          /* would perf keep it (and so: charge it)? */
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
	uint64_t charged, passed, dropped;
};

/*
 * budget_plan_table - charge the candidates of indexes 1..nsyms-1 against @b
 * in order and fill @out. Returns 0, or -ENOMEM (the cut stays valid, the
 * zero-size overrides are lost).
 */
int budget_plan_table(struct budget *b, uint32_t nsyms, bp_get_fn get, void *ctx,
		      struct budget_plan *out);

#endif
