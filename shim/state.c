/* SPDX-License-Identifier: MIT */
/*
 * state.c - the one process state: config, live Elf handles, symbol-table
 * Elf_Data handles and their scan plans, the budget, lazy address sets, stats.
 *
 * Locking: `lock` (rwlock) protects the two uthash tables. Real libelf is
 * never called with the write lock held; the read lock is held only around
 * libelf calls that do not re-enter exported functions (elf_getscn,
 * gelf_getshdr, note reads), so an elf_end in another thread cannot free an
 * Elf we are looking at. Nothing is freed at exit (perf top threads may run).
 */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define HASH_NONFATAL_OOM 1
#include <uthash.h>

#include "shim.h"
#include "activate.h"
#include "budget.h"
#include "budgetplan.h"
#include "config.h"
#include "perfdata.h"
#include "scan.h"
#include "stats.h"
#include "symindex.h"

int real_resolve(void);

enum plan_mode { PM_EAGER = 0, PM_BUDGET, PM_LAZY, PM_HIDE, PM_NONE };

struct elf_ent {
	Elf *elf;
	int fd;
	int mmapped;
	const void *map_base;        /* libelf's file mapping when mmapped */
	pid_t tid;                   /* thread that opened it (libelf is not thread-safe) */
	char path[256];
	struct stat st;
	int have_st;
	int bid_state;               /* 0 unknown, 1 have, -1 none */
	unsigned char bid[20];
	int bid_len;
	/* lazy plan, shared by the .symtab and .dynsym scans of this Elf */
	int plan_state;              /* 0 not made, 1 made */
	enum plan_mode plan_mode;
	uint8_t *keep[2];
	uint32_t nkeep[2];
	uint32_t kept_groups;
	char reason[128];
	UT_hash_handle hh;
};

struct data_ent {
	Elf_Data *data;
	Elf *elf;
	int table;                   /* 0 .symtab, 1 .dynsym */
	uint32_t nsyms;
	uint32_t link;               /* sh_link: the string table's section index */
	Elf_Data *strtab;
	struct scan_state scan;
	enum plan_mode mode;         /* of the current scan */
	struct scan_stats *st;       /* of the current scan */
	struct budget_plan bp;       /* PM_BUDGET: cut and zero-size overrides */
	uint32_t bp_cursor;
	/* PM_LAZY: the keep bitmap of this table, owned by the elf_ent of
	 * d->elf (freed only together with this entry: shim_forget_elf and
	 * the stale-pointer path of shim_track_elf drop both) */
	const uint8_t *keep;
	uint32_t nkeep;
	UT_hash_handle hh;
};

static struct symlazy_config cfg;
static int inert = 1;
static int ok_real;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static atomic_int setup_done;        /* setup() has returned: ok_real is final */
static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static struct elf_ent *elves;
static struct data_ent *datas;
static _Atomic unsigned long generation = 1;
static struct budget budget;
static atomic_int budget_warned;
static struct scan_stats *stats_head, **stats_tail = &stats_head;
static struct stats_totals totals;
static int is_perf;
static struct { uintptr_t lo, hi; } exe_text[8];
static int n_exe_text;
static struct pd_result addrs;       /* lazy address sets */
static int lazy_on;
static int cache_dirfd = -1;
static int dem_mode = SYMIDX_DEM_NOOPTS; /* how this perf demangles (its -v, --no-demangle) */
static char start_mntns[64];         /* mount namespace at start-up */

static void warnx_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warnx_line(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	(void)!write(2, buf, (size_t)n);
}

static const char *env_get(const char *name)
{
	return getenv(name);
}

/* Is this process perf? (readlink only: no file is opened) */
static int exe_is_perf(void)
{
	char exe[PATH_MAX];
	const char *base;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return 0;
	exe[n] = '\0';
	base = strrchr(exe, '/');
	base = base ? base + 1 : exe;
	return !strncmp(base, "perf", 4);
}

/* Constructor: read the environment, go inert for setuid/AT_SECURE, drop
 * ourselves from LD_PRELOAD so workloads launched by the tool never load us.
 * Opens no files, calls no libelf. */
