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
 *
 * A fifth kind, lookup rules (struct sl_lookup_rules), is for tools that ask
 * a library for "the symbol at this address" one address at a time instead
 * of loading a table (libdwfl's dwfl_module_addrsym/addrinfo,
 * core/model_libdwfl.c): which symbols are candidates, and how the library
 * picks one among those an address falls in. core/dwflindex.c finds the
 * candidates of one address in an index and asks these rules for the answer.
 */
#ifndef SYMLAZY_MODEL_H
#define SYMLAZY_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <gelf.h>
#include "reason.h"

/* What the tool was asked to do (from its argv). */
struct sl_invocation {
	const char *input;          /* perf.data path (points into argv), or NULL */
	int default_input;          /* no -i given: "perf.data", unless stdin is a pipe */
	int demangle;               /* SYMIDX_DEM_* (symindex.h) */
	int flags;                  /* SL_INV_* */
	int annotate, report;       /* the subcommand */
	const char *buildid_dir;    /* perf --buildid-dir DIR, or NULL */
	struct sl_why why;          /* reason when lazy mode does not apply */
};

#define SL_INV_STDIO     1      /* --stdio given */
#define SL_INV_NOT_STDIO 2      /* --tui, --gtk or --stdio2 given */

/* Symbol kinds a model's keep rule returns (before section checks). */
enum sl_sym_kind { SL_SYM_SKIP = 0, SL_SYM_FUNC, SL_SYM_OBJECT, SL_SYM_LABEL };

/* ---- lookup rules (symbol-by-address libraries) ------------------------ */

/* One candidate symbol of a lookup, as the library's scan sees it. */
struct sl_lk_sym {
	uint64_t value;             /* the address the library compares (bias applied) */
	uint64_t size;              /* st_size */
	uint32_t ndx;               /* the library's symbol index */
	uint8_t bind;               /* the model's binding rank (higher is better) */
	uint8_t pass;               /* 0: first (globals) pass, 1: second (locals) pass */
};

/*
 * Everything one lookup's answer depends on, gathered from an index.
 * Scope 0 is the first pass alone, scope 1 both passes.
 *   cont[p]   sized candidates of pass p that contain addr, by ndx
 *   m[s]      max(value + size) over the candidates of scope s with
 *             value <= addr (libdwfl's min_label), 0 if none
 *   v[s]      the greatest value <= addr of a sizeless candidate of scope s
 *             (have_v[s] = 0: none)
 *   atv[s]    the sizeless candidates of scope s at value v[s], in scan order
 *   same_section(ctx, s): the library's "addr lies in the section of s"
 *             test for sizeless candidate s: 1, 0, or -1 (cannot tell).
 */
struct sl_lk_query {
	uint64_t addr;
	int two_passes;             /* the second pass exists (libdwfl: first_global > 1) */
	const struct sl_lk_sym *cont[2];
	size_t ncont[2];
	uint64_t m[2], v[2];
	int have_v[2];
	const struct sl_lk_sym *atv[2];
	size_t natv[2];
	int (*same_section)(void *ctx, const struct sl_lk_sym *s);
	void *ctx;
};

struct sl_lookup_rules {
	/* Is the symbol (@name from its string table, NULL if unreadable) a
	 * candidate for some address? (value <= addr is checked per lookup) */
	int (*eligible)(const char *name, const GElf_Sym *sym);
	/* the binding rank of @sym (struct sl_lk_sym.bind) */
	int (*bind_rank)(const GElf_Sym *sym);
	/* the sized-candidate fold: does @c replace @cur (NULL: nothing yet)? */
	int (*replaces)(const struct sl_lk_sym *cur, const struct sl_lk_sym *c);
	/* the answer: 1 with *@out, 0 (no symbol), -1 (cannot tell: ask the
	 * library) */
	int (*select)(const struct sl_lk_query *q, const struct sl_lk_sym **out);
	/* may the index answer for this ELF machine at all? (function
	 * descriptors, address masks: no) */
	int (*machine_ok)(unsigned e_machine);
	/* the library version this model mirrors ("0.188") and a test of a
	 * run-time version string */
	const char *version;
	int (*version_matches)(const char *v);
};

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
	/* symbol-by-address rules, NULL for table-loading tools (perf) */
	const struct sl_lookup_rules *lookup;
};

/* The models this build knows. */
extern const struct sl_model sl_model_perf61;
extern const struct sl_model sl_model_libdwfl188;   /* elfutils 0.188 libdwfl */

/* sl_model_keeps - would @m keep @s, section checks aside? (the candidate
 * rule used for charging and counting; exact modelling is in symindex.c) */
static inline int sl_model_keeps(const struct sl_model *m, const GElf_Sym *s)
{
	return m->sym_kind(s) != SL_SYM_SKIP;
}

/* perf 6.1's functions, for unit tests (tests/unit/test_model_perf61.c). */
int perf61_parse_argv(int argc, char *const argv[], struct sl_invocation *inv);
int perf61_text_output(struct sl_invocation *inv, int out_is_tty);
int perf61_image_matches(const char *img, size_t len);

/* libdwfl 0.188's rules, for unit tests (tests/unit/test_model_libdwfl.c). */
int dwfl188_eligible(const char *name, const GElf_Sym *sym);
int dwfl188_bind_rank(const GElf_Sym *sym);
int dwfl188_replaces(const struct sl_lk_sym *cur, const struct sl_lk_sym *c);
int dwfl188_select(const struct sl_lk_query *q, const struct sl_lk_sym **out);

#endif
