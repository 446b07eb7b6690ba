/* SPDX-License-Identifier: MIT */
/*
 * stats.h - per-scan counters and their JSON / text report.
 * A record is appended when a symbol-table scan ends (or its Elf is ended).
 * Records are never freed (the report runs at exit while other threads may
 * still be scanning); appending is lock-protected by the caller.
 */
#ifndef SYMLAZY_STATS_H
#define SYMLAZY_STATS_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

struct scan_stats {
	struct scan_stats *next;
	char path[PATH_MAX];
	char build_id[41];
	const char *table;          /* "symtab" / "dynsym" */
	const char *mode;           /* "eager" / "budget" / "lazy" / "hidden" */
	const char *reason_code;    /* sl_reason_name() of the reason, NULL if none */
	char reason[768];           /* why lazy was not used, or "" (sl_why_format) */
	uint64_t scanned;           /* gelf_getsym calls in the scan */
	uint64_t passed;            /* perf candidates shown to the tool */
	uint64_t dropped;           /* perf candidates replaced by the null symbol */
	uint64_t bytes;             /* bytes charged to the budget */
	int mmap;                   /* Elf opened through a file mapping */
};

/* One text symbol source perf opened (kallsyms, perf map). */
struct text_stats {
	struct text_stats *next;
	char path[PATH_MAX];
	const char *kind;           /* "kallsyms" / "perfmap" */
	const char *mode;           /* "lazy" (filtered) / "whole" */
	const char *reason_code;
	char reason[768];
	uint64_t scanned;           /* records (lines) of the file */
	uint64_t symbols;           /* records perf makes a symbol of */
	uint64_t kept;              /* records served */
	uint64_t bytes, kept_bytes; /* file size, bytes served */
	uint64_t opens;             /* opens served */
};

struct stats_totals {
	uint64_t budget_bytes, charged_bytes, refused_bytes;
	const char *lazy;           /* "on" / "off" */
	const char *lazy_reason_code; /* sl_reason_name(), NULL if none */
	char lazy_reason[768];
	uint64_t addr_dsos, addrs;  /* DSOs and addresses read from perf.data */
	const char *model;          /* the tool model's name ("perf-6.12"), NULL if none */
	const char *demangler;      /* what the model demangles with, NULL if not asked */
	/* libdwfl lookups (core/dwfl.c), updated atomically: calls, answered
	 * from an index, passed to libdwfl, indexes built / mapped from the
	 * cache, modules libdwfl answers itself (unmodelable or too few calls) */
	uint64_t dwfl_lookups, dwfl_answered, dwfl_library, dwfl_built, dwfl_cached, dwfl_unmodelable;
	/* kernel addresses read from perf.data, processes with JIT mappings, and
	 * the text sources perf opened (core/textsess.c) */
	uint64_t kernel_addrs, jit_dsos;
	const struct text_stats *texts;
	/* libbcc symcache answers (bccsyms.h): from the index, by the real libbcc,
	 * caches tracked, indexes built and reused */
	uint64_t bcc_answered, bcc_delegated, bcc_caches, bcc_built, bcc_reused;
	/* what perf's addr2line children did (core/a2lsess.h) */
	const struct sl_a2l_shared *a2l;
	/* libdw's Elf handles served from a decompressed copy
	 * (core/dwarfsec.c): files, sections and their inflated bytes, copies
	 * written this run, files with compressed sections left to libdw */
	uint64_t dbg_files, dbg_sections, dbg_bytes, dbg_built, dbg_left;
};

/* stats_write_json - one JSON object (shape: doc/design.md "Stats"). Returns 0 or -errno. */
int stats_write_json(FILE *f, const struct stats_totals *t, const struct scan_stats *list);

/* JSON string escaping of @s into @f (quotes included). */
void stats_json_str(FILE *f, const char *s);

#endif
