/* SPDX-License-Identifier: MIT */
/*
 * peakrss - run a command and report its peak memory, sampled from /proc.
 *
 *   peakrss [-o FILE] [-i USEC] [-t] -- cmd args...
 *
 * Forks and execs cmd (PATH search), then polls /proc/PID/status every USEC
 * microseconds (default 2000) for RssAnon, RssFile and VmHWM and keeps the
 * largest value seen of each. When the command exits it prints one line to
 * FILE (truncated) or, without -o, to stderr:
 *
 *   peak_rss_anon_kb=N peak_rss_file_kb=N vm_hwm_kb=N wall_ms=N exit=N cpu_ms=N
 *
 * (cpu_ms: user + system time of the command and the children it waited
 * for, from wait4(); on a shared machine a steadier measure than wall_ms)
 *
 * and exits with the command's status (128+signal when it was killed, 127
 * when it could not be executed). The command's stdin/stdout/stderr are
 * inherited unchanged.
 *
 * -t (the process tree, e.g. perf and its addr2line children) adds
 *   peak_tree_rss_anon_kb=N peak_tree_pss_anon_kb=N
 * the largest sum, over the command and its direct children (PPid in
 * /proc/PID/status), of RssAnon, and of Pss_Anon from /proc/PID/smaps_rollup
 * (anonymous pages a forked child still shares with its parent are counted
 * once, in shares, by Pss_Anon, and in full in every process by RssAnon).
 * With -t the default interval is 20000 us.
 *
 * Accuracy: RssAnon/RssFile are instantaneous values, so their peaks are
 * samples (a spike shorter than USEC can be missed). VmHWM is the kernel's own
 * high-water mark of total RSS (anon + file + shmem); the last poll before the
 * exit can be up to USEC old, so vm_hwm_kb is max(last polled VmHWM, wait4()
 * ru_maxrss). Only the top process is polled, not its children (perf's
 * addr2line/objdump helpers are not counted, except through ru_maxrss).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct mem_peaks {
	long rss_anon_kb;   /* largest RssAnon seen, KiB (-1: never read) */
	long rss_file_kb;   /* largest RssFile seen, KiB (-1: never read) */
	long vm_hwm_kb;     /* largest VmHWM seen, KiB (-1: never read) */
};

static volatile sig_atomic_t child_pid;

/*
 * Value of the "<key>  N kB" line in a /proc/PID/status buffer, in KiB;
 * -1 when the key is absent (e.g. a kernel thread or a zombie).
 * key includes the colon, e.g. "RssAnon:".
 */
