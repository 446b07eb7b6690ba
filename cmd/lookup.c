/* SPDX-License-Identifier: MIT */
/*
 * lookup.c - `symlazy lookup [--json] FILE ADDR...`: the symbol perf 6.1
 * prints for file offsets of FILE, through core/lookup.h.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "index/cache.h"
#include "cli.h"
#include "core/config.h"
#include "core/lookup.h"
#include "core/stats.h"
#include "index/symindex.h"

static const char *const SUB = "lookup";

static const char USAGE[] =
	"usage: symlazy lookup [--json] [--demangle=default|none|params] [--runtime ELF] [--no-cache]\n"
	"                      FILE [ADDR...]\n"
	"Print, per ADDR, the symbol perf 6.1 prints: \"ADDR NAME+0xOFF\" or \"ADDR [unknown]\".\n"
	"ADDR is a file offset in hex (0x optional): what perf's map__map_ip gives, i.e.\n"
	"ip - mmap start + mmap pgoff, and what SYMLAZY_ADDRS lists. Without ADDR, one per\n"
	"line from stdin.\n"
	"  --json          one JSON object: file, build_id, results[] (addr, found, name,\n"
	"                  start, offset, table symtab|dynsym|plt, index, exact)\n"
	"  --demangle=M    default: perf's (cplus_demangle, no parameters); none: perf\n"
	"                  --no-demangle; params: perf -v (parameters and types)\n"
	"  --runtime ELF   the binary, when FILE is its separate debug file\n"
	"  --no-cache      keep the index in memory instead of the shim's cache directory\n"
	"Exact: the answer is perf's own: the .symtab then .dynsym passes, symbols__fixup_end,\n"
	"the duplicate choice of symbols__fixup_duplicate (size, binding, then names), and\n"
	"for overlapping symbols and PLT stubs a replay of perf's whole rb-tree with its\n"
	"synthesized name@plt symbols. Names are demangled as perf 6.1 does with libiberty;\n"
	"names perf post-processes further (legacy Rust hashes, OCaml, Java) are printed as\n"
	"libiberty gives them and marked \"exact\": false in --json (x86-64, perf 6.1).\n"
	"Exit: 0 ok (also when symbols are [unknown]), 1 FILE unusable or bad stdin input,\n"
	"2 usage or a bad ADDR argument.\n";

static int parse_demangle(const char *s, int *mode)
{
	if (!strcmp(s, "default"))
		*mode = SYMIDX_DEM_NOOPTS;
	else if (!strcmp(s, "none"))
		*mode = SYMIDX_DEM_NONE;
	else if (!strcmp(s, "params"))
		*mode = SYMIDX_DEM_VERBOSE;
	else
		return -1;
	return 0;
}

/* Addresses from stdin, one per line (blank lines and '#' comments skipped). */
static int read_stdin(uint64_t **v, size_t *n)
{
	char line[256];
	size_t cap = 0, lineno = 0;

	*v = NULL;
	*n = 0;
	while (fgets(line, sizeof(line), stdin)) {
		char *s = line, *e;

		lineno++;
		s += strspn(s, " \t");
		e = s + strcspn(s, " \t\r\n#");
		if (s[0] == '#' || e == s)
			continue;
		*e = '\0';
		if (*n == cap) {
			uint64_t *nv = realloc(*v, (cap ? cap * 2 : 256) * sizeof(**v));

			if (!nv) {
				cli_err(SUB, "out of memory");
				return -1;
			}
			*v = nv;
			cap = cap ? cap * 2 : 256;
		}
		if (cli_parse_addr(s, &(*v)[*n]) < 0) {
			cli_err(SUB, "stdin:%zu: bad address '%s' (want hex, e.g. 0x1a2b)", lineno, s);
			return -1;
		}
		(*n)++;
	}
	return 0;
}

static const char *table_name(uint32_t t)
{
	return t == SL_LOOKUP_SYMTAB ? "symtab" : t == SL_LOOKUP_DYNSYM ? "dynsym" : "plt";
}

