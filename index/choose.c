/* SPDX-License-Identifier: MIT */
/*
 * index/choose.c - perf's choice between same-start duplicates
 * (choose_best_symbol, tools/perf/util/symbol.c: length, 7.x's NOTYPE
 * rule, binding, weak, prefix underscores, name length, x86's SyS rule) during a replay, on memoized
 * name summaries where the model allows it, and the choices that change no
 * tree shape deferred until an answer needs them.
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
#include "util/util.h"
#include "index/symindex.h"
#include "index/replay.h"

/* Do table symbols @a and @b print alike? After a pass perf aborts, its
 * same-start duplicates stay in the tree (no symbols__fixup_duplicate) and
 * which one a lookup meets depends on the tree's shape: two of them with the
 * same start (checked by the caller), end, raw name, binding and type give
 * the same perf output. */
int sim_same_print(const struct symidx_src *src, uint64_t a, uint64_t b)
{
	GElf_Sym sa, sb;
	const char *na, *nb;

	if (a == b)
		return 1;
	if ((a >> 32) > 1 || (b >> 32) > 1)
		return 0;
	na = sim_src_name(src, a, &sa);
	nb = sim_src_name(src, b, &sb);
	return na && nb && !strcmp(na, nb) && sa.st_info == sb.st_info;
}

static int underscores(const char *n)
{
	int c = 0;

	while (n[c] == '_')
		c++;
	return c;
}

/*
 * Deferred duplicate choices.
 *
 * perf's choice between two symbols with one start (choose_best_symbol)
 * ends, when length class and binding tie, in a comparison of the names
 * perf stores - demangled names. Demangling both is most of the cost of a
 * full replay (node: 13.6k such pairs, mostly C1/C2 constructor and D1/D2
 * destructor aliases, 194M of the 342M instructions). Which of the two
 * survives changes only that node's identity, not the tree, in the cases
 * where erasing either one leaves the same keyed shape and colours, and the
 * identity matters only if an address is answered by that node. So such a
 * choice is recorded instead of made: the node keeps its slot and a list of
 * candidates in comparison order, and the choice is made (the list folded
 * with the same comparisons perf makes, in the same order) when the node
 * answers an address or takes part in a comparison that needs its name.
 *
 * When erasing curr or next gives the same tree (lib/rbtree.c rb_erase,
 * next being curr's in-order successor with the same key):
 *   - curr has a right child: next is the leftmost node of that subtree;
 *     erasing curr moves next into curr's place with curr's colour and
 *     removes next's old place exactly as erasing next does (its one child,
 *     necessarily red, turns black either way; the same rebalancing starts
 *     at the same position otherwise). If curr has no left child, its right
 *     child is a red leaf, which is next: either erase leaves one black node.
 *   - curr has no right child and next none either: next's only child is a
 *     red leaf, which is curr: either erase leaves one black node.
 *   - curr has no right child and next has two children: erasing next moves
 *     next's successor (another key) up, erasing curr does not: the shapes
 *     differ, the choice is made now.
 * Deferring also needs the ends of the two to be equal (perf's lookups and
 * symbols__fixup_end read the survivor's end) - length class, NOTYPE class
 * (7.x) and binding class (weak / global / other) then tie for every
 * candidate of the list, so later comparisons that are decided before names
 * need no choice either.
 */


/* Does the model choose by perf 6.1's name rules (the summaries' rule)? */
static int summary_rules(const struct sim *S)
{
	return S->src->model->choose_by_summary;
}

static void pname_of(struct sim *S, const char *raw, struct pname *out)
{
	uint64_t h = sl_fnv1a(0xcbf29ce484222325ull, raw, strlen(raw));
	struct pname *slot = S->pn ? &S->pn[h & (PNAME_SLOTS - 1)] : NULL;
	const char *n;
	char *d;
	int unc = 0;

	if (slot && slot->valid && slot->h == h && !strcmp(slot->raw, raw)) {
		*out = *slot;
		return;
	}
	d = S->src->model->demangle(raw, S->src->demangle, &unc);
	n = d ? d : raw;
	out->h = h;
	out->raw = raw;
	out->u = (uint32_t)underscores(n);
	out->len = (uint32_t)strlen(n);
	out->sys = (out->len >= 3 && !strncmp(n, "SyS", 3)) || (out->len >= 10 && !strncmp(n, "compat_SyS", 10));
	out->unc = (uint8_t)unc;
	out->valid = 1;
	free(d);
	if (slot)
		*slot = *out;
}

