/* SPDX-License-Identifier: MIT */
/*
 * core/models.h - the models this build knows (one file per tool and
 * version under core/model/), what a model is to core/, and the functions
 * and initializers the models share with each other and with unit tests.
 *
 * A model (struct sl_tool_model) answers four kinds of question:
 *   recognition  is the running program this tool at this version?
 *   invocation   what was it asked to do (argv): which input, which output
 *                (text or interactive), how it demangles?
 *   symbols      which symbols it keeps, what they cost, the names it stores,
 *                its choices between duplicates: struct sl_model, the part
 *                the index reads (index/model.h), embedded as .sym;
 *   process      whether it launches workloads (so the shim drops itself from
 *                their LD_PRELOAD), its DWARF unwinder, addr2line children,
 *                kallsyms filter, per-symbol annotation bytes, and what a
 *                symbol dropped under a budget looks like in its output.
 * Nothing outside a model file knows a tool's rules; a field a version
 * mirrors deliberately is written out in its table, zero included.
 */
#ifndef SYMLAZY_MODELS_H
#define SYMLAZY_MODELS_H

#include "index/model.h"
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
	const char *kallsyms;       /* --kallsyms FILE, or NULL */
	int diff, convert;          /* the subcommand (convert: `perf data convert`) */
	const char *inputs[SL_INV_MAX_INPUTS];  /* perf diff: every file it reads, in
					 * order (inputs[0] == input); others: input */
	int nr_inputs;
};

#define SL_INV_STDIO     1      /* --stdio given */
#define SL_INV_NOT_STDIO 2      /* --tui, --gtk or --stdio2 given */
#define SL_INV_DATA_TYPE 4      /* data-type profiling asked (sl_argv_rules.data_type_options) */

/* What address perf looks a sample up with in a user DSO (map__map_ip). */
enum sl_lookup_space {
	SL_LOOKUP_FILE_OFFSET = 0,  /* ip - map start + pgoff, symbols at st_value -
				     * (p_vaddr - p_offset): what perfdata/perfdata.c computes */
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

/* Budget rules of a tool's model (struct sl_tool_model.budget_rules): how a
 * kept symbol could answer for addresses of a dropped one in the tool's
 * lookup (core/budgetplan.c applies them). */
#define SL_BR_ZERO_STRETCH 1u   /* a zero-size symbol ends at the next kept start (perf
				 * symbols__fixup_end): kept ones get their full-table end */
#define SL_BR_NEXT_STRETCH 2u   /* every symbol ends at the next kept start (uftrace's
				 * .sym files): keep only an address-ordered suffix */
#define SL_BR_OVERLAP      4u   /* a kept symbol overlapping a dropped one answers for
				 * it: overlapping symbols are kept or dropped together */

/* A tool at one version, as core/ sees it. */
struct sl_tool_model {
	struct sl_model sym;        /* the symbol rules (index/model.h): what the index,
				     * the replay and the budget's charge read */
	const char *tool;           /* "perf" */
	const char *versions;       /* the versions it mirrors, for messages ("6.1.x") */
	/* recognition: does the executable image (@img, @len bytes) carry this
	 * version? 1 if so. */
	int (*image_matches)(const char *img, size_t len);
	/* invocation: 1 if lazy mode may apply (@inv->input set), else 0 with
	 * @inv->why set. */
	int (*parse_argv)(int argc, char *const argv[], struct sl_invocation *inv);
	/* may lazy mode serve this run's output? (@out_is_tty: isatty(1)) */
	int (*text_output)(struct sl_invocation *inv, int out_is_tty);
	const struct sl_argv_rules *argv_rules;
	enum sl_lookup_space lookup_space;
	/* process */
	int launches_workloads;
	enum sl_unwinder unwinder;
	unsigned kallsyms_rules;    /* SL_KS_* */
	int reads_gnu_debugdata;    /* user DSOs' .gnu_debugdata (MiniDebugInfo) symbols
				     * are read: a DSO with that section stays eager (its
				     * pass list differs) */
	unsigned annotation_priv;   /* sizeof(struct annotation), what
				     * symbol__annotation_init adds to every symbol perf
				     * diff allocates (symbol_conf.priv_size) */
	enum sl_a2l_child a2l_child; /* the addr2line child perf forks (core/a2lsess.c) */
	/* budget: which kept symbols could stretch over dropped ones in the
	 * tool's lookup (SL_BR_*), and what a dropped symbol looks like in the
	 * tool's output (NULL: "show as [unknown]") */
	unsigned budget_rules;
	const char *unknown_shows;
};

