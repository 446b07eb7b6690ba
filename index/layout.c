/* SPDX-License-Identifier: MIT */
/*
 * index/layout.c - the runtime layout of a DSO that perf's lookups depend
 * on (struct symidx_layout): its PT_LOAD bias, .plt/.plt.got/.plt.sec
 * geometry and relocations for PLT synthesis (dso__synthesize_plt_symbols,
 * tools/perf/util/symbol-elf.c, v6.1 and v6.2+ rules), IFUNC entry names.
 */
#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "index/cache.h"
#include "index/elfx.h"
#include "index/format.h"
#include "index/model.h"
#include "index/rbsim.h"
#include "util/util.h"
#include "index/symindex.h"
#include "index/replay.h"

/* Does [off, off + size) lie in a file of @fsize bytes (0: unknown)? libelf
 * fails elf_getdata() for a section that does not (see symindex_layout). */
static int fits(uint64_t fsize, const GElf_Shdr *sh)
{
	return !fsize || sh->sh_type == SHT_NOBITS ||
	       (sh->sh_offset <= fsize && sh->sh_size <= fsize - sh->sh_offset);
}

/* get_plt_sizes() of tools/perf/util/symbol-elf.c (v6.2+): 1 if an entry
 * size results. */
static int plt_sizes(uint32_t machine, const GElf_Shdr *sh, uint64_t *hdr, uint64_t *ent)
{
	switch (machine) {
	case EM_ARM:     *hdr = 20;  *ent = 12; return 1;
	case EM_AARCH64: *hdr = 32;  *ent = 16; return 1;
	case 258:        *hdr = 32;  *ent = 16; return 1;   /* EM_LOONGARCH */
	case EM_SPARC:   *hdr = 48;  *ent = 12; return 1;
	case EM_SPARCV9: *hdr = 128; *ent = 32; return 1;
	case EM_386:
	case EM_X86_64:
		*ent = sh->sh_entsize;
		if (*ent != 8 && *ent != 16)
			*ent = sh->sh_addralign == 8 ? 8 : 16;
		*hdr = *ent;
		break;
	default:
		*hdr = *ent = sh->sh_entsize;
		break;
	}
	return *ent != 0;
}

struct rel_pos {
	uint64_t off;
	uint32_t idx;
};