int cmd_lookup(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "demangle", required_argument, NULL, 'd' },
		{ "runtime", required_argument, NULL, 'r' },
		{ "no-cache", no_argument, NULL, 'n' },
		CLI_OPTS_END,
	};
	struct sl_lookup_opts lo = { SYMIDX_DEM_NOOPTS, NULL, -1 };
	struct sl_lookup *l = NULL;
	struct sl_lookup_sym *res = NULL;
	struct sl_lookup_info info;
	uint64_t *addrs = NULL;
	size_t n = 0, namesz = 4096;
	char err[768], *name = NULL;
	const char *file;
	int c, json = 0, nocache = 0, rc = CLI_FAIL;
	long r;

	optind = 1;
	while ((c = cli_getopt(SUB, USAGE, argc, argv, "+:h", opts)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'd':
			if (parse_demangle(optarg, &lo.demangle) < 0) {
				cli_err(SUB, "bad --demangle '%s' (default, none or params)", optarg);
				return CLI_USAGE;
			}
			break;
		case 'r': lo.runtime = optarg; break;
		case 'n': nocache = 1; break;
		case 'h': return CLI_OK;
		default: return CLI_USAGE;
		}
	}
	if (optind >= argc) {
		cli_err(SUB, "missing FILE (see symlazy lookup --help)");
		return CLI_USAGE;
	}
	file = argv[optind++];
	if (optind < argc) {
		n = (size_t)(argc - optind);
		addrs = calloc(n, sizeof(*addrs));
		if (!addrs) {
			cli_err(SUB, "out of memory");
			return CLI_FAIL;
		}
		for (size_t i = 0; i < n; i++)
			if (cli_parse_addr(argv[optind + (int)i], &addrs[i]) < 0) {
				cli_err(SUB, "bad address '%s' (want a hex file offset, e.g. 0x1a2b)", argv[optind + (int)i]);
				free(addrs);
				return CLI_USAGE;
			}
	} else if (read_stdin(&addrs, &n) < 0) {
		free(addrs);
		return CLI_FAIL;
	}
	if (!nocache)   /* the shim's cache: a later run reuses the index */
		lo.cache_dirfd = cli_cache_dirfd();
	if (sl_lookup_open(file, &lo, &l, err, sizeof(err)) < 0) {
		cli_err(SUB, "%s", err);
		goto out;
	}
	res = calloc(n ? n : 1, sizeof(*res));
	name = malloc(namesz);
	if (!res || !name) {
		cli_err(SUB, "out of memory");
		goto out;
	}
	r = sl_lookup_addrs(l, addrs, n, res);
	if (r < 0) {
		cli_err(SUB, "%s: %s", file, strerror((int)-r));
		goto out;
	}
	sl_lookup_get_info(l, &info);
	if (json) {
		cli_json_head(file, info.build_id);
		printf(",\"results\":[");
	}
	for (size_t i = 0; i < n; i++) {
		const struct sl_lookup_sym *s = &res[i];
		int len = 0;

		if (s->found) {
			len = sl_lookup_name(l, s, name, namesz);
			if (len >= (int)namesz) {
				char *bigger = realloc(name, (size_t)len + 1);

				if (!bigger) {
					cli_err(SUB, "out of memory");
					goto out;
				}
				name = bigger;
				namesz = (size_t)len + 1;
				len = sl_lookup_name(l, s, name, namesz);
			}
			if (len < 0)
				snprintf(name, namesz, "?");
		}
		if (!json) {
			if (s->found)
				printf("0x%llx %s+0x%llx\n", (unsigned long long)s->addr, name,
				       (unsigned long long)s->offset);
			else
				printf("0x%llx [unknown]\n", (unsigned long long)s->addr);
			continue;
		}
		printf("%s\n {\"addr\":\"0x%llx\",\"found\":%s", i ? "," : "", (unsigned long long)s->addr,
		       s->found ? "true" : "false");
		if (s->found) {
			printf(",\"name\":");
			stats_json_str(stdout, name);
			printf(",\"start\":\"0x%llx\",\"offset\":\"0x%llx\",\"table\":\"%s\",\"index\":%u",
			       (unsigned long long)s->start, (unsigned long long)s->offset, table_name(s->table),
			       s->index);
		}
		printf(",\"exact\":%s}", s->exact ? "true" : "false");
	}
	if (json)
		printf("]}\n");
	rc = cli_flush_stdout(SUB);
out:
	sl_lookup_close(l);
	if (lo.cache_dirfd >= 0)
		close(lo.cache_dirfd);
	free(addrs);
	free(res);
	free(name);
	return rc;
}
