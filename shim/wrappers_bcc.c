/* SPDX-License-Identifier: MIT */
/*
 * wrappers_bcc.c - libbcc's symcache entry points as bpftrace and C/C++
 * tools call them through their PLT (bcc 0.26 src/cc/bcc_syms.h). Each one
 * forwards to the real libbcc and asks bcc_state.c whether the index answers
 * instead. The cache handle the tool gets is libbcc's own, so any libbcc
 * function the tool reaches without us still works on it.
 *
 * Python's bcc module calls libbcc through ctypes (dlsym on libbcc's own
 * handle), which never reaches these: there only the libelf-level wrappers
 * and bcc_elf_foreach_sym[_lazy] below apply.
 */
#include <errno.h>
#include <stddef.h>
#include "shim.h"
#include "index/bccsyms.h"

static int bcc_ok(void)
{
	(void)shim_ready();     /* session set up (resolves libbcc if loaded) */
	return shim_lib_ok(SHIM_LIB_BCC) || shim_lib_retry(SHIM_LIB_BCC);
}

SYMLAZY_EXPORT void *bcc_symcache_new(int pid, void *option)
{
	void *c;

	if (!bcc_ok())
		return NULL;
	c = real_bcc.symcache_new(pid, option);
	if (c && pid >= 0 && shim_active()) {   /* pid < 0: KSyms (kallsyms), not ELF */
		int saved = errno;

		shim_bcc_track(c, pid, option);
		errno = saved;
	}
	return c;
}

SYMLAZY_EXPORT void bcc_free_symcache(void *cache, int pid)
{
	if (!bcc_ok())
		return;
	if (cache && pid >= 0)
		shim_bcc_forget(cache);
	real_bcc.free_symcache(cache, pid);
}

static int resolve(void *cache, uint64_t addr, void *sym, int demangle)
{
	int r, saved = errno;

	r = shim_bcc_resolve(cache, addr, sym, demangle);
	errno = saved;
	if (r == SL_BCC_FOUND)
		return 0;
	if (r == SL_BCC_NOTFOUND)
		return -1;
	return demangle ? real_bcc.symcache_resolve(cache, addr, sym) :
			  real_bcc.symcache_resolve_no_demangle(cache, addr, sym);
}

SYMLAZY_EXPORT int bcc_symcache_resolve(void *cache, uint64_t addr, void *sym)
{
	if (!bcc_ok())
		return -1;
	return resolve(cache, addr, sym, 1);
}

SYMLAZY_EXPORT int bcc_symcache_resolve_no_demangle(void *cache, uint64_t addr, void *sym)
{
	if (!bcc_ok())
		return -1;
	return resolve(cache, addr, sym, 0);
}

/* Pass-through: ProcSyms::resolve_name -> Module::find_name streams the
 * tables once per call (bcc_elf_foreach_sym with a comparing callback) and
 * keeps nothing, so there is no memory to bound; its answer is the first
 * name match in table order, not an address lookup the index serves. */
SYMLAZY_EXPORT int bcc_symcache_resolve_name(void *cache, const char *module, const char *name,
					     uint64_t *addr)
{
	if (!bcc_ok())
		return -1;
	return real_bcc.symcache_resolve_name(cache, module, name, addr);
}

SYMLAZY_EXPORT void bcc_symcache_refresh(void *cache)
{
	if (!bcc_ok())
		return;
	real_bcc.symcache_refresh(cache);
	shim_bcc_refresh(cache);
}

/*
 * bcc_elf_foreach_sym[_lazy] (src/cc/bcc_elf.c): every scan libbcc makes of a
 * symbol table runs inside one of these; libbcc calls them through its own
 * PLT (ProcSyms::Module::load_sym_table, find_name, bcc_resolve_symname), so
 * they are reached from Python's ctypes too. The callback says who keeps the
 * symbols; the plan for the call (SYMLAZY_ADDRS keep-set or budget) is made
 * before the real scan starts and applied by the libelf wrappers.
 */
static int foreach(int lazy, const char *path, void *cb, void *option, void *payload, uintptr_t site)
{
	struct shim_bcc_scan sc;
	int r, saved = errno;

	shim_bcc_scan_begin(&sc, path, cb, option, lazy, site);
	errno = saved;
	r = lazy ? real_bcc.elf_foreach_sym_lazy(path, cb, option, payload) :
		   real_bcc.elf_foreach_sym(path, cb, option, payload);
	saved = errno;
	shim_bcc_scan_end(&sc);
	errno = saved;
	return r;
}

SYMLAZY_EXPORT int bcc_elf_foreach_sym(const char *path, void *cb, void *option, void *payload)
{
	if (!bcc_ok())
		return -1;
	return foreach(0, path, cb, option, payload, (uintptr_t)__builtin_return_address(0));
}

SYMLAZY_EXPORT int bcc_elf_foreach_sym_lazy(const char *path, void *cb, void *option, void *payload)
{
	if (!bcc_ok())
		return -1;
	return foreach(1, path, cb, option, payload, (uintptr_t)__builtin_return_address(0));
}
