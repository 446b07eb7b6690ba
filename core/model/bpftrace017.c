/* SPDX-License-Identifier: MIT */
/*
 * core/model/bpftrace017.c - bpftrace 0.17 (bpftrace/bpftrace v0.17.0). Its stacks
 * are symbolized by libbcc's symcache (src/bpftrace.cpp resolve_usym:
 * bcc_symcache_new + bcc_symcache_resolve, a new cache per address unless
 * BPFTRACE_CACHE_USER_SYMBOLS or ASLR off), which the shim answers from the
 * shared index (index/bccsyms.h); scans made by libbcc for a cache it did
 * not answer are charged by libbcc's model (core/model/bcc026.c). What bpftrace
 * scans itself, through bcc_elf_foreach_sym from its own code, is its
 * function listing (extract_func_symbols_from_path, for `bpftrace -l` and
 * wildcard uprobes): every name into a std::set<std::string>, then one
 * "path:name\n" string of all of them, split again by the probe matcher.
 * Measured: `bpftrace -l 'uprobe:main:*'` on the 500k-symbol fixture, peak
 * RssAnon 264 MB above the floor for 505,180 names (124 bytes on average) =
 * 522 bytes per symbol. Charged: 320 + 3 x (name + 1).
 * A dropped symbol is not listed, and in a stack bpftrace prints its
 * address (0x...).
 */
#include <stdio.h>
#include <string.h>
#include "core/models.h"

uint64_t bpftrace_listing_cost(uint64_t namelen)
{
	return 320 + 3 * (namelen + 1);
}

int bpftrace_image_has_version(const char *img, size_t len, const char *ver)
{
	char lit[16];
	int n = snprintf(lit + 1, sizeof(lit) - 1, "v%s.", ver);

	if (n <= 0 || (size_t)n >= sizeof(lit) - 1)
		return 0;
	lit[0] = '\0';
	return memmem(img, len, lit, (size_t)n + 1) != NULL;
}

/* the version literal "v0.17." (`bpftrace --version`) */
int bpftrace017_image_matches(const char *img, size_t len)
{
	return bpftrace_image_has_version(img, len, "0.17");
}

const struct sl_tool_model sl_model_bpftrace017 = SL_BPFTRACE_MODEL("0.17", bpftrace017_image_matches);
