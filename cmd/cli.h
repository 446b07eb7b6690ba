/* SPDX-License-Identifier: MIT */
/*
 * cli.h - what the subcommands of the `symlazy` command share (the files
 * of cmd/, one per subcommand).
 * Exit codes as git and perf users expect: 0 ok, 1 error or finding,
 * 2 usage error. Every error is one line "symlazy <sub>: ..." on stderr.
 */
#ifndef SYMLAZY_CLI_H
#define SYMLAZY_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CLI_OK    0
#define CLI_FAIL  1
#define CLI_USAGE 2

struct sl_stats_doc;
struct option;

/* One subcommand: name, entry (argv[0] is the subcommand name), one-line
 * summary for `symlazy --help`. */
struct cli_cmd {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *summary;
};

int cmd_run(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_index(int argc, char **argv);
int cmd_lookup(int argc, char **argv);
int cmd_addrs(int argc, char **argv);
int cmd_offsets(int argc, char **argv);

/* cli_err - "symlazy <sub>: <formatted>\n" on stderr. */
void cli_err(const char *sub, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * cli_getopt - getopt_long without getopt's own messages: returns the
 * option, -1 at the end, or '?' after printing one line "symlazy <sub>:
 * unknown option ..." / "... needs an argument" (the caller exits 2).
 * -h/--help prints @usage on stdout and returns 'h' (the caller exits 0).
 * @shortopts starts with "+:" ("+": options end at the first operand,
 * ":": a missing argument is told apart from an unknown option) and holds
 * 'h'; @longopts ends with CLI_OPTS_END.
 */
int cli_getopt(const char *sub, const char *usage, int argc, char **argv, const char *shortopts,
	       const struct option *longopts);

/* the end of every subcommand's long option table: --help, then the
 * terminator getopt_long wants (<getopt.h>) */
#define CLI_OPTS_END { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }

/* cli_flush_stdout - fflush(stdout); on failure one line "symlazy <sub>:
 * write stdout: ..." and CLI_FAIL, else CLI_OK. */
int cli_flush_stdout(const char *sub);

/* cli_json_head - the start every --json document shares:
 * {"file":<@file as a JSON string>,"build_id":"<@build_id>" (no closing
 * brace: the caller adds its own members). */
void cli_json_head(const char *file, const char *build_id);

/*
 * cli_find_lib - where libsymlazy.so is, for `symlazy run` and doctor:
 * $SYMLAZY_LIB if set; else ../lib/libsymlazy.so next to the real path of
 * this binary (an installed PREFIX/bin/symlazy); else ../lib/MULTIARCH/
 * libsymlazy.so (the Debian package: /usr/lib/x86_64-linux-gnu; MULTIARCH is
 * $(CC) -print-multiarch at build time); else ../libsymlazy.so
 * (build/bin/symlazy in a build tree). Fills @buf and @how (which rule,
 * e.g. "SYMLAZY_LIB"). Returns 0 if the file exists, -ENOENT otherwise
 * (@buf then holds the last candidate tried).
 */
/* cli_cache_dirfd - the shim's cache directory (SYMLAZY_CACHE_DIR, or its
 * default), opened as the shim opens it (index/cache.h sl_cache_dir_open),
 * or -1 when it is off or unusable (then indexes stay in memory). */
int cli_cache_dirfd(void);
int cli_find_lib(char *buf, size_t n, const char **how);

/* cli_path - snprintf into a PATH_MAX buffer; 0, or -ENAMETOOLONG when
 * the result does not fit (the buffer then holds "") */
int cli_path(char *dst, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* cli_parse_addr - hex with or without 0x/0X, at most 16 digits, nothing
 * after it. 0 or -EINVAL. */
int cli_parse_addr(const char *s, uint64_t *out);

/* cli_getenv - getenv with the signature config_load() wants. */
const char *cli_getenv(const char *name);

/*
 * cli_stats_table - the stats document as a table on @f: lazy line, one
 * row per scan (DSO, table, mode, kept/scanned, bytes; with @reasons the
 * reason under rows that have one), a total row. At most @max_rows rows
 * (0: all), the largest scans first when cut.
 */
void cli_stats_table(FILE *f, const struct sl_stats_doc *d, size_t max_rows, int reasons);

/* cli_dso_name - a short display name of a scanned file path into @buf:
 * the recorded file's name for build-id cache copies
 * (~/.debug/<path>/<build-id>/elf), else the basename. */
const char *cli_dso_name(const char *path, char *buf, size_t n);

#endif
