/* SPDX-License-Identifier: MIT */
/*
 * fuzz_config - the SYMLAZY_* environment parsers (core/config.c).
 * The input is split at '\n' into values for the variables below, in order
 * (a missing value = unset); the whole input is also one SYMLAZY_MAX_BYTES
 * string for config_parse_size(). Checks: parse results stay within their
 * documented range, every string field stays NUL-terminated.
 */
#include <errno.h>
#include "fuzz_common.h"
#include "core/config.h"

static const char *names[] = {
	"SYMLAZY_DISABLE", "SYMLAZY_MMAP", "SYMLAZY_HIDE_ALL", "SYMLAZY_INHERIT", "SYMLAZY_VERBOSE",
	"SYMLAZY_MAX_BYTES", "SYMLAZY_STATS", "SYMLAZY_LAZY", "SYMLAZY_ADDRS", "SYMLAZY_CACHE_DIR",
	"XDG_CACHE_HOME", "HOME",
};
#define NNAMES (sizeof(names) / sizeof(names[0]))
static const char *values[NNAMES];

static const char *get(const char *name)
{
	size_t i;

	for (i = 0; i < NNAMES; i++)
		if (!strcmp(name, names[i]))
			return values[i];
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *p, *save = NULL;
	static struct symlazy_config cfg;
	uint64_t v = 12345;
	size_t i;
	int r;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	r = config_parse_size(buf, &v);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
	if (r == 0)
		FUZZ_CHECK(v <= (UINT64_MAX >> 1));
	else
		FUZZ_CHECK(v == 12345);

	memset(values, 0, sizeof(values));
	for (i = 0, p = strtok_r(buf, "\n", &save); p && i < NNAMES; p = strtok_r(NULL, "\n", &save), i++)
		values[i] = p;
	config_load(&cfg, get);
	FUZZ_CHECK(memchr(cfg.error, '\0', sizeof(cfg.error)) != NULL);
	FUZZ_CHECK(memchr(cfg.stats_path, '\0', sizeof(cfg.stats_path)) != NULL);
	FUZZ_CHECK(memchr(cfg.addrs_path, '\0', sizeof(cfg.addrs_path)) != NULL);
	FUZZ_CHECK(memchr(cfg.cache_dir, '\0', sizeof(cfg.cache_dir)) != NULL);
	FUZZ_CHECK(cfg.lazy == LAZY_AUTO || cfg.lazy == LAZY_ON || cfg.lazy == LAZY_OFF);
	FUZZ_CHECK(cfg.max_bytes <= (UINT64_MAX >> 1));
	FUZZ_CHECK(cfg.mmap == 0 || cfg.mmap == 1);
	free(buf);
	return 0;
}
