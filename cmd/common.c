/* SPDX-License-Identifier: MIT */
/* common.c - helpers the subcommands share (cli.h). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "core/config.h"
#include "core/stats.h"
#include "core/statsjson.h"
#include "index/cache.h"

void cli_err(const char *sub, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n = snprintf(line, sizeof(line), "symlazy %s: ", sub);

	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	fflush(stdout);
	fprintf(stderr, "%s\n", line);
}

int cli_getopt(const char *sub, const char *usage, int argc, char **argv, const char *shortopts,
	       const struct option *longopts)
{
	int c;

	opterr = 0;
	c = getopt_long(argc, argv, shortopts, longopts, NULL);
	if (c == 'h')
		fputs(usage, stdout);
	if (c == ':' || c == '?') {
		const char *arg = optind > 0 && optind - 1 < argc ? argv[optind - 1] : "?";

		int is_long = arg[0] == '-' && arg[1] == '-';

		if (c == ':' && !is_long)
			cli_err(sub, "option -%c needs an argument (see symlazy %s --help)", optopt, sub);
		else if (c == ':')
			cli_err(sub, "option %s needs an argument (see symlazy %s --help)", arg, sub);
		else if (optopt && !is_long)
			cli_err(sub, "unknown option -%c (see symlazy %s --help)", optopt, sub);
		else
			cli_err(sub, "unknown option %s (see symlazy %s --help)", arg, sub);
		return '?';
	}
	return c;
}

int cli_flush_stdout(const char *sub)
{
	if (fflush(stdout) != 0) {
		cli_err(sub, "write stdout: %s", strerror(errno));
		return CLI_FAIL;
	}
	return CLI_OK;
}

void cli_json_head(const char *file, const char *build_id)
{
	printf("{\"file\":");
	stats_json_str(stdout, file);
	printf(",\"build_id\":\"%s\"", build_id);
}

int cli_path(char *dst, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(dst, PATH_MAX, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= PATH_MAX) {
		dst[0] = '\0';
		return -ENAMETOOLONG;
	}
	return 0;
}

const char *cli_getenv(const char *name)
{
	return getenv(name);
}

static int exists(const char *p)
{
	return access(p, F_OK) == 0;
}

int cli_find_lib(char *buf, size_t n, const char **how)
{
	const char *env = getenv("SYMLAZY_LIB");
	char exe[PATH_MAX], *slash;

	if (env && *env) {
		snprintf(buf, n, "%s", env);
		*how = "SYMLAZY_LIB";
		return exists(buf) ? 0 : -ENOENT;
	}
	if (!realpath("/proc/self/exe", exe)) {
		snprintf(buf, n, "libsymlazy.so");
		*how = "none";
		return -ENOENT;
	}
	slash = strrchr(exe, '/');
	*slash = '\0';
	snprintf(buf, n, "%s/../lib/libsymlazy.so", exe);
	*how = "../lib next to the symlazy binary";
	if (exists(buf))
		goto found;
#ifdef SYMLAZY_MULTIARCH
	/* the Debian package's place (scripts/build-deb.sh): the multiarch
	 * library directory, dpkg-architecture -qDEB_HOST_MULTIARCH */
	snprintf(buf, n, "%s/../lib/" SYMLAZY_MULTIARCH "/libsymlazy.so", exe);
	*how = "../lib/" SYMLAZY_MULTIARCH " next to the symlazy binary";
	if (exists(buf))
		goto found;
#endif
	snprintf(buf, n, "%s/../libsymlazy.so", exe);
	*how = "build tree next to the symlazy binary";
	if (!exists(buf))
		return -ENOENT;
found:
	{
		char real[PATH_MAX];

		if (realpath(buf, real))
			snprintf(buf, n, "%s", real);
	}
	return 0;
}

int cli_parse_addr(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	int nd = 0;

	if (!s)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; *s; s++, nd++) {
		char c = *s;
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -EINVAL;
		if (nd >= 16)
			return -EINVAL;
		v = v << 4 | d;
	}
	if (!nd)
		return -EINVAL;
	*out = v;
	return 0;
}

static int is_hex_id(const char *s, size_t n)
{
	if (n < 8 || n > 40)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789abcdef", s[i]))
			return 0;
	return 1;
}

