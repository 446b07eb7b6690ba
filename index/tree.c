/* SPDX-License-Identifier: MIT */
/*
 * index/tree.c - perf's full tree, replayed once and cached beside the
 * index (file "<build-id>-<key>.tree"), the reduced tree of a keep-set,
 * and symindex_replay()/symindex_replay_ids(): the answers perf's tree gives
 * for a set of addresses.
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

/* ---- perf's full tree, cached ------------------------------------------
 *
 * The full tree depends on the DSO's tables, its layout, the model and the
 * demangling mode only - not on the addresses - so it is replayed once and
 * its final shape kept beside the index (file "<build-id>-<key>.tree"):
 * later runs answer the shape-dependent addresses with one rbs_find() walk
 * each instead of replaying every insertion (node: 181k symbols, 340M
 * instructions of replay per perf run). Only the search structure is
 * stored: start, end, id and the two children of each live node, in
 * breadth-first order (index 0 = none); a node whose duplicate choice was
 * deferred has id SIM_PEND | o, its candidates being pool[o+1 .. o+pool[o]],
 * and the choice is made when it answers. After the pool, the 6.2+ PLT
 * entries named from the tree: (entry k, node) pairs. A file whose replay
 * hit a name-dependent choice symlazy cannot mirror stores only that
 * verdict.
 */
#define SYMTREE_MAGIC   "SYMLZTR\0"
#define SYMTREE_VERSION 4u          /* 4: model in the key, named PLT entries */

struct symtree_hdr {
	char magic[8];
	uint32_t version, hdr_size;
	uint64_t key;               /* tree_key(): index key, model, demangling, version */
	uint64_t checksum;          /* symindex_checksum of everything after the header */
	uint32_t nnodes, root;      /* nodes[1..nnodes]; root 0 = empty */
	uint32_t uncertain;         /* 1: the replay needs names we cannot mirror */
	uint32_t npool;             /* uint64_t words of candidate lists after the nodes */
	uint32_t nnames, pad;       /* struct symtree_name after the pool */
};

struct symtree_node {
	uint64_t start, end, id;
	uint32_t left, right;
};

struct symtree_name {
	uint32_t k, node;           /* PLT entry k is named after node */
};

struct symtree {
	void *map;
	size_t map_size;
	const struct symtree_hdr *h;
	const struct symtree_node *n;   /* n[0] unused */
	const uint64_t *pool;
	const struct symtree_name *names;
};

#define SIM_PEND (5ull << 32)

static uint64_t tree_key(const struct symidx *idx, const struct symidx_src *src)
{
	const struct sl_model *m = src->model;
	uint64_t h = 0xcbf29ce484222325ull, v = SYMTREE_VERSION, page = sl_model_last_page(m);
	int32_t dem = src->demangle, rules[2] = { (int32_t)m->plt, m->fixup.dup_marks_ifunc_alias };
	const char *dn = m->demangler_name ? m->demangler_name() : "";

	h = sl_fnv1a(h, &v, sizeof(v));
	h = sl_fnv1a(h, &idx->key, sizeof(idx->key));
	h = sl_fnv1a(h, &dem, sizeof(dem));
	/* the model's rules and names: its name, PLT variant, fixups, and the
	 * demangler this process found (6.12: perf's own or __cxa_demangle) */
	h = sl_fnv1a(h, m->name, strlen(m->name) + 1);
	h = sl_fnv1a(h, rules, sizeof(rules));
	h = sl_fnv1a(h, &page, sizeof(page));
	if (m->fixup.notype_loses)      /* 7.x's choice (hashed only when set: 6.x keys stay) */
		h = sl_fnv1a(h, "notype", 6);
	return sl_fnv1a(h, dn, strlen(dn) + 1);
}

static void tree_name(const struct symidx_src *src, uint64_t key, char *buf, size_t n)
{
	char hex[2 * 20 + 1];

	build_id_hex(src->build_id, src->build_id_len > 20 ? 20 : src->build_id_len, hex);
	snprintf(buf, n, "%s-%016llx.tree", hex[0] ? hex : "nobuildid", (unsigned long long)key);
}

/* Map a cached tree; 0 if its header, size and checksum hold. Node links
 * are bounds-checked by tree_find() as it walks, not here. */
