/* SPDX-License-Identifier: MIT */
/*
 * budget.h - a strict, process-wide, thread-safe byte budget.
 *
 * "Strict": a charge succeeds only if used + bytes <= cap, checked and added
 * in one compare-and-swap loop, and the first refused charge exhausts the
 * budget for good (every later charge is refused too, even a smaller one), so
 * N threads racing for a budget that fits K equal charges admit exactly K.
 * cap == 0 means unlimited (charges are still counted).
 */
#ifndef SYMLAZY_BUDGET_H
#define SYMLAZY_BUDGET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct budget {
	uint64_t cap;                  /* bytes, 0 = unlimited */
	_Atomic uint64_t used;         /* bytes admitted so far */
	_Atomic uint64_t refused;      /* bytes refused */
	_Atomic int exhausted;         /* set by the first refusal */
};

/* What one symbol costs is the tool's: struct sl_model.sym_cost (index/model.h). */

void budget_init(struct budget *b, uint64_t cap);

/* budget_try_charge - admit @bytes if they fit. Returns true if admitted.
 * Returns false (and latches exhaustion) otherwise. Thread-safe. */
bool budget_try_charge(struct budget *b, uint64_t bytes);

/* budget_exhausted - true once a charge was refused. */
bool budget_exhausted(struct budget *b);

#endif
