/* SPDX-License-Identifier: MIT */
/*
 * core/model/perfsubcmds.c - the argv of `perf diff` and `perf data convert`,
 * for every perf model: which files perf reads and whether lazy
 * mode can mirror what it looks up. Sources (linux v6.12 and v7.2; Debian's
 * perf 6.1 prints the same option tables with -h): builtin-diff.c (options[],
 * data_init, setup_compute, cmd_diff), builtin-data.c (data_options,
 * cmd_data, cmd_data_convert), util/data-convert-json.c, and the option
 * parser tools/lib/subcmd/parse-options.c (parse_options_step,
 * parse_short_opt, parse_long_opt, get_value, get_arg), mirrored below so
 * that a word is taken as a file exactly when perf takes it as one.
 *
 * What they look up: perf diff resolves each sample's IP of every file
 * (diff__process_sample_event: machine__resolve, hists__add_entry); its
 * entries are matched across files by dso and symbol start/end (sort.c
 * sort__sym_cmp), which a keep-set answers as the full table does. perf
 * data convert --to-json resolves the sample IP (machine__resolve) and every
 * raw callchain entry (thread__find_symbol with the cpumode of the last
 * PERF_CONTEXT_* marker, user before any): the lookups of perf script. Not
 * mirrored, so eager with a reason: perf diff -c cycles / --cycles-hist
 * (basic-block cycles through the annotation of each symbol,
 * hist__account_cycles, block_info__process_sym), perf diff --stream
 * (branch callchains keyed by source line), perf data convert --to-ctf.
 */
#include <string.h>
#include "core/models.h"
#include "index/symindex.h"

enum po_tag {
	T_NONE = 0, T_VERBOSE, T_COMPUTE, T_CYCLES_HIST, T_STREAM, T_SORT, T_SYMFS, T_KALLSYMS,
	T_INPUT, T_TO_JSON, T_TO_CTF, T_TIME,
};

/* One option of perf's table: short name, long name, takes a value, tag. */
struct po {
	char sh;
	const char *lng;
	unsigned char arg;
	unsigned char tag;
};

/* builtin-diff.c options[] (identical in 6.1, 6.12 and 7.2) */
static const struct po diff_opts[] = {
	{ 'v', "verbose", 0, T_VERBOSE }, { 'q', "quiet", 0, 0 }, { 'b', "baseline-only", 0, 0 },
	{ 'c', "compute", 1, T_COMPUTE }, { 'p', "period", 0, 0 }, { 'F', "formula", 0, 0 },
	{ 0, "cycles-hist", 0, T_CYCLES_HIST }, { 'D', "dump-raw-trace", 0, 0 }, { 'f', "force", 0, 0 },
	{ 0, "kallsyms", 1, T_KALLSYMS }, { 'm', "modules", 0, 0 }, { 'd', "dsos", 1, 0 },
	{ 'C', "comms", 1, 0 }, { 'S', "symbols", 1, 0 }, { 's', "sort", 1, T_SORT },
	{ 't', "field-separator", 1, 0 }, { 0, "symfs", 1, T_SYMFS }, { 'o', "order", 1, 0 },
	{ 0, "percentage", 1, 0 }, { 0, "time", 1, 0 }, { 0, "cpu", 1, 0 }, { 0, "pid", 1, 0 },
	{ 0, "tid", 1, 0 }, { 0, "stream", 0, T_STREAM }, { 0, NULL, 0, 0 },
};

/* builtin-data.c data_options[]; --time is 7.x's (rules->convert_time) */
static const struct po data_opts[] = {
	{ 'v', "verbose", 0, T_VERBOSE }, { 'i', "input", 1, T_INPUT }, { 0, "to-json", 1, T_TO_JSON },
	{ 0, "to-ctf", 1, T_TO_CTF }, { 0, "tod", 0, 0 }, { 'f', "force", 0, 0 }, { 0, "all", 0, 0 },
	{ 0, "time", 1, T_TIME }, { 0, NULL, 0, 0 },
};

/* What the options set, as the perf globals they stand for. */
struct po_state {
	int verbose, cycles, stream, data_type, ctf;
	const char *input, *to_json, *to_ctf, *symfs, *kallsyms;
	const char *bad;            /* the word perf stops at with usage, or NULL */
};

