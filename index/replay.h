/* SPDX-License-Identifier: MIT */
/*
 * index/replay.h - internal to index/: the replay of perf's symbol rb-tree
 * (rule 2 of index/symindex.h) shared by its files:
 *   index/replay.c  the tree: insertion order, symbols__fixup_end,
 *                   symbols__fixup_duplicate, PLT synthesis, answers;
 *   index/choose.c  choose_best_symbol between same-start duplicates, and
 *                   the choices deferred until a lookup needs them;
 *   index/tree.c    perf's full tree cached beside the index, the reduced
 *                   tree of a keep-set, symindex_replay();
 *   index/answer.c  answers without a replay and the keep-set plan.
 * Nothing outside index/ includes it.
 */
#ifndef SYMLAZY_INDEX_REPLAY_H
#define SYMLAZY_INDEX_REPLAY_H

#include <stdint.h>
#include <stddef.h>
#include "index/model.h"
#include "index/rbsim.h"
#include "index/symindex.h"

#define SIM_NULL UINT64_MAX
#define SIM_PLT  (2ull << 32)           /* | k: the k-th relocation entry */
#define SIM_PLT_HDR (3ull << 32)        /* the ".plt" symbol (6.2+) */
#define SIM_PLT_GOT (4ull << 32)        /* | j: the j-th .plt.got entry (6.2+) */
#define SIM_SYNTH(id) ((id) != SIM_NULL && ((id) >> 32) >= 2)

/* rbs_val.aux: low 32 bits the ELF binding, type and perf's ifunc_alias
 * flag; high 32 bits the node's deferred-choice list (0: none) */
#define AUX_BIND(x)  ((unsigned)((x) & 0xff))
#define AUX_TYPE(x)  ((unsigned)(((x) >> 8) & 0xff))
#define AUX_ALIAS    (1ull << 16)
#define NODE_PEND(V) ((uint32_t)((V)->aux >> 32))

/*
 * A set of node numbers with predecessor / successor queries: one bit per
 * node, and above it levels of one bit per non-zero word of the level
 * below, up to a level of one word (6 levels cover 2^32 nodes). Each query
 * reads one word per level, up and down: a few cache lines, against one
 * line per tree level for a walk from the root.
 */
#define NSET_LEVELS 6

struct nset {
	uint64_t *w[NSET_LEVELS];
	uint32_t nlev;
};

/* Words for @nbits bits (all levels); sets @s's level pointers if @mem. */
static inline size_t nset_layout(struct nset *s, uint32_t nbits, uint64_t *mem)
{
	size_t total = 0, n = nbits;
	uint32_t l = 0;

	do {
		n = (n + 63) / 64;
		if (mem)
			s->w[l] = mem + total;
		total += n;
		l++;
	} while (n > 1 && l < NSET_LEVELS);
	if (mem)
		s->nlev = l;
	return total;
}

static inline void nset_add(struct nset *s, uint32_t i)
{
	uint32_t l;

	for (l = 0; l < s->nlev; l++, i >>= 6) {
		uint64_t *w = &s->w[l][i >> 6], old = *w;

		*w = old | 1ull << (i & 63);
		if (old)
			return;     /* the levels above already have this word */
	}
}

static inline void nset_del(struct nset *s, uint32_t i)
{
	uint32_t l;

	for (l = 0; l < s->nlev; l++, i >>= 6) {
		uint64_t *w = &s->w[l][i >> 6];

		*w &= ~(1ull << (i & 63));
		if (*w)
			return;
	}
}

/* Smallest member above @i, 0 if none (members are >= 1). */
static inline uint32_t nset_succ(const struct nset *s, uint32_t i)
{
	uint32_t l = 0;
	uint64_t m;

	for (;; l++, i >>= 6) {
		if (l == s->nlev)
			return 0;
		m = (i & 63) == 63 ? 0 : s->w[l][i >> 6] & (~0ull << ((i & 63) + 1));
		if (m) {
			i = (i & ~63u) | (uint32_t)__builtin_ctzll(m);
			break;
		}
	}
	while (l-- > 0)
		i = i << 6 | (uint32_t)__builtin_ctzll(s->w[l][i]);
	return i;
}