__attribute__((constructor)) static void symlazy_init(void)
{
	const char *lp;

	config_load(&cfg, env_get);
	if (getauxval(AT_SECURE) || cfg.disabled)
		return;
	inert = 0;
	{
		/* perf enters a container's mount namespace around symbol loads;
		 * the cache dir must be the one of the namespace we started in. */
		ssize_t n = readlink("/proc/self/ns/mnt", start_mntns, sizeof(start_mntns) - 1);

		start_mntns[n > 0 ? n : 0] = '\0';
	}
	/* Only perf drops us: what it launches (the `perf record --` workload,
	 * objdump, addr2line) must run as without the shim. Launchers in front
	 * of perf (env, time, sudo, sh) keep LD_PRELOAD so perf still gets it. */
	if (!exe_is_perf())
		return;
	lp = getenv("LD_PRELOAD");
	if (lp && !cfg.inherit && strstr(lp, "libsymlazy")) {
		char *copy = strdup(lp), *tok, *save = NULL, *out;
		size_t n = strlen(lp) + 1;

		out = calloc(1, n);
		if (copy && out) {
			for (tok = strtok_r(copy, ": \t", &save); tok; tok = strtok_r(NULL, ": \t", &save)) {
				if (strstr(tok, "libsymlazy"))
					continue;
				if (*out)
					strcat(out, ":");
				strcat(out, tok);
			}
			if (*out)
				setenv("LD_PRELOAD", out, 1);
			else
				unsetenv("LD_PRELOAD");
		}
		free(copy);
		free(out);
	}
}

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	int i;

	(void)size; (void)data;
	for (i = 0; i < info->dlpi_phnum && n_exe_text < 8; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];

		if (p->p_type == PT_LOAD && (p->p_flags & PF_X)) {
			exe_text[n_exe_text].lo = info->dlpi_addr + p->p_vaddr;
			exe_text[n_exe_text].hi = info->dlpi_addr + p->p_vaddr + p->p_memsz;
			n_exe_text++;
		}
	}
	return 1;       /* the first object is the main program */
}

static int site_in_exe(uintptr_t site)
{
	int i;

	for (i = 0; i < n_exe_text; i++)
		if (site >= exe_text[i].lo && site < exe_text[i].hi)
			return 1;
	return 0;
}

/* Is the running perf one whose loading rules we mirror (6.1)? The version
 * string perf prints ("6.1.187") is a NUL-terminated literal in its image. */
static int perf_is_61(void)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *m;
	int found;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || st.st_size < 16) {
		close(fd);
		return 0;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return 0;
	found = perf_image_is_61(m, (size_t)st.st_size);
	munmap(m, (size_t)st.st_size);
	return found;
}

/* Work out whether lazy mode applies and which perf.data to read.
 * Returns 1 with @input set, or 0 with @why set. */
static int lazy_target(char *input, size_t n, char *why, size_t whysz)
{
	char buf[8192], *args[256];
	int fd, nargs = 0, i;
	ssize_t len;
	struct activation act;
	struct stat st;

	fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whysz, "cannot read /proc/self/cmdline");
		return 0;
	}
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0) {
		snprintf(why, whysz, "empty command line");
		return 0;
	}
	buf[len] = '\0';
	for (i = 0; i < len && nargs < 256; i += (int)strlen(buf + i) + 1)
		args[nargs++] = buf + i;
	if (!activate_parse(nargs, args, &act)) {
		snprintf(why, whysz, "%s", act.why);
		return 0;
	}
	if (!activate_text_output(&act, isatty(1))) {
		snprintf(why, whysz, "%s", act.why);
		return 0;
	}
	dem_mode = act.demangle;
	if (act.default_input && fstat(0, &st) == 0 && S_ISFIFO(st.st_mode)) {
		snprintf(why, whysz, "perf.data comes from a pipe");
		return 0;
	}
	if (stat(act.input, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, whysz, "%s is not a regular file", act.input);
		return 0;
	}
	snprintf(input, n, "%s", act.input);
	return 1;
}

static void open_cache_dir(void)
{
	struct stat st;
	char parent[PATH_MAX], *slash;
	int fd;

	if (!cfg.cache_dir[0])
		return;
	{
		char now[64];
		ssize_t n = readlink("/proc/self/ns/mnt", now, sizeof(now) - 1);

		now[n > 0 ? n : 0] = '\0';
		if (strcmp(now, start_mntns)) {
			if (cfg.verbose)
				warnx_line("symlazy: started in another mount namespace; keeping the index in memory");
			return;
		}
	}
	snprintf(parent, sizeof(parent), "%s", cfg.cache_dir);
	slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = '\0';
		(void)mkdir(parent, 0700);
	}
	if (mkdir(cfg.cache_dir, 0700) < 0 && errno != EEXIST)
		goto nocache;
	fd = open(cfg.cache_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		goto nocache;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(fd);
		warnx_line("symlazy: cache dir %s is not private to this user; keeping the index in memory",
			   cfg.cache_dir);
		return;
	}
	if (faccessat(fd, ".", W_OK, AT_EACCESS) < 0) {
		close(fd);
		goto nocache;
	}
	cache_dirfd = fd;
	return;
