/* SPDX-License-Identifier: MIT */
/* The libelf functions linked into a test or tool. Never linked into the .so. */
#include "util/elfops.h"

static const struct elf_ops direct = {
	.elf_version = elf_version,
	.elf_begin = elf_begin,
	.elf_memory = elf_memory,
	.elf_end = elf_end,
	.elf_kind = elf_kind,
	.elf_getscn = elf_getscn,
	.elf_nextscn = elf_nextscn,
	.elf_ndxscn = elf_ndxscn,
	.elf_getdata = elf_getdata,
	.elf_rawdata = elf_rawdata,
	.gelf_getshdr = gelf_getshdr,
	.gelf_getehdr = gelf_getehdr,
	.elf_getphdrnum = elf_getphdrnum,
	.gelf_getphdr = gelf_getphdr,
	.elf_getshdrstrndx = elf_getshdrstrndx,
	.elf_getshdrnum = elf_getshdrnum,
	.elf_strptr = elf_strptr,
	.gelf_getsym = gelf_getsym,
	.elf_errno = elf_errno,
};

const struct elf_ops *elfops_direct(void)
{
	elf_version(EV_CURRENT);
	return &direct;
}
