/* SPDX-License-Identifier: MIT */
/*
 * reason.h - why lazy mode (or the shim) did not do its work: one enum and
 * one table of texts (an X-macro, as elfutils libdwfl's error table), and the
 * one way a reason travels: a `struct sl_why *` out-parameter.
 *
 * A reason is a code plus an optional detail (a path, an address, an errno
 * text): the code names the cause, the detail carries only what varies. The
 * table's text is a printf format with at most one "%s" for the detail;
 * without "%s" a non-empty detail is appended as ": detail". The stats JSON
 * carries both the code name (`reason_code`) and the formatted text
 * (`reason`); doc/reliability.md's fallback tables name the codes and quote
 * the texts. Details are never cut silently: struct sl_why holds up to
 * SL_WHY_DETAIL bytes and sl_why_set() ends a truncated detail with "...".
 *
 * Return convention (a function taking a `struct sl_why *why` follows it
 * unless its comment says otherwise, and so does every function documented
 * as returning "1 (fall back)"):
 *   0       done: the index, table or plan is made and lazy mode serves;
 *   1       fall back: the stock behaviour (the tool's full symbol load, the
 *           real addr2line, libdwfl's own answers) runs and is exact by
 *           construction; *@why holds the reason;
 *   -errno  error: nothing was made (no resource is left to free); *@why
 *           holds the reason; the caller falls back as for 1 and may count
 *           the error (the stats' "index_failed", "plan_failed").
 * A function that returns a count, an fd or a yes/no answer instead says so
 * in its comment (util/util.h sl_open_regular: an fd or -errno;
 * srcline/a2l.h a2l_eligible: 1 = eligible, 0 = not, -errno). @why may be NULL: no reason is written. A caller sets
 * why->code = SL_R_NONE (or memsets) when it asks whether a reason came.
 */
#ifndef SYMLAZY_REASON_H
#define SYMLAZY_REASON_H

#include <stddef.h>

