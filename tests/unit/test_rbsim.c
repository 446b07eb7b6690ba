/* SPDX-License-Identifier: MIT */
/* Unit tests for the replica of the Linux rbtree and perf's use of it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "rbsim.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invariants_random),
		cmocka_unit_test(test_shape_sequential),
		cmocka_unit_test(test_find_and_fixup),
	};
	return cmocka_run_group_tests_name("rbsim", tests, NULL, NULL);
}