static int skip_time(const struct sl_argv_rules *rules, const struct po *o)
{
	return o->tag == T_TIME && !rules->convert_time;
}

/* Is @c (a --compute value) perf's COMPUTE_CYCLES (setup_compute: the name
 * before ':' compared whole)? */
static int compute_is_cycles(const char *c)
{
	size_t n = strcspn(c, ":");

	return n == 6 && !strncmp(c, "cycles", 6);
}

/*
 * get_value for option @o: @unset (--no-), @val its value (NULL: none).
 * perf 6.x's setup_compute_opt_wdiff (builtin-diff.c) writes a NUL over the
 * ',' of "-c wdiff:W1,W2" in argv itself, before the shim reads
 * /proc/self/cmdline: there the value is "wdiff:W1" and W2 the next word
 * (without a ',' perf stops with "wrong weight data"). *@i is moved past
 * that word.
 */
static void po_set(struct po_state *st, const struct sl_argv_rules *rules, const struct po *o, int unset,
		   const char *val, int argc, int *i)
{
	if (o->tag == T_COMPUTE && !unset && !rules->wdiff_argv_intact && !strncmp(val, "wdiff:", 6) &&
	    !strchr(val, ',') && *i + 1 < argc)
		++*i;
	switch (o->tag) {
	case T_VERBOSE:
		st->verbose = unset ? 0 : st->verbose + 1;
		break;
	case T_COMPUTE:
		st->cycles = !unset && compute_is_cycles(val);
		break;
	case T_CYCLES_HIST:
		st->cycles |= !unset;       /* without -c cycles: usage */
		break;
	case T_STREAM:
		st->stream = !unset;
		break;
	case T_SORT:
		st->data_type = !unset && rules->data_type_options && sl_perf_names_data_type_key(val);
		break;
	case T_SYMFS:
		st->symfs = unset ? NULL : val;
		break;
	case T_KALLSYMS:
		st->kallsyms = unset ? NULL : val;
		break;
	case T_INPUT:
		st->input = unset ? NULL : val;
		break;
	case T_TO_JSON:
		st->to_json = unset ? NULL : val;
		break;
	case T_TO_CTF:
		st->to_ctf = unset ? NULL : val;
		break;
	default:
		break;
	}
}

/* parse_long_opt for "--@a" (@a past the dashes): 1 parsed (*@i moved past
 * a value taken from the next word), 0 perf stops with usage (unknown,
 * ambiguous, a value missing or not allowed). */
static int long_opt(struct po_state *st, const struct sl_argv_rules *rules, const struct po *t,
		    const char *a, int argc, char *const argv[], int *i)
{
	const char *end = strchr(a, '='), *opt = NULL;
	const struct po *abbrev = NULL, *ambiguous = NULL, *o, *hit = NULL;
	int abbrev_unset = 0, unset = 0;

	if (!end)
		end = a + strlen(a);
	for (o = t; o->lng && !hit; o++) {
		size_t n = strlen(o->lng);
		const char *rest = !strncmp(a, o->lng, n) ? a + n : NULL;

		if (skip_time(rules, o))
			continue;
		unset = 0;
		if (!rest) {
			if (!strncmp(o->lng, a, (size_t)(end - a))) {
is_abbreviated:
				if (abbrev)
					ambiguous = abbrev;
				if (!unset && *end)
					opt = end + 1;
				abbrev = o;
				abbrev_unset = unset;
				continue;
			}
			if (!strncmp("no-", a, strlen(a))) {    /* "--n", "--no", "--no-" */
				unset = 1;
				goto is_abbreviated;
			}
			if (strncmp(a, "no-", 3))
				continue;
			unset = 1;
			rest = !strncmp(a + 3, o->lng, n) ? a + 3 + n : NULL;
			if (!rest && !strncmp(o->lng, a + 3, strlen(a + 3)))
				goto is_abbreviated;
			if (!rest)
				continue;
		}
		if (*rest) {
			if (*rest != '=')
				continue;
			opt = rest + 1;
		}
		hit = o;
	}
	if (!hit) {
		if (ambiguous || !abbrev)
			return 0;
		hit = abbrev;
		unset = abbrev_unset;
	}
	if (opt && (unset || !hit->arg))
		return 0;           /* "takes no value" */
	if (hit->arg && !unset && !opt) {
		if (*i + 1 >= argc)
			return 0;   /* "requires a value" */
		opt = argv[++*i];
	}
	po_set(st, rules, hit, unset, opt, argc, i);
	return 1;
}

