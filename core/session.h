/* SPDX-License-Identifier: MIT */
/*
 * session.h - every decision symlazy makes for one tool process, with the
 * state those decisions need in one struct (no globals: the shim owns one
 * struct sl_session; tests and the `symlazy` command can make their own).
 *
 *   process  sl_session_config / sl_session_setup: tool and model, budget,
 *            where lookup addresses come from (perf.data or SYMLAZY_ADDRS),
 *            lazy on/off with its reason, the cache directory, stats.
 *   DSO      struct sl_dso: one opened ELF file (identity, build-id) and its
 *            lazy plan (which symbols of each table the tool may see),
 *            sl_dso_plan().
 *   table    struct sl_table: one symbol table's scan: mode (eager, budget,
 *            lazy, hidden, passthrough), per-symbol decision sl_table_filter().
 *
 * Thread rules: sl_session_setup runs once before any other call. A DSO's
 * plan is made by the thread that scans it (libelf is not thread-safe per
 * Elf; perf loads one DSO in one thread). Budget and stats are thread-safe.
 */
#ifndef SYMLAZY_SESSION_H
#define SYMLAZY_SESSION_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "core/budget.h"
#include "index/bccsyms.h"
#include "core/budgetplan.h"
#include "core/config.h"
#include "util/elfops.h"
#include "index/elfx.h"
#include "perfdata/perfdata.h"
#include "util/reason.h"
#include "core/scan.h"
#include "core/stats.h"
#include "index/symindex.h"

struct sl_tool_model;
struct sl_text_src;

enum sl_mode { SL_EAGER = 0, SL_BUDGET, SL_LAZY, SL_HIDE, SL_PASS, SL_PLANNED };

/*
 * What the shim knows about the scan a libelf call belongs to, beyond the
 * call itself: libbcc scans run inside bcc_elf_foreach_sym[_lazy]
 * (shim/wrappers_bcc.c), whose callback says who keeps the symbols.
 */
struct sl_scan_ctx {
	const struct sl_tool_model *model;   /* charge model of the scan (NULL: the tool's) */
	uint32_t types;                 /* libbcc's use_symbol_type (0: none) */
	int bcc;                        /* a libbcc scan: perf's lazy plan does not apply */
	const struct sl_bcc_plan *plan; /* keep-sets made for this call, or NULL */
};

/* A file already planned under the budget in this process (charged once). */
struct sl_charged {
	struct sl_charged *next;
	struct sl_file_id id;
	int table;
	uint32_t shndx, nsyms;          /* the section: a file may have two tables of one type */
	const struct sl_tool_model *model;
	uint32_t types;
	struct budget_plan plan;        /* owns its arrays */
};

struct sl_session {
	struct symlazy_config cfg;
	const struct elf_ops *ops;
	const struct sl_tool_model *model;    /* rules of the running tool (perf 6.1 if unknown) */
	const struct sl_tool_model *charge;   /* what the tool's own scans cost (sl_charge_model;
					  * for perf the model of its version, s->model,
					  * but perf probe's own) */
	int tool;                        /* enum sl_tool (tool.h) */
	int is_perf;                     /* the process is perf (exact name, tool.h) */
	int drop_preload;                /* remove us from LD_PRELOAD for the tool's children */
	int dem_mode;                    /* how the tool demangles: SYMIDX_DEM_* */
	int annotate;                    /* the tool is perf annotate */
	struct budget budget;
	atomic_int budget_warned;
	struct pd_result addrs;          /* lookup addresses per DSO */
	int lazy_on;
	struct sl_why lazy_why;          /* why lazy mode is off (process-wide) */
	int cache_dirfd;                 /* -1: indexes live in memfds */
	int cache_tried;                 /* opened (or failed to open) it (core/cachedir.c) */
	int cache_said;                  /* and said cache_msg, if any */
	char cache_msg[PATH_MAX + 128];  /* why the cache dir is not used, until said */
	pthread_mutex_t cache_lock;
	int dwfl_state;                  /* libdwfl lookups: 0 undecided, 1 answered, -1 libdwfl's (dwfl.c) */
	char start_mntns[64];            /* mount namespace at start-up */
	char symfs[PATH_MAX];            /* the tool's --symfs, "" if none */
	pthread_mutex_t stats_lock;
	struct scan_stats *stats_head, **stats_tail;
	struct stats_totals totals;
	/* text symbol sources (core/textsess.c) */
	int text_lazy;                   /* from perf.data: 1 kernel, 2 JIT addresses known */
	struct sl_why kernel_why;        /* set when kallsyms is served whole
					  * though kernel addresses are known (perf diff
					  * inputs that record different kernel maps) */
	unsigned sym_priv;               /* heap bytes perf adds to every
					  * symbol (symbol_conf.priv_size: perf diff's
					  * symbol__annotation_init), for the budget */
	char *inputs[SL_INV_MAX_INPUTS]; /* the perf.data files the run reads
					  * (perf diff: several; core/inputs.c) */
	int nr_inputs;
	char kallsyms_arg[PATH_MAX];     /* perf's --kallsyms FILE, "" if none */
	pthread_mutex_t text_lock;
	struct sl_text_src *texts;
	struct text_stats *text_stats_head, **text_stats_tail;
	const char *(*getenv_fn)(const char *name);
	/* libbcc's symcache answered from shared indexes (bccsyms.h) */
	struct sl_bcc_registry bcc;
	_Atomic uint64_t bcc_answered, bcc_delegated, bcc_caches;
	/* budget: each file is charged once per process (struct sl_charged) */
	pthread_mutex_t charged_lock;
	struct sl_charged *charged;
	uint8_t *addrs_warned;           /* per SYMLAZY_ADDRS DSO: outside-range warning given */
	/* the model is perf's version (not a fallback), and
	 * what perf's addr2line children did (core/a2lsess.c: a page shared
	 * with them, created before the first fork, NULL if none) */
	int model_matched;
	struct sl_a2l_shared *a2l;
};

