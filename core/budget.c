/* SPDX-License-Identifier: MIT */
#include "core/budget.h"

void budget_init(struct budget *b, uint64_t cap)
{
	b->cap = cap;
	atomic_store(&b->used, 0);
	atomic_store(&b->refused, 0);
	atomic_store(&b->exhausted, 0);
}

bool budget_try_charge(struct budget *b, uint64_t bytes)
{
	uint64_t cur;

	if (!b->cap) {
		atomic_fetch_add_explicit(&b->used, bytes, memory_order_relaxed);
		return true;
	}
	if (atomic_load_explicit(&b->exhausted, memory_order_acquire))
		goto refuse;
	cur = atomic_load_explicit(&b->used, memory_order_relaxed);
	do {
		if (bytes > b->cap || cur > b->cap - bytes) {
			atomic_store_explicit(&b->exhausted, 1, memory_order_release);
			goto refuse;
		}
	} while (!atomic_compare_exchange_weak_explicit(&b->used, &cur, cur + bytes,
							memory_order_acq_rel, memory_order_relaxed));
	return true;
refuse:
	atomic_fetch_add_explicit(&b->refused, bytes, memory_order_relaxed);
	return false;
}

bool budget_exhausted(struct budget *b)
{
	return atomic_load_explicit(&b->exhausted, memory_order_acquire) != 0;
}
