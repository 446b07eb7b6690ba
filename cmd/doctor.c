/* SPDX-License-Identifier: MIT */
/*
 * doctor.c - `symlazy doctor [-- CMD...]`: for this host and CMD (default
 * `perf script`), what the shim will do and why, one line per check:
 *
 *   ok|warn|fail  <check>: <detail>
 *
 * The lazy decision is the one core/session.c lazy_target/setup_lazy makes
 * inside the tool, computed here from CMD's argv with the same model calls
 * (parse_argv, text_output, sl_model_for_image) and the same perf.data
 * reader. Exit 0 if no check failed, 1 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <glob.h>
#include <libelf.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "index/cache.h"
#include "cli.h"
#include "core/config.h"
#include "core/models.h"
#include "perfdata/perfdata.h"
#include "core/tool.h"

static const char *const SUB = "doctor";

struct dr {
	int failed;
};

static void line(struct dr *d, const char *level, const char *check, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void line(struct dr *d, const char *level, const char *check, const char *fmt, ...)
{
	va_list ap;

	if (!strcmp(level, "fail"))
		d->failed = 1;
	printf("%-4s  %s: ", level, check);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static const char USAGE[] =
	"usage: symlazy doctor [-- CMD...]\n"
	"Check this host and CMD (default: perf script): the shim library, the tool and its\n"
	"version, libelf reachability, setuid/capabilities, the cache directory, whether lazy\n"
	"mode will be on and why, perf_event_paranoid and kptr_restrict. One line per check:\n"
	"\"ok|warn|fail  <check>: <detail>\". Reads perf.data if CMD reads one (as the shim\n"
	"would); creates the cache directory if missing (as the shim would).\n"
	"Exit: 0 if no check failed, 1 otherwise, 2 usage.\n";

/* ---- ELF facts ------------------------------------------------------------ */

#define MAX_NEEDED 64

struct elfinfo {
	int ok, is_elf, dynamic, interp, type, machine, klass;
	char *needed[MAX_NEEDED];
	int nneeded;
	char runpath[PATH_MAX];
	int defines_elf_begin;       /* libelf linked in statically */
};

static void elfinfo_free(struct elfinfo *e)
{
	for (int i = 0; i < e->nneeded; i++)
		free(e->needed[i]);
	e->nneeded = 0;
}

static int read_elfinfo(const char *path, struct elfinfo *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t phnum = 0;

	memset(e, 0, sizeof(*e));
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		if (elf)
			elf_end(elf);
		close(fd);
		return 0;
	}
	e->is_elf = 1;
	e->type = eh.e_type;
	e->machine = eh.e_machine;
	e->klass = eh.e_ident[EI_CLASS];
	if (elf_getphdrnum(elf, &phnum) == 0)
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_DYNAMIC)
				e->dynamic = 1;
			else if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP)
				e->interp = 1;
		}
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || !(data = elf_getdata(scn, NULL)))
			continue;
		if (sh.sh_type == SHT_DYNAMIC && sh.sh_entsize) {
			for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Dyn dyn;
				const char *s;

				if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag == DT_NULL)
					break;
				s = (dyn.d_tag == DT_NEEDED || dyn.d_tag == DT_RUNPATH || dyn.d_tag == DT_RPATH) ?
				    elf_strptr(elf, sh.sh_link, dyn.d_un.d_val) : NULL;
				if (!s)
					continue;
				if (dyn.d_tag == DT_NEEDED && e->nneeded < MAX_NEEDED)
					e->needed[e->nneeded++] = strdup(s);
				else if (dyn.d_tag != DT_NEEDED && !e->runpath[0])
					snprintf(e->runpath, sizeof(e->runpath), "%s", s);
			}
		} else if ((sh.sh_type == SHT_DYNSYM || sh.sh_type == SHT_SYMTAB) && sh.sh_entsize &&
			   !e->defines_elf_begin) {
			for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym sym;
				const char *s;

				if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
				    GELF_ST_TYPE(sym.st_info) != STT_FUNC)
					continue;
				s = elf_strptr(elf, sh.sh_link, sym.st_name);
				if (s && !strcmp(s, "elf_begin")) {
					e->defines_elf_begin = 1;
					break;
				}
			}
		}
	}
	elf_end(elf);
	close(fd);
	e->ok = 1;
	return 0;
}