static int tree_open(const struct symidx_src *src, uint64_t key, struct symtree *T)
{
	char name[128];
	const struct symtree_hdr *h;
	void *map;
	size_t size;
	int r;

	memset(T, 0, sizeof(*T));
	if (src->cache_dirfd < 0)
		return -ENOENT;
	tree_name(src, key, name, sizeof(name));
	r = sl_cache_file_map(src->cache_dirfd, name, sizeof(*h), &map, &size);
	if (r < 0)
		return r;
	h = map;
	if (memcmp(h->magic, SYMTREE_MAGIC, 8) || h->version != SYMTREE_VERSION || h->hdr_size != sizeof(*h) ||
	    h->key != key || h->uncertain > 1 || h->root > h->nnodes || (h->uncertain && h->nnodes) ||
	    (uint64_t)size != sizeof(*h) + ((uint64_t)h->nnodes + 1) * sizeof(struct symtree_node) +
				    (uint64_t)h->npool * sizeof(uint64_t) +
				    (uint64_t)h->nnames * sizeof(struct symtree_name) ||
	    symindex_checksum((const char *)map + sizeof(*h), size - sizeof(*h)) != h->checksum) {
		munmap(map, size);
		return -EINVAL;
	}
	T->map = map;
	T->map_size = size;
	T->h = h;
	T->n = (const void *)(h + 1);
	T->pool = (const void *)(T->n + h->nnodes + 1);
	T->names = (const void *)(T->pool + h->npool);
	return 0;
}

/* rbs_find() on a mapped tree; -1 if a link is out of bounds or the walk is
 * deeper than a red-black tree of 2^32 nodes can be (a damaged file). */
static int tree_find(const struct symtree *T, uint64_t ip, uint32_t *out)
{
	uint32_t x = T->h->root, depth = 0;

	while (x) {
		const struct symtree_node *N;

		if (x > T->h->nnodes || ++depth > 2 * 32 + 2)
			return -1;
		N = &T->n[x];
		if (ip < N->start)
			x = N->left;
		else if (ip > N->end || (ip == N->end && ip != N->start))
			x = N->right;
		else
			break;
	}
	*out = x;
	return 0;
}

/* The identity of cached node @x (1..nnodes), a deferred choice made with
 * @R's names; -1 for a damaged candidate list. */
static int tree_id(const struct symtree *T, struct sim *R, uint32_t x, uint64_t *id)
{
	uint64_t v = T->n[x].id;

	if ((v >> 32) == (SIM_PEND >> 32)) {
		uint64_t o = (uint32_t)v;

		if (o >= T->h->npool || T->pool[o] < 2 || T->pool[o] > T->h->npool - o - 1)
			return -1;
		v = sim_fold_names(R, T->pool + o + 1, (uint32_t)T->pool[o]);
	}
	*id = v;
	return 0;
}

/* A buffered writer for tree_save(): the payload is checksummed a buffer
 * at a time as it goes out; the header is written last, at offset 0. */
struct fout {
	int fd, err;
	size_t n;
	struct symidx_cks c;
	unsigned char buf[1u << 15];
};

static void fout_flush(struct fout *f)
{
	if (!f->n)
		return;
	symidx_cks_update(&f->c, f->buf, f->n);
	if (!f->err && sl_cache_write_all(f->fd, f->buf, f->n) < 0)
		f->err = 1;
	f->n = 0;
}

static inline void fout_put(struct fout *f, const void *p, size_t n)
{
	if (f->n + n > sizeof(f->buf))
		fout_flush(f);
	memcpy(f->buf + f->n, p, n);
	f->n += n;
}

/* Write S's final tree (or, @uncertain, only that verdict) to the cache:
 * streamed with write() into a temp file, renamed into place. Failures are
 * silent: the next run replays. */