const char *cli_dso_name(const char *path, char *buf, size_t n)
{
	const char *base = strrchr(path, '/'), *end;

	base = base ? base + 1 : path;
	if (!*path) {
		snprintf(buf, n, "?");
		return buf;
	}
	/* .../.debug/<recorded path>/<build-id>/elf (perf's build-id cache) */
	if ((!strcmp(base, "elf") || !strcmp(base, "debug")) && base - path > 2 && strstr(path, "/.debug/")) {
		const char *bid_end = base - 1, *bid = bid_end;

		while (bid > path && bid[-1] != '/')
			bid--;
		if (is_hex_id(bid, (size_t)(bid_end - bid)) && bid - path > 1) {
			const char *name = bid - 1;

			end = name;
			while (name > path && name[-1] != '/')
				name--;
			snprintf(buf, n, "%.*s%s", (int)(end - name), name, base[0] == 'd' ? " (debug)" : "");
			return buf;
		}
	}
	/* /usr/lib/debug/.build-id/xx/yyyy.debug: the name the build-id cache
	 * link ~/.debug/.build-id/xx/yyyy -> ../../<path>/<build-id> gives */
	end = strstr(path, "/.build-id/");
	if (end && strlen(base) > 6 && !strcmp(base + strlen(base) - 6, ".debug")) {
		const char *home = getenv("HOME");
		char link[PATH_MAX], target[PATH_MAX];
		ssize_t k;

		if (home && cli_path(link, "%s/.debug/.build-id/%.2s/%.*s", home, base - 3, (int)strlen(base) - 6,
				     base) == 0 && (k = readlink(link, target, sizeof(target) - 1)) > 0) {
			char *b;

			target[k] = '\0';
			if ((b = strrchr(target, '/')) != NULL) {
				*b = '\0';
				b = strrchr(target, '/');
				snprintf(buf, n, "%s (debug)", b ? b + 1 : target);
				return buf;
			}
		}
		snprintf(buf, n, "%.8s... (debug)", base);
		return buf;
	}
	snprintf(buf, n, "%s", base);
	return buf;
}

static int by_scanned_desc(const void *a, const void *b)
{
	const struct sl_stats_dso *x = *(const struct sl_stats_dso *const *)a;
	const struct sl_stats_dso *y = *(const struct sl_stats_dso *const *)b;

	return x->c.scanned < y->c.scanned ? 1 : x->c.scanned > y->c.scanned ? -1 : 0;
}

void cli_stats_table(FILE *f, const struct sl_stats_doc *d, size_t max_rows, int reasons)
{
	const struct sl_stats_dso **rows = NULL;
	size_t n = d->ndsos, shown = n, i;
	char name[64], kept[48];

	if (!strcmp(d->lazy, "on"))
		fprintf(f, "lazy: on (%llu addresses in %llu DSOs)\n", (unsigned long long)d->addrs,
			(unsigned long long)d->addr_dsos);
	else
		fprintf(f, "lazy: off (%s)\n", d->lazy_reason[0] ? d->lazy_reason : "no reason given");
	if (n)
		rows = malloc(n * sizeof(*rows));
	if (n && !rows) {
		fprintf(f, "(out of memory)\n");
		return;
	}
	for (i = 0; i < n; i++)
		rows[i] = &d->dsos[i];
	if (max_rows && n > max_rows) {
		qsort(rows, n, sizeof(*rows), by_scanned_desc);
		shown = max_rows;
	}
	fprintf(f, "%-30s %-8s  %-6s %-11s %17s %10s\n", "DSO", "build-id", "table", "mode", "kept/scanned", "bytes");
	for (i = 0; i < shown; i++) {
		const struct sl_stats_dso *x = rows[i];

		cli_dso_name(x->path, name, sizeof(name));
		snprintf(kept, sizeof(kept), "%llu/%llu", (unsigned long long)x->c.passed,
			 (unsigned long long)x->c.scanned);
		fprintf(f, "%-30.30s %-8.8s  %-6s %-11s %17s %10llu\n", name, x->build_id[0] ? x->build_id : "-",
			x->table, x->mode, kept, (unsigned long long)x->c.bytes);
		if (reasons && x->reason[0])
			fprintf(f, "    %s\n", x->reason);
	}
	if (shown < n)
		fprintf(f, "... %zu more scans\n", n - shown);
	snprintf(kept, sizeof(kept), "%llu/%llu", (unsigned long long)d->totals.passed,
		 (unsigned long long)d->totals.scanned);
	fprintf(f, "%-30s %-8s  %-6s %-11s %17s %10llu\n", "total", "", "", "", kept,
		(unsigned long long)d->totals.bytes);
	if (d->budget_bytes)
		fprintf(f, "budget %llu bytes: charged %llu, refused %llu\n", (unsigned long long)d->budget_bytes,
			(unsigned long long)d->charged_bytes, (unsigned long long)d->refused_bytes);
	else
		fprintf(f, "no budget: charged %llu bytes\n", (unsigned long long)d->charged_bytes);
	free(rows);
}

int cli_cache_dirfd(void)
{
	struct symlazy_config cfg;
	struct sl_why why;
	int fd;

	config_load(&cfg, cli_getenv);
	if (!cfg.cache_dir[0])
		return -1;
	fd = sl_cache_dir_open(cfg.cache_dir, &why);
	return fd < 0 ? -1 : fd;
}