/* ---- the shim library ------------------------------------------------------ */

static void check_shim(struct dr *d)
{
	char lib[PATH_MAX];
	const char *how;
	struct elfinfo e, self;
	int bad = 0, r;

	if (cli_find_lib(lib, sizeof(lib), &how) < 0) {
		line(d, "fail", "shim", "libsymlazy.so not found (last tried %s, via %s); set SYMLAZY_LIB", lib, how);
		return;
	}
	if ((r = read_elfinfo(lib, &e)) < 0) {
		line(d, "fail", "shim", "%s: cannot read: %s", lib, strerror(-r));
		return;
	}
	read_elfinfo("/proc/self/exe", &self);
	if (!e.is_elf || e.type != ET_DYN || e.interp) {
		line(d, "fail", "shim", "%s is not an ELF shared object%s", lib,
		     e.interp ? " (it has PT_INTERP: an executable)" : "");
		elfinfo_free(&e);
		elfinfo_free(&self);
		return;
	}
	if (self.ok && (e.machine != self.machine || e.klass != self.klass)) {
		line(d, "fail", "shim", "%s is built for another machine (e_machine %d, class %d)", lib, e.machine, e.klass);
		bad = 1;
	}
	for (int i = 0; i < e.nneeded && !bad; i++)
		if (strcmp(e.needed[i], "libc.so.6")) {
			line(d, "fail", "shim", "%s NEEDs %s: the shim must need libc only (it finds libelf at run time)",
			     lib, e.needed[i]);
			bad = 1;
		}
	if (!bad)
		line(d, "ok", "shim", "%s (%s): ELF shared object, NEEDED %s", lib, how,
		     e.nneeded ? "libc.so.6 only" : "nothing");
	elfinfo_free(&e);
	elfinfo_free(&self);
}

/* ---- the tool --------------------------------------------------------------- */

/* execvp's PATH search: the first regular, executable file. */
static int which(const char *name, char *out, size_t n)
{
	const char *path = getenv("PATH"), *p;
	struct stat st;

	if (strchr(name, '/')) {
		snprintf(out, n, "%s", name);
		return stat(out, &st) == 0 && S_ISREG(st.st_mode) ? 0 : -ENOENT;
	}
	if (!path || !*path)
		path = "/bin:/usr/bin";
	for (p = path; *p;) {
		size_t len = strcspn(p, ":");

		snprintf(out, n, "%.*s%s%s", (int)len, len ? p : ".", "/", name);
		if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
			return 0;
		p += len;
		if (*p == ':')
			p++;
	}
	return -ENOENT;
}

/* Debian's /usr/bin/perf wrapper (linux-base) runs "perf_$version" of the
 * running kernel, version = major.minor of uname -r. */
