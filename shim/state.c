/* SPDX-License-Identifier: MIT */
/*
 * state.c - the one process state of the preload layer: the core session
 * (core/session.h: every decision), the registries that map the tool's libelf
 * handles to core objects, and the hooks the wrappers call.
 *
 * Registries and their thread rules:
 *   elves  Elf *      -> struct elf_ent (a struct sl_dso: one opened file)
 *   datas  Elf_Data * -> struct data_ent (a struct sl_table: one symbol table)
 *   - `P.lock` (rwlock) protects both uthash tables. Real libelf is never
 *     called with the write lock held; the read lock is held only around
 *     libelf calls that do not re-enter exported functions (elf_getscn,
 *     gelf_getshdr, note reads), so an elf_end in another thread cannot free
 *     an Elf we are looking at.
 *   - A table is scanned by one thread at a time (libelf is not thread-safe
 *     per Elf); its DSO's plan is made by that thread; sibling DSOs (a
 *     runtime ELF beside a debug file) are searched among the calling
 *     thread's Elfs only.
 *   - `P.generation` changes on every registry change; each thread caches its
 *     last (Elf_Data, entry) pair for that generation.
 *   - Nothing is freed at exit (perf top threads may still run).
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#define HASH_NONFATAL_OOM 1
#include <uthash.h>

#include "core/a2lsess.h"
#include "shim.h"
#include "core/dwarfsec.h"
#include "core/session.h"
#include "textsrc/textsrc.h"
#include "core/tool.h"
#include "util/util.h"

struct elf_ent {
	Elf *elf;
	const void *map_base;        /* libelf's file mapping when mmapped */
	struct sl_dso dso;
	UT_hash_handle hh;
};

struct data_ent {
	Elf_Data *data;
	struct sl_table tab;
	UT_hash_handle hh;
};

static struct {
	struct sl_session core;
	int inert;                   /* do nothing but forward */
	int ok_real;                 /* real libelf found */
	pthread_once_t once;
	pthread_rwlock_t lock;
	struct elf_ent *elves;
	struct data_ent *datas;
	_Atomic unsigned long generation;
	atomic_int setup_done;       /* setup() has returned: ok_real is final */
	struct { uintptr_t lo, hi; } exe_text[8];
	int n_exe_text;
	int perf_proc;               /* the executable is perf: shim_text_open looks at paths only then */
} P = {
	.inert = 1,
	.once = PTHREAD_ONCE_INIT,
	.lock = PTHREAD_RWLOCK_INITIALIZER,
	.generation = 1,
};

static const char *env_get(const char *name)
{
	return getenv(name);
}

/* Constructor: read the environment, go inert for setuid/AT_SECURE, drop
 * ourselves from LD_PRELOAD when the core says so (sl_session_config).
 * Opens no files, calls no libelf. */
__attribute__((constructor)) static void symlazy_init(void)
{
	const char *lp;

	if (getauxval(AT_SECURE) || !sl_session_config(&P.core, env_get))
		return;
	P.perf_proc = sl_tool_self() == SL_TOOL_PERF;
	P.inert = 0;
	lp = getenv("LD_PRELOAD");
	if (lp && P.core.drop_preload) {
		size_t n = strlen(lp) + 1;
		char *out = malloc(n);

		if (out && sl_preload_without_self(lp, out, n)) {
			if (*out)
				setenv("LD_PRELOAD", out, 1);
			else
				unsetenv("LD_PRELOAD");
		}
		free(out);
	}
}

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size; (void)data;
	for (int i = 0; i < info->dlpi_phnum && P.n_exe_text < 8; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];

		if (p->p_type == PT_LOAD && (p->p_flags & PF_X)) {
			P.exe_text[P.n_exe_text].lo = info->dlpi_addr + p->p_vaddr;
			P.exe_text[P.n_exe_text].hi = info->dlpi_addr + p->p_vaddr + p->p_memsz;
			P.n_exe_text++;
		}
	}
	return 1;       /* the first object is the main program */
}

static int site_in_exe(uintptr_t site)
{
	for (int i = 0; i < P.n_exe_text; i++)
		if (site >= P.exe_text[i].lo && site < P.exe_text[i].hi)
			return 1;
	return 0;
}

int shim_site_in_exe(uintptr_t site)
{
	return shim_ready() && site_in_exe(site);
}

