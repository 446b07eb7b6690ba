/* SPDX-License-Identifier: MIT */
/*
 * bcc_state.c - the libbcc symcache handles the tool holds, each with our
 * model of the same ProcSyms (index/bccsyms.h), made at the same moment as
 * libbcc's own. `lock` protects the table; one entry is used by one thread at
 * a time (bcc's caches are not thread-safe either), its own mutex keeps it so.
 * Entries are freed when the tool frees the cache.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define HASH_NONFATAL_OOM 1
#include <uthash.h>

#include "shim.h"
#include "core/session.h"
#include "core/models.h"
#include "core/tool.h"
#include "util/util.h"

struct bcc_ent {
	void *cache;
	pthread_mutex_t mu;
	struct sl_bcc_proc proc;
	UT_hash_handle hh;
};

static struct bcc_ent *caches;
static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_once_t dem_once = PTHREAD_ONCE_INIT;
static sl_bcc_demangle_fn demangler;

/* bcc demangles with libstdc++'s __cxa_demangle (bcc_syms.cc resolve_addr);
 * the tool links libstdc++ (bpftrace is C++), so the same one is loaded. */
static void find_demangler(void)
{
	demangler = (sl_bcc_demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
}

/* The models of the libbcc the real entry points are in, by the version in
 * its file name (core/model/bcc031.c says why the name): found once, after
 * the entry points are resolved. NULL: a libbcc version no model mirrors,
 * whose calls pass through untouched (no cache answered, no scan planned). */
static pthread_once_t models_once = PTHREAD_ONCE_INIT;
static const struct sl_bcc_models *lib_models;

static void find_models(void)
{
	struct sl_session *s = shim_session();
	char real[PATH_MAX], ver[32] = "";
	Dl_info info;

	if (real_bcc.symcache_new && dladdr((void *)real_bcc.symcache_new, &info) && info.dli_fname &&
	    realpath(info.dli_fname, real) && sl_bcc_version_of_file(real, ver, sizeof(ver)))
		lib_models = sl_bcc_models_for_version(ver);
	if (!lib_models && s && s->cfg.verbose)
		sl_warnx("symlazy: libbcc %s is not 0.26 or 0.31, whose symbol caches symlazy mirrors; "
			 "libbcc answers itself", ver[0] ? ver : "of unknown version");
}

const struct sl_bcc_models *shim_bcc_models(void)
{
	pthread_once(&models_once, find_models);
	return lib_models;
}

void shim_bcc_track(void *cache, int pid, const void *option)
{
	struct sl_session *s = shim_session();
	struct bcc_ent *e, *old = NULL;

	if (!s || !sl_session_bcc_answers(s) || !shim_bcc_models())
		return;
	e = calloc(1, sizeof(*e));
	if (!e)
		return;
	e->cache = cache;
	pthread_mutex_init(&e->mu, NULL);
	sl_bcc_proc_load(&e->proc, &s->bcc, pid, option, "/proc");
	atomic_fetch_add(&s->bcc_caches, 1);
	pthread_rwlock_wrlock(&lock);
	HASH_FIND_PTR(caches, &cache, old);
	if (old)
		HASH_DEL(caches, old);
	HASH_ADD_PTR(caches, cache, e);
	pthread_rwlock_unlock(&lock);
	if (old) {
		sl_bcc_proc_free(&old->proc);
		free(old);
	}
}

void shim_bcc_forget(void *cache)
{
	struct bcc_ent *e = NULL;

	pthread_rwlock_wrlock(&lock);
	HASH_FIND_PTR(caches, &cache, e);
	if (e)
		HASH_DEL(caches, e);
	pthread_rwlock_unlock(&lock);
	if (e) {
		sl_bcc_proc_free(&e->proc);
		pthread_mutex_destroy(&e->mu);
		free(e);
	}
}

static struct bcc_ent *find(void *cache)
{
	struct bcc_ent *e = NULL;

	pthread_rwlock_rdlock(&lock);
	HASH_FIND_PTR(caches, &cache, e);
	if (e)
		pthread_mutex_lock(&e->mu);
	pthread_rwlock_unlock(&lock);
	return e;
}

void shim_bcc_refresh(void *cache)
{
	struct sl_session *s = shim_session();
	struct bcc_ent *e = find(cache);
	struct sl_bcc_option opt;
	int pid;

	if (!e)
		return;
	/* ProcSyms::refresh(): modules reloaded from /proc/PID/maps */
	opt = e->proc.opt;
	pid = e->proc.pid;
	sl_bcc_proc_free(&e->proc);
	sl_bcc_proc_load(&e->proc, &s->bcc, pid, &opt, "/proc");
	pthread_mutex_unlock(&e->mu);
}

int shim_bcc_resolve(void *cache, uint64_t addr, void *sym, int demangle)
{
	struct sl_session *s = shim_session();
	struct bcc_ent *e;
	int r;

	if (!s)
		return SL_BCC_DELEGATE;
	e = find(cache);
	if (!e)
		return SL_BCC_DELEGATE;
	pthread_once(&dem_once, find_demangler);
	r = sl_bcc_resolve(&e->proc, &s->bcc, addr, sym, demangle, demangler);
	pthread_mutex_unlock(&e->mu);
	atomic_fetch_add(r == SL_BCC_DELEGATE ? &s->bcc_delegated : &s->bcc_answered, 1);
	return r;
}

/* ---- libbcc's scans ------------------------------------------------------ */

/* libbcc's callbacks that keep what they are given (bcc 0.26 syms.h):
 * ProcSyms::Module::_add_symbol / _add_symbol_lazy (a process's symbol
 * cache) and BuildSyms::Module::_add_symbol (build-id stacks). They are
 * exported C++ symbols of the libbcc the callback comes from. */
struct bcc_cbs {
	const void *base;
	void *add, *add_lazy, *build_add;
};

static struct bcc_cbs cb_cache[4];
static pthread_mutex_t cb_lock = PTHREAD_MUTEX_INITIALIZER;

static const struct bcc_cbs *callbacks_of(const void *cb)
{
	Dl_info info;
	const struct bcc_cbs *r = NULL;
	void *h;

	if (!cb || !dladdr(cb, &info) || !info.dli_fname)
		return NULL;
	pthread_mutex_lock(&cb_lock);
	for (int i = 0; i < 4; i++)
		if (cb_cache[i].base == info.dli_fbase) {
			r = &cb_cache[i];
			goto out;
		}
	for (int i = 0; i < 4; i++) {
		if (cb_cache[i].base)
			continue;
		h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
		cb_cache[i].base = info.dli_fbase;
		if (h) {
			cb_cache[i].add = dlsym(h, "_ZN8ProcSyms6Module11_add_symbolEPKcmmPv");
			cb_cache[i].add_lazy = dlsym(h, "_ZN8ProcSyms6Module16_add_symbol_lazyEmmmmmiPv");
			cb_cache[i].build_add = dlsym(h, "_ZN9BuildSyms6Module11_add_symbolEPKcmmPv");
			dlclose(h);
		}
		r = &cb_cache[i];
		break;
	}
out:
	pthread_mutex_unlock(&cb_lock);
	return r;
}

static __thread __attribute__((tls_model("initial-exec"))) const struct sl_scan_ctx *cur_ctx;

const struct sl_scan_ctx *shim_scan_ctx(void)
{
	return cur_ctx;
}

void shim_bcc_scan_begin(struct shim_bcc_scan *sc, const char *path, void *cb, void *option,
			 int lazy, uintptr_t site)
{
	struct sl_session *s = shim_session();
	const struct sl_bcc_models *bm = shim_bcc_models();
	const struct bcc_cbs *k;
	struct sl_bcc_option opt;

	memset(sc, 0, sizeof(*sc));
	if (!s || !option || !path)
		return;
	memcpy(&opt, option, sizeof(opt));
	opt.lazy_symbolize = lazy;
	sc->ctx.bcc = 1;
	sc->ctx.types = opt.use_symbol_type;
	k = callbacks_of(cb);
	if (k && cb && bm && (cb == k->add || cb == k->add_lazy)) {
		/* a ProcSyms module load: libbcc keeps every symbol, sorted */
		sc->ctx.model = lazy ? bm->lazy : bm->eager;
		sc->have_plan = sl_session_bcc_plan(s, path, &opt, sc->ctx.model, &sc->plan);
		if (sc->have_plan)
			sc->ctx.plan = &sc->plan;
	} else if (k && cb && bm && cb == k->build_add) {
		sc->ctx.model = bm->build;
	} else if (s->tool == SL_TOOL_BPFTRACE && shim_site_in_exe(site)) {
		sc->ctx.model = sl_charge_model(SL_TOOL_BPFTRACE, 0, NULL);  /* bpftrace's own scans */
	} else {
		sc->ctx.model = &sl_model_other;            /* a callback we do not know */
	}
	sc->prev = cur_ctx;
	cur_ctx = &sc->ctx;
	sc->active = 1;
}

void shim_bcc_scan_end(struct shim_bcc_scan *sc)
{
	if (!sc->active)
		return;
	cur_ctx = sc->prev;
	if (sc->have_plan)
		sl_bcc_plan_free(&sc->plan);
}
