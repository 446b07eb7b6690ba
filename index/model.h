/* SPDX-License-Identifier: MIT */
/*
 * model.h - the model interface: everything symlazy knows about one tool
 * at one version, behind one table of functions. The core asks the model;
 * nothing outside a model file knows a tool's rules. One file per tool and
 * version (core/model/perf61.c: Debian's perf 6.1).
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
 * The tree replay (index/rbsim.c, index/symindex.c sim_*) mirrors perf's
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
 * core/model/libdwfl188.c): which symbols are candidates, and how the library
 * picks one among those an address falls in. index/dwflindex.c finds the
 * candidates of one address in an index and asks these rules for the answer.
 */
#ifndef SYMLAZY_MODEL_H
#define SYMLAZY_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <gelf.h>
#include "util/reason.h"

/* perf diff reads any number of files; lazy mode pre-reads up to this many */
#define SL_INV_MAX_INPUTS 16

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
	/* Added (issue 19): perf diff and perf data convert --to-json */
	int diff, convert;          /* the subcommand (convert: `perf data convert`) */
	const char *inputs[SL_INV_MAX_INPUTS];  /* perf diff: every file it reads, in
					 * order (inputs[0] == input); others: input */
	int nr_inputs;
};


#define SL_INV_STDIO     1      /* --stdio given */
#define SL_INV_NOT_STDIO 2      /* --tui, --gtk or --stdio2 given */
#define SL_INV_DATA_TYPE 4      /* data-type profiling asked (sl_argv_rules.data_type_options) */

/* Which demangler perf calls for user symbol names (symbol-elf.c demangle_sym). */
enum sl_demangler {
	SL_DEMANGLER_LIBIBERTY = 0, /* libiberty cplus_demangle linked into perf (6.1) */
	SL_DEMANGLER_PERF_CXX,      /* perf's util/demangle-cxx.cpp cxx_demangle_sym (6.4+):
				     * __cxa_demangle in distribution builds */
	SL_DEMANGLER_PERF_RUST_CXX, /* util/symbol.c dso__demangle_sym (7.x): Rust
				     * (rustc-demangle) on the raw name first, then
				     * cxx_demangle_sym, OCaml, Java */
};

/* How perf synthesizes PLT symbols after a load (dso__synthesize_plt_symbols). */
enum sl_plt_rules {
	SL_PLT_V61 = 0,             /* v6.1: .rela.plt/.rel.plt linked to .dynsym, entries
				     * after one .plt header entry, nothing else */
	SL_PLT_V62,                 /* rewritten in v6.2: symbol over .plt truncated, ".plt"
				     * header symbol, .plt.got and .plt.sec entries, relocs in
				     * r_offset order, non-lazy .plt, IFUNC names from the tree
				     * (core/model/perf612.c lists the rules) */
};

/* What address perf looks a sample up with in a user DSO (map__map_ip). */
enum sl_lookup_space {
	SL_LOOKUP_FILE_OFFSET = 0,  /* ip - map start + pgoff, symbols at st_value -
				     * (p_vaddr - p_offset): what perfdata/perfdata.c computes */
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
	int notype_loses;           /* choose_best_symbol: after the zero-length rule, an
				     * STT_NOTYPE symbol loses to one of another type,
				     * before the weak/global/name rules (7.0+,
				     * tools/perf/util/symbol.c choose_best_symbol) */
};

/* Which unwinder perf uses for DWARF callchains (--call-graph dwarf). */
enum sl_unwinder {
	SL_UNWIND_LIBUNWIND = 0,    /* util/unwind-libunwind-local.c (Debian's 6.1, 6.12):
				     * the pre-pass replays it where provably exact
				     * (perfdata/unwind_replay.c), else scans */
	SL_UNWIND_LIBDW,            /* util/unwind-libdw.c (Debian's 7.x, built without
				     * libunwind): the pre-pass scans every DWARF sample
				     * (perfdata/unwind.h: a superset of what libdw's frames
				     * can reach: registers and stack words, w and w - 1) */
};

/* How perf resolves inline frames and source lines when it forks binutils'
 * addr2line (util/srcline.c addr2line_subprocess_init; tools/lib/subcmd/
 * run-command.c start_command: fork, dup2 the pipes, execvp). */
