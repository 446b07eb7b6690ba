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
 * What differs between perf versions is data in the model (issue 14): the
 * demangler and whether -v changes names, the argv rules, the fixup rules,
 * the PLT synthesis variant, the address space of lookups. The index and
 * the replay read these fields instead of assuming perf 6.1; a rule a model
 * cannot mirror exactly makes the affected DSOs eager with a reason.
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
	const char *kallsyms;       /* Added (issue 11): --kallsyms FILE, or NULL */
};

#define SL_INV_STDIO     1      /* --stdio given */
#define SL_INV_NOT_STDIO 2      /* --tui, --gtk or --stdio2 given */
#define SL_INV_DATA_TYPE 4      /* data-type profiling asked (sl_argv_rules.data_type_options) */

/* Which demangler perf calls for user symbol names (symbol-elf.c demangle_sym). */
enum sl_demangler {
	SL_DEMANGLER_LIBIBERTY = 0, /* libiberty cplus_demangle linked into perf (6.1) */
	SL_DEMANGLER_PERF_CXX,      /* perf's util/demangle-cxx.cpp cxx_demangle_sym (6.4+):
				     * __cxa_demangle in distribution builds */
};

/* How perf synthesizes PLT symbols after a load (dso__synthesize_plt_symbols). */
enum sl_plt_rules {
	SL_PLT_V61 = 0,             /* v6.1: .rela.plt/.rel.plt linked to .dynsym, entries
				     * after one .plt header entry, nothing else */
	SL_PLT_V62,                 /* rewritten in v6.2: symbol over .plt truncated, ".plt"
				     * header symbol, .plt.got and .plt.sec entries, relocs in
				     * r_offset order, non-lazy .plt, IFUNC names from the tree
				     * (model_perf612.c lists the rules) */
};

/* What address perf looks a sample up with in a user DSO (map__map_ip). */
enum sl_lookup_space {
	SL_LOOKUP_FILE_OFFSET = 0,  /* ip - map start + pgoff, symbols at st_value -
				     * (p_vaddr - p_offset): what core/perfdata.c computes */
};

/* symbols__fixup_end / symbols__fixup_duplicate (symbol.c). */
struct sl_fixup_rules {
	uint64_t last_page;         /* the last zero-size symbol of a pass ends at
				     * roundup(start, last_page) + last_page (0 = 4096) */
	int dup_marks_ifunc_alias;  /* the survivor of a same-start pair whose other
				     * member is STT_GNU_IFUNC gets ifunc_alias (6.2+) */
	int abort_annotate_full;    /* after a pass aborts, same-start duplicates stay in
				     * the tree and perf annotate counts a sample into the
				     * symbol object of the start's first hist entry
				     * (builtin-annotate.c evsel__add_sample ->
				     * hist_entry__inc_addr_samples): a reduced table was
				     * seen to change that count, so annotate of such a DSO
				     * gets the full table */
};

/* The argv facts that differ between perf versions (perf.c, builtin-*.c). */
struct sl_argv_rules {
	const char *const *global_with_arg; /* global options before the subcommand
					     * that take the next word (NULL-ended) */
	int verbose_demangles;      /* -v / --debug verbose changes the names perf stores */
	int data_type_options;      /* annotate --data-type/--type-stat/--insn-stat and
				     * report --sort type/typeoff/typecln exist (6.8+):
				     * they resolve data addresses from the whole table */
};

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

	/* ---- rules as data (issue 14); a zeroed field means perf 6.1's rule ---- */
	const char *versions;       /* the versions it mirrors, for messages ("6.1.x") */
	enum sl_demangler demangler;
	const struct sl_argv_rules *argv_rules;
	struct sl_fixup_rules fixup;
	enum sl_plt_rules plt;
	enum sl_lookup_space lookup_space;
	/* optional: heap bytes one kept symbol costs, from its raw @name (@namelen
	 * bytes) and the demangling mode - for tools that store a demangled name
	 * that can be longer than the raw one. NULL: sym_cost(namelen). */
	uint64_t (*name_cost)(const char *name, uint64_t namelen, int dem_mode);
	/* optional: can demangle() give exactly the tool's names in this process?
	 * 1 yes; 0 no, with @why (NUL-terminated, @n bytes) saying why. */
	int (*demangler_ready)(char *why, size_t n);
	/* optional: what demangle() calls in this process (for the stats), or NULL */
	const char *(*demangler_name)(void);
	/* symbol-by-address rules, NULL for table-loading tools (perf) */
	const struct sl_lookup_rules *lookup;

	/* budget (0/NULL: perf 6.1's): what a dropped symbol looks like in the
	 * tool's output, and which kept symbols could stretch over dropped ones
	 * in the tool's lookup (SL_BR_*, core/budgetplan.h) */
	unsigned budget_rules;
	const char *unknown_shows;
	/* libbcc: the keep rule depends on bcc_symbol_option.use_symbol_type */
	enum sl_sym_kind (*sym_kind_types)(const GElf_Sym *s, uint32_t types);
};

