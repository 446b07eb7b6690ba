/* SPDX-License-Identifier: MIT */
/*
 * core/models.h - the models this build knows (one file per tool and
 * version under core/model/) and the functions they share with each other
 * and with unit tests. The interface they implement, struct sl_model, is
 * index/model.h: the index is built and answered with a model's rules.
 */
#ifndef SYMLAZY_MODELS_H
#define SYMLAZY_MODELS_H

#include "index/model.h"

/* The models this build knows: perf (core/tool.c perf_models[]: newest
 * first; perf 6.1's `perf probe` in core/model/perfprobe61.c), libdwfl, libbcc
 * 0.26 by its lazy_symbolize option (core/model/bcc026.c), bpftrace 0.17's own scans
 * (core/model/bpftrace017.c), uftrace 0.13 (core/model/uftrace013.c), and any other tool
 * (core/model/other.c: conservative). */
extern const struct sl_model sl_model_perf61;
extern const struct sl_model sl_model_perf612;
extern const struct sl_model sl_model_perf72;
extern const struct sl_model sl_model_perf61_probe;
extern const struct sl_model sl_model_libdwfl188;   /* elfutils 0.188 libdwfl */
extern const struct sl_model sl_model_bcc026_lazy;
extern const struct sl_model sl_model_bcc026;
extern const struct sl_model sl_model_bcc026_build;
extern const struct sl_model sl_model_bcc031_lazy;   /* libbcc 0.31 (Debian 13) */
extern const struct sl_model sl_model_bcc031;
extern const struct sl_model sl_model_bcc031_build;
extern const struct sl_model sl_model_bpftrace017;
extern const struct sl_model sl_model_bpftrace023;  /* bpftrace 0.23 (Debian 13) */
extern const struct sl_model sl_model_uftrace013;
extern const struct sl_model sl_model_other;

/*
 * sl_perf_parse_argv - perf's argv as script/report/annotate read it, for
 * the version whose differences @rules holds (global options with an
 * argument, whether -v changes names, data-type options). The body of every
 * perf model's parse_argv (core/model/perf61.c).
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

/* perf 6.1's functions, for unit tests (tests/unit/test_model_perf61.c) and
 * for the models of later versions whose rule did not change. */
int perf61_parse_argv(int argc, char *const argv[], struct sl_invocation *inv);
int perf61_text_output(struct sl_invocation *inv, int out_is_tty);
int perf61_image_matches(const char *img, size_t len);
/* perf's subcommand index in @argv after its global options, or -1 */
int perf61_subcommand(int argc, char *const argv[]);
/* shared with core/model/perfprobe61.c */
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

/* perf 7.2's functions, for unit tests (tests/unit/test_model_perf72.c).
 * The C++ part of its demangler is perf612_demangler_get()'s. */
int perf72_parse_argv(int argc, char *const argv[], struct sl_invocation *inv);
int perf72_text_output(struct sl_invocation *inv, int out_is_tty);
int perf72_image_matches(const char *img, size_t len);
char *perf72_demangle(const char *raw, int mode, int *uncertain);
uint64_t perf72_name_cost(const char *name, uint64_t namelen, int dem_mode);
/* dso__demangle_sym's Rust step: 1 with the stored name in *@out
 * (malloc'ed), 0 not a Rust name, -1 the model cannot tell */
int perf72_rust_demangle(const char *s, char **out);

/* libbcc 0.26's rules, shared with 0.31 (core/model/bcc031.c: bcc_syms.cc and
 * syms.h unchanged between the tags) */
enum sl_sym_kind bcc026_sym_kind(const GElf_Sym *s);
enum sl_sym_kind bcc026_sym_kind_types(const GElf_Sym *s, uint32_t types);
uint64_t bcc026_lazy_cost(uint64_t namelen);
uint64_t bcc026_cost(uint64_t namelen);

/* The three models of one libbcc version: a ProcSyms module load with
 * lazy_symbolize, without it, and BuildSyms (core/model/bcc026.c). */
struct sl_bcc_models {
	const char *version;        /* "0.26", "0.31" */
	const struct sl_model *lazy, *eager, *build;
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

/* bpftrace: the model whose version literal the image holds, only if exactly
 * one does (core/model/bpftrace017.c, bpftrace023.c), else NULL. */
const struct sl_model *sl_bpftrace_model_for_image(const char *img, size_t len);
int bpftrace017_image_matches(const char *img, size_t len);
/* bpftrace_image_has_version - 1 if the image (@img, @len bytes) holds
 * "\0v<@ver>." (`bpftrace --version`'s literal, @ver "0.17"), else 0.
 * bpftrace_listing_cost - bytes charged per listed symbol of name length
 * @namelen: 320 + 3 x (name + 1), measured on 0.17 (core/model/bpftrace017.c). */
int bpftrace_image_has_version(const char *img, size_t len, const char *ver);
uint64_t bpftrace_listing_cost(uint64_t namelen);
int bpftrace023_image_matches(const char *img, size_t len);

/* libdwfl 0.188's rules, for unit tests (tests/unit/test_model_libdwfl.c). */
int dwfl188_eligible(const char *name, const GElf_Sym *sym);
int dwfl188_bind_rank(const GElf_Sym *sym);
int dwfl188_replaces(const struct sl_lk_sym *cur, const struct sl_lk_sym *c);
int dwfl188_select(const struct sl_lk_query *q, const struct sl_lk_sym **out);

#endif