/* The models this build knows: perf (core/tool.c perf_models[]: newest
 * first; perf 6.1's `perf probe` in core/model/perfprobe61.c), libdwfl, libbcc
 * 0.26 and 0.31 by the lazy_symbolize option (core/model/bcc026.c, bcc031.c),
 * bpftrace's own scans (core/model/bpftrace017.c, bpftrace023.c), uftrace 0.13
 * (core/model/uftrace013.c), and any other tool (core/model/other.c:
 * conservative). */
extern const struct sl_tool_model sl_model_perf61;
extern const struct sl_tool_model sl_model_perf612;
extern const struct sl_tool_model sl_model_perf72;
extern const struct sl_tool_model sl_model_perf61_probe;
extern const struct sl_tool_model sl_model_libdwfl188;   /* elfutils 0.188 libdwfl */
extern const struct sl_tool_model sl_model_bcc026_lazy;
extern const struct sl_tool_model sl_model_bcc026;
extern const struct sl_tool_model sl_model_bcc026_build;
extern const struct sl_tool_model sl_model_bcc031_lazy;   /* libbcc 0.31 (Debian 13) */
extern const struct sl_tool_model sl_model_bcc031;
extern const struct sl_tool_model sl_model_bcc031_build;
extern const struct sl_tool_model sl_model_bpftrace017;
extern const struct sl_tool_model sl_model_bpftrace023;  /* bpftrace 0.23 (Debian 13) */
extern const struct sl_tool_model sl_model_uftrace013;
extern const struct sl_tool_model sl_model_other;

/* ---- perf: the base every version shares (core/model/perf_common.c) ---- */

/*
 * SL_PERF_MODEL_COMMON - the fields every perf model has the same value
 * for: tools/perf of v6.1, v6.12 and v7.2 diffed (each model's header lists
 * the files) give the same keep rule and label sections
 * (util/symbol-elf.c dso__load_sym_internal), the same struct symbol of 48
 * bytes (util/symbol.h, symbol__new), the same name rules of
 * choose_best_symbol and symbols__fixup_end's last page (util/symbol.c),
 * the abort of a pass on a bad st_shndx, file-offset lookups
 * (util/map.c map__map_ip), workloads (builtin-record.c) and [unknown] for
 * a symbol it does not have. A perf model's table is this macro, then every
 * other field exactly once, with the upstream file that makes it differ;
 * no field is given twice (-Wextra's -Woverride-init would say so, and a
 * reader could not tell which value wins).
 */
#define SL_PERF_MODEL_COMMON                                            \
	.tool = "perf",                                                 \
	.sym.sym_kind = sl_perf_sym_kind,                               \
	.sym.sym_kind_types = NULL,       /* no use_symbol_type */      \
	.sym.label_section_ok = sl_perf_label_section_ok,               \
	.sym.sym_cost = sl_perf_sym_cost,                               \
	.sym.choose_by_name = sl_perf_choose_by_name,                   \
	.sym.choose_by_summary = 1,                                     \
	.sym.fixup.last_page = 4096,                                    \
	.sym.fixup.abort_annotate_full = 1,                             \
	.sym.lookup = NULL,               /* perf loads whole tables */ \
	.lookup_space = SL_LOOKUP_FILE_OFFSET,                          \
	.launches_workloads = 1,                                        \
	.budget_rules = SL_BR_ZERO_STRETCH | SL_BR_OVERLAP,             \
	.unknown_shows = "show as [unknown]"