/* Budget rules SL_BR_*: core/budgetplan.h. */

/* The models this build knows: perf (core/tool.c perf_models[]: newest
 * first; perf 6.1's `perf probe` in model_perfprobe61.c), libdwfl, libbcc
 * 0.26 by its lazy_symbolize option (model_bcc.c), bpftrace 0.17's own scans
 * (model_bpftrace.c), uftrace 0.13 (model_uftrace.c), and any other tool
 * (model_other.c: conservative). */
extern const struct sl_model sl_model_perf61;
extern const struct sl_model sl_model_perf612;
extern const struct sl_model sl_model_perf61_probe;
extern const struct sl_model sl_model_libdwfl188;   /* elfutils 0.188 libdwfl */
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

/* sl_model_cost - heap bytes @m charges for one kept symbol named @name. */
static inline uint64_t sl_model_cost(const struct sl_model *m, const char *name, uint64_t namelen,
				     int dem_mode)
{
	return m->name_cost && name ? m->name_cost(name, namelen, dem_mode) : m->sym_cost(namelen);
}

/* sl_model_last_page - symbols__fixup_end's page for the last symbol. */
static inline uint64_t sl_model_last_page(const struct sl_model *m)
{
	return m && m->fixup.last_page ? m->fixup.last_page : 4096;
}

/*
 * sl_perf_parse_argv - perf's argv as script/report/annotate read it, for
 * the version whose differences @rules holds (global options with an
 * argument, whether -v changes names, data-type options). The body of every
 * perf model's parse_argv (core/model_perf61.c).
 */
int sl_perf_parse_argv(const struct sl_argv_rules *rules, int argc, char *const argv[],
		       struct sl_invocation *inv);

/* sl_perf_version_in_image - the first "\0<major>.<minor>.<patch>[suffix]\0"
 * literal (major 3..9) of a perf image, copied to @buf; 0 if none. For
 * messages about versions no model mirrors. */
int sl_perf_version_in_image(const char *img, size_t len, char *buf, size_t n);

/* perf 6.1's functions, for unit tests (tests/unit/test_model_perf61.c) and
 * for the models of later versions whose rule did not change. */
int perf61_parse_argv(int argc, char *const argv[], struct sl_invocation *inv);
int perf61_text_output(struct sl_invocation *inv, int out_is_tty);
int perf61_image_matches(const char *img, size_t len);
/* perf's subcommand index in @argv after its global options, or -1 */
int perf61_subcommand(int argc, char *const argv[]);
/* shared with model_perfprobe61.c */
enum sl_sym_kind perf61_sym_kind(const GElf_Sym *s);
int perf61_label_section_ok(const char *section_name);
uint64_t perf61_sym_cost(uint64_t namelen);
char *perf61_demangle(const char *raw, int mode, int *uncertain);
int perf61_choose_by_name(const char *a, const char *b);
extern const struct sl_argv_rules perf61_argv_rules;

/* perf 6.12's functions, for unit tests (tests/unit/test_model_perf612.c). */
int perf612_parse_argv(int argc, char *const argv[], struct sl_invocation *inv);
int perf612_text_output(struct sl_invocation *inv, int out_is_tty);
int perf612_image_matches(const char *img, size_t len);
char *perf612_demangle(const char *raw, int mode, int *uncertain);
uint64_t perf612_name_cost(const char *name, uint64_t namelen, int dem_mode);
int perf612_demangler_ready(char *why, size_t n);
const char *perf612_demangler_name(void);

/*
 * The functions perf 6.12 demangles with (symbol-elf.c demangle_sym): perf's
 * own exported cxx/ocaml/java/rust demanglers when the perf executable
 * exports them (dynamic symbol table), else libstdc++'s __cxa_demangle.
 * perf612_demangler_set() replaces the lookup (tests); NULL restores it.
 */
struct perf612_demangler {
	char *(*cxx)(const char *str, _Bool params, _Bool modifiers);   /* cxx_demangle_sym */
	char *(*ocaml)(const char *str);                                /* ocaml_demangle_sym */
	char *(*java)(const char *str, int flags);                      /* java_demangle_sym */
	_Bool (*rust_is_mangled)(const char *str);
	void (*rust_demangle)(char *str);                               /* rust_demangle_sym */
	char *(*cxa)(const char *mangled, char *buf, size_t *len, int *status); /* __cxa_demangle */
	const char *what;           /* "perf's cxx_demangle_sym", "__cxa_demangle", or NULL */
	char why[160];              /* when neither is usable */
};
void perf612_demangler_set(const struct perf612_demangler *d);
const struct perf612_demangler *perf612_demangler_get(void);

/* libdwfl 0.188's rules, for unit tests (tests/unit/test_model_libdwfl.c). */
int dwfl188_eligible(const char *name, const GElf_Sym *sym);
int dwfl188_bind_rank(const GElf_Sym *sym);
int dwfl188_replaces(const struct sl_lk_sym *cur, const struct sl_lk_sym *c);
int dwfl188_select(const struct sl_lk_query *q, const struct sl_lk_sym **out);

#endif