nocache:
	if (cfg.verbose)
		warnx_line("symlazy: cache dir %s unusable (%s); keeping the index in memory",
			   cfg.cache_dir, strerror(errno));
}

/* Read SYMLAZY_ADDRS into the address sets. 1 on success. */
static int use_addrs_file(void)
{
	char err[200] = "";
	int r = addrs_read(cfg.addrs_path, &addrs, err, sizeof(err));

	if (r < 0) {
		warnx_line("symlazy: cannot use SYMLAZY_ADDRS=%s: %s; loading all symbols",
			   cfg.addrs_path, err[0] ? err : strerror(-r));
		snprintf(totals.lazy_reason, sizeof(totals.lazy_reason), "bad SYMLAZY_ADDRS");
		return 0;
	}
	return 1;
}

/*
 * Where the address sets come from: perf script/report/annotate reading a
 * file use that perf.data (a SYMLAZY_ADDRS left in the environment never
 * overrides it); SYMLAZY_ADDRS serves every other case, including perf with
 * SYMLAZY_LAZY=off.
 */
static void setup_lazy(void)
{
	char input[PATH_MAX], err[200] = "";
	int r;

	totals.lazy = "off";
	if (cfg.lazy == LAZY_OFF) {
		snprintf(totals.lazy_reason, sizeof(totals.lazy_reason), "SYMLAZY_LAZY=off");
		goto addrs_file;
	}
	if (!is_perf) {
		snprintf(totals.lazy_reason, sizeof(totals.lazy_reason), "not perf");
		goto addrs_file;
	}
	if (!lazy_target(input, sizeof(input), totals.lazy_reason, sizeof(totals.lazy_reason)))
		goto addrs_file;
	if (cfg.lazy == LAZY_AUTO && !perf_is_61()) {
		warnx_line("symlazy: this perf is not 6.1, whose symbol loading lazy mode mirrors; "
			   "loading all symbols (SYMLAZY_LAZY=on overrides)");
		snprintf(totals.lazy_reason, sizeof(totals.lazy_reason), "perf version not 6.1");
		return;
	}
	r = perfdata_read(input, &real_ops, &addrs, err, sizeof(err));
	if (r < 0) {
		if (!(r == -ENOTSUP && (addrs.flags & PD_F_PIPE)))   /* a saved pipe stream is not an error */
			warnx_line("symlazy: cannot pre-read %s (%s); loading all symbols", input,
				   err[0] ? err : strerror(-r));
		snprintf(totals.lazy_reason, sizeof(totals.lazy_reason), "perf.data unreadable: %s",
			 err[0] ? err : strerror(-r));
		return;
	}
	if (addrs.flags & (PD_F_DWARF_UNWIND | PD_F_LBR_CALLSTACK)) {
		snprintf(totals.lazy_reason, sizeof(totals.lazy_reason), "%s",
			 (addrs.flags & PD_F_DWARF_UNWIND) ? "user callchains come from DWARF unwinding"
							   : "user callchains come from LBR call stacks");
		perfdata_free(&addrs);
		return;
	}
	goto on;
addrs_file:
	if (!cfg.addrs_path[0] || !use_addrs_file())
		return;
	totals.lazy_reason[0] = '\0';
on:
	lazy_on = 1;
	totals.lazy = "on";
	totals.addr_dsos = addrs.nr_dsos;
	for (size_t i = 0; i < addrs.nr_dsos; i++)
		totals.addrs += addrs.dsos[i].nr_addrs;
	open_cache_dir();
}

static void report_stats(void);
static void stats_append(struct scan_stats *s);

static void setup(void)
{
	ok_real = real_resolve();
	if (!ok_real) {
		warnx_line("symlazy: cannot find the real libelf functions; symlazy is inactive");
		inert = 1;
		return;
	}
	if (inert)
		return;
	if (cfg.error[0])
		warnx_line("%s", cfg.error);
	budget_init(&budget, cfg.max_bytes);
	totals.budget_bytes = cfg.max_bytes;
	is_perf = exe_is_perf();
	dl_iterate_phdr(phdr_cb, NULL);
	setup_lazy();
	if (cfg.stats != STATS_OFF)
		atexit(report_stats);
}

