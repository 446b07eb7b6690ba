/* SPDX-License-Identifier: MIT */
/*
 * Written from the algorithm of lib/rbtree.c (Linux); every branch below has
 * the same structure and the same pointer updates, because the shape -
 * not only the set - of the tree decides perf's answers.
 */
#include "index/rbsim.h"

#define N(i) (t->n[i])
#define V(i) (t->v[i])

/* lib/rbtree.c writes each rebalancing case twice, once per side; here one
 * body serves both: C(x, d) is x's right child for d = 1, its left one for
 * d = 0, so with d the side of the sibling (uncle) the updates are those of
 * the kernel's branch for that side. */
static inline uint32_t *child(struct rbs *t, uint32_t x, int d)
{
	return d ? &N(x).right : &N(x).left;
}
#define C(x, d) (*child(t, (x), (d)))

static void change_child(struct rbs *t, uint32_t old, uint32_t nw, uint32_t parent)
{
	if (parent) {
		if (N(parent).left == old)
			N(parent).left = nw;
		else
			N(parent).right = nw;
	} else {
		t->root = nw;
	}
}

/* __rb_rotate_set_parents(old, new, root, color) */
static void rotate_set_parents(struct rbs *t, uint32_t old, uint32_t nw, uint32_t red)
{
	uint32_t parent = N(old).parent;

	N(nw).parent = N(old).parent;
	N(nw).red = N(old).red;
	N(old).parent = nw;
	N(old).red = red;
	change_child(t, old, nw, parent);
}

static void set_pc(struct rbs *t, uint32_t x, uint32_t parent, uint32_t red)
{
	N(x).parent = parent;
	N(x).red = red;
}

static void insert_color(struct rbs *t, uint32_t node)
{
	uint32_t parent = N(node).parent, gparent, tmp;
	int u;

	for (;;) {
		if (!parent) {
			set_pc(t, node, 0, 0);
			break;
		}
		if (!N(parent).red)
			break;
		gparent = N(parent).parent;
		u = parent != N(gparent).right;   /* the uncle's side: 1 when parent == gparent->left */
		tmp = C(gparent, u);
		if (tmp && N(tmp).red) {
			set_pc(t, tmp, gparent, 0);
			set_pc(t, parent, gparent, 0);
			node = gparent;
			parent = N(node).parent;
			set_pc(t, node, parent, 1);
			continue;
		}
		tmp = C(parent, u);
		if (node == tmp) {
			tmp = C(node, !u);
			C(parent, u) = tmp;
			C(node, !u) = parent;
			if (tmp)
				set_pc(t, tmp, parent, 0);
			set_pc(t, parent, node, 1);
			parent = node;
			tmp = C(node, u);
		}
		C(gparent, !u) = tmp;
		C(parent, u) = gparent;
		if (tmp)
			set_pc(t, tmp, gparent, 0);
		rotate_set_parents(t, gparent, parent, 1);
		break;
	}
}

void rbs_link(struct rbs *t, uint32_t x, uint32_t parent, int left)
{
	N(x).parent = parent;
	N(x).red = 1;
	N(x).left = N(x).right = 0;
	if (!parent)
		t->root = x;
	else if (left)
		N(parent).left = x;
	else
		N(parent).right = x;
	insert_color(t, x);
}

void rbs_insert(struct rbs *t, uint32_t x)
{
	uint32_t parent = 0, p = t->root;
	int left = 0;

	while (p) {
		parent = p;
		if (N(x).start < N(p).start) {
			p = N(p).left;
			left = 1;
		} else {
			p = N(p).right;
			left = 0;
		}
	}
	rbs_link(t, x, parent, left);
}

static void erase_color(struct rbs *t, uint32_t parent)
{
	uint32_t node = 0, sibling, tmp1, tmp2;
	int d;

	for (;;) {
		d = node != N(parent).right;   /* the sibling's side: 1 when node == parent->left */
		sibling = C(parent, d);
		if (N(sibling).red) {
			tmp1 = C(sibling, !d);
			C(parent, d) = tmp1;
			C(sibling, !d) = parent;
			set_pc(t, tmp1, parent, 0);
			rotate_set_parents(t, parent, sibling, 1);
			sibling = tmp1;
		}
		tmp1 = C(sibling, d);
		if (!tmp1 || !N(tmp1).red) {
			tmp2 = C(sibling, !d);
			if (!tmp2 || !N(tmp2).red) {
				set_pc(t, sibling, parent, 1);
				if (N(parent).red) {
					N(parent).red = 0;
				} else {
					node = parent;
					parent = N(node).parent;
					if (parent)
						continue;
				}
				break;
			}
			tmp1 = C(tmp2, d);
			C(sibling, !d) = tmp1;
			C(tmp2, d) = sibling;
			C(parent, d) = tmp2;
			if (tmp1)
				set_pc(t, tmp1, sibling, 0);
			tmp1 = sibling;
			sibling = tmp2;
		}
		tmp2 = C(sibling, !d);
		C(parent, d) = tmp2;
		C(sibling, !d) = parent;
		set_pc(t, tmp1, sibling, 0);
		if (tmp2)
			N(tmp2).parent = parent;
		rotate_set_parents(t, parent, sibling, 0);
		break;
	}
}

