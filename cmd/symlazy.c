/* SPDX-License-Identifier: MIT */
/*
 * symlazy - the command in front of libsymlazy.so (doc/symlazy.1):
 *
 *   symlazy run [OPTIONS] -- CMD...   run CMD under the shim, print a summary
 *   symlazy doctor [-- CMD...]        what the shim will do for CMD, and why
 *   symlazy stats FILE.json           the shim's stats file as a table
 *   symlazy index FILE... | -i perf.data | --list | --clean
 *   symlazy lookup FILE ADDR...       the symbol perf 6.1 prints for a file offset
 *   symlazy addrs -i perf.data -o FILE  the SYMLAZY_ADDRS list of a recording
 *   symlazy offsets FILE NAME...      uprobe file offsets of symbols by name
 *
 * Each subcommand lives in cmd/<name>.c and takes --help.
 */
#include <stdio.h>
#include <string.h>
#include "cli.h"

#define SYMLAZY_VERSION "0.9"

static const struct cli_cmd cmds[] = {
	{ "run", cmd_run, "run a command under libsymlazy.so; summary of memory and symbols kept" },
	{ "doctor", cmd_doctor, "check this host and a command: will the shim load, will lazy mode apply" },
	{ "stats", cmd_stats, "print a SYMLAZY_STATS file as a table (or validated JSON)" },
	{ "index", cmd_index, "build, list or clean the index cache the shim maps" },
	{ "lookup", cmd_lookup, "the symbol perf 6.1 prints for file offsets of an ELF file" },
	{ "addrs", cmd_addrs, "write the SYMLAZY_ADDRS list of a perf.data file" },
	{ "offsets", cmd_offsets, "uprobe file offsets of symbols by name (cilium/ebpf's and bcc's)" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: symlazy <command> [--help] [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\nsymlazy <command> --help shows its options; man symlazy, man libsymlazy (environment).\n"
		   "Exit status: 0 ok, 1 error or finding, 2 usage error.\n");
}

int main(int argc, char **argv)
{
	const char *name;

	if (argc < 2) {
		usage(stderr);
		return CLI_USAGE;
	}
	name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
		usage(stdout);
		return CLI_OK;
	}
	if (!strcmp(name, "--version")) {
		printf("symlazy %s (model: perf-6.1)\n", SYMLAZY_VERSION);
		return CLI_OK;
	}
	if (!strcmp(name, "help")) {
		if (argc < 3) {
			usage(stdout);
			return CLI_OK;
		}
		name = argv[2];
		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
			if (!strcmp(name, cmds[i].name)) {
				char *av[] = { argv[2], "--help", NULL };

				return cmds[i].main(2, av);
			}
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(name, cmds[i].name))
			return cmds[i].main(argc - 1, argv + 1);
	fprintf(stderr, "symlazy: '%s' is not a symlazy command (see symlazy --help)\n", name);
	return CLI_USAGE;
}
