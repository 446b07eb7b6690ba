/* SPDX-License-Identifier: MIT */
/*
 * textsrc.h - the text files perf reads symbols from without libelf, and
 * what lazy mode serves for them (prefix sl_text_):
 *
 *   kallsyms  /proc/kallsyms, perf's build-id cache copies
 *             (<buildid-dir>/[kernel.kallsyms]/<bid>/kallsyms and the
 *             .build-id/<xx>/<rest>/kallsyms link to it) and a
 *             `--kallsyms FILE`; perf 6.1 reads them with open(2) + read(2)
 *             (tools/lib/symbol/kallsyms.c kallsyms__parse), several times;
 *   perf map  /tmp/perf-PID.map of a JIT; perf 6.1 reads it with fopen(3) +
 *             getline(3) (util/symbol.c dso__load_perf_map).
 *
 * The shim asks sl_session_text_open() (session.h) at every open of such a
 * path; the answer is a file descriptor of a memfd holding only the lines
 * perf needs (textsrc/kallsyms.c, textsrc/perfmap.c), or -1: open the real file.
 * A source is filtered once per process (the first open), then served from
 * memory: perf sees one consistent snapshot.
 */
#ifndef SYMLAZY_TEXTSRC_H
#define SYMLAZY_TEXTSRC_H

#include <stddef.h>
#include <stdint.h>
#include "perfdata/perfdata.h"
#include "util/reason.h"

enum sl_text_kind { SL_TEXT_NONE = 0, SL_TEXT_KALLSYMS, SL_TEXT_PERFMAP };

/*
 * sl_text_classify - the kind of @path: string compares only, no
 * allocation, no system call (the shim calls it for every open).
 * @kallsyms_arg: perf's --kallsyms FILE as given (may be NULL).
 */
enum sl_text_kind sl_text_classify(const char *path, const char *kallsyms_arg);

/* A filtered source. */
struct sl_text {
	int filtered;                /* 0: serve the whole file (why says why) */
	struct sl_why why;
	uint64_t records, symbols, kept;
	char *text;                  /* filtered: malloc'ed */
	size_t len;
};

/*
 * sl_text_filter - filter @buf (@len bytes of @kind text) with the
 * addresses of @res; @path: the perf map's path (its JIT DSO); @kcore: a
 * kcore file sits beside the kallsyms file; @ks_rules: KS_RULE_* of the
 * perf version (textsrc/kallsyms.h). 0 or -ENOMEM.
 */
int sl_text_filter(const struct pd_result *res, enum sl_text_kind kind, const char *path,
		   const char *buf, size_t len, int kcore, unsigned ks_rules, struct sl_text *out);
void sl_text_free(struct sl_text *t);

/*
 * sl_text_load - read the file at @path (@fd: open for reading; regular
 * files are mapped, others - /proc/kallsyms - copied into a memfd and
 * mapped). Sets *@buf and *@len, to be released with sl_text_unload. 0 or -errno.
 */
int sl_text_load(int fd, const char **buf, size_t *len, size_t *maplen);
void sl_text_unload(const char *buf, size_t maplen);

/* sl_text_kcore - does perf 6.1's dso__load_kcore find a kcore beside
 * @kallsyms_path (basename kallsyms becomes kcore, open(2)-able)? */
int sl_text_kcore(const char *kallsyms_path);

/* sl_text_memfd - a new memfd holding @t's text (offset 0); -errno. */
int sl_text_memfd(const char *data, size_t len, int cloexec);

#endif