static int follow_wrapper(struct dr *d, const char *script, char *exe, size_t n)
{
	char head[4096], dir[PATH_MAX], *slash;
	struct utsname u;
	int fd = open(script, O_RDONLY | O_CLOEXEC);
	ssize_t len;
	unsigned maj = 0, min = 0;

	if (fd < 0)
		return 0;
	len = read(fd, head, sizeof(head) - 1);
	close(fd);
	if (len < 2 || head[0] != '#' || head[1] != '!')
		return 0;
	head[len] = '\0';
	snprintf(dir, sizeof(dir), "%s", script);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	if (!strstr(head, "perf_")) {
		char interp[PATH_MAX] = "", arg[256] = "", found[PATH_MAX];

		/* "#!/usr/bin/env NAME": NAME through PATH, as env(1) does */
		sscanf(head + 2, " %4095s %255s", interp, arg);
		if (!strcmp(interp, "/usr/bin/env") && arg[0] && arg[0] != '-' && which(arg, found, sizeof(found)) == 0)
			snprintf(interp, sizeof(interp), "%s", found);
		line(d, "warn", "tool", "%s is a script run by %s; the checks below are for %s", script, interp, interp);
		snprintf(exe, n, "%s", interp);
		return 1;
	}
	if (uname(&u) == 0)
		sscanf(u.release, "%u.%u", &maj, &min);
	if ((size_t)snprintf(exe, n, "%s/perf_%u.%u", dir, maj, min) < n && access(exe, X_OK) == 0) {
		line(d, "ok", "tool", "%s is Debian's wrapper script: it execs %s (kernel %u.%u)", script, exe, maj, min);
		return 1;
	}
	{
		glob_t g;
		char pat[PATH_MAX + 8];

		snprintf(pat, sizeof(pat), "%s/perf_*", dir);
		if (glob(pat, 0, NULL, &g) == 0 && g.gl_pathc) {
			line(d, "fail", "tool", "%s execs perf_%u.%u for this kernel, which is not installed "
			     "(found %s; checks below use it)", script, maj, min, g.gl_pathv[g.gl_pathc - 1]);
			snprintf(exe, n, "%s", g.gl_pathv[g.gl_pathc - 1]);
			globfree(&g);
			return 1;
		}
		line(d, "fail", "tool", "%s execs perf_%u.%u, which is not installed", script, maj, min);
		return -1;
	}
}