/*
 * sl_perf_global_options - perf's global options before the subcommand
 * (tools/perf/perf.c handle_options) with the version's @rules: the index
 * of the subcommand in @argv, or -1 when perf will not run one; *@verbose
 * and *@buildid_dir set from --debug verbose[=N] and --buildid-dir DIR.
 */
int sl_perf_global_options(const struct sl_argv_rules *rules, int argc, char *const argv[], int *verbose,
			   const char **buildid_dir);

/*
 * sl_perf_parse_argv - perf's argv as script/report/annotate read it, for
 * the version whose differences @rules holds (global options with an
 * argument, whether -v changes names, data-type options). The body of every
 * perf model's parse_argv.
 */
int sl_perf_parse_argv(const struct sl_argv_rules *rules, int argc, char *const argv[],
		       struct sl_invocation *inv);

/*
 * sl_perf_parse_subcmd - the argv of `perf diff` and `perf data convert`
 * (core/model/perfsubcmds.c), argv[@sub] being "diff" or "data", @verbose
 * what the global options set: 1 with inv->inputs (perf diff: every file,
 * in data_init's order), or 0 with inv->why. Called by sl_perf_parse_argv.
 */
int sl_perf_parse_subcmd(const struct sl_argv_rules *rules, int argc, char *const argv[], int sub,
			 int verbose, struct sl_invocation *inv);
/* sl_perf_lazy_subcmd - is argv[@sub] a subcommand lazy mode serves
 * (script, report, annotate, diff, data ... convert)? A cheap test. */
int sl_perf_lazy_subcmd(int argc, char *const argv[], int sub);
/* Does a --sort/--fields value name a data-type key (type, typeoff, typecln)? */
int sl_perf_names_data_type_key(const char *list);

/* sl_perf_image_has_version - does the perf image (@img, @len bytes) hold
 * the literal @prefix digits "\0", @prefix being "\0" "<major>.<minor>."
 * (tools/perf/util/version.c PERF_VERSION in .rodata)? 1 if so. */
int sl_perf_image_has_version(const char *img, size_t len, const char *prefix);

/* sl_perf_version_in_image - the first "\0<major>.<minor>.<patch>[suffix]\0"
 * literal (major 3..9) of a perf image, copied to @buf; 0 if none. For
 * messages about versions no model mirrors. */
int sl_perf_version_in_image(const char *img, size_t len, char *buf, size_t n);

/* sl_perf_text_output - may lazy mode serve this run's output (ui/setup.c
 * setup_browser, builtin-annotate.c: --stdio or a pipe)? 1, or 0 with
 * @inv->why. The rule of 6.1 and 7.2; 6.12 adds one (perf612_text_output). */
int sl_perf_text_output(struct sl_invocation *inv, int out_is_tty);

/* The symbol rules of SL_PERF_MODEL_COMMON (util/symbol-elf.c, util/symbol.c):
 * the keep rule, labels' sections, the heap bytes of a symbol whose stored
 * name has @namelen bytes, choose_best_symbol's name rules. */
enum sl_sym_kind sl_perf_sym_kind(const GElf_Sym *s);
int sl_perf_label_section_ok(const char *section_name);
uint64_t sl_perf_sym_cost(uint64_t namelen);
int sl_perf_choose_by_name(const char *a, const char *b);

/* sl_perf_name_cost - the name_cost of a perf that stores demangled names
 * (6.12, 7.2: symbol__new copies the name demangle_sym returned): @m's
 * sym_cost of the longer of the raw and the stored name (@m->demangle). */
uint64_t sl_perf_name_cost(const struct sl_model *m, const char *name, uint64_t namelen, int dem_mode);

