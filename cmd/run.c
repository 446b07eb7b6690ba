/* SPDX-License-Identifier: MIT */
/*
 * run.c - `symlazy run [--budget N] [--stats[=FILE]] [--summary=FILE]
 * [--lazy auto|on|off] -- CMD...`: run CMD with LD_PRELOAD=libsymlazy.so
 * and SYMLAZY_STATS=<file>, poll the peak RssAnon of the process it execs
 * (/proc/PID/status every 2 ms, as scripts/peakrss.c does; Debian's
 * /usr/bin/perf wrapper execs perf_<version> in the same pid), and after CMD
 * ends print a one-screen summary on stderr (or to --summary=FILE). CMD's
 * own stdin/stdout/stderr are inherited untouched. Exit status: CMD's, or
 * 128+signal if it was killed; 127/126 if it could not be executed.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "core/config.h"
#include "core/statsjson.h"
#include "core/tool.h"

static const char *const SUB = "run";
static volatile sig_atomic_t child_pid;

static const char USAGE[] =
	"usage: symlazy run [--budget N] [--stats[=FILE]] [--summary=FILE] [--lazy auto|on|off] -- CMD...\n"
	"Run CMD with libsymlazy.so preloaded and print a summary on stderr after it ends:\n"
	"lazy on/off and why, per symbol table the mode and symbols kept/scanned, bytes\n"
	"charged, peak RssAnon (of CMD's own process, polled every 2 ms; children are not\n"
	"counted) and wall time. CMD's output is untouched.\n"
	"  --budget N        SYMLAZY_MAX_BYTES=N: strict symbol budget, <n>[K|M|G|T] (e.g. 64M)\n"
	"  --lazy MODE       SYMLAZY_LAZY=auto|on|off\n"
	"  --stats[=FILE]    keep the stats JSON in FILE; without FILE, every scan in the summary\n"
	"  --summary=FILE    write the summary to FILE instead of stderr\n"
	"The library: $SYMLAZY_LIB, else ../lib/libsymlazy.so next to this binary, else\n"
	"../lib/MULTIARCH/libsymlazy.so (Debian's package), else ../libsymlazy.so (a build\n"
	"tree). Exit: CMD's status (128+signal if killed), 126/127 if CMD cannot be run,\n"
	"1 if symlazy itself fails, 2 usage.\n";

static void forward(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

static long status_kb(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);

	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* LD_PRELOAD for the child: the library first, other entries kept, older
 * symlazy entries dropped (core/tool.c sl_preload_without_self). */
static char *preload_value(const char *lib)
{
	const char *lp = getenv("LD_PRELOAD");
	size_t n = (lp ? strlen(lp) : 0) + strlen(lib) + 2;
	char *rest = malloc(n), *out = malloc(n);

	if (!rest || !out) {
		free(rest);
		free(out);
		return NULL;
	}
	if (!lp || !sl_preload_without_self(lp, rest, n))
		snprintf(rest, n, "%s", lp ? lp : "");
	snprintf(out, n, "%s%s%s", lib, rest[0] ? ":" : "", rest);
	free(rest);
	return out;
}

static void print_cmdline(FILE *f, char **argv)
{
	int len = 0;

	for (; *argv; argv++) {
		if (len > 200) {
			fputs(" ...", f);
			break;
		}
		len += fprintf(f, " %s", *argv);
	}
}

