/* SPDX-License-Identifier: MIT */
/*
 * A minimal libelf consumer for shim tests: scans .symtab of FILE
 * sequentially (one call site, like bcc), prints every symbol, then reads a
 * few entries at random, then reports errno/elf_errmsg of a failing call.
 * Usage: scan FILE [shndx]   ("shndx": use gelf_getsymshndx like libdwfl)
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd, use_x = argc > 2, i, n;
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *d = NULL;
	size_t strndx = 0;

	elf_version(EV_CURRENT);
	fd = open(argv[1], O_RDONLY);
	e = elf_begin(fd, ELF_C_READ, NULL);
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		gelf_getshdr(scn, &sh);
		if (sh.sh_type == SHT_SYMTAB) {
			d = elf_getdata(scn, NULL);
			strndx = sh.sh_link;
			break;
		}
	}
	if (!d)
		return 2;
	n = (int)(sh.sh_size / sh.sh_entsize);
	for (i = 0; i < n; i++) {
		GElf_Sym s;
		Elf32_Word x = 0;
		const char *name;

		if (!(use_x ? gelf_getsymshndx(d, NULL, i, &s, &x) : gelf_getsym(d, i, &s)))
			continue;
		name = elf_strptr(e, strndx, s.st_name);
		printf("%d [%s] %#lx %lu %u %u\n", i, name ? name : "?", (unsigned long)s.st_value,
		       (unsigned long)s.st_size, s.st_info, s.st_shndx);
	}
	for (i = n - 1; i > 0; i -= n / 3 + 1) {
		GElf_Sym s;

		gelf_getsym(d, i, &s);
		printf("random %d %#lx %lu\n", i, (unsigned long)s.st_value, (unsigned long)s.st_size);
	}
	errno = 0;
	if (!elf_begin(-1, ELF_C_READ, NULL))
		printf("bad fd: errno=%d elf=%s\n", errno, elf_errmsg(-1));
	if (!gelf_getsym(d, n + 5, &(GElf_Sym){ 0 }))
		printf("past end: elf=%s\n", elf_errmsg(-1));
	elf_end(e);
	close(fd);
	return 0;
}
