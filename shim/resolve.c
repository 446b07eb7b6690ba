/* SPDX-License-Identifier: MIT */
/*
 * resolve.c - find the real functions behind our exports, table-driven.
 *
 * Each library has a table of the functions we need from it and is either
 * required (without it the shim goes inert) or optional (its wrappers, when
 * a library gets some, pass through to whatever they find, and a missing
 * optional library never affects another). Within one library every listed
 * function must be found, or the library counts as absent.
 *
 * Lookup per function: dlvsym(RTLD_NEXT, name, version) first (weak: musl
 * has no dlvsym), then dlsym(RTLD_NEXT), then the same on
 * dlopen(soname, RTLD_NOLOAD): Python ctypes loads libbcc (and so libelf)
 * RTLD_LOCAL, where RTLD_NEXT finds nothing although the tool's calls still
 * reach our wrappers. RTLD_NOLOAD never loads a library the tool did not.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include "shim.h"

extern void *dlvsym(void *, const char *, const char *) __attribute__((weak));

struct elf_ops real_ops = { .gelf_getsym = shim_stub_getsym };
struct shim_real real_x = { .gelf_getsymshndx = shim_stub_getsymshndx };
struct shim_real_dw real_dw;
struct shim_bcc_real real_bcc;

struct real_fn {
	const char *name, *version;
	void **slot;
};

struct real_lib {
	const char *soname;
	const char *alt_soname;     /* tried with RTLD_NOLOAD when soname is not loaded */
	int required;
	const struct real_fn *fns;
	size_t nfns;
};

#define F(field, ver) { #field, ver, (void **)&real_ops.field }
#define X(field, ver) { #field, ver, (void **)&real_x.field }
static const struct real_fn libelf_fns[] = {
	F(elf_version, "ELFUTILS_1.0"), F(elf_begin, "ELFUTILS_1.0"), F(elf_memory, "ELFUTILS_1.0"),
	F(elf_end, "ELFUTILS_1.0"), F(elf_kind, "ELFUTILS_1.0"), F(elf_getscn, "ELFUTILS_1.0"),
	F(elf_nextscn, "ELFUTILS_1.0"), F(elf_ndxscn, "ELFUTILS_1.0"), F(elf_getdata, "ELFUTILS_1.0"),
	F(elf_rawdata, "ELFUTILS_1.0"), F(gelf_getshdr, "ELFUTILS_1.0"), F(gelf_getehdr, "ELFUTILS_1.0"),
	F(elf_getphdrnum, "ELFUTILS_1.6"), F(gelf_getphdr, "ELFUTILS_1.0"),
	F(elf_getshdrstrndx, "ELFUTILS_1.5"), F(elf_getshdrnum, "ELFUTILS_1.5"),
	F(elf_strptr, "ELFUTILS_1.0"), F(gelf_getsym, "ELFUTILS_1.0"), F(elf_errno, "ELFUTILS_1.0"),
	X(gelf_getsymshndx, "ELFUTILS_1.0"), X(elf_rawfile, "ELFUTILS_1.0"),
};
#undef F
#undef X

/* libdw.so.1 (elfutils 0.188 versions): optional; its wrappers (dwfl.c)
 * answer symbol-by-address lookups and pass everything else through. */
#define D(field, name, ver) { name, ver, (void **)&real_dw.field }
static const struct real_fn libdw_fns[] = {
	D(addrsym, "dwfl_module_addrsym", "ELFUTILS_0.127"),
	D(addrinfo, "dwfl_module_addrinfo", "ELFUTILS_0.158"),
	D(addrname, "dwfl_module_addrname", "ELFUTILS_0.122"),
	D(getsymtab, "dwfl_module_getsymtab", "ELFUTILS_0.122"),
	D(getsymtab_first_global, "dwfl_module_getsymtab_first_global", "ELFUTILS_0.158"),
	D(getsym_info, "dwfl_module_getsym_info", "ELFUTILS_0.158"),
	D(module_info, "dwfl_module_info", "ELFUTILS_0.122"),
	D(version, "dwfl_version", "ELFUTILS_0.122"),
};
#undef D

/* libc, resolved on first use by wrappers_libc.c (not with libelf:
 * open() is called long before the first libelf call, and by setup itself) */
struct shim_real_libc real_c;
struct shim_real_libc64 real_c64;
#define C(field, ver) { #field, ver, (void **)&real_c.field }
static const struct real_fn libc_fns[] = {
	C(open, "GLIBC_2.2.5"), C(openat, "GLIBC_2.4"), C(fopen, "GLIBC_2.2.5"), C(fdopen, "GLIBC_2.2.5"),
	C(execvp, "GLIBC_2.2.5"),
};
#undef C
#define C(field, name, ver) { name, ver, (void **)&real_c64.field }
static const struct real_fn libc64_fns[] = {
	C(open64, "open64", "GLIBC_2.2.5"), C(openat64, "openat64", "GLIBC_2.4"),
	C(fopen64, "fopen64", "GLIBC_2.2.5"), C(open_2, "__open_2", "GLIBC_2.7"),
	C(open64_2, "__open64_2", "GLIBC_2.7"), C(openat_2, "__openat_2", "GLIBC_2.7"),
	C(openat64_2, "__openat64_2", "GLIBC_2.7"),
};
#undef C