static void tree_save(const struct sim *S, const struct symidx_src *src, uint64_t key, int uncertain)
{
	struct symtree_hdr h;
	struct symtree_node nd;
	struct symtree_name nm;
	struct fout *f = NULL;
	uint32_t live = 0, npool = 0, nnames = 0, x, i, cnt = 0, o = 0, k, c, bad = 0;
	uint32_t *bfs = NULL, *q = NULL;
	char tmpname[96], name[128];
	int fd;

	if (src->cache_dirfd < 0)
		return;
	if (!uncertain) {
		live = S->nsynth;       /* synthesized nodes stay, but for the ".plt" one */
		for (x = sim_next_live(S, 0); x; x = sim_next_live(S, x)) {
			live++;
			if (NODE_PEND(&S->t.v[x]))
				for (npool++, c = NODE_PEND(&S->t.v[x]); c; c = S->cand[c].next)
					npool++;
		}
		for (k = 0; k < S->nname; k++)
			nnames += S->name_of[k] != 0;
		if (nnames && !(bfs = calloc(S->nodes + 1, sizeof(*bfs))))
			return;
	}
	fd = sl_cache_tmp_open(src, tmpname, sizeof(tmpname));
	if (fd < 0) {
		free(bfs);
		return;
	}
	f = malloc(sizeof(*f));
	q = malloc(((size_t)live + 1) * sizeof(*q));   /* breadth-first queue: sim node numbers */
	memset(&h, 0, sizeof(h));
	if (!f || !q || sl_cache_write_all(fd, &h, sizeof(h)) < 0)     /* room for the header */
		goto out;
	f->fd = fd;
	f->err = 0;
	f->n = 0;
	symidx_cks_init(&f->c);
	memset(&nd, 0, sizeof(nd));
	fout_put(f, &nd, sizeof(nd));       /* node 0: none */
	/* the nodes in breadth-first order: a node's number is its queue
	 * slot, so its children's numbers are known when they are queued */
	if (live && S->t.root)
		q[++cnt] = S->t.root;
	for (i = 1; i <= cnt; i++) {
		uint32_t sx = q[i];
		const struct rbs_node *N = &S->t.n[sx];
		const struct rbs_val *V = &S->t.v[sx];

		if (bfs && sx < S->nodes)
			bfs[sx] = i;
		nd.start = N->start;
		nd.end = V->end;
		nd.id = V->id;
		nd.left = nd.right = 0;
		if (NODE_PEND(V)) {     /* pool[o] = count, then the ids (below) */
			for (k = 0, c = NODE_PEND(V); c; c = S->cand[c].next)
				k++;
			nd.id = SIM_PEND | o;
			o += k + 1;
		}
		for (int side = 0; side < 2; side++) {  /* the left child, then the right one */
			uint32_t ch = side ? N->right : N->left;

			if (!ch)
				continue;
			if (cnt < live) {
				q[++cnt] = ch;
				*(side ? &nd.right : &nd.left) = cnt;
			} else {
				bad = 1;
			}
		}
		fout_put(f, &nd, sizeof(nd));
	}
	/* the candidate lists, in the same order */
	for (i = 1; i <= cnt && !bad && o == npool; i++) {
		const struct rbs_val *V = &S->t.v[q[i]];
		uint64_t n = 0;

		if (!NODE_PEND(V))
			continue;
		for (c = NODE_PEND(V); c; c = S->cand[c].next)
			n++;
		fout_put(f, &n, sizeof(n));
		for (c = NODE_PEND(V); c; c = S->cand[c].next)
			fout_put(f, &S->cand[c].id, sizeof(S->cand[c].id));
	}
	/* the PLT entries named from the tree */
	for (k = 0, i = 0; k < S->nname && i < nnames; k++) {
		if (!S->name_of[k])
			continue;
		nm.k = k;
		nm.node = bfs[S->name_of[k]];
		bad |= !nm.node;
		fout_put(f, &nm, sizeof(nm));
		i++;
	}
	fout_flush(f);
	memcpy(h.magic, SYMTREE_MAGIC, 8);
	h.version = SYMTREE_VERSION;
	h.hdr_size = sizeof(h);
	h.key = key;
	h.nnodes = cnt;
	h.root = cnt ? 1 : 0;
	h.uncertain = (uint32_t)!!uncertain;
	h.npool = npool;
	h.nnames = nnames;
	h.checksum = symidx_cks_final(&f->c);
	tree_name(src, key, name, sizeof(name));
	if (!bad && !f->err && cnt == live && o == npool && i == nnames &&
	    pwrite(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h)) {
		sl_cache_tmp_commit(src, tmpname, name, 1);
		tmpname[0] = '\0';
	}
out:
	sl_cache_tmp_commit(src, tmpname, "", 0);  /* not renamed: removed */
	close(fd);
	free(q);
	free(f);
	free(bfs);
}