/* parse_short_opt over the cluster "-@a": 1 parsed, 0 usage (unknown, -h,
 * a value missing). */
static int short_opts(struct po_state *st, const struct sl_argv_rules *rules, const struct po *t,
		      const char *a, int argc, char *const argv[], int *i)
{
	while (*a) {
		const struct po *o;

		for (o = t; o->lng && o->sh != *a; o++)
			;
		if (!o->lng || *a == 'h')
			return 0;
		a++;
		if (!o->arg) {
			po_set(st, rules, o, 0, NULL, argc, i);
			continue;
		}
		if (!*a) {
			if (*i + 1 >= argc)
				return 0;
			a = argv[++*i];
		}
		po_set(st, rules, o, 0, a, argc, i);
		return 1;
	}
	return 1;
}

/*
 * parse_options_step over @argv[@from..]: options into @st, non-options
 * into @pos (up to @maxpos kept, all counted in *@npos). @stop_at_nonopt:
 * PARSE_OPT_STOP_AT_NON_OPTION, then returns the index of the first
 * non-option (argc if none). Returns -1 when perf stops with usage.
 */
static int po_parse(struct po_state *st, const struct sl_argv_rules *rules, const struct po *t, int argc,
		    char *const argv[], int from, int stop_at_nonopt, const char **pos, int maxpos, int *npos)
{
	int i;

	for (i = from; i < argc; i++) {
		const char *a = argv[i];

		if (a[0] != '-' || !a[1]) {
			if (stop_at_nonopt)
				return i;
			if (*npos < maxpos)
				pos[*npos] = a;
			++*npos;
			continue;
		}
		if (a[1] != '-') {
			if (!short_opts(st, rules, t, a + 1, argc, argv, &i))
				goto usage;
			continue;
		}
		if (!a[2]) {        /* "--": the rest are non-options */
			for (i++; i < argc; i++) {
				if (stop_at_nonopt)
					return i;
				if (*npos < maxpos)
					pos[*npos] = argv[i];
				++*npos;
			}
			return argc;
		}
		if (!strcmp(a + 2, "help") || !strcmp(a + 2, "help-all") || !strcmp(a + 2, "list-opts") ||
		    !strcmp(a + 2, "list-cmds") || !long_opt(st, rules, t, a + 2, argc, argv, &i))
			goto usage;
	}
	return argc;
usage:
	st->bad = argv[i < argc ? i : argc - 1];
	return -1;
}

static int finish(const struct sl_argv_rules *rules, struct po_state *st, struct sl_invocation *out)
{
	if (st->data_type) {
		sl_why_set(&out->why, SL_R_DATA_TYPE, NULL);
		return 0;
	}
	if (rules->symfs_layout && st->symfs && strchr(st->symfs, ',')) {
		sl_why_set(&out->why, SL_R_SYMFS_LAYOUT, "%s", st->symfs);
		return 0;
	}
	out->symfs = st->symfs;
	out->kallsyms = st->kallsyms;
	if (!rules->verbose_demangles)
		st->verbose = 0;
	out->demangle = st->verbose > 0 ? SYMIDX_DEM_VERBOSE : SYMIDX_DEM_NOOPTS;
	for (int k = 0; k < out->nr_inputs; k++)
		if (!strcmp(out->inputs[k], "-")) {
			sl_why_set(&out->why, SL_R_PIPE_INPUT, NULL);
			return 0;
		}
	out->input = out->inputs[0];
	return 1;
}

/* perf diff [options] [old_file] [new_file]: data_init's files. */
static int parse_diff(const struct sl_argv_rules *rules, int argc, char *const argv[], int sub, int verbose,
		      struct sl_invocation *out)
{
	struct po_state st = { .verbose = verbose };
	const char *pos[SL_INV_MAX_INPUTS];
	int npos = 0;

