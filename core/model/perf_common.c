/* SPDX-License-Identifier: MIT */
/*
 * core/model/perf_common.c - what every perf model shares: the argv parser
 * (the version's differences come as struct sl_argv_rules), the version
 * literal, the text-output rule, the keep rule, label sections, the cost
 * per symbol, choose_best_symbol's name rules, the cost of a demangled name
 * and the steps every perf demangler takes alike. Written from linux v6.1's
 * tools/perf/perf.c, builtin-script.c, builtin-report.c, builtin-annotate.c
 * (argv), ui/setup.c, util/symbol-elf.c (dso__load_sym_internal,
 * elf_sym__is_label/elf_sym__filter, demangle_sym), util/symbol.c
 * (symbol__new, choose_best_symbol), util/version.c, and checked unchanged
 * (or parameterised) against v6.12 and v7.2 (core/model/perf612.c,
 * perf72.c list the files diffed). SL_PERF_MODEL_COMMON (core/models.h)
 * puts these into every perf model's table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/models.h"
#include "index/symindex.h"

/*
 * perf's global options before the subcommand (tools/perf/perf.c
 * handle_options, unchanged in what it returns up to v7.2): returns the index of the subcommand in @argv, or
 * -1 when perf will not run one (--help/--version/-h/-v/-vv, or an option
 * that prints and exits: --exec-path without '=', --html-path, --list-cmds,
 * --list-opts, or an option missing its argument). --debug VAR[=N][,...]
 * may set verbose (util/debug.c perf_debug_option: "verbose" alone is 1),
 * which changes demangling like -v; --buildid-dir DIR sets the build-id
 * cache directory (util/config.c set_buildid_dir). The options that take the
 * next word besides these two (--debugfs-dir in 6.1; 6.12 adds --debug-file)
 * come from @rules.
 */
static int takes_arg(const struct sl_argv_rules *rules, const char *a)
{
	const char *const *g;

	for (g = rules->global_with_arg; g && *g; g++)
		if (!strcmp(a, *g))
			return 1;
	return 0;
}

int sl_perf_global_options(const struct sl_argv_rules *rules, int argc, char *const argv[], int *verbose,
			   const char **buildid_dir)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (a[0] != '-')
			return i;
		if (!strcmp(a, "--help") || !strcmp(a, "--version") || !strcmp(a, "-h") ||
		    !strcmp(a, "-v") || !strcmp(a, "-vv"))
			return -1;
		if (!strncmp(a, "--exec-path", 11)) {
			if (a[11] != '=')
				return -1;
		} else if (!strcmp(a, "--html-path") || !strcmp(a, "--list-cmds") ||
			   !strcmp(a, "--list-opts")) {
			return -1;
		} else if (!strcmp(a, "-p") || !strcmp(a, "--paginate") || !strcmp(a, "--no-pager")) {
			continue;
		} else if (!strcmp(a, "--buildid-dir") || takes_arg(rules, a)) {
			if (i + 1 >= argc)
				return -1;
			if (!strcmp(a, "--buildid-dir"))
				*buildid_dir = argv[i + 1];
			i++;
		} else if (!strncmp(a, "--debugfs-dir=", 14)) {
			continue;
		} else if (!strcmp(a, "--debug")) {
			const char *v;

			if (i + 1 >= argc)
				return -1;
			i++;
			for (v = argv[i]; v && *v; v = strchr(v, ',') ? strchr(v, ',') + 1 : NULL) {
				if (!strncmp(v, "verbose", 7) && (v[7] == '\0' || v[7] == ',' || v[7] == '='))
					*verbose = v[7] == '=' ? atoi(v + 8) : 1;
			}
		} else {
			return -1;          /* "Unknown option": perf prints usage */
		}
	}
	return -1;
}

/* Is @list (a --sort/--fields value) naming a data-type sort key
 * (util/sort.c v6.8+: "type", "typeoff", "typecln")? */
int sl_perf_names_data_type_key(const char *list)
{
	const char *p = list;

	while (p && *p) {
		size_t n = strcspn(p, ",");

		if ((n == 4 && !strncmp(p, "type", 4)) || (n == 7 && !strncmp(p, "typeoff", 7)) ||
		    (n == 7 && !strncmp(p, "typecln", 7)))
			return 1;
		p += n;
		if (*p)
			p++;
	}
	return 0;
}

/* Is @a one of @list (NULL-ended), alone (then it takes the next word) or
 * as "name=value" (*@with_value set)? */
static int names_option(const char *const *list, const char *a, int *with_value)
{
	for (; list && *list; list++) {
		size_t n = strlen(*list);

		if (!strncmp(a, *list, n) && (a[n] == '\0' || a[n] == '=')) {
			*with_value = a[n] == '=';
			return 1;
		}
	}
	return 0;
}

