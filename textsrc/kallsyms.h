/* SPDX-License-Identifier: MIT */
/*
 * kallsyms.h - lazy kernel symbols: which lines of a kallsyms text (the
 * running kernel's /proc/kallsyms, perf's build-id cache copy, a
 * `--kallsyms FILE`) perf 6.1 needs to answer the kernel addresses of a
 * perf.data exactly as with the whole file (prefix ks_).
 *
 * perf 6.1's reading, mirrored here (linux v6.1):
 *   tools/lib/symbol/kallsyms.c kallsyms__parse: open(2) + tools/lib/api/io.h
 *     (8 KiB reads; a byte >= 0x80 reads as a negative char and ends a
 *     field like EOF); per loop: hex start up to ' ', one type char, ' ',
 *     up to 513 name chars up to '\n'; a line that does not fit is skipped to
 *     its end (an empty line swallows the next one). The loop body keeps no
 *     state across records, so a subsequence of records, concatenated, parses
 *     into exactly that subsequence: the filtered text is whole records.
 *   util/symbol.c map__process_kallsym_symbol: types T/W/D/B (either case),
 *     no '$' names; symbol__new(start, 0, ...), inserted by start (equal
 *     starts go right = file order);
 *   __dso__load_kallsyms: kallsyms__delta (first T/t/W/w/A record named as
 *     the ref_reloc_sym of the kernel MMAP, "[kernel.kallsyms]_text" -> "_text",
 *     util/event.c kallsyms__get_function_start), symbols__fixup_end(true)
 *     (every symbol ends at the next start, or roundup(start + 4096, 4096)
 *     where exactly one of the two names has '['; the last at roundup(start,
 *     4096) + 4096), symbols__fixup_duplicate (choose_best_symbol prefers a
 *     non-zero length first, so of equal starts the last in file order
 *     survives), dso__load_kcore (kcore next to the file: not modelled),
 *     maps__split_kallsyms (names with "\t[mod]" move to the module map of
 *     that name, relative to its start, or are dropped with no such map;
 *     __entry_SYSCALL_64_trampoline is dropped; kernel symbols after a
 *     module's make [kernel].N maps: not modelled; the rest stay, minus delta);
 *   dso__load_kernel_sym: map__fixup_start/map__fixup_end (the kernel map
 *     spans the first to the last kernel symbol);
 *   util/machine.c machine__map_x86_64_entry_trampolines: the first global
 *     _entry_trampoline / __entry_trampoline_start / entry_SYSCALL_64_trampoline
 *     of the kernel symbols adds per-CPU entry maps into the kernel symbols;
 *   symbols__find: start <= ip < end; with overlapping symbols the answer
 *     depends on the rb-tree's shape (then the file is left whole).
 *
 * ks_filter computes perf's answer for every kernel address (as a kernel
 * symbol: ip + delta, and as a symbol of every module map holding ip),
 * keeps the answering records and the records that set their ends, the
 * relocation and trampoline records and the kernel map's first and last
 * symbols, then replays the model on the kept records and compares every
 * answer; it repeats with more records where they differ, and gives up
 * (KS_PASS, with a reason) when the model does not apply.
 * Memory: 16 bytes per accepted record while filtering, freed on return.
 */
#ifndef SYMLAZY_KALLSYMS_H
#define SYMLAZY_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>
#include "util/reason.h"

#define KS_NAME_MAX 513          /* KSYM_NAME_LEN + 1: perf's name buffer */

/* One loop iteration of kallsyms__parse over @buf[@off..@len). */
struct ks_rec {
	size_t len;                  /* bytes the iteration consumed (0: at the end) */
	int sym;                     /* 1: process_symbol() is called with: */
	uint64_t start;
	char type;
	const char *name;            /* raw bytes in @buf (perf stops at a NUL) */
	size_t namelen;              /* bytes copied into perf's buffer */
	int name_full;               /* the 513-byte buffer filled (perf overruns it) */
};

/* ks_parse_rec - parse the record starting at @off; returns r->len. */
size_t ks_parse_rec(const char *buf, size_t len, size_t off, struct ks_rec *r);

/* A module map of the perf.data (MMAP of a module; name as perf's dso short
 * name, "[ext4]": kmod_path__parse of the recorded filename). */
struct ks_module {
	char name[128];
	uint64_t start, end;
};

/* An extra kernel map (MMAP named __entry_SYSCALL_64_trampoline). */
struct ks_extra {
	uint64_t start, end, pgoff;
};

/* What perf.data says about the kernel. */
struct ks_facts {
	int have_kmmap;              /* a [kernel.kallsyms]* MMAP was recorded */
	uint64_t kstart, kend, kpgoff;
	char ref_name[64];           /* "_text" ("" when pgoff is 0: kptr_restrict) */
	const struct ks_module *mods;
	size_t nr_mods;
	const struct ks_extra *extra;
	size_t nr_extra;
	const uint64_t *addrs;       /* sorted unique kernel addresses perf may look up */
	size_t nr_addrs;
	unsigned rules;              /* KS_RULE_*: what differs in later perfs */
};

/* perf 7.x's map__process_kallsym_symbol drops names is_ignored_kernel_symbol()
 * calls mapping symbols: ".L*" and "L0*" as well as "$*" (tools/perf/util/symbol.h) */
#define KS_RULE_DROP_LOCAL_LABELS 1u

enum ks_mode { KS_FILTERED = 1, KS_PASS };

struct ks_result {
	enum ks_mode mode;
	struct sl_why why;           /* KS_PASS: why */
	uint64_t records, symbols;   /* parse iterations, accepted symbols */
	uint64_t kept;               /* records in the filtered text */
	int64_t delta;               /* kallsyms address - recorded address */
	char *out;                   /* KS_FILTERED: malloc'ed text */
	size_t out_len;
	unsigned rounds;             /* replay rounds until the answers agreed */
};

/* ks_filter - filter @buf (@len bytes of kallsyms text) for @f; @kcore: a
 * kcore file sits next to the kallsyms file (perf would use it). Returns 0
 * with @r filled (KS_FILTERED or KS_PASS) or -ENOMEM. Free with ks_free. */
int ks_filter(const char *buf, size_t len, const struct ks_facts *f, int kcore,
	      struct ks_result *r);
void ks_free(struct ks_result *r);

#endif