void rbs_erase(struct rbs *t, uint32_t node)
{
	uint32_t child = N(node).right, tmp = N(node).left, parent, rebalance;
	uint32_t pc_parent, pc_red;

	if (!tmp) {
		pc_parent = N(node).parent;
		pc_red = N(node).red;
		parent = pc_parent;
		change_child(t, node, child, parent);
		if (child) {
			N(child).parent = pc_parent;
			N(child).red = pc_red;
			rebalance = 0;
		} else {
			rebalance = !pc_red ? parent : 0;
		}
	} else if (!child) {
		pc_parent = N(node).parent;
		pc_red = N(node).red;
		N(tmp).parent = pc_parent;
		N(tmp).red = pc_red;
		parent = pc_parent;
		change_child(t, node, tmp, parent);
		rebalance = 0;
	} else {
		uint32_t successor = child, child2;

		tmp = N(child).left;
		if (!tmp) {
			parent = successor;
			child2 = N(successor).right;
		} else {
			do {
				parent = successor;
				successor = tmp;
				tmp = N(tmp).left;
			} while (tmp);
			child2 = N(successor).right;
			N(parent).left = child2;
			N(successor).right = child;
			N(child).parent = successor;
		}
		tmp = N(node).left;
		N(successor).left = tmp;
		N(tmp).parent = successor;
		pc_parent = N(node).parent;
		pc_red = N(node).red;
		change_child(t, node, successor, pc_parent);
		if (child2) {
			set_pc(t, child2, parent, 0);
			rebalance = 0;
		} else {
			rebalance = !N(successor).red ? parent : 0;
		}
		N(successor).parent = pc_parent;
		N(successor).red = pc_red;
	}
	if (rebalance)
		erase_color(t, rebalance);
}

uint32_t rbs_first(const struct rbs *t)
{
	uint32_t x = t->root;

	if (!x)
		return 0;
	while (N(x).left)
		x = N(x).left;
	return x;
}

uint32_t rbs_next(const struct rbs *t, uint32_t x)
{
	uint32_t p;

	if (N(x).right) {
		x = N(x).right;
		while (N(x).left)
			x = N(x).left;
		return x;
	}
	while ((p = N(x).parent) && x == N(p).right)
		x = p;
	return p;
}

uint32_t rbs_find(const struct rbs *t, uint64_t ip)
{
	uint32_t x = t->root;

	while (x) {
		if (ip < N(x).start)
			x = N(x).left;
		else if (ip > V(x).end || (ip == V(x).end && ip != N(x).start))
			x = N(x).right;
		else
			return x;
	}
	return 0;
}

void rbs_fixup_end(struct rbs *t)
{
	rbs_fixup_end_page(t, 4096);
}

void rbs_fixup_end_page(struct rbs *t, uint64_t page)
{
	uint32_t prev, curr = rbs_first(t), nd;

	if (!curr)
		return;
	for (nd = rbs_next(t, curr); nd; nd = rbs_next(t, nd)) {
		prev = curr;
		curr = nd;
		if (V(prev).end == N(prev).start)
			V(prev).end = N(curr).start;
	}
	if (V(curr).end == N(curr).start)
		V(curr).end = (N(curr).start + page - 1) / page * page + page;
}

static int check(const struct rbs *t, uint32_t x, int *bh)
{
	int l, r;

	if (!x) {
		*bh = 1;
		return 0;
	}
	if (N(x).left && (N(N(x).left).parent != x || N(N(x).left).start > N(x).start))
		return -1;
	if (N(x).right && (N(N(x).right).parent != x || N(N(x).right).start < N(x).start))
		return -1;
	if (N(x).red && ((N(x).left && N(N(x).left).red) || (N(x).right && N(N(x).right).red)))
		return -1;
	if (check(t, N(x).left, &l) || check(t, N(x).right, &r) || l != r)
		return -1;
	*bh = l + !N(x).red;
	return 0;
}

int rbs_check(const struct rbs *t)
{
	int bh;

	if (t->root && (N(t->root).red || N(t->root).parent))
		return -1;
	return check(t, t->root, &bh);
}