/*      code                 name                       text */
#define SL_REASONS(X) \
	X(NONE,               "none",                    "") \
	X(LAZY_OFF,           "lazy_off",                "SYMLAZY_LAZY=off") \
	X(NOT_PERF,           "not_perf",                "not perf") \
	X(NOT_SUBCMD,         "not_subcommand",          "not perf script/report/annotate/diff/data convert") \
	X(NO_CMDLINE,         "no_cmdline",              "cannot read /proc/self/cmdline") \
	X(EMPTY_CMDLINE,      "empty_cmdline",           "empty command line") \
	X(GROUPED_OPT,        "grouped_option",          "cannot parse grouped option %s") \
	X(PIPE_INPUT,         "pipe_input",              "perf.data comes from a pipe") \
	X(NOT_REGULAR,        "not_regular_file",        "%s is not a regular file") \
	X(INTERACTIVE,        "interactive",             "interactive or --stdio2 output annotates call targets") \
	X(ANNOTATE_612,       "annotate_612",            "perf 6.12 annotate frees the annotated map early (util/disasm.c jump__parse): lazy mode could change whether it crashes") \
	X(ANNOTATE_TUI,       "annotate_not_stdio",      "interactive perf annotate (TUI) annotates call targets") \
	X(REPORT_TUI,         "report_tui",              "interactive perf report (TUI) annotates call targets") \
	X(PERF_VERSION,       "perf_version",            "perf version %s is not one lazy mode mirrors") \
	X(DATA_TYPE,          "data_type_profiling",     "data-type profiling resolves data addresses from the whole table") \
	X(SYMFS_LAYOUT,       "symfs_layout",            "--symfs %s names a layout (DIR,flat|hierarchy): not mirrored") \
	X(DEMANGLER,          "demangler",               "the duplicate choice needs demangled names: %s") \
	X(PERFDATA_BAD,       "perfdata_unreadable",     "perf.data unreadable: %s") \
	X(DWARF_UNWIND,       "dwarf_unwind",            "user callchains come from DWARF unwinding") \
	X(DWARF_REGS_ABI,     "dwarf_regs_abi",          "DWARF samples with non-64-bit user registers (ABI) reach this DSO") \
	X(LBR_CALLSTACK,      "lbr_callstack",           "user callchains come from LBR call stacks") \
	X(BAD_ADDRS,          "bad_addrs_file",          "bad SYMLAZY_ADDRS") \
	X(NO_BUILD_ID,        "no_build_id",             "no build-id") \
	X(NO_SAMPLES,         "dso_no_samples",          "DSO has no samples in perf.data") \
	X(NO_RUNTIME_ELF,     "no_runtime_elf",          "no runtime ELF with program headers") \
	X(INDEX_FAILED,       "index_failed",            "index build failed: %s") \
	X(NOMEM,              "out_of_memory",           "out of memory") \
	X(PLAN_FAILED,        "plan_failed",             "plan failed: %s") \
	X(KERNEL,             "kernel",                  "kernel image or module") \
	X(FOREIGN_SCAN,       "foreign_scan",            "scan not issued by perf itself") \
	X(UNMODELABLE,        "unmodelable",             "perf's symbol load of this DSO is not modelled") \
	X(LOOKUP_SPACE,       "lookup_space",            "lookups in an address space perf.data is not read into") \
	X(ANNOTATE_ABORT,     "annotate_abort_pass",     "perf annotate of a DSO whose %s pass perf aborts") \
	X(PLT_RELOCS,         "plt_relocs",              "PLT relocations perf cannot synthesize symbols from") \
	X(PLT_ADDRESS,        "plt_address",             "address %s is in the PLT") \
	X(DUP_DEMANGLE,       "duplicate_demangled",     "the duplicate choice at %s needs demangled names") \
	X(PLT_IFUNC,          "plt_ifunc_name",          "the PLT entry at %s may be named after an IFUNC symbol") \
	X(REPLAY_DISAGREES,   "replay_disagrees",        "tree replay disagrees at %s") \
	X(GNU_DEBUGDATA,      "gnu_debugdata",           "has a .gnu_debugdata section (MiniDebugInfo): perf 7.x reads its symbols and then .dynsym again") \
	X(AMBIGUOUS,          "ambiguous_address",       "address %s is covered by overlapping symbols") \
	X(REPLAY_DIFFERS,     "replay_differs",          "reduced tree answers differently at %s") \
	X(UNKNOWN_TOOL,       "unknown_tool",            "no model for this tool") \
	X(CACHE_NOT_PRIVATE,  "cache_not_private",       "cache dir %s is not private to this user") \
	X(CACHE_UNUSABLE,     "cache_unusable",          "cache dir unusable: %s") \
	X(CACHE_OTHER_NS,     "cache_other_mntns",       "started in another mount namespace") \
	X(NO_IDENTITY,        "no_identity",             "no build-id, and %s") \
	X(NO_INODE,           "no_inode",                "no build-id, and perf.data's MMAP of %s") \
	X(KS_NO_KMMAP,        "kallsyms_no_kernel_map",  "perf.data has no [kernel.kallsyms] map") \
	X(KS_KCORE,           "kallsyms_kcore",          "a kcore file beside the kallsyms file (perf maps kcore)") \
	X(KS_ZERO,            "kallsyms_zero",           "kallsyms addresses are all zero (kptr_restrict)") \
	X(KS_LONG_NAME,       "kallsyms_long_name",      "kallsyms line with a name of 513+ bytes") \
	X(KS_NO_REF,          "kallsyms_no_ref_sym",     "relocation symbol %s not in kallsyms") \
	X(KS_UNMODELED,       "kallsyms_unmodeled",      "kernel symbol at %s follows module symbols (perf makes [kernel].N maps)") \
	X(KS_TOO_LARGE,       "kallsyms_too_large",      "kallsyms text larger than 4 GiB") \
	X(KS_MODULES,         "kallsyms_many_modules",   "more than 65534 module names") \
	X(KS_AMBIGUOUS,       "kallsyms_ambiguous",      "kernel address %s is covered by overlapping symbols") \
	X(KS_DIFFERS,         "kallsyms_differs",        "reduced kallsyms answers differently") \
	X(PM_AMBIGUOUS,       "perfmap_ambiguous",       "JIT address %s is covered by overlapping perf map entries") \
	X(PM_GROWING,         "perfmap_growing",         "perf map changed while it was read") \
	X(PM_NO_SAMPLES,      "perfmap_no_samples",      "no JIT mapping of this process in perf.data") \
	X(TEXT_UNREADABLE,    "text_unreadable",         "cannot read %s") \
	X(TEXT_PERFDATA,      "text_no_perfdata",        "kernel/JIT addresses unknown (lazy mode off)") \
	X(LISTER,             "lister",                  "%s prints every symbol: SYMLAZY_ADDRS would change its output") \
	X(ADDRS_OUTSIDE,      "addrs_outside_dso",       "no listed address is a file offset inside %s (virtual addresses?)") \
	X(BCC_SCAN,           "bcc_scan",                "a libbcc scan without a plan for this table") \
	X(BCC_REDUCED,        "bcc_reduced_differs",     "bcc's answer at %s depends on symbols a reduced table drops") \
	X(BCC_TABLE,          "bcc_table",               "symbol table bcc lists differently") \
	X(BAD_OPTION,         "bad_option",              "perf stops with usage at %s") \
	X(DIFF_CYCLES,        "diff_cycles",             "perf diff -c cycles/--cycles-hist annotates basic blocks of each symbol: not mirrored") \
	X(DIFF_STREAM,        "diff_stream",             "perf diff --stream keys branch callchains by source line: not mirrored") \
	X(CONVERT_CTF,        "convert_ctf",             "perf data convert --to-ctf: not mirrored") \
	X(TOO_MANY_INPUTS,    "too_many_inputs",         "perf diff of %s files (lazy mode pre-reads up to 16)") \
	X(KS_INPUTS_DIFFER,   "kallsyms_inputs_differ",  "the perf.data files (perf diff) record different kernel maps") \
	X(A2L_OFF,            "a2l_off",                 "SYMLAZY_A2L=off") \
	X(A2L_ARGV,           "a2l_argv",                "addr2line started with other arguments than this perf's (%s)") \
	X(A2L_BINUTILS,       "a2l_not_binutils",        "%s is not the GNU addr2line whose answers are mirrored (binutils 2.40)") \
	X(A2L_DEBUG,          "a2l_debug_info",          "has section %s (binutils reads debug information)") \
	X(A2L_DEBUG_FILE,     "a2l_debug_file",          "separate debug file %s exists (binutils reads it)") \
	X(A2L_ELF_KIND,       "a2l_elf_kind",            "%s: not a 64-bit little-endian x86-64 executable or shared object") \
	X(A2L_SYMTAB,         "a2l_symtab",              "symbol table not mirrored: %s") \
	X(A2L_INDEX,          "a2l_index",               "table file: %s") \
	X(A2L_DWARF,          "a2l_dwarf",               "DWARF not mirrored: %s") \
	X(A2L_BUDGET,         "a2l_budget",              "SYMLAZY_MAX_BYTES: addr2line not run (%s); no inline frames or source lines") \
	X(OPEN_FAILED,        "open_failed",             "cannot open %s") \
	X(NOT_ELF,            "not_elf",                 "%s: not an ELF file or corrupt headers") \
	X(TOO_BIG,            "too_big",                 "more than 2^32 %s") \
	X(NAMES_ELF_KIND,     "names_elf_kind",          "%s: not a 64-bit little-endian ELF file") \
	X(NAMES_NOT_EXEC,     "names_not_exec",          "%s: not an executable or shared object") \
	X(NAMES_PHDRS,        "names_phdrs",             "%s: program headers outside the file") \
	X(NAMES_LOADS,        "names_loads",             "%s: more than 16 executable PT_LOADs") \
	X(NAMES_SYMTAB,       "names_symtab",            "%s: symbol table outside the file or of a bad size") \
	X(NAMES_FILE,         "names_file",              "index file: %s") \
	X(DWFL_UNMODELED,     "dwfl_unmodeled",          "libdwfl's answers not modelled") \
	X(DWFL_STALE,         "dwfl_index_stale",        "index does not match the module") \
	X(DBGSEC_FAILED,      "dwarf_sections_failed",   "compressed debug sections of %s left to libdw (heap)")

