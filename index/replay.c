/* SPDX-License-Identifier: MIT */
/*
 * index/replay.c - the replay of perf's symbol rb-tree (rule 2 of
 * index/symindex.h): symbols inserted in perf's order (symbols__insert),
 * then symbols__fixup_duplicate, symbols__fixup_end and the PLT symbols
 * perf synthesizes, mirrored from tools/perf/util/symbol.c and
 * symbol-elf.c per the model's rules (index/model.h); answers per address.
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

/* The raw name of table symbol @id (SYMIDX_ID), *@sym its entry; NULL if
 * unreadable. */
const char *sim_src_name(const struct symidx_src *src, uint64_t id, GElf_Sym *sym)
{
	uint32_t table = (uint32_t)(id >> 32), i = (uint32_t)id;
	Elf_Data *tab = table ? src->dynsym : src->symtab;
	Elf_Data *str = table ? src->dynsym_str : src->symtab_str;

	if (table > 1 || !tab || !str || !str->d_buf || !src->ops->gelf_getsym(tab, (int)i, sym) ||
	    sym->st_name >= str->d_size || !memchr((const char *)str->d_buf + sym->st_name, 0,
						   str->d_size - sym->st_name))
		return NULL;
	return (const char *)str->d_buf + sym->st_name;
}

const char *sim_name(const struct sim *S, uint64_t id)
{
	GElf_Sym sym;

	return sim_src_name(S->src, id, &sym);
}

/*
 * Node numbering: node x (1-based) is the x-th symbol in index order
 * (start, table, index), which is the order of perf's tree (equal starts go
 * right on insert, i.e. stay in insertion order: .symtab by index, then
 * .dynsym). So the in-order walks of symbols__fixup_end and
 * symbols__fixup_duplicate are sweeps over the node array, and a subtree -
 * a range of starts - is a range of memory: the replay's inserts touch a
 * few cache lines per level instead of one random line per node. The tree
 * built is the same whatever the numbering (lib/rbtree.c looks at keys and
 * colours only). S->live holds the symbol nodes in the tree.
 *
 * It also gives each insert its place without the walk from the root: the
 * search for x's start ends at the nil child between x's in-order
 * neighbours in the tree - the live nodes numbered just below (P, start <=
 * x's) and just above (Q; start > x's, as equal starts are numbered in
 * insertion order) - which is P's right child if P has none, else Q's left
 * child (one of P, Q is an ancestor of the other). rbs_link() then does
 * what rbs_insert() does after its walk. The walks were three quarters of
 * a full replay (node: 181k inserts, a cache miss per level).
 */
uint32_t sim_next_live(const struct sim *S, uint32_t x)
{
	return nset_succ(&S->live, x);
}

static void sim_insert(struct sim *S, uint32_t x)
{
	uint32_t p = nset_pred(&S->live, x), q = nset_succ(&S->live, x);

	if (p && !S->t.n[p].right)
		rbs_link(&S->t, x, p, 0);
	else if (q && !S->t.n[q].left)
		rbs_link(&S->t, x, q, 1);
	else if (!p && !q)
		rbs_link(&S->t, x, 0, 0);
	else
		rbs_insert(&S->t, x);   /* not reached (see above) */
	nset_add(&S->live, x);
}

/* symbols__fixup_end(is_kallsyms = false) on the live symbol nodes, the
 * last one ending at the model's page rule */
static void sim_fixup_end(struct sim *S)
{
	struct rbs_node *n = S->t.n;
	struct rbs_val *v = S->t.v;
	uint64_t page = sl_model_last_page(S->src->model);
	uint32_t x, prev = 0;

	for (x = sim_next_live(S, 0); x; x = sim_next_live(S, x)) {
		if (prev && v[prev].end == n[prev].start)
			v[prev].end = n[x].start;
		prev = x;
	}
	if (prev && v[prev].end == n[prev].start)
		v[prev].end = (n[prev].start + page - 1) / page * page + page;
}

