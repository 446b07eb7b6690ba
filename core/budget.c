/* SPDX-License-Identifier: MIT */
#include "budget.h"

/*
 * BUDGET_SYMBOL_OVERHEAD (budget.h): heap bytes perf 6.1 spends per kept
 * symbol beyond its name. symbol__new() (tools/perf/util/symbol.c) does
 * calloc(1, priv_size + sizeof(struct symbol) + strlen(name) + 1) with
 * sizeof(struct symbol) == 48 on x86-64 (rb_node, start, end, namelen, flags)
 * and priv_size 0 for script/report; glibc adds an 8-byte chunk header and
 * rounds to 16 bytes (+7.5 on average): 48 + 8 + 7.5 ~= 64 for names perf
 * stores as they are (C). Measured on perf 6.1.187 with the generated fixture
 * (251,127 kept symbols, raw names 31.1 MB): peak RssAnon eager minus the
 * floor = 41.3 MB, i.e. 41 bytes per symbol beyond the raw name, because
 * perf keeps demangled names and frees the .dynsym twins it deduplicates.
 * Charging 64 + raw name length never undercounts, so the cap holds.
 */
uint64_t budget_symbol_cost(uint64_t namelen)
{
	return BUDGET_SYMBOL_OVERHEAD + namelen + 1;
}

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