/* annotate --code-with-type (7.x), or an abbreviation parse-options
 * accepts: "--co" already names it alone among annotate's options
 * (--cpu is "--cp"); "--no-" turns it off. 1 on, -1 off, 0 neither. */
static int code_with_type_opt(const char *a)
{
	size_t n = strlen(a);

	if (n >= 4 && n <= 16 && !strncmp(a, "--code-with-type", n))
		return 1;
	if (n >= 7 && n <= 19 && !strncmp(a, "--no-code-with-type", n))
		return -1;
	return 0;
}

int sl_perf_parse_argv(const struct sl_argv_rules *rules, int argc, char *const argv[],
		       struct sl_invocation *out)
{
	int i, sub, verbose = 0, no_demangle = 0, code_type = 0, with_value = 0;
	const char *name;

	memset(out, 0, sizeof(*out));
	out->demangle = SYMIDX_DEM_NOOPTS;
	sub = sl_perf_global_options(rules, argc, argv, &verbose, &out->buildid_dir);
	name = sub < 0 ? NULL : argv[sub];
	if (name && (!strcmp(name, "diff") || !strcmp(name, "data")))
		return sl_perf_parse_subcmd(rules, argc, argv, sub, verbose, out);
	if (!name || (strcmp(name, "script") && strcmp(name, "report") && strcmp(name, "annotate"))) {
		sl_why_set(&out->why, SL_R_NOT_SUBCMD, NULL);
		return 0;
	}
	out->annotate = !strcmp(name, "annotate");
	out->report = !strcmp(name, "report");
	for (i = sub + 1; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		size_t ln = eq ? (size_t)(eq - a) : strlen(a);

		if (!strcmp(a, "-i")) {
			if (i + 1 < argc)
				out->input = argv[++i];
		} else if (!strncmp(a, "--", 2) && ln >= 5 && !strncmp("--input", a, ln)) {
			/* --input, or an abbreviation perf accepts ("--inp") */
			if (eq)
				out->input = eq + 1;
			else if (i + 1 < argc)
				out->input = argv[++i];
		} else if (!strncmp(a, "-i", 2) && a[2]) {
			out->input = a + 2;
		} else if (a[0] == '-' && a[1] && a[1] != '-' && a[2] && strchr(a + 1, 'i') &&
			   strspn(a + 1, "v") != strlen(a + 1)) {
			sl_why_set(&out->why, SL_R_GROUPED_OPT, "%s", a);
			out->input = NULL;
			return 0;
		} else if (!strncmp(a, "--symfs=", 8)) {
			out->symfs = a + 8;
		} else if (!strcmp(a, "--symfs")) {
			if (i + 1 < argc)
				out->symfs = argv[++i];
		} else if (names_option(rules->sub_with_arg, a, &with_value)) {
			if (!with_value)
				i++;        /* its argument is no option of ours */
		} else if (rules->code_with_type && out->annotate && code_with_type_opt(a)) {
			code_type = code_with_type_opt(a);
		} else if (!strncmp(a, "--kallsyms=", 11)) {
			out->kallsyms = a + 11;
		} else if (!strcmp(a, "--kallsyms")) {
			if (i + 1 < argc)
				out->kallsyms = argv[++i];
		} else if (!strcmp(a, "--stdio")) {
			out->flags |= SL_INV_STDIO;
		} else if (!strcmp(a, "--tui") || !strcmp(a, "--gtk") || !strcmp(a, "--stdio2")) {
			out->flags |= SL_INV_NOT_STDIO;
		} else if (!strcmp(a, "--no-demangle")) {
			no_demangle = 1;
		} else if (!strcmp(a, "--demangle")) {
			no_demangle = 0;
		} else if (!strcmp(a, "--verbose")) {
			verbose++;
		} else if (a[0] == '-' && a[1] == 'v' && strspn(a + 1, "v") == strlen(a + 1)) {
			verbose += (int)strlen(a + 1);  /* OPT_INCR('v', "verbose") */
		} else if (rules->data_type_options && out->annotate &&
			   (!strcmp(a, "--type-stat") || !strcmp(a, "--insn-stat") ||
			    !strncmp(a, "--data-type", 11))) {
			out->flags |= SL_INV_DATA_TYPE;
		} else if (rules->data_type_options && out->report &&
			   (!strcmp(a, "-s") || !strcmp(a, "--sort") || !strcmp(a, "-F") ||
			    !strcmp(a, "--fields")) && i + 1 < argc) {
			if (sl_perf_names_data_type_key(argv[++i]))
				out->flags |= SL_INV_DATA_TYPE;
		} else if (rules->data_type_options && out->report &&
			   (!strncmp(a, "--sort=", 7) || !strncmp(a, "--fields=", 9) ||
			    (a[0] == '-' && (a[1] == 's' || a[1] == 'F') && a[2]))) {
			if (sl_perf_names_data_type_key(a[1] == '-' ? strchr(a, '=') + 1 : a + 2))
				out->flags |= SL_INV_DATA_TYPE;
		} else if (!strcmp(a, "--")) {
			break;
		}
	}
	if (code_type > 0)
		out->flags |= SL_INV_DATA_TYPE;
	/* 7.x symbol__config_symfs: "DIR,flat" joins DIR and the basename of
	 * each path, "DIR,hierarchy" is DIR; neither is what symlazy opens */
	if (rules->symfs_layout && out->symfs && strchr(out->symfs, ',')) {
		sl_why_set(&out->why, SL_R_SYMFS_LAYOUT, "%s", out->symfs);
		out->input = NULL;
		return 0;
	}
	/* symbol-elf.c demangle_sym: verbose > 0 -> DMGL_PARAMS | DMGL_ANSI */
	if (!rules->verbose_demangles)
		verbose = 0;
	out->demangle = no_demangle ? SYMIDX_DEM_NONE : verbose > 0 ? SYMIDX_DEM_VERBOSE : SYMIDX_DEM_NOOPTS;
	if (!out->input) {
		out->input = "perf.data";
		out->default_input = 1;
	}
	if (!strcmp(out->input, "-")) {
		sl_why_set(&out->why, SL_R_PIPE_INPUT, NULL);
		out->input = NULL;
		return 0;
	}
	out->inputs[0] = out->input;
	out->nr_inputs = 1;
	return 1;
}