static void setup_inner(void);

static void report_stats(void)
{
	sl_session_report(&P.core);
}

static void report_a2l(void)
{
	sl_a2l_report(P.core.a2l);
}

/* Set while the shim itself runs code that opens files (setup,
 * text filtering), so those opens go straight to libc */
static __thread __attribute__((tls_model("initial-exec"))) int in_shim;

static void setup(void)
{
	int was = in_shim;

	in_shim = 1;
	setup_inner();
	in_shim = was;
}

static void setup_inner(void)
{
	P.ok_real = shim_resolve();
	if (!P.ok_real) {
		sl_warnx("symlazy: cannot find the real libelf functions; symlazy is inactive");
		P.inert = 1;
		return;
	}
	if (P.inert)
		return;
	dl_iterate_phdr(phdr_cb, NULL);
	sl_session_setup(&P.core, &real_ops);
	if (P.core.cfg.stats != STATS_OFF)
		atexit(report_stats);
	if (P.core.a2l && P.core.cfg.max_bytes)
		atexit(report_a2l);
}

__thread struct shim_tscan shim_tscan __attribute__((tls_model("initial-exec")));

/* Called on every interposed libelf call (perf makes one gelf_getsym call
 * per symbol of every table it scans): after set-up one acquire load, no
 * call into libc's pthread_once. */
int shim_ready(void)
{
	if (__builtin_expect(atomic_load_explicit(&P.setup_done, memory_order_acquire), 1))
		return P.ok_real;
	pthread_once(&P.once, setup);
	atomic_store_explicit(&P.setup_done, 1, memory_order_release);
	return P.ok_real;
}

int shim_active(void)
{
	return !P.inert;
}

struct sl_session *shim_session(void)
{
	return shim_ready() && !P.inert ? &P.core : NULL;
}

int shim_elf_identity(void *ctx, Elf *elf, struct sl_file_id *id)
{
	struct elf_ent *e = NULL;
	int ok = 0;

	(void)ctx;
	pthread_rwlock_rdlock(&P.lock);
	HASH_FIND_PTR(P.elves, &elf, e);
	if (e && e->dso.have_st && S_ISREG(e->dso.st.st_mode)) {
		sl_file_id_from_stat(id, &e->dso.st);
		ok = 1;
	}
	pthread_rwlock_unlock(&P.lock);
	return ok;
}

Elf_Cmd shim_begin_cmd(int fd, Elf_Cmd cmd, Elf *ref, int *upgraded)
{
	return sl_session_begin_cmd(&P.core, fd, cmd, ref, upgraded);
}

static void free_data(struct data_ent *d)
{
	sl_table_forget(&P.core, &d->tab);
	free(d);
}

static void free_elf(struct elf_ent *e)
{
	sl_dso_free(&e->dso);
	free(e);
}

void shim_track_elf(Elf *elf, int fd, int mmapped)
{
	struct elf_ent *e = calloc(1, sizeof(*e)), *old = NULL;

	if (!e)
		return;
	e->elf = elf;
	sl_dso_init(&e->dso, elf, fd, mmapped);
	if (mmapped) {
		size_t sz = 0;
		char *base = real_x.elf_rawfile(elf, &sz);

		if (base && sz) {
			e->map_base = base;
			shim_sigbus_watch(base, sz);
		}
	}
	pthread_rwlock_wrlock(&P.lock);
	HASH_FIND_PTR(P.elves, &elf, old);
	if (old) {            /* stale entry: pointer reused without our elf_end */
		struct data_ent *d, *tmp;

		HASH_DEL(P.elves, old);
		/* the old Elf's data handles died with it: their tables (scan
		 * state, mode, string table) belong to the old DSO and would be
		 * looked up as the new one's (d->tab.elf is the same pointer).
		 * Forget them, and flush their stats, as shim_forget_elf does. */
		HASH_ITER(hh, P.datas, d, tmp) {
			if (d->tab.elf == elf) {
				HASH_DEL(P.datas, d);
				free_data(d);
			}
		}
	}
	HASH_ADD_PTR(P.elves, elf, e);
	atomic_fetch_add(&P.generation, 1);
	pthread_rwlock_unlock(&P.lock);
	if (old)
		free_elf(old);
}

static void disarm_data(Elf_Data *data);

