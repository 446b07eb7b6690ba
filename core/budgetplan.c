/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/budgetplan.h"

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

/* ---- budget_plan_rules ---------------------------------------------------- */

#include <sys/mman.h>
#include <unistd.h>
#include "util/util.h"

struct cand {
	uint64_t value, size, end, cost;
	const char *name;
	uint32_t idx;
	uint32_t kept;
	uint32_t loaded[2];         /* uftrace loads it: [0] full table, [1] kept ones */
};

typedef int (*cand_cmp)(const struct cand *, const struct cand *);

static int by_value(const struct cand *a, const struct cand *b)
{
	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int by_value_desc(const struct cand *a, const struct cand *b)
{
	if (a->value != b->value)
		return a->value > b->value ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int by_idx(const struct cand *a, const struct cand *b)
{
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* In-place heap sort (no allocation: qsort's merge sort would malloc n copies). */
static void sift(struct cand *c, size_t i, size_t n, cand_cmp cmp)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct cand t;

		if (l < n && cmp(&c[l], &c[m]) > 0)
			m = l;
		if (l + 1 < n && cmp(&c[l + 1], &c[m]) > 0)
			m = l + 1;
		if (m == i)
			return;
		t = c[i]; c[i] = c[m]; c[m] = t;
		i = m;
	}
}

static void cand_sort(struct cand *c, size_t n, cand_cmp cmp)
{
	if (n < 2)
		return;
	for (size_t i = n / 2; i-- > 0;)
		sift(c, i, n, cmp);
	for (size_t i = n - 1; i > 0; i--) {
		struct cand t = c[0];

		c[0] = c[i]; c[i] = t;
		sift(c, 0, i, cmp);
	}
}

static int over_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct bp_override *)a)->idx, y = ((const struct bp_override *)b)->idx;

	return x < y ? -1 : x > y;
}

/*
 * uftrace's alias rule (utils/symbol.c load_symbol: a symbol with the
 * st_value of the symbol loaded just before it in table order is skipped)
 * looks at the previous *loaded* symbol, and sort_symtab then merges the
 * symbols left at one address under one name (the first in table order,
 * unless it starts with '_' but not "_Z" and a later one does not) with the
 * size of the last. Dropping symbols changes which are loaded: two symbols at
 * one address with dropped ones between them in the table become neighbours.
 * For every kept address the loaded members of the full table and of the
 * kept set are compared (merged name, size); where they differ, that
 * address and everything below it is dropped (the kept set stays an address
 * suffix), until none differs. Without names (@c[].name NULL) any such
 * difference in the loaded members counts. @c is sorted by (value desc, idx)
 * on entry and left sorted by (value, idx).
 */
static const char *merged_name(const struct cand *c, size_t k, size_t j, int which, uint64_t *size)
{
	const char *best = NULL;

	*size = 0;
	for (size_t m = k; m < j; m++) {
		const char *nm;

		if (!c[m].loaded[which])
			continue;
		nm = c[m].name ? c[m].name : "";
		*size = c[m].size;
		/* a raw "_Z" name is demangled by uftrace: it starts with no '_' */
		if (!best || (best[0] == '_' && best[1] != 'Z' && (nm[0] != '_' || nm[1] == 'Z')))
			best = nm;
	}
	return best;
}

static int suffix_aliases(struct cand *c, size_t n, uint32_t nsyms, struct budget_plan *out)
{
	int changed = 1;

	(void)nsyms;
	while (changed && n) {
		uint64_t cut = 0, prev[2] = { UINT64_MAX, UINT64_MAX };
		int have_cut = 0;

		changed = 0;
		/* load_symbol's alias rule, in table order, full and kept */
		cand_sort(c, n, by_idx);
		for (size_t k = 0; k < n; k++) {
			c[k].loaded[0] = c[k].value != prev[0];
			if (c[k].loaded[0])
				prev[0] = c[k].value;
			c[k].loaded[1] = c[k].kept && c[k].value != prev[1];
			if (c[k].loaded[1])
				prev[1] = c[k].value;
		}
		cand_sort(c, n, by_value);
		for (size_t k = 0; k < n;) {
			size_t j = k + 1;
			int differ = 0;

			while (j < n && c[j].value == c[k].value)
				j++;
			if (c[k].kept) {
				uint64_t s0, s1;
				const char *a = merged_name(c, k, j, 0, &s0), *b = merged_name(c, k, j, 1, &s1);

				int anon = 0;

				for (size_t m = k; m < j; m++)
					anon |= !c[m].name;
				for (size_t m = k; m < j && anon; m++)
					differ |= c[m].loaded[0] != c[m].loaded[1];
				differ |= !a || !b || strcmp(a, b) || s0 != s1;
			}
			if (differ) {
				cut = c[k].value;
				have_cut = 1;
			}
			k = j;
		}
		if (have_cut) {
			for (size_t k = 0; k < n && c[k].value <= cut; k++) {
				if (c[k].kept) {
					c[k].kept = 0;
					out->honest_drops++;
				}
			}
			changed = 1;
		}
	}
	if (n)
		cand_sort(c, n, by_value);
	return 0;
}

void budget_plan_free(struct budget_plan *p)
{
	free(p->over);
	free(p->drop);
	p->over = NULL;
	p->drop = NULL;
}