/*
 * sl_session_config - constructor-time part: parse SYMLAZY_* through @get
 * (getenv in the shim), remember the mount namespace, and decide whether
 * the tool's children must run without the shim (s->drop_preload: the tool
 * launches workloads - perf record's workload, objdump, addr2line - and
 * SYMLAZY_INHERIT is not set). Opens no file and calls no libelf. Returns 1 if symlazy should act in this process, 0 if it
 * must stay inert (SYMLAZY_DISABLE=1; the caller checks AT_SECURE first).
 */
int sl_session_config(struct sl_session *s, const char *(*get)(const char *name));

/*
 * sl_session_setup - first-libelf-call part: budget, tool and model, lazy
 * decision (reads /proc/self/cmdline and perf.data, or SYMLAZY_ADDRS),
 * cache directory. Prints at most one line per problem on stderr. @ops: the
 * real libelf. Never fails: problems turn lazy mode off with a reason.
 */
void sl_session_setup(struct sl_session *s, const struct elf_ops *ops);

/*
 * sl_session_begin_cmd - the mmap policy: the command elf_begin() should
 * really get for (@fd, @cmd, @ref). ELF_C_READ on a regular file of 64+
 * bytes, not under /proc and not a huge device-less file (/proc/kcore),
 * becomes ELF_C_READ_MMAP_PRIVATE (*@upgraded = 1); everything else is
 * passed on unchanged.
 */
Elf_Cmd sl_session_begin_cmd(const struct sl_session *s, int fd, Elf_Cmd cmd, Elf *ref, int *upgraded);

/*
 * sl_session_cache_fd - the cache directory (core/cachedir.c): opened at
 * set-up when lazy mode turns on, else on first use (libdwfl modules,
 * core/dwfl.c) with the same policy (private, same mount namespace), or -1.
 * Thread-safe.
 */
int sl_session_cache_fd(struct sl_session *s);
/* sl_session_cache_quiet - the same at set-up (one thread), without saying
 * why the dir cannot be used: perf's version check, before lazy mode is
 * known to be on. */
int sl_session_cache_quiet(struct sl_session *s);

/*
 * sl_session_bcc_answers - may libbcc's symcache calls made through the PLT
 * (bpftrace, C/C++ tools) be answered from the index (bccsyms.h)? Yes unless
 * SYMLAZY_BCC=0 or SYMLAZY_HIDE_ALL (the floor: no user symbols at all).
 */
/* sl_session_addrs_inside - SYMLAZY_ADDRS lists file offsets: warn once per
 * DSO when none of @dso's addresses lies inside @lay's loadable segments
 * (virtual addresses, or another build of the file at @path). 1 if some
 * address is inside, else 0. */
