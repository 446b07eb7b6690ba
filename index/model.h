/* SPDX-License-Identifier: MIT */
/*
 * model.h - the symbol rules of one tool at one version: what the index and
 * the tree replay need to answer as that tool does. Which symbols it keeps
 * (before section checks), what one kept symbol costs it in heap bytes,
 * the names it stores (demangling), its choice between same-address
 * duplicates, perf's symbols__fixup_end / symbols__fixup_duplicate and PLT
 * synthesis variants, and, for libraries asked one address at a time
 * (libdwfl's dwfl_module_addrsym/addrinfo), the lookup rules
 * (struct sl_lookup_rules: index/dwflindex.c finds the candidates of one
 * address in an index and asks these rules for the answer).
 *
 * The models themselves are core/model/ (one file per tool and version);
 * each embeds a struct sl_model in its struct sl_tool_model (core/models.h),
 * which adds what only core/ reads: recognition, argv, process settings.
 * The index and the replay (index/rbsim.c, index/symindex.c, index/choose.c)
 * read these fields instead of assuming perf 6.1; a rule a model cannot
 * mirror exactly makes the affected DSOs eager with a reason.
 */
#ifndef SYMLAZY_MODEL_H
#define SYMLAZY_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <gelf.h>

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
	const char *name;           /* "perf-6.1": stats, messages, and part of the tree
				     * replay's cache key (index/tree.c) */
	/* keep rule: the kind of @s (SL_SYM_SKIP: not kept), and for libbcc the
	 * same with bcc_symbol_option.use_symbol_type (@types; NULL: sym_kind) */
	enum sl_sym_kind (*sym_kind)(const GElf_Sym *s);
	enum sl_sym_kind (*sym_kind_types)(const GElf_Sym *s, uint32_t types);
	/* may a label (SL_SYM_LABEL) of the section named @section_name be kept? */
	int (*label_section_ok)(const char *section_name);
	/* heap bytes one kept symbol with a name of @namelen bytes costs */
	uint64_t (*sym_cost)(uint64_t namelen);
	/* optional: the same from the raw @name (@namelen bytes) and the
	 * demangling mode, for tools that store a demangled name that can be
	 * longer than the raw one (@m: this model). NULL: sym_cost(namelen). */
	uint64_t (*name_cost)(const struct sl_model *m, const char *name, uint64_t namelen, int dem_mode);
	/* names: which demangler the tool calls, and the name it stores for
	 * @raw (malloc'ed, or NULL = raw; *@uncertain set when the answer is
	 * not known to be the tool's) */
	enum sl_demangler demangler;
	char *(*demangle)(const char *raw, int mode, int *uncertain);
	/* optional: can demangle() give exactly the tool's names in this process?
	 * 1 yes; 0 no, with @why (NUL-terminated, @n bytes) saying why. NULL: yes. */
	int (*demangler_ready)(char *why, size_t n);
	/* optional: what demangle() calls in this process (for the stats), or NULL */
	const char *(*demangler_name)(void);
	/* the choice between same-address duplicates: 0 keep @a, 1 keep @b */
	int (*choose_by_name)(const char *a, const char *b);
	int choose_by_summary;      /* choose_by_name is perf's choose_best_symbol name
				     * rule (tools/perf/util/symbol.c: prefix underscores,
				     * then length), which the index evaluates on per-name
				     * summaries (index/symindex.c pname) without demangling */
	struct sl_fixup_rules fixup;
	enum sl_plt_rules plt;
	/* symbol-by-address rules, NULL for table-loading tools (perf) */
	const struct sl_lookup_rules *lookup;
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
	return m->name_cost && name ? m->name_cost(m, name, namelen, dem_mode) : m->sym_cost(namelen);
}

/* sl_model_last_page - symbols__fixup_end's page for the last symbol. */
static inline uint64_t sl_model_last_page(const struct sl_model *m)
{
	return m && m->fixup.last_page ? m->fixup.last_page : 4096;
}

#endif
