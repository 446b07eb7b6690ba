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
	char why[96];               /* reason when lazy mode does not apply */
};

/*
 * activate_parse - look at perf's argv (argv[0] = perf, global options, then
 * the subcommand). Lazy mode applies to `script`, `report` and `annotate`
 * reading a file: `-i X`, `-iX`, `--input X`, `--input=X`, or the default
 * ./perf.data; `-i -` is pipe input. `--no-demangle`, `--demangle`, `-v...`,
 * `--verbose` set the demangling perf uses (symbol-elf.c demangle_sym).
 * Returns 1 if lazy mode may apply (@out->input set), 0 with @out->why.
 */
int activate_parse(int argc, char *const argv[], struct activation *out);

/*
 * perf_image_is_61 - does perf's executable image (@img, @len bytes) carry
 * the NUL-terminated version literal "6.1.<digits>" that `perf version`
 * prints? (Debian's perf 6.1.187 has "6.1.187" in .rodata.) 1 if so.
 */
int perf_image_is_61(const char *img, size_t len);

#endif