/* What every perf demangler does alike: sl_perf_demangles - 0 when @mode
 * keeps the raw name (--no-demangle; SYMIDX_DEM_UNKNOWN also sets
 * *@uncertain), 1 to demangle; sl_perf_maybe_ocaml_java - could
 * ocaml_demangle_sym or java_demangle_sym (util/demangle-ocaml.c,
 * demangle-java.c, not mirrored) change @raw?; sl_perf_rust_hash_tail -
 * does @d end in "::h" + 16 hex digits, what rust_is_mangled looks for
 * (util/demangle-rust.c)? */
int sl_perf_demangles(int mode, int *uncertain);
int sl_perf_maybe_ocaml_java(const char *raw);
int sl_perf_rust_hash_tail(const char *d);

/* sl_perf_rust_demangle - dso__demangle_sym's Rust step (7.x, util/symbol.c;
 * core/model/perf_demangle_rust.c): 1 with the stored name in *@out
 * (malloc'ed), 0 not a Rust name, -1 the model cannot tell. */
int sl_perf_rust_demangle(const char *s, char **out);

/* perf 6.1's functions, for unit tests (tests/unit/test_model_perf61.c) and
 * for core/ before the version is known (perf61_subcommand: perf's
 * subcommand index in @argv after 6.1's global options, or -1). */
int perf61_parse_argv(int argc, char *const argv[], struct sl_invocation *inv);
int perf61_image_matches(const char *img, size_t len);
int perf61_subcommand(int argc, char *const argv[]);
char *perf61_demangle(const char *raw, int mode, int *uncertain);
extern const struct sl_argv_rules perf61_argv_rules;

/* perf 6.12's functions, for unit tests (tests/unit/test_model_perf612.c). */
int perf612_parse_argv(int argc, char *const argv[], struct sl_invocation *inv);
int perf612_text_output(struct sl_invocation *inv, int out_is_tty);
int perf612_image_matches(const char *img, size_t len);
char *perf612_demangle(const char *raw, int mode, int *uncertain);
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

/* perf 7.2's functions, for unit tests (tests/unit/test_model_perf72.c).
 * The C++ part of its demangler is perf612_demangler_get()'s. */
int perf72_parse_argv(int argc, char *const argv[], struct sl_invocation *inv);
int perf72_image_matches(const char *img, size_t len);
char *perf72_demangle(const char *raw, int mode, int *uncertain);

/* ---- libbcc ---------------------------------------------------------- */

/* libbcc 0.26's rules, shared with 0.31 (core/model/bcc031.c: bcc_syms.cc and
 * syms.h unchanged between the tags) */
enum sl_sym_kind bcc026_sym_kind(const GElf_Sym *s);
enum sl_sym_kind bcc026_sym_kind_types(const GElf_Sym *s, uint32_t types);
uint64_t bcc026_lazy_cost(uint64_t namelen);
uint64_t bcc026_cost(uint64_t namelen);

/*
 * The three models of one libbcc version @v ("0.26"): a ProcSyms module
 * load with lazy_symbolize, without it, and BuildSyms. Why each value is
 * what it is: core/model/bcc026.c; bcc031.c says why 0.31 has the same.
 */
#define SL_BCC_MODEL_BASE(v)                                             \
	.tool = "libbcc",                                                \
	.versions = v ".x",                                              \
	.sym.sym_kind = bcc026_sym_kind,                                 \
	.sym.sym_kind_types = bcc026_sym_kind_types
#define SL_BCC_MODEL_LAZY(v) {                                           \
	SL_BCC_MODEL_BASE(v),                                            \
	.sym.name = "libbcc-" v "-lazy",                                 \
	.sym.sym_cost = bcc026_lazy_cost,                                \
	.budget_rules = SL_BR_OVERLAP,                                   \
	.unknown_shows = "show as [unknown] (bcc) or hex addresses",     \
}
#define SL_BCC_MODEL_EAGER(v) {                                          \
	SL_BCC_MODEL_BASE(v),                                            \
	.sym.name = "libbcc-" v,                                         \
	.sym.sym_cost = bcc026_cost,                                     \
	.budget_rules = SL_BR_OVERLAP,                                   \
	.unknown_shows = "show as [unknown] (bcc) or hex addresses (bpftrace)", \
}
#define SL_BCC_MODEL_BUILD(v) {                                          \
	SL_BCC_MODEL_BASE(v),                                            \
	.sym.name = "libbcc-" v "-buildsyms",                            \
	.sym.sym_cost = bcc026_cost,                                     \
	.budget_rules = SL_BR_NEXT_STRETCH | SL_BR_OVERLAP,              \
	.unknown_shows = "show as [unknown]",                            \
}

