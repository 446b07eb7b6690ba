/* SPDX-License-Identifier: MIT */
/*
 * symread-bench - random-access symbol reads through libelf, the access
 * pattern of libdwfl's dwfl_module_addrsym (gelf_getsymshndx from
 * first_global upwards, never from index 0) and of PLT synthesis.
 *
 *   symread-bench FILE [CALLS] [getsym|getsymshndx]
 *
 * Reads .symtab (else .dynsym) of FILE: CALLS (default 1000000) reads at
 * indexes 1.. nsyms-1 in a fixed pseudo-random order. Prints the count and a
 * checksum of st_value so the calls cannot be optimised away. Run it with and
 * without LD_PRELOAD=build/libsymlazy.so under valgrind --tool=callgrind: the
 * difference of the totals divided by CALLS is the shim's cost per call.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long calls = argc > 2 ? atol(argv[2]) : 1000000;
	int shndx_variant = !(argc > 3 && !strcmp(argv[3], "getsym"));
	Elf_Scn *scn = NULL, *found = NULL;
	Elf_Data *data;
	GElf_Shdr sh;
	uint64_t sum = 0, x = 88172645463325252ull;
	size_t n;
	Elf *elf;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: symread-bench FILE [CALLS] [getsym|getsymshndx]\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || !(elf = elf_begin(fd, ELF_C_READ_MMAP, NULL))) {
		perror(argv[1]);
		return 1;
	}
	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_SYMTAB || (!found && sh.sh_type == SHT_DYNSYM)))
			found = scn;
	if (!found || !gelf_getshdr(found, &sh) || !sh.sh_entsize || !(data = elf_getdata(found, NULL))) {
		fprintf(stderr, "%s: no symbol table\n", argv[1]);
		return 1;
	}
	n = sh.sh_size / sh.sh_entsize;
	if (n < 2)
		return 1;
	for (long i = 0; i < calls; i++) {
		GElf_Sym s;
		Elf32_Word xs;
		int ndx;

		x ^= x << 13; x ^= x >> 7; x ^= x << 17;      /* xorshift64 */
		ndx = 1 + (int)(x % (n - 1));
		if (shndx_variant ? gelf_getsymshndx(data, NULL, ndx, &s, &xs) != NULL
				  : gelf_getsym(data, ndx, &s) != NULL)
			sum += s.st_value;
	}
	printf("%ld reads of %zu symbols, checksum %llx\n", calls, n, (unsigned long long)sum);
	elf_end(elf);
	close(fd);
	return 0;
}