/* libbcc (optional): bpftrace links libbcc_bpf.so.0, C/C++ tools libbcc.so.0;
 * both define these (bcc 0.26 src/cc/bcc_syms.cc, bcc_elf.c). */
#define B(field, name) { name, NULL, (void **)&real_bcc.field }
static const struct real_fn libbcc_fns[] = {
	B(symcache_new, "bcc_symcache_new"), B(free_symcache, "bcc_free_symcache"),
	B(symcache_resolve, "bcc_symcache_resolve"),
	B(symcache_resolve_no_demangle, "bcc_symcache_resolve_no_demangle"),
	B(symcache_resolve_name, "bcc_symcache_resolve_name"),
	B(symcache_refresh, "bcc_symcache_refresh"),
	B(elf_foreach_sym, "bcc_elf_foreach_sym"), B(elf_foreach_sym_lazy, "bcc_elf_foreach_sym_lazy"),
};
#undef B

static const struct real_lib libs[] = {
	[SHIM_LIB_ELF] = { "libelf.so.1", NULL, 1, libelf_fns, sizeof(libelf_fns) / sizeof(libelf_fns[0]) },
	[SHIM_LIB_DW] = { "libdw.so.1", NULL, 0, libdw_fns, sizeof(libdw_fns) / sizeof(libdw_fns[0]) },
	[SHIM_LIB_C] = { "libc.so.6", NULL, 0, libc_fns, sizeof(libc_fns) / sizeof(libc_fns[0]) },
	[SHIM_LIB_C64] = { "libc.so.6", NULL, 0, libc64_fns, sizeof(libc64_fns) / sizeof(libc64_fns[0]) },
	[SHIM_LIB_BCC] = { "libbcc.so.0", "libbcc_bpf.so.0", 0, libbcc_fns,
			   sizeof(libbcc_fns) / sizeof(libbcc_fns[0]) },
};

static int lib_ok[SHIM_LIB__COUNT];
static pthread_mutex_t retry_lock = PTHREAD_MUTEX_INITIALIZER;

static void *find_in(void *h, const char *name, const char *ver)
{
	void *p = NULL;

	if (dlvsym && ver)
		p = dlvsym(h, name, ver);
	if (!p)
		p = dlsym(h, name);
	return p;
}

static int resolve_lib(const struct real_lib *l)
{
	void *handle = NULL;
	int tried = 0;
	size_t i;

	for (i = 0; i < l->nfns; i++) {
		const struct real_fn *f = &l->fns[i];
		void *p = find_in(RTLD_NEXT, f->name, f->version);

		if (!p) {
			if (!tried) {
				handle = dlopen(l->soname, RTLD_LAZY | RTLD_NOLOAD);
				if (!handle && l->alt_soname)
					handle = dlopen(l->alt_soname, RTLD_LAZY | RTLD_NOLOAD);
				tried = 1;
			}
			p = handle ? find_in(handle, f->name, f->version) : NULL;
		}
		if (!p)
			return 0;
		*f->slot = p;       /* never NULL: the fast path jumps through slots */
	}
	return 1;
}

static pthread_once_t libc_once = PTHREAD_ONCE_INIT;

static void resolve_libc_once(void)
{
	lib_ok[SHIM_LIB_C] = resolve_lib(&libs[SHIM_LIB_C]);
	lib_ok[SHIM_LIB_C64] = resolve_lib(&libs[SHIM_LIB_C64]);
}

int shim_resolve_libc(void)
{
	pthread_once(&libc_once, resolve_libc_once);
	return lib_ok[SHIM_LIB_C];
}

int shim_resolve(void)
{
	int ok = 1;

	shim_resolve_libc();
	for (size_t i = 0; i < SHIM_LIB__COUNT; i++) {
		if (i == SHIM_LIB_C || i == SHIM_LIB_C64)
			continue;
		lib_ok[i] = resolve_lib(&libs[i]);
		if (!lib_ok[i] && libs[i].required)
			ok = 0;
	}
	if (!ok) {           /* inert: the fast-path slots keep returning NULL */
		real_ops.gelf_getsym = shim_stub_getsym;
		real_x.gelf_getsymshndx = shim_stub_getsymshndx;
	}
	return ok;
}

int shim_lib_ok(enum shim_lib lib)
{
	return (unsigned)lib < SHIM_LIB__COUNT && __atomic_load_n(&lib_ok[lib], __ATOMIC_ACQUIRE);
}

int shim_lib_retry(enum shim_lib lib)
{
	int ok;

	if ((unsigned)lib >= SHIM_LIB__COUNT || libs[lib].required)
		return shim_lib_ok(lib);
	pthread_mutex_lock(&retry_lock);
	ok = lib_ok[lib] || resolve_lib(&libs[lib]);
	__atomic_store_n(&lib_ok[lib], ok, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&retry_lock);
	return ok;
}
