/* SPDX-License-Identifier: MIT */
/*
 * core/model/perf72.c - the model of perf 7.2 (Debian sid's linux-perf
 * 7.2.x; tests/integration/perf72.sh runs it in a sid root).
 *
 * Read against perf 6.12 (core/model/perf612.c) in tools/perf of both trees
 * (Debian's linux-source-7.2 7.2.13; doc/perf.md "perf 7.2" has the table).
 * What changed for the symbols perf answers with, the names it stores and
 * what it was asked:
 *
 * Demangling (util/symbol.c dso__demangle_sym, which replaced symbol-elf.c
 *   demangle_sym for ELF, PLT, .plt.got and inline names): Rust first, on
 *   the raw name, with rustc-demangle's rules (util/demangle-rust-v0.c;
 *   mirrored in core/model/perf_demangle_rust.c). Only if the name is not
 *   Rust: cxx_demangle_sym (Debian: __cxa_demangle, flags ignored), then
 *   OCaml, then Java. 6.12's Rust post-processing of the C++ result is gone.
 *   So a C++ variable "_ZN12_GLOBAL__N_13fooE" is stored as
 *   "_GLOBAL__N_1::foo" and "_ZN3foo4hdefE" as "foo". A v0 name the Rust
 *   step cannot print is uncertain, as are OCaml and Java names (not
 *   mirrored, as for 6.12). C++ goes through perf612's plumbing: Debian's
 *   7.2 exports no demangler, so libstdc++'s __cxa_demangle when perf links
 *   it and neither libLLVM nor libbfd is loaded, else the "demangler" reason.
 *   Cost: symbol__new as 6.12 (struct symbol 48 bytes): 64 + the longer of
 *   the raw and the stored name + 1 (sl_perf_name_cost).
 *
 * choose_best_symbol: after the zero-length rule, an STT_NOTYPE symbol loses
 *   to one of another type, before weak/global/name (fixup.notype_loses;
 *   index/choose.c sim_choose, core/lookup.c choose).
 *
 * Invocation: new subcommand options with an argument (script/report
 *   --unwind-style, report --addr2line-style and --parallelism), annotate
 *   --code-with-type (data-type profiling: eager), --symfs DIR,LAYOUT (a
 *   comma names a layout: "flat" opens DIR + basename, which symlazy does not
 *   mirror: eager, reason symfs_layout). Global options as 6.12.
 *
 * Set as data for the session and the readers: DWARF callchains unwound
 *   with libdw (util/unwind-libdw.c, SL_UNWIND_LIBDW: Debian builds 7.2
 *   without libunwind), the kallsyms filter also drops ".L*" and "L0*" names
 *   (util/symbol.h is_ignored_kernel_symbol, SL_KS_DROP_LOCAL_LABELS), user
 *   DSOs' .gnu_debugdata symbols are read (util/symbol-elf.c
 *   read_gnu_debugdata: reads_gnu_debugdata), inline frames and source lines
 *   come from libdw in-process (util/libdw.c libdw__addr2line), not from a
 *   forked addr2line: no child to serve (SL_A2L_NONE; core/dwarfsec.c serves
 *   libdw's reads instead); perf annotate takes its map reference again
 *   (util/disasm.c map__get), so 6.12's annotate exclusion is gone.
 *
 * Unchanged (diffed against 6.12), so 6.12's functions are reused: the keep
 *   rule and label sections of dso__load_sym_internal for x86-64 user DSOs,
 *   the .symtab/.dynsym passes with their fixups (last symbol:
 *   roundup(start, 4096) + 4096), symbols__fixup_duplicate with the
 *   ifunc_alias mark, the abort on a bad st_shndx, PLT synthesis (V62; names
 *   through the new demangler), map_ip file offsets, perf maps, annotate's
 *   accounting and text outputs, struct annotation (16 bytes), the budget
 *   rules.
 *
 * Recognition: the NUL-terminated literal "7.2.<digits>" (PERF_VERSION).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/models.h"
#include "index/symindex.h"

static const char *const perf72_global_with_arg[] = { "--debugfs-dir", "--debug-file", NULL };
static const char *const perf72_sub_with_arg[] = { "--unwind-style", "--addr2line-style", "--parallelism",
						   NULL };

static const struct sl_argv_rules perf72_argv_rules = {
	.global_with_arg = perf72_global_with_arg,      /* perf.c: as 6.12 */
	.verbose_demangles = 1,     /* passed to cxx_demangle_sym; __cxa_demangle ignores it */
	.data_type_options = 1,     /* as 6.12 */
	.sub_with_arg = perf72_sub_with_arg,    /* builtin-script.c, builtin-report.c */
	.code_with_type = 1,        /* builtin-annotate.c --code-with-type */
	.symfs_layout = 1,          /* util/symbol.c symbol__config_symfs */
	.convert_time = 1,          /* builtin-data.c: perf data convert --time (7.x) */
	.wdiff_argv_intact = 1,     /* builtin-diff.c setup_compute_opt_wdiff(const char *) */
};

