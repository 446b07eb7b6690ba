/* SPDX-License-Identifier: MIT */
/*
 * bcc_state.c - the libbcc symcache handles the tool holds, each with our
 * model of the same ProcSyms (core/bccsyms.h), made at the same moment as
 * libbcc's own. `lock` protects the table; one entry is used by one thread at
 * a time (bcc's caches are not thread-safe either), its own mutex keeps it so.
 * Entries are freed when the tool frees the cache.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define HASH_NONFATAL_OOM 1
#include <uthash.h>

#include "shim.h"
#include "session.h"

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

void shim_bcc_track(void *cache, int pid, const void *option)
{
	struct sl_session *s = shim_session();
	struct bcc_ent *e, *old = NULL;

	if (!s || !sl_session_bcc_answers(s))
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
