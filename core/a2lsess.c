/* SPDX-License-Identifier: MIT */
/*
 * a2lsess.c - perf's addr2line children served without exec (the picture:
 * core/a2lsess.h). The decision is here; what binutils answers is
 * srcline/a2l.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "core/a2lsess.h"
#include "core/session.h"
#include "srcline/a2l.h"
#include "util/util.h"

/* The addr2line whose answers srcline/a2l.c mirrors: GNU binutils 2.40 (Debian
 * 12). binutils/addr2line.c print_version() prints BFD_VERSION_STRING, a
 * literal in the executable: "(GNU Binutils for Debian) 2.40". */
#define SL_A2L_VENDOR  "(GNU Binutils"
#define SL_A2L_BINUTILS ") 2.40"

void sl_a2l_prepare(struct sl_session *s)
{
	void *p;

	if (s->a2l || !s->is_perf || !s->model_matched || !s->model || s->model->a2l_child == SL_A2L_NONE)
		return;
	p = mmap(NULL, sizeof(struct sl_a2l_shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED)
		s->a2l = p;
}

/* claim an entry of the shared page and fill it */
static struct sl_a2l_entry *record(struct sl_session *s, const char *dso, enum sl_a2l_mode mode,
				    enum sl_reason r, const char *detail)
{
	struct sl_a2l_shared *a = s->a2l;
	struct sl_a2l_entry *e;
	uint32_t i;

	if (!a)
		return NULL;
	atomic_fetch_add(mode == SL_A2L_M_SERVED ? &a->served : mode == SL_A2L_M_EXEC ? &a->exec : &a->noinfo, 1);
	i = atomic_fetch_add(&a->n, 1);
	if (i >= SL_A2L_MAX_DSOS)
		return NULL;
	e = &a->e[i];
	e->mode = (uint16_t)mode;
	e->reason = (uint16_t)r;
	snprintf(e->path, sizeof(e->path), "%s", dso ? dso : "");
	snprintf(e->detail, sizeof(e->detail), "%s", detail ? detail : "");
	atomic_thread_fence(memory_order_release);
	e->ready = 1;
	return e;
}

/* The file execvp(@file) would run: glibc posix/execvpe.c searches $PATH (when
 * unset, confstr(_CS_PATH): "/bin:/usr/bin"), an empty entry meaning the
 * current directory, and runs the first executable regular file. */
static int resolve_path(const char *file, const char *pathenv, char *out, size_t n)
{
	const char *p = pathenv ? pathenv : "/bin:/usr/bin";
	struct stat st;

	if (strchr(file, '/')) {
		snprintf(out, n, "%s", file);
		return 0;
	}
	for (;;) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		int w = len ? snprintf(out, n, "%.*s/%s", (int)len, p, file) : snprintf(out, n, "%s", file);

		if (w > 0 && (size_t)w < n && stat(out, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(out, X_OK) == 0)
			return 0;
		if (!end)
			return -ENOENT;
		p = end + 1;
	}
}

/* Is @path the GNU addr2line srcline/a2l.c mirrors? Its version string is a
 * literal in the executable (above); read at most 16 MiB of it. */
static int binutils_mirrored(const char *path)
{
	static const char ver[] = SL_A2L_BINUTILS;   /* with its NUL */
	struct stat st;
	void *m;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok = 0;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size <= (16 << 20)) {
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			ok = memmem(m, (size_t)st.st_size, SL_A2L_VENDOR, sizeof(SL_A2L_VENDOR) - 1) &&
			     memmem(m, (size_t)st.st_size, ver, sizeof(ver)) &&
			     memmem(m, (size_t)st.st_size, "addr2line", 9);
			munmap(m, (size_t)st.st_size);
		}
	}
	close(fd);
	return ok;
}

/* perf's argv for this model: 6.1 {"addr2line", "-e", DSO, "-i", "-f"},
 * 6.12 {"addr2line", "-e", DSO, "-a", "-i", "-f"} (srcline.c
 * addr2line_subprocess_init). Returns the DSO, or NULL. */
