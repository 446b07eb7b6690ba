/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include "index/elfx.h"
#include "index/symindex.h"
#include "util/util.h"

Elf_Scn *sl_elf_next(const struct elf_ops *ops, Elf *elf, Elf_Scn *scn, size_t shstrndx, GElf_Shdr *sh,
		     const char **name)
{
	while ((scn = ops->elf_nextscn(elf, scn)) != NULL) {
		if (!ops->gelf_getshdr(scn, sh))
			continue;
		*name = ops->elf_strptr(elf, shstrndx, sh->sh_name);
		return scn;
	}
	return NULL;
}

int sl_elf_sections(const struct elf_ops *ops, Elf *elf, sl_section_fn fn, void *ctx)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	const char *name;
	int r;

	if (ops->elf_getshdrstrndx(elf, &shstrndx) != 0)
		return -EINVAL;
	while ((scn = sl_elf_next(ops, elf, scn, shstrndx, &sh, &name)) != NULL) {
		r = fn(scn, &sh, name, ctx);
		if (r)
			return r;
	}
	return 0;
}

struct find_ctx {
	const char *want;
	Elf_Scn *scn;
	GElf_Shdr sh;
};

static int find_cb(Elf_Scn *scn, const GElf_Shdr *sh, const char *name, void *ctx)
{
	struct find_ctx *f = ctx;

	if (!name || strcmp(name, f->want))
		return 0;
	f->scn = scn;
	f->sh = *sh;
	return 1;
}

int sl_elf_section(const struct elf_ops *ops, Elf *elf, const char *want, Elf_Scn **out,
		   GElf_Shdr *shout)
{
	struct find_ctx f = { .want = want };

	if (sl_elf_sections(ops, elf, find_cb, &f) != 1)
		return 0;
	if (out)
		*out = f.scn;
	if (shout)
		*shout = f.sh;
	return 1;
}

static int kernel_cb(Elf_Scn *scn, const GElf_Shdr *sh, const char *name, void *ctx)
{
	(void)scn; (void)sh; (void)ctx;
	return name && (!strcmp(name, "__ksymtab") || !strcmp(name, ".modinfo") ||
			!strcmp(name, "__ksymtab_strings"));
}

int sl_elf_is_kernel(const struct elf_ops *ops, Elf *elf)
{
	GElf_Ehdr eh;

	if (!ops->gelf_getehdr(elf, &eh) || eh.e_type == ET_REL)
		return 1;
	return sl_elf_sections(ops, elf, kernel_cb, NULL) == 1;
}

int sl_elf_runtime_layout(const struct elf_ops *ops, Elf *elf, uint64_t fsize,
			  struct symidx_layout *lay)
{
	GElf_Shdr sh;
	unsigned i;

	if (symindex_layout(ops, elf, fsize, lay) < 0)
		return 0;
	if (sl_elf_section(ops, elf, ".text", NULL, &sh) && sh.sh_type == SHT_NOBITS)
		return 0;
	for (i = 0; i < lay->nloads; i++)
		if (lay->loads[i].size && lay->loads[i].offset + lay->loads[i].size != 0 &&
		    lay->loads[i].vaddr + lay->loads[i].size != 0)
			return 1;
	return 0;
}

void sl_file_id_from_stat(struct sl_file_id *id, const struct stat *st)
{
	id->dev = st->st_dev;
	id->ino = st->st_ino;
	id->size = (uint64_t)st->st_size;
	id->mtime_sec = st->st_mtim.tv_sec;
	id->mtime_nsec = st->st_mtim.tv_nsec;
	id->ctime_sec = st->st_ctim.tv_sec;
	id->ctime_nsec = st->st_ctim.tv_nsec;
	id->valid = 1;
}

uint64_t sl_file_id_key(const struct sl_file_id *id)
{
	uint64_t k = SL_FNV_OFFSET;

	if (!id || !id->valid)
		return 0;
	k = sl_fnv1a_u64(k, id->dev);
	k = sl_fnv1a_u64(k, id->ino);
	k = sl_fnv1a_u64(k, id->size);
	k = sl_fnv1a_u64(k, (uint64_t)id->mtime_sec);
	k = sl_fnv1a_u64(k, (uint64_t)id->mtime_nsec);
	return k;
}
