/* SPDX-License-Identifier: MIT */
/*
 * index/answer.c - answers from the index without a replay (rule 1 of
 * index/symindex.h: an address whose group is unambiguous), and the
 * keep-set plan: which table symbols perf must see so that every sampled
 * address gets the answer the full table would give (symindex_plan).
 */
#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "index/cache.h"
#include "index/elfx.h"
#include "index/format.h"
#include "index/model.h"
#include "index/rbsim.h"
#include "util/reason.h"
#include "util/util.h"
#include "index/symindex.h"
#include "index/replay.h"

/* Last group with start <= a, or SYMIDX_NONE. */
static uint32_t pred_group(const struct symidx *idx, uint64_t a)
{
	uint32_t lo = 0, hi = idx->ngroups;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (idx->groups[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : SYMIDX_NONE;
}

static int in_plt(const struct symidx_layout *lay, uint64_t lo, uint64_t hi)
{
	unsigned i;

	for (i = 0; i < lay->nplt; i++)
		if (lay->plt_lo[i] <= hi && lo < lay->plt_hi[i])
			return 1;
	return 0;
}

/* Does [lo, hi] meet a symbol the PLT synthesis of variant @plt inserts?
 * (The sections themselves are in_plt(); synthesized symbols can reach past
 * them when the counts do not fit the section sizes.) */
static int in_synth(const struct symidx_layout *lay, enum sl_plt_rules plt, uint64_t lo, uint64_t hi)
{
	const struct symidx_plt2 *p = &lay->p2;
	uint64_t r[3][2];
	unsigned n = 0, i;

	if (plt == SL_PLT_V61) {
		if (!lay->plt_ok)
			return 0;
		r[n][0] = lay->plt_first;
		r[n][1] = lay->plt_first + (uint64_t)lay->nplt_rel * lay->plt_entsize;
		n++;
	} else {
		if (!p->ok || !p->sizes_ok)
			return 0;
		r[n][0] = p->plt_off;
		r[n][1] = p->plt_off + (p->hdr > p->plt_size ? p->hdr : p->plt_size);
		n++;
		if (p->ngot) {
			r[n][0] = p->got_off;
			r[n][1] = p->got_off + (uint64_t)p->ngot * p->got_ent;
			n++;
		}
		if (p->rel_ok) {
			uint64_t base = p->sec ? p->sec_off : p->plt_off, ent = p->sec ? p->sec_ent : p->ent;

			r[n][0] = base;
			r[n][1] = base + p->hdr + (uint64_t)p->nrel * ent;
			n++;
		}
	}
	for (i = 0; i < n; i++)
		if (r[i][0] <= hi && lo < r[i][1])
			return 1;
	return 0;
}

/*
 * Answer for @a: 0 = no symbol (NULL), 1 = group *@g, -1 = ambiguous
 * (depends on rb-tree shape or PLT synthesis). @lay NULL: no PLT facts.
 */
static int answer(const struct symidx *idx, const struct symidx_layout *lay, enum sl_plt_rules plt,
		  uint64_t a, uint32_t *g)
{
	uint32_t p = pred_group(idx, a);
	const struct symidx_group *T;

	if (idx->abort_pass)
		return -1;      /* duplicates and unfixed ends: the tree decides */
	if (lay && (in_plt(lay, a, a) || in_synth(lay, plt, a, a)))
		return -1;
	if (p == SYMIDX_NONE)
		return 0;
	T = &idx->groups[p];
	if (T->pmax > a)
		return -1;
	/* 6.2+: the symbol perf finds at .plt is cut there (the stretched
	 * _init): which one, and so its end, depends on the tree - for an
	 * address past .plt and for one inside a symbol reaching over it */
	if (lay && plt == SL_PLT_V62 && lay->p2.ok && T->start < lay->p2.plt_off &&
	    (a >= lay->p2.plt_off || T->max_end > lay->p2.plt_off))
		return -1;
	if (a == T->start || a < T->min_end) {
		if (lay && (in_plt(lay, T->start + 1, a) || in_synth(lay, plt, T->start + 1, a)))
			return -1;
		*g = p;
		return 1;
	}
	if (a >= T->max_end)
		return 0;
	return -1;
}

int symindex_classify(const struct symidx *idx, const struct symidx_layout *lay, int plt,
		      uint64_t addr, uint32_t *g)
{
	return answer(idx, lay, (enum sl_plt_rules)plt, addr, g);
}

uint32_t symindex_find(const struct symidx *idx, uint64_t addr)
{
	uint32_t g = SYMIDX_NONE;

	if (idx->unmodelable || answer(idx, NULL, SL_PLT_V61, addr, &g) != 1)
		return SYMIDX_NONE;
	return g;
}

/* Could a PLT entry answer an address perf names from a symbol we do not
 * know (6.2+ IFUNC names not recorded)? */
static int ifunc_names_unknown(const struct symidx_layout *lay, enum sl_plt_rules plt)
{
	return plt == SL_PLT_V62 && lay->p2.ifunc_unknown;
}

int symindex_plan(const struct symidx *idx, const struct symidx_layout *lay,
		  const struct symidx_src *src,
		  const uint64_t *addrs, size_t naddrs,
		  uint8_t *keep_symtab, uint8_t *keep_dynsym,
		  uint32_t *kept_groups, struct sl_why *why)
{
	uint8_t *kept;
	struct members M = { 0 };
	uint32_t *stack = NULL, sp = 0, cap = 0, nk = 0, i;
	uint64_t *buf = NULL;
	struct sim_out full = { 0 }, red = { 0 };
	enum sl_plt_rules plt = src && src->model ? src->model->plt : SL_PLT_V61;
	size_t a, namb = 0, first_amb = 0;
	uint32_t widen = 0;
	char at[48] = "";       /* the first address only a tree replay decides */
	int ret = 0, r;

	*kept_groups = 0;
	sl_why_set(why, SL_R_NONE, NULL);
	if (idx->unmodelable)
		return sl_whyf(why, SL_R_UNMODELABLE, 1, "%s", idx->why);
	if (plt == SL_PLT_V62 && lay->p2.unmodelable)
		return sl_whyf(why, SL_R_PLT_RELOCS, 1, NULL);
	if (!idx->ngroups)
		return 0;
	kept = calloc((idx->ngroups + 7) / 8, 1);
	if (!kept)
		return sl_whyf(why, SL_R_PLAN_FAILED, -ENOMEM, "%s", strerror(ENOMEM));

#define PUSH(G) do { uint32_t g_ = (G); \
		if (g_ != SYMIDX_NONE && !BIT_TEST(kept, g_)) { \
			BIT_SET(kept, g_); nk++; \
			if (sp == cap) { uint32_t *ns_ = realloc(stack, (cap ? cap * 2 : 64) * sizeof(*stack)); \
				if (!ns_) { ret = -ENOMEM; goto out; } stack = ns_; cap = cap ? cap * 2 : 64; } \
			stack[sp++] = g_; } } while (0)

	for (a = 0; a < naddrs; a++) {
		uint32_t g = SYMIDX_NONE;

		r = answer(idx, lay, plt, addrs[a], &g);
		if (r < 0 && !namb++)
			first_amb = a;
		if (r == 1)
			PUSH(g);
	}
	if (namb) {
		/* rule 2: replay perf's full tree for the shape-dependent answers */
		int at_plt = in_plt(lay, addrs[first_amb], addrs[first_amb]) ||
			     in_synth(lay, plt, addrs[first_amb], addrs[first_amb]);

		snprintf(at, sizeof(at), "%#llx%s", (unsigned long long)addrs[first_amb],
			 at_plt ? " (in the PLT)" : "");
		if (!src) {
			ret = sl_whyf(why, at_plt ? SL_R_PLT_ADDRESS : SL_R_AMBIGUOUS, 1, "%#llx",
				      (unsigned long long)addrs[first_amb]);
			goto out;
		}
		buf = malloc(naddrs * 9 * sizeof(*buf));
		if (!buf) {
			ret = -ENOMEM;
			goto out;
		}
		full.id = buf;
		full.start = buf + naddrs;
		full.end = buf + 2 * naddrs;
		full.name = buf + 3 * naddrs;
		full.name_start = buf + 4 * naddrs;
		red.id = buf + 5 * naddrs;
		red.end = buf + 6 * naddrs;
		red.name = buf + 7 * naddrs;
		red.start = buf + 8 * naddrs;
		r = sim_full_answers(idx, src, lay, addrs, naddrs, &full);
		if (r != 0) {
			if (r > 0) {
				char dw[SL_WHY_DETAIL / 2] = "";

				if (src->model->demangler_ready && !src->model->demangler_ready(dw, sizeof(dw))) {
					ret = sl_whyf(why, SL_R_DEMANGLER, 1, "%s (at %s)", dw, at);
					goto out;
				}
				sl_why_set(why, SL_R_DUP_DEMANGLE, "%s", at);
			}
			ret = r < 0 ? r : 1;
			goto out;
		}
		if (idx->abort_pass == SYMIDX_ABORT_DYNSYM) {
			/* .dynsym members are shown only where they are the answer */
			size_t gb = (idx->ngroups + 7) / 8 + 1;

			M.dyn_ans = calloc((idx->ndynsym + 7) / 8 + 1 + 3 * gb, 1);
			if (!M.dyn_ans) {
				ret = -ENOMEM;
				goto out;
			}
			M.dyn_grp = M.dyn_ans + (idx->ndynsym + 7) / 8 + 1;
			M.sym_ans = M.dyn_grp + gb;
			M.end_need = M.sym_ans + gb;
			for (a = 0; a < naddrs; a++) {
				uint32_t g = full.id[a] == SIM_NULL ? SYMIDX_NONE : pred_group(idx, full.start[a]);

				if (g == SYMIDX_NONE || (full.id[a] >> 32) > 1)
					continue;
				if ((full.id[a] >> 32) == 0) {
					BIT_SET(M.sym_ans, g);
				} else if ((uint32_t)full.id[a] < idx->ndynsym) {
					BIT_SET(M.dyn_ans, (uint32_t)full.id[a]);
					BIT_SET(M.dyn_grp, g);
				}
			}
		}
		for (a = 0; a < naddrs; a++) {
			uint32_t g = SYMIDX_NONE;

			r = answer(idx, lay, plt, addrs[a], &g);
			if (r < 0) {
				if (full.id[a] != SIM_NULL && !SIM_SYNTH(full.id[a]))
					PUSH(pred_group(idx, full.start[a]));
				if (SIM_SYNTH(full.id[a]) && ifunc_names_unknown(lay, plt)) {
					ret = sl_whyf(why, SL_R_PLT_IFUNC, 1, "%#llx", (unsigned long long)addrs[a]);
					goto out;
				}
				if (full.name[a] != SIM_NULL)
					PUSH(pred_group(idx, full.name_start[a]));      /* get_ifunc_name */
			} else if ((r == 0) != (full.id[a] == SIM_NULL) ||
				   (r == 1 && (SIM_SYNTH(full.id[a]) || full.start[a] != idx->groups[g].start))) {
				/* the replay must agree with every proven answer */
				ret = sl_whyf(why, SL_R_REPLAY_DISAGREES, 1, "%#llx", (unsigned long long)addrs[a]);
				goto out;
			}
		}
	}
	if (!nk)
		PUSH(0);        /* rule 4: perf's ret > 0 so PLT synthesis still runs */
	for (;;) {
		while (sp) {
			const struct symidx_group *G = &idx->groups[stack[--sp]];

			if (G->flags & SG_ZERO_SYMTAB) {
				if (M.end_need && G->next_sym != SYMIDX_NONE)
					BIT_SET(M.end_need, G->next_sym);
				PUSH(G->next_sym);
			}
			if (G->flags & SG_ZERO_DYNSYM)
				PUSH(G->next_all);
		}
		memset(keep_symtab, 0, (idx->nsymtab + 7) / 8);
		memset(keep_dynsym, 0, (idx->ndynsym + 7) / 8);
		for (i = 0; i < idx->ngroups; i++) {
			const struct symidx_group *G;
			uint32_t k;

			if (!BIT_TEST(kept, i))
				continue;
			G = &idx->groups[i];
			for (k = G->first; k < G->first + G->n; k++) {
				const struct symidx_entry *E = &idx->entries[k];

				if (!sim_member_kept(&M, E, i))
					continue;
				if (E->table == 0 && E->idx < idx->nsymtab)
					BIT_SET(keep_symtab, E->idx);
				else if (E->table == 1 && E->idx < idx->ndynsym)
					BIT_SET(keep_dynsym, E->idx);
			}
		}
		/* the symbol perf's pass stops at stays, so the pass stops there */
		if (idx->abort_pass == SYMIDX_ABORT_SYMTAB && idx->abort_idx < idx->nsymtab)
			BIT_SET(keep_symtab, idx->abort_idx);
		else if (idx->abort_pass == SYMIDX_ABORT_DYNSYM && idx->abort_idx < idx->ndynsym)
			BIT_SET(keep_dynsym, idx->abort_idx);
		if (!namb)
			break;
		/* rule 2, second half: the reduced tree must answer like the full
		 * one - same symbol, same end, same name source */
		r = sim_reduced(idx, src, lay, kept, &M, addrs, naddrs, &red);
		if (r != 0) {
			/* 1: the reduced tree's duplicate choice needs names too */
			ret = r < 0 ? r : sl_whyf(why, SL_R_DUP_DEMANGLE, 1, "%s", at);
			goto out;
		}
		for (a = 0; a < naddrs && red.end[a] == full.end[a] && red.name[a] == full.name[a] &&
			    (red.id[a] == full.id[a] ||
			     (idx->abort_pass && red.start[a] == full.start[a] &&
			      sim_same_print(src, red.id[a], full.id[a]))); a++)
			;
		if (a == naddrs)
			break;
		/* Shape differs: keep more of the low end of the table (where
		 * .init/.plt live) and replay again, up to a few thousand groups. */
		if (widen >= idx->ngroups || widen > 4096) {
			ret = sl_whyf(why, SL_R_REPLAY_DIFFERS, 1, "%#llx", (unsigned long long)addrs[a]);
			goto out;
		}
		widen = widen ? widen * 4 : 16;
		for (i = 0; i < widen && i < idx->ngroups; i++)
			PUSH(i);
	}
	*kept_groups = nk;
#undef PUSH
out:
	if (ret != 0) {
		memset(keep_symtab, 0, (idx->nsymtab + 7) / 8);
		memset(keep_dynsym, 0, (idx->ndynsym + 7) / 8);
	}
	if (ret < 0)
		sl_why_set(why, SL_R_PLAN_FAILED, "%s", strerror(-ret));
	free(buf);
	free(stack);
	free(kept);
	free(M.dyn_ans);
	return ret;
}