static void summary(FILE *f, char **cmd, const char *lib, const char *stats_path, int keep_stats,
		    int all_rows, long peak_kb, double wall, int code)
{
	struct sl_stats_doc doc;
	char err[256];
	struct stat st;
	int r;

	fprintf(f, "symlazy run:");
	print_cmdline(f, cmd);
	fprintf(f, "\n  shim: %s\n", lib);
	if (stat(stats_path, &st) == 0 && st.st_size == 0) {
		fprintf(f, "  no stats: CMD made no libelf call through the shim (not a libelf tool, a static\n"
			   "  binary, setuid/capabilities dropping LD_PRELOAD, or SYMLAZY_DISABLE=1)\n");
	} else if ((r = sl_stats_load(stats_path, &doc, err, sizeof(err))) < 0) {
		fprintf(f, "  no stats: %s: %s\n", stats_path, err);
	} else {
		char *buf = NULL;
		size_t len = 0;
		FILE *t = open_memstream(&buf, &len);

		/* the table, indented by two spaces */
		if (t) {
			cli_stats_table(t, &doc, all_rows ? 0 : 12, all_rows);
			if (fclose(t) == 0 && buf)
				for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
					fprintf(f, "  %s\n", line);
			free(buf);
		}
		sl_stats_free(&doc);
	}
	fprintf(f, "  peak RssAnon %.1f MiB, wall %.2f s, exit %d", peak_kb < 0 ? 0.0 : peak_kb / 1024.0, wall, code);
	if (keep_stats)
		fprintf(f, ", stats in %s", stats_path);
	fputc('\n', f);
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "budget", required_argument, NULL, 'b' },
		{ "stats", optional_argument, NULL, 's' },
		{ "summary", required_argument, NULL, 'S' },
		{ "lazy", required_argument, NULL, 'l' },
		CLI_OPTS_END,
	};
	const char *budget = NULL, *stats_file = NULL, *summary_file = NULL, *lazy = NULL, *how;
	char lib[PATH_MAX], stats_path[PATH_MAX], path[64], buf[4096], *preload;
	int c, all_rows = 0, fd = -1, status = 0, code, sfd, ep[2];
	long peak = -1;
	uint64_t bytes;
	struct sigaction sa, old_term, old_hup, old_int, old_quit;
	struct timespec tick = { 0, 2000000 };
	double t0, wall;
	FILE *out = stderr;
	pid_t pid;

	optind = 1;
	while ((c = cli_getopt(SUB, USAGE, argc, argv, "+:h", opts)) != -1) {
		switch (c) {
		case 'b': budget = optarg; break;
		case 's': if (optarg) stats_file = optarg; else all_rows = 1; break;
		case 'S': summary_file = optarg; break;
		case 'l': lazy = optarg; break;
		case 'h': return CLI_OK;
		default: return CLI_USAGE;
		}
	}
	if (optind >= argc) {
		cli_err(SUB, "missing CMD (symlazy run [OPTIONS] -- CMD...)");
		return CLI_USAGE;
	}
	if (budget && config_parse_size(budget, &bytes) < 0) {
		cli_err(SUB, "bad --budget '%s' (expected <n>[K|M|G|T], e.g. 64M)", budget);
		return CLI_USAGE;
	}
	if (lazy && strcmp(lazy, "auto") && strcmp(lazy, "on") && strcmp(lazy, "off")) {
		cli_err(SUB, "bad --lazy '%s' (expected auto, on or off)", lazy);
		return CLI_USAGE;
	}
	if (cli_find_lib(lib, sizeof(lib), &how) < 0) {
		cli_err(SUB, "libsymlazy.so not found (tried %s via %s; set SYMLAZY_LIB)", lib, how);
		return CLI_FAIL;
	}
	if (summary_file && !(out = fopen(summary_file, "we"))) {
		cli_err(SUB, "%s: %s", summary_file, strerror(errno));
		return CLI_FAIL;
	}
	if (stats_file) {
		char cwd[PATH_MAX];

		/* absolute: the shim opens it from CMD's working directory */
		if (stats_file[0] != '/' && getcwd(cwd, sizeof(cwd)))
			cli_path(stats_path, "%s/%s", cwd, stats_file);
		else
			cli_path(stats_path, "%s", stats_file);
		if (!stats_path[0]) {
			cli_err(SUB, "--stats path too long");
			return CLI_USAGE;
		}
		sfd = open(stats_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	} else {
		const char *tmp = getenv("TMPDIR");

		snprintf(stats_path, sizeof(stats_path), "%s/symlazy-run-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		sfd = mkostemp(stats_path, O_CLOEXEC);
	}
	if (sfd < 0) {
		cli_err(SUB, "%s: %s", stats_path, strerror(errno));
		if (out != stderr)
			fclose(out);
		return CLI_FAIL;
	}
	close(sfd);
	if (!(preload = preload_value(lib))) {
		cli_err(SUB, "out of memory");
		return CLI_FAIL;
	}
	/* a close-on-exec pipe tells an exec failure (errno) from CMD's own exit */
	if (pipe2(ep, O_CLOEXEC) < 0) {
		cli_err(SUB, "pipe: %s", strerror(errno));
		return CLI_FAIL;
	}
	fflush(NULL);
	t0 = now_s();
	pid = fork();
	if (pid < 0) {
		cli_err(SUB, "fork: %s", strerror(errno));
		return CLI_FAIL;
	}
	if (pid == 0) {
		int e;

		close(ep[0]);
		setenv("LD_PRELOAD", preload, 1);
		setenv("SYMLAZY_STATS", stats_path, 1);
		if (budget)
			setenv("SYMLAZY_MAX_BYTES", budget, 1);
		if (lazy)
			setenv("SYMLAZY_LAZY", lazy, 1);
		execvp(argv[optind], argv + optind);
		e = errno;
		cli_err(SUB, "%s: %s", argv[optind], strerror(e));
		if (write(ep[1], &e, sizeof(e)) < 0)
			_exit(126);
		_exit(e == ENOENT ? 127 : 126);
	}
	free(preload);
	close(ep[1]);
	child_pid = pid;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	/* the terminal sends ^C / ^\ to CMD too: outlive it to print the summary */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGQUIT, &sa, &old_quit);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	for (;;) {
		pid_t w;

		if (fd >= 0) {
			ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

			if (n > 0) {
				long v;

				buf[n] = '\0';
				if ((v = status_kb(buf, "RssAnon:")) > peak)
					peak = v;
			}
		}
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			cli_err(SUB, "waitpid: %s", strerror(errno));
			return CLI_FAIL;
		}
		nanosleep(&tick, NULL);
	}
	wall = now_s() - t0;
	if (fd >= 0)
		close(fd);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	{
		int e;
		ssize_t k;

		do
			k = read(ep[0], &e, sizeof(e));
		while (k < 0 && errno == EINTR);
		close(ep[0]);
		if (k == (ssize_t)sizeof(e)) {      /* CMD never ran: no summary */
			if (out != stderr)
				fclose(out);
			if (!stats_file)
				unlink(stats_path);
			return e == ENOENT ? 127 : 126;
		}
	}
	if (WIFEXITED(status))
		code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		code = 128 + WTERMSIG(status);
	else
		code = 255;
	summary(out, argv + optind, lib, stats_path, stats_file != NULL, all_rows, peak, wall, code);
	if (out != stderr && fclose(out) != 0)
		cli_err(SUB, "%s: %s", summary_file, strerror(errno));
	if (!stats_file)
		unlink(stats_path);
	return code;
}