/* Largest member below @i, 0 if none. */
static inline uint32_t nset_pred(const struct nset *s, uint32_t i)
{
	uint32_t l = 0;
	uint64_t m;

	for (;; l++, i >>= 6) {
		if (l == s->nlev)
			return 0;
		m = s->w[l][i >> 6] & ((1ull << (i & 63)) - 1);
		if (m) {
			i = (i & ~63u) | (63u - (uint32_t)__builtin_clzll(m));
			break;
		}
	}
	while (l-- > 0)
		i = i << 6 | (63u - (uint32_t)__builtin_clzll(s->w[l][i]));
	return i;
}


struct pname;
struct sim_cand;

struct sim {
	const struct symidx *idx;
	const struct symidx_src *src;
	int uncertain;
	struct rbs t;
	void *map;
	size_t map_size;
	int heap;                   /* map is calloc'ed (small), else a memfd mapping */
	uint32_t nk, nodes;         /* symbol nodes (1..nk), then synthesized ones; all */
	uint32_t nsynth;            /* synthesized nodes in the tree */
	uint32_t *name_of;          /* 6.2+: per relocation entry, the node perf names it
				     * after (0: none); nname entries */
	uint32_t nname;
	struct sim_cand *cand;      /* deferred choices: lists, 1-based */
	uint32_t ncand;
	struct pname *pn;           /* PNAME_SLOTS memoized names, or NULL */
	struct nset live;           /* symbol nodes in the tree */
};

/* What perf answers per address: the symbol, its end, and for PLT entries
 * named from the tree (6.2+ IFUNC entries) the symbol the name comes from. */
struct sim_out {
	uint64_t *id, *start, *end;
	uint64_t *name, *name_start;        /* SIM_NULL: the name depends on no symbol */
};

struct sim_cand {
	uint64_t id;
	uint32_t next, tail;        /* tail: valid in a list's first element */
};

/*
 * What choose_best_symbol() reads of the name perf stores for a raw name:
 * leading underscores, length, the "SyS" / "compat_SyS" prefix (x86
 * arch__choose_best_symbol); unc: perf's name cannot be mirrored. Memoized
 * by raw name (direct-mapped, in the replay's scratch): .symtab and
 * .dynsym copies of a symbol, and a survivor compared again, demangle once.
 * The summary is what sl_perf_choose_by_name() reads, so it stands for the
 * model's names only with that choice rule (perf 6.1 and 6.12 alike); a
 * model with another rule gets its demangle() and choose_by_name() called.
 */
struct pname {
	uint64_t h;
	const char *raw;
	uint32_t u, len;
	uint8_t sys, unc, valid;
};
#define PNAME_SLOTS 4096u

/* sim_choose(): the tree is the same whichever is kept, choose later */
#define CHOOSE_DEFER 2

/* Keep-set members a reduced tree keeps (index/tree.c, index/answer.c). */
struct members {
	uint8_t *dyn_ans, *dyn_grp, *sym_ans, *end_need;
};

/* index/replay.c */
const char *sim_name(const struct sim *S, uint64_t id);
const char *sim_src_name(const struct symidx_src *src, uint64_t id, GElf_Sym *sym);
uint32_t sim_next_live(const struct sim *S, uint32_t x);
int sim_answers(struct sim *S, const uint64_t *addrs, size_t naddrs, const struct sim_out *o);
int sim_build(struct sim *S, const struct symidx *idx, const struct symidx_src *src,
		     const struct symidx_layout *lay, const uint32_t *ents, uint32_t nk);
void sim_free(struct sim *S);

/* index/choose.c */
int sim_same_print(const struct symidx_src *src, uint64_t a, uint64_t b);
int sim_choose(struct sim *S, uint32_t a, uint32_t b);
void sim_defer(struct sim *S, uint32_t a, uint32_t b);
uint64_t sim_resolve(struct sim *S, uint32_t x);
uint64_t sim_fold_names(struct sim *S, const uint64_t *ids, uint32_t n);

/* index/tree.c: 0, 1 (fall back, util/reason.h: the duplicate choice needs
 * names symlazy cannot mirror; symindex_plan says SL_R_DUP_DEMANGLE or
 * SL_R_DEMANGLER) or -errno */
int sim_full_answers(const struct symidx *idx, const struct symidx_src *src,
			const struct symidx_layout *lay, const uint64_t *addrs, size_t naddrs,
			const struct sim_out *o);
int sim_member_kept(const struct members *M, const struct symidx_entry *E, uint32_t g);
int sim_reduced(const struct symidx *idx, const struct symidx_src *src,
		       const struct symidx_layout *lay, const uint8_t *kept, const struct members *M,
		       const uint64_t *addrs, size_t naddrs, const struct sim_out *o);

#endif
