/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cache.h"
#include "elfx.h"
#include "index_format.h"
#include "model.h"
#include "rbsim.h"
#include "util.h"
#include "symindex.h"

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	return sl_fnv1a(h, p, n);
}

uint64_t symindex_checksum(const void *p, size_t n)
{
	const unsigned char *c = p;
	uint64_t h = 0xcbf29ce484222325ull, w;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, c + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	return fnv1a(h, c + i, n - i);
}

static int entry_less(const struct symidx_entry *a, const struct symidx_entry *b)
{
	if (a->start != b->start)
		return a->start < b->start;
	if (a->table != b->table)
		return a->table < b->table;
	return a->idx < b->idx;
}

static void sift_down(struct symidx_entry *e, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;
		struct symidx_entry t;

		if (child >= n)
			return;
		if (child + 1 < n && entry_less(&e[child], &e[child + 1]))
			child++;
		if (!entry_less(&e[root], &e[child]))
			return;
		t = e[root]; e[root] = e[child]; e[child] = t;
		root = child;
	}
}

void symindex_sort(struct symidx_entry *e, size_t n)
{
	size_t i;

	if (n < 2)
		return;
	for (i = n / 2; i-- > 0;)
		sift_down(e, i, n);
	for (i = n - 1; i > 0; i--) {
		struct symidx_entry t = e[0];

		e[0] = e[i]; e[i] = t;
		sift_down(e, 0, i);
	}
}

static int sec_name_is(const char *name, const char *want)
{
	return name && !strcmp(name, want);
}

/* One table as perf's symsrc__init() finds it: by name, then by type. */
static Elf_Data *named_table(const struct elf_ops *ops, Elf *elf, size_t shstrndx, size_t shnum,
			     const char *want, Elf64_Word type, uint32_t *n, Elf_Data **str)
{
	Elf_Scn *scn = NULL;

	while ((scn = ops->elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (!ops->gelf_getshdr(scn, &sh))
			continue;
		name = ops->elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, want))
			continue;
		if (sh.sh_type != type || !sh.sh_entsize)
			return NULL;
		*n = (uint32_t)(sh.sh_size / sh.sh_entsize);
		if (sh.sh_link && sh.sh_link < shnum) {
			Elf_Scn *ss = ops->elf_getscn(elf, sh.sh_link);

			*str = ss ? ops->elf_getdata(ss, NULL) : NULL;
		}
		return ops->elf_getdata(scn, NULL);
	}
	return NULL;
}

int symindex_src_init(struct symidx_src *src, const struct elf_ops *ops, Elf *elf,
		      const struct symidx_layout *lay, const unsigned char *build_id,
		      size_t build_id_len, const struct sl_file_id *file_id, int cache_dirfd,
		      int demangle)
{
	memset(src, 0, sizeof(*src));
	src->ops = ops;
	src->elf = elf;
	src->layout = lay;
	src->build_id = build_id;
	src->build_id_len = build_id_len;
	if (file_id)
		src->file_id = *file_id;
	src->cache_dirfd = cache_dirfd;
	src->demangle = demangle;
	src->model = &sl_model_perf61;
	return symindex_src_tables(ops, elf, src);
}

