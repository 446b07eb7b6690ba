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
#include <stdio.h>
#include "util/elfops.h"

#define SYMLAZY_EXPORT __attribute__((visibility("default")))

/* Real libelf entry points not in struct elf_ops. */
struct shim_real {
	GElf_Sym *(*gelf_getsymshndx)(Elf_Data *, Elf_Data *, int, GElf_Sym *, Elf32_Word *);
	char *(*elf_rawfile)(Elf *, size_t *);
};

/* Real libdw (libdwfl) entry points: an optional library (shim/dwfl.c). */
struct shim_real_dw {
	const char *(*addrsym)(void *, GElf_Addr, GElf_Sym *, GElf_Word *);
	const char *(*addrinfo)(void *, GElf_Addr, GElf_Off *, GElf_Sym *, GElf_Word *, Elf **,
				GElf_Addr *);
	const char *(*addrname)(void *, GElf_Addr);
	int (*getsymtab)(void *);
	int (*getsymtab_first_global)(void *);
	const char *(*getsym_info)(void *, int, GElf_Sym *, GElf_Addr *, GElf_Word *, Elf **, GElf_Addr *);
	const char *(*module_info)(void *, void ***, GElf_Addr *, GElf_Addr *, GElf_Addr *, GElf_Addr *,
				   const char **, const char **);
	const char *(*version)(void *);
};

/* Real libbcc entry points (libbcc.so.0 or libbcc_bpf.so.0, bcc 0.26
 * src/cc/bcc_syms.h, bcc_elf.h); struct bcc_symbol(_option) are
 * struct sl_bcc_symbol / sl_bcc_option (index/bccsyms.h). */
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

extern struct elf_ops real_ops __attribute__((visibility("hidden")));
extern struct shim_real real_x __attribute__((visibility("hidden")));
extern struct shim_real_dw real_dw __attribute__((visibility("hidden")));
extern struct shim_bcc_real real_bcc __attribute__((visibility("hidden")));

/* Real libc functions behind wrappers_libc.c and wrappers_exec.c. The LFS and
 * fortify names are glibc's; where they are absent (musl) the wrappers use
 * the plain ones. */
struct shim_real_libc {
	int (*open)(const char *, int, ...);
	int (*openat)(int, const char *, int, ...);
	FILE *(*fopen)(const char *, const char *);
	FILE *(*fdopen)(int, const char *);
	int (*execvp)(const char *, char *const[]);     /* wrappers_exec.c */
};
struct shim_real_libc64 {
	int (*open64)(const char *, int, ...);
	int (*openat64)(int, const char *, int, ...);
	FILE *(*fopen64)(const char *, const char *);
	int (*open_2)(const char *, int);
	int (*open64_2)(const char *, int);
	int (*openat_2)(int, const char *, int);
	int (*openat64_2)(int, const char *, int);
};
extern struct shim_real_libc real_c;
extern struct shim_real_libc64 real_c64;

/* Libraries whose functions we wrap (resolve.c). */
enum shim_lib { SHIM_LIB_ELF = 0, SHIM_LIB_DW, SHIM_LIB_C, SHIM_LIB_C64, SHIM_LIB_BCC, SHIM_LIB__COUNT };

/* shim_resolve_libc - resolve the two libc tables once (any thread, any
 * time, also before the constructor); 1 if the plain functions were found. */
int shim_resolve_libc(void);

/* shim_text_open - state.c: a text symbol source (kallsyms, perf map)
 * lazy mode serves for @path? Then a memfd with the filtered text (offset
 * 0, O_CLOEXEC if @cloexec), else -1: call the real function. errno kept. */
int shim_text_open(const char *path, int cloexec);

/* shim_a2l_exec - state.c: execvp(@file, @argv) in a child of perf
 * asks core/a2lsess.c; returns -1 (run the real execvp) or never returns. */
int shim_a2l_exec(const char *file, char *const argv[]);

/* shim_resolve - look up every library's functions (resolve.c); 1 if every
 * required library was found whole. Called once, under pthread_once. */
int shim_resolve(void);
/* shim_lib_ok - were all of @lib's functions found? */
int shim_lib_ok(enum shim_lib lib);
/* shim_lib_retry - look an optional library up again (it may have been
 * loaded after set-up: dlopen'ed by a plugin, Python's ctypes); 1 if it is
 * now whole. */
int shim_lib_retry(enum shim_lib lib);

