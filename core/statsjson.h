/* SPDX-License-Identifier: MIT */
/*
 * statsjson.h - reader for the stats JSON the shim writes (SYMLAZY_STATS;
 * writer: core/stats.c stats_write_json; shape: doc/design.md "Stats"). Exactly
 * that shape: one object with the process fields, "totals" and "dsos".
 * Keys the writer may add later are skipped if they hold any JSON value;
 * missing required keys, wrong types, negative or fractional counts,
 * unknown "lazy"/"table"/"mode" words, totals that are not the sums of the
 * "dsos" entries, and bytes after the object are errors. Strings are
 * decoded (\uXXXX escapes, surrogate pairs, as UTF-8). Not part of
 * libsymlazy.so (linked into build/libsymlazy_core.a only).
 */
#ifndef SYMLAZY_STATSJSON_H
#define SYMLAZY_STATSJSON_H

#include <stddef.h>
#include <stdint.h>

struct sl_stats_counts {
	uint64_t scanned, passed, dropped, bytes;
};

struct sl_stats_dso {
	char *path, *build_id;           /* "" when unknown */
	char *table;                     /* "symtab" / "dynsym" */
	char *mode;                      /* eager budget lazy hidden passthrough */
	char *reason, *reason_code;      /* reason_code NULL if absent */
	struct sl_stats_counts c;        /* passed = symbols kept (shown to the tool) */
	int mmap;
};

struct sl_stats_doc {
	uint64_t budget_bytes, charged_bytes, refused_bytes;   /* bytes; budget 0 = none */
	char *lazy;                      /* "on" / "off" */
	char *lazy_reason, *lazy_reason_code;  /* lazy_reason_code NULL if absent */
	uint64_t addr_dsos, addrs;
	struct sl_stats_counts totals;
	struct sl_stats_dso *dsos;
	size_t ndsos;
};

/*
 * sl_stats_parse - parse @len bytes at @buf (need not be NUL-terminated;
 * an optional leading "symlazy stats: ", as SYMLAZY_STATS=1 prints it on
 * stderr, is accepted) into @out. Returns 0, -ENOMEM, or -EINVAL with a
 * one-line reason "offset N: ..." in @err; on error @out is left empty.
 */
int sl_stats_parse(const char *buf, size_t len, struct sl_stats_doc *out, char *err, size_t errsz);

/* sl_stats_load - read the file @path whole (at most 256 MiB) and parse it.
 * Returns 0, -errno from open/read (@err: strerror), or what
 * sl_stats_parse returns. */
int sl_stats_load(const char *path, struct sl_stats_doc *out, char *err, size_t errsz);

/* sl_stats_free - free what a successful parse allocated; safe on a zeroed doc. */
void sl_stats_free(struct sl_stats_doc *doc);

#endif