/* The answers of the cached tree @T into @o; @R gives the names of
 * deferred choices. 0, or -1 if the file is damaged. */
static int tree_answers(const struct symtree *T, struct sim *R, const uint64_t *addrs, size_t naddrs,
			const struct sim_out *o)
{
	size_t a;

	for (a = 0; a < naddrs; a++) {
		uint32_t x, y = 0, j;
		uint64_t id = SIM_NULL, nid = SIM_NULL;

		if (tree_find(T, addrs[a], &x) < 0 || (x && tree_id(T, R, x, &id) < 0))
			return -1;
		if (x && (id >> 32) == (SIM_PLT >> 32))
			for (j = 0; j < T->h->nnames; j++)
				if (T->names[j].k == (uint32_t)id) {
					y = T->names[j].node;
					if (!y || y > T->h->nnodes || tree_id(T, R, y, &nid) < 0)
						return -1;
					break;
				}
		o->id[a] = id;
		if (o->start)
			o->start[a] = x ? T->n[x].start : 0;
		if (o->end)
			o->end[a] = x ? T->n[x].end : 0;
		if (o->name) {
			o->name[a] = y ? nid : SIM_NULL;
			if (o->name_start)
				o->name_start[a] = y ? T->n[y].start : 0;
		}
	}
	return 0;
}

/*
 * full_answers - perf's answers with the whole table for each address (@o:
 * symbol, start, end, name source) under src's model: from the cached tree,
 * else by replaying the full load (and caching its shape). Returns 0, 1 if
 * perf's duplicate choice needs names symlazy cannot mirror, or -errno.
 */
int sim_full_answers(const struct symidx *idx, const struct symidx_src *src,
			const struct symidx_layout *lay, const uint64_t *addrs, size_t naddrs,
			const struct sim_out *o)
{
	uint64_t key = tree_key(idx, src);
	struct symtree T;
	struct sim S;
	int r;

	if (tree_open(src, key, &T) == 0) {
		struct sim R;           /* names only, for deferred choices */
		int bad = 0;

		memset(&R, 0, sizeof(R));
		R.idx = idx;
		R.src = src;
		r = (int)T.h->uncertain;
		if (!r)
			bad = tree_answers(&T, &R, addrs, naddrs, o) < 0;
		munmap(T.map, T.map_size);
		if (R.uncertain)
			return 1;
		if (!bad)
			return r;
		/* damaged links: replay (and overwrite the file) */
	}
	r = sim_build(&S, idx, src, lay, NULL, 0);
	if (r >= 0) {
		tree_save(&S, src, key, r > 0);
		if (r == 0)
			r = sim_answers(&S, addrs, naddrs, o);
	}
	sim_free(&S);
	return r;
}

/* Which members of kept groups are shown after an aborted .dynsym pass.
 * There same-start duplicates stay in the tree and the first one a search
 * meets is the answer, so fewer duplicates mean fewer ways for the reduced
 * tree to meet another one:
 *   - a .dynsym member (inserted without fixups: it matters only as an
 *     answer and for the shape) is shown only if it is the full tree's
 *     answer for some address (dyn_ans, bits per .dynsym index);
 *   - the .symtab members of a group whose answers are all .dynsym members
 *     are left out too, unless a kept zero-size .symtab symbol ends at the
 *     group (end_need: perf's symbols__fixup_end uses it) or a .symtab
 *     member answers something (sym_ans); bits per group. */

int sim_member_kept(const struct members *M, const struct symidx_entry *E, uint32_t g)
{
	if (!M || !M->dyn_ans)
		return 1;
	if (E->table == 1)
		return BIT_TEST(M->dyn_ans, E->idx);
	return !BIT_TEST(M->dyn_grp, g) || BIT_TEST(M->sym_ans, g) || BIT_TEST(M->end_need, g);
}

/* The reduced load: the shown entries of the kept groups (O(kept), not a
 * pass over the whole table). */
