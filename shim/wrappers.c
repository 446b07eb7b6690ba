/* SPDX-License-Identifier: MIT */
/*
 * wrappers.c - the interposed libelf entry points. Each forwards to the real
 * function and asks state.c what to do; none holds a lock across the real call.
 * Exported unversioned: an unversioned definition satisfies callers bound to
 * name@ELFUTILS_1.0 (a version node of our own would silently disable us).
 * errno and elf_errno() are preserved: the tool sees exactly what libelf said.
 */
#include <errno.h>
#include <stddef.h>
#include "shim.h"

SYMLAZY_EXPORT Elf *elf_begin(int fd, Elf_Cmd cmd, Elf *ref)
{
	Elf *e;
	int up = 0, saved;

	if (!shim_ready())
		return NULL;
	if (!shim_active())
		return real_ops.elf_begin(fd, cmd, ref);
	saved = errno;
	cmd = shim_begin_cmd(fd, cmd, ref, &up);
	errno = saved;
	e = real_ops.elf_begin(fd, cmd, ref);
	if (!e && up) {           /* mapping refused: behave exactly as asked */
		errno = saved;
		e = real_ops.elf_begin(fd, ELF_C_READ, ref);
		up = 0;
	}
	if (e) {
		saved = errno;
		shim_track_elf(e, fd, up);
		errno = saved;
	}
	return e;
}

SYMLAZY_EXPORT int elf_end(Elf *elf)
{
	if (!shim_ready())
		return 0;
	if (elf && shim_active())
		shim_forget_elf(elf);
	return real_ops.elf_end(elf);
}

SYMLAZY_EXPORT Elf_Data *elf_getdata(Elf_Scn *scn, Elf_Data *data)
{
	Elf_Data *d;

	if (!shim_ready())
		return NULL;
	d = real_ops.elf_getdata(scn, data);
	if (d && !data && shim_active()) {
		int saved = errno;

		shim_track_data(scn, d);
		errno = saved;
	}
	return d;
}

SYMLAZY_EXPORT GElf_Sym *gelf_getsym(Elf_Data *data, int ndx, GElf_Sym *dst)
{
	GElf_Sym *r;

	if (!shim_ready())
		return NULL;
	r = real_ops.gelf_getsym(data, ndx, dst);
	if (r && shim_active())
		shim_filter_sym(data, ndx, dst, NULL, (uintptr_t)__builtin_return_address(0));
	return r;
}

SYMLAZY_EXPORT GElf_Sym *gelf_getsymshndx(Elf_Data *symdata, Elf_Data *shndxdata, int ndx,
					  GElf_Sym *dst, Elf32_Word *xshndx)
{
	GElf_Sym *r;

	if (!shim_ready())
		return NULL;
	r = real_x.gelf_getsymshndx(symdata, shndxdata, ndx, dst, xshndx);
	if (r && shim_active())
		shim_filter_sym(symdata, ndx, dst, xshndx, (uintptr_t)__builtin_return_address(0));
	return r;
}
