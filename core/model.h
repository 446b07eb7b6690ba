/* SPDX-License-Identifier: MIT */
/*
 * model.h - the model interface: everything symlazy knows about one tool
 * at one version, behind one table of functions. The core asks the model;
 * nothing outside a model file knows a tool's rules. One file per tool and
 * version (core/model_perf61.c: Debian's perf 6.1).
 *
 * A model answers four kinds of question:
 *   recognition  is the running program this tool at this version?
 *   invocation   what was it asked to do (argv): which input, which output
 *                (text or interactive), how it demangles?
 *   symbols      which symbols it keeps (before section checks), what one
 *                kept symbol costs it in heap bytes, the names it stores
 *                (demangling) and its choice between same-address duplicates;
 *   process      whether it launches workloads (so the shim drops itself from
 *                their LD_PRELOAD).
 * The tree replay (core/rbsim.c, core/symindex.c sim_*) mirrors perf's
 * rb-tree, symbols__fixup_end and symbols__fixup_duplicate, and calls the
 * model for names and choices.
 */
#ifndef SYMLAZY_MODEL_H
#define SYMLAZY_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <gelf.h>
#include "budgetplan.h"
#include "reason.h"

/* What the tool was asked to do (from its argv). */
struct sl_invocation {
	const char *input;          /* perf.data path (points into argv), or NULL */
	int default_input;          /* no -i given: "perf.data", unless stdin is a pipe */
	int demangle;               /* SYMIDX_DEM_* (symindex.h) */
	int flags;                  /* SL_INV_* */
	int annotate, report;       /* the subcommand */
	const char *buildid_dir;    /* perf --buildid-dir DIR, or NULL */
	const char *symfs;          /* --symfs DIR: perf opens DIR + recorded path, or NULL */
	struct sl_why why;          /* reason when lazy mode does not apply */
};

#define SL_INV_STDIO     1      /* --stdio given */
#define SL_INV_NOT_STDIO 2      /* --tui, --gtk or --stdio2 given */

/* Symbol kinds a model's keep rule returns (before section checks). */
enum sl_sym_kind { SL_SYM_SKIP = 0, SL_SYM_FUNC, SL_SYM_OBJECT, SL_SYM_LABEL };

struct sl_model {
	const char *name;           /* "perf-6.1" */
	const char *tool;           /* "perf" */
	/* recognition: does the executable image (@img, @len bytes) carry this
	 * version? 1 if so. */
	int (*image_matches)(const char *img, size_t len);
	/* invocation: 1 if lazy mode may apply (@inv->input set), else 0 with
	 * @inv->why set. */
	int (*parse_argv)(int argc, char *const argv[], struct sl_invocation *inv);
	/* may lazy mode serve this run's output? (@out_is_tty: isatty(1)) */
	int (*text_output)(struct sl_invocation *inv, int out_is_tty);
	/* symbols */
	enum sl_sym_kind (*sym_kind)(const GElf_Sym *s);
	int (*label_section_ok)(const char *section_name);
	uint64_t (*sym_cost)(uint64_t namelen);
	char *(*demangle)(const char *raw, int mode, int *uncertain);
	int (*choose_by_name)(const char *a, const char *b);  /* 0 keep a, 1 keep b */
	int launches_workloads;
	/* budget (0/NULL: perf 6.1's): what a dropped symbol looks like in the
	 * tool's output, and which kept symbols could stretch over dropped ones
	 * in the tool's lookup (SL_BR_*, core/budgetplan.h) */
	unsigned budget_rules;
	const char *unknown_shows;
	/* libbcc: the keep rule depends on bcc_symbol_option.use_symbol_type */
	enum sl_sym_kind (*sym_kind_types)(const GElf_Sym *s, uint32_t types);
};

/* Budget rules SL_BR_*: core/budgetplan.h. */

/* The models this build knows: perf 6.1 (model_perf61.c; its `perf probe`
 * in model_perfprobe61.c), libbcc 0.26 by its lazy_symbolize option
 * (model_bcc.c), bpftrace 0.17's own scans (model_bpftrace.c), uftrace 0.13
 * (model_uftrace.c), and any other tool (model_other.c: conservative). */
extern const struct sl_model sl_model_perf61;
extern const struct sl_model sl_model_perf61_probe;
extern const struct sl_model sl_model_bcc026_lazy;
extern const struct sl_model sl_model_bcc026;
extern const struct sl_model sl_model_bcc026_build;
extern const struct sl_model sl_model_bpftrace017;
extern const struct sl_model sl_model_uftrace013;
extern const struct sl_model sl_model_other;

/* sl_model_keeps - would @m keep @s, section checks aside? (the candidate
 * rule used for charging and counting; exact modelling is in symindex.c) */
static inline int sl_model_keeps(const struct sl_model *m, const GElf_Sym *s)
{
	return m->sym_kind(s) != SL_SYM_SKIP;
}

/* sl_model_keeps_types - the same with libbcc's use_symbol_type (@types;
 * ignored by models without sym_kind_types). */
static inline int sl_model_keeps_types(const struct sl_model *m, const GElf_Sym *s, uint32_t types)
{
	return (m->sym_kind_types ? m->sym_kind_types(s, types) : m->sym_kind(s)) != SL_SYM_SKIP;
}

/* perf 6.1's functions, for unit tests (tests/unit/test_model_perf61.c). */
int perf61_parse_argv(int argc, char *const argv[], struct sl_invocation *inv);
int perf61_text_output(struct sl_invocation *inv, int out_is_tty);
int perf61_image_matches(const char *img, size_t len);
/* perf's subcommand index in @argv after its global options, or -1 */
int perf61_subcommand(int argc, char *const argv[]);
/* shared with model_perfprobe61.c */
enum sl_sym_kind perf61_sym_kind(const GElf_Sym *s);
int perf61_label_section_ok(const char *name);
char *perf61_demangle(const char *raw, int mode, int *uncertain);
int perf61_choose_by_name(const char *a, const char *b);

#endif