static const char *perf_argv(enum sl_a2l_child rule, char *const argv[], int *with_addresses)
{
	static const char *const v61[] = { "-e", NULL, "-i", "-f" };
	static const char *const v612[] = { "-e", NULL, "-a", "-i", "-f" };
	const char *const *want = rule == SL_A2L_ARGV_61 ? v61 : v612;
	size_t n = rule == SL_A2L_ARGV_61 ? 4 : 5, i;

	for (i = 0; i < n; i++) {
		if (!argv[i + 1])
			return NULL;
		if (want[i] && strcmp(argv[i + 1], want[i]))
			return NULL;
	}
	if (argv[n + 1] || !argv[2][0])
		return NULL;
	*with_addresses = rule == SL_A2L_ARGV_612;
	return argv[2];
}

/* every descriptor but stdin/stdout/stderr: the child holds no other pipe
 * end of perf's (an exec would have closed the close-on-exec ones; the rest
 * are perf's other children's pipes, which must see EOF when perf closes
 * them) */
static void close_others(void)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3u, ~0u, 0u) == 0)
		return;
#endif
	for (int fd = 3; fd < 4096; fd++)
		close(fd);
}

/*
 * drop_perf_heap - in the forked child that serves perf's addr2line queries
 * (and never returns to perf's code): give back perf's brk heap, the
 * "[heap]" line of /proc/self/maps, with madvise(MADV_DONTNEED). The child
 * shares perf's pages copy-on-write; every heap page perf writes after the
 * fork would otherwise stay behind as the child's own copy (about 1 MiB per
 * child on a rustc profile, perf 6.1 keeps one child per DSO). From here on
 * the child must not call malloc/free (glibc's main arena points into the
 * zeroed heap): srcline/a2l.c's serving path uses mmap'd buffers only, and
 * a line that would need the heap (a symbol name other than perf's ",")
 * hands the session to the real addr2line (a2l_table.no_heap). Reads of the
 * dropped range see zero pages (environ, when perf's setenv moved it into
 * the heap, then reads empty: the fallback addr2line runs with no
 * environment). Returns 0 when dropped, -errno (nothing changed) otherwise.
 */
static int drop_perf_heap(void)
{
	char buf[4096];
	size_t have = 0;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), r = -ENOENT;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *line = buf, *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = '\0';
		while ((nl = strchr(line, '\n'))) {
			*nl = '\0';
			if (nl - line > 6 && !strcmp(nl - 6, "[heap]")) {
				char *e;
				unsigned long lo = strtoul(line, &e, 16), hi = *e == '-' ? strtoul(e + 1, NULL, 16) : 0;

				r = hi > lo && madvise((void *)lo, hi - lo, MADV_DONTNEED) == 0 ? 0 : -EINVAL;
				close(fd);
				return r;
			}
			line = nl + 1;
		}
		have = (size_t)(buf + have - line);
		if (have == sizeof(buf) - 1)
			have = 0;       /* a line longer than the buffer: not the heap's */
		memmove(buf, line, have);
	}
	close(fd);
	return r;
}