/* The version perf prints ("6.1.187") is a NUL-terminated literal in its
 * image (tools/perf/util/version.c PERF_VERSION, .rodata): the test of every
 * perf model's image_matches. */
int sl_perf_image_has_version(const char *img, size_t len, const char *prefix)
{
	size_t n = strlen(prefix + 1) + 1;      /* prefix starts with its NUL */
	const char *p = img, *end = img + len;

	while (p < end && (p = memmem(p, (size_t)(end - p), prefix, n)) != NULL) {
		const char *q = p + n;

		while (q < end && *q >= '0' && *q <= '9')
			q++;
		if (q > p + n && q < end && *q == '\0')
			return 1;
		p++;
	}
	return 0;
}

int sl_perf_version_in_image(const char *img, size_t len, char *buf, size_t n)
{
	const char *p = img, *end = img + len;

	if (n)
		buf[0] = '\0';
	while (p < end && (p = memchr(p, '\0', (size_t)(end - p))) != NULL) {
		const char *q = p + 1, *d;
		int dots = 0;

		p++;
		if (q >= end || *q < '3' || *q > '9' || q + 1 >= end || q[1] != '.')
			continue;
		for (d = q + 1; d < end && dots < 2 && *d == '.' && d + 1 < end && d[1] >= '0' && d[1] <= '9';) {
			dots++;
			d++;
			while (d < end && *d >= '0' && *d <= '9')
				d++;
		}
		if (dots < 2)
			continue;
		while (d < end && d - q < 64 && *d && (strchr("+-.~_", *d) || (*d >= '0' && *d <= '9') ||
						       (*d >= 'a' && *d <= 'z') || (*d >= 'A' && *d <= 'Z')))
			d++;
		if (d < end && *d == '\0') {
			snprintf(buf, n, "%.*s", (int)(d - q), q);
			return 1;
		}
	}
	return 0;
}

/* perf report and perf annotate annotate interactively (TUI) unless --stdio
 * is given or stdout is not a terminal (ui/setup.c setup_browser: use_browser
 * = 0 when !isatty(1), unless --gtk); builtin-annotate.c then prints with
 * hist_entry__tty_annotate, the --stdio output. --stdio2, --tui and --gtk
 * (their views name call targets from the whole symbol table, annotate.c
 * call__parse) stay eager. perf script has no annotation. Unchanged in 7.2;
 * 6.12 adds a rule (core/model/perf612.c perf612_text_output). */
int sl_perf_text_output(struct sl_invocation *a, int out_is_tty)
{
	if (!a->annotate && !a->report)
		return 1;
	if (a->flags & SL_INV_DATA_TYPE) {
		sl_why_set(&a->why, SL_R_DATA_TYPE, NULL);
		return 0;
	}
	if (a->flags & SL_INV_NOT_STDIO) {
		sl_why_set(&a->why, SL_R_INTERACTIVE, NULL);
		return 0;
	}
	if (!(a->flags & SL_INV_STDIO) && out_is_tty) {
		sl_why_set(&a->why, a->annotate ? SL_R_ANNOTATE_TUI : SL_R_REPORT_TUI, NULL);
		return 0;
	}
	return 1;
}