/* symbols__fixup_duplicate(); 6.2+ marks the survivor of an IFUNC pair */
static void sim_fixup_duplicate(struct sim *S)
{
	int mark = S->src->model->fixup.dup_marks_ifunc_alias;
	uint32_t curr = sim_next_live(S, 0), next;
	int r;

	while (curr) {
		next = sim_next_live(S, curr);
again:
		if (!next)
			break;
		if (S->t.n[curr].start != S->t.n[next].start) {
			curr = next;
			continue;
		}
		r = sim_choose(S, curr, next);
		if (r == CHOOSE_DEFER) {
			sim_defer(S, curr, next);
			r = 0;              /* the same tree as either choice */
		}
		if (r == 0) {
			if (mark && AUX_TYPE(S->t.v[next].aux) == STT_GNU_IFUNC)
				S->t.v[curr].aux |= AUX_ALIAS;
			rbs_erase(&S->t, next);
			nset_del(&S->live, next);
			next = sim_next_live(S, next);
			goto again;
		}
		if (mark && AUX_TYPE(S->t.v[curr].aux) == STT_GNU_IFUNC)
			S->t.v[next].aux |= AUX_ALIAS;
		rbs_erase(&S->t, curr);
		nset_del(&S->live, curr);
		curr = next;
	}
}

/* One synthesized symbol: symbol__new(start, len) + symbols__insert(); its
 * key is outside the node numbering, so it walks from the root. */
static void sim_insert_synth(struct sim *S, uint32_t *slot, uint64_t start, uint64_t len, uint64_t id)
{
	struct rbs_node *N = &S->t.n[*slot];
	struct rbs_val *V = &S->t.v[*slot];

	N->start = start;
	V->end = len ? start + len : start;
	V->id = id;
	V->aux = STB_GLOBAL | ((uint64_t)STT_FUNC << 8);
	rbs_insert(&S->t, *slot);
	(*slot)++;
	S->nsynth++;
}

/* dso__synthesize_plt_symbols() of perf 6.1 */
static void sim_plt_v61(struct sim *S, const struct symidx_layout *lay, uint32_t slot)
{
	uint32_t i;

	if (!lay->plt_ok)
		return;
	for (i = 0; i < lay->nplt_rel; i++)
		sim_insert_synth(S, &slot, lay->plt_first + (uint64_t)i * lay->plt_entsize, lay->plt_entsize,
				 SIM_PLT | i);
}

/*
 * dso__synthesize_plt_symbols() of perf 6.2+ (core/model/perf612.c lists the
 * rules). S->name_of[k] gets, for the IFUNC entries named from the tree, the
 * node whose name perf uses (0: none, "offset_0x..@plt").
 */
static void sim_plt_v62(struct sim *S, const struct symidx_layout *lay, uint32_t slot)
{
	const struct symidx_plt2 *p = &lay->p2;
	uint32_t x, hdr = 0, i, f = 0;
	uint64_t base, ent;

	if (!p->ok)
		return;
	x = rbs_find(&S->t, p->plt_off);
	if (x && S->t.n[x].start < p->plt_off && S->t.v[x].end > p->plt_off)
		S->t.v[x].end = p->plt_off;
	if (!p->sizes_ok)
		return;
	hdr = slot;
	sim_insert_synth(S, &slot, p->plt_off, p->hdr, SIM_PLT_HDR);
	for (i = 0; i < p->ngot; i++)
		sim_insert_synth(S, &slot, p->got_off + (uint64_t)i * p->got_ent, p->got_ent, SIM_PLT_GOT | i);
	if (p->sec) {
		S->t.v[hdr].end = p->plt_off + p->plt_size;
		base = p->sec_off;
		ent = p->sec_ent;
	} else {
		base = p->plt_off;
		ent = p->ent;
	}
	if (!p->rel_ok)
		return;
	if (!p->sec) {
		if ((uint64_t)p->nrel * ent == p->plt_size) {
			rbs_erase(&S->t, hdr);      /* dso__delete_symbol */
			S->nsynth--;
		} else {
			base += p->hdr;
		}
	}
	for (i = 0; i < p->nrel; i++) {
		if (f < p->nifunc && p->ifunc_k[f] == i) {
			uint32_t y = rbs_find(&S->t, p->ifunc_addr[f]);

			if (y && S->t.n[y].start == p->ifunc_addr[f] &&
			    (AUX_TYPE(S->t.v[y].aux) == STT_GNU_IFUNC || (S->t.v[y].aux & AUX_ALIAS)))
				S->name_of[i] = y;
			f++;
		}
		sim_insert_synth(S, &slot, base + (uint64_t)i * ent, ent, SIM_PLT | i);
	}
}

