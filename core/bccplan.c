/* SPDX-License-Identifier: MIT */
/*
 * bccplan.c - what libbcc's scans may see, planned on bcc's own sorted vector
 * (the index of bccsyms.h): budget plans that never make bcc answer with a
 * name it would not answer with, and SYMLAZY_ADDRS keep-sets that give bcc's
 * exact answers. bcc's lookup (Module::find_addr, src/cc/bcc_syms.cc) has no
 * stretching; what a reduced table changes is (1) which of several nested or
 * overlapping symbols holds an address and (2) the order std::sort gives
 * symbols with equal starts (not stable, so it depends on the whole vector):
 * both are checked by sorting the reduced vector exactly as bcc will
 * (sl_bcc_sort) and comparing answers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "index/bccsyms.h"
#include "core/budget.h"
#include "util/util.h"
#include "index/model.h"


void sl_bcc_plan_free(struct sl_bcc_plan *p)
{
	for (unsigned i = 0; i < p->nt; i++)
		free(p->t[i].keep);
	p->nt = 0;
}

const struct sl_bcc_keep *sl_bcc_plan_keep(const struct sl_bcc_plan *p, const struct sl_file_id *id,
					   uint32_t shndx)
{
	for (unsigned i = 0; i < p->nt; i++) {
		const struct sl_bcc_keep *k = &p->t[i];

		if (k->shndx == shndx && k->id.dev == id->dev && k->id.ino == id->ino &&
		    k->id.size == id->size && k->id.mtime_sec == id->mtime_sec &&
		    k->id.mtime_nsec == id->mtime_nsec)
			return k;
	}
	return NULL;
}

/* Empty keep-sets for every table the index lists. */
static int plan_tables(const struct sl_bcc_index *idx, struct sl_bcc_plan *out)
{
	for (unsigned i = 0; i < idx->ntabs; i++) {
		struct sl_bcc_keep *k = &out->t[out->nt];

		k->id = idx->id[idx->tabs[i].file];
		k->shndx = idx->tabs[i].shndx;
		k->nsyms = idx->tabs[i].nsyms;
		k->keep = calloc((size_t)k->nsyms / 8 + 1, 1);
		if (!k->keep)
			return -ENOMEM;
		out->nt++;
	}
	return 0;
}

static void plan_set(const struct sl_bcc_index *idx, struct sl_bcc_plan *out, const struct sl_bcc_ent *e)
{
	for (unsigned i = 0; i < idx->ntabs; i++) {
		if (idx->tabs[i].file == e->file && idx->tabs[i].shndx == e->shndx && e->idx < out->t[i].nsyms) {
			out->t[i].keep[e->idx >> 3] |= (uint8_t)(1u << (e->idx & 7));
			return;
		}
	}
}

/* Same answer? bcc's callers print the name and the offset from its start. */
static int same_answer(const struct sl_bcc_index *full, long a, const struct sl_bcc_index *red, long b)
{
	const char *na, *nb;

	if (a < 0 || b < 0)
		return a < 0 && b < 0;
	if (full->ents[a].start != red->ents[b].start)
		return 0;
	na = sl_bcc_name(full, (size_t)a);
	nb = sl_bcc_name(red, (size_t)b);
	return na && nb && !strcmp(na, nb);
}

/* The reduced vector: kept entries in bcc's push order, sorted as bcc sorts. */
static size_t reduce(const struct sl_bcc_index *idx, const uint32_t *pos_of_seq, const uint8_t *kept,
		     struct sl_bcc_ent *red)
{
	size_t k = 0;

	for (size_t s = 0; s < idx->n; s++) {
		uint32_t i = pos_of_seq[s];

		if (kept[i])
			red[k++] = idx->ents[i];
	}
	sl_bcc_sort(red, k);
	return k;
}

static struct sl_bcc_index view(const struct sl_bcc_index *idx, struct sl_bcc_ent *red, size_t k)
{
	struct sl_bcc_index v = *idx;

	v.next = NULL;
	v.ents = red;
	v.n = k;
	return v;
}

/* First full-vector position with start > @v. */
static size_t first_after(const struct sl_bcc_index *idx, uint64_t v)
{
	size_t lo = 0, hi = idx->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v < idx->ents[mid].start)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

#define MAX_INNER 1024

int sl_bcc_plan_budget(const struct sl_bcc_index *idx, struct budget *b, const struct sl_model *m,
		       struct sl_bcc_plan *out)
{
	size_t n = idx->n, bytes = n * (sizeof(uint32_t) + 1 + sizeof(struct sl_bcc_ent)), s, i, k = 0;
	uint32_t *pos_of_seq;
	uint8_t *kept;
	struct sl_bcc_ent *red;
	void *mem;
	int round, ret = 0;

	memset(out, 0, sizeof(*out));
	if (plan_tables(idx, out) < 0) {
		sl_bcc_plan_free(out);
		return -ENOMEM;
	}
	if (!n)
		return 0;
	mem = sl_scratch_map(bytes, "symlazy-bccplan");
	if (!mem)
		return -ENOMEM;         /* keep-sets empty: nothing kept */
	red = mem;
	pos_of_seq = (uint32_t *)(red + n);
	kept = (uint8_t *)(pos_of_seq + n);
	for (i = 0; i < n; i++)
		pos_of_seq[idx->ents[i].seq] = (uint32_t)i;

