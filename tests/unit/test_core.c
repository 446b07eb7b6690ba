/* SPDX-License-Identifier: MIT */
/* Unit tests: size parsing, config, strict budget (incl. threads), scan detection. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include "core/budget.h"
#include "core/config.h"
#include "core/models.h"
#include "core/scan.h"

static void test_parse_size(void **state)
{
	uint64_t v = 1;

	(void)state;
	assert_int_equal(config_parse_size("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(config_parse_size("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(config_parse_size("64M", &v), 0);
	assert_int_equal(v, 64ull << 20);
	assert_int_equal(config_parse_size("8m", &v), 0);
	assert_int_equal(v, 8ull << 20);
	assert_int_equal(config_parse_size("2G", &v), 0);
	assert_int_equal(v, 2ull << 30);
	assert_int_equal(config_parse_size("16KiB", &v), 0);
	assert_int_equal(v, 16ull << 10);
	assert_int_equal(config_parse_size("1kb", &v), 0);
	assert_int_equal(v, 1024);
	assert_int_equal(config_parse_size("", &v), -EINVAL);
	assert_int_equal(config_parse_size("-1", &v), -EINVAL);
	assert_int_equal(config_parse_size("12Q", &v), -EINVAL);
	assert_int_equal(config_parse_size("M", &v), -EINVAL);
	assert_int_equal(config_parse_size("1.5M", &v), -EINVAL);
	assert_int_equal(config_parse_size("99999999999999999999999", &v), -ERANGE);
	assert_int_equal(config_parse_size("99999999999G", &v), -ERANGE);
}

static const char *fake_env[][2] = {
	{ "SYMLAZY_MAX_BYTES", "bogus" }, { "SYMLAZY_LAZY", "off" }, { "SYMLAZY_STATS", "/tmp/x.json" },
	{ "SYMLAZY_CACHE_DIR", "off" }, { "SYMLAZY_MMAP", "0" }, { NULL, NULL },
};

static const char *fake_get(const char *name)
{
	for (int i = 0; fake_env[i][0]; i++)
		if (!strcmp(fake_env[i][0], name))
			return fake_env[i][1];
	return NULL;
}

static const char *home_get(const char *name)
{
	if (!strcmp(name, "HOME"))
		return "/home/u";
	if (!strcmp(name, "SYMLAZY_MAX_BYTES"))
		return "8M";
	return NULL;
}

static void test_config(void **state)
{
	struct symlazy_config c;

	(void)state;
	config_load(&c, fake_get);
	assert_int_equal(c.max_bytes, 0);           /* bad value -> unlimited */
	assert_non_null(strstr(c.error, "SYMLAZY_MAX_BYTES=bogus"));
	assert_int_equal(c.lazy, LAZY_OFF);
	assert_int_equal(c.stats, STATS_FILE);
	assert_string_equal(c.stats_path, "/tmp/x.json");
	assert_string_equal(c.cache_dir, "");
	assert_int_equal(c.mmap, 0);
	config_load(&c, home_get);
	assert_int_equal(c.max_bytes, 8ull << 20);
	assert_string_equal(c.cache_dir, "/home/u/.cache/symlazy");
	assert_int_equal(c.mmap, 1);
	assert_int_equal(c.lazy, LAZY_AUTO);
	assert_string_equal(c.error, "");
}

static void test_budget_strict(void **state)
{
	struct budget b;

	(void)state;
	budget_init(&b, 100);
	assert_true(budget_try_charge(&b, 60));
	assert_true(budget_try_charge(&b, 40));      /* exactly at the cap */
	assert_false(budget_try_charge(&b, 1));
	assert_true(budget_exhausted(&b));
	assert_int_equal(atomic_load(&b.used), 100);
	budget_init(&b, 100);
	assert_true(budget_try_charge(&b, 90));
	assert_false(budget_try_charge(&b, 20));     /* would exceed: refused ... */
	assert_false(budget_try_charge(&b, 5));      /* ... and latched */
	assert_int_equal(atomic_load(&b.used), 90);
	assert_int_equal(atomic_load(&b.refused), 25);
	budget_init(&b, 0);                         /* unlimited still counts */
	assert_true(budget_try_charge(&b, 1ull << 40));
	assert_int_equal(atomic_load(&b.used), 1ull << 40);
	assert_int_equal(sl_model_perf61.sym.sym_cost(10), 64 + 11);   /* perf 6.1: 64 + name + NUL */
}

#define NTHREADS 8
#define PER_THREAD 100000
static struct budget shared;
static _Atomic unsigned long admitted;

static void *racer(void *arg)
{
	(void)arg;
	for (int i = 0; i < PER_THREAD; i++)
		if (budget_try_charge(&shared, 83))
			atomic_fetch_add(&admitted, 1);
	return NULL;
}

static void test_budget_threads(void **state)
{
	pthread_t t[NTHREADS];
	const unsigned long K = 123457;     /* the budget fits exactly K charges */

	(void)state;
	budget_init(&shared, K * 83 + 82);
	atomic_store(&admitted, 0);
	for (int i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, racer, NULL);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(atomic_load(&admitted), K);
	assert_int_equal(atomic_load(&shared.used), K * 83);
}

static void test_scan_perf_pattern(void **state)
{
	struct scan_state s = { 0 };

	(void)state;
	/* perf's for-loop: idx 0 from the init site, 1.. from the increment site */
	assert_int_equal(scan_step(&s, 0, 4, 0x100, 1), SCAN_START);
	assert_int_equal(scan_step(&s, 1, 4, 0x200, 1), SCAN_NEXT);
	assert_int_equal(scan_step(&s, 2, 4, 0x200, 1), SCAN_NEXT);
	assert_int_equal(scan_step(&s, 3, 4, 0x200, 1), SCAN_NEXT);
	assert_int_equal(scan_step(&s, 4, 4, 0x200, 1), SCAN_END);
	/* PLT synthesis afterwards: random access from one site, even 0 then 1 */
	assert_int_equal(scan_step(&s, 2, 4, 0x300, 1), SCAN_RANDOM);
	assert_int_equal(scan_step(&s, 0, 4, 0x300, 1), SCAN_START);
	assert_int_equal(scan_step(&s, 1, 4, 0x300, 1), SCAN_RANDOM);
	assert_int_equal(scan_step(&s, 2, 4, 0x300, 1), SCAN_RANDOM);
	/* a skipped index is not a scan */
	assert_int_equal(scan_step(&s, 0, 9, 0x100, 1), SCAN_START);
	assert_int_equal(scan_step(&s, 2, 9, 0x200, 1), SCAN_RANDOM);
}

static void test_scan_single_site(void **state)
{
	struct scan_state s = { 0 };

	(void)state;
	/* bcc / eu-nm: one call site; accepted when two_sites is off */
	assert_int_equal(scan_step(&s, 0, 3, 0x100, 0), SCAN_START);
	assert_int_equal(scan_step(&s, 1, 3, 0x100, 0), SCAN_NEXT);
	assert_int_equal(scan_step(&s, 2, 3, 0x100, 0), SCAN_NEXT);
	assert_int_equal(scan_step(&s, 3, 3, 0x100, 0), SCAN_END);
	assert_int_equal(scan_step(&s, 1, 3, 0x100, 0), SCAN_RANDOM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_budget_strict),
		cmocka_unit_test(test_budget_threads),
		cmocka_unit_test(test_scan_perf_pattern),
		cmocka_unit_test(test_scan_single_site),
	};
	return cmocka_run_group_tests_name("core", tests, NULL, NULL);
}
