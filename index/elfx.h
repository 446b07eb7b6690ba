/* SPDX-License-Identifier: MIT */
/*
 * elfx.h - ELF helpers every core module shares: the one section walker,
 * the kernel-image test, the runtime-layout test, and file identity.
 * All libelf calls go through `const struct elf_ops *` (elfops.h). Format
 * facts: ELF gABI (section header table, e_shstrndx, SHF_ALLOC, SHT_NOBITS).
 */
#ifndef SYMLAZY_ELFX_H
#define SYMLAZY_ELFX_H

#include <stdint.h>
#include <sys/stat.h>
#include "util/elfops.h"

struct symidx_layout;

/*
 * sl_elf_sections - call @fn(scn, shdr, name, ctx) for every section of
 * @elf in header order; @name is the section name from e_shstrndx's string
 * table, or NULL when it cannot be read. A non-zero return from @fn stops
 * the walk and is returned. Returns 0 after the last section, -EINVAL if the
 * section-header string table index cannot be read.
 * Only non-failing libelf lookups are made per section (elf_nextscn,
 * gelf_getshdr, elf_strptr), so elf_errno() is left as the tool set it.
 */
typedef int (*sl_section_fn)(Elf_Scn *scn, const GElf_Shdr *sh, const char *name, void *ctx);
int sl_elf_sections(const struct elf_ops *ops, Elf *elf, sl_section_fn fn, void *ctx);

/*
 * sl_elf_next - the iterator form of sl_elf_sections, for walks that stop
 * early or keep state: the section after @scn (NULL: the first) whose
 * header reads, with the header in *@sh and its name from the @shstrndx
 * string table in *@name (NULL when it cannot be read); NULL after the last.
 */
Elf_Scn *sl_elf_next(const struct elf_ops *ops, Elf *elf, Elf_Scn *scn, size_t shstrndx, GElf_Shdr *sh,
		     const char **name);

/* sl_elf_section - the first section named @want: 1 with *@out / *@shout
 * set (either may be NULL), 0 if there is none. */
int sl_elf_section(const struct elf_ops *ops, Elf *elf, const char *want, Elf_Scn **out,
		   GElf_Shdr *shout);

/*
 * sl_elf_is_kernel - is @elf a kernel image or module (ET_REL, or a
 * __ksymtab / __ksymtab_strings / .modinfo section)? perf remaps the maps of
 * those (tools/perf/util/symbol-elf.c dso__load_sym, kmodule handling), so
 * symlazy never filters them. An unreadable ELF header counts as kernel
 * (never filtered). 1 or 0.
 */
int sl_elf_is_kernel(const struct elf_ops *ops, Elf *elf);

/*
 * sl_elf_runtime_layout - the layout of @elf (symindex_layout) if @elf can
 * serve as the runtime ELF of a DSO: some PT_LOAD holds file bytes and
 * .text is not SHT_NOBITS (separate debug files keep bogus program headers
 * and NOBITS text). @fsize: size in bytes of the file behind @elf, 0 if
 * unknown. 1 with *@lay filled, else 0.
 */
int sl_elf_runtime_layout(const struct elf_ops *ops, Elf *elf, uint64_t fsize,
			  struct symidx_layout *lay);

/* File identity: what distinguishes one file's contents from another's at
 * the same path when there is no build-id (fstat(2) fields). */
struct sl_file_id {
	uint64_t dev, ino, size;
	int64_t mtime_sec, mtime_nsec;
	/* not in sl_file_id_key: linking the file (perf's build-id cache
	 * hard-links system libraries) changes ctime, and the key would churn;
	 * the symbol index key adds it for files without a build-id
	 * (index/cache.c sl_cache_key), which perf never links */
	int64_t ctime_sec, ctime_nsec;
	int valid;                  /* 0: unknown (no fstat) */
};

/* sl_file_id_from_stat - fill @id from @st. */
void sl_file_id_from_stat(struct sl_file_id *id, const struct stat *st);

/* sl_file_id_key - FNV-1a over the identity fields; 0 when @id is not valid. */
uint64_t sl_file_id_key(const struct sl_file_id *id);

#endif
