/* SPDX-License-Identifier: MIT */
/*
 * symlazy-addrs - print the addresses perf 6.1 will look up symbols for.
 *
 *   symlazy-addrs [-i perf.data] [-o FILE] [--stats] [--unwind=hybrid|scan|replay|both]
 *
 * Reads a perf.data file or saved pipe-mode stream (core/perfdata.c) and writes the
 * SYMLAZY_ADDRS list ("<build-id-hex> <file-offset-hex>" lines, '#' comments)
 * to FILE or stdout. --stats prints per-DSO counts and global flags instead
 * (or, with -o, in addition, on stdout).
 * Exit: 0 ok, 1 error, 2 unsupported input (not a regular file, e.g. a FIFO; foreign endian).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "perfdata.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: symlazy-addrs [-i perf.data] [-o FILE] [--stats] [--unwind=MODE]\n"
		   "  -i FILE   perf.data to read (default ./perf.data)\n"
		   "  -o FILE   write the SYMLAZY_ADDRS list here (default stdout)\n"
		   "  --stats   print per-DSO address counts and flags\n"
		   "  --unwind=hybrid|scan|replay|both  DWARF frames: replay perf's unwinding\n"
		   "            with libunwind where provably exact, else scan registers and\n"
		   "            stack dumps (hybrid, default); always scan; replay only; both\n");
}

static void print_flags(FILE *f, unsigned flags)
{
	static const struct { unsigned bit; const char *name; } names[] = {
		{ PD_F_DWARF_UNWIND, "dwarf-unwind" },
		{ PD_F_PIPE, "pipe" },
		{ PD_F_LBR_CALLSTACK, "lbr-callstack" },
		{ PD_F_FOREIGN_ENDIAN, "foreign-endian" },
		{ PD_F_NO_SAMPLES, "no-samples" },
	};
	size_t i;
	int any = 0;

	fprintf(f, "flags:");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (flags & names[i].bit) {
			fprintf(f, " %s", names[i].name);
			any = 1;
		}
	fprintf(f, "%s\n", any ? "" : " none");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "stats", no_argument, NULL, 's' },
		{ "unwind", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *in = "perf.data", *outpath = NULL;
	struct pd_result res;
	struct timespec t0, t1;
	char err[512];
	int c, stats = 0, rc, fd = STDOUT_FILENO, unwind = PD_UNWIND_HYBRID;
	size_t i;

	while ((c = getopt_long(argc, argv, "i:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i': in = optarg; break;
		case 'o': outpath = optarg; break;
		case 's': stats = 1; break;
		case 'u':
			if (!strcmp(optarg, "hybrid"))
				unwind = PD_UNWIND_HYBRID;
			else if (!strcmp(optarg, "scan"))
				unwind = PD_UNWIND_SCAN;
			else if (!strcmp(optarg, "replay"))
				unwind = PD_UNWIND_REPLAY;
			else if (!strcmp(optarg, "both"))
				unwind = PD_UNWIND_BOTH;
			else {
				usage(stderr);
				return 1;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 1;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = perfdata_read_unwind(in, elfops_direct(), unwind, &res, err, sizeof(err));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc < 0) {
		fprintf(stderr, "symlazy-addrs: %s\n", err[0] ? err : strerror(-rc));
		if (rc == -ENOTSUP) {
			print_flags(stderr, res.flags);
			return 2;
		}
		return 1;
	}
	if (res.flags & PD_F_LBR_CALLSTACK)
		fprintf(stderr, "symlazy-addrs: warning: LBR call-stack mode: callchains may be "
				"built from branch records\n");
	if (outpath || !stats) {
		if (outpath) {
			fd = open(outpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
			if (fd < 0) {
				fprintf(stderr, "symlazy-addrs: %s: %s\n", outpath, strerror(errno));
				perfdata_free(&res);
				return 1;
			}
		}
		rc = perfdata_write_addrs(&res, fd);
		if (outpath && close(fd) < 0 && rc == 0)
			rc = -errno;
		if (rc < 0) {
			fprintf(stderr, "symlazy-addrs: write %s: %s\n", outpath ? outpath : "stdout",
				strerror(-rc));
			perfdata_free(&res);
			return 1;
		}
	}
	if (stats) {
		double secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
		char hex[2 * PD_BUILD_ID_MAX + 1];

		printf("file: %s\n", in);
		printf("records: %" PRIu64 "  samples: %" PRIu64 "  skipped-samples: %" PRIu64
		       "  unknown-records: %" PRIu64 "  user-ips: %" PRIu64 "\n",
		       res.nr_records, res.nr_samples, res.nr_skipped_samples,
		       res.nr_unknown_records, res.nr_user_ips);
		print_flags(stdout, res.flags);
		printf("read-time: %.3f s  data: %.1f MB  decompressed: %.1f MB  (%.0f MB/s of records)\n",
		       secs, res.data_bytes / 1e6, res.decompressed_bytes / 1e6,
		       secs > 0 ? (res.data_bytes + res.decompressed_bytes) / 1e6 / secs : 0.0);
		if (res.flags & PD_F_DWARF_UNWIND)
			printf("unwind: samples: %" PRIu64 "  scanned: %" PRIu64 "  unsure-samples: %" PRIu64
			       "  stack: %.1f MB  values: %" PRIu64 "  lookups: %" PRIu64 "\n",
			       res.unwind.samples, res.unwind.scanned_samples, res.unwind.unsure_samples,
			       res.unwind.stack_bytes / 1e6, res.unwind.windows,
			       res.unwind.candidates);
		printf("dsos: %zu\n", res.nr_dsos);
		for (i = 0; i < res.nr_dsos; i++) {
			const struct pd_dso *d = &res.dsos[i];

			printf("%8zu %s %s%s\n", d->nr_addrs,
			       d->build_id_size ? build_id_hex(d->build_id, d->build_id_size, hex)
						: "(no-build-id)",
			       d->path ? d->path : "?", d->unsure ? " (unsure: eager)" : "");
		}
	}
	perfdata_free(&res);
	return 0;
}
