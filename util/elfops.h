/* SPDX-License-Identifier: MIT */
/*
 * elfops.h - the libelf entry points that core/ code may call.
 *
 * Code in core/ never calls libelf by name: inside libsymlazy.so those names
 * are our own wrappers (shim/), so a direct call would recurse into the shim.
 * Instead every module receives a `const struct elf_ops *`:
 *   - the shim fills it with the real libelf functions (dlsym RTLD_NEXT),
 *   - unit tests and command-line tools use elfops_direct() (util/elfops_direct.c,
 *     never linked into the .so), and tests can pass fakes.
 */
#ifndef SYMLAZY_ELFOPS_H
#define SYMLAZY_ELFOPS_H

#include <libelf.h>
#include <gelf.h>

struct elf_ops {
	unsigned (*elf_version)(unsigned);
	Elf *(*elf_begin)(int, Elf_Cmd, Elf *);
	Elf *(*elf_memory)(char *, size_t);
	int (*elf_end)(Elf *);
	Elf_Kind (*elf_kind)(Elf *);
	Elf_Scn *(*elf_getscn)(Elf *, size_t);
	Elf_Scn *(*elf_nextscn)(Elf *, Elf_Scn *);
	size_t (*elf_ndxscn)(Elf_Scn *);
	Elf_Data *(*elf_getdata)(Elf_Scn *, Elf_Data *);
	Elf_Data *(*elf_rawdata)(Elf_Scn *, Elf_Data *);
	GElf_Shdr *(*gelf_getshdr)(Elf_Scn *, GElf_Shdr *);
	GElf_Ehdr *(*gelf_getehdr)(Elf *, GElf_Ehdr *);
	int (*elf_getphdrnum)(Elf *, size_t *);
	GElf_Phdr *(*gelf_getphdr)(Elf *, int, GElf_Phdr *);
	int (*elf_getshdrstrndx)(Elf *, size_t *);
	int (*elf_getshdrnum)(Elf *, size_t *);
	char *(*elf_strptr)(Elf *, size_t, size_t);
	GElf_Sym *(*gelf_getsym)(Elf_Data *, int, GElf_Sym *);
	int (*elf_errno)(void);
};

/* The libelf functions linked into the calling program (tests, CLI tools).
 * Never call from code that runs inside libsymlazy.so. */
const struct elf_ops *elfops_direct(void);

/*
 * elf_read_build_id - copy the GNU build-id of @elf into @out (up to @outsz bytes).
 * Looks for an SHT_NOTE section holding an NT_GNU_BUILD_ID note (name "GNU"),
 * as perf's elf_read_build_id() does (.note.gnu.build-id, else any note section).
 * Source: ELF gABI "Note Section"; GNU build-id is note type 3 (NT_GNU_BUILD_ID).
 * Returns the build-id length (1..outsz) or a negative errno (-ENOENT: none,
 * -EINVAL: malformed). Never allocates.
 */
int elf_read_build_id(const struct elf_ops *ops, Elf *elf, unsigned char *out, size_t outsz);

/* Hex-encode @len bytes of @id into @buf (2*len+1 bytes). Returns buf. */
char *build_id_hex(const unsigned char *id, size_t len, char *buf);

/* Parse lowercase/uppercase hex into @out (max @outsz bytes). Returns length or -EINVAL. */
int build_id_parse(const char *hex, unsigned char *out, size_t outsz);

#endif
