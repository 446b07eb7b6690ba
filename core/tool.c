/* SPDX-License-Identifier: MIT */
/*
 * core/tool.c - which tool this process is (by its executable's name), which
 * model applies (by the version literal in its image, the verdict cached per
 * executable), which model its own scans are charged with, and the process
 * helpers the shim needs around it (cmdline, LD_PRELOAD without the shim).
 * The models are core/model/ (core/models.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/models.h"
#include "core/tool.h"
#include "util/util.h"

enum sl_tool sl_tool_from_exe(const char *path)
{
	const char *base, *v;

	if (!path || !path[0])
		return SL_TOOL_OTHER;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!strcmp(base, "bpftrace"))
		return SL_TOOL_BPFTRACE;
	if (!strcmp(base, "uftrace"))
		return SL_TOOL_UFTRACE;
	if (!strcmp(base, "eu-nm") || !strcmp(base, "eu-readelf") || !strcmp(base, "eu-objdump"))
		return SL_TOOL_LISTER;
	if (strncmp(base, "perf", 4))
		return SL_TOOL_OTHER;
	v = base + 4;
	if (!*v)
		return SL_TOOL_PERF;
	if ((*v != '_' && *v != '-') || !(v[1] >= '0' && v[1] <= '9'))
		return SL_TOOL_OTHER;
	return strspn(v + 1, "0123456789.") == strlen(v + 1) ? SL_TOOL_PERF : SL_TOOL_OTHER;
}

enum sl_tool sl_tool_self(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return SL_TOOL_OTHER;
	exe[n] = '\0';
	return sl_tool_from_exe(exe);
}

static const struct sl_tool_model *const bpftrace_models[] = { &sl_model_bpftrace023, &sl_model_bpftrace017 };

/* The one model of @models (@n) whose version probe matches the image, or
 * NULL if none or several do (an image holding two version literals is no
 * version we know). */
static const struct sl_tool_model *only_match(const struct sl_tool_model *const *models, size_t n,
					      const char *img, size_t len)
{
	const struct sl_tool_model *m = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!models[i]->image_matches(img, len))
			continue;
		if (m)
			return NULL;
		m = models[i];
	}
	return m;
}

const struct sl_tool_model *sl_bpftrace_model_for_image(const char *img, size_t len)
{
	return only_match(bpftrace_models, sizeof(bpftrace_models) / sizeof(bpftrace_models[0]), img, len);
}

static int open_self_exe(struct stat *st);

/* The bpftrace model of this process's executable, found once (a read of
 * the executable: Debian's bpftrace 0.23 is 6 MB); an unknown version gets
 * the conservative model of any other tool (core/model/other.c). */
static const struct sl_tool_model *bpftrace_self_model(void)
{
	static const struct sl_tool_model *cached;
	const struct sl_tool_model *m = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
	struct stat st;
	void *img;
	int fd;

	if (m)
		return m;
	m = &sl_model_other;
	if ((fd = open_self_exe(&st)) >= 0) {
		img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		close(fd);
		if (img != MAP_FAILED) {
			const struct sl_tool_model *b = sl_bpftrace_model_for_image(img, (size_t)st.st_size);

			if (b)
				m = b;
			munmap(img, (size_t)st.st_size);
		}
	}
	__atomic_store_n(&cached, m, __ATOMIC_RELEASE);
	return m;
}

int sl_bcc_version_of_file(const char *path, char *buf, size_t n)
{
	static const char *const stems[] = { "libbcc.so.", "libbcc_bpf.so." };
	const char *base, *v = NULL;
	size_t i, len;

	if (n)
		buf[0] = '\0';
	if (!path)
		return 0;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (i = 0; i < sizeof(stems) / sizeof(stems[0]) && !v; i++)
		if (!strncmp(base, stems[i], strlen(stems[i])))
			v = base + strlen(stems[i]);
	/* X.Y.Z: three dot-separated numbers, nothing after */
	if (!v || !*v || strspn(v, "0123456789.") != strlen(v))
		return 0;
	{
		int dots = 0;
		const char *p;

		for (p = v; *p; p++)
			if (*p == '.' && (p == v || p[-1] == '.' || !p[1] || ++dots > 2))
				return 0;
		if (dots != 2)
			return 0;
	}
	len = strlen(v);
	if (len + 1 > n)
		return 0;
	memcpy(buf, v, len + 1);
	return 1;
}

static const struct sl_bcc_models bcc_models[] = {
	{ "0.26", &sl_model_bcc026_lazy, &sl_model_bcc026, &sl_model_bcc026_build },
	{ "0.31", &sl_model_bcc031_lazy, &sl_model_bcc031, &sl_model_bcc031_build },
};

const struct sl_bcc_models *sl_bcc_models_for_version(const char *v)
{
	size_t i, k;

	if (!v)
		return NULL;
	for (i = 0; i < sizeof(bcc_models) / sizeof(bcc_models[0]); i++) {
		k = strlen(bcc_models[i].version);
		if (!strncmp(v, bcc_models[i].version, k) && v[k] == '.' && v[k + 1] >= '0' && v[k + 1] <= '9')
			return &bcc_models[i];
	}
	return NULL;
}