/* Called on every interposed libelf call (perf makes one gelf_getsym call
 * per symbol of every table it scans): after set-up one acquire load. */
int shim_ready(void)
{
	if (__builtin_expect(atomic_load_explicit(&setup_done, memory_order_acquire), 1))
		return ok_real;
	pthread_once(&once, setup);
	atomic_store_explicit(&setup_done, 1, memory_order_release);
	return ok_real;
}

int shim_active(void)
{
	return !inert;
}

Elf_Cmd shim_begin_cmd(int fd, Elf_Cmd cmd, Elf *ref, int *upgraded)
{
	struct stat st;

	*upgraded = 0;
	if (cmd != ELF_C_READ || ref || !cfg.mmap || fd < 0)
		return cmd;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 64)
		return cmd;
	if (major(st.st_dev) == 0 && st.st_size > (1LL << 40))
		return cmd;         /* /proc/kcore and friends */
	{
		char link[64], path[32];
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			if (!strncmp(link, "/proc/", 6))
				return cmd;
		}
	}
	*upgraded = 1;
	return ELF_C_READ_MMAP_PRIVATE;
}

void shim_track_elf(Elf *elf, int fd, int mmapped)
{
	struct elf_ent *e = calloc(1, sizeof(*e)), *old = NULL;
	char path[32];
	ssize_t n;

	if (!e)
		return;
	e->elf = elf;
	e->fd = fd;
	e->mmapped = mmapped;
	e->tid = gettid();
	if (mmapped) {
		size_t sz = 0;
		char *base = real_x.elf_rawfile(elf, &sz);

		if (base && sz) {
			e->map_base = base;
			shim_sigbus_watch(base, sz);
		}
	}
	if (fd >= 0) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, e->path, sizeof(e->path) - 1);
		if (n > 0)
			e->path[n] = '\0';
		e->have_st = fstat(fd, &e->st) == 0;
	}
	pthread_rwlock_wrlock(&lock);
	HASH_FIND_PTR(elves, &elf, old);
	if (old) {             /* stale entry: pointer reused without our elf_end */
		struct data_ent *d, *tmp;

		HASH_DEL(elves, old);
		/* the old Elf's data handles died with it, and they point at
		 * old->keep: forget them too (as shim_forget_elf does) */
		HASH_ITER(hh, datas, d, tmp) {
			if (d->elf == elf) {
				HASH_DEL(datas, d);
				stats_append(d->st);
				free(d->bp.over);
				free(d);
			}
		}
		atomic_fetch_add(&generation, 1);
		free(old->keep[0]);
		free(old->keep[1]);
		free(old);
	}
	HASH_ADD_PTR(elves, elf, e);
	pthread_rwlock_unlock(&lock);
}

static void stats_append(struct scan_stats *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&stats_lock);
	*stats_tail = s;
	stats_tail = &s->next;
	pthread_mutex_unlock(&stats_lock);
}

void shim_forget_elf(Elf *elf)
{
	struct elf_ent *e = NULL;
	struct data_ent *d, *tmp;

	pthread_rwlock_wrlock(&lock);
	HASH_FIND_PTR(elves, &elf, e);
	if (e)
		HASH_DEL(elves, e);
	HASH_ITER(hh, datas, d, tmp) {
		if (d->elf == elf) {
			HASH_DEL(datas, d);
			stats_append(d->st);
			free(d->bp.over);
			free(d);
		}
	}
	atomic_fetch_add(&generation, 1);
	pthread_rwlock_unlock(&lock);
	if (e) {
		shim_sigbus_forget(e->map_base);
		free(e->keep[0]);
		free(e->keep[1]);
		free(e);
	}
}

/* Which live Elf owns @scn? Called with the read lock held. */
static struct elf_ent *owner_of(Elf_Scn *scn)
{
	struct elf_ent *e, *tmp;
	size_t ndx = real_ops.elf_ndxscn(scn);

	HASH_ITER(hh, elves, e, tmp) {
		size_t shnum = 0;

		/* bound first: a failing libelf call would change elf_errno() */
		if (real_ops.elf_getshdrnum(e->elf, &shnum) == 0 && ndx < shnum &&
		    real_ops.elf_getscn(e->elf, ndx) == scn)
			return e;
	}
	return NULL;
}

