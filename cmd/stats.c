/* SPDX-License-Identifier: MIT */
/*
 * stats.c - `symlazy stats [--json] FILE`: a SYMLAZY_STATS file (written
 * by core/stats.c) as a table, or with --json the file itself after
 * core/statsjson.c validated it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "core/statsjson.h"

static const char *const SUB = "stats";

static const char USAGE[] =
	"usage: symlazy stats [--json] FILE.json\n"
	"Print the stats the shim wrote (SYMLAZY_STATS=FILE, or symlazy run --stats=FILE):\n"
	"lazy on/off and why, one row per symbol-table scan (DSO, build-id, .symtab/.dynsym,\n"
	"mode, symbols kept/scanned, bytes charged) with its reason, and the totals.\n"
	"  --json   check the file has the shape the shim writes and print it unchanged\n"
	"Exit: 0 ok, 1 unreadable or malformed file, 2 usage.\n";

static int copy_out(const char *path)
{
	char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);   /* never block on a FIFO */

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n) {
			close(fd);
			return -EIO;
		}
	close(fd);
	return n < 0 ? -EIO : 0;
}

int cmd_stats(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		CLI_OPTS_END,
	};
	struct sl_stats_doc doc;
	char err[256];
	int c, json = 0, r;

	optind = 1;
	while ((c = cli_getopt(SUB, USAGE, argc, argv, "+:h", opts)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'h': return CLI_OK;
		default: return CLI_USAGE;
		}
	}
	if (optind + 1 != argc) {
		cli_err(SUB, optind == argc ? "missing FILE (see symlazy stats --help)"
					    : "one FILE only (see symlazy stats --help)");
		return CLI_USAGE;
	}
	r = sl_stats_load(argv[optind], &doc, err, sizeof(err));
	if (r < 0) {
		cli_err(SUB, "%s: %s%s", argv[optind], r == -EINVAL ? "not a symlazy stats file: " : "", err);
		return CLI_FAIL;
	}
	if (json)
		r = copy_out(argv[optind]);
	else
		cli_stats_table(stdout, &doc, 0, 1);
	sl_stats_free(&doc);
	if (r < 0 || fflush(stdout) != 0) {
		cli_err(SUB, "write stdout: %s", strerror(r < 0 ? -r : errno));
		return CLI_FAIL;
	}
	return CLI_OK;
}