/* sl_perf_choose_by_name() on summaries */
static int choose_pnames(const struct pname *a, const struct pname *b)
{
	if (b->u > a->u)
		return 0;
	if (a->u > b->u)
		return 1;
	if (a->len > b->len)
		return 0;
	if (a->len < b->len)
		return 1;
	return a->sys;
}

/* The name stage of choose_best_symbol() for symbols @ia (curr) and @ib
 * (next), with the model's names and rule: 0 = keep a, 1 = keep b. Sets
 * S->uncertain where perf's names cannot be mirrored. */
static int sim_choose_names(struct sim *S, uint64_t ia, uint64_t ib)
{
	const struct sl_model *m = S->src->model;
	const char *na = sim_name(S, ia), *nb = sim_name(S, ib);

	if (!na || !nb) {
		S->uncertain = 1;
		return 0;
	}
	if (!strcmp(na, nb))
		return m->choose_by_name(na, nb);
	if (summary_rules(S)) {
		struct pname pa, pb;

		pname_of(S, na, &pa);
		pname_of(S, nb, &pb);
		if (pa.unc || pb.unc) {
			S->uncertain = 1;
			return 0;
		}
		return choose_pnames(&pa, &pb);
	}
	{
		int unc = 0, r;
		char *da = m->demangle(na, S->src->demangle, &unc);
		char *db = m->demangle(nb, S->src->demangle, &unc);

		r = unc ? 0 : m->choose_by_name(da ? da : na, db ? db : nb);
		if (unc)
			S->uncertain = 1;
		free(da);
		free(db);
		return r;
	}
}

/* No name perf could store for @raw starts with "SyS" (or "compat_SyS"):
 * the C++ demanglers' output (libiberty's, __cxa_demangle's) starts with an
 * identifier copied from the mangled name or with a fixed string (none
 * starts "SyS"); escapes that can make other characters ('$' in legacy Rust
 * and OCaml names, Rust v0 "_R" names) are excluded. */
static int sys_free(const char *raw)
{
	return !strstr(raw, "SyS") && !strchr(raw, '$') && !(raw[0] == '_' && raw[1] == 'R');
}

/*
 * A pending node @a against @b whose raw name is one of a's candidates':
 * perf keeps a's survivor. Without the "SyS" tie rule, perf's fold keeps
 * the later candidate only if strictly better (fewer leading underscores,
 * else a longer name), so its survivor is at least as good as every
 * candidate; b has the same stored name as one of them, so it is not
 * strictly better, and a tie keeps a. 1 if that applies (only under the
 * summaries' rule: it is sl_perf_choose_by_name's property).
 */
static int copy_of_candidate(struct sim *S, const struct rbs_val *A, uint64_t ib)
{
	const char *nb = sim_name(S, ib);
	uint32_t q;
	int found = 0;

	if (!summary_rules(S) || !nb || !sys_free(nb))
		return 0;
	for (q = NODE_PEND(A); q; q = S->cand[q].next) {
		const char *n = sim_name(S, S->cand[q].id);

		if (!n || !sys_free(n))
			return 0;
		found |= !strcmp(n, nb);
	}
	return found;
}

/* Fold a candidate list (comparison order) as perf chose along it. */
uint64_t sim_fold_names(struct sim *S, const uint64_t *ids, uint32_t n)
{
	uint64_t s = ids[0];
	uint32_t i;

	for (i = 1; i < n; i++)
		if (sim_choose_names(S, s, ids[i]))
			s = ids[i];
	return s;
}

/* Identity of node @x, making its deferred choice if it has one. */
uint64_t sim_resolve(struct sim *S, uint32_t x)
{
	struct rbs_val *N = &S->t.v[x];
	uint32_t p = NODE_PEND(N), q;
	uint64_t s;

	if (!p)
		return N->id;
	s = S->cand[p].id;
	for (q = S->cand[p].next; q; q = S->cand[q].next)
		if (sim_choose_names(S, s, S->cand[q].id))
			s = S->cand[q].id;
	N->id = s;
	N->aux = (uint32_t)N->aux;  /* binding class, type class and flag are the list's */
	return s;
}


