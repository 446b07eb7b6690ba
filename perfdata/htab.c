/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "perfdata/htab.h"
#include "util/util.h"

int pd_htab_init(struct pd_htab *t, size_t cap)
{
	if (cap < 2 || (cap & (cap - 1)) || cap > SIZE_MAX / sizeof(*t->slot))
		return -ENOMEM;
	t->slot = malloc(cap * sizeof(*t->slot));
	if (!t->slot)
		return -ENOMEM;
	memset(t->slot, 0xff, cap * sizeof(*t->slot));	/* PD_HTAB_EMPTY */
	t->cap = cap;
	t->nr = 0;
	return 0;
}

void pd_htab_free(struct pd_htab *t)
{
	free(t->slot);
	t->slot = NULL;
	t->cap = t->nr = 0;
}

uint32_t pd_htab_get(const struct pd_htab *t, uint64_t h, pd_htab_eq_fn eq,
		     const void *ctx, const void *key)
{
	size_t m, i;

	if (!t->cap)
		return PD_HTAB_EMPTY;
	m = t->cap - 1;
	for (i = (size_t)h & m; t->slot[i] != PD_HTAB_EMPTY; i = (i + 1) & m)
		if (eq(ctx, t->slot[i], key))
			return t->slot[i];
	return PD_HTAB_EMPTY;
}

static void put_slot(uint32_t *slot, size_t cap, uint64_t h, uint32_t idx)
{
	size_t m = cap - 1, i = (size_t)h & m;

	while (slot[i] != PD_HTAB_EMPTY)
		i = (i + 1) & m;
	slot[i] = idx;
}

int pd_htab_add(struct pd_htab *t, uint64_t h, uint32_t idx, pd_htab_hash_fn hf,
		const void *ctx)
{
	if (!t->cap && pd_htab_init(t, 64) < 0)
		return -ENOMEM;
	if ((t->nr + 1) * 2 > t->cap) {
		struct pd_htab n;
		size_t i;

		if (t->cap > SIZE_MAX / 2 || pd_htab_init(&n, t->cap * 2) < 0)
			return -ENOMEM;
		for (i = 0; i < t->cap; i++)
			if (t->slot[i] != PD_HTAB_EMPTY)
				put_slot(n.slot, n.cap, hf(ctx, t->slot[i]), t->slot[i]);
		n.nr = t->nr;
		free(t->slot);
		*t = n;
	}
	put_slot(t->slot, t->cap, h, idx);
	t->nr++;
	return 0;
}

int pd_grow(void **p, size_t *alloc, size_t need, size_t sz)
{
	return sl_grow(p, alloc, need, sz, 8);
}
