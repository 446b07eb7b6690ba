/* SPDX-License-Identifier: MIT */
/*
 * offsets.c - `symlazy offsets [--json] FILE NAME...`: the uprobe file offset
 * of each symbol NAME of FILE, through the name index (core/lookup.h
 * sl_names_open / sl_lookup_by_name; index/names.h says what answers).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elf.h>
#include "index/cache.h"
#include "cli.h"
#include "core/config.h"
#include "core/lookup.h"
#include "core/stats.h"

static const char *const SUB = "offsets";

static const char USAGE[] =
	"usage: symlazy offsets [--json] [--no-cache] [--rebuild] FILE [NAME...]\n"
	"Print, per symbol NAME of the ELF executable or shared object FILE, one line\n"
	"\"NAME<tab>0xOFFSET\" or \"NAME<tab>not found\": the file offset a uprobe takes,\n"
	"st_value - p_vaddr + p_offset of the executable PT_LOAD holding st_value, as\n"
	"cilium/ebpf and bcc compute it. Without NAME, one name per line from stdin.\n"
	"NAME is the raw symbol name (mangled; name@@VER / name@VER for versioned\n"
	".dynsym symbols). Of several symbols with that name the last STT_FUNC one of\n"
	".symtab then .dynsym answers (cilium's choice); an imported function is not\n"
	"found; a name with no function answers with its last defined symbol of another\n"
	"type, printed as a third column (OBJECT, IFUNC, ...). A stripped FILE's .symtab\n"
	"comes from its debug file (build-id, then .gnu_debuglink, as libbcc looks).\n"
	"The name index is built on first use into the cache directory\n"
	"($SYMLAZY_CACHE_DIR, else $XDG_CACHE_HOME/symlazy, else ~/.cache/symlazy).\n"
	"  --json       one JSON object: file, build_id, debug_file, results[] (name,\n"
	"               found, offset, value, size, type, bind, table, index, section,\n"
	"               version)\n"
	"  --no-cache   build the index in memory, leave the cache directory alone\n"
	"  --rebuild    build the index even if the cache holds a valid one\n"
	"Exit: 0 ok (also when names are not found), 1 FILE unusable or bad stdin, 2 usage.\n";

/* Names from stdin, one per line (blank lines skipped; no comments: '#' may
 * be part of a symbol name). */
static int read_names(char ***v, size_t *n, char **buf)
{
	size_t cap = 0, len = 0, bcap = 0;
	char *b = NULL;
	int c;

	/* slurp stdin, then split in place */
	while ((c = getchar()) != EOF) {
		if (len + 2 > bcap) {
			char *nb = realloc(b, bcap ? bcap * 2 : 4096);

			if (!nb)
				goto oom;
			b = nb;
			bcap = bcap ? bcap * 2 : 4096;
		}
		b[len++] = (char)c;
	}
	if (ferror(stdin)) {
		cli_err(SUB, "stdin: read error");
		free(b);
		return -1;
	}
	*buf = b;
	*v = NULL;
	*n = 0;
	if (!b)
		return 0;
	b[len] = '\0';
	for (char *s = b, *e; *s; s = e) {
		e = s + strcspn(s, "\r\n");
		if (*e)
			*e++ = '\0';
		if (!*s)
			continue;
		if (*n == cap) {
			char **nv = realloc(*v, (cap ? cap * 2 : 256) * sizeof(**v));

			if (!nv)
				goto oom;
			*v = nv;
			cap = cap ? cap * 2 : 256;
		}
		(*v)[(*n)++] = s;
	}
	return 0;
oom:
	cli_err(SUB, "out of memory");
	return -1;
}

static const char *type_name(unsigned t)
{
	static const char *const n[] = { "NOTYPE", "OBJECT", "FUNC", "SECTION", "FILE", "COMMON", "TLS" };

	return t < 7 ? n[t] : t == STT_GNU_IFUNC ? "IFUNC" : "OTHER";
}

static const char *bind_name(unsigned b)
{
	return b == STB_LOCAL ? "LOCAL" : b == STB_GLOBAL ? "GLOBAL" : b == STB_WEAK ? "WEAK" :
	       b == STB_GNU_UNIQUE ? "UNIQUE" : "OTHER";
}

static void json_result(const char *name, int found, const struct sl_name_sym *s, int first)
{
	printf("%s\n {\"name\":", first ? "" : ",");
	stats_json_str(stdout, name);
	printf(",\"found\":%s", found ? "true" : "false");
	if (found) {
		printf(",\"offset\":\"0x%llx\",\"value\":\"0x%llx\",\"size\":%llu,\"type\":\"%s\",\"bind\":\"%s\","
		       "\"table\":\"%s\",\"index\":%u,\"section\":",
		       (unsigned long long)s->offset, (unsigned long long)s->value, (unsigned long long)s->size,
		       type_name(s->type), bind_name(s->bind), s->table ? "dynsym" : "symtab", s->index);
		if (s->shndx == SHN_UNDEF)
			printf("\"UND\"");
		else if (s->shndx == SHN_ABS)
			printf("\"ABS\"");
		else
			printf("%u", s->shndx);
		printf(",\"version\":");
		stats_json_str(stdout, s->version);
	}
	printf("}");
}

int cmd_offsets(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "no-cache", no_argument, NULL, 'n' },
		{ "rebuild", no_argument, NULL, 'r' },
		CLI_OPTS_END,
	};
	struct sl_names_opts no = { -1, 0 };
	struct sl_names *idx = NULL;
	struct sl_names_info info;
	char err[1024], **names = NULL, *buf = NULL;
	const char *file;
	size_t n = 0;
	int c, json = 0, nocache = 0, rc = CLI_FAIL;

	optind = 1;
	while ((c = cli_getopt(SUB, USAGE, argc, argv, "+:h", opts)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'n': nocache = 1; break;
		case 'r': no.rebuild = 1; break;
		case 'h': return CLI_OK;
		default: return CLI_USAGE;
		}
	}
	if (optind >= argc) {
		cli_err(SUB, "missing FILE (see symlazy offsets --help)");
		return CLI_USAGE;
	}
	file = argv[optind++];
	if (optind < argc) {
		names = argv + optind;
		n = (size_t)(argc - optind);
	} else if (read_names(&names, &n, &buf) < 0) {
		return CLI_FAIL;
	}
	if (!nocache)   /* the shim's cache: a later run reuses the index */
		no.cache_dirfd = cli_cache_dirfd();
	if (sl_names_open(file, &no, &idx, err, sizeof(err)) < 0) {
		cli_err(SUB, "%s", err);
		goto out;
	}
	sl_names_get_info(idx, &info);
	if (json) {
		cli_json_head(file, info.build_id);
		printf(",\"debug_file\":");
		stats_json_str(stdout, info.debug_file);
		printf(",\"results\":[");
	}
	for (size_t i = 0; i < n; i++) {
		struct sl_name_sym s;
		int found = sl_lookup_by_name(idx, names[i], &s);

		if (json)
			json_result(names[i], found, &s, i == 0);
		else if (!found)
			printf("%s\tnot found\n", names[i]);
		else if (s.type == STT_FUNC)
			printf("%s\t0x%llx\n", names[i], (unsigned long long)s.offset);
		else
			printf("%s\t0x%llx\t%s\n", names[i], (unsigned long long)s.offset, type_name(s.type));
	}
	if (json)
		printf("]}\n");
	rc = cli_flush_stdout(SUB);
out:
	sl_names_close(idx);
	if (no.cache_dirfd >= 0)
		close(no.cache_dirfd);
	if (buf)
		free(names);
	free(buf);
	return rc;
}