int sl_session_addrs_inside(struct sl_session *s, const struct pd_dso *dso,
			    const struct symidx_layout *lay, const char *path);

int sl_session_bcc_answers(const struct sl_session *s);

/* sl_session_report - write the stats (SYMLAZY_STATS) now; call at exit. */
void sl_session_report(struct sl_session *s);

/*
 * sl_session_text_kind - is @path a text symbol source
 * lazy mode serves (textsrc.h sl_text_classify, with this run's --kallsyms)?
 * String compares only; SL_TEXT_NONE before sl_session_setup or when lazy
 * mode is off (except SYMLAZY_HIDE_ALL, which hides perf maps too).
 */
int sl_session_text_kind(const struct sl_session *s, const char *path);

/*
 * sl_session_text_open - perf opens the text source @path (@kind from
 * sl_session_text_kind): filter it on its first open (textsrc/textsrc.h), then
 * hand out a new memfd with the filtered text, offset 0 (O_CLOEXEC if
 * @cloexec). Returns the fd, or -1: open the real file (the filter gave up
 * - the reason is in the stats - or a system call failed). Thread-safe.
 * The caller must route the real open(2) this makes past its wrappers.
 */
int sl_session_text_open(struct sl_session *s, const char *path, int kind, int cloexec);

/* ---- DSO: one opened ELF file ------------------------------------------ */

struct sl_dso {
	Elf *elf;
	int mmapped;
	pid_t tid;                   /* thread that opened it */
	char path[PATH_MAX];         /* /proc/self/fd link of its fd, "" if none */
	struct stat st;
	int have_st;
	int bid_state;               /* 0 unknown, 1 have, -1 none */
	unsigned char bid[20];
	int bid_len;
	/* lazy plan, shared by the .symtab and .dynsym scans of this Elf */
	int plan_state;              /* 0 not made, 1 made */
	enum sl_mode plan_mode;
	uint8_t *keep[2];
	uint32_t nkeep[2];
	int lazy_charged;                /* under a budget: the keep-set was charged
					  * whole when planned (sl_dso_plan) */
	uint32_t kept_groups;
	struct sl_why why;
};

/* sl_dso_init - facts of a newly opened Elf (@fd may be -1). */
void sl_dso_init(struct sl_dso *d, Elf *elf, int fd, int mmapped);

/* sl_dso_free - free the plan (not @d itself). */
void sl_dso_free(struct sl_dso *d);

/* sl_dso_build_id - read the build-id once; 1 if the file has one. */
int sl_dso_build_id(const struct sl_session *s, struct sl_dso *d);

/* A callback that finds the runtime layout among the other live DSOs of the
 * same thread with the same build-id (perf's runtime_ss beside a debug
 * file); 1 with *@lay set, else 0. */
typedef int (*sl_sibling_fn)(void *ctx, struct sl_dso *self, struct symidx_layout *lay);

/*
 * sl_dso_plan - make the lazy plan of @d (once): match it to a perf.data
 * DSO, find its runtime layout (its own, a sibling's via @sib, or the file
 * at the recorded path with the same build-id), open or build the index and
 * compute the keep-sets. A DSO without a GNU build-id is matched the way
 * perf finds it: by the path of its MMAP/MMAP2 record (with --symfs
 * prepended, resolved with realpath(3)) equal to the file perf opened, and
 * the device and inode MMAP2 recorded equal to fstat(2) of that file, so a
 * rebuilt or replaced binary at the same path never gets another file's
 * answers (sl_dso_match_file). Sets d->plan_mode to SL_LAZY, or SL_EAGER with
 * d->why.
 */
void sl_dso_plan(struct sl_session *s, struct sl_dso *d, sl_sibling_fn sib, void *ctx);

/*
 * sl_dso_match_file - the perf.data DSO without build-id that is the file of
 * @d: same canonical path (@symfs + recorded path, realpath(3)) and, from
 * MMAP2, same device major/minor and inode as @d->st. NULL with @why set
 * (SL_R_NO_BUILD_ID: no mapping of that path; SL_R_NO_IDENTITY: the path
 * was mapped but without inode, or another inode).
 */
const struct pd_dso *sl_dso_match_file(const struct pd_result *res, const char *symfs,
				       const struct sl_dso *d, struct sl_why *why);

/* ---- table: one symbol table's scans ----------------------------------- */

