/* SPDX-License-Identifier: MIT */
/*
 * real.c - find the real libelf functions.
 * dlvsym(RTLD_NEXT, name, "ELFUTILS_1.0") first (weak: musl has no dlvsym),
 * then dlsym(RTLD_NEXT), then the same on dlopen("libelf.so.1", RTLD_NOLOAD):
 * Python ctypes loads libbcc (and so libelf) RTLD_LOCAL, where RTLD_NEXT finds
 * nothing although the tool's calls still reach our wrappers.
 */
#include <dlfcn.h>
#include <stddef.h>
#include "shim.h"

extern void *dlvsym(void *, const char *, const char *) __attribute__((weak));

struct elf_ops real_ops;
struct shim_real real_x;

static void *find_in(void *h, const char *name, const char *ver)
{
	void *p = NULL;

	if (dlvsym && ver)
		p = dlvsym(h, name, ver);
	if (!p)
		p = dlsym(h, name);
	return p;
}

static void *find(const char *name, const char *ver)
{
	static void *handle;
	void *p = find_in(RTLD_NEXT, name, ver);

	if (p)
		return p;
	if (!handle)
		handle = dlopen("libelf.so.1", RTLD_LAZY | RTLD_NOLOAD);
	return handle ? find_in(handle, name, ver) : NULL;
}

/* Returns 1 if every function was found. Called under pthread_once. */
int real_resolve(void)
{
	int ok = 1;

#define R(field, ver) do { *(void **)&real_ops.field = find(#field, ver); ok &= real_ops.field != NULL; } while (0)
	R(elf_version, "ELFUTILS_1.0");
	R(elf_begin, "ELFUTILS_1.0");
	R(elf_memory, "ELFUTILS_1.0");
	R(elf_end, "ELFUTILS_1.0");
	R(elf_kind, "ELFUTILS_1.0");
	R(elf_getscn, "ELFUTILS_1.0");
	R(elf_nextscn, "ELFUTILS_1.0");
	R(elf_ndxscn, "ELFUTILS_1.0");
	R(elf_getdata, "ELFUTILS_1.0");
	R(elf_rawdata, "ELFUTILS_1.0");
	R(gelf_getshdr, "ELFUTILS_1.0");
	R(gelf_getehdr, "ELFUTILS_1.0");
	R(elf_getphdrnum, "ELFUTILS_1.6");
	R(gelf_getphdr, "ELFUTILS_1.0");
	R(elf_getshdrstrndx, "ELFUTILS_1.5");
	R(elf_getshdrnum, "ELFUTILS_1.5");
	R(elf_strptr, "ELFUTILS_1.0");
	R(gelf_getsym, "ELFUTILS_1.0");
	R(elf_errno, "ELFUTILS_1.0");
#undef R
	*(void **)&real_x.gelf_getsymshndx = find("gelf_getsymshndx", "ELFUTILS_1.0");
	ok &= real_x.gelf_getsymshndx != NULL;
	*(void **)&real_x.elf_rawfile = find("elf_rawfile", "ELFUTILS_1.0");
	ok &= real_x.elf_rawfile != NULL;
	return ok;
}
