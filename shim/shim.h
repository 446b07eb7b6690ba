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
#include "elfops.h"

#define SYMLAZY_EXPORT __attribute__((visibility("default")))

/* Real libelf entry points not in struct elf_ops. */
struct shim_real {
	GElf_Sym *(*gelf_getsymshndx)(Elf_Data *, Elf_Data *, int, GElf_Sym *, Elf32_Word *);
	char *(*elf_rawfile)(Elf *, size_t *);
};

extern struct elf_ops real_ops;
extern struct shim_real real_x;

/* Added (issue 11): real libc functions behind wrappers_libc.c. The LFS and
 * fortify names are glibc's; where they are absent (musl) the wrappers use
 * the plain ones. */
struct shim_real_libc {
	int (*open)(const char *, int, ...);
	int (*openat)(int, const char *, int, ...);
	FILE *(*fopen)(const char *, const char *);
	FILE *(*fdopen)(int, const char *);
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
enum shim_lib { SHIM_LIB_ELF = 0, SHIM_LIB_C, SHIM_LIB_C64, SHIM_LIB__COUNT };

/* shim_resolve_libc - resolve the two libc tables once (any thread, any
 * time, also before the constructor); 1 if the plain functions were found. */
int shim_resolve_libc(void);

/* shim_text_open - state.c: a text symbol source (kallsyms, perf map)
 * lazy mode serves for @path? Then a memfd with the filtered text (offset
 * 0, O_CLOEXEC if @cloexec), else -1: call the real function. errno kept. */
int shim_text_open(const char *path, int cloexec);

/* shim_resolve - look up every library's functions (resolve.c); 1 if every
 * required library was found whole. Called once, under pthread_once. */
int shim_resolve(void);
/* shim_lib_ok - were all of @lib's functions found? */
int shim_lib_ok(enum shim_lib lib);

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

#endif