struct sl_table {
	Elf_Data *data;
	Elf *elf;
	int table;                   /* 0 .symtab, 1 .dynsym */
	uint32_t nsyms;
	uint32_t link;               /* sh_link: the string table's section index */
	Elf_Data *strtab;
	struct scan_state scan;
	enum sl_mode mode;           /* of the current scan */
	struct scan_stats *st;       /* of the current scan */
	struct budget_plan bp;       /* SL_BUDGET: cut and zero-size overrides */
	uint32_t bp_cursor;
	uint32_t shndx;              /* its section index (set by the shim; 0 unknown) */
	const struct sl_tool_model *charge; /* of the current scan */
	uint32_t types;              /* libbcc use_symbol_type of the current scan */
	const struct sl_bcc_keep *keep; /* SL_PLANNED: the keep-set (owned by the plan) */
};

/* sl_table_init - from the section header of a symbol table; 0, or -EINVAL
 * for something that is not a table symlazy tracks (not SYMTAB/DYNSYM,
 * entsize 0, more than 2^31 entries). */
int sl_table_init(struct sl_table *t, Elf_Data *data, const GElf_Shdr *sh);

/* sl_table_forget - flush the current scan's stats and free the plan. */
void sl_table_forget(struct sl_session *s, struct sl_table *t);

/*
 * sl_table_filter - decide what the tool sees for gelf_getsym(t->data,
 * @ndx) = *@dst (and *@xshndx, may be NULL), called after the real call
 * succeeded. @site: the caller's return address; @site_in_tool: whether it
 * lies in the tool's own executable; @d: the table's DSO (NULL if unknown),
 * @sib/@ctx: as for sl_dso_plan. May overwrite *@dst with the null symbol.
 */
void sl_table_filter(struct sl_session *s, struct sl_table *t, struct sl_dso *d, int ndx,
		     GElf_Sym *dst, Elf32_Word *xshndx, uintptr_t site, int site_in_tool,
		     sl_sibling_fn sib, void *ctx);

/*
 * sl_table_watching - must the shim keep passing @t's reads to
 * sl_table_filter? 1 while a scan is active (core/scan.h) with elements
 * left and, from its second element on, a mode that does something per
 * symbol: lazy, hidden, budget, or any mode while stats count scanned
 * symbols. An eager or pass-through scan without budget or stats needs no
 * further call: its remaining reads are the tool's alone.
 */
int sl_table_watching(const struct sl_session *s, const struct sl_table *t);
/* sl_table_filter_ctx - the same for a call made inside a scan the shim
 * knows more about (@sctx may be NULL = sl_table_filter). */
void sl_table_filter_ctx(struct sl_session *s, struct sl_table *t, struct sl_dso *d, int ndx,
			 GElf_Sym *dst, Elf32_Word *xshndx, uintptr_t site, int site_in_tool,
			 sl_sibling_fn sib, void *ctx, const struct sl_scan_ctx *sctx);

/*
 * sl_session_bcc_plan - the plan for one bcc_elf_foreach_sym[_lazy](@path,
 * @opt) call (bccplan.c): with SYMLAZY_ADDRS listing the module's build-id,
 * the keep-set of its addresses; under a budget, the budget plan, charged at
 * @m's cost once per file and process. 1 with *@out filled (free with
 * sl_bcc_plan_free), 0 when the scans run as they would (eager).
 */
int sl_session_bcc_plan(struct sl_session *s, const char *path, const struct sl_bcc_option *opt,
			const struct sl_tool_model *m, struct sl_bcc_plan *out);

/* core/inputs.c: the perf.data files of @inv (perf diff: every
 * one) into s->inputs, after the checks lazy mode needs (a file or a perf
 * record --threads directory; no pipe). 1, or 0 with @why set. */
int sl_inputs_take(struct sl_session *s, const struct sl_invocation *inv, struct sl_why *why);
/* The pre-pass over every input, into s->addrs (several: perfdata_merge;
 * different kernel maps set s->kernel_why). 0, or a negative errno with
 * @err and *@failed (the input that failed) set. */
int sl_inputs_read(struct sl_session *s, int unwind_mode, char *err, size_t errsz, const char **failed);
void sl_inputs_free(struct sl_session *s);
/* What perf adds to every symbol it allocates in this run, lazy or not:
 * @m's annotation_priv for perf diff (symbol__annotation_init), else 0. */
unsigned sl_inputs_sym_priv(const struct sl_tool_model *m);

#endif