/* The three models of one libbcc version (SL_BCC_MODEL_*). */
struct sl_bcc_models {
	const char *version;        /* "0.26", "0.31" */
	const struct sl_tool_model *lazy, *eager, *build;
};

/*
 * sl_bcc_version_of_file - the version of a libbcc from its file name
 * (@path, e.g. the realpath of /lib/x86_64-linux-gnu/libbcc_bpf.so.0):
 * "libbcc.so.X.Y.Z" or "libbcc_bpf.so.X.Y.Z" (bcc's CMake VERSION, which
 * Debian's and upstream's builds keep; neither library holds a version
 * string) copied as "X.Y.Z" into @buf (@n bytes). 1 if found, else 0.
 */
int sl_bcc_version_of_file(const char *path, char *buf, size_t n);

/* sl_bcc_models_for_version - the models of libbcc version @v ("0.31.0"):
 * 0.26.x and 0.31.x; NULL for any other (the shim then passes libbcc's calls
 * through untouched). */
const struct sl_bcc_models *sl_bcc_models_for_version(const char *v);

/* ---- bpftrace -------------------------------------------------------- */

/* bpftrace: the model whose version literal the image holds, only if exactly
 * one does (core/model/bpftrace017.c, bpftrace023.c), else NULL. */
const struct sl_tool_model *sl_bpftrace_model_for_image(const char *img, size_t len);
int bpftrace017_image_matches(const char *img, size_t len);
int bpftrace023_image_matches(const char *img, size_t len);
/* bpftrace_image_has_version - 1 if the image (@img, @len bytes) holds
 * "\0v<@ver>." (`bpftrace --version`'s literal, @ver "0.17"), else 0.
 * bpftrace_listing_cost - bytes charged per listed symbol of name length
 * @namelen: 320 + 3 x (name + 1), measured on 0.17 (core/model/bpftrace017.c);
 * also what core/model/other.c charges, the most a known tool spends. */
int bpftrace_image_has_version(const char *img, size_t len, const char *ver);
uint64_t bpftrace_listing_cost(uint64_t namelen);

/*
 * The model of bpftrace version @v ("0.17") recognised by @matches: its own
 * scans through bcc_elf_foreach_sym are its function listing (charged as
 * measured on 0.17, core/model/bpftrace017.c; bpftrace023.c says why 0.23's
 * is charged the same); its stacks are symbolized by libbcc's model.
 */
#define SL_BPFTRACE_MODEL(v, matches) {                                  \
	.sym.name = "bpftrace-" v,                                       \
	.tool = "bpftrace",                                              \
	.versions = v ".x",                                              \
	.image_matches = matches,                                        \
	.sym.sym_kind = sl_perf_sym_kind, /* superseded by libbcc's rule in its scans */ \
	.sym.sym_cost = bpftrace_listing_cost,                           \
	.launches_workloads = 1,          /* bpftrace -c CMD */          \
	.budget_rules = SL_BR_OVERLAP,                                   \
	.unknown_shows = "show as hex addresses (0x...) or are not listed", \
}

/* ---- libdwfl --------------------------------------------------------- */

/* libdwfl 0.188's rules, for unit tests (tests/unit/test_model_libdwfl.c). */
int dwfl188_eligible(const char *name, const GElf_Sym *sym);
int dwfl188_bind_rank(const GElf_Sym *sym);
int dwfl188_replaces(const struct sl_lk_sym *cur, const struct sl_lk_sym *c);
int dwfl188_select(const struct sl_lk_query *q, const struct sl_lk_sym **out);

#endif