int sim_reduced(const struct symidx *idx, const struct symidx_src *src,
		       const struct symidx_layout *lay, const uint8_t *kept, const struct members *M,
		       const uint64_t *addrs, size_t naddrs, const struct sim_out *o)
{
	uint32_t *ents, n = 0, cap = 0, i, k;
	struct sim S;
	int r;

	for (i = 0; i < idx->ngroups; i++)
		if (BIT_TEST(kept, i))
			cap += idx->groups[i].n;
	ents = malloc(((size_t)cap + 1) * sizeof(*ents));
	if (!ents)
		return -ENOMEM;
	for (i = 0; i < idx->ngroups; i++)
		if (BIT_TEST(kept, i))
			for (k = idx->groups[i].first; k < idx->groups[i].first + idx->groups[i].n; k++)
				if (sim_member_kept(M, &idx->entries[k], i))
					ents[n++] = k;
	r = sim_build(&S, idx, src, lay, ents, n);
	if (r == 0)
		r = sim_answers(&S, addrs, naddrs, o);
	sim_free(&S);
	free(ents);
	return r;
}

int symindex_replay(const struct symidx *idx, const struct symidx_src *src,
		    const struct symidx_layout *lay, const uint64_t *addrs, size_t naddrs,
		    struct symidx_answer *out)
{
	struct sim_out o;
	uint64_t *buf;
	size_t a;
	int r;

	memset(out, 0, naddrs * sizeof(*out));
	if (idx->unmodelable || !naddrs)
		return 0;
	buf = malloc(naddrs * 5 * sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	o.id = buf;
	o.start = buf + naddrs;
	o.end = buf + 2 * naddrs;
	o.name = buf + 3 * naddrs;
	o.name_start = buf + 4 * naddrs;
	r = sim_full_answers(idx, src, lay, addrs, naddrs, &o);
	for (a = 0; r >= 0 && a < naddrs; a++) {
		uint64_t id = o.id[a];
		struct symidx_answer *x = &out[a];

		if (id == SIM_NULL)
			continue;
		x->start = o.start[a];
		x->end = o.end[a];
		x->index = (uint32_t)id;
		switch (id >> 32) {
		case 0:
		case 1:
			x->kind = SYMIDX_ANS_SYM;
			x->table = (uint32_t)(id >> 32);
			break;
		case SIM_PLT >> 32:
			x->kind = SYMIDX_ANS_PLT;
			break;
		case SIM_PLT_HDR >> 32:
			x->kind = SYMIDX_ANS_PLT_HDR;
			break;
		default:
			x->kind = SYMIDX_ANS_PLT_GOT;
			break;
		}
		if (o.name[a] != SIM_NULL) {
			x->named_from = 1;
			x->name_table = (uint32_t)(o.name[a] >> 32);
			x->name_index = (uint32_t)o.name[a];
		}
	}
	free(buf);
	return r;
}

/* For core/lookup.c (the `symlazy lookup` API): perf's whole load
 * replayed once for @naddrs addresses, without a keep-set (see symindex.h). */
int symindex_replay_ids(const struct symidx *idx, const struct symidx_src *src,
			const struct symidx_layout *lay, const uint64_t *addrs, size_t naddrs,
			uint64_t *ans, uint64_t *ans_start)
{
	struct symidx_answer *x;
	size_t a;
	int r;

	if (idx->unmodelable)
		return -EINVAL;
	x = calloc(naddrs ? naddrs : 1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	r = symindex_replay(idx, src, lay, addrs, naddrs, x);
	for (a = 0; r >= 0 && a < naddrs; a++) {
		switch (x[a].kind) {
		case SYMIDX_ANS_SYM:
			ans[a] = SYMIDX_ID(x[a].table, x[a].index);
			break;
		case SYMIDX_ANS_PLT:
			ans[a] = SYMIDX_ID_PLT | x[a].index;
			break;
		case SYMIDX_ANS_PLT_HDR:
			ans[a] = SYMIDX_ID_PLT_HDR;
			break;
		case SYMIDX_ANS_PLT_GOT:
			ans[a] = SYMIDX_ID_PLT_GOT | x[a].index;
			break;
		default:
			ans[a] = SYMIDX_ID_NULL;
			break;
		}
		if (ans_start)
			ans_start[a] = x[a].kind == SYMIDX_ANS_NONE ? 0 : x[a].start;
	}
	free(x);
	return r;
}