const struct sl_tool_model *sl_charge_model(enum sl_tool tool, int argc, char *const argv[])
{
	switch (tool) {
	case SL_TOOL_PERF: {
		int sub = argc > 0 && argv ? perf61_subcommand(argc, argv) : -1;

		return sub > 0 && !strcmp(argv[sub], "probe") ? &sl_model_perf61_probe : &sl_model_perf61;
	}
	case SL_TOOL_BPFTRACE:
		return bpftrace_self_model();
	case SL_TOOL_UFTRACE:
		return &sl_model_uftrace013;
	default:
		return &sl_model_other;
	}
}

/* Models per tool, newest first; the first is the default for LAZY=on
 * (a perf newer than the newest model is closest to that one). */
static const struct sl_tool_model *const perf_models[] = { &sl_model_perf72, &sl_model_perf612,
							    &sl_model_perf61 };

const struct sl_tool_model *sl_model_for_image(enum sl_tool tool, const char *img, size_t len)
{
	if (tool != SL_TOOL_PERF)
		return NULL;
	return only_match(perf_models, sizeof(perf_models) / sizeof(perf_models[0]), img, len);
}

size_t sl_models_for_tool(enum sl_tool tool, const struct sl_tool_model *const **models)
{
	if (tool != SL_TOOL_PERF) {
		*models = NULL;
		return 0;
	}
	*models = perf_models;
	return sizeof(perf_models) / sizeof(perf_models[0]);
}

int sl_model_versions(enum sl_tool tool, char *buf, size_t n)
{
	const struct sl_tool_model *const *ms;
	size_t k = sl_models_for_tool(tool, &ms), at = 0;
	int len = 0;

	if (n)
		buf[0] = '\0';
	/* oldest first, as people list versions */
	while (k-- > 0) {
		int r = snprintf(buf + at, n - at, "%s%s", len ? ", " : "",
				 ms[k]->versions ? ms[k]->versions : ms[k]->sym.name);

		if (r < 0)
			return r;
		len += r;
		at = (size_t)len < n ? (size_t)len : n ? n - 1 : 0;
	}
	return len;
}

const struct sl_tool_model *sl_model_for_self(enum sl_tool tool, const struct sl_tool_model **any_model)
{
	return sl_model_for_self_version(tool, any_model, NULL, 0);
}

/* The model whose version probe matches the executable open at @fd (@st:
 * its fstat; the fd is closed), and the version literal found when none
 * does (into @version, @n bytes, may be 0). *@scanned (may be NULL): 1 if
 * the image could be read, so that a NULL is a verdict. */
static const struct sl_tool_model *model_of_exe(enum sl_tool tool, int fd, const struct stat *st,
					   char *version, size_t n, int *scanned)
{
	const struct sl_tool_model *m;
	void *img;

	if (scanned)
		*scanned = 0;
	img = mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED)
		return NULL;
	if (scanned)
		*scanned = 1;
	m = sl_model_for_image(tool, img, (size_t)st->st_size);
	if (!m && version && n)     /* for the message about an unknown version */
		sl_perf_version_in_image(img, (size_t)st->st_size, version, n);
	munmap(img, (size_t)st->st_size);
	return m;
}