enum sl_a2l_child {
	SL_A2L_NONE = 0,            /* not mirrored: the child runs as it is */
	SL_A2L_ARGV_61,             /* v6.1: execvp("addr2line", {"addr2line", "-e", DSO,
				     * "-i", "-f"}), queries "%016llx\n,\n", one child per
				     * DSO, started for every DSO */
	SL_A2L_ARGV_612,            /* v6.12: {"addr2line", "-e", DSO, "-a", "-i", "-f"}
				     * (argv[0] is --addr2line PATH when given), started only
				     * for a DSO with .debug_line; a 1 s read timeout */
};

/* Text sources (kallsyms) rules that differ between versions (textsrc/kallsyms.c). */
#define SL_KS_DROP_LOCAL_LABELS 1u  /* names ".L*" and "L0*" are dropped like "$*"
				     * (7.x: symbol.h is_ignored_kernel_symbol) */

/* The argv facts that differ between perf versions (perf.c, builtin-*.c). */
struct sl_argv_rules {
	const char *const *global_with_arg; /* global options before the subcommand
					     * that take the next word (NULL-ended) */
	int verbose_demangles;      /* -v / --debug verbose changes the names perf stores */
	int data_type_options;      /* annotate --data-type/--type-stat/--insn-stat and
				     * report --sort type/typeoff/typecln exist (6.8+):
				     * they resolve data addresses from the whole table */
	/* 0/NULL below: perf 6.x's rule */
	const char *const *sub_with_arg;    /* script/report/annotate long options
					     * this version added that take the
					     * next word (NULL-ended) */
	int code_with_type;         /* annotate --code-with-type exists: data-type
				     * profiling too (7.x) */
	int symfs_layout;           /* --symfs DIR[,flat|hierarchy]: a comma names a
				     * layout (7.x symbol__config_symfs) */
	int convert_time;           /* perf data convert --time STR exists (7.x) */
	int wdiff_argv_intact;      /* perf diff -c wdiff:W1,W2 leaves argv as it is (7.x);
				     * 6.x's setup_compute_opt_wdiff writes a NUL over
				     * the ',' in argv, so /proc/self/cmdline shows
				     * "wdiff:W1" and "W2" as two words */
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

/* Budget rules of a tool's model (struct sl_model.budget_rules): how a kept
 * symbol could answer for addresses of a dropped one in the tool's lookup. */
#define SL_BR_ZERO_STRETCH 1u   /* a zero-size symbol ends at the next kept start (perf
				 * symbols__fixup_end): kept ones get their full-table end */
#define SL_BR_NEXT_STRETCH 2u   /* every symbol ends at the next kept start (uftrace's
				 * .sym files): keep only an address-ordered suffix */
#define SL_BR_OVERLAP      4u   /* a kept symbol overlapping a dropped one answers for
				 * it: overlapping symbols are kept or dropped together */

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
	int choose_by_summary;      /* choose_by_name is perf's choose_best_symbol name
				     * rule (tools/perf/util/symbol.c: prefix underscores,
				     * then length), which the index evaluates on per-name
				     * summaries (index/symindex.c pname) without demangling */
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
	 * in the tool's lookup (SL_BR_* below; core/budgetplan.c applies them) */
	unsigned budget_rules;
	const char *unknown_shows;
	/* perf 7.x (0 = 6.1's): the DWARF unwinder, kallsyms rules (SL_KS_*), and
	 * whether user DSOs' .gnu_debugdata (MiniDebugInfo) symbols are read:
	 * then a DSO with that section stays eager (its pass list differs) */
	enum sl_unwinder unwinder;
	unsigned kallsyms_rules;
	int reads_gnu_debugdata;
	/* Added (issue 19): sizeof(struct annotation), what symbol__annotation_init
	 * adds to every symbol perf diff allocates (symbol_conf.priv_size) */
	unsigned annotation_priv;
	/* Added (issue 20): the addr2line child perf forks (core/a2lsess.c) */
	enum sl_a2l_child a2l_child;
	/* libbcc: the keep rule depends on bcc_symbol_option.use_symbol_type */
	enum sl_sym_kind (*sym_kind_types)(const GElf_Sym *s, uint32_t types);
};

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

#endif