/* The perf version literal ("6.1.187"), as core/model/perf61.c looks for it. */
static const struct sl_tool_model *check_version(struct dr *d, const char *exe, enum sl_tool tool)
{
	const struct sl_tool_model *m = NULL;
	struct stat st;
	char ver[32] = "";
	void *img;
	int fd;

	if (tool != SL_TOOL_PERF) {
		line(d, "ok", "version", "no version check for tools other than perf");
		return NULL;
	}
	fd = open(exe, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < 16) {
		line(d, "fail", "version", "%s: cannot read: %s", exe, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED) {
		line(d, "fail", "version", "%s: mmap: %s", exe, strerror(errno));
		return NULL;
	}
	m = sl_model_for_image(tool, img, (size_t)st.st_size);
	if (!sl_perf_version_in_image(img, (size_t)st.st_size, ver, sizeof(ver)))
		snprintf(ver, sizeof(ver), "(no version literal)");
	munmap(img, (size_t)st.st_size);
	if (m) {
		line(d, "ok", "version", "perf %s: symlazy's %s model applies (core/model/)", ver, m->sym.name);
	} else {
		char known[128];

		sl_model_versions(tool, known, sizeof(known));
		line(d, "warn", "version", "perf %s is none of %s: lazy mode stays off unless SYMLAZY_LAZY=on "
		     "(then the newest model's rules are assumed)", ver, known);
	}
	return m;
}

/* ---- libelf reachability ------------------------------------------------------ */

static void add_dirs(char dirs[][PATH_MAX], int *nd, int max, const char *list, const char *origin)
{
	for (const char *p = list; p && *p && *nd < max;) {
		size_t len = strcspn(p, ":");

		if (len) {
			if (len >= 7 && !strncmp(p, "$ORIGIN", 7))
				*nd += !cli_path(dirs[*nd], "%s%.*s", origin, (int)(len - 7), p + 7);
			else
				*nd += !cli_path(dirs[*nd], "%.*s", (int)len, p);
		}
		p += len;
		if (*p == ':')
			p++;
	}
}

static void ld_conf_dirs(char dirs[][PATH_MAX], int *nd, int max)
{
	glob_t g;

	if (glob("/etc/ld.so.conf.d/*.conf", 0, NULL, &g) != 0)
		return;
	for (size_t i = 0; i < g.gl_pathc && *nd < max; i++) {
		FILE *f = fopen(g.gl_pathv[i], "re");
		char l[PATH_MAX];

		while (f && fgets(l, sizeof(l), f) && *nd < max) {
			l[strcspn(l, "\n")] = '\0';
			if (l[0] == '/')
				*nd += !cli_path(dirs[*nd], "%s", l);
		}
		if (f)
			fclose(f);
	}
	globfree(&g);
}

#define MAX_DIRS 48
#define MAX_LIBS 96

static void check_libelf(struct dr *d, const char *exe, const struct elfinfo *e)
{
	static char dirs[MAX_DIRS][PATH_MAX];
	char origin[PATH_MAX], *slash, via[128] = "";
	char *queue[MAX_LIBS], *from[MAX_LIBS];
	int nd = 0, nq = 0, found = 0;

	if (!e->dynamic) {
		line(d, "fail", "libelf", "%s is statically linked: LD_PRELOAD never reaches it", exe);
		return;
	}
	if (e->defines_elf_begin) {
		line(d, "fail", "libelf", "%s defines elf_begin itself (libelf linked in statically): "
		     "the shim cannot interpose it", exe);
		return;
	}
	snprintf(origin, sizeof(origin), "%s", exe);
	slash = strrchr(origin, '/');
	if (slash)
		*slash = '\0';
	add_dirs(dirs, &nd, MAX_DIRS, e->runpath, origin);
	add_dirs(dirs, &nd, MAX_DIRS, getenv("LD_LIBRARY_PATH"), origin);
	ld_conf_dirs(dirs, &nd, MAX_DIRS);
	add_dirs(dirs, &nd, MAX_DIRS, "/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:/usr/lib64:/lib:/usr/lib",
		 origin);
	for (int i = 0; i < e->nneeded && nq < MAX_LIBS; i++) {
		queue[nq] = strdup(e->needed[i]);
		from[nq++] = NULL;
	}
	/* breadth-first over NEEDED, as ld.so loads them */
	for (int q = 0; q < nq && !found; q++) {
		struct elfinfo le;
		char p[PATH_MAX];
		int k;

		if (!queue[q])
			continue;
		if (!strcmp(queue[q], "libelf.so.1")) {
			found = 1;
			snprintf(via, sizeof(via), "%s", from[q] ? from[q] : "");
			break;
		}
		for (k = 0; k < nd; k++) {
			if (cli_path(p, "%s/%s", dirs[k], queue[q]) == 0 && access(p, R_OK) == 0)
				break;
		}
		if (k == nd || read_elfinfo(p, &le) < 0 || !le.ok)
			continue;
		for (int i = 0; i < le.nneeded && nq < MAX_LIBS; i++) {
			int dup = 0;

			for (int j = 0; j < nq; j++)
				dup |= queue[j] && !strcmp(queue[j], le.needed[i]);
			if (!dup) {
				queue[nq] = strdup(le.needed[i]);
				from[nq++] = queue[q];
			}
		}
		elfinfo_free(&le);
	}
	if (found && !via[0])
		line(d, "ok", "libelf", "%s links libelf.so.1 dynamically (NEEDED)", exe);
	else if (found)
		line(d, "ok", "libelf", "%s loads libelf.so.1 through %s", exe, via);
	else
		line(d, "warn", "libelf", "%s does not link libelf.so.1: the shim acts only if it dlopens a "
		     "library that does (bcc's Python loads libbcc, which links it)", exe);
	for (int q = 0; q < nq; q++)
		free(queue[q]);
}

static void check_secure(struct dr *d, const char *exe)
{
	struct stat st;
	ssize_t caps;

	if (stat(exe, &st) < 0) {
		line(d, "fail", "setuid", "%s: %s", exe, strerror(errno));
		return;
	}
	if ((st.st_mode & S_ISUID) && st.st_uid != getuid()) {
		line(d, "fail", "setuid", "%s is setuid (owner uid %u): the dynamic loader drops LD_PRELOAD "
		     "(AT_SECURE)", exe, (unsigned)st.st_uid);
		return;
	}
	if ((st.st_mode & S_ISGID) && st.st_gid != getgid()) {
		line(d, "fail", "setuid", "%s is setgid (gid %u): the dynamic loader drops LD_PRELOAD (AT_SECURE)",
		     exe, (unsigned)st.st_gid);
		return;
	}
	caps = getxattr(exe, "security.capability", NULL, 0);
	if (caps > 0 && getuid() != 0)
		line(d, "fail", "setuid", "%s has file capabilities: running it is AT_SECURE, LD_PRELOAD is "
		     "dropped (run as root, or copy it without capabilities)", exe);
	else if (caps > 0)
		line(d, "ok", "setuid", "%s has file capabilities, but you are root: no capability is gained, "
		     "LD_PRELOAD is kept", exe);
	else
		line(d, "ok", "setuid", "no setuid/setgid bit, no file capabilities: LD_PRELOAD is kept");
}

/* ---- environment, cache, lazy ---------------------------------------------------- */

static void check_env(struct dr *d, const struct symlazy_config *cfg)
{
	static const char *const vars[] = {
		"SYMLAZY_MMAP", "SYMLAZY_MAX_BYTES", "SYMLAZY_LAZY", "SYMLAZY_ADDRS", "SYMLAZY_CACHE_DIR",
		"SYMLAZY_STATS", "SYMLAZY_DISABLE", "SYMLAZY_INHERIT", "SYMLAZY_VERBOSE", "SYMLAZY_HIDE_ALL",
	};
	char set[512] = "";
	size_t o = 0;

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);

		if (v && o < sizeof(set))
			o += (size_t)snprintf(set + o, sizeof(set) - o, "%s%s=%s", o ? " " : "", vars[i], v);
	}
	if (cfg->disabled)
		line(d, "warn", "environment", "SYMLAZY_DISABLE=1: the shim does nothing");
	else if (cfg->error[0])
		line(d, "warn", "environment", "%s", cfg->error + (strncmp(cfg->error, "symlazy: ", 9) ? 0 : 9));
	else
		line(d, "ok", "environment", "%s", set[0] ? set : "no SYMLAZY_* variable set: defaults");
}