static int eager_choices;       /* symindex_debug_eager(): the reference */

void symindex_debug_eager(int on)
{
	eager_choices = on;
}

/*
 * choose_best_symbol() of tools/perf/util/symbol.c for curr @a and its
 * successor @b: 0 = keep a, 1 = keep b, CHOOSE_DEFER = the tree is the same
 * either way and only the names decide (see above). Rules in perf's order:
 * length, the model's NOTYPE rule (fixup.notype_loses, 7.x), weak, global,
 * then names. Under a model whose
 * symbols__fixup_duplicate marks IFUNC aliases (6.2+) the survivor's flag
 * and type depend on the choice when either node is STT_GNU_IFUNC or
 * already marked: such a choice is made now.
 */
int sim_choose(struct sim *S, uint32_t a, uint32_t b)
{
	const struct rbs_val *A = &S->t.v[a], *B = &S->t.v[b];
	uint64_t start = S->t.n[a].start;       /* == S->t.n[b].start */
	int64_t la = (int64_t)(A->end - start), lb = (int64_t)(B->end - start);
	unsigned ba = AUX_BIND(A->aux), bb = AUX_BIND(B->aux);
	int mark = S->src->model->fixup.dup_marks_ifunc_alias;

	if (lb == 0 && la > 0)
		return 0;
	if (la == 0 && lb > 0)
		return 1;
	/* 7.x: a NOTYPE symbol loses to one of another type. A pending node's
	 * type stands for its whole list: every choice deferred into it tied
	 * here, so its candidates are all NOTYPE or all not. */
	if (S->src->model->fixup.notype_loses && AUX_TYPE(A->aux) != AUX_TYPE(B->aux)) {
		if (AUX_TYPE(A->aux) == STT_NOTYPE)
			return 1;
		if (AUX_TYPE(B->aux) == STT_NOTYPE)
			return 0;
	}
	if ((bb == STB_WEAK) && !(ba == STB_WEAK))
		return 0;
	if ((ba == STB_WEAK) && !(bb == STB_WEAK))
		return 1;
	if ((ba == STB_GLOBAL) && !(bb == STB_GLOBAL))
		return 0;
	if ((bb == STB_GLOBAL) && !(ba == STB_GLOBAL))
		return 1;
	if (NODE_PEND(B))
		sim_resolve(S, b);      /* not reached: next is always a fresh node */
	if (!eager_choices && A->end == B->end && (S->t.n[a].right || !S->t.n[b].right) &&
	    !(mark && (AUX_TYPE(A->aux) == STT_GNU_IFUNC || AUX_TYPE(B->aux) == STT_GNU_IFUNC ||
		       ((A->aux | B->aux) & AUX_ALIAS))))
		return CHOOSE_DEFER;    /* no name read at all (most .dynsym copies) */
	if (!NODE_PEND(A)) {
		const char *na = sim_name(S, A->id), *nb = sim_name(S, B->id);

		if (na && nb && !strcmp(na, nb))
			return S->src->model->choose_by_name(na, nb);   /* same raw name: no demangling */
	} else if (copy_of_candidate(S, A, B->id)) {
		return 0;               /* e.g. the .dynsym copy of a C1/C2 pair */
	}
	return sim_choose_names(S, sim_resolve(S, a), B->id);
}

/* Record curr @a's choice against @b as pending (b is then erased). */
void sim_defer(struct sim *S, uint32_t a, uint32_t b)
{
	struct rbs_val *A = &S->t.v[a];
	uint32_t p = NODE_PEND(A), c;

	if (!p) {
		p = ++S->ncand;
		S->cand[p].id = A->id;
		S->cand[p].next = 0;
		S->cand[p].tail = p;
		A->aux = (uint32_t)A->aux | (uint64_t)p << 32;
	}
	c = ++S->ncand;
	S->cand[c].id = S->t.v[b].id;
	S->cand[c].next = 0;
	S->cand[S->cand[p].tail].next = c;
	S->cand[p].tail = c;
}
