/* SPDX-License-Identifier: MIT */
/*
 * activate.h - decide, from perf's own command line, whether lazy mode
 * applies (SYMLAZY_LAZY=auto) and how perf will demangle names.
 */
#ifndef SYMLAZY_ACTIVATE_H
#define SYMLAZY_ACTIVATE_H

#include <stddef.h>

struct activation {
	const char *input;          /* perf.data path (points into argv), or NULL */
	int default_input;          /* no -i given: "perf.data", unless stdin is a pipe */
	int demangle;               /* SYMIDX_DEM_* (symindex.h) */
	int flags;                  /* ACT_* */
	int annotate, report;       /* the subcommand */
	char why[96];               /* reason when lazy mode does not apply */
};

/*
 * activate_parse - look at perf's argv (argv[0] = perf, global options, then
 * the subcommand). Lazy mode applies to `script`, `report` and `annotate`
 * reading a file: `-i X`, `-iX`, `--input X`, `--input=X`, or the default
 * ./perf.data; `-i -` is pipe input. `--no-demangle`, `--demangle`, `-v...`,
 * `--verbose` set the demangling perf uses (symbol-elf.c demangle_sym).
 * perf's option parser also takes unambiguous abbreviations of long
 * options ("--inp=X") and grouped short options ("-fi X"): abbreviations of
 * --input are understood; a grouped short option that contains 'i' cannot be
 * parsed without perf's option table, so lazy mode stays off for it.
 * Interactive output (TUI/GTK/--stdio2) names call targets in annotations
 * from the full symbol table (annotate.c call__parse), so the caller keeps
 * lazy mode to text output: see activate_text_output().
 * Returns 1 if lazy mode may apply (@out->input set), 0 with @out->why.
 */
int activate_parse(int argc, char *const argv[], struct activation *out);

/* Flags of struct activation.flags */
#define ACT_STDIO     1         /* --stdio given */
#define ACT_NOT_STDIO 2         /* --tui, --gtk or --stdio2 given */

/*
 * perf_image_is_61 - does perf's executable image (@img, @len bytes) carry
 * the NUL-terminated version literal "6.1.<digits>" that `perf version`
 * prints? (Debian's perf 6.1.187 has "6.1.187" in .rodata.) 1 if so.
 */
int perf_image_is_61(const char *img, size_t len);

/*
 * activate_text_output - may lazy mode serve this run? perf report and
 * perf annotate annotate interactively (TUI) unless --stdio is given or
 * stdout is not a terminal (@out_is_tty); perf annotate needs --stdio
 * (its --stdio2 and TUI name call targets from the symbol table). perf
 * script has no annotation. 1 if yes, else 0 with @a->why set.
 */
int activate_text_output(struct activation *a, int out_is_tty);

#endif