enum sl_reason {
#define SL_R_ENUM(code, name, text) SL_R_##code,
	SL_REASONS(SL_R_ENUM)
#undef SL_R_ENUM
	SL_R__COUNT
};

#define SL_WHY_DETAIL 512

struct sl_why {
	enum sl_reason code;
	char detail[SL_WHY_DETAIL];
};

/* sl_reason_name - the stable code name ("no_build_id"); "?" if out of range. */
const char *sl_reason_name(enum sl_reason r);

/* sl_reason_text - the table's text/format for @r; "" if out of range. */
const char *sl_reason_text(enum sl_reason r);

/* sl_why_set - set @w (NULL: nothing) to @code with printf-formatted
 * detail (@fmt may be NULL: none). */
void sl_why_set(struct sl_why *w, enum sl_reason code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* sl_whyf - sl_why_set(@w, @code, @fmt, ...), then return @r (a -errno or
 * 1): `return sl_whyf(why, SL_R_NOMEM, -ENOMEM, NULL)`. */
int sl_whyf(struct sl_why *w, enum sl_reason code, int r, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * sl_why_format - the full text of @w into @buf (@n bytes; always
 * NUL-terminated). Returns the length the whole text needs (like snprintf),
 * so a caller can tell it was cut and size a buffer.
 */
int sl_why_format(const struct sl_why *w, char *buf, size_t n);

#endif