static int rel_pos_cmp(const void *a, const void *b)
{
	const struct rel_pos *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * The entries perf 6.2+ names from its tree (get_ifunc_name: x86-64 RELA,
 * R_X86_64_IRELATIVE, empty symbol name, addend inside a PT_LOAD): their
 * positions in r_offset order (sort_rel) and the file offsets looked up.
 * @tab/@str: the table the relocations link to and its strings.
 */
static void plt2_ifuncs(const struct elf_ops *ops, Elf_Data *rel, int is64, Elf_Data *tab,
			Elf_Data *str, struct symidx_layout *lay)
{
	struct symidx_plt2 *p = &lay->p2;
	size_t esz = is64 ? sizeof(Elf64_Rela) : sizeof(Elf32_Rela), n, i, k;
	struct rel_pos *pos;
	const unsigned char *b;

	if (!rel || !rel->d_buf || rel->d_type != ELF_T_RELA) {
		p->ifunc_unknown = 1;
		return;
	}
	n = rel->d_size / esz;
	if (n > p->nrel)
		n = p->nrel;
	if (n < p->nrel) {
		/* gelf_getrela past the data fails, perf reads a stale rela */
		p->ifunc_unknown = 1;
	}
	pos = malloc((n ? n : 1) * sizeof(*pos));
	if (!pos) {
		p->ifunc_unknown = 1;
		return;
	}
	b = rel->d_buf;
	for (i = 0; i < n; i++) {
		if (is64) {
			Elf64_Rela r;

			memcpy(&r, b + i * esz, sizeof(r));
			pos[i].off = r.r_offset;
		} else {
			Elf32_Rela r;

			memcpy(&r, b + i * esz, sizeof(r));
			pos[i].off = r.r_offset;
		}
		pos[i].idx = (uint32_t)i;
	}
	qsort(pos, n, sizeof(*pos), rel_pos_cmp);
	for (k = 0; k < n; k++) {
		uint64_t info, addend, symi, type, addr;
		GElf_Sym sym;
		unsigned j;

		if (is64) {
			Elf64_Rela r;

			memcpy(&r, b + pos[k].idx * esz, sizeof(r));
			info = r.r_info;
			addend = (uint64_t)r.r_addend;
			symi = ELF64_R_SYM(info);
			type = ELF64_R_TYPE(info);
		} else {
			Elf32_Rela r;

			memcpy(&r, b + pos[k].idx * esz, sizeof(r));
			info = r.r_info;
			addend = (uint64_t)(uint32_t)r.r_addend;
			symi = ELF32_R_SYM(info);
			type = ELF32_R_TYPE(info);
		}
		if (type != R_X86_64_IRELATIVE)
			continue;
		if (!tab || !ops->gelf_getsym(tab, (int)symi, &sym) || !str || !str->d_buf ||
		    sym.st_name >= str->d_size) {
			p->ifunc_unknown = 1;       /* stale or unreadable name */
			continue;
		}
		if (((const char *)str->d_buf)[sym.st_name])
			continue;                   /* named: "<name>@plt" */
		if ((k > 0 && pos[k - 1].off == pos[k].off) || (k + 1 < n && pos[k + 1].off == pos[k].off)) {
			p->ifunc_unknown = 1;       /* qsort_r may order ties either way */
			continue;
		}
		for (j = 0; j < lay->nloads; j++)
			if (addend >= lay->loads[j].vaddr && addend < lay->loads[j].vaddr + lay->loads[j].size)
				break;
		if (j == lay->nloads)
			continue;                   /* "offset_%#x@plt" */
		addr = addend - (lay->loads[j].vaddr - lay->loads[j].offset);
		if (p->nifunc == SYMIDX_MAX_IFUNC) {
			p->ifunc_unknown = 1;
			continue;
		}
		p->ifunc_k[p->nifunc] = (uint32_t)k;
		p->ifunc_addr[p->nifunc] = addr;
		p->nifunc++;
	}
	free(pos);
}

/*
 * The inputs of perf 6.2+'s dso__synthesize_plt_symbols (symbol-elf.c), in
 * its order: sections found by name as elf_section_by_name() finds them (the
 * first of that name; idx = section index), sizes by get_plt_sizes(), the
 * relocation loop's preconditions. elf_getdata() is called only on sections
 * that fit in the file (then libelf does not fail it: perf calls it too).
 */
static void layout_plt2(const struct elf_ops *ops, Elf *elf, uint64_t fsize, size_t shstrndx,
			struct symidx_layout *lay)
{
	struct symidx_plt2 *p = &lay->p2;
	GElf_Shdr sh, plt = { 0 }, got = { 0 }, sec = { 0 }, rela = { 0 }, rel = { 0 }, dyn = { 0 }, sym = { 0 };
	Elf_Scn *scn = NULL, *rela_scn = NULL, *rel_scn = NULL, *dyn_scn = NULL, *sym_scn = NULL, *r_scn;
	size_t dyn_idx = 0, sym_idx = 0;
	int have_plt = 0, have_got = 0, have_sec = 0, x86, is64;
	GElf_Ehdr eh;
	const GElf_Shdr *r;
	const char *name;

	if (!ops->gelf_getehdr(elf, &eh))
		return;
	p->machine = eh.e_machine;
	is64 = eh.e_ident[EI_CLASS] == ELFCLASS64;
	x86 = eh.e_machine == EM_386 || eh.e_machine == EM_X86_64;
	while ((scn = sl_elf_next(ops, elf, scn, shstrndx, &sh, &name)) != NULL) {
		if (!name)
			continue;
		if (!have_plt && !strcmp(name, ".plt")) {
			plt = sh;
			have_plt = 1;
		} else if (!have_got && !strcmp(name, ".plt.got")) {
			got = sh;
			have_got = 1;
		} else if (!have_sec && !strcmp(name, ".plt.sec")) {
			sec = sh;
			have_sec = 1;
		} else if (!rela_scn && !strcmp(name, ".rela.plt")) {
			rela = sh;
			rela_scn = scn;
		} else if (!rel_scn && !strcmp(name, ".rel.plt")) {
			rel = sh;
			rel_scn = scn;
		} else if (!dyn_idx && !strcmp(name, ".dynsym")) {
			dyn = sh;
			dyn_idx = ops->elf_ndxscn(scn);
			dyn_scn = scn;
		} else if (!sym_idx && !strcmp(name, ".symtab")) {
			sym = sh;
			sym_idx = ops->elf_ndxscn(scn);
			sym_scn = scn;
		}
	}
	if (!have_plt)
		return;
	p->ok = 1;
	p->plt_off = plt.sh_offset;
	p->plt_size = plt.sh_size;
	if (!plt_sizes(p->machine, &plt, &p->hdr, &p->ent))
		return;
	p->sizes_ok = 1;
	if (x86 && have_got && got.sh_entsize) {
		uint64_t n = (got.sh_size + got.sh_entsize - 1) / got.sh_entsize;

		if (n >= (1u << 24)) {
			p->unmodelable = 1;
			return;
		}
		p->got_off = got.sh_offset;
		p->got_ent = got.sh_entsize;
		p->ngot = (uint32_t)n;
	}
	if (x86 && have_sec) {
		uint64_t hdr;

		if (!plt_sizes(p->machine, &sec, &hdr, &p->sec_ent))
			return;
		p->sec = 1;
		p->sec_off = sec.sh_offset;
	}
	/* the relocation loop's preconditions */
	r_scn = rela_scn ? rela_scn : rel_scn;
	r = rela_scn ? &rela : &rel;
	if (!r_scn || (r->sh_type != SHT_RELA && r->sh_type != SHT_REL) || !r->sh_link)
		return;
	{
		Elf_Scn *tscn, *sscn;
		const GElf_Shdr *tsh;
		GElf_Shdr ssh;
		Elf_Data *rd, *td, *sd;

		if (dyn_idx && r->sh_link == dyn_idx) {
			if (dyn.sh_type != SHT_DYNSYM)
				return;         /* ss->dynsym is NULL */
			tscn = dyn_scn;
			tsh = &dyn;
		} else if (sym_idx && r->sh_link == sym_idx) {
			if (sym.sh_type != SHT_SYMTAB)
				return;
			tscn = sym_scn;
			tsh = &sym;
		} else {
			return;
		}
		if (!fits(fsize, r) || !fits(fsize, tsh) || r->sh_type == SHT_NOBITS)
			return;
		if (!tsh->sh_link || !(sscn = ops->elf_getscn(elf, tsh->sh_link)) || !ops->gelf_getshdr(sscn, &ssh) ||
		    !fits(fsize, &ssh) || ssh.sh_type == SHT_NOBITS || !ssh.sh_size)
			return;
		if (!r->sh_entsize) {
			p->unmodelable = 1;     /* perf divides by it */
			return;
		}
		if (r->sh_size / r->sh_entsize >= (1u << 24)) {
			p->unmodelable = 1;
			return;
		}
		p->nrel = (uint32_t)(r->sh_size / r->sh_entsize);
		p->rel_ok = 1;
		if (eh.e_machine != EM_X86_64 || r->sh_type != SHT_RELA || !p->nrel)
			return;
		rd = ops->elf_getdata(r_scn, NULL);
		td = ops->elf_getdata(tscn, NULL);
		sd = ops->elf_getdata(sscn, NULL);
		if (!rd || !td || !sd) {
			p->rel_ok = 0;          /* perf's elf_getdata failed too */
			return;
		}
		plt2_ifuncs(ops, rd, is64, td, sd, lay);
	}
}

int symindex_layout(const struct elf_ops *ops, Elf *elf, uint64_t fsize, struct symidx_layout *lay)
{
	size_t phnum = 0, shstrndx = 0, i;
	Elf_Scn *scn = NULL;

	memset(lay, 0, sizeof(*lay));
	if (ops->elf_getphdrnum(elf, &phnum) != 0)
		return -EINVAL;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		uint64_t sz;

		if (!ops->gelf_getphdr(elf, (int)i, &ph))
			return -EINVAL;
		if (ph.p_type != PT_LOAD)
			continue;
		sz = ph.p_memsz > ph.p_filesz ? ph.p_memsz : ph.p_filesz;
		if (!sz)
			continue;
		if (lay->nloads == SYMIDX_MAX_LOADS)
			return -E2BIG;
		lay->loads[lay->nloads].vaddr = ph.p_vaddr;
		lay->loads[lay->nloads].offset = ph.p_offset;
		lay->loads[lay->nloads].size = sz;
		lay->nloads++;
	}
	if (ops->elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	{
		/* PLT synthesis inputs, as dso__synthesize_plt_symbols() finds them */
		size_t dynsym_idx = 0;
		GElf_Shdr rel = { 0 }, plt = { 0 };
		int have_rel = 0, have_plt = 0;

		GElf_Shdr sh;
		const char *name;

		while ((scn = sl_elf_next(ops, elf, scn, shstrndx, &sh, &name)) != NULL) {
			if (sh.sh_type == SHT_DYNSYM && sl_streq(name, ".dynsym") && !dynsym_idx)
				dynsym_idx = ops->elf_ndxscn(scn);
			else if (sl_streq(name, ".rela.plt") && have_rel != 2) {
				rel = sh;
				have_rel = 2;
			} else if (sl_streq(name, ".rel.plt") && !have_rel) {
				rel = sh;
				have_rel = 1;
			} else if (sl_streq(name, ".plt") && !have_plt) {
				plt = sh;
				have_plt = 1;
			}
		}
		if (dynsym_idx && have_rel && have_plt && rel.sh_link == dynsym_idx && rel.sh_entsize &&
		    (rel.sh_type == SHT_RELA || rel.sh_type == SHT_REL) && rel.sh_size / rel.sh_entsize < (1u << 24) &&
		    (!fsize || (rel.sh_offset <= fsize && rel.sh_size <= fsize - rel.sh_offset))) {
			lay->plt_ok = 1;
			lay->plt_entsize = plt.sh_entsize;
			lay->plt_first = plt.sh_offset + plt.sh_entsize;
			lay->nplt_rel = (uint32_t)(rel.sh_size / rel.sh_entsize);
		}
		scn = NULL;
	}
	layout_plt2(ops, elf, fsize, shstrndx, lay);
	while ((scn = ops->elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (!ops->gelf_getshdr(scn, &sh))
			continue;
		{
			size_t ndx = ops->elf_ndxscn(scn);

			if (ndx < SYMIDX_MAX_SECS) {
				lay->sec_addr[ndx] = sh.sh_addr;
				lay->sec_off[ndx] = sh.sh_offset;
				if (ndx + 1 > lay->nsecs)
					lay->nsecs = (unsigned)ndx + 1;
			}
		}
		name = ops->elf_strptr(elf, shstrndx, sh.sh_name);
		if ((sl_streq(name, ".plt") || sl_streq(name, ".plt.sec") ||
		     sl_streq(name, ".plt.got") || sl_streq(name, ".iplt")) && lay->nplt < 4) {
			lay->plt_lo[lay->nplt] = sh.sh_offset;
			lay->plt_hi[lay->nplt] = sh.sh_offset + sh.sh_size;
			lay->nplt++;
		}
	}
	return 0;
}
