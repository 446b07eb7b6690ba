/* SPDX-License-Identifier: MIT */
/* Unit tests for the replica of the Linux rbtree and perf's use of it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "index/rbsim.h"

#define NN 5000

static struct rbs_node nodes[NN + 1];
static struct rbs_val vals[NN + 1];

static void test_invariants_random(void **state)
{
	struct rbs t = { nodes, vals, 0 };
	unsigned seed = 12345, i, alive = 0;
	uint32_t x, prev;

	(void)state;
	memset(nodes, 0, sizeof(nodes));
	memset(vals, 0, sizeof(vals));
	for (i = 1; i <= NN; i++) {
		nodes[i].start = rand_r(&seed) % 1000;   /* many equal keys */
		vals[i].end = nodes[i].start;
		vals[i].id = i;
		rbs_insert(&t, i);
		alive++;
		if (i % 97 == 0)
			assert_int_equal(rbs_check(&t), 0);
	}
	assert_int_equal(rbs_check(&t), 0);
	/* equal keys go right: in-order keeps insertion order among equals */
	for (prev = 0, x = rbs_first(&t); x; prev = x, x = rbs_next(&t, x))
		if (prev && nodes[prev].start == nodes[x].start)
			assert_true(vals[prev].id < vals[x].id);
	for (i = 1; i <= NN; i += 3) {
		rbs_erase(&t, i);
		alive--;
		if (i % 31 == 0)
			assert_int_equal(rbs_check(&t), 0);
	}
	assert_int_equal(rbs_check(&t), 0);
	for (i = 0, x = rbs_first(&t); x; x = rbs_next(&t, x))
		i++;
	assert_int_equal(i, alive);
}

static void test_shape_sequential(void **state)
{
	struct rbs t = { nodes, vals, 0 };
	uint32_t i;

	(void)state;
	memset(nodes, 0, sizeof(nodes));
	memset(vals, 0, sizeof(vals));
	/* Linux rbtree after inserting keys 1..7 in order (worked by hand from
	 * lib/rbtree.c): root 2 (1, 4), 4 red with (3, 6), 6 with (5, 7). */
	for (i = 1; i <= 7; i++) {
		nodes[i].start = vals[i].end = i * 16;
		rbs_insert(&t, i);
	}
	assert_int_equal(t.root, 2);
	assert_int_equal(nodes[2].left, 1);
	assert_int_equal(nodes[2].right, 4);
	assert_int_equal(nodes[4].left, 3);
	assert_int_equal(nodes[4].right, 6);
	assert_int_equal(nodes[6].left, 5);
	assert_int_equal(nodes[6].right, 7);
	assert_true(nodes[4].red);
	assert_int_equal(rbs_check(&t), 0);
}

static void test_find_and_fixup(void **state)
{
	struct rbs t = { nodes, vals, 0 };

	(void)state;
	memset(nodes, 0, sizeof(nodes));
	memset(vals, 0, sizeof(vals));
	/* outer [0x100,0x140), zero-size label at 0x110, f at 0x200 (size 0x10) */
	nodes[1] = (struct rbs_node){ .start = 0x100 };
	vals[1] = (struct rbs_val){ .end = 0x140, .id = 1 };
	nodes[2] = (struct rbs_node){ .start = 0x110 };
	vals[2] = (struct rbs_val){ .end = 0x110, .id = 2 };
	nodes[3] = (struct rbs_node){ .start = 0x200 };
	vals[3] = (struct rbs_val){ .end = 0x210, .id = 3 };
	rbs_insert(&t, 1);
	rbs_insert(&t, 2);
	rbs_insert(&t, 3);
	rbs_fixup_end(&t);
	assert_int_equal(vals[2].end, 0x200);     /* label ends at its successor */
	assert_int_equal(vals[3].end, 0x210);
	/* root is the label (2): 0x120 is inside both; the root wins */
	assert_int_equal(t.root, 2);
	assert_int_equal(rbs_find(&t, 0x120), 2);
	assert_int_equal(rbs_find(&t, 0x105), 1);
	assert_int_equal(rbs_find(&t, 0x210), 0);  /* ip == end, end != start */
	assert_int_equal(rbs_find(&t, 0x50), 0);
}

/*
 * rbs_link at the nil child between a node's in-order neighbours (right of
 * the predecessor if free, else left of the successor) builds the tree the
 * walk of rbs_insert builds (index/symindex.c sim_insert relies on it), also
 * with equal keys and erasures in between. Nodes are numbered by (key,
 * insertion order), so in-order neighbours are the nearest live numbers.
 */
static struct rbs_node nodes2[NN + 1];
static struct rbs_val vals2[NN + 1];

static void test_link_at_neighbours(void **state)
{
	struct rbs a = { nodes, vals, 0 }, b = { nodes2, vals2, 0 };
	static uint32_t key[NN + 1], order[NN], live[NN + 2];
	unsigned seed = 99, i, j, x;

	(void)state;
	memset(nodes, 0, sizeof(nodes));
	memset(nodes2, 0, sizeof(nodes2));
	/* the i-th insert has a random key (many equal); its node number is its
	 * rank by (key, insertion order), as the replay numbers symbols */
	{
		static uint32_t ikey[NN], first[NN / 3 + 1];

		memset(first, 0, sizeof(first));
		for (i = 0; i < NN; i++) {
			ikey[i] = (uint32_t)rand_r(&seed) % (NN / 3);
			first[ikey[i]]++;
		}
		for (i = 0, j = 1; i < NN / 3; i++) {   /* counts -> first rank */
			uint32_t c = first[i];

			first[i] = j;
			j += c;
		}
		for (i = 0; i < NN; i++) {
			order[i] = first[ikey[i]]++;    /* node of the i-th insert */
			key[order[i]] = ikey[i];
		}
	}
	for (i = 0; i < NN; i++) {
		uint32_t p = 0, q = 0;

		x = order[i];
		nodes[x].start = nodes2[x].start = key[x];
		rbs_insert(&a, x);
		for (j = x - 1; j >= 1 && !p; j--)
			if (live[j])
				p = j;
		for (j = x + 1; j <= NN && !q; j++)
			if (live[j])
				q = j;
		if (p && !nodes2[p].right)
			rbs_link(&b, x, p, 0);
		else if (q && !nodes2[q].left)
			rbs_link(&b, x, q, 1);
		else {
			assert_true(!p && !q);
			rbs_link(&b, x, 0, 0);
		}
		live[x] = 1;
		if (i % 7 == 6) {       /* erase a random live node in both */
			uint32_t y = order[(unsigned)rand_r(&seed) % (i + 1)];

			if (live[y]) {
				rbs_erase(&a, y);
				rbs_erase(&b, y);
				live[y] = 0;
			}
		}
	}
	assert_int_equal(a.root, b.root);
	for (x = 1; x <= NN; x++) {
		assert_int_equal(nodes[x].left, nodes2[x].left);
		assert_int_equal(nodes[x].right, nodes2[x].right);
		assert_int_equal(nodes[x].parent, nodes2[x].parent);
		assert_int_equal(nodes[x].red, nodes2[x].red);
	}
	assert_int_equal(rbs_check(&b), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invariants_random),
		cmocka_unit_test(test_shape_sequential),
		cmocka_unit_test(test_find_and_fixup),
		cmocka_unit_test(test_link_at_neighbours),
	};
	return cmocka_run_group_tests_name("rbsim", tests, NULL, NULL);
}