	/* 1. charge in bcc's push order (debug file, then module; table order) */
	for (s = 0; s < n; s++) {
		i = pos_of_seq[s];
		if (!budget_try_charge(b, m->sym_cost(idx->ents[i].name_len)))
			break;
		out->charged += m->sym_cost(idx->ents[i].name_len);
		kept[i] = 1;
	}
	/* 2. of one (start, size) only the last in bcc's order answers: keep it
	 * or none (the others would take its place in a reduced vector) */
	for (i = 0; i < n;) {
		size_t j = i + 1;

		while (j < n && idx->ents[j].start == idx->ents[i].start)
			j++;
		for (size_t a = i; a < j; a++) {
			size_t w = a;

			for (size_t c = a + 1; c < j; c++)
				if (idx->ents[c].size == idx->ents[a].size)
					w = c;
			if (w != a && kept[a]) {
				kept[a] = 0;
				out->honest_drops++;
			}
		}
		i = j;
	}
	/* 3. sort the reduced vector as bcc will; drop any kept symbol that
	 * answers somewhere in its range where the full vector answers otherwise */
	for (round = 0; round < 8; round++) {
		struct sl_bcc_index rv;
		size_t dropped = 0;

		k = reduce(idx, pos_of_seq, kept, red);
		rv = view(idx, red, k);
		for (size_t j = 0; j < k; j++) {
			uint64_t st = red[j].start, en = st + red[j].size, pts[2 * MAX_INNER + 1];
			size_t np = 0, f;

			pts[np++] = st;
			for (f = first_after(idx, st); f < n && idx->ents[f].start < en && np < 2 * MAX_INNER; f++) {
				pts[np++] = idx->ents[f].start;
				if (idx->ents[f].start + idx->ents[f].size < en)
					pts[np++] = idx->ents[f].start + idx->ents[f].size;
			}
			if (f < n && idx->ents[f].start < en) {
				/* too many symbols nested inside: do not keep it */
				kept[pos_of_seq[red[j].seq]] = 0;
				dropped++;
				continue;
			}
			for (size_t p = 0; p < np; p++) {
				long rr = sl_bcc_find(&rv, pts[p]), rf;

				if (rr < 0 || (size_t)rr != j)
					continue;       /* j does not answer here */
				rf = sl_bcc_find(idx, pts[p]);
				if (!same_answer(idx, rf, &rv, rr)) {
					kept[pos_of_seq[red[j].seq]] = 0;
					dropped++;
					break;
				}
			}
		}
		out->honest_drops += dropped;
		if (!dropped)
			break;
	}
	if (round == 8) {                /* did not settle: keep nothing */
		memset(kept, 0, n);
		ret = 0;
	}
	for (i = 0; i < n; i++) {
		if (kept[i]) {
			plan_set(idx, out, &idx->ents[i]);
			out->passed++;
		} else {
			out->dropped++;
		}
	}
	munmap(mem, bytes);
	return ret;
}

int sl_bcc_plan_addrs(const struct sl_bcc_index *idx, const uint64_t *vaddrs, size_t na,
		      struct sl_bcc_plan *out, struct sl_why *why)
{
	size_t n = idx->n, bytes = n * (sizeof(uint32_t) + 1 + sizeof(struct sl_bcc_ent)), i, k;
	uint32_t *pos_of_seq;
	uint8_t *kept;
	struct sl_bcc_ent *red;
	struct sl_bcc_index rv;
	void *mem;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->lazy = 1;
	sl_why_set(why, SL_R_NONE, NULL);
	if (plan_tables(idx, out) < 0) {
		sl_bcc_plan_free(out);
		return sl_whyf(why, SL_R_NOMEM, -ENOMEM, NULL);
	}
	if (!n)
		return 0;
	mem = sl_scratch_map(bytes, "symlazy-bccplan");
	if (!mem) {
		sl_bcc_plan_free(out);
		return sl_whyf(why, SL_R_NOMEM, -ENOMEM, NULL);
	}
	red = mem;
	pos_of_seq = (uint32_t *)(red + n);
	kept = (uint8_t *)(pos_of_seq + n);
	for (i = 0; i < n; i++)
		pos_of_seq[idx->ents[i].seq] = (uint32_t)i;
	for (size_t a = 0; a < na; a++) {
		long rf = sl_bcc_find(idx, vaddrs[a]);

		if (rf >= 0)
			kept[rf] = 1;
	}
	k = reduce(idx, pos_of_seq, kept, red);
	rv = view(idx, red, k);
	for (size_t a = 0; a < na; a++) {
		long rf = sl_bcc_find(idx, vaddrs[a]), rr = sl_bcc_find(&rv, vaddrs[a]);

		if (!same_answer(idx, rf, &rv, rr)) {
			ret = sl_whyf(why, SL_R_BCC_REDUCED, 1, "0x%llx", (unsigned long long)vaddrs[a]);
			break;
		}
	}
	if (!ret) {
		for (i = 0; i < n; i++) {
			if (kept[i]) {
				plan_set(idx, out, &idx->ents[i]);
				out->passed++;
			} else {
				out->dropped++;
			}
		}
	} else {
		sl_bcc_plan_free(out);
	}
	munmap(mem, bytes);
	return ret;
}
