/* SPDX-License-Identifier: MIT */
/*
 * rbsim.h - a node-for-node replica of the Linux red-black tree
 * (tools/lib/rbtree.c == lib/rbtree.c: __rb_insert, __rb_erase_augmented,
 * ____rb_erase_color) and of perf 6.1's use of it for symbols
 * (tools/perf/util/symbol.c: __symbols__insert keyed by start with equal keys
 * going right, symbols__find, symbols__fixup_end, symbols__fixup_duplicate).
 *
 * With overlapping symbols, perf's answer for an address depends on the
 * tree's shape; replaying the same inserts and erases in the same order gives
 * the same shape, hence the same answer. Nodes live in a caller-provided
 * array (index 0 = NIL), so the simulation can sit in a file mapping.
 */
#ifndef SYMLAZY_RBSIM_H
#define SYMLAZY_RBSIM_H

#include <stdint.h>

/* What the tree walks read - key and links, 24 bytes - apart from the rest
 * of a symbol: a walk down a tree of 10^5 nodes misses the cache at every
 * level below the top ones, and smaller nodes mean fewer lines per level. */
struct rbs_node {
	uint64_t start;             /* perf's symbol start (the key) */
	uint32_t left, right, parent;
	uint32_t red;               /* 1 red, 0 black */
};

struct rbs_val {                /* v[i] belongs to n[i] */
	uint64_t end;               /* perf's symbol end */
	uint64_t id;                /* caller's identity of the symbol */
	uint64_t aux;               /* caller's data (e.g. binding, name) */
};

struct rbs {
	struct rbs_node *n;         /* n[0] unused (NIL) */
	struct rbs_val *v;
	uint32_t root;
};

/* Insert node @x (start set; v[x] as the caller likes) as perf's
 * __symbols__insert does. */
void rbs_insert(struct rbs *t, uint32_t x);
/* The second half of rbs_insert: link @x as the left (@left = 1) or right
 * child of @parent (0: as the root) - the nil child where the search for
 * x's start ends - and rebalance (rb_link_node + rb_insert_color). For
 * callers that know that place without walking down from the root: it is
 * the right child of x's in-order predecessor if that one has none, else the
 * left child of x's in-order successor. */
void rbs_link(struct rbs *t, uint32_t x, uint32_t parent, int left);
/* rb_erase(). */
void rbs_erase(struct rbs *t, uint32_t x);
/* In-order first / next, 0 at the end. */
uint32_t rbs_first(const struct rbs *t);
uint32_t rbs_next(const struct rbs *t, uint32_t x);
/* symbols__find(): the node perf returns for @ip, or 0. */
uint32_t rbs_find(const struct rbs *t, uint64_t ip);
/* symbols__fixup_end(is_kallsyms=false). */
void rbs_fixup_end(struct rbs *t);
/* ... with the last symbol ending at roundup(start, @page) + @page (the
 * model's fixup rule; rbs_fixup_end uses 4096). */
void rbs_fixup_end_page(struct rbs *t, uint64_t page);
/* rbs_check - verify BST order and red-black invariants; 0 if valid. For tests. */
int rbs_check(const struct rbs *t);

#endif