/* shim_ready - resolve real libelf once (pthread_once) and finish lazy setup.
 * Returns 1 if the real functions are usable. Never fails the caller. */
int shim_ready(void);
int shim_active(void);   /* ready and not inert */

/* Resolving stubs: the first values of real_ops.gelf_getsym and
 * real_x.gelf_getsymshndx, and their values again when libelf is not found
 * whole (then they return NULL, as every wrapper of an inert shim does). */
GElf_Sym *shim_stub_getsym(Elf_Data *data, int ndx, GElf_Sym *dst);
GElf_Sym *shim_stub_getsymshndx(Elf_Data *symdata, Elf_Data *shndxdata, int ndx, GElf_Sym *dst,
				Elf32_Word *xshndx);

/*
 * The per-thread scan filter (state.c). A symbol read matters to symlazy only
 * at index 0 (a scan may start) or on a table whose full-table scan this
 * thread started and still watches (core/scan.h, sl_table_watching). Those
 * tables are summarised as one address range [lo, lo + span): span 0 when
 * there is none, span 1 for exactly one (lo = its Elf_Data), the whole
 * address space when there may be more (then every read takes the slow
 * path). Any other read is passed through after one subtract and compare:
 * shim_sym_fast().
 */
struct shim_tscan {
	uintptr_t lo, span;
};
extern __thread struct shim_tscan shim_tscan __attribute__((tls_model("initial-exec")));

/* shim_sym_fast - 1 if gelf_getsym*(@data, @ndx) cannot be part of a scan
 * this thread is filtering: nothing to do beyond the real call. */
static inline int shim_sym_fast(const Elf_Data *data, int ndx)
{
	return ndx != 0 && (uintptr_t)data - shim_tscan.lo >= shim_tscan.span;
}

/* Hooks called by the wrappers (state.c). */
Elf_Cmd shim_begin_cmd(int fd, Elf_Cmd cmd, Elf *ref, int *upgraded);
void shim_track_elf(Elf *elf, int fd, int mmapped);
void shim_forget_elf(Elf *elf);
/* core/dwarfsec.h's rule: for elf_begin(@fd, @cmd, @ref) called from
 * @site, the fd of the decompressed copy libdw should read instead, or -1
 * (not libdw's call, or leave it alone); adopt hands the copy to the Elf
 * it made (NULL: close it), forget is elf_end's. */
int shim_dwarf_fd(int fd, Elf_Cmd cmd, Elf *ref, uintptr_t site);
void shim_dwarf_adopt(Elf *elf, int cfd);
void shim_dwarf_forget(Elf *elf);
void shim_track_data(Elf_Scn *scn, Elf_Data *data);
void shim_sigbus_watch(const void *base, size_t size);
void shim_sigbus_forget(const void *base);
void shim_filter_sym(Elf_Data *data, int ndx, GElf_Sym *dst, Elf32_Word *xshndx, uintptr_t site);

/* The core session (state.c), for the libdw wrappers. */
struct sl_session *shim_session(void);
/* shim_elf_identity - file identity of an Elf the tool opened through
 * elf_begin (fstat at open time); 0 if unknown (elf_memory, untracked). */
struct sl_file_id;
int shim_elf_identity(void *ctx, Elf *elf, struct sl_file_id *id);
/* shim_dwfl_forget_elf - elf_end(@elf): drop the libdwfl module indexes
 * built on it (dwfl.c). */
void shim_dwfl_forget_elf(Elf *elf);
/* Set while symlazy itself reads symbols through libdw (dwfl.c): the scan
 * filter never applies to those reads. */
extern __thread int shim_in_core __attribute__((tls_model("initial-exec")));

/* One bcc_elf_foreach_sym[_lazy] call in progress (bcc_state.c): its scan
 * context, installed for the calling thread until shim_bcc_scan_end. */
#include "core/session.h"
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
/* libbcc symcache hooks (bcc_state.c): track a real cache, answer from the
 * index (SL_BCC_* of index/bccsyms.h; SL_BCC_DELEGATE = ask the real one). */
void shim_bcc_track(void *cache, int pid, const void *option);
void shim_bcc_forget(void *cache);
void shim_bcc_refresh(void *cache);
int shim_bcc_resolve(void *cache, uint64_t addr, void *sym, int demangle);
/* the models of the loaded libbcc by its version (bcc_state.c), or NULL:
 * an unknown version, passed through untouched */
struct sl_bcc_models;
const struct sl_bcc_models *shim_bcc_models(void);

#endif