/* bfd_scan_vma(buf, NULL, 16) (bfd/bfd.c): an optional "0x", then hex digits */
static uint64_t scan_hex(const char *p, const char *end)
{
	uint64_t v = 0;

	if (end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (; p < end; p++) {
		int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 :
			*p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;

		if (d < 0)
			break;
		v = v << 4 | (uint64_t)d;
	}
	return v;
}

static int write_all(int fd, const char *b, size_t n)
{
	while (n) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The budget's answer: what GNU addr2line prints for an address it knows
 * nothing about (binutils/addr2line.c translate_addresses: "??" then
 * "??:0", after "0x%016llx" with -a), for every line until EOF. */
static void serve_noinfo(int with_addresses)
{
	char in[4096], out[64];
	size_t have = 0;

	for (;;) {
		ssize_t r = read(0, in + have, sizeof(in) - have);
		char *nl;
		size_t start = 0;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;
		have += (size_t)r;
		while ((nl = memchr(in + start, '\n', have - start)) != NULL || have - start == sizeof(in)) {
			char *end = nl ? nl : in + have;
			int n = 0;

			if (with_addresses)
				n = snprintf(out, sizeof(out), "0x%016llx\n",
					     (unsigned long long)scan_hex(in + start, end));
			n += snprintf(out + n, sizeof(out) - (size_t)n, "??\n??:0\n");
			if (write_all(1, out, (size_t)n) < 0)
				return;
			start = (size_t)(end - in) + (nl ? 1 : 0);
		}
		memmove(in, in + start, have - start);
		have -= start;
	}
}

int sl_session_a2l_exec(struct sl_session *s, const char *file, char *const argv[])
{
	const char *dso, *off, *pathenv;
	char exe[4096], why[512] = "";        /* the budget's detail */
	struct sl_why w = { SL_R_NONE, "" };
	struct a2l_table t;
	struct sl_a2l_entry *e;
	struct stat st0, st1;
	int saved = errno, with_addresses = 0, budget, r;

	if (!s->is_perf || !s->model_matched || !s->model || s->model->a2l_child == SL_A2L_NONE ||
	    !file || !argv || !argv[0] || strcmp(file, "addr2line") || strcmp(argv[0], "addr2line"))
		goto pass;
	if (!(dso = perf_argv(s->model->a2l_child, argv, &with_addresses))) {
		record(s, argv[2] && argv[1] ? argv[2] : "", SL_A2L_M_EXEC, SL_R_A2L_ARGV, argv[1]);
		goto pass;
	}
	off = s->getenv_fn ? s->getenv_fn("SYMLAZY_A2L") : getenv("SYMLAZY_A2L");
	if (off && (!strcmp(off, "0") || !strcmp(off, "off"))) {
		record(s, dso, SL_A2L_M_EXEC, SL_R_A2L_OFF, NULL);
		goto pass;
	}
	/* perf's pipes: anything else is not perf's child */
	if (fstat(0, &st0) || fstat(1, &st1) || !S_ISFIFO(st0.st_mode) || !S_ISFIFO(st1.st_mode))
		goto pass;
	budget = s->cfg.max_bytes != 0;
	pathenv = s->getenv_fn ? s->getenv_fn("PATH") : getenv("PATH");
	if (resolve_path(file, pathenv, exe, sizeof(exe)) < 0)
		goto pass;              /* execvp fails as it would */
	if (!binutils_mirrored(exe)) {
		if (budget)
			goto noinfo_binutils;
		record(s, dso, SL_A2L_M_EXEC, SL_R_A2L_BINUTILS, exe);
		goto pass;
	}
	if ((r = a2l_eligible(dso, &w)) != 1) {
		/* 0: binutils reads debug information; < 0: a file whose symbol
		 * table is not mirrored (unreadable, malformed): w says which */
		if (budget)
			goto noinfo_why;
		record(s, dso, SL_A2L_M_EXEC, w.code, w.detail);
		goto pass;
	}
	if (budget && a2l_has_dwarf(dso)) {
		/* its table is built on the heap, its hand-over would run
		 * binutils on the DWARF: neither under a budget */
		snprintf(why, sizeof(why), "%.300s has DWARF", dso);
		goto noinfo;
	}
	r = a2l_open(dso, s->cache_dirfd, &t, &w);
	if (r < 0) {
		/* SL_R_A2L_DWARF: DWARF outside the mirrored class (srcline/a2l_dwarf.c) */
		if (budget)
			goto noinfo_why;
		record(s, dso, SL_A2L_M_EXEC, w.code, w.detail);
		goto pass;
	}
	snprintf(t.exe, sizeof(t.exe), "%s", exe);    /* the fallback's addr2line */
	e = record(s, dso, SL_A2L_M_SERVED, SL_R_NONE, NULL);
	if (e) {
		/* perf writes its stats before its children see EOF: live counts */
		e->dwarf = t.dh != NULL;
		t.live_answered = &e->answered;
		t.live_handed = &e->handed_over;
	}
	close_others();
	t.no_heap = drop_perf_heap() == 0;
	a2l_serve(0, 1, &t, with_addresses);
	_exit(0);

noinfo_binutils:
	snprintf(why, sizeof(why), "%.200s is not the mirrored GNU addr2line", exe);
	goto noinfo;
noinfo_why:
	sl_why_format(&w, why, sizeof(why));
noinfo:
	record(s, dso, SL_A2L_M_NOINFO, SL_R_A2L_BUDGET, why);
	close_others();
	drop_perf_heap();       /* serve_noinfo: stack buffers only */
	serve_noinfo(with_addresses);
	_exit(0);
pass:
	errno = saved;
	return -1;
}

void sl_a2l_stats_json(FILE *f, const struct sl_a2l_shared *a)
{
	uint32_t n, i;
	uint64_t handed = 0;
	int first = 1;

	if (!a || !(n = atomic_load(&((struct sl_a2l_shared *)a)->n)))
		return;
	for (i = 0; i < n && i < SL_A2L_MAX_DSOS; i++)  /* the children set their flag live */
		if (a->e[i].ready && atomic_load(&((struct sl_a2l_entry *)&a->e[i])->handed_over))
			handed++;
	fprintf(f, ",\"a2l\":{\"served\":%llu,\"handed_over\":%llu,\"addr2line\":%llu,\"noinfo\":%llu,"
		"\"omitted\":%u,\"dsos\":[",
		(unsigned long long)atomic_load(&((struct sl_a2l_shared *)a)->served),
		(unsigned long long)handed,
		(unsigned long long)atomic_load(&((struct sl_a2l_shared *)a)->exec),
		(unsigned long long)atomic_load(&((struct sl_a2l_shared *)a)->noinfo),
		n > SL_A2L_MAX_DSOS ? n - SL_A2L_MAX_DSOS : 0);
	for (i = 0; i < n && i < SL_A2L_MAX_DSOS; i++) {
		const struct sl_a2l_entry *e = &a->e[i];
		static const char *const modes[] = { "?", "served", "addr2line", "noinfo" };

		if (!e->ready)
			continue;
		fprintf(f, "%s\n {\"path\":", first ? "" : ",");
		first = 0;
		stats_json_str(f, e->path);
		fprintf(f, ",\"mode\":\"%s\"", modes[e->mode < 4 ? e->mode : 0]);
		if (e->mode == SL_A2L_M_SERVED)
			fprintf(f, ",\"dwarf\":%s,\"answered\":%llu,\"handed_over\":%s", e->dwarf ? "true" : "false",
				(unsigned long long)atomic_load(&((struct sl_a2l_entry *)e)->answered),
				atomic_load(&((struct sl_a2l_entry *)e)->handed_over) ? "true" : "false");
		if (e->reason != SL_R_NONE) {
			struct sl_why w;
			char text[768];

			sl_why_set(&w, (enum sl_reason)e->reason, "%s", e->detail);
			sl_why_format(&w, text, sizeof(text));
			fprintf(f, ",\"reason_code\":\"%s\",\"reason\":", sl_reason_name((enum sl_reason)e->reason));
			stats_json_str(f, text);
		}
		fputc('}', f);
	}
	fprintf(f, "]}");
}

void sl_a2l_report(const struct sl_a2l_shared *a)
{
	uint64_t n;

	if (a && (n = atomic_load(&((struct sl_a2l_shared *)a)->noinfo)) > 0)
		sl_warnx("symlazy: SYMLAZY_MAX_BYTES: addr2line was not run for %llu DSO%s whose debug information "
			 "it would read; their inline frames and source lines are not shown",
			 (unsigned long long)n, n == 1 ? "" : "s");
}