int budget_plan_rules(struct budget *b, uint32_t nsyms, bp_get_fn get, void *ctx, unsigned rules,
		      struct budget_plan *out)
{
	struct cand *c = NULL;
	size_t n = 0, k, bytes;
	struct bp_sym s;
	uint32_t i;
	int ret = 0;

	if (!(rules & (SL_BR_NEXT_STRETCH | SL_BR_OVERLAP)))
		return budget_plan_table(b, nsyms, get, ctx, out);
	memset(out, 0, sizeof(*out));
	out->cut = nsyms;
	for (i = 1; i < nsyms; i++)
		if (get(ctx, i, &s) == 0 && s.candidate)
			n++;
	bytes = n * sizeof(*c);
	c = n ? sl_scratch_map(bytes, "symlazy-plan") : NULL;
	if (n && !c) {
		out->cut = 1;           /* cannot plan: drop everything */
		out->dropped = n;
		return -ENOMEM;
	}
	for (i = 1, k = 0; i < nsyms && k < n; i++) {
		if (get(ctx, i, &s) < 0 || !s.candidate)
			continue;
		c[k].value = s.value;
		c[k].size = s.size;
		c[k].cost = s.cost;
		c[k].name = s.name;
		c[k].idx = i;
		c[k].kept = 0;
		k++;
	}
	n = k;

	/* 1. charge: table order, or (NEXT_STRETCH) from the highest address down */
	if (rules & SL_BR_NEXT_STRETCH)
		cand_sort(c, n, by_value_desc);
	for (k = 0; k < n; k++) {
		if (!budget_try_charge(b, c[k].cost))
			break;
		out->charged += c[k].cost;
		c[k].kept = 1;
	}
	if (rules & SL_BR_NEXT_STRETCH) {
		/* the group at the refusal is incomplete: drop its admitted part */
		if (k < n) {
			uint64_t v0 = c[k].value;

			for (size_t j = k; j-- > 0 && c[j].value == v0;)
				c[j].kept = 0;
		}
		if (suffix_aliases(c, n, nsyms, out) < 0)
			ret = -ENOMEM;
	} else if (k < n) {
		out->cut = c[k].idx;    /* first refused index in table order */
	}

	/* 2. ends: a zero-size symbol reaches the next start (ZERO_STRETCH) */
	cand_sort(c, n, by_value);
	for (k = 0; k < n;) {
		size_t j = k;
		uint64_t next = UINT64_MAX;

		while (j < n && c[j].value == c[k].value)
			j++;
		if (j < n)
			next = c[j].value;
		for (size_t m = k; m < j; m++)
			c[m].end = c[m].size ? c[m].value + c[m].size :
				   (rules & SL_BR_ZERO_STRETCH) ? next : c[m].value;
		k = j;
	}

	/* 3. overlap components (same-start groups included) kept or dropped whole */
	if (rules & SL_BR_OVERLAP) {
		for (k = 0; k < n;) {
			size_t j = k + 1;
			uint64_t end = c[k].end;
			int any_dropped = !c[k].kept;

			while (j < n && (c[j].value < end || c[j].value == c[j - 1].value)) {
				if (c[j].end > end)
					end = c[j].end;
				any_dropped |= !c[j].kept;
				j++;
			}
			if (any_dropped)
				for (size_t m = k; m < j; m++)
					if (c[m].kept) {
						c[m].kept = 0;
						out->honest_drops++;
					}
			k = j;
		}
	}

	/* 4. zero-size ends of kept symbols whose successor group is dropped */
	if (rules & SL_BR_ZERO_STRETCH) {
		for (k = 0; k < n;) {
			size_t j = k;
			int next_kept = 0;

			while (j < n && c[j].value == c[k].value)
				j++;
			for (size_t m = j; m < n && c[m].value == c[j].value; m++)
				next_kept |= (int)c[m].kept;
			for (size_t m = k; m < j && j < n; m++) {
				struct bp_override *no;

				if (!c[m].kept || c[m].size || next_kept)
					continue;
				no = realloc(out->over, (out->nover + 1) * sizeof(*no));
				if (!no) {
					ret = -ENOMEM;
					break;
				}
				out->over = no;
				out->over[out->nover].idx = c[m].idx;
				out->over[out->nover].size = c[j].value - c[m].value;
				out->nover++;
			}
			k = j;
		}
	}

	/* 5. the plan: drop bits for every dropped candidate before the cut */
	cand_sort(c, n, by_idx);
	for (k = 0; k < n; k++) {
		if (c[k].kept) {
			out->passed++;
			continue;
		}
		out->dropped++;
		if (c[k].idx >= out->cut)
			continue;
		if (!out->drop) {
			out->drop = calloc((size_t)nsyms / 8 + 1, 1);
			if (!out->drop) {
				out->cut = 1;
				ret = -ENOMEM;
				break;
			}
		}
		out->drop[c[k].idx >> 3] |= (uint8_t)(1u << (c[k].idx & 7));
	}
	if (out->nover > 1)             /* sorted by idx for the filter's cursor */
		qsort(out->over, out->nover, sizeof(*out->over), over_cmp);
	if (c)
		munmap(c, bytes);
	return ret;
}
