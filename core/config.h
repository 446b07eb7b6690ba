/* SPDX-License-Identifier: MIT */
/*
 * config.h - the SYMLAZY_* environment, parsed once into an immutable struct.
 *
 * Parsing takes a getter so tests can feed values without touching environ.
 * Bad values never abort: the field keeps its safe default (unlimited budget,
 * mmap on, lazy auto) and a one-line message is stored in cfg->error for the
 * shim to print on its first libelf call.
 */
#ifndef SYMLAZY_CONFIG_H
#define SYMLAZY_CONFIG_H

#include <limits.h>
#include <stdint.h>

enum lazy_mode { LAZY_AUTO = 0, LAZY_ON, LAZY_OFF };
enum stats_mode { STATS_OFF = 0, STATS_STDERR, STATS_FILE };

struct symlazy_config {
	int disabled;               /* SYMLAZY_DISABLE=1 */
	int mmap;                   /* SYMLAZY_MMAP (default 1) */
	uint64_t max_bytes;         /* SYMLAZY_MAX_BYTES, 0 = unlimited */
	enum stats_mode stats;      /* SYMLAZY_STATS=1|/path */
	char stats_path[PATH_MAX];
	enum lazy_mode lazy;        /* SYMLAZY_LAZY=auto|on|off */
	char addrs_path[PATH_MAX];  /* SYMLAZY_ADDRS=FILE */
	char cache_dir[PATH_MAX];   /* resolved SYMLAZY_CACHE_DIR; "" = in memory ("off") */
	int hide_all;               /* SYMLAZY_HIDE_ALL=1: test-only floor */
	int inherit;                /* SYMLAZY_INHERIT=1: keep LD_PRELOAD for children */
	int verbose;                /* SYMLAZY_VERBOSE=1 */
	int dwfl;                   /* SYMLAZY_DWFL (default 1): answer libdwfl lookups from the index */
	int unwind_scan;            /* SYMLAZY_UNWIND=scan: DWARF frames from the scan only */
	int bcc_index;              /* SYMLAZY_BCC (default 1): answer libbcc's symcache from the index */
	int dwarf_map;              /* SYMLAZY_DWARF_MAP (default 1): libdw reads compressed debug
				     * sections from an inflated copy in the cache (index/dbgsec.h) */
	int dwarf_abbrev;           /* SYMLAZY_DWARF_ABBREV (default 1): in that copy, each unit DIE's
				     * abbreviation first in its table (index/abbrevord.h) */
	char error[256];            /* first bad value, "" if none */
};

/*
 * config_parse_size - parse "<n>[K|M|G]" (binary multiples, optional 'B'/'iB',
 * case-insensitive) into bytes. "0" means unlimited. Rejects empty strings,
 * signs, junk and overflow past 2^63.
 * Returns 0 and sets *out, or -EINVAL / -ERANGE.
 */
int config_parse_size(const char *s, uint64_t *out);

/* config_load - fill @cfg from @get (e.g. getenv). Never fails; see cfg->error. */
void config_load(struct symlazy_config *cfg, const char *(*get)(const char *name));

#endif
