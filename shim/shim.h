/* SPDX-License-Identifier: MIT */
/*
 * shim.h - the preload layer's internal interface (shim/ only): exports
 * (wrappers.c), the real-function resolver (resolve.c), the process state and
 * its registries (state.c), the SIGBUS guard (sigbus.c). Decisions live in
 * core/ (session.h); nothing here holds policy.
 */
#ifndef SYMLAZY_SHIM_H
#define SYMLAZY_SHIM_H

#include <libelf.h>
#include <gelf.h>
#include <stddef.h>
#include <stdint.h>
#include "elfops.h"

#define SYMLAZY_EXPORT __attribute__((visibility("default")))

/* Real libelf entry points not in struct elf_ops. */
struct shim_real {
	GElf_Sym *(*gelf_getsymshndx)(Elf_Data *, Elf_Data *, int, GElf_Sym *, Elf32_Word *);
	char *(*elf_rawfile)(Elf *, size_t *);
};

/* Real libbcc entry points (libbcc.so.0 or libbcc_bpf.so.0, bcc 0.26
 * src/cc/bcc_syms.h, bcc_elf.h); struct bcc_symbol(_option) are
 * struct sl_bcc_symbol / sl_bcc_option (core/bccsyms.h). */
struct shim_bcc_real {
	void *(*symcache_new)(int pid, void *option);
	void (*free_symcache)(void *cache, int pid);
	int (*symcache_resolve)(void *cache, uint64_t addr, void *sym);
	int (*symcache_resolve_no_demangle)(void *cache, uint64_t addr, void *sym);
	int (*symcache_resolve_name)(void *cache, const char *module, const char *name, uint64_t *addr);
	void (*symcache_refresh)(void *cache);
	int (*elf_foreach_sym)(const char *path, void *cb, void *option, void *payload);
	int (*elf_foreach_sym_lazy)(const char *path, void *cb, void *option, void *payload);
};

extern struct elf_ops real_ops;
extern struct shim_real real_x;
extern struct shim_bcc_real real_bcc;

/* Libraries whose functions we wrap (resolve.c). */
enum shim_lib { SHIM_LIB_ELF = 0, SHIM_LIB_BCC, SHIM_LIB__COUNT };

/* shim_resolve - look up every library's functions (resolve.c); 1 if every
 * required library was found whole. Called once, under pthread_once. */
int shim_resolve(void);
/* shim_lib_ok - were all of @lib's functions found? */
int shim_lib_ok(enum shim_lib lib);
/* shim_lib_retry - an optional library the tool loaded after the first
 * libelf call (Python's ctypes): look it up again; 1 if now found whole. */
int shim_lib_retry(enum shim_lib lib);

/* shim_ready - resolve real libelf once (pthread_once) and finish lazy setup.
 * Returns 1 if the real functions are usable. Never fails the caller. */
int shim_ready(void);
int shim_active(void);   /* ready and not inert */

/* Hooks called by the wrappers (state.c). */
Elf_Cmd shim_begin_cmd(int fd, Elf_Cmd cmd, Elf *ref, int *upgraded);
void shim_track_elf(Elf *elf, int fd, int mmapped);
void shim_forget_elf(Elf *elf);
void shim_track_data(Elf_Scn *scn, Elf_Data *data);
void shim_sigbus_watch(const void *base, size_t size);
void shim_sigbus_forget(const void *base);
void shim_filter_sym(Elf_Data *data, int ndx, GElf_Sym *dst, Elf32_Word *xshndx, uintptr_t site);

/* libbcc symcache hooks (bcc_state.c): track a real cache, answer from the
 * index (SL_BCC_* of core/bccsyms.h; SL_BCC_DELEGATE = ask the real one). */
struct sl_session *shim_session(void);

/* One bcc_elf_foreach_sym[_lazy] call in progress (bcc_state.c): its scan
 * context, installed for the calling thread until shim_bcc_scan_end. */
#include "session.h"
struct shim_bcc_scan {
	struct sl_scan_ctx ctx;
	struct sl_bcc_plan plan;
	int have_plan, active;
	const struct sl_scan_ctx *prev;
};
void shim_bcc_scan_begin(struct shim_bcc_scan *sc, const char *path, void *cb, void *option,
			 int lazy, uintptr_t site);
void shim_bcc_scan_end(struct shim_bcc_scan *sc);
/* the scan context of the calling thread, or NULL */
const struct sl_scan_ctx *shim_scan_ctx(void);
/* is @site inside the tool's executable? (state.c) */
int shim_site_in_exe(uintptr_t site);
void shim_bcc_track(void *cache, int pid, const void *option);
void shim_bcc_forget(void *cache);
void shim_bcc_refresh(void *cache);
int shim_bcc_resolve(void *cache, uint64_t addr, void *sym, int demangle);

#endif