int perf72_parse_argv(int argc, char *const argv[], struct sl_invocation *inv)
{
	return sl_perf_parse_argv(&perf72_argv_rules, argc, argv, inv);
}

int perf72_image_matches(const char *img, size_t len)
{
	return sl_perf_image_has_version(img, len, "\0" "7.2.");
}

/* ---- the demangler ------------------------------------------------------ */

/*
 * The name perf 7.2 stores for @raw (symbol.c dso__demangle_sym): NULL when
 * perf keeps the raw name, else a malloc'ed name; *@uncertain set when the
 * answer is not known to be perf's.
 */
char *perf72_demangle(const char *raw, int mode, int *uncertain)
{
	const struct perf612_demangler *d;
	char *out;
	int r;

	if (!sl_perf_demangles(mode, uncertain))
		return NULL;
	r = sl_perf_rust_demangle(raw, &out);
	if (r > 0)
		return out;
	if (r < 0) {
		*uncertain = 1;
		return NULL;
	}
	d = perf612_demangler_get();
	if (d->cxx) {               /* perf's own functions (-Wl,-E builds) */
		int v = mode == SYMIDX_DEM_VERBOSE;

		out = d->cxx(raw, v, v);
		if (!out && d->ocaml)
			out = d->ocaml(raw);
		if (!out && d->java)
			out = d->java(raw, 0x1);    /* JAVA_DEMANGLE_NORET */
		if (!out && (!d->ocaml || !d->java) && sl_perf_maybe_ocaml_java(raw))
			*uncertain = 1;
		return out;
	}
	if (d->cxa) {
		int status = 0;

		out = d->cxa(raw, NULL, NULL, &status);
		if (!out && sl_perf_maybe_ocaml_java(raw))
			*uncertain = 1;     /* ocaml_demangle_sym / java_demangle_sym */
		return out;
	}
	*uncertain = 1;
	return NULL;
}

const struct sl_tool_model sl_model_perf72 = {
	SL_PERF_MODEL_COMMON,
	.sym.name = "perf-7.2",
	.versions = "7.2.x",
	.image_matches = perf72_image_matches,
	.parse_argv = perf72_parse_argv,
	.argv_rules = &perf72_argv_rules,
	.text_output = sl_perf_text_output,             /* 6.12's annotate exclusion gone:
							 * util/disasm.c takes the map reference */
	/* util/symbol.c dso__demangle_sym, util/demangle-rust-v0.c */
	.sym.demangler = SL_DEMANGLER_PERF_RUST_CXX,
	.sym.demangle = perf72_demangle,
	.sym.name_cost = sl_perf_name_cost,             /* stored names, as 6.12 */
	.sym.demangler_ready = perf612_demangler_ready, /* the C++ part is 6.12's */
	.sym.demangler_name = perf612_demangler_name,
	/* util/symbol.c symbols__fixup_duplicate (as 6.12), choose_best_symbol */
	.sym.fixup.dup_marks_ifunc_alias = 1,
	.sym.fixup.notype_loses = 1,
	.sym.plt = SL_PLT_V62,                          /* util/symbol-elf.c, as 6.12 */
	.unwinder = SL_UNWIND_LIBDW,                    /* util/unwind-libdw.c: Debian builds
							 * 7.2 without libunwind */
	.kallsyms_rules = SL_KS_DROP_LOCAL_LABELS,      /* util/symbol.h is_ignored_kernel_symbol */
	.reads_gnu_debugdata = 1,                       /* util/symbol-elf.c read_gnu_debugdata */
	.annotation_priv = 16,                          /* util/annotate.h struct annotation,
							 * as 6.12 */
	.a2l_child = SL_A2L_NONE,                       /* util/srcline.c: inline frames and
							 * source lines from libdw in-process
							 * (util/libdw.c libdw__addr2line) */
};
