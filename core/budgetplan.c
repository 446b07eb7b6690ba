/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "budgetplan.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Largest k with z[k] < v, or -1. */
static long below(const uint64_t *z, long n, uint64_t v)
{
	long lo = 0, hi = n;

	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;

		if (z[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

int budget_plan_table(struct budget *b, uint32_t nsyms, bp_get_fn get, void *ctx,
		      struct budget_plan *out)
{
	uint64_t *z = NULL, *best = NULL;
	uint8_t *best_kept = NULL;
	long nz = 0, k;
	uint32_t i, zcap = 0;
	struct bp_sym s;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->cut = nsyms;
	for (i = 1; i < nsyms; i++) {
		if (get(ctx, i, &s) < 0 || !s.candidate)
			continue;
		if (out->cut == nsyms) {
			uint64_t cost = s.cost;

			if (budget_try_charge(b, cost)) {
				out->charged += cost;
				out->passed++;
				if (!s.size) {
					if ((uint32_t)nz == zcap) {
						uint64_t *nzp = realloc(z, (zcap ? zcap * 2 : 64) * sizeof(*z));

						if (!nzp)
							goto oom;
						z = nzp;
						zcap = zcap ? zcap * 2 : 64;
					}
					z[nz++] = s.value;
				}
				continue;
			}
			out->cut = i;
		}
		out->dropped++;
	}
	if (out->cut == nsyms || !nz)
		goto out;

	/* successor of each kept zero-size value among all candidates */
	qsort(z, (size_t)nz, sizeof(*z), cmp_u64);
	best = malloc((size_t)nz * sizeof(*best));
	best_kept = calloc((size_t)nz, 1);
	if (!best || !best_kept)
		goto oom;
	for (k = 0; k < nz; k++)
		best[k] = UINT64_MAX;
	for (i = 1; i < nsyms; i++) {
		if (get(ctx, i, &s) < 0 || !s.candidate)
			continue;
		k = below(z, nz, s.value);
		if (k < 0)
			continue;
		if (s.value < best[k]) {
			best[k] = s.value;
			best_kept[k] = i < out->cut;
		} else if (s.value == best[k] && i < out->cut) {
			best_kept[k] = 1;
		}
	}
	for (k = nz - 1; k > 0; k--) {          /* suffix minimum */
		if (best[k] < best[k - 1]) {
			best[k - 1] = best[k];
			best_kept[k - 1] = best_kept[k];
		} else if (best[k] == best[k - 1] && best_kept[k]) {
			best_kept[k - 1] = 1;
		}
	}
	for (i = 1; i < out->cut; i++) {
		if (get(ctx, i, &s) < 0 || !s.candidate || s.size)
			continue;
		k = below(z, nz, s.value + 1);          /* index of s.value itself */
		if (k < 0 || z[k] != s.value || best[k] == UINT64_MAX || best_kept[k])
			continue;
		{
			struct bp_override *no = realloc(out->over, (out->nover + 1) * sizeof(*no));

			if (!no)
				goto oom;
			out->over = no;
			out->over[out->nover].idx = i;
			out->over[out->nover].size = best[k] - s.value;
			out->nover++;
		}
	}
	goto out;
oom:
	ret = -ENOMEM;
	free(out->over);
	out->over = NULL;
	out->nover = 0;
out:
	free(z);
	free(best);
	free(best_kept);
	return ret;
}
