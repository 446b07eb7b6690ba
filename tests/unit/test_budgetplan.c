/* SPDX-License-Identifier: MIT */
/* Unit tests for budget planning: the exact cut and zero-size end overrides. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include "core/budgetplan.h"

/* index: 0 null, 1 f0 @0x100 size 16, 2 z1 @0x110 size 0, 3 f2 @0x120 size 16,
 *        4 (not a candidate), 5 z4 @0x140 size 0, 6 f5 @0x150 size 16 */
static const struct bp_sym table[] = {
	{ 0, 0, 0, 0, NULL },
	{ 0x100, 16, 10, 1, NULL },
	{ 0x110, 0, 10, 1, NULL },
	{ 0x120, 16, 10, 1, NULL },
	{ 0x130, 8, 10, 0, NULL },
	{ 0x140, 0, 10, 1, NULL },
	{ 0x150, 16, 10, 1, NULL },
};

static int get(void *ctx, uint32_t idx, struct bp_sym *out)
{
	(void)ctx;
	*out = table[idx];
	return 0;
}

static void test_exact_cut(void **state)
{
	struct budget b;
	struct budget_plan p;
	uint64_t c = 10;                        /* the table charges 10 bytes each */

	(void)state;
	budget_init(&b, 2 * c);                      /* fits exactly f0 and z1 */
	assert_int_equal(budget_plan_table(&b, 7, get, NULL, &p), 0);
	assert_int_equal(p.cut, 3);
	assert_int_equal(p.passed, 2);
	assert_int_equal(p.dropped, 3);              /* f2, z4, f5 */
	assert_int_equal(p.charged, 2 * c);
	assert_int_equal(atomic_load(&b.used), 2 * c);
	/* z1 is kept, its successor f2 dropped: z1 gets its full-table end */
	assert_int_equal(p.nover, 1);
	assert_int_equal(p.over[0].idx, 2);
	assert_int_equal(p.over[0].size, 0x10);
	free(p.over);
}

static void test_no_cut_no_override(void **state)
{
	struct budget b;
	struct budget_plan p;

	(void)state;
	budget_init(&b, 0);
	assert_int_equal(budget_plan_table(&b, 7, get, NULL, &p), 0);
	assert_int_equal(p.cut, 7);
	assert_int_equal(p.passed, 5);
	assert_int_equal(p.dropped, 0);
	assert_int_equal(p.nover, 0);               /* perf's own fixup is right */
}

static void test_latched_budget_drops_all(void **state)
{
	struct budget b;
	struct budget_plan p;

	(void)state;
	budget_init(&b, 10);
	assert_false(budget_try_charge(&b, 11));   /* an earlier table exhausted it */
	assert_int_equal(budget_plan_table(&b, 7, get, NULL, &p), 0);
	assert_int_equal(p.cut, 1);
	assert_int_equal(p.passed, 0);
	assert_int_equal(p.dropped, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_cut),
		cmocka_unit_test(test_no_cut_no_override),
		cmocka_unit_test(test_latched_budget_drops_all),
	};
	return cmocka_run_group_tests_name("budgetplan", tests, NULL, NULL);
}