void shim_track_data(Elf_Scn *scn, Elf_Data *data)
{
	GElf_Shdr sh;
	struct elf_ent *owner;
	struct data_ent *d, *old = NULL;

	if (!real_ops.gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
		return;
	if (!sh.sh_entsize || sh.sh_size / sh.sh_entsize > 0x7fffffff)
		return;
	d = calloc(1, sizeof(*d));
	if (!d)
		return;
	d->data = data;
	d->table = sh.sh_type == SHT_DYNSYM;
	d->nsyms = (uint32_t)(sh.sh_size / sh.sh_entsize);
	d->link = sh.sh_link;
	pthread_rwlock_wrlock(&lock);
	owner = owner_of(scn);
	HASH_FIND_PTR(datas, &data, old);
	if (old) {
		HASH_DEL(datas, old);
		stats_append(old->st);
		free(old->bp.over);
		free(old);
	}
	if (owner) {
		d->elf = owner->elf;
		HASH_ADD_PTR(datas, data, d);
		d = NULL;
	}
	atomic_fetch_add(&generation, 1);
	pthread_rwlock_unlock(&lock);
	free(d);
}

/* ---- per-scan planning ------------------------------------------------- */

static int ent_build_id(struct elf_ent *e)
{
	if (e->bid_state == 0) {
		int r = elf_read_build_id(&real_ops, e->elf, e->bid, sizeof(e->bid));

		e->bid_state = r > 0 ? 1 : -1;
		e->bid_len = r > 0 ? r : 0;
	}
	return e->bid_state > 0;
}

static int section_named(Elf *elf, const char *want, Elf_Scn **out, GElf_Shdr *shout)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (real_ops.elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	while ((scn = real_ops.elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *n;

		if (!real_ops.gelf_getshdr(scn, &sh))
			continue;
		n = real_ops.elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, want)) {
			if (out)
				*out = scn;
			if (shout)
				*shout = sh;
			return 1;
		}
	}
	return 0;
}

/* Kernel images and modules are never filtered (perf remaps their maps). */
static int is_kernel_like(Elf *elf)
{
	GElf_Ehdr eh;

	if (!real_ops.gelf_getehdr(elf, &eh))
		return 1;
	if (eh.e_type == ET_REL)
		return 1;
	return section_named(elf, "__ksymtab", NULL, NULL) || section_named(elf, ".modinfo", NULL, NULL) ||
	       section_named(elf, "__ksymtab_strings", NULL, NULL);
}

/* Size of the file behind a tracked Elf, 0 if unknown. */
static uint64_t ent_size(const struct elf_ent *e)
{
	return e->have_st && e->st.st_size > 0 ? (uint64_t)e->st.st_size : 0;
}

/* A runtime layout is usable when some PT_LOAD has file bytes and .text is
 * not NOBITS (separate debug files have bogus program headers). */
static int layout_of(Elf *elf, uint64_t fsize, struct symidx_layout *lay)
{
	GElf_Shdr sh;
	unsigned i;

	if (symindex_layout(&real_ops, elf, fsize, lay) < 0)
		return 0;
	if (section_named(elf, ".text", NULL, &sh) && sh.sh_type == SHT_NOBITS)
		return 0;
	for (i = 0; i < lay->nloads; i++)
		if (lay->loads[i].offset || lay->loads[i].size)
			if (lay->loads[i].size && lay->loads[i].offset + lay->loads[i].size > 0 && lay->loads[i].vaddr + lay->loads[i].size)
				return 1;
	return 0;
}

static int runtime_layout(struct elf_ent *self, const struct pd_dso *dso, struct symidx_layout *lay)
{
	struct elf_ent *e, *tmp;
	int found = 0;

	if (layout_of(self->elf, ent_size(self), lay))
		return 1;
	/* perf's runtime_ss is alive beside the debug file: same build-id. */
	pthread_rwlock_rdlock(&lock);
	HASH_ITER(hh, elves, e, tmp) {
		/* only Elfs of this thread: another thread may be using its own,
		 * and libelf does no locking (perf opens runtime_ss and syms_ss
		 * in the same thread) */
		if (e == self || e->tid != self->tid || !ent_build_id(e) || e->bid_len != self->bid_len ||
		    memcmp(e->bid, self->bid, (size_t)e->bid_len))
			continue;
		if (layout_of(e->elf, ent_size(e), lay)) {
			found = 1;
			break;
		}
	}
	pthread_rwlock_unlock(&lock);
	if (found || !dso || !dso->path)
		return found;
	{
		int fd = open(dso->path, O_RDONLY | O_CLOEXEC);
		Elf *elf;
		unsigned char bid[20];

		if (fd < 0)
			return 0;
		elf = real_ops.elf_begin(fd, ELF_C_READ_MMAP, NULL);
		if (elf) {
			int r = elf_read_build_id(&real_ops, elf, bid, sizeof(bid));

			struct stat st;

			if (r == self->bid_len && !memcmp(bid, self->bid, (size_t)r))
				found = layout_of(elf, fstat(fd, &st) == 0 && st.st_size > 0 ?
						  (uint64_t)st.st_size : 0, lay);
			real_ops.elf_end(elf);
		}
		close(fd);
	}
	return found;
}