struct cache_count {
	int n;
	uint64_t bytes;
};

static void count_cb(const char *name, uint64_t bytes, void *ctx)
{
	struct cache_count *c = ctx;

	(void)name;
	c->n++;
	c->bytes += bytes;
}

static void check_cache(struct dr *d, const struct symlazy_config *cfg)
{
	struct cache_count c = { 0, 0 };
	struct sl_why why;
	struct stat st;
	char text[640];
	int existed, fd;

	if (!cfg->cache_dir[0]) {
		line(d, "ok", "cache", "SYMLAZY_CACHE_DIR=off (or no HOME): indexes live in memory (memfd)");
		return;
	}
	existed = stat(cfg->cache_dir, &st) == 0;
	fd = sl_cache_dir_open(cfg->cache_dir, &why);
	if (fd < 0) {
		sl_why_format(&why, text, sizeof(text));
		line(d, "warn", "cache", "%s; indexes will stay in memory (rebuilt every run)", text);
		return;
	}
	sl_cache_list(fd, count_cb, &c);
	close(fd);
	if (!existed)
		line(d, "ok", "cache", "%s created (0700)", cfg->cache_dir);
	else
		line(d, "ok", "cache", "%s: private and writable, %d index%s, %.1f MiB", cfg->cache_dir, c.n,
		     c.n == 1 ? "" : "es", c.bytes / 1048576.0);
}

static void lazy_off(struct dr *d, const char *level, const struct sl_why *w)
{
	char text[640];

	sl_why_format(w, text, sizeof(text));
	line(d, level, "lazy", "off: %s", text);
}

