/* SPDX-License-Identifier: MIT */
/*
 * core/model/perf61.c - the model of Debian's perf 6.1 (6.1.187 on Debian 12):
 * what 6.1 does that not every later version does - its global options,
 * its version literal, libiberty's demangler, its PLT synthesis, its
 * addr2line child, its struct annotation. What every version shares is
 * core/model/perf_common.c (SL_PERF_MODEL_COMMON). Sources: linux v6.1
 * tools/perf/perf.c (handle_options), util/symbol-elf.c (demangle_sym,
 * dso__synthesize_plt_symbols), util/symbol.c (symbols__fixup_duplicate),
 * util/srcline.c (addr2line_subprocess_init), util/annotate.h (struct
 * annotation), util/unwind-libunwind-local.c, util/symbol.h
 * (is_ignored_kernel_symbol), builtin-diff.c (setup_compute_opt_wdiff).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>
#include "core/models.h"
#include "index/symindex.h"

static const char *const perf61_global_with_arg[] = { "--debugfs-dir", NULL };

const struct sl_argv_rules perf61_argv_rules = {
	.global_with_arg = perf61_global_with_arg,
	.verbose_demangles = 1,     /* DMGL_PARAMS|DMGL_ANSI under -v */
	.data_type_options = 0,     /* data-type profiling arrived in 6.8 */
	.sub_with_arg = NULL,       /* script/report/annotate: the options lazy mode parses */
	.code_with_type = 0,        /* 7.x */
	.symfs_layout = 0,          /* 7.x */
	.convert_time = 0,          /* 7.x */
	.wdiff_argv_intact = 0,     /* builtin-diff.c setup_compute_opt_wdiff(char *) writes
				     * a NUL over the ',' */
};

int perf61_subcommand(int argc, char *const argv[])
{
	int verbose = 0;
	const char *bdir = NULL;

	return sl_perf_global_options(&perf61_argv_rules, argc, argv, &verbose, &bdir);
}

int perf61_parse_argv(int argc, char *const argv[], struct sl_invocation *out)
{
	return sl_perf_parse_argv(&perf61_argv_rules, argc, argv, out);
}

int perf61_image_matches(const char *img, size_t len)
{
	return sl_perf_image_has_version(img, len, "\0" "6.1.");
}

/*
 * cplus_demangle(@raw, @opts), without its Rust attempt where that cannot
 * succeed. In the default (auto) style, libiberty's cplus_demangle
 * (cplus-dem.c) returns rust_demangle() if that succeeds, else
 * cplus_demangle_v3() with the style bit added to the options, else NULL.
 * rust_demangle (rust-demangle.c rust_demangle_callback) only accepts "_R"
 * (v0) names and "_ZN" (legacy) names whose last segment is "17h" and a
 * 16-hex-digit hash; its first step is a scan of the whole name, a quarter
 * of the demangling time of C++ names. So for any other name the result is
 * cplus_demangle_v3's.
 */
static char *iberty_demangle(const char *raw, int opts)
{
	if (current_demangling_style != auto_demangling || (opts & DMGL_STYLE_MASK) ||
	    (raw[0] == '_' && (raw[1] == 'R' || (raw[1] == 'Z' && raw[2] == 'N' && strstr(raw, "17h")))))
		return cplus_demangle(raw, opts);
	return cplus_demangle_v3(raw, opts | DMGL_AUTO);
}

/*
 * The name perf stores for @raw (symbol-elf.c demangle_sym): libiberty's
 * cplus_demangle - the library perf 6.1 links statically - with
 * DMGL_PARAMS|DMGL_ANSI under -v, DMGL_NO_OPTS otherwise, nothing under
 * --no-demangle; if that fails, the OCaml and Java demanglers; if it
 * succeeds, in-place legacy-Rust hash stripping. The last three are not
 * mirrored: when they could apply, *@uncertain is set. Returns a malloc'ed
 * name or NULL (= raw).
 */
char *perf61_demangle(const char *raw, int mode, int *uncertain)
{
	char *d;

	if (!sl_perf_demangles(mode, uncertain))
		return NULL;
	d = iberty_demangle(raw, mode == SYMIDX_DEM_VERBOSE ? DMGL_PARAMS | DMGL_ANSI : DMGL_NO_OPTS);
	if (!d) {
		if (sl_perf_maybe_ocaml_java(raw))
			*uncertain = 1;     /* ocaml_demangle_sym / java_demangle_sym */
		return NULL;
	}
	if (sl_perf_rust_hash_tail(d))
		*uncertain = 1;             /* rust_is_mangled(): rust_demangle_sym */
	return d;
}

const struct sl_tool_model sl_model_perf61 = {
	SL_PERF_MODEL_COMMON,
	.sym.name = "perf-6.1",
	.versions = "6.1.x",
	.image_matches = perf61_image_matches,
	.parse_argv = perf61_parse_argv,
	.argv_rules = &perf61_argv_rules,
	.text_output = sl_perf_text_output,
	/* util/symbol-elf.c demangle_sym: libiberty's cplus_demangle */
	.sym.demangler = SL_DEMANGLER_LIBIBERTY,
	.sym.demangle = perf61_demangle,
	.sym.name_cost = NULL,              /* sym_cost of the raw name: measured on 6.1
					     * to cover its stored names (sl_perf_sym_cost) */
	.sym.demangler_ready = NULL,        /* linked into perf: always there */
	.sym.demangler_name = NULL,
	/* util/symbol.c symbols__fixup_duplicate, choose_best_symbol */
	.sym.fixup.dup_marks_ifunc_alias = 0,
	.sym.fixup.notype_loses = 0,
	.sym.plt = SL_PLT_V61,              /* util/symbol-elf.c dso__synthesize_plt_symbols */
	.unwinder = SL_UNWIND_LIBUNWIND,    /* util/unwind-libunwind-local.c */
	.kallsyms_rules = 0,                /* util/symbol.h is_ignored_kernel_symbol: "$*" only */
	.reads_gnu_debugdata = 0,           /* no .gnu_debugdata pass before 7.x */
	.annotation_priv = 128,             /* util/annotate.h struct annotation: a pthread
					     * mutex, counters, widths and pointers (x86-64) */
	.a2l_child = SL_A2L_ARGV_61,        /* util/srcline.c addr2line_subprocess_init */
};