static uint64_t file_key(const struct elf_ent *e)
{
	uint64_t k = 1469598103934665603ull;
	uint64_t v[5] = { e->st.st_dev, e->st.st_ino, (uint64_t)e->st.st_size,
			  (uint64_t)e->st.st_mtim.tv_sec, (uint64_t)e->st.st_mtim.tv_nsec };

	for (int i = 0; i < 5; i++)
		k = (k ^ v[i]) * 1099511628211ull;
	return e->have_st ? k : 0;
}

/* Make the lazy plan for the Elf of @e (once). Sets e->plan_mode. */
static void make_lazy_plan(struct elf_ent *e)
{
	const struct pd_dso *dso;
	struct symidx_layout lay;
	struct symidx_src src;
	struct symidx idx;
	uint32_t nsym = 0, ndyn = 0;
	int r;

	e->plan_state = 1;
	e->plan_mode = PM_EAGER;
	if (!ent_build_id(e)) {
		snprintf(e->reason, sizeof(e->reason), "no build-id");
		return;
	}
	dso = perfdata_find_build_id(&addrs, e->bid, (size_t)e->bid_len);
	if (!dso) {
		snprintf(e->reason, sizeof(e->reason), "DSO has no samples in perf.data");
		return;
	}
	if (!runtime_layout(e, dso, &lay)) {
		snprintf(e->reason, sizeof(e->reason), "no runtime ELF with program headers");
		return;
	}
	memset(&src, 0, sizeof(src));
	src.ops = &real_ops;
	src.elf = e->elf;
	symindex_src_tables(&real_ops, e->elf, &src);
	nsym = src.nsymtab;
	ndyn = src.ndynsym;
	src.layout = &lay;
	src.build_id = e->bid;
	src.build_id_len = (size_t)e->bid_len;
	src.cache_dirfd = cache_dirfd;
	src.file_key = file_key(e);
	src.demangle = dem_mode;
	r = symindex_open(&src, &idx);
	if (r < 0) {
		snprintf(e->reason, sizeof(e->reason), "index build failed: %s", strerror(-r));
		return;
	}
	e->keep[0] = calloc(nsym / 8 + 1, 1);
	e->keep[1] = calloc(ndyn / 8 + 1, 1);
	e->nkeep[0] = nsym;
	e->nkeep[1] = ndyn;
	if (!e->keep[0] || !e->keep[1]) {
		snprintf(e->reason, sizeof(e->reason), "out of memory");
		goto out;
	}
	r = symindex_plan(&idx, &lay, &src, dso->addrs, dso->nr_addrs, e->keep[0], e->keep[1],
			  &e->kept_groups, e->reason, sizeof(e->reason));
	if (r == 0)
		e->plan_mode = PM_LAZY;
	else if (r < 0)
		snprintf(e->reason, sizeof(e->reason), "plan failed: %s", strerror(-r));
out:
	symindex_close(&idx);
	if (e->plan_mode != PM_LAZY) {
		free(e->keep[0]);
		free(e->keep[1]);
		e->keep[0] = e->keep[1] = NULL;
	}
}

static struct elf_ent *find_elf(Elf *elf)
{
	struct elf_ent *e = NULL;

	pthread_rwlock_rdlock(&lock);
	HASH_FIND_PTR(elves, &elf, e);
	pthread_rwlock_unlock(&lock);
	return e;
}

static int perf_candidate(const GElf_Sym *s);
static size_t name_len(const struct data_ent *d, const GElf_Sym *s);
static void budget_warn(const struct data_ent *d);

static int bp_get(void *ctx, uint32_t idx, struct bp_sym *out)
{
	const struct data_ent *d = ctx;
	GElf_Sym s;

	if (!real_ops.gelf_getsym(d->data, (int)idx, &s))
		return -1;
	out->value = s.st_value;
	out->size = s.st_size;
	out->candidate = perf_candidate(&s);
	out->namelen = out->candidate ? name_len(d, &s) : 0;
	return 0;
}