/* elf_sym__is_label() / elf_sym__filter() (is_function || is_object) of
 * symbol-elf.c; SHN_ABS symbols are skipped by the main loop too. The same
 * rule in 6.12 and 7.2 for x86-64 user DSOs. */
enum sl_sym_kind sl_perf_sym_kind(const GElf_Sym *s)
{
	int t = GELF_ST_TYPE(s->st_info), vis = GELF_ST_VISIBILITY(s->st_other);

	if (!s->st_name || s->st_shndx == SHN_UNDEF || s->st_shndx == SHN_ABS)
		return SL_SYM_SKIP;
	if (t == STT_FUNC || t == STT_GNU_IFUNC)
		return SL_SYM_FUNC;
	if (t == STT_OBJECT)
		return SL_SYM_OBJECT;
	if (t == STT_NOTYPE && vis != STV_HIDDEN && vis != STV_INTERNAL)
		return SL_SYM_LABEL;
	return SL_SYM_SKIP;
}

/* Labels are kept only in sections whose name holds "text" or "data"
 * (dso__load_sym_internal: the is_label && !elf_sec__filter check). */
int sl_perf_label_section_ok(const char *name)
{
	return name && (strstr(name, "text") || strstr(name, "data"));
}

/*
 * Heap bytes perf spends per kept symbol: symbol__new() (symbol.c) does
 * calloc(1, priv_size + sizeof(struct symbol) + strlen(name) + 1) with
 * sizeof(struct symbol) == 48 on x86-64 (rb_node, start, end, namelen, flags)
 * and priv_size 0 for script/report; glibc adds an 8-byte chunk header and
 * rounds to 16 bytes (+7.5 on average): 48 + 8 + 7.5 ~= 64 for names perf
 * stores as they are (C). Measured on perf 6.1.187 with the generated fixture
 * (251,127 kept symbols, raw names 31.1 MB): peak RssAnon eager minus the
 * floor = 41.3 MB, i.e. 41 bytes per symbol beyond the raw name, because
 * perf keeps demangled names and frees the .dynsym twins it deduplicates.
 * Charging 64 + raw name length + 1 never undercounts, so the cap holds.
 * struct symbol is still 48 bytes in 6.12 and 7.2 (one ifunc_alias bit added
 * to the flag byte in 6.2), so every perf model charges this.
 */
uint64_t sl_perf_sym_cost(uint64_t namelen)
{
	return 64u + namelen + 1;
}

static int underscores(const char *n)
{
	int c = 0;

	while (n[c] == '_')
		c++;
	return c;
}

/* The name rules of choose_best_symbol() (symbol.c): fewer leading
 * underscores, then the longer name, then not "SyS"/"compat_SyS". */
int sl_perf_choose_by_name(const char *na, const char *nb)
{
	int ua = underscores(na), ub = underscores(nb);
	size_t sa, sb;

	if (ub > ua)
		return 0;
	if (ua > ub)
		return 1;
	sa = strlen(na);
	sb = strlen(nb);
	if (sa > sb)
		return 0;
	if (sa < sb)
		return 1;
	if ((sa >= 3 && !strncmp(na, "SyS", 3)) || (sa >= 10 && !strncmp(na, "compat_SyS", 10)))
		return 1;
	return 0;
}

/* symbol__new() allocates 48 + strlen(stored name) + 1 bytes; in 6.12 and
 * 7.2 the stored name is the demangled one, often longer than the raw name
 * (__cxa_demangle keeps parameters). The name charged is the longer of the
 * two, so the budget stays an upper bound. Demangles once more per charged
 * symbol (perf does it too). */
uint64_t sl_perf_name_cost(const struct sl_model *m, const char *name, uint64_t namelen, int dem_mode)
{
	uint64_t len = namelen;
	int unc = 0;
	char *d;

	if (dem_mode != SYMIDX_DEM_NONE && name && name[0] && (d = m->demangle(name, dem_mode, &unc))) {
		size_t dl = strlen(d);

		if (dl > len)
			len = dl;
		free(d);
	}
	return m->sym_cost(len);
}

int sl_perf_demangles(int mode, int *uncertain)
{
	if (mode == SYMIDX_DEM_NONE)
		return 0;
	if (mode == SYMIDX_DEM_UNKNOWN) {
		*uncertain = 1;
		return 0;
	}
	return 1;
}

/* ocaml_demangle_sym wants the "caml" prefix, java_demangle_sym a ')' */
int sl_perf_maybe_ocaml_java(const char *raw)
{
	return !strncmp(raw, "caml", 4) || strchr(raw, ')') != NULL;
}

int sl_perf_rust_hash_tail(const char *d)
{
	size_t n = strlen(d);

	return n > 19 && !strncmp(d + n - 19, "::h", 3) && strspn(d + n - 16, "0123456789abcdef") == 16;
}