static void check_lazy(struct dr *d, const struct symlazy_config *cfg, enum sl_tool tool,
		       const struct sl_tool_model *m, int argc, char **argv)
{
	struct sl_invocation inv;
	struct sl_why w;
	struct pd_result res;
	struct stat st;
	char err[256] = "";
	size_t naddrs = 0;
	int r;

	if (cfg->lazy == LAZY_OFF) {
		sl_why_set(&w, SL_R_LAZY_OFF, NULL);
		lazy_off(d, "ok", &w);
		return;
	}
	if (tool != SL_TOOL_PERF) {
		if (cfg->addrs_path[0]) {
			r = addrs_read(cfg->addrs_path, &res, err, sizeof(err));
			if (r < 0) {
				line(d, "fail", "lazy", "off: cannot use SYMLAZY_ADDRS=%s: %s", cfg->addrs_path,
				     err[0] ? err : strerror(-r));
				return;
			}
			for (size_t i = 0; i < res.nr_dsos; i++)
				naddrs += res.dsos[i].nr_addrs;
			line(d, "ok", "lazy", "on from SYMLAZY_ADDRS=%s (%zu addresses in %zu DSOs)", cfg->addrs_path,
			     naddrs, res.nr_dsos);
			perfdata_free(&res);
			return;
		}
		sl_why_set(&w, SL_R_NOT_PERF, NULL);
		lazy_off(d, "warn", &w);
		return;
	}
	if (!sl_model_perf61.parse_argv(argc, argv, &inv) ||
	    !sl_model_perf61.text_output(&inv, isatty(STDOUT_FILENO))) {
		lazy_off(d, "warn", &inv.why);
		return;
	}
	if (inv.default_input && fstat(0, &st) == 0 && S_ISFIFO(st.st_mode)) {
		sl_why_set(&w, SL_R_PIPE_INPUT, NULL);
		lazy_off(d, "warn", &w);
		return;
	}
	if (stat(inv.input, &st) < 0 || !S_ISREG(st.st_mode)) {
		sl_why_set(&w, SL_R_NOT_REGULAR, "%s", inv.input);
		lazy_off(d, "warn", &w);
		return;
	}
	if (!m && cfg->lazy == LAZY_AUTO) {
		sl_why_set(&w, SL_R_PERF_VERSION, NULL);
		lazy_off(d, "warn", &w);
		return;
	}
	r = perfdata_read(inv.input, elfops_direct(), &res, err, sizeof(err));
	if (r < 0) {
		sl_why_set(&w, SL_R_PERFDATA_BAD, "%s", err[0] ? err : strerror(-r));
		lazy_off(d, "warn", &w);
		return;
	}
	if (res.flags & (PD_F_DWARF_UNWIND | PD_F_LBR_CALLSTACK)) {
		sl_why_set(&w, (res.flags & PD_F_DWARF_UNWIND) ? SL_R_DWARF_UNWIND : SL_R_LBR_CALLSTACK, NULL);
		perfdata_free(&res);
		lazy_off(d, "warn", &w);
		return;
	}
	for (size_t i = 0; i < res.nr_dsos; i++)
		naddrs += res.dsos[i].nr_addrs;
	line(d, "ok", "lazy", "on: %s has %zu addresses to look up in %zu DSOs%s", inv.input, naddrs, res.nr_dsos,
	     m ? "" : " (SYMLAZY_LAZY=on: perf 6.1 rules assumed)");
	perfdata_free(&res);
}

/* ---- kernel settings ---------------------------------------------------------------- */

static int read_int(const char *path, int *v)
{
	FILE *f = fopen(path, "re");
	int ok = f && fscanf(f, "%d", v) == 1;

	if (f)
		fclose(f);
	return ok ? 0 : -1;
}