/* PM_BUDGET: charge the whole table now, find the cut (budgetplan.h). */
static void plan_budget(struct data_ent *d)
{
	free(d->bp.over);
	budget_plan_table(&budget, d->nsyms, bp_get, d, &d->bp);
	d->bp_cursor = 0;
	if (d->st) {
		d->st->passed += d->bp.passed;
		d->st->dropped += d->bp.dropped;
		d->st->bytes += d->bp.charged;
	}
	if (d->bp.cut < d->nsyms && d->bp.dropped)
		budget_warn(d);
}

/* Start of a scan (idx 1 reached): pick the mode for it. */
static void begin_scan(struct data_ent *d, uintptr_t site)
{
	struct elf_ent *e = find_elf(d->elf);
	struct scan_stats *s = calloc(1, sizeof(*s));
	int filterable = !is_perf || site_in_exe(site);

	d->mode = PM_EAGER;
	d->keep = NULL;
	d->nkeep = 0;
	d->st = s;
	if (s) {
		s->table = d->table ? "dynsym" : "symtab";
		s->mode = "eager";
		if (e) {
			snprintf(s->path, sizeof(s->path), "%s", e->path);
			s->mmap = e->mmapped;
		}
	}
	if (!e)
		return;
	if (!filterable || is_kernel_like(e->elf)) {
		d->mode = PM_NONE;
		if (s) {
			s->mode = "passthrough";
			snprintf(s->reason, sizeof(s->reason), "%s",
				 filterable ? "kernel image or module" : "scan not issued by perf itself");
		}
		return;
	}
	if (ent_build_id(e) && s) {
		char hex[41];

		snprintf(s->build_id, sizeof(s->build_id), "%s", build_id_hex(e->bid, (size_t)e->bid_len, hex));
	}
	{
		/* the string table, to charge names: the same Elf_Data libelf gives
		 * perf (libelf caches it per section), bounds-checked so no libelf
		 * call fails and changes elf_errno() */
		size_t shnum = 0;
		Elf_Scn *scn;

		if (real_ops.elf_getshdrnum(d->elf, &shnum) == 0 && d->link && d->link < shnum &&
		    (scn = real_ops.elf_getscn(d->elf, d->link)) != NULL)
			d->strtab = real_ops.elf_getdata(scn, NULL);
	}
	if (cfg.hide_all) {
		d->mode = PM_HIDE;
		if (s)
			s->mode = "hidden";
		return;
	}
	if (lazy_on) {
		if (!e->plan_state)
			make_lazy_plan(e);
		if (e->plan_mode == PM_LAZY) {
			d->mode = PM_LAZY;
			d->keep = e->keep[d->table];
			d->nkeep = e->nkeep[d->table];
			if (s)
				s->mode = "lazy";
		} else if (s) {
			snprintf(s->reason, sizeof(s->reason), "%s", e->reason);
		}
	} else if (s) {
		snprintf(s->reason, sizeof(s->reason), "%s", totals.lazy_reason);
	}
	if (d->mode == PM_EAGER && cfg.max_bytes) {
		d->mode = PM_BUDGET;
		if (s)
			s->mode = "budget";
	}
	if (d->mode == PM_BUDGET)
		plan_budget(d);
}

static void end_scan(struct data_ent *d)
{
	stats_append(d->st);
	d->st = NULL;
}

/* Would perf 6.1 keep this symbol (ignoring section checks)? Used for
 * charging and counting only; exact modelling lives in symindex.c. */
static int perf_candidate(const GElf_Sym *s)
{
	int t = GELF_ST_TYPE(s->st_info), vis = GELF_ST_VISIBILITY(s->st_other);

	if (!s->st_name || s->st_shndx == SHN_UNDEF || s->st_shndx == SHN_ABS)
		return 0;
	return t == STT_FUNC || t == STT_GNU_IFUNC || t == STT_OBJECT ||
	       (t == STT_NOTYPE && vis != STV_HIDDEN && vis != STV_INTERNAL);
}

static void null_sym(GElf_Sym *dst, Elf32_Word *xshndx)
{
	memset(dst, 0, sizeof(*dst));
	if (xshndx)
		*xshndx = 0;
}

static size_t name_len(const struct data_ent *d, const GElf_Sym *s)
{
	const char *p;

	if (!d->strtab || !d->strtab->d_buf || s->st_name >= d->strtab->d_size)
		return 0;
	p = (const char *)d->strtab->d_buf + s->st_name;
	return strnlen(p, d->strtab->d_size - s->st_name);
}

