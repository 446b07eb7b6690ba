/* SPDX-License-Identifier: MIT */
/*
 * symlazy-ktext - what lazy mode serves perf for a kernel or JIT text file:
 *
 *   symlazy-ktext -i perf.data -k KALLSYMS [-o OUT]    filter a kallsyms text
 *   symlazy-ktext -i perf.data -m PERF-PID.map [-o OUT] filter a perf map
 *
 * Prints one line: mode, records, kept, reason; writes the filtered text to
 * OUT (the whole file when the filter gives up). For tests and debugging;
 * the shim does the same through textsrc/textsrc.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "textsrc/kallsyms.h"
#include "perfdata/perfdata.h"
#include "textsrc/perfmap.h"
#include "textsrc/textsrc.h"

static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *b = NULL;
	size_t n = 0, cap = 0;

	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t r;

		if (n + 65536 > cap) {
			char *nb = realloc(b, cap = (cap ? cap * 2 : 1 << 20));

			if (!nb) {
				free(b);
				close(fd);
				return NULL;
			}
			b = nb;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0) {
			free(b);
			close(fd);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*len = n;
	return b ? b : calloc(1, 1);
}

int main(int argc, char **argv)
{
	const char *in = "perf.data", *ks = NULL, *pm = NULL, *out = NULL;
	struct pd_result res;
	char err[256] = "", why[1024];
	char *buf;
	size_t len;
	int c, rc;

	while ((c = getopt(argc, argv, "i:k:m:o:")) != -1) {
		switch (c) {
		case 'i': in = optarg; break;
		case 'k': ks = optarg; break;
		case 'm': pm = optarg; break;
		case 'o': out = optarg; break;
		default:
			fprintf(stderr, "usage: symlazy-ktext -i perf.data (-k KALLSYMS | -m MAP) [-o OUT]\n");
			return 2;
		}
	}
	if (!ks == !pm) {
		fprintf(stderr, "symlazy-ktext: give one of -k, -m\n");
		return 2;
	}
	rc = perfdata_read(in, NULL, &res, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "symlazy-ktext: %s: %s\n", in, err[0] ? err : strerror(-rc));
		return 1;
	}
	buf = slurp(ks ? ks : pm, &len);
	if (!buf) {
		fprintf(stderr, "symlazy-ktext: %s: %s\n", ks ? ks : pm, strerror(errno));
		return 1;
	}
	{
		struct sl_text t;
		const char *mode;

		rc = sl_text_filter(&res, ks ? SL_TEXT_KALLSYMS : SL_TEXT_PERFMAP, pm, buf, len, 0, 0, &t);
		if (rc < 0) {
			fprintf(stderr, "symlazy-ktext: %s\n", strerror(-rc));
			return 1;
		}
		sl_why_format(&t.why, why, sizeof(why));
		mode = t.filtered ? "filtered" : "whole";
		printf("mode=%s records=%llu symbols=%llu kept=%llu kernel_addrs=%zu bytes=%zu/%zu reason=%s%s%s\n",
		       mode, (unsigned long long)t.records, (unsigned long long)t.symbols,
		       (unsigned long long)t.kept, res.kern.nr_addrs, t.filtered ? t.len : len, len,
		       t.why.code ? sl_reason_name(t.why.code) : "-", t.why.code ? ": " : "",
		       t.why.code ? why : "");
		if (out) {
			FILE *f = fopen(out, "w");

			if (!f || fwrite(t.filtered ? t.text : buf, 1, t.filtered ? t.len : len, f) !=
				      (t.filtered ? t.len : len) || fclose(f)) {
				fprintf(stderr, "symlazy-ktext: %s: %s\n", out, strerror(errno));
				return 1;
			}
		}
		sl_text_free(&t);
	}
	free(buf);
	perfdata_free(&res);
	return 0;
}
