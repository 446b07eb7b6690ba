/* SPDX-License-Identifier: MIT */
/*
 * perfmap.h - lazy JIT symbols: which lines of a /tmp/perf-PID.map perf 6.1
 * needs for the JIT addresses of a perf.data (prefix pm_).
 *
 * perf 6.1 (util/symbol.c dso__load_perf_map, util/map.c map__new): an
 * executable anonymous mapping (//anon, /dev/zero*, /anon_hugepage*,
 * MAP_HUGETLB, [stack*, /SYSV*, [heap]) of process PID is the DSO
 * "/tmp/perf-PID.map" with identity addresses; loading it does fopen(3) and,
 * per getline(3) line: the last byte is cut (the '\n', or the last
 * character of an unterminated last line), start = strtoull(line, 16),
 * one separator, size = strtoull(.., 16), one separator, the rest is the
 * name; lines whose fields leave fewer than 3 bytes are skipped;
 * symbol__new(start, size) (end = start + size, or start when size is 0),
 * symbols__insert by start (equal starts go right). No end or duplicate
 * fixups. symbols__find then returns a symbol with start <= ip < end (or
 * ip == start == end) - which one, where several overlap, depends on the
 * tree's shape.
 *
 * pm_filter: for each looked-up address, the entries containing it; with
 * exactly one container c and no entry that ends at or before the address
 * and sorts after c in the tree (start after c's, or equal start and later
 * in the file), every tree over any subset holding c finds c; with none,
 * every tree finds nothing. So the kept lines are the unique containers; an
 * address with several containers, or such a later entry, leaves the file
 * whole (PM_PASS). Lines are independent (getline), so kept lines
 * concatenated parse as those lines. Memory: O(addresses), not O(lines).
 */
#ifndef SYMLAZY_PERFMAP_H
#define SYMLAZY_PERFMAP_H

#include <stddef.h>
#include <stdint.h>
#include "util/reason.h"

/* One getline() record: bytes up to and including '\n', or to the end. */
struct pm_rec {
	size_t len;
	int sym;                 /* perf makes a symbol of it */
	uint64_t start, end;     /* end as symbol__new sets it */
	int wrapped;             /* start + size overflowed: never found */
};

/* pm_parse_rec - parse the line at @off; returns r->len (0 at the end).
 * @scratch/@scap: a growable buffer for the NUL-terminated copy. */
size_t pm_parse_rec(const char *buf, size_t len, size_t off, struct pm_rec *r,
		    char **scratch, size_t *scap);

enum pm_mode { PM_FILTERED = 1, PM_PASS };

struct pm_result {
	enum pm_mode mode;
	struct sl_why why;
	uint64_t lines, symbols, kept;
	char *out;
	size_t out_len;
};

/* pm_filter - filter @buf (@len bytes) for the sorted unique addresses
 * @addrs[0..n). 0 or -ENOMEM. Free with pm_free. */
int pm_filter(const char *buf, size_t len, const uint64_t *addrs, size_t n,
	      struct pm_result *r);
void pm_free(struct pm_result *r);

#endif
