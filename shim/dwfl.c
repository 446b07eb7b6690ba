/* SPDX-License-Identifier: MIT */
/*
 * dwfl.c - the interposed libdw (libdwfl) symbol-by-address lookups and the
 * Dwfl_Module registry behind them. libdw.so.1 0.188 exports three entry
 * points that find a symbol by address: dwfl_module_addrsym,
 * dwfl_module_addrinfo and dwfl_module_addrname (libdwfl/libdwfl.h); tools
 * call them through the PLT, so all three are wrapped here. Inside libdw,
 * dwfl_module_addrname calls addrinfo through an internal alias and
 * dwfl_module_addrsym/addrinfo share the static __libdwfl_addrsym, so none of
 * those internal paths can be reached - hence addrname is wrapped itself. No
 * other libdw function searches symbols by address (libdwfl's unwinder and
 * dwfl_module_getsym* read by index).
 *
 * libdw is optional (resolve.c): with it unresolved every wrapper forwards to
 * whatever was found, else returns what libdw returns for a NULL module.
 * Decisions are core/dwfl.c's; this file forwards and keeps the registry:
 *   mods   Dwfl_Module * -> struct sl_dwfl_mod (uthash, one mutex; each
 *          thread caches its last hit for the registry generation). An
 *          elf_end of an Elf a module's index was built on removes the entry
 *          (libdwfl ends a module's Elfs when it frees the module, so a
 *          reused Dwfl_Module pointer starts afresh).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define HASH_NONFATAL_OOM 1
#include <uthash.h>

#include "shim.h"
#include "core/dwfl.h"
#include "core/session.h"

__thread int shim_in_core __attribute__((tls_model("initial-exec")));

struct mod_ent {
	Dwfl_Module *mod;
	struct sl_dwfl_mod m;
	UT_hash_handle hh;
};

static struct {
	pthread_mutex_t lock;
	struct mod_ent *mods;
	_Atomic unsigned long generation;
	_Atomic int nmods;
	struct sl_dwfl_ops ops;
	pthread_once_t once;
} D = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.generation = 1,
	.once = PTHREAD_ONCE_INIT,
};

static __thread __attribute__((tls_model("initial-exec"))) struct {
	Dwfl_Module *mod;
	struct mod_ent *e;
	unsigned long gen;
} mcache;

static void ops_init(void)
{
	D.ops.getsymtab = (int (*)(Dwfl_Module *))real_dw.getsymtab;
	D.ops.getsymtab_first_global = (int (*)(Dwfl_Module *))real_dw.getsymtab_first_global;
	D.ops.getsym_info = (void *)real_dw.getsym_info;
	D.ops.module_info = (void *)real_dw.module_info;
	D.ops.addrinfo = (void *)real_dw.addrinfo;
	D.ops.addrsym = (void *)real_dw.addrsym;
	D.ops.version = (void *)real_dw.version;
	D.ops.elf_identity = shim_elf_identity;
	D.ops.elf = &real_ops;
}

/* 1 if the index may answer: libelf and libdw found, shim active, the core
 * agrees (SYMLAZY_DWFL, libdw version). */
static int usable(void)
{
	if (!shim_ready() || !shim_active())
		return 0;
	if (!shim_lib_ok(SHIM_LIB_DW) && !shim_lib_retry(SHIM_LIB_DW))
		return 0;
	pthread_once(&D.once, ops_init);
	return sl_dwfl_enabled(shim_session(), &D.ops);
}

static struct mod_ent *entry(Dwfl_Module *mod)
{
	unsigned long gen = atomic_load_explicit(&D.generation, memory_order_acquire);
	struct mod_ent *e = NULL;

	if (mcache.mod == mod && mcache.gen == gen)
		return mcache.e;
	pthread_mutex_lock(&D.lock);
	HASH_FIND_PTR(D.mods, &mod, e);
	if (!e && (e = calloc(1, sizeof(*e))) != NULL) {
		struct mod_ent *chk = NULL;

		e->mod = mod;
		HASH_ADD_PTR(D.mods, mod, e);
		HASH_FIND_PTR(D.mods, &mod, chk);
		if (chk != e) {             /* uthash could not allocate */
			free(e);
			e = NULL;
		} else {
			atomic_fetch_add(&D.nmods, 1);
		}
	}
	gen = atomic_load_explicit(&D.generation, memory_order_acquire);
	pthread_mutex_unlock(&D.lock);
	mcache.mod = mod;
	mcache.e = e;
	mcache.gen = gen;
	return e;
}

void shim_dwfl_forget_elf(Elf *elf)
{
	struct mod_ent *e, *tmp;

	if (!atomic_load_explicit(&D.nmods, memory_order_acquire))
		return;
	pthread_mutex_lock(&D.lock);
	HASH_ITER(hh, D.mods, e, tmp) {
		if (sl_dwfl_mod_uses(&e->m, elf)) {
			HASH_DEL(D.mods, e);
			sl_dwfl_mod_reset(&e->m);
			free(e);
			atomic_fetch_sub(&D.nmods, 1);
		}
	}
	atomic_fetch_add(&D.generation, 1);
	pthread_mutex_unlock(&D.lock);
}

static const char *lookup(Dwfl_Module *mod, GElf_Addr addr, GElf_Off *off, GElf_Sym *sym,
			  GElf_Word *shndxp, Elf **elfp, Dwarf_Addr *bias, int adjust)
{
	struct mod_ent *e;
	const char *r;
	int saved = errno;

	e = mod ? entry(mod) : NULL;
	errno = saved;                  /* errno is libdw's to set (core/dwfl.c keeps it) */
	shim_in_core++;
	r = sl_dwfl_lookup(shim_session(), &D.ops, e ? &e->m : NULL, mod, addr, off, sym, shndxp, elfp,
			   bias, adjust);
	shim_in_core--;
	return r;
}

/* libdw not found at set-up (loaded later, RTLD_LOCAL): look again, so a
 * wrapper always reaches the real function if there is one. */
static void find_late(void)
{
	if (!shim_lib_ok(SHIM_LIB_DW))
		(void)shim_lib_retry(SHIM_LIB_DW);
}

SYMLAZY_EXPORT const char *dwfl_module_addrsym(Dwfl_Module *mod, GElf_Addr addr, GElf_Sym *sym,
					       GElf_Word *shndxp)
{
	if (!usable()) {
		find_late();
		return real_dw.addrsym ? real_dw.addrsym(mod, addr, sym, shndxp) : NULL;
	}
	return lookup(mod, addr, NULL, sym, shndxp, NULL, NULL, 1);
}

SYMLAZY_EXPORT const char *dwfl_module_addrinfo(Dwfl_Module *mod, GElf_Addr addr, GElf_Off *off,
						GElf_Sym *sym, GElf_Word *shndxp, Elf **elfp,
						Dwarf_Addr *bias)
{
	if (!usable()) {
		find_late();
		return real_dw.addrinfo ? real_dw.addrinfo(mod, addr, off, sym, shndxp, elfp, bias) : NULL;
	}
	return lookup(mod, addr, off, sym, shndxp, elfp, bias, 0);
}

/* libdwfl/dwfl_module_addrname.c: addrinfo with scratch offset and symbol */
SYMLAZY_EXPORT const char *dwfl_module_addrname(Dwfl_Module *mod, GElf_Addr addr)
{
	GElf_Off off;
	GElf_Sym sym;

	if (!usable()) {
		find_late();
		return real_dw.addrname ? real_dw.addrname(mod, addr) : NULL;
	}
	return lookup(mod, addr, &off, &sym, NULL, NULL, NULL, 0);
}