int symindex_src_tables(const struct elf_ops *ops, Elf *elf, struct symidx_src *src)
{
	size_t shstrndx = 0, shnum = 0;

	src->symtab = src->dynsym = src->symtab_str = src->dynsym_str = NULL;
	src->nsymtab = src->ndynsym = 0;
	if (ops->elf_getshdrstrndx(elf, &shstrndx) != 0 || ops->elf_getshdrnum(elf, &shnum) != 0)
		return 0;
	src->symtab = named_table(ops, elf, shstrndx, shnum, ".symtab", SHT_SYMTAB, &src->nsymtab, &src->symtab_str);
	src->dynsym = named_table(ops, elf, shstrndx, shnum, ".dynsym", SHT_DYNSYM, &src->ndynsym, &src->dynsym_str);
	if (!src->symtab)
		src->nsymtab = 0;
	if (!src->dynsym)
		src->ndynsym = 0;
	return !!src->symtab + !!src->dynsym;
}

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

	if (!ops->gelf_getehdr(elf, &eh))
		return;
	p->machine = eh.e_machine;
	is64 = eh.e_ident[EI_CLASS] == ELFCLASS64;
	x86 = eh.e_machine == EM_386 || eh.e_machine == EM_X86_64;
	while ((scn = ops->elf_nextscn(elf, scn)) != NULL) {
		const char *name;

		if (!ops->gelf_getshdr(scn, &sh))
			continue;
		name = ops->elf_strptr(elf, shstrndx, sh.sh_name);
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

		while ((scn = ops->elf_nextscn(elf, scn)) != NULL) {
			GElf_Shdr sh;
			const char *name;

			if (!ops->gelf_getshdr(scn, &sh))
				continue;
			name = ops->elf_strptr(elf, shstrndx, sh.sh_name);
			if (sh.sh_type == SHT_DYNSYM && sec_name_is(name, ".dynsym") && !dynsym_idx)
				dynsym_idx = ops->elf_ndxscn(scn);
			else if (sec_name_is(name, ".rela.plt") && have_rel != 2) {
				rel = sh;
				have_rel = 2;
			} else if (sec_name_is(name, ".rel.plt") && !have_rel) {
				rel = sh;
				have_rel = 1;
			} else if (sec_name_is(name, ".plt") && !have_plt) {
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
		if ((sec_name_is(name, ".plt") || sec_name_is(name, ".plt.sec") ||
		     sec_name_is(name, ".plt.got") || sec_name_is(name, ".iplt")) && lay->nplt < 4) {
			lay->plt_lo[lay->nplt] = sh.sh_offset;
			lay->plt_hi[lay->nplt] = sh.sh_offset + sh.sh_size;
			lay->nplt++;
		}
	}
	return 0;
}

/* Per-section facts for perf's filters. */
struct secinfo {
	uint8_t alloc, label_ok, nobits;
	uint64_t addr, offset;
};

static uint64_t roundup_page(uint64_t x, uint64_t page)
{
	return (x + page - 1) / page * page;
}

/*
 * Classify one symbol exactly as perf 6.1's dso__load_sym_internal() main
 * loop does on x86 (symbol-elf.c; see ../shared notes §2.2). Returns
 * 1 (candidate, *start set), 0 (perf skips it), -1 (perf would abort the pass
 * or we cannot model it: whole DSO unmodelable).
 */
static int classify(const struct sl_model *m, const GElf_Sym *s, const struct secinfo *secs, size_t shnum,
		    const struct symidx_layout *lay, uint64_t *start)
{
	enum sl_sym_kind kind = m->sym_kind(s);
	int is_label = kind == SL_SYM_LABEL;
	const struct secinfo *sec;
	unsigned i;

	if (kind == SL_SYM_SKIP)
		return 0;
	if (s->st_shndx >= shnum || s->st_shndx == 0)
		return -1;          /* elf_getscn() fails -> perf aborts the pass */
	sec = &secs[s->st_shndx];
	if (!sec->alloc)
		return 0;
	if (is_label && !sec->label_ok)
		return 0;
	for (i = 0; i < lay->nloads; i++) {
		const struct symidx_load *l = &lay->loads[i];

		if (s->st_value >= l->vaddr && s->st_value < l->vaddr + l->size) {
			*start = s->st_value - (l->vaddr - l->offset);
			return 1;
		}
	}
	if (sec->nobits) {      /* perf uses the runtime section header */
		if (s->st_shndx >= lay->nsecs)
			return -1;
		*start = s->st_value - (lay->sec_addr[s->st_shndx] - lay->sec_off[s->st_shndx]);
		return 1;
	}
	*start = s->st_value - (sec->addr - sec->offset);
	return 1;
}

static int load_secinfo(const struct elf_ops *ops, const struct sl_model *m, Elf *elf,
		       struct secinfo **out, size_t *nout)
{
	size_t shnum = 0, shstrndx = 0, i;
	struct secinfo *secs;

	if (ops->elf_getshdrnum(elf, &shnum) != 0 || shnum == 0 || shnum > 65536)
		return -EINVAL;
	if (ops->elf_getshdrstrndx(elf, &shstrndx) != 0)
		return -EINVAL;
	secs = calloc(shnum, sizeof(*secs));
	if (!secs)
		return -ENOMEM;
	for (i = 1; i < shnum; i++) {
		Elf_Scn *scn = ops->elf_getscn(elf, i);
		GElf_Shdr sh;
		const char *name;

		if (!scn || !ops->gelf_getshdr(scn, &sh))
			continue;
		name = ops->elf_strptr(elf, shstrndx, sh.sh_name);
		secs[i].alloc = (sh.sh_flags & SHF_ALLOC) != 0;
		secs[i].nobits = sh.sh_type == SHT_NOBITS;
		secs[i].label_ok = m->label_section_ok(name);
		secs[i].addr = sh.sh_addr;
		secs[i].offset = sh.sh_offset;
	}
	*out = secs;
	*nout = shnum;
	return 0;
}

static int attach(struct symidx *out, void *map, size_t size)
{
	const struct symidx_hdr *h = map;

	memset(out, 0, sizeof(*out));
	out->map = map;
	out->map_size = size;
	out->nentries = h->nentries;
	out->ngroups = h->ngroups;
	out->nsymtab = h->nsymtab;
	out->ndynsym = h->ndynsym;
	out->unmodelable = (int)h->unmodelable;
	memcpy(out->why, h->why, sizeof(out->why));
	out->why[sizeof(out->why) - 1] = '\0';
	out->entries = (const void *)((const char *)map + sizeof(*h));
	out->groups = (const void *)(out->entries + h->nentries);
	return 0;
}

static int try_cache(const struct symidx_src *src, uint64_t key, struct symidx *out)
{
	void *map;
	size_t size;
	int r = sl_cache_map(src, key, &map, &size);

	if (r < 0)
		return r;
	attach(out, map, size);
	out->from_cache = 1;
	return 0;
}

static int build(const struct symidx_src *src, uint64_t key, struct symidx *out)
{
	const struct elf_ops *ops = src->ops;
	struct secinfo *secs = NULL;
	size_t shnum = 0, cap_bytes, final_size;
	uint32_t n = 0, g, t, i;
	struct symidx_hdr *h;
	struct symidx_entry *e;
	struct symidx_group *grp;
	char tmpname[96];
	char why[96] = "";
	int unmodelable = 0, fd, ret;
	void *map;
	Elf_Data *tabs[2] = { src->symtab, src->dynsym };
	uint32_t counts[2] = { src->symtab ? src->nsymtab : 0, src->dynsym ? src->ndynsym : 0 };
	uint64_t page = sl_model_last_page(src->model);

	ret = load_secinfo(ops, src->model, src->elf, &secs, &shnum);
	if (ret < 0)
		return ret;

	/* Pass 1: count candidates. */
	for (t = 0; t < 2 && !unmodelable; t++) {
		for (i = 0; i < counts[t]; i++) {
			GElf_Sym s;
			uint64_t st;
			int c;

			if (!ops->gelf_getsym(tabs[t], (int)i, &s)) {
				unmodelable = 1;
				snprintf(why, sizeof(why), "unreadable symbol %u in %s", i, t ? ".dynsym" : ".symtab");
				break;
			}
			c = classify(src->model, &s, secs, shnum, src->layout, &st);
			if (c < 0) {
				unmodelable = 1;
				snprintf(why, sizeof(why), "symbol %u of %s has section index %u perf cannot model",
					 i, t ? ".dynsym" : ".symtab", (unsigned)s.st_shndx);
				break;
			}
			n += (uint32_t)c;
		}
	}
	if (unmodelable)
		n = 0;

	cap_bytes = sizeof(*h) + (size_t)n * (sizeof(*e) + sizeof(*grp));
	fd = sl_cache_backing(src, cap_bytes, tmpname, sizeof(tmpname));
	if (fd < 0) {
		free(secs);
		return fd;
	}
	map = mmap(NULL, cap_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		ret = -errno;
		goto fail_fd;
	}
	h = map;
	e = (void *)(h + 1);

	/* Pass 2: fill entries. */
	for (t = 0, g = 0; t < 2 && !unmodelable; t++) {
		for (i = 0; i < counts[t] && g < n; i++) {
			GElf_Sym s;
			uint64_t st;

			if (!ops->gelf_getsym(tabs[t], (int)i, &s) ||
			    classify(src->model, &s, secs, shnum, src->layout, &st) != 1)
				continue;
			e[g].start = st;
			e[g].size = s.st_size;
			e[g].idx = i;
			e[g].table = t;
			g++;
		}
	}
	n = g;
	free(secs);
	symindex_sort(e, n);

	/* Groups: one per distinct start, written after the entries. */
	grp = (void *)(e + n);
	for (i = 0, g = 0; i < n; g++) {
		uint32_t j = i;

		memset(&grp[g], 0, sizeof(grp[g]));
		grp[g].start = e[i].start;
		grp[g].first = i;
		while (j < n && e[j].start == e[i].start) {
			if (e[j].table == 0)
				grp[g].flags |= SG_HAS_SYMTAB | (e[j].size ? 0 : SG_ZERO_SYMTAB);
			else if (!e[j].size)
				grp[g].flags |= SG_ZERO_DYNSYM;
			j++;
		}
		grp[g].n = j - i;
		i = j;
	}
	{
		uint32_t next_sym = SYMIDX_NONE, next_all = SYMIDX_NONE;
		uint64_t pmax = 0;

		for (i = g; i-- > 0;) {
			grp[i].next_sym = next_sym;
			grp[i].next_all = next_all;
			if (grp[i].flags & SG_HAS_SYMTAB)
				next_sym = i;
			next_all = i;
		}
		for (i = 0; i < g; i++) {
			struct symidx_group *G = &grp[i];
			uint64_t lo = UINT64_MAX, hi = 0, end;
			uint32_t k;

			for (k = G->first; k < G->first + G->n; k++) {
				if (e[k].size) {
					end = e[k].start + e[k].size;
				} else {
					uint32_t nx = e[k].table == 0 ? G->next_sym : G->next_all;

					end = nx == SYMIDX_NONE ? roundup_page(G->start, page) + page : grp[nx].start;
				}
				if (end <= G->start)
					continue;       /* zero-length: loses every duplicate choice */
				lo = end < lo ? end : lo;
				hi = end > hi ? end : hi;
			}
			if (lo == UINT64_MAX)
				lo = hi = G->start;
			G->min_end = lo;
			G->max_end = hi;
			G->pmax = pmax;
			pmax = hi > pmax ? hi : pmax;
		}
	}

	memset(h, 0, sizeof(*h));
	memcpy(h->magic, SYMIDX_MAGIC, 8);
	h->version = SYMIDX_VERSION;
	h->hdr_size = sizeof(*h);
	h->key = key;
	h->nentries = n;
	h->ngroups = g;
	h->nsymtab = src->symtab ? src->nsymtab : 0;
	h->ndynsym = src->dynsym ? src->ndynsym : 0;
	h->unmodelable = (uint32_t)unmodelable;
	memcpy(h->why, why, sizeof(h->why));
	memcpy(h->build_id, src->build_id, src->build_id_len > 20 ? 20 : src->build_id_len);
	h->build_id_len = (uint32_t)src->build_id_len;
	final_size = sizeof(*h) + (size_t)n * sizeof(*e) + (size_t)g * sizeof(*grp);
	h->checksum = symindex_checksum((char *)map + sizeof(*h), final_size - sizeof(*h));
	munmap(map, cap_bytes);

	if (ftruncate(fd, (off_t)final_size) < 0) {
		ret = -errno;
		goto fail_fd;
	}
	map = mmap(NULL, final_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		ret = -errno;
		goto fail_fd;
	}
	sl_cache_commit(src, key, tmpname);
	close(fd);
	attach(out, map, final_size);
	return 0;

fail_fd:
	sl_cache_discard(src, tmpname);
	close(fd);
	return ret;
}

int symindex_open(const struct symidx_src *src, struct symidx *out)
{
	uint64_t key = sl_cache_key(src);

	memset(out, 0, sizeof(*out));
	if (try_cache(src, key, out) == 0)
		return 0;
	return build(src, key, out);
}

void symindex_close(struct symidx *idx)
{
	if (idx->map)
		munmap(idx->map, idx->map_size);
	memset(idx, 0, sizeof(*idx));
}

/* Last group with start <= a, or SYMIDX_NONE. */
static uint32_t pred_group(const struct symidx *idx, uint64_t a)
{
	uint32_t lo = 0, hi = idx->ngroups;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (idx->groups[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : SYMIDX_NONE;
}

static int in_plt(const struct symidx_layout *lay, uint64_t lo, uint64_t hi)
{
	unsigned i;

	for (i = 0; i < lay->nplt; i++)
		if (lay->plt_lo[i] <= hi && lo < lay->plt_hi[i])
			return 1;
	return 0;
}

/* Does [lo, hi] meet a symbol the PLT synthesis of variant @plt inserts?
 * (The sections themselves are in_plt(); synthesized symbols can reach past
 * them when the counts do not fit the section sizes.) */
static int in_synth(const struct symidx_layout *lay, enum sl_plt_rules plt, uint64_t lo, uint64_t hi)
{
	const struct symidx_plt2 *p = &lay->p2;
	uint64_t r[3][2];
	unsigned n = 0, i;

	if (plt == SL_PLT_V61) {
		if (!lay->plt_ok)
			return 0;
		r[n][0] = lay->plt_first;
		r[n][1] = lay->plt_first + (uint64_t)lay->nplt_rel * lay->plt_entsize;
		n++;
	} else {
		if (!p->ok || !p->sizes_ok)
			return 0;
		r[n][0] = p->plt_off;
		r[n][1] = p->plt_off + (p->hdr > p->plt_size ? p->hdr : p->plt_size);
		n++;
		if (p->ngot) {
			r[n][0] = p->got_off;
			r[n][1] = p->got_off + (uint64_t)p->ngot * p->got_ent;
			n++;
		}
		if (p->rel_ok) {
			uint64_t base = p->sec ? p->sec_off : p->plt_off, ent = p->sec ? p->sec_ent : p->ent;

			r[n][0] = base;
			r[n][1] = base + p->hdr + (uint64_t)p->nrel * ent;
			n++;
		}
	}
	for (i = 0; i < n; i++)
		if (r[i][0] <= hi && lo < r[i][1])
			return 1;
	return 0;
}

/*
 * Answer for @a: 0 = no symbol (NULL), 1 = group *@g, -1 = ambiguous
 * (depends on rb-tree shape or PLT synthesis). @lay NULL: no PLT facts.
 */
static int answer(const struct symidx *idx, const struct symidx_layout *lay, enum sl_plt_rules plt,
		  uint64_t a, uint32_t *g)
{
	uint32_t p = pred_group(idx, a);
	const struct symidx_group *T;

	if (lay && (in_plt(lay, a, a) || in_synth(lay, plt, a, a)))
		return -1;
	if (p == SYMIDX_NONE)
		return 0;
	T = &idx->groups[p];
	if (T->pmax > a)
		return -1;
	/* 6.2+: the symbol perf finds at .plt is cut there (the stretched
	 * _init): which one, and so its end, depends on the tree - for an
	 * address past .plt and for one inside a symbol reaching over it */
	if (lay && plt == SL_PLT_V62 && lay->p2.ok && T->start < lay->p2.plt_off &&
	    (a >= lay->p2.plt_off || T->max_end > lay->p2.plt_off))
		return -1;
	if (a == T->start || a < T->min_end) {
		if (lay && (in_plt(lay, T->start + 1, a) || in_synth(lay, plt, T->start + 1, a)))
			return -1;
		*g = p;
		return 1;
	}
	if (a >= T->max_end)
		return 0;
	return -1;
}

uint32_t symindex_find(const struct symidx *idx, uint64_t addr)
{
	uint32_t g = SYMIDX_NONE;

	if (idx->unmodelable || answer(idx, NULL, SL_PLT_V61, addr, &g) != 1)
		return SYMIDX_NONE;
	return g;
}

/* ---- replay of perf's tree (rule 2) ------------------------------------ */

#define SIM_NULL UINT64_MAX
#define SIM_PLT  (2ull << 32)           /* | k: the k-th relocation entry */
#define SIM_PLT_HDR (3ull << 32)        /* the ".plt" symbol (6.2+) */
#define SIM_PLT_GOT (4ull << 32)        /* | j: the j-th .plt.got entry (6.2+) */
#define SIM_SYNTH(id) ((id) != SIM_NULL && ((id) >> 32) >= 2)

/* rbs_node.aux: ELF binding, type, and perf's ifunc_alias flag */
#define AUX_BIND(x)  ((unsigned)((x) & 0xff))
#define AUX_TYPE(x)  ((unsigned)(((x) >> 8) & 0xff))
#define AUX_ALIAS    (1ull << 16)

struct sim {
	const struct symidx *idx;
	const struct symidx_src *src;
	int uncertain;
	struct rbs t;
	void *map;
	size_t map_size;
};

/* What perf answers per address: the symbol, its end, and for PLT entries
 * named from the tree (6.2+ IFUNC entries) the symbol the name comes from. */
struct sim_out {
	uint64_t *id, *start, *end;
	uint64_t *name, *name_start;        /* SIM_NULL: the name depends on no symbol */
};

static const char *sim_name(const struct sim *S, uint64_t id)
{
	uint32_t table = (uint32_t)(id >> 32), i = (uint32_t)id;
	Elf_Data *tab = table ? S->src->dynsym : S->src->symtab;
	Elf_Data *str = table ? S->src->dynsym_str : S->src->symtab_str;
	GElf_Sym sym;

	if (!tab || !str || !str->d_buf || !S->src->ops->gelf_getsym(tab, (int)i, &sym) ||
	    sym.st_name >= str->d_size || !memchr((const char *)str->d_buf + sym.st_name, 0,
						  str->d_size - sym.st_name))
		return NULL;
	return (const char *)str->d_buf + sym.st_name;
}

/* choose_best_symbol() of tools/perf/util/symbol.c: 0 = keep a, 1 = keep b. */
static int sim_choose(struct sim *S, uint32_t a, uint32_t b)
{
	const struct rbs_node *A = &S->t.n[a], *B = &S->t.n[b];
	int64_t la = (int64_t)(A->end - A->start), lb = (int64_t)(B->end - B->start);
	unsigned ba = AUX_BIND(A->aux), bb = AUX_BIND(B->aux);
	const char *na, *nb;

	if (lb == 0 && la > 0)
		return 0;
	if (la == 0 && lb > 0)
		return 1;
	if ((bb == STB_WEAK) && !(ba == STB_WEAK))
		return 0;
	if ((ba == STB_WEAK) && !(bb == STB_WEAK))
		return 1;
	if ((ba == STB_GLOBAL) && !(bb == STB_GLOBAL))
		return 0;
	if ((bb == STB_GLOBAL) && !(ba == STB_GLOBAL))
		return 1;
	na = sim_name(S, A->id);
	nb = sim_name(S, B->id);
	if (!na || !nb) {
		S->uncertain = 1;
		return 0;
	}
	if (strcmp(na, nb)) {
		int unc = 0, r;
		char *da = S->src->model->demangle(na, S->src->demangle, &unc);
		char *db = S->src->model->demangle(nb, S->src->demangle, &unc);

		r = unc ? 0 : S->src->model->choose_by_name(da ? da : na, db ? db : nb);
		if (unc)
			S->uncertain = 1;
		free(da);
		free(db);
		return r;
	}
	return S->src->model->choose_by_name(na, nb);
}

/* symbols__fixup_duplicate(); 6.2+ marks the survivor of an IFUNC pair */
static void sim_fixup_duplicate(struct sim *S)
{
	int mark = S->src->model->fixup.dup_marks_ifunc_alias;
	uint32_t nd = rbs_first(&S->t), curr, next;

	while (nd) {
		curr = nd;
again:
		nd = rbs_next(&S->t, curr);
		next = nd;
		if (!nd)
			break;
		if (S->t.n[curr].start != S->t.n[next].start)
			continue;
		if (sim_choose(S, curr, next) == 0) {
			if (mark && AUX_TYPE(S->t.n[next].aux) == STT_GNU_IFUNC)
				S->t.n[curr].aux |= AUX_ALIAS;
			rbs_erase(&S->t, next);
			goto again;
		} else {
			if (mark && AUX_TYPE(S->t.n[curr].aux) == STT_GNU_IFUNC)
				S->t.n[next].aux |= AUX_ALIAS;
			nd = rbs_next(&S->t, curr);
			rbs_erase(&S->t, curr);
		}
	}
}

/* One synthesized symbol: symbol__new(start, len) + symbols__insert(). */
static void sim_insert(struct sim *S, uint32_t *slot, uint64_t start, uint64_t len, uint64_t id)
{
	struct rbs_node *N = &S->t.n[*slot];

	N->start = start;
	N->end = len ? start + len : start;
	N->id = id;
	N->aux = STB_GLOBAL | ((uint64_t)STT_FUNC << 8);
	rbs_insert(&S->t, *slot);
	(*slot)++;
}

/* dso__synthesize_plt_symbols() of perf 6.1 */
static void sim_plt_v61(struct sim *S, const struct symidx_layout *lay, uint32_t slot)
{
	uint32_t i;

	if (!lay->plt_ok)
		return;
	for (i = 0; i < lay->nplt_rel; i++)
		sim_insert(S, &slot, lay->plt_first + (uint64_t)i * lay->plt_entsize, lay->plt_entsize, SIM_PLT | i);
}

/*
 * dso__synthesize_plt_symbols() of perf 6.2+ (model_perf612.c lists the
 * rules). @name_of[k] gets, for the IFUNC entries named from the tree, the
 * node whose name perf uses (0: none, "offset_0x..@plt").
 */
static void sim_plt_v62(struct sim *S, const struct symidx_layout *lay, uint32_t slot, uint32_t *name_of)
{
	const struct symidx_plt2 *p = &lay->p2;
	uint32_t x, hdr = 0, i, f = 0;
	uint64_t base, ent;

	if (!p->ok)
		return;
	x = rbs_find(&S->t, p->plt_off);
	if (x && S->t.n[x].start < p->plt_off && S->t.n[x].end > p->plt_off)
		S->t.n[x].end = p->plt_off;
	if (!p->sizes_ok)
		return;
	hdr = slot;
	sim_insert(S, &slot, p->plt_off, p->hdr, SIM_PLT_HDR);
	for (i = 0; i < p->ngot; i++)
		sim_insert(S, &slot, p->got_off + (uint64_t)i * p->got_ent, p->got_ent, SIM_PLT_GOT | i);
	if (p->sec) {
		S->t.n[hdr].end = p->plt_off + p->plt_size;
		base = p->sec_off;
		ent = p->sec_ent;
	} else {
		base = p->plt_off;
		ent = p->ent;
	}
	if (!p->rel_ok)
		return;
	if (!p->sec) {
		if ((uint64_t)p->nrel * ent == p->plt_size)
			rbs_erase(&S->t, hdr);      /* dso__delete_symbol */
		else
			base += p->hdr;
	}
	for (i = 0; i < p->nrel; i++) {
		if (f < p->nifunc && p->ifunc_k[f] == i) {
			uint32_t y = rbs_find(&S->t, p->ifunc_addr[f]);

			if (y && S->t.n[y].start == p->ifunc_addr[f] &&
			    (AUX_TYPE(S->t.n[y].aux) == STT_GNU_IFUNC || (S->t.n[y].aux & AUX_ALIAS)))
				name_of[i] = y;
			f++;
		}
		sim_insert(S, &slot, base + (uint64_t)i * ent, ent, SIM_PLT | i);
	}
}

static uint32_t sim_synth_nodes(const struct symidx_layout *lay, enum sl_plt_rules plt)
{
	if (plt == SL_PLT_V61)
		return lay->plt_ok ? lay->nplt_rel : 0;
	if (!lay->p2.ok || !lay->p2.sizes_ok)
		return 0;
	return 1 + lay->p2.ngot + (lay->p2.rel_ok ? lay->p2.nrel : 0);
}

/*
 * sim_run - replay perf's load of the symbols kept in @keep (NULL: all) and
 * write perf's answer for each address into @o (node id: table << 32 | idx,
 * SIM_PLT* for synthesized symbols, SIM_NULL). Scratch memory is a memfd
 * mapping, not heap, except below SIM_HEAP_MAX bytes (a few hundred
 * symbols: five syscalls would cost more than the replay). Returns 0, 1 if a
 * duplicate choice depends on names the model cannot give, or -errno.
 */
#define SIM_HEAP_MAX (64u << 10)

static int sim_run(const struct symidx *idx, const struct symidx_src *src,
		   const struct symidx_layout *lay, uint8_t *const keep[2],
		   const uint64_t *addrs, size_t naddrs, const struct sim_out *o)
{
	struct sim S = { .idx = idx, .src = src };
	const struct sl_model *m = src->model;
	const struct symidx_entry *e = idx->entries;
	uint32_t nk = 0, i, nodes, nsynth, *perm, *name_of, nr[2] = { 0, 0 }, k;
	size_t a;
	int fd, t, heap;

	for (i = 0; i < idx->nentries; i++)
		if (!keep || BIT_TEST(keep[e[i].table], e[i].idx))
			nk++;
	nsynth = sim_synth_nodes(lay, m->plt);
	nodes = nk + nsynth + 1;
	S.map_size = (size_t)nodes * sizeof(struct rbs_node) +
		     ((size_t)nk + idx->nsymtab + idx->ndynsym) * sizeof(uint32_t) +
		     (m->plt == SL_PLT_V62 && lay->p2.rel_ok ? (size_t)lay->p2.nrel * sizeof(uint32_t) : 0) + 64;
	heap = S.map_size <= SIM_HEAP_MAX;
	if (heap) {
		if (!(S.map = calloc(1, S.map_size)))
			return -ENOMEM;
	} else {
		fd = memfd_create("symlazy-sim", MFD_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (ftruncate(fd, (off_t)S.map_size) < 0) {
			close(fd);
			return -ENOMEM;
		}
		S.map = mmap(NULL, S.map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		if (S.map == MAP_FAILED)
			return -ENOMEM;
	}
	S.t.n = S.map;
	S.t.root = 0;
	perm = (uint32_t *)(S.t.n + nodes);
	name_of = perm + nk + idx->nsymtab + idx->ndynsym;
	{
		/* insertion order (.symtab by index, then .dynsym) by placing each
		 * entry at its table slot: O(n), no sort (the scratch starts zeroed) */
		uint32_t *slot = perm + nk, nslots = idx->nsymtab + idx->ndynsym;

		for (i = 0; i < idx->nentries; i++)
			if (!keep || BIT_TEST(keep[e[i].table], e[i].idx))
				slot[(e[i].table ? idx->nsymtab : 0) + e[i].idx] = i + 1;
		for (i = 0, k = 0; i < nslots; i++)
			if (slot[i])
				perm[k++] = slot[i] - 1;
	}

	for (t = 0, k = 0; t < 2; t++) {
		for (; k < nk && e[perm[k]].table == (uint32_t)t; k++) {
			const struct symidx_entry *E = &e[perm[k]];
			struct rbs_node *N = &S.t.n[k + 1];
			Elf_Data *tab = t ? src->dynsym : src->symtab;
			GElf_Sym sym;

			N->start = E->start;
			N->end = E->size ? E->start + E->size : E->start;
			N->id = ((uint64_t)E->table << 32) | E->idx;
			N->aux = tab && src->ops->gelf_getsym(tab, (int)E->idx, &sym) ?
				 GELF_ST_BIND(sym.st_info) | ((uint64_t)GELF_ST_TYPE(sym.st_info) << 8) : 0;
			rbs_insert(&S.t, k + 1);
			nr[t]++;
		}
		if (nr[t]) {
			rbs_fixup_end_page(&S.t, sl_model_last_page(m));
			sim_fixup_duplicate(&S);
		}
	}
	if (nr[0] + nr[1] > 0) {            /* dso__load: ret > 0 */
		if (m->plt == SL_PLT_V62)
			sim_plt_v62(&S, lay, nk + 1, name_of);
		else
			sim_plt_v61(&S, lay, nk + 1);
	}
	for (a = 0; a < naddrs; a++) {
		uint32_t x = rbs_find(&S.t, addrs[a]);
		uint64_t id = x ? S.t.n[x].id : SIM_NULL;

		o->id[a] = id;
		if (o->start)
			o->start[a] = x ? S.t.n[x].start : 0;
		if (o->end)
			o->end[a] = x ? S.t.n[x].end : 0;
		if (o->name) {
			uint32_t y = 0;

			if (m->plt == SL_PLT_V62 && (id >> 32) == (SIM_PLT >> 32) && (uint32_t)id < lay->p2.nrel)
				y = name_of[(uint32_t)id];
			o->name[a] = y ? S.t.n[y].id : SIM_NULL;
			if (o->name_start)
				o->name_start[a] = y ? S.t.n[y].start : 0;
		}
	}
	if (heap)
		free(S.map);
	else
		munmap(S.map, S.map_size);
	return S.uncertain ? 1 : 0;
}

int symindex_replay(const struct symidx *idx, const struct symidx_src *src,
		    const struct symidx_layout *lay, const uint64_t *addrs, size_t naddrs,
		    struct symidx_answer *out)
{
	struct sim_out o;
	uint64_t *buf;
	size_t a;
	int r;

	memset(out, 0, naddrs * sizeof(*out));
	if (idx->unmodelable || !naddrs)
		return 0;
	buf = malloc(naddrs * 5 * sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	o.id = buf;
	o.start = buf + naddrs;
	o.end = buf + 2 * naddrs;
	o.name = buf + 3 * naddrs;
	o.name_start = buf + 4 * naddrs;
	r = sim_run(idx, src, lay, NULL, addrs, naddrs, &o);
	for (a = 0; r >= 0 && a < naddrs; a++) {
		uint64_t id = o.id[a];
		struct symidx_answer *x = &out[a];

		if (id == SIM_NULL)
			continue;
		x->start = o.start[a];
		x->end = o.end[a];
		x->index = (uint32_t)id;
		switch (id >> 32) {
		case 0:
		case 1:
			x->kind = SYMIDX_ANS_SYM;
			x->table = (uint32_t)(id >> 32);
			break;
		case SIM_PLT >> 32:
			x->kind = SYMIDX_ANS_PLT;
			break;
		case SIM_PLT_HDR >> 32:
			x->kind = SYMIDX_ANS_PLT_HDR;
			break;
		default:
			x->kind = SYMIDX_ANS_PLT_GOT;
			break;
		}
		if (o.name[a] != SIM_NULL) {
			x->named_from = 1;
			x->name_table = (uint32_t)(o.name[a] >> 32);
			x->name_index = (uint32_t)o.name[a];
		}
	}
	free(buf);
	return r;
}

/* Could a PLT entry answer an address perf names from a symbol we do not
 * know (6.2+ IFUNC names not recorded)? */
static int ifunc_names_unknown(const struct symidx_layout *lay, enum sl_plt_rules plt)
{
	return plt == SL_PLT_V62 && lay->p2.ifunc_unknown;
}

int symindex_plan(const struct symidx *idx, const struct symidx_layout *lay,
		  const struct symidx_src *src,
		  const uint64_t *addrs, size_t naddrs,
		  uint8_t *keep_symtab, uint8_t *keep_dynsym,
		  uint32_t *kept_groups, char *why, size_t whysz)
{
	uint8_t *kept, *keep[2] = { keep_symtab, keep_dynsym };
	uint32_t *stack = NULL, sp = 0, cap = 0, nk = 0, i;
	uint64_t *buf = NULL;
	struct sim_out full = { 0 }, red = { 0 };
	enum sl_plt_rules plt = src && src->model ? src->model->plt : SL_PLT_V61;
	size_t a, namb = 0, first_amb = 0;
	uint32_t widen = 0;
	int ret = 0, r;

	*kept_groups = 0;
	if (idx->unmodelable) {
		snprintf(why, whysz, "%s", idx->why);
		return 1;
	}
	if (plt == SL_PLT_V62 && lay->p2.unmodelable) {
		snprintf(why, whysz, "PLT relocations perf cannot synthesize symbols from");
		return 1;
	}
	if (!idx->ngroups)
		return 0;
	kept = calloc((idx->ngroups + 7) / 8, 1);
	if (!kept)
		return -ENOMEM;

#define PUSH(G) do { uint32_t g_ = (G); \
		if (g_ != SYMIDX_NONE && !BIT_TEST(kept, g_)) { \
			BIT_SET(kept, g_); nk++; \
			if (sp == cap) { uint32_t *ns_ = realloc(stack, (cap ? cap * 2 : 64) * sizeof(*stack)); \
				if (!ns_) { ret = -ENOMEM; goto out; } stack = ns_; cap = cap ? cap * 2 : 64; } \
			stack[sp++] = g_; } } while (0)

	for (a = 0; a < naddrs; a++) {
		uint32_t g = SYMIDX_NONE;

		r = answer(idx, lay, plt, addrs[a], &g);
		if (r < 0 && !namb++)
			first_amb = a;
		if (r == 1)
			PUSH(g);
	}
	if (namb) {
		/* rule 2: replay perf's full tree for the shape-dependent answers */
		snprintf(why, whysz, "address %#llx %s", (unsigned long long)addrs[first_amb],
			 in_plt(lay, addrs[first_amb], addrs[first_amb]) ||
			 in_synth(lay, plt, addrs[first_amb], addrs[first_amb]) ? "is in the PLT" :
			 "is covered by overlapping symbols");
		if (!src) {
			ret = 1;
			goto out;
		}
		buf = malloc(naddrs * 8 * sizeof(*buf));
		if (!buf) {
			ret = -ENOMEM;
			goto out;
		}
		full.id = buf;
		full.start = buf + naddrs;
		full.end = buf + 2 * naddrs;
		full.name = buf + 3 * naddrs;
		full.name_start = buf + 4 * naddrs;
		red.id = buf + 5 * naddrs;
		red.end = buf + 6 * naddrs;
		red.name = buf + 7 * naddrs;
		r = sim_run(idx, src, lay, NULL, addrs, naddrs, &full);
		if (r != 0) {
			if (r > 0) {
				char dw[SL_WHY_DETAIL / 2] = "";

				if (src->model->demangler_ready && !src->model->demangler_ready(dw, sizeof(dw))) {
					snprintf(why + strlen(why), whysz - strlen(why),
						 "; the duplicate choice needs demangled names: %s", dw);
					ret = SYMIDX_PLAN_DEMANGLER;
					goto out;
				}
				snprintf(why + strlen(why), whysz - strlen(why), "; duplicate choice needs demangled names");
			}
			ret = r < 0 ? r : 1;
			goto out;
		}
		for (a = 0; a < naddrs; a++) {
			uint32_t g = SYMIDX_NONE;

			r = answer(idx, lay, plt, addrs[a], &g);
			if (r < 0) {
				if (full.id[a] != SIM_NULL && !SIM_SYNTH(full.id[a]))
					PUSH(pred_group(idx, full.start[a]));
				if (SIM_SYNTH(full.id[a]) && ifunc_names_unknown(lay, plt)) {
					snprintf(why + strlen(why), whysz - strlen(why),
						 "; its PLT entry may be named after an IFUNC symbol");
					ret = 1;
					goto out;
				}
				if (full.name[a] != SIM_NULL)
					PUSH(pred_group(idx, full.name_start[a]));      /* get_ifunc_name */
			} else if ((r == 0) != (full.id[a] == SIM_NULL) ||
				   (r == 1 && (SIM_SYNTH(full.id[a]) || full.start[a] != idx->groups[g].start))) {
				/* the replay must agree with every proven answer */
				snprintf(why, whysz, "tree replay disagrees at %#llx", (unsigned long long)addrs[a]);
				ret = 1;
				goto out;
			}
		}
	}
	if (!nk)
		PUSH(0);        /* rule 4: perf's ret > 0 so PLT synthesis still runs */
	for (;;) {
		while (sp) {
			const struct symidx_group *G = &idx->groups[stack[--sp]];

			if (G->flags & SG_ZERO_SYMTAB)
				PUSH(G->next_sym);
			if (G->flags & SG_ZERO_DYNSYM)
				PUSH(G->next_all);
		}
		memset(keep_symtab, 0, (idx->nsymtab + 7) / 8);
		memset(keep_dynsym, 0, (idx->ndynsym + 7) / 8);
		for (i = 0; i < idx->ngroups; i++) {
			const struct symidx_group *G;
			uint32_t k;

			if (!BIT_TEST(kept, i))
				continue;
			G = &idx->groups[i];
			for (k = G->first; k < G->first + G->n; k++) {
				const struct symidx_entry *E = &idx->entries[k];

				if (E->table == 0 && E->idx < idx->nsymtab)
					BIT_SET(keep_symtab, E->idx);
				else if (E->table == 1 && E->idx < idx->ndynsym)
					BIT_SET(keep_dynsym, E->idx);
			}
		}
		if (!namb)
			break;
		/* rule 2, second half: the reduced tree must answer like the full
		 * one - same symbol, same end, same name source */
		r = sim_run(idx, src, lay, keep, addrs, naddrs, &red);
		if (r != 0) {
			ret = r < 0 ? r : 1;
			goto out;
		}
		for (a = 0; a < naddrs && red.id[a] == full.id[a] && red.end[a] == full.end[a] &&
			    red.name[a] == full.name[a]; a++)
			;
		if (a == naddrs) {
			why[0] = '\0';
			break;
		}
		/* Shape differs: keep more of the low end of the table (where
		 * .init/.plt live) and replay again, up to a few thousand groups. */
		if (widen >= idx->ngroups || widen > 4096) {
			snprintf(why, whysz, "address %#llx: reduced tree answers differently",
				 (unsigned long long)addrs[a]);
			ret = 1;
			goto out;
		}
		widen = widen ? widen * 4 : 16;
		for (i = 0; i < widen && i < idx->ngroups; i++)
			PUSH(i);
	}
	*kept_groups = nk;
#undef PUSH
out:
	if (ret != 0) {
		memset(keep_symtab, 0, (idx->nsymtab + 7) / 8);
		memset(keep_dynsym, 0, (idx->ndynsym + 7) / 8);
	}
	free(buf);
	free(stack);
	free(kept);
	return ret;
}

/* Added for core/lookup.c (the `symlazy lookup` API): perf's whole load
 * replayed once for @naddrs addresses, without a keep-set (see symindex.h). */
int symindex_replay_ids(const struct symidx *idx, const struct symidx_src *src,
			const struct symidx_layout *lay, const uint64_t *addrs, size_t naddrs,
			uint64_t *ans, uint64_t *ans_start)
{
	struct symidx_answer *x;
	size_t a;
	int r;

	if (idx->unmodelable)
		return -EINVAL;
	x = calloc(naddrs ? naddrs : 1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	r = symindex_replay(idx, src, lay, addrs, naddrs, x);
	for (a = 0; r >= 0 && a < naddrs; a++) {
		switch (x[a].kind) {
		case SYMIDX_ANS_SYM:
			ans[a] = SYMIDX_ID(x[a].table, x[a].index);
			break;
		case SYMIDX_ANS_PLT:
			ans[a] = SYMIDX_ID_PLT | x[a].index;
			break;
		case SYMIDX_ANS_PLT_HDR:
			ans[a] = SYMIDX_ID_PLT_HDR;
			break;
		case SYMIDX_ANS_PLT_GOT:
			ans[a] = SYMIDX_ID_PLT_GOT | x[a].index;
			break;
		default:
			ans[a] = SYMIDX_ID_NULL;
			break;
		}
		if (ans_start)
			ans_start[a] = x[a].kind == SYMIDX_ANS_NONE ? 0 : x[a].start;
	}
	free(x);
	return r;
}