static uint32_t sim_synth_nodes(const struct symidx_layout *lay, enum sl_plt_rules plt)
{
	if (plt == SL_PLT_V61)
		return lay->plt_ok ? lay->nplt_rel : 0;
	if (!lay->p2.ok || !lay->p2.sizes_ok)
		return 0;
	return 1 + lay->p2.ngot + (lay->p2.rel_ok ? lay->p2.nrel : 0);
}

/*
 * sim_build - replay perf's load of the entries @ents[0..@nk) (indices into
 * idx->entries, ascending; NULL = every entry) and of the symbols the
 * model's PLT synthesis adds into S->t. Scratch memory is a memfd mapping,
 * not heap, except below SIM_HEAP_MAX bytes (a few hundred symbols: five
 * syscalls would cost more than the replay). Returns 0, 1 if a duplicate
 * choice depends on names the model cannot give, or -errno; sim_free()
 * after.
 */
#define SIM_HEAP_MAX (64u << 10)

void sim_free(struct sim *S)
{
	if (!S->map)
		return;
	if (S->heap)
		free(S->map);
	else
		munmap(S->map, S->map_size);
	S->map = NULL;
}

struct ins_ctx {
	const struct symidx_entry *e;
	const uint32_t *ents;
};

/* perf's insertion order of two positions of ents[]: (table, index) */
static int ins_order(const void *pa, const void *pb, void *ctx)
{
	const struct ins_ctx *c = ctx;
	const struct symidx_entry *a = &c->e[c->ents[*(const uint32_t *)pa]];
	const struct symidx_entry *b = &c->e[c->ents[*(const uint32_t *)pb]];

	if (a->table != b->table)
		return a->table < b->table ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

int sim_build(struct sim *S, const struct symidx *idx, const struct symidx_src *src,
		     const struct symidx_layout *lay, const uint32_t *ents, uint32_t nk)
{
	const struct sl_model *m = src->model;
	const struct symidx_entry *e = idx->entries;
	uint32_t i, nodes, *ins, nr[2] = { 0, 0 }, k, nslots = 0, npn, nname;
	char *p;
	int fd, t;

	memset(S, 0, sizeof(*S));
	S->idx = idx;
	S->src = src;
	if (!ents) {
		nk = idx->nentries;
		nslots = idx->nsymtab + idx->ndynsym;
	}
	nodes = nk + sim_synth_nodes(lay, m->plt) + 1;
	nname = m->plt == SL_PLT_V62 && lay->p2.rel_ok ? lay->p2.nrel : 0;
	/* nodes, the live set, deferred-choice lists (one element per erased
	 * node plus one per list: at most 2 nk), the name memo where it pays,
	 * the 6.2+ entry names, the insertion order (+ table slots for the
	 * whole table) */
	npn = nk >= PNAME_SLOTS / 4 ? PNAME_SLOTS : 0;
	S->map_size = (size_t)nodes * (sizeof(struct rbs_node) + sizeof(struct rbs_val)) +
		      nset_layout(NULL, nk + 1, NULL) * sizeof(uint64_t) +
		      (2 * (size_t)nk + 2) * sizeof(struct sim_cand) +
		      (size_t)npn * sizeof(struct pname) + (size_t)nname * sizeof(uint32_t) +
		      ((size_t)nk + nslots) * sizeof(uint32_t) + 64;
	S->heap = S->map_size <= SIM_HEAP_MAX;
	if (S->heap) {
		if (!(S->map = calloc(1, S->map_size)))
			return -ENOMEM;
	} else {
		fd = memfd_create("symlazy-sim", MFD_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (ftruncate(fd, (off_t)S->map_size) < 0) {
			close(fd);
			return -ENOMEM;
		}
		S->map = mmap(NULL, S->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		if (S->map == MAP_FAILED) {
			S->map = NULL;
			return -ENOMEM;
		}
	}
	S->t.n = S->map;
	S->t.v = (struct rbs_val *)(void *)(S->t.n + nodes);
	S->t.root = 0;
	S->nk = nk;
	S->nodes = nodes;
	p = (char *)(S->t.v + nodes);
	p += nset_layout(&S->live, nk + 1, (uint64_t *)(void *)p) * sizeof(uint64_t);
	S->cand = (struct sim_cand *)(void *)p;
	p += (2 * (size_t)nk + 2) * sizeof(struct sim_cand);
	if (npn) {
		S->pn = (struct pname *)(void *)p;
		p += (size_t)npn * sizeof(struct pname);
	}
	if (nname) {
		S->name_of = (uint32_t *)(void *)p;
		S->nname = nname;
		p += (size_t)nname * sizeof(uint32_t);
	}
	ins = (uint32_t *)(void *)p;
	if (!ents) {
		/* insertion order of the whole table by placing each entry at its
		 * table slot: O(n), no sort (the scratch starts zeroed) */
		uint32_t *slot = ins + nk;

		for (i = 0; i < idx->nentries; i++)
			slot[(e[i].table ? idx->nsymtab : 0) + e[i].idx] = i + 1;
		for (i = 0, k = 0; i < nslots; i++)
			if (slot[i])
				ins[k++] = slot[i] - 1;
	} else {
		struct ins_ctx c = { e, ents };

		for (i = 0; i < nk; i++)
			ins[i] = i;
		qsort_r(ins, nk, sizeof(*ins), ins_order, &c);
	}

	for (t = 0, k = 0; t < 2; t++) {
		for (; k < nk; k++) {
			uint32_t x = ins[k] + 1;
			const struct symidx_entry *E = &e[ents ? ents[ins[k]] : ins[k]];
			struct rbs_node *N = &S->t.n[x];
			struct rbs_val *V = &S->t.v[x];

			/* insertion order is random in memory: fetch ahead */
			if (k + 16 < nk) {
				__builtin_prefetch(&e[ents ? ents[ins[k + 16]] : ins[k + 16]]);
				__builtin_prefetch(&S->t.n[ins[k + 16] + 1], 1);
				__builtin_prefetch(&S->t.v[ins[k + 16] + 1], 1);
			}

			if (E->table != (uint32_t)t)
				break;
			N->start = E->start;
			V->end = E->size ? E->start + E->size : E->start;
			V->id = ((uint64_t)E->table << 32) | E->idx;
			V->aux = E->bind | ((uint64_t)E->type << 8);
			sim_insert(S, x);
			nr[t]++;
		}
		if (idx->abort_pass == (uint32_t)t + 1)
			break;      /* goto out_elf_end: no fixups, dso__load_sym() = -1 */
		if (nr[t]) {
			sim_fixup_end(S);
			sim_fixup_duplicate(S);
		}
	}
	if (nr[0] + nr[1] > 0 && !idx->abort_pass) {        /* dso__load: ret > 0 */
		if (m->plt == SL_PLT_V62)
			sim_plt_v62(S, lay, nk + 1);
		else
			sim_plt_v61(S, lay, nk + 1);
	}
	return S->uncertain ? 1 : 0;
}

/* perf's answer for each address into @o (symbol, start, end, name
 * source; every field but id may be NULL): 0, or 1 if a deferred choice
 * met names that cannot be mirrored. */
int sim_answers(struct sim *S, const uint64_t *addrs, size_t naddrs, const struct sim_out *o)
{
	size_t a;

	for (a = 0; a < naddrs; a++) {
		uint32_t x = rbs_find(&S->t, addrs[a]);
		uint64_t id = x ? sim_resolve(S, x) : SIM_NULL;

		o->id[a] = id;
		if (o->start)
			o->start[a] = x ? S->t.n[x].start : 0;
		if (o->end)
			o->end[a] = x ? S->t.v[x].end : 0;
		if (o->name) {
			uint32_t y = 0;

			if (S->name_of && (id >> 32) == (SIM_PLT >> 32) && (uint32_t)id < S->nname)
				y = S->name_of[(uint32_t)id];
			o->name[a] = y ? sim_resolve(S, y) : SIM_NULL;
			if (o->name_start)
				o->name_start[a] = y ? S->t.n[y].start : 0;
		}
	}
	return S->uncertain ? 1 : 0;
}
