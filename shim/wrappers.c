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
	Elf_Cmd asked = cmd;
	int up = 0, saved, cfd, in_fd = fd;

	if (!shim_ready())
		return NULL;
	if (!shim_active())
		return real_ops.elf_begin(fd, cmd, ref);
	saved = errno;
	/* libdw reads a file with compressed sections from its decompressed
	 * copy (core/dwarfsec.h) */
	cfd = shim_dwarf_fd(fd, cmd, ref, (uintptr_t)__builtin_return_address(0));
	if (cfd >= 0)
		fd = cfd;
	cmd = shim_begin_cmd(fd, cmd, ref, &up);
	errno = saved;
	e = real_ops.elf_begin(fd, cmd, ref);
	if (!e && up) {           /* mapping refused: behave exactly as asked */
		errno = saved;
		e = real_ops.elf_begin(fd, ELF_C_READ, ref);
		up = 0;
	}
	if (cfd >= 0) {
		if (!e) {         /* the copy refused: the file itself, as asked */
			errno = saved;
			fd = in_fd;
			cmd = shim_begin_cmd(fd, asked, ref, &up);
			e = real_ops.elf_begin(fd, cmd, ref);
			if (!e && up) {
				errno = saved;
				e = real_ops.elf_begin(fd, ELF_C_READ, ref);
				up = 0;
			}
		}
		shim_dwarf_adopt(fd == cfd ? e : NULL, cfd);
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
	if (elf && shim_active()) {
		shim_forget_elf(elf);
		shim_dwarf_forget(elf);   /* before libelf ends it: the pointer may be reused */
	}
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

/*
 * Symbol reads: every read that is not part of a full-table scan from index 0
 * (libdwfl's dwfl_module_addrsym, PLT synthesis, any random access) costs the
 * compares of shim_sym_fast() before a tail call into libelf through the
 * real-function slot, which holds a resolving stub until set-up is done
 * (so no set-up check is needed here); only index 0 and the reads of a scan
 * this thread started take the out-of-line slow path to shim_filter_sym.
 */
static __attribute__((noinline)) GElf_Sym *getsym_slow(Elf_Data *data, int ndx, GElf_Sym *dst,
						       uintptr_t site)
{
	GElf_Sym *r;

	if (!shim_ready())
		return NULL;
	r = real_ops.gelf_getsym(data, ndx, dst);
	if (r && shim_active() && !shim_in_core)
		shim_filter_sym(data, ndx, dst, NULL, site);
	return r;
}

/* The first values of the two real-function slots the fast path jumps
 * through (resolve.c): resolve, then call what was found. */
GElf_Sym *shim_stub_getsym(Elf_Data *data, int ndx, GElf_Sym *dst)
{
	if (!shim_ready())
		return NULL;
	return real_ops.gelf_getsym(data, ndx, dst);
}

GElf_Sym *shim_stub_getsymshndx(Elf_Data *symdata, Elf_Data *shndxdata, int ndx, GElf_Sym *dst,
				Elf32_Word *xshndx)
{
	if (!shim_ready())
		return NULL;
	return real_x.gelf_getsymshndx(symdata, shndxdata, ndx, dst, xshndx);
}

SYMLAZY_EXPORT GElf_Sym *gelf_getsym(Elf_Data *data, int ndx, GElf_Sym *dst)
{
	if (__builtin_expect(shim_sym_fast(data, ndx), 1))
		return real_ops.gelf_getsym(data, ndx, dst);
	return getsym_slow(data, ndx, dst, (uintptr_t)__builtin_return_address(0));
}

static __attribute__((noinline)) GElf_Sym *getsymshndx_slow(Elf_Data *symdata, Elf_Data *shndxdata,
							    int ndx, GElf_Sym *dst, Elf32_Word *xshndx,
							    uintptr_t site)
{
	GElf_Sym *r;

	if (!shim_ready())
		return NULL;
	r = real_x.gelf_getsymshndx(symdata, shndxdata, ndx, dst, xshndx);
	if (r && shim_active() && !shim_in_core)
		shim_filter_sym(symdata, ndx, dst, xshndx, site);
	return r;
}

SYMLAZY_EXPORT GElf_Sym *gelf_getsymshndx(Elf_Data *symdata, Elf_Data *shndxdata, int ndx,
					  GElf_Sym *dst, Elf32_Word *xshndx)
{
	if (__builtin_expect(shim_sym_fast(symdata, ndx), 1))
		return real_x.gelf_getsymshndx(symdata, shndxdata, ndx, dst, xshndx);
	return getsymshndx_slow(symdata, shndxdata, ndx, dst, xshndx,
				(uintptr_t)__builtin_return_address(0));
}