void shim_forget_elf(Elf *elf)
{
	struct elf_ent *e = NULL;
	struct data_ent *d, *tmp;

	shim_dwfl_forget_elf(elf);
	pthread_rwlock_wrlock(&P.lock);
	HASH_FIND_PTR(P.elves, &elf, e);
	if (e)
		HASH_DEL(P.elves, e);
	HASH_ITER(hh, P.datas, d, tmp) {
		if (d->tab.elf == elf) {
			disarm_data(d->data);       /* this thread's; others' stay (slow path only) */
			HASH_DEL(P.datas, d);
			free_data(d);
		}
	}
	atomic_fetch_add(&P.generation, 1);
	pthread_rwlock_unlock(&P.lock);
	if (e) {
		shim_sigbus_forget(e->map_base);
		free_elf(e);
	}
}

/* Which live Elf owns @scn? Called with the read lock held. */
static struct elf_ent *owner_of(Elf_Scn *scn)
{
	struct elf_ent *e, *tmp;
	size_t ndx = real_ops.elf_ndxscn(scn);

	HASH_ITER(hh, P.elves, e, tmp) {
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

	if (!real_ops.gelf_getshdr(scn, &sh))
		return;
	d = calloc(1, sizeof(*d));
	if (!d)
		return;
	if (sl_table_init(&d->tab, data, &sh) < 0) {
		free(d);
		return;
	}
	d->tab.shndx = (uint32_t)real_ops.elf_ndxscn(scn);
	d->data = data;
	pthread_rwlock_wrlock(&P.lock);
	owner = owner_of(scn);
	HASH_FIND_PTR(P.datas, &data, old);
	if (old) {
		HASH_DEL(P.datas, old);
		free_data(old);
	}
	if (owner) {
		d->tab.elf = owner->elf;
		HASH_ADD_PTR(P.datas, data, d);
		d = NULL;
	}
	atomic_fetch_add(&P.generation, 1);
	pthread_rwlock_unlock(&P.lock);
	free(d);
}

/* sl_sibling_fn: a live Elf of the same thread with the same build-id that
 * has a runtime layout (perf opens runtime_ss and syms_ss in one thread;
 * another thread's Elfs may be in use, and libelf does no locking). */
static int sibling_layout(void *ctx, struct sl_dso *self, struct symidx_layout *lay)
{
	struct elf_ent *e, *tmp;
	int found = 0;

	(void)ctx;
	pthread_rwlock_rdlock(&P.lock);
	HASH_ITER(hh, P.elves, e, tmp) {
		struct sl_dso *o = &e->dso;

		if (o == self || o->tid != self->tid || !sl_dso_build_id(&P.core, o) ||
		    o->bid_len != self->bid_len || memcmp(o->bid, self->bid, (size_t)o->bid_len))
			continue;
		if (sl_elf_runtime_layout(&real_ops, o->elf, o->have_st && o->st.st_size > 0 ?
					  (uint64_t)o->st.st_size : 0, lay)) {
			found = 1;
			break;
		}
	}
	pthread_rwlock_unlock(&P.lock);
	return found;
}

static __thread __attribute__((tls_model("initial-exec"))) struct {
	Elf_Data *data;
	struct data_ent *d;
	struct elf_ent *e;
	unsigned long gen;
} tcache;

/*
 * This thread's tables with a live scan (started at index 0 by this thread,
 * next index below the table size, a mode with per-symbol work:
 * sl_table_watching), at most ARM_MAX; shim_tscan (shim.h)
 * summarises them for the wrappers' fast path (the one table, or all of them). A
 * set that overflows stays "all" for good (the slow path is always right);
 * elf_end removes the Elf's tables from the calling thread's set.
 * Scans are followed per thread: libelf is not thread-safe per Elf, and no
 * tool continues one thread's scan in another. A scan whose last element was
 * read is over: the only read left (index = size) fails in libelf and is
 * never filtered, so nothing is lost by not watching for it.
 */
#define ARM_MAX 4
static __thread __attribute__((tls_model("initial-exec"))) struct {
	Elf_Data *set[ARM_MAX];
	int n, overflow;
} armset;

static void summarise(void)
{
	if (armset.n > 1 || armset.overflow) {
		shim_tscan.lo = 0;
		shim_tscan.span = UINTPTR_MAX;
	} else {
		shim_tscan.lo = armset.n ? (uintptr_t)armset.set[0] : 0;
		shim_tscan.span = (uintptr_t)armset.n;
	}
}

static void disarm_data(Elf_Data *data)
{
	for (int i = 0; i < armset.n; i++)
		if (armset.set[i] == data) {
			armset.set[i] = armset.set[--armset.n];
			summarise();
			return;
		}
}

static void arm(Elf_Data *data, const struct sl_table *t)
{
	int live = sl_table_watching(&P.core, t), i;

	for (i = 0; i < armset.n && armset.set[i] != data; i++)
		;
	if (live && i == armset.n) {
		if (armset.n < ARM_MAX)
			armset.set[armset.n++] = data;
		else
			armset.overflow = 1;
	} else if (!live && i < armset.n) {
		armset.set[i] = armset.set[--armset.n];
	}
	summarise();
}

void shim_filter_sym(Elf_Data *data, int ndx, GElf_Sym *dst, Elf32_Word *xshndx, uintptr_t site)
{
	struct data_ent *d = NULL;
	struct elf_ent *e = NULL;
	unsigned long gen = atomic_load_explicit(&P.generation, memory_order_acquire);
	int saved = errno;

	if (tcache.data == data && tcache.gen == gen) {
		d = tcache.d;
		e = tcache.e;
	} else {
		pthread_rwlock_rdlock(&P.lock);
		HASH_FIND_PTR(P.datas, &data, d);
		if (d)
			HASH_FIND_PTR(P.elves, &d->tab.elf, e);
		pthread_rwlock_unlock(&P.lock);
		tcache.data = data;
		tcache.d = d;
		tcache.e = e;
		tcache.gen = gen;
	}
	if (d && ndx >= 0) {
		sl_table_filter_ctx(&P.core, &d->tab, e ? &e->dso : NULL, ndx, dst, xshndx, site,
				    site_in_exe(site), sibling_layout, NULL, shim_scan_ctx());
		arm(data, &d->tab);
	}
	errno = saved;
}

/* wrappers_libc.c asks here for every open. Outside perf, before
 * the constructor, or inside the shim's own work: -1 (forward) at once;
 * in perf the first call finishes setup (as the first libelf call would),
 * then only string compares decide (sl_session_text_kind). */
int shim_text_open(const char *path, int cloexec)
{
	int saved = errno, fd = -1, kind;

	if (P.inert || in_shim || !P.perf_proc || !path)
		return -1;
	in_shim = 1;
	if (shim_ready() && !P.inert) {
		kind = sl_session_text_kind(&P.core, path);
		if (kind != SL_TEXT_NONE)
			fd = sl_session_text_open(&P.core, path, kind, cloexec);
	}
	in_shim = 0;
	errno = saved;
	return fd;
}

/* perf's addr2line child (core/a2lsess.h). Only after set-up (a
 * child forked before perf's first libelf call runs the real addr2line:
 * set-up would read perf.data again in the child) and never in the shim. */
int shim_a2l_exec(const char *file, char *const argv[])
{
	if (P.inert || in_shim || !atomic_load_explicit(&P.setup_done, memory_order_acquire) || !P.ok_real)
		return -1;
	return sl_session_a2l_exec(&P.core, file, argv);
}

/* Is @site (a return address) inside libdw.so.1? The shim asks
 * the loader (dladdr); the rule is core/dwarfsec.c's. */
static uintptr_t libdw_base;

static int site_in_libdw(uintptr_t site)
{
	Dl_info info;

	if (!dladdr((void *)site, &info))
		return 0;
	return sl_dwsec_from_libdw(info.dli_fname, (uintptr_t)info.dli_fbase, &libdw_base);
}

int shim_dwarf_fd(int fd, Elf_Cmd cmd, Elf *ref, uintptr_t site)
{
	int r;

	if (P.inert || in_shim || !site_in_libdw(site))
		return -1;
	in_shim = 1;
	r = sl_dwsec_begin(&P.core, fd, cmd, ref);
	in_shim = 0;
	return r;
}

void shim_dwarf_adopt(Elf *elf, int cfd)
{
	sl_dwsec_adopt(&P.core, elf, cfd);
}

void shim_dwarf_forget(Elf *elf)
{
	sl_dwsec_forget(&P.core, elf);
}