	out->diff = 1;
	if (po_parse(&st, rules, diff_opts, argc, argv, sub + 1, 0, pos, SL_INV_MAX_INPUTS, &npos) < 0) {
		sl_why_set(&out->why, SL_R_BAD_OPTION, "%s", st.bad);
		return 0;
	}
	if (st.cycles) {
		sl_why_set(&out->why, SL_R_DIFF_CYCLES, NULL);
		return 0;
	}
	if (st.stream) {
		sl_why_set(&out->why, SL_R_DIFF_STREAM, NULL);
		return 0;
	}
	if (npos > SL_INV_MAX_INPUTS) {
		sl_why_set(&out->why, SL_R_TOO_MANY_INPUTS, "%d", npos);
		return 0;
	}
	/* data_init: none -> perf.data.old perf.data; one -> perf.data.old
	 * and it; more -> them (perf_guest, the .host/.guest pair, is perf
	 * kvm diff's) */
	if (npos <= 1) {
		out->inputs[0] = "perf.data.old";
		out->inputs[1] = npos ? pos[0] : "perf.data";
		out->nr_inputs = 2;
	} else {
		memcpy(out->inputs, pos, (size_t)npos * sizeof(pos[0]));
		out->nr_inputs = npos;
	}
	return finish(rules, &st, out);
}

/* perf [data options] data convert [options]: cmd_data parses data_options
 * up to the first non-option (which must be "convert"), cmd_data_convert
 * the rest, with no non-option left. */
static int parse_convert(const struct sl_argv_rules *rules, int argc, char *const argv[], int sub, int verbose,
			 struct sl_invocation *out)
{
	struct po_state st = { .verbose = verbose };
	int npos = 0, c;

	out->convert = 1;
	c = po_parse(&st, rules, data_opts, argc, argv, sub + 1, 1, NULL, 0, &npos);
	if (c < 0) {
		sl_why_set(&out->why, SL_R_BAD_OPTION, "%s", st.bad);
		return 0;
	}
	if (c >= argc || strcmp(argv[c], "convert")) {   /* "Unknown command", or usage */
		sl_why_set(&out->why, SL_R_NOT_SUBCMD, NULL);
		return 0;
	}
	if (po_parse(&st, rules, data_opts, argc, argv, c + 1, 0, NULL, 0, &npos) < 0 || npos) {
		sl_why_set(&out->why, SL_R_BAD_OPTION, "%s", st.bad ? st.bad : "a word that is no option");
		return 0;
	}
	if (st.to_ctf) {
		sl_why_set(&out->why, SL_R_CONVERT_CTF, NULL);
		return 0;
	}
	if (!st.to_json) {
		sl_why_set(&out->why, SL_R_BAD_OPTION, "%s", "neither --to-json nor --to-ctf");
		return 0;
	}
	/* bt_convert__perf2json(input_name): no -i is perf_data's default,
	 * "perf.data" unless stdin is a FIFO */
	out->inputs[0] = st.input ? st.input : "perf.data";
	out->default_input = !st.input;
	out->nr_inputs = 1;
	return finish(rules, &st, out);
}

int sl_perf_parse_subcmd(const struct sl_argv_rules *rules, int argc, char *const argv[], int sub, int verbose,
			 struct sl_invocation *out)
{
	if (!strcmp(argv[sub], "diff"))
		return parse_diff(rules, argc, argv, sub, verbose, out);
	if (!strcmp(argv[sub], "data"))
		return parse_convert(rules, argc, argv, sub, verbose, out);
	sl_why_set(&out->why, SL_R_NOT_SUBCMD, NULL);
	return 0;
}

int sl_perf_lazy_subcmd(int argc, char *const argv[], int sub)
{
	const char *n = argv[sub];
	int i;

	if (!strcmp(n, "script") || !strcmp(n, "report") || !strcmp(n, "annotate") || !strcmp(n, "diff"))
		return 1;
	if (strcmp(n, "data"))
		return 0;
	for (i = sub + 1; i < argc; i++)
		if (!strcmp(argv[i], "convert"))
			return 1;
	return 0;
}
