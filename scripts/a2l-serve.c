/* SPDX-License-Identifier: MIT */
/*
 * a2l-serve - GNU addr2line 2.40 `-e FILE -i -f` (with -a: `-a -i -f`) on
 * stdin/stdout from srcline/a2l.h, for the differential test
 * tests/integration/a2l.sh:
 *   a2l-serve [-a] [-C CACHEDIR] FILE      serve stdin until EOF
 *   a2l-serve --eligible FILE              print "1", or "0 <reason>" (debug information) or "-errno <reason>"; exit 0 / 1
 * Exit status 2 on errors (reason on stderr).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "index/cache.h"
#include "srcline/a2l.h"
#include "util/reason.h"

static struct a2l_table tab;

int main(int argc, char **argv)
{
	const char *cache = NULL, *file = NULL;
	int with_addresses = 0, eligible = 0, dirfd = -1, r;
	struct sl_why w = { SL_R_NONE, "" };
	char why[SL_WHY_DETAIL + 128];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-a"))
			with_addresses = 1;
		else if (!strcmp(argv[i], "--eligible"))
			eligible = 1;
		else if (!strcmp(argv[i], "-C") && i + 1 < argc)
			cache = argv[++i];
		else
			file = argv[i];
	}
	if (!file) {
		fprintf(stderr, "usage: a2l-serve [-a] [-C CACHEDIR] FILE | --eligible FILE\n");
		return 2;
	}
	if (eligible) {
		r = a2l_eligible(file, &w);
		sl_why_format(&w, why, sizeof(why));
		printf(r == 1 ? "1\n" : "%d %s\n", r, why);
		return r == 1 ? 0 : 1;
	}
	if (cache) {
		dirfd = sl_cache_dir_open(cache, &w);
		if (dirfd < 0) {
			fprintf(stderr, "a2l-serve: %s: cannot open cache dir\n", cache);
			return 2;
		}
	}
	r = a2l_open(file, dirfd, &tab, &w);
	if (r < 0) {
		sl_why_format(&w, why, sizeof(why));
		fprintf(stderr, "a2l-serve: %s\n", why);
		return 2;
	}
	if (getenv("ADDR2LINE"))
		snprintf(tab.exe, sizeof(tab.exe), "%s", getenv("ADDR2LINE"));
	r = a2l_serve(0, 1, &tab, with_addresses);
	if (getenv("A2L_SERVE_STATS"))
		fprintf(stderr, "a2l-serve: answered %llu%s\n", (unsigned long long)tab.answered,
			tab.need_real ? ", then handed over to binutils" : "");
	a2l_close(&tab);
	if (dirfd >= 0)
		close(dirfd);
	if (r < 0) {
		fprintf(stderr, "a2l-serve: %s\n", strerror(-r));
		return 2;
	}
	return 0;
}