/* /proc/self/exe open for reading with *@st filled, or -1 */
static int open_self_exe(struct stat *st)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	if (fd >= 0 && (fstat(fd, st) < 0 || st->st_size < 16)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

const struct sl_tool_model *sl_model_for_self_version(enum sl_tool tool,
						      const struct sl_tool_model **any_model,
						      char *version, size_t n)
{
	struct stat st;
	int fd;

	if (any_model)
		*any_model = tool == SL_TOOL_PERF ? perf_models[0] : NULL;
	if (tool != SL_TOOL_PERF || (fd = open_self_exe(&st)) < 0)
		return NULL;
	return model_of_exe(tool, fd, &st, version, n, NULL);
}

/* ---- the verdict, cached ------------------------------------------------
 *
 * Finding the version reads the whole executable (Debian's perf: 9 MB, a
 * scan per model, 2-4 ms a run), so the verdict is kept in the cache dir,
 * named by the executable's identity (device, inode, size, mtime) and the
 * list of models it was chosen among: "perf-<key>.model" holding the
 * model's name, or "-" and the version literal found when none matches, and
 * a newline. A missing, foreign or damaged file is rescanned and rewritten.
 */
#define VERDICT_FORMAT 1u

static uint64_t verdict_key(enum sl_tool tool, const struct stat *st)
{
	const struct sl_tool_model *const *models;
	uint64_t v[6] = { VERDICT_FORMAT, (uint64_t)st->st_dev, (uint64_t)st->st_ino, (uint64_t)st->st_size,
			  (uint64_t)st->st_mtim.tv_sec, (uint64_t)st->st_mtim.tv_nsec };
	uint64_t h = sl_fnv1a(SL_FNV_OFFSET, v, sizeof(v));
	size_t i, n = sl_models_for_tool(tool, &models);

	for (i = 0; i < n; i++)
		h = sl_fnv1a(h, models[i]->sym.name, strlen(models[i]->sym.name) + 1);
	return h;
}

/* 1 with *@m (NULL: no model matches; then @version gets the literal) if
 * the verdict file @name in @dirfd is ours and whole; else 0. */
static int verdict_read(enum sl_tool tool, int dirfd, const char *name, const struct sl_tool_model **m,
			char *version, size_t n)
{
	const struct sl_tool_model *const *models;
	char buf[128], *nl;
	struct stat st;
	ssize_t r;
	size_t i, nm;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return 0;
	r = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() ?
	    read(fd, buf, sizeof(buf) - 1) : -1;
	close(fd);
	if (r <= 0)
		return 0;
	buf[r] = '\0';
	nl = memchr(buf, '\n', (size_t)r);
	if (!nl || nl != buf + r - 1)
		return 0;
	*nl = '\0';
	if (buf[0] == '-') {
		*m = NULL;
		if (version && n)
			snprintf(version, n, "%s", buf + 1);
		return 1;
	}
	nm = sl_models_for_tool(tool, &models);
	for (i = 0; i < nm; i++)
		if (!strcmp(buf, models[i]->sym.name)) {
			*m = models[i];
			return 1;
		}
	return 0;
}

/* Keep the verdict: a temp file renamed into place. Failures are silent. */
static void verdict_write(int dirfd, const char *name, const struct sl_tool_model *m, const char *version)
{
	char tmp[64], buf[128];
	int fd, len;

	len = snprintf(buf, sizeof(buf), "%s%s\n", m ? "" : "-", m ? m->sym.name : version ? version : "");
	if (len <= 0 || (size_t)len >= sizeof(buf))
		return;
	snprintf(tmp, sizeof(tmp), ".tmp-%d.model", (int)getpid());
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (write(fd, buf, (size_t)len) != len || close(fd) != 0 || renameat(dirfd, tmp, dirfd, name) < 0)
		unlinkat(dirfd, tmp, 0);
}

const struct sl_tool_model *sl_model_for_self_cached(enum sl_tool tool,
						     const struct sl_tool_model **any_model,
						     char *version, size_t n, int dirfd)
{
	const struct sl_tool_model *m = NULL;
	char name[64], found[80] = "";
	struct stat st;
	int fd, scanned;

	if (dirfd < 0 || tool != SL_TOOL_PERF)
		return sl_model_for_self_version(tool, any_model, version, n);
	if (any_model)
		*any_model = perf_models[0];
	if ((fd = open_self_exe(&st)) < 0)
		return NULL;
	snprintf(name, sizeof(name), "perf-%016llx.model", (unsigned long long)verdict_key(tool, &st));
	if (verdict_read(tool, dirfd, name, &m, version, n)) {
		close(fd);
		return m;
	}
	m = model_of_exe(tool, fd, &st, found, sizeof(found), &scanned);
	if (!m && version && n)
		snprintf(version, n, "%s", found);
	if (scanned)
		verdict_write(dirfd, name, m, found);
	return m;
}

int sl_cmdline_read(const char *path, int *argcp, char ***argvp)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap + 1), **argv;
	int fd, argc = 0, i;
	ssize_t r;

	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		free(buf);
		return (int)r;
	}
	for (;;) {
		if (len == cap) {
			char *nb = realloc(buf, cap * 2 + 1);

			if (!nb) {
				close(fd);
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (r < 0 || len == 0) {
		free(buf);
		return r < 0 ? -EIO : -ENODATA;
	}
	buf[len] = '\0';
	for (size_t k = 0; k < len; k += strlen(buf + k) + 1)
		argc++;
	argv = malloc(((size_t)argc + 2) * sizeof(*argv));
	if (!argv) {
		free(buf);
		return -ENOMEM;
	}
	argv[0] = buf;              /* owner of the strings, freed last */
	for (i = 0, len = 0; i < argc; i++) {
		argv[i + 1] = buf + len;
		len += strlen(buf + len) + 1;
	}
	argv[argc + 1] = NULL;
	*argcp = argc;
	*argvp = argv + 1;
	return 0;
}

void sl_cmdline_free(char **argv)
{
	if (!argv)
		return;
	free(argv[-1]);
	free(argv - 1);
}

int sl_preload_without_self(const char *lp, char *out, size_t n)
{
	const char *p = lp;
	size_t o = 0;
	int removed = 0;

	if (n)
		out[0] = '\0';
	if (!lp || n < strlen(lp) + 1)
		return 0;
	while (*p) {
		size_t len;

		p += strspn(p, ": \t");
		len = strcspn(p, ": \t");
		if (!len)
			break;
		if (memmem(p, len, "libsymlazy", 10)) {
			removed = 1;
		} else {
			if (o)
				out[o++] = ':';
			memcpy(out + o, p, len);
			o += len;
		}
		p += len;
	}
	out[o] = '\0';
	return removed;
}