static void budget_warn(const struct data_ent *d)
{
	if (atomic_exchange(&budget_warned, 1))
		return;
	warnx_line("symlazy: symbol budget of %llu bytes (SYMLAZY_MAX_BYTES) exhausted while loading %s; "
		   "its remaining symbols and those of later DSOs show as [unknown]; raise SYMLAZY_MAX_BYTES to keep more",
		   (unsigned long long)cfg.max_bytes, d->st && d->st->path[0] ? d->st->path : "a DSO");
}

static __thread __attribute__((tls_model("initial-exec"))) struct {
	Elf_Data *data;
	struct data_ent *d;
	unsigned long gen;
} tcache;

void shim_filter_sym(Elf_Data *data, int ndx, GElf_Sym *dst, Elf32_Word *xshndx, uintptr_t site)
{
	struct data_ent *d = NULL;
	unsigned long gen = atomic_load_explicit(&generation, memory_order_acquire);
	enum scan_verdict v;
	int saved = errno;

	if (tcache.data == data && tcache.gen == gen) {
		d = tcache.d;
	} else {
		pthread_rwlock_rdlock(&lock);
		HASH_FIND_PTR(datas, &data, d);
		pthread_rwlock_unlock(&lock);
		tcache.data = data;
		tcache.d = d;
		tcache.gen = gen;
	}
	if (!d || ndx < 0)
		goto out;
	v = scan_step(&d->scan, (uint64_t)ndx, d->nsyms, site, is_perf);
	if (v == SCAN_START) {
		if (d->st)
			end_scan(d);
		goto out;
	}
	if (v != SCAN_NEXT)
		goto out;
	if (ndx == 1)
		begin_scan(d, site);
	if (d->st)
		d->st->scanned++;
	switch (d->mode) {
	case PM_NONE:
		break;
	case PM_HIDE:
		if (perf_candidate(dst) && d->st)
			d->st->dropped++;
		null_sym(dst, xshndx);
		break;
	case PM_BUDGET:
		if ((uint32_t)ndx >= d->bp.cut) {
			if (perf_candidate(dst))
				null_sym(dst, xshndx);
			break;
		}
		while (d->bp_cursor < d->bp.nover && d->bp.over[d->bp_cursor].idx < (uint32_t)ndx)
			d->bp_cursor++;
		if (d->bp_cursor < d->bp.nover && d->bp.over[d->bp_cursor].idx == (uint32_t)ndx)
			dst->st_size = d->bp.over[d->bp_cursor].size;
		break;
	case PM_LAZY: {
		int keep = d->keep && (uint32_t)ndx < d->nkeep && BIT_TEST(d->keep, (uint32_t)ndx);

		if (!keep) {
			if (perf_candidate(dst) && d->st)
				d->st->dropped++;
			null_sym(dst, xshndx);
			break;
		}
	}
		/* kept symbols are charged like eager ones */
		__attribute__((fallthrough));
	case PM_EAGER:
		/* no budget and nobody reading the counters: nothing to do */
		if ((!cfg.max_bytes && cfg.stats == STATS_OFF) || !perf_candidate(dst))
			break;
		{
			uint64_t cost = budget_symbol_cost(name_len(d, dst));

			if (budget_try_charge(&budget, cost)) {
				if (d->st) {
					d->st->passed++;
					d->st->bytes += cost;
				}
			} else {
				budget_warn(d);
				if (d->st)
					d->st->dropped++;
				null_sym(dst, xshndx);
			}
		}
		break;
	}
	if ((uint64_t)ndx + 1 >= d->nsyms)
		end_scan(d);
out:
	errno = saved;
}

static void report_stats(void)
{
	FILE *f;

	totals.charged_bytes = atomic_load(&budget.used);
	totals.refused_bytes = atomic_load(&budget.refused);
	pthread_mutex_lock(&stats_lock);
	if (cfg.stats == STATS_FILE) {
		f = fopen(cfg.stats_path, "we");
		if (!f) {
			warnx_line("symlazy: cannot write stats to %s: %s", cfg.stats_path, strerror(errno));
		} else {
			int r = stats_write_json(f, &totals, stats_head);

			if (fclose(f) != 0 || r < 0)
				warnx_line("symlazy: cannot write stats to %s: %s", cfg.stats_path, strerror(errno ? errno : EIO));
		}
	} else {
		fflush(stderr);
		fputs("symlazy stats: ", stderr);
		stats_write_json(stderr, &totals, stats_head);
		fflush(stderr);
	}
	pthread_mutex_unlock(&stats_lock);
}
