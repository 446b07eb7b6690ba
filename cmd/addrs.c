/* SPDX-License-Identifier: MIT */
/*
 * addrs.c - `symlazy addrs [-i perf.data] [-o FILE] [--stats]`: the
 * addresses perf 6.1 will look up symbols for (perfdata/perfdata.c), as the
 * SYMLAZY_ADDRS list ("<build-id-hex> <file-offset-hex>" lines, '#'
 * comments) on FILE or stdout. --stats prints per-DSO counts and the
 * reader's flags instead (with -o, in addition, on stdout).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "perfdata/perfdata.h"

static const char *const SUB = "addrs";

static const char USAGE[] =
	"usage: symlazy addrs [-i perf.data] [-o FILE] [--stats] [--unwind=MODE]\n"
	"Write the SYMLAZY_ADDRS list of a perf.data file: one \"<build-id> <file-offset>\"\n"
	"line (hex) per address perf 6.1 will look up a symbol for, per DSO with a build-id.\n"
	"  -i, --input FILE   perf.data to read (default ./perf.data)\n"
	"  -o, --output FILE  write the list here (default stdout)\n"
	"      --stats        print per-DSO address counts and the reader's flags\n"
	"      --unwind=hybrid|scan|replay|both  DWARF frames: replay perf's unwinding with\n"
	"                     libunwind where provably exact, else scan registers and stack\n"
	"                     dumps (hybrid, the default); always scan; replay only; both\n"
	"Exit: 0 ok, 1 unreadable or unsupported input (pipe mode, foreign endian), 2 usage.\n";

static void print_flags(FILE *f, unsigned flags)
{
	static const struct { unsigned bit; const char *name; } names[] = {
		{ PD_F_DWARF_UNWIND, "dwarf-unwind" },
		{ PD_F_PIPE, "pipe" },
		{ PD_F_LBR_CALLSTACK, "lbr-callstack" },
		{ PD_F_FOREIGN_ENDIAN, "foreign-endian" },
		{ PD_F_NO_SAMPLES, "no-samples" },
	};
	int any = 0;

	fprintf(f, "flags:");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (flags & names[i].bit) {
			fprintf(f, " %s", names[i].name);
			any = 1;
		}
	fprintf(f, "%s\n", any ? "" : " none");
}

static void print_stats(const char *in, const struct pd_result *res, double secs)
{
	char hex[2 * PD_BUILD_ID_MAX + 1];

	printf("file: %s\n", in);
	printf("records: %" PRIu64 "  samples: %" PRIu64 "  skipped-samples: %" PRIu64
	       "  unknown-records: %" PRIu64 "  user-ips: %" PRIu64 "\n",
	       res->nr_records, res->nr_samples, res->nr_skipped_samples, res->nr_unknown_records,
	       res->nr_user_ips);
	print_flags(stdout, res->flags);
	printf("read-time: %.3f s  data: %.1f MB  decompressed: %.1f MB  (%.0f MB/s of records)\n",
	       secs, res->data_bytes / 1e6, res->decompressed_bytes / 1e6,
	       secs > 0 ? (res->data_bytes + res->decompressed_bytes) / 1e6 / secs : 0.0);
	if (res->flags & PD_F_DWARF_UNWIND)
		printf("unwind: samples: %" PRIu64 "  scanned: %" PRIu64 "  unsure-samples: %" PRIu64
		       "  stack: %.1f MB  values: %" PRIu64 "  lookups: %" PRIu64 "\n",
		       res->unwind.samples, res->unwind.scanned_samples, res->unwind.unsure_samples,
		       res->unwind.stack_bytes / 1e6, res->unwind.windows, res->unwind.candidates);
	printf("dsos: %zu\n", res->nr_dsos);
	for (size_t i = 0; i < res->nr_dsos; i++) {
		const struct pd_dso *d = &res->dsos[i];

		printf("%8zu %s %s%s\n", d->nr_addrs,
		       d->build_id_size ? build_id_hex(d->build_id, d->build_id_size, hex) : "(no-build-id)",
		       d->path ? d->path : "?", d->unsure ? " (unsure: eager)" : "");
	}
}

int cmd_addrs(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "stats", no_argument, NULL, 's' },
		{ "unwind", required_argument, NULL, 'u' },
		CLI_OPTS_END,
	};
	const char *in = "perf.data", *outpath = NULL;
	struct pd_result res;
	struct timespec t0, t1;
	char err[512] = "";
	int c, stats = 0, rc, fd = STDOUT_FILENO, unwind = PD_UNWIND_HYBRID;

	optind = 1;
	while ((c = cli_getopt(SUB, USAGE, argc, argv, "+:i:o:h", opts)) != -1) {
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
				cli_err(SUB, "--unwind: expected hybrid, scan, replay or both, not '%s'", optarg);
				return CLI_USAGE;
			}
			break;
		case 'h': return CLI_OK;
		default: return CLI_USAGE;
		}
	}
	if (optind != argc) {
		cli_err(SUB, "unexpected argument '%s' (see symlazy addrs --help)", argv[optind]);
		return CLI_USAGE;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = perfdata_read_unwind(in, elfops_direct(), unwind, &res, err, sizeof(err));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc < 0) {
		/* the reader's message names the file already */
		if (err[0] && strstr(err, in))
			cli_err(SUB, "%s%s", err, rc == -ENOTSUP && !strstr(err, "support") ? " (unsupported)" : "");
		else
			cli_err(SUB, "%s: %s", in, err[0] ? err : strerror(-rc));
		return CLI_FAIL;
	}
	if (res.flags & PD_F_LBR_CALLSTACK)
		cli_err(SUB, "warning: LBR call-stack mode: callchains may be built from branch records");
	if (outpath || !stats) {
		if (outpath) {
			fd = open(outpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
			if (fd < 0) {
				cli_err(SUB, "%s: %s", outpath, strerror(errno));
				perfdata_free(&res);
				return CLI_FAIL;
			}
		}
		rc = perfdata_write_addrs(&res, fd);
		if (outpath && close(fd) < 0 && rc == 0)
			rc = -errno;
		if (rc < 0) {
			cli_err(SUB, "write %s: %s", outpath ? outpath : "stdout", strerror(-rc));
			perfdata_free(&res);
			return CLI_FAIL;
		}
	}
	if (stats)
		print_stats(in, &res, (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	perfdata_free(&res);
	return cli_flush_stdout(SUB);
}