static void check_kernel(struct dr *d)
{
	int p, k, root = geteuid() == 0;

	if (read_int("/proc/sys/kernel/perf_event_paranoid", &p) < 0)
		line(d, "warn", "perf_event_paranoid", "unreadable (no perf events in this kernel or container?)");
	else if (root)
		line(d, "ok", "perf_event_paranoid", "%d; you are root, no limit applies to perf record", p);
	else if (p >= 3)
		line(d, "warn", "perf_event_paranoid", "%d: perf record fails for users without CAP_PERFMON "
		     "(Debian's level 3); reading perf.data is unaffected", p);
	else if (p == 2)
		line(d, "ok", "perf_event_paranoid", "2: without CAP_PERFMON you may profile only user space "
		     "(no kernel samples, no -a)");
	else if (p == 1)
		line(d, "ok", "perf_event_paranoid", "1: user and kernel profiling of your processes; no -a "
		     "without CAP_PERFMON");
	else
		line(d, "ok", "perf_event_paranoid", "%d: %s", p, p < 0 ? "no restrictions" :
		     "all but raw tracepoints for every user");
	if (read_int("/proc/sys/kernel/kptr_restrict", &k) < 0)
		line(d, "warn", "kptr_restrict", "unreadable");
	else if (k == 0)
		line(d, "ok", "kptr_restrict", "0: kernel addresses visible, perf resolves kernel symbols");
	else if (k == 1 && root)
		line(d, "ok", "kptr_restrict", "1: /proc/kallsyms hides addresses from users without CAP_SYSLOG; "
		     "you are root: kernel symbols resolve");
	else if (k == 1)
		line(d, "warn", "kptr_restrict", "1: /proc/kallsyms hides addresses without CAP_SYSLOG: kernel "
		     "samples show as [unknown]");
	else
		line(d, "warn", "kptr_restrict", "%d: kernel addresses hidden from everyone: kernel samples show "
		     "as [unknown] unless perf finds a vmlinux", k);
}

int cmd_doctor(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_OPTS_END,
	};
	static char *def[] = { "perf", "script", NULL };
	struct symlazy_config cfg;
	struct dr d = { 0 };
	struct elfinfo e;
	char found[PATH_MAX], exe[PATH_MAX], real[PATH_MAX];
	enum sl_tool tool;
	const struct sl_tool_model *m = NULL;
	char **cmd;
	int c, ncmd, r;

	optind = 1;
	while ((c = cli_getopt(SUB, USAGE, argc, argv, "+:h", opts)) != -1) {
		switch (c) {
		case 'h': return CLI_OK;
		default: return CLI_USAGE;
		}
	}
	cmd = optind < argc ? argv + optind : def;
	ncmd = optind < argc ? argc - optind : 2;
	config_load(&cfg, cli_getenv);
	check_shim(&d);
	if (which(cmd[0], found, sizeof(found)) < 0) {
		line(&d, "fail", "tool", "%s: not found in PATH", cmd[0]);
		goto rest;
	}
	r = follow_wrapper(&d, found, exe, sizeof(exe));
	if (r < 0)
		goto rest;
	if (r == 0)
		snprintf(exe, sizeof(exe), "%s", found);
	if (!realpath(exe, real))
		snprintf(real, sizeof(real), "%s", exe);
	tool = sl_tool_from_exe(real);
	if (r == 0)
		line(&d, "ok", "tool", "%s -> %s: %s", cmd[0], real, tool == SL_TOOL_PERF ? "perf" :
		     "not a tool symlazy models (mmap and budget apply; lazy mode only with SYMLAZY_ADDRS)");
	else if (tool != SL_TOOL_PERF)
		line(&d, "ok", "tool", "%s: not a tool symlazy models", real);
	m = check_version(&d, real, tool);
	if (read_elfinfo(real, &e) < 0 || !e.is_elf)
		line(&d, "fail", "libelf", "%s is not an ELF executable", real);
	else
		check_libelf(&d, real, &e);
	elfinfo_free(&e);
	check_secure(&d, real);
	check_env(&d, &cfg);
	check_cache(&d, &cfg);
	check_lazy(&d, &cfg, tool, m, ncmd, cmd);
	check_kernel(&d);
	return d.failed ? CLI_FAIL : CLI_OK;
rest:
	check_env(&d, &cfg);
	check_cache(&d, &cfg);
	check_kernel(&d);
	return CLI_FAIL;
}