long status_field_kb(const char *buf, const char *key)
{
	size_t klen = strlen(key);
	const char *p = buf;

	while (p && *p) {
		if (strncmp(p, key, klen) == 0)
			return strtol(p + klen, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

/*
 * Read /proc/PID/status once through the open descriptor fd and raise the
 * peaks in *pk (all KiB). Returns 0, or -1 when the file could not be read
 * (process gone).
 */
int poll_status(int fd, struct mem_peaks *pk)
{
	char buf[8192];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	long v;

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if ((v = status_field_kb(buf, "RssAnon:")) > pk->rss_anon_kb)
		pk->rss_anon_kb = v;
	if ((v = status_field_kb(buf, "RssFile:")) > pk->rss_file_kb)
		pk->rss_file_kb = v;
	if ((v = status_field_kb(buf, "VmHWM:")) > pk->vm_hwm_kb)
		pk->vm_hwm_kb = v;
	return 0;
}

/* the "<key> N kB" value of /proc/PID/<file>, KiB, -1 if unreadable */
static long proc_kb(long pid, const char *file, const char *key)
{
	char path[64], buf[8192];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/%s", pid, file);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return status_field_kb(buf, key);
}

/* -t: RssAnon and Pss_Anon summed over @pid and its direct children */
static void poll_tree(long pid, long *rss_peak, long *pss_peak)
{
	long rss = proc_kb(pid, "status", "RssAnon:"), pss = proc_kb(pid, "smaps_rollup", "Pss_Anon:");
	struct dirent *de;
	DIR *d;

	if (rss < 0)
		return;
	if (pss < 0)
		pss = 0;
	if ((d = opendir("/proc")) != NULL) {
		while ((de = readdir(d)) != NULL) {
			long c = strtol(de->d_name, NULL, 10), v;

			if (c <= 0 || c == pid || proc_kb(c, "status", "PPid:") != pid)
				continue;
			if ((v = proc_kb(c, "status", "RssAnon:")) > 0)
				rss += v;
			if ((v = proc_kb(c, "smaps_rollup", "Pss_Anon:")) > 0)
				pss += v;
		}
		closedir(d);
	}
	if (rss > *rss_peak)
		*rss_peak = rss;
	if (pss > *pss_peak)
		*pss_peak = pss;
}

/* Monotonic clock in milliseconds. */
static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Forward termination signals to the child (SIGINT/SIGQUIT reach it via the tty). */
static void forward(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

static void usage(void)
{
	fprintf(stderr, "usage: peakrss [-o FILE] [-i USEC] [-t] -- cmd args...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct mem_peaks pk = { -1, -1, -1 };
	const char *outpath = NULL;
	long interval_us = 0, tree_rss = -1, tree_pss = -1;
	int tree = 0;
	struct rusage ru;
	struct timespec ts;
	struct sigaction sa;
	double t0, wall;
	int opt, status = 0, fd = -1, code;
	pid_t pid, w;
	char path[64];
	FILE *out = stderr;

	while ((opt = getopt(argc, argv, "+o:i:th")) != -1) {
		switch (opt) {
		case 't': tree = 1; break;
		case 'o': outpath = optarg; break;
		case 'i': interval_us = strtol(optarg, NULL, 10); break;
		default: usage();
		}
	}
	if (!interval_us)
		interval_us = tree ? 20000 : 2000;
	if (optind >= argc || interval_us <= 0)
		usage();
	if (outpath && !(out = fopen(outpath, "we"))) {
		fprintf(stderr, "peakrss: %s: %s\n", outpath, strerror(errno));
		return 2;
	}

	t0 = now_ms();
	pid = fork();
	if (pid < 0) {
		perror("peakrss: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "peakrss: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	child_pid = pid;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ts.tv_sec = interval_us / 1000000;
	ts.tv_nsec = (interval_us % 1000000) * 1000;
	for (;;) {
		if (fd >= 0)
			poll_status(fd, &pk);
		if (tree)
			poll_tree((long)pid, &tree_rss, &tree_pss);
		w = wait4(pid, &status, WNOHANG, &ru);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			perror("peakrss: wait4");
			return 2;
		}
		nanosleep(&ts, NULL);
	}
	wall = now_ms() - t0;
	if (fd >= 0)
		close(fd);
	if (ru.ru_maxrss > pk.vm_hwm_kb)   /* ru_maxrss is in KiB on Linux */
		pk.vm_hwm_kb = ru.ru_maxrss;

	if (WIFEXITED(status))
		code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		code = 128 + WTERMSIG(status);
	else
		code = 255;
	fprintf(out, "peak_rss_anon_kb=%ld peak_rss_file_kb=%ld vm_hwm_kb=%ld wall_ms=%ld exit=%d cpu_ms=%ld",
		pk.rss_anon_kb < 0 ? 0 : pk.rss_anon_kb, pk.rss_file_kb < 0 ? 0 : pk.rss_file_kb,
		pk.vm_hwm_kb < 0 ? 0 : pk.vm_hwm_kb, (long)(wall + 0.5), code,
		(long)((ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000L +
		       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000));
	if (tree)
		fprintf(out, " peak_tree_rss_anon_kb=%ld peak_tree_pss_anon_kb=%ld", tree_rss < 0 ? 0 : tree_rss,
			tree_pss < 0 ? 0 : tree_pss);
	fputc('\n', out);
	if (out != stderr)
		fclose(out);
	return code;
}
