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
#include "index/cache.h"
#include "index/elfx.h"
#include "index/format.h"
#include "index/model.h"
#include "index/rbsim.h"
#include "util/util.h"
#include "index/symindex.h"

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	return sl_fnv1a(h, p, n);
}

/* Four independent lanes of word-wise FNV-1a, folded at the end: every
 * open checks the whole file (node: 9.8 MB of index, 3.3 MB of tree), and
 * one serial multiply chain per word was its cost. */
uint64_t symindex_checksum(const void *p, size_t n)
{
	const unsigned char *c = p;
	uint64_t h[4] = { 0xcbf29ce484222325ull, 0x84222325cbf29ce4ull, 0x9ce484222325cbf2ull, 0x2325cbf29ce48422ull };
	uint64_t w[4], r;
	size_t i;

	for (i = 0; i + 32 <= n; i += 32) {
		memcpy(w, c + i, 32);
		h[0] = (h[0] ^ w[0]) * 0x100000001b3ull;
		h[1] = (h[1] ^ w[1]) * 0x100000001b3ull;
		h[2] = (h[2] ^ w[2]) * 0x100000001b3ull;
		h[3] = (h[3] ^ w[3]) * 0x100000001b3ull;
	}
	r = fnv1a(0xcbf29ce484222325ull, h, sizeof(h));
	r ^= r >> 29;
	return fnv1a(r, c + i, n - i);
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

/*
 * sort_by_start - stable LSD radix sort of @e by start over the bits that
 * differ between keys, in digits of at most 11 bits (a DSO's starts span
 * about 2^27 bytes: 3 passes). @tmp holds @n entries. O(n), against the
 * heap sort's O(n log n) with a cache miss per level (node: 181k entries,
 * 137M instructions for symindex_sort).
 */
#define RADIX_BITS 11

static void sort_by_start(struct symidx_entry *e, size_t n, struct symidx_entry *tmp)
{
	uint32_t (*cnt)[1u << RADIX_BITS];
	uint64_t all_or = 0, all_and = ~0ull, diff;
	struct symidx_entry *src = e, *dst = tmp, *sw;
	unsigned lo, bits, np, w, d;
	size_t i;

	if (n < 2)
		return;
	for (i = 0; i < n; i++) {
		all_or |= e[i].start;
		all_and &= e[i].start;
	}
	diff = all_or ^ all_and;
	if (!diff)
		return;                 /* one start: already in order */
	lo = (unsigned)__builtin_ctzll(diff);
	bits = 64 - (unsigned)__builtin_clzll(diff) - lo;
	np = (bits + RADIX_BITS - 1) / RADIX_BITS;
	w = (bits + np - 1) / np;
	cnt = calloc(np, sizeof(*cnt));     /* 8 KiB a digit: not on perf's stack */
	if (!cnt) {
		symindex_sort(e, n);
		return;
	}
	for (i = 0; i < n; i++) {
		uint64_t k = e[i].start >> lo;

		for (d = 0; d < np; d++)
			cnt[d][(k >> (d * w)) & ((1u << w) - 1)]++;
	}
	for (d = 0; d < np; d++) {
		uint32_t pos = 0, b, *c = cnt[d];
		unsigned sh = lo + d * w;
		uint64_t mask = (1u << w) - 1;

		for (b = 0; b < (1u << w); b++) {
			uint32_t x = c[b];

			c[b] = pos;
			pos += x;
		}
		for (i = 0; i < n; i++)
			dst[c[(src[i].start >> sh) & mask]++] = src[i];
		sw = src; src = dst; dst = sw;
	}
	if (src != e)
		memcpy(e, src, n * sizeof(*e));
	free(cnt);
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
		      int demangle, const struct sl_model *model)
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
	src->model = model;
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
 * loop does on x86 (tools/perf/util/symbol-elf.c), with the model's keep
 * and label rules. Returns
 * 1 (candidate, *start set), 0 (perf skips it), -1 (perf aborts the pass
 * here: elf_getscn(syms_ss->elf, st_shndx) fails for an index past the
 * section count, libelf elf_getscn.c), -2 (we cannot model it: whole DSO
 * unmodelable).
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
	if (s->st_shndx >= shnum)
		return -1;          /* elf_getscn() fails -> perf aborts the pass */
	if (s->st_shndx == 0)
		return -2;
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
			return -2;      /* runtime section count not known exactly */
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
	out->abort_pass = h->abort_pass;
	out->abort_idx = h->abort_idx;
	out->key = h->key;
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
	uint32_t abort_pass = SYMIDX_ABORT_NONE, abort_idx = 0;
	void *map;
	Elf_Data *tabs[2] = { src->symtab, src->dynsym };
	uint32_t counts[2] = { src->symtab ? src->nsymtab : 0, src->dynsym ? src->ndynsym : 0 };
	uint64_t page = sl_model_last_page(src->model);

	ret = load_secinfo(ops, src->model, src->elf, &secs, &shnum);
	if (ret < 0)
		return ret;

	/* One pass: the mapping is sized for every symbol being a candidate
	 * (the file is cut to its final size below), so the table is read
	 * once instead of once to count and once to fill. */
	cap_bytes = sizeof(*h) + ((size_t)counts[0] + counts[1]) * (sizeof(*e) + sizeof(*grp));
	fd = sl_cache_backing(src, cap_bytes, tmpname, sizeof(tmpname));
	if (fd < 0) {
		free(secs);
		return fd;
	}
	map = mmap(NULL, cap_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		ret = -errno;
		free(secs);
		goto fail_fd;
	}
	h = map;
	e = (void *)(h + 1);

	for (t = 0; t < 2 && !unmodelable && !abort_pass; t++) {
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
			if (c == -1) {  /* perf inserts what came before, then stops */
				abort_pass = t ? SYMIDX_ABORT_DYNSYM : SYMIDX_ABORT_SYMTAB;
				abort_idx = i;
				break;
			}
			if (c < 0) {
				unmodelable = 1;
				snprintf(why, sizeof(why), "symbol %u of %s has section index %u perf cannot model",
					 i, t ? ".dynsym" : ".symtab", (unsigned)s.st_shndx);
				break;
			}
			if (!c)
				continue;
			e[n].start = st;
			e[n].size = s.st_size;
			e[n].idx = i;
			e[n].table = (uint16_t)t;
			e[n].bind = (uint8_t)GELF_ST_BIND(s.st_info);
			e[n].type = (uint8_t)GELF_ST_TYPE(s.st_info);
			n++;
		}
	}
	if (unmodelable)
		n = 0;
	free(secs);
	/* entries were written in (table, idx) order: a stable sort by start
	 * gives the index order (start, table, idx); the group area (not yet
	 * written, n * sizeof(*grp) >= n * sizeof(*e) bytes) is the scratch */
	sort_by_start(e, n, (struct symidx_entry *)(void *)(e + n));

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
	h->abort_pass = unmodelable ? SYMIDX_ABORT_NONE : abort_pass;
	h->abort_idx = unmodelable ? 0 : abort_idx;
	memcpy(h->why, why, sizeof(h->why));
	memcpy(h->build_id, src->build_id, src->build_id_len > 20 ? 20 : src->build_id_len);
	h->build_id_len = (uint32_t)src->build_id_len;
	final_size = sizeof(*h) + (size_t)n * sizeof(*e) + (size_t)g * sizeof(*grp);
	h->checksum = symidx_file_checksum(h, (char *)map + sizeof(*h), final_size - sizeof(*h));
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

	if (idx->abort_pass)
		return -1;      /* duplicates and unfixed ends: the tree decides */
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

int symindex_classify(const struct symidx *idx, const struct symidx_layout *lay, int plt,
		      uint64_t addr, uint32_t *g)
{
	return answer(idx, lay, (enum sl_plt_rules)plt, addr, g);
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

/* rbs_val.aux: low 32 bits the ELF binding, type and perf's ifunc_alias
 * flag; high 32 bits the node's deferred-choice list (0: none) */
#define AUX_BIND(x)  ((unsigned)((x) & 0xff))
#define AUX_TYPE(x)  ((unsigned)(((x) >> 8) & 0xff))
#define AUX_ALIAS    (1ull << 16)
#define NODE_PEND(V) ((uint32_t)((V)->aux >> 32))

/*
 * A set of node numbers with predecessor / successor queries: one bit per
 * node, and above it levels of one bit per non-zero word of the level
 * below, up to a level of one word (6 levels cover 2^32 nodes). Each query
 * reads one word per level, up and down: a few cache lines, against one
 * line per tree level for a walk from the root.
 */
#define NSET_LEVELS 6

struct nset {
	uint64_t *w[NSET_LEVELS];
	uint32_t nlev;
};

/* Words for @nbits bits (all levels); sets @s's level pointers if @mem. */
static size_t nset_layout(struct nset *s, uint32_t nbits, uint64_t *mem)
{
	size_t total = 0, n = nbits;
	uint32_t l = 0;

	do {
		n = (n + 63) / 64;
		if (mem)
			s->w[l] = mem + total;
		total += n;
		l++;
	} while (n > 1 && l < NSET_LEVELS);
	if (mem)
		s->nlev = l;
	return total;
}

static void nset_add(struct nset *s, uint32_t i)
{
	uint32_t l;

	for (l = 0; l < s->nlev; l++, i >>= 6) {
		uint64_t *w = &s->w[l][i >> 6], old = *w;

		*w = old | 1ull << (i & 63);
		if (old)
			return;     /* the levels above already have this word */
	}
}

static void nset_del(struct nset *s, uint32_t i)
{
	uint32_t l;

	for (l = 0; l < s->nlev; l++, i >>= 6) {
		uint64_t *w = &s->w[l][i >> 6];

		*w &= ~(1ull << (i & 63));
		if (*w)
			return;
	}
}

/* Smallest member above @i, 0 if none (members are >= 1). */
static uint32_t nset_succ(const struct nset *s, uint32_t i)
{
	uint32_t l = 0;
	uint64_t m;

	for (;; l++, i >>= 6) {
		if (l == s->nlev)
			return 0;
		m = (i & 63) == 63 ? 0 : s->w[l][i >> 6] & (~0ull << ((i & 63) + 1));
		if (m) {
			i = (i & ~63u) | (uint32_t)__builtin_ctzll(m);
			break;
		}
	}
	while (l-- > 0)
		i = i << 6 | (uint32_t)__builtin_ctzll(s->w[l][i]);
	return i;
}

/* Largest member below @i, 0 if none. */
static uint32_t nset_pred(const struct nset *s, uint32_t i)
{
	uint32_t l = 0;
	uint64_t m;

	for (;; l++, i >>= 6) {
		if (l == s->nlev)
			return 0;
		m = s->w[l][i >> 6] & ((1ull << (i & 63)) - 1);
		if (m) {
			i = (i & ~63u) | (63u - (uint32_t)__builtin_clzll(m));
			break;
		}
	}
	while (l-- > 0)
		i = i << 6 | (63u - (uint32_t)__builtin_clzll(s->w[l][i]));
	return i;
}


struct pname;
struct sim_cand;

struct sim {
	const struct symidx *idx;
	const struct symidx_src *src;
	int uncertain;
	struct rbs t;
	void *map;
	size_t map_size;
	int heap;                   /* map is calloc'ed (small), else a memfd mapping */
	uint32_t nk, nodes;         /* symbol nodes (1..nk), then synthesized ones; all */
	uint32_t nsynth;            /* synthesized nodes in the tree */
	uint32_t *name_of;          /* 6.2+: per relocation entry, the node perf names it
				     * after (0: none); nname entries */
	uint32_t nname;
	struct sim_cand *cand;      /* deferred choices: lists, 1-based */
	uint32_t ncand;
	struct pname *pn;           /* PNAME_SLOTS memoized names, or NULL */
	struct nset live;           /* symbol nodes in the tree */
};

/* What perf answers per address: the symbol, its end, and for PLT entries
 * named from the tree (6.2+ IFUNC entries) the symbol the name comes from. */
struct sim_out {
	uint64_t *id, *start, *end;
	uint64_t *name, *name_start;        /* SIM_NULL: the name depends on no symbol */
};

/* The raw name of table symbol @id (SYMIDX_ID), *@sym its entry; NULL if
 * unreadable. */
static const char *src_name(const struct symidx_src *src, uint64_t id, GElf_Sym *sym)
{
	uint32_t table = (uint32_t)(id >> 32), i = (uint32_t)id;
	Elf_Data *tab = table ? src->dynsym : src->symtab;
	Elf_Data *str = table ? src->dynsym_str : src->symtab_str;

	if (table > 1 || !tab || !str || !str->d_buf || !src->ops->gelf_getsym(tab, (int)i, sym) ||
	    sym->st_name >= str->d_size || !memchr((const char *)str->d_buf + sym->st_name, 0,
						   str->d_size - sym->st_name))
		return NULL;
	return (const char *)str->d_buf + sym->st_name;
}

static const char *sim_name(const struct sim *S, uint64_t id)
{
	GElf_Sym sym;

	return src_name(S->src, id, &sym);
}

/* Do table symbols @a and @b print alike? After a pass perf aborts, its
 * same-start duplicates stay in the tree (no symbols__fixup_duplicate) and
 * which one a lookup meets depends on the tree's shape: two of them with the
 * same start (checked by the caller), end, raw name, binding and type give
 * the same perf output. */
static int same_print(const struct symidx_src *src, uint64_t a, uint64_t b)
{
	GElf_Sym sa, sb;
	const char *na, *nb;

	if (a == b)
		return 1;
	if ((a >> 32) > 1 || (b >> 32) > 1)
		return 0;
	na = src_name(src, a, &sa);
	nb = src_name(src, b, &sb);
	return na && nb && !strcmp(na, nb) && sa.st_info == sb.st_info;
}

static int underscores(const char *n)
{
	int c = 0;

	while (n[c] == '_')
		c++;
	return c;
}

/*
 * Deferred duplicate choices.
 *
 * perf's choice between two symbols with one start (choose_best_symbol)
 * ends, when length class and binding tie, in a comparison of the names
 * perf stores - demangled names. Demangling both is most of the cost of a
 * full replay (node: 13.6k such pairs, mostly C1/C2 constructor and D1/D2
 * destructor aliases, 194M of the 342M instructions). Which of the two
 * survives changes only that node's identity, not the tree, in the cases
 * where erasing either one leaves the same keyed shape and colours, and the
 * identity matters only if an address is answered by that node. So such a
 * choice is recorded instead of made: the node keeps its slot and a list of
 * candidates in comparison order, and the choice is made (the list folded
 * with the same comparisons perf makes, in the same order) when the node
 * answers an address or takes part in a comparison that needs its name.
 *
 * When erasing curr or next gives the same tree (lib/rbtree.c rb_erase,
 * next being curr's in-order successor with the same key):
 *   - curr has a right child: next is the leftmost node of that subtree;
 *     erasing curr moves next into curr's place with curr's colour and
 *     removes next's old place exactly as erasing next does (its one child,
 *     necessarily red, turns black either way; the same rebalancing starts
 *     at the same position otherwise). If curr has no left child, its right
 *     child is a red leaf, which is next: either erase leaves one black node.
 *   - curr has no right child and next none either: next's only child is a
 *     red leaf, which is curr: either erase leaves one black node.
 *   - curr has no right child and next has two children: erasing next moves
 *     next's successor (another key) up, erasing curr does not: the shapes
 *     differ, the choice is made now.
 * Deferring also needs the ends of the two to be equal (perf's lookups and
 * symbols__fixup_end read the survivor's end) - length class and binding
 * class (weak / global / other) then tie for every candidate of the list,
 * so later comparisons that are decided before names need no choice either.
 */
struct sim_cand {
	uint64_t id;
	uint32_t next, tail;        /* tail: valid in a list's first element */
};

/*
 * What choose_best_symbol() reads of the name perf stores for a raw name:
 * leading underscores, length, the "SyS" / "compat_SyS" prefix (x86
 * arch__choose_best_symbol); unc: perf's name cannot be mirrored. Memoized
 * by raw name (direct-mapped, in the replay's scratch): .symtab and
 * .dynsym copies of a symbol, and a survivor compared again, demangle once.
 * The summary is what perf61_choose_by_name() reads, so it stands for the
 * model's names only with that choice rule (perf 6.1 and 6.12 alike); a
 * model with another rule gets its demangle() and choose_by_name() called.
 */
struct pname {
	uint64_t h;
	const char *raw;
	uint32_t u, len;
	uint8_t sys, unc, valid;
};
#define PNAME_SLOTS 4096u

/* Does the model choose by perf 6.1's name rules (the summaries' rule)? */
static int summary_rules(const struct sim *S)
{
	return S->src->model->choose_by_summary;
}

static void pname_of(struct sim *S, const char *raw, struct pname *out)
{
	uint64_t h = fnv1a(0xcbf29ce484222325ull, raw, strlen(raw));
	struct pname *slot = S->pn ? &S->pn[h & (PNAME_SLOTS - 1)] : NULL;
	const char *n;
	char *d;
	int unc = 0;

	if (slot && slot->valid && slot->h == h && !strcmp(slot->raw, raw)) {
		*out = *slot;
		return;
	}
	d = S->src->model->demangle(raw, S->src->demangle, &unc);
	n = d ? d : raw;
	out->h = h;
	out->raw = raw;
	out->u = (uint32_t)underscores(n);
	out->len = (uint32_t)strlen(n);
	out->sys = (out->len >= 3 && !strncmp(n, "SyS", 3)) || (out->len >= 10 && !strncmp(n, "compat_SyS", 10));
	out->unc = (uint8_t)unc;
	out->valid = 1;
	free(d);
	if (slot)
		*slot = *out;
}

/* perf61_choose_by_name() on summaries */
static int choose_pnames(const struct pname *a, const struct pname *b)
{
	if (b->u > a->u)
		return 0;
	if (a->u > b->u)
		return 1;
	if (a->len > b->len)
		return 0;
	if (a->len < b->len)
		return 1;
	return a->sys;
}

/* The name stage of choose_best_symbol() for symbols @ia (curr) and @ib
 * (next), with the model's names and rule: 0 = keep a, 1 = keep b. Sets
 * S->uncertain where perf's names cannot be mirrored. */
static int sim_choose_names(struct sim *S, uint64_t ia, uint64_t ib)
{
	const struct sl_model *m = S->src->model;
	const char *na = sim_name(S, ia), *nb = sim_name(S, ib);

	if (!na || !nb) {
		S->uncertain = 1;
		return 0;
	}
	if (!strcmp(na, nb))
		return m->choose_by_name(na, nb);
	if (summary_rules(S)) {
		struct pname pa, pb;

		pname_of(S, na, &pa);
		pname_of(S, nb, &pb);
		if (pa.unc || pb.unc) {
			S->uncertain = 1;
			return 0;
		}
		return choose_pnames(&pa, &pb);
	}
	{
		int unc = 0, r;
		char *da = m->demangle(na, S->src->demangle, &unc);
		char *db = m->demangle(nb, S->src->demangle, &unc);

		r = unc ? 0 : m->choose_by_name(da ? da : na, db ? db : nb);
		if (unc)
			S->uncertain = 1;
		free(da);
		free(db);
		return r;
	}
}

/* No name perf could store for @raw starts with "SyS" (or "compat_SyS"):
 * the C++ demanglers' output (libiberty's, __cxa_demangle's) starts with an
 * identifier copied from the mangled name or with a fixed string (none
 * starts "SyS"); escapes that can make other characters ('$' in legacy Rust
 * and OCaml names, Rust v0 "_R" names) are excluded. */
static int sys_free(const char *raw)
{
	return !strstr(raw, "SyS") && !strchr(raw, '$') && !(raw[0] == '_' && raw[1] == 'R');
}

/*
 * A pending node @a against @b whose raw name is one of a's candidates':
 * perf keeps a's survivor. Without the "SyS" tie rule, perf's fold keeps
 * the later candidate only if strictly better (fewer leading underscores,
 * else a longer name), so its survivor is at least as good as every
 * candidate; b has the same stored name as one of them, so it is not
 * strictly better, and a tie keeps a. 1 if that applies (only under the
 * summaries' rule: it is perf61_choose_by_name's property).
 */
static int copy_of_candidate(struct sim *S, const struct rbs_val *A, uint64_t ib)
{
	const char *nb = sim_name(S, ib);
	uint32_t q;
	int found = 0;

	if (!summary_rules(S) || !nb || !sys_free(nb))
		return 0;
	for (q = NODE_PEND(A); q; q = S->cand[q].next) {
		const char *n = sim_name(S, S->cand[q].id);

		if (!n || !sys_free(n))
			return 0;
		found |= !strcmp(n, nb);
	}
	return found;
}

/* Fold a candidate list (comparison order) as perf chose along it. */
static uint64_t fold_names(struct sim *S, const uint64_t *ids, uint32_t n)
{
	uint64_t s = ids[0];
	uint32_t i;

	for (i = 1; i < n; i++)
		if (sim_choose_names(S, s, ids[i]))
			s = ids[i];
	return s;
}

/* Identity of node @x, making its deferred choice if it has one. */
static uint64_t sim_resolve(struct sim *S, uint32_t x)
{
	struct rbs_val *N = &S->t.v[x];
	uint32_t p = NODE_PEND(N), q;
	uint64_t s;

	if (!p)
		return N->id;
	s = S->cand[p].id;
	for (q = S->cand[p].next; q; q = S->cand[q].next)
		if (sim_choose_names(S, s, S->cand[q].id))
			s = S->cand[q].id;
	N->id = s;
	N->aux = (uint32_t)N->aux;  /* binding class, type class and flag are the list's */
	return s;
}

#define CHOOSE_DEFER 2

static int eager_choices;       /* symindex_debug_eager(): the reference */

void symindex_debug_eager(int on)
{
	eager_choices = on;
}

/*
 * choose_best_symbol() of tools/perf/util/symbol.c for curr @a and its
 * successor @b: 0 = keep a, 1 = keep b, CHOOSE_DEFER = the tree is the same
 * either way and only the names decide (see above). Under a model whose
 * symbols__fixup_duplicate marks IFUNC aliases (6.2+) the survivor's flag
 * and type depend on the choice when either node is STT_GNU_IFUNC or
 * already marked: such a choice is made now.
 */
static int sim_choose(struct sim *S, uint32_t a, uint32_t b)
{
	const struct rbs_val *A = &S->t.v[a], *B = &S->t.v[b];
	uint64_t start = S->t.n[a].start;       /* == S->t.n[b].start */
	int64_t la = (int64_t)(A->end - start), lb = (int64_t)(B->end - start);
	unsigned ba = AUX_BIND(A->aux), bb = AUX_BIND(B->aux);
	int mark = S->src->model->fixup.dup_marks_ifunc_alias;

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
	if (NODE_PEND(B))
		sim_resolve(S, b);      /* not reached: next is always a fresh node */
	if (!eager_choices && A->end == B->end && (S->t.n[a].right || !S->t.n[b].right) &&
	    !(mark && (AUX_TYPE(A->aux) == STT_GNU_IFUNC || AUX_TYPE(B->aux) == STT_GNU_IFUNC ||
		       ((A->aux | B->aux) & AUX_ALIAS))))
		return CHOOSE_DEFER;    /* no name read at all (most .dynsym copies) */
	if (!NODE_PEND(A)) {
		const char *na = sim_name(S, A->id), *nb = sim_name(S, B->id);

		if (na && nb && !strcmp(na, nb))
			return S->src->model->choose_by_name(na, nb);   /* same raw name: no demangling */
	} else if (copy_of_candidate(S, A, B->id)) {
		return 0;               /* e.g. the .dynsym copy of a C1/C2 pair */
	}
	return sim_choose_names(S, sim_resolve(S, a), B->id);
}

/* Record curr @a's choice against @b as pending (b is then erased). */
static void sim_defer(struct sim *S, uint32_t a, uint32_t b)
{
	struct rbs_val *A = &S->t.v[a];
	uint32_t p = NODE_PEND(A), c;

	if (!p) {
		p = ++S->ncand;
		S->cand[p].id = A->id;
		S->cand[p].next = 0;
		S->cand[p].tail = p;
		A->aux = (uint32_t)A->aux | (uint64_t)p << 32;
	}
	c = ++S->ncand;
	S->cand[c].id = S->t.v[b].id;
	S->cand[c].next = 0;
	S->cand[S->cand[p].tail].next = c;
	S->cand[p].tail = c;
}

/*
 * Node numbering: node x (1-based) is the x-th symbol in index order
 * (start, table, index), which is the order of perf's tree (equal starts go
 * right on insert, i.e. stay in insertion order: .symtab by index, then
 * .dynsym). So the in-order walks of symbols__fixup_end and
 * symbols__fixup_duplicate are sweeps over the node array, and a subtree -
 * a range of starts - is a range of memory: the replay's inserts touch a
 * few cache lines per level instead of one random line per node. The tree
 * built is the same whatever the numbering (lib/rbtree.c looks at keys and
 * colours only). S->live holds the symbol nodes in the tree.
 *
 * It also gives each insert its place without the walk from the root: the
 * search for x's start ends at the nil child between x's in-order
 * neighbours in the tree - the live nodes numbered just below (P, start <=
 * x's) and just above (Q; start > x's, as equal starts are numbered in
 * insertion order) - which is P's right child if P has none, else Q's left
 * child (one of P, Q is an ancestor of the other). rbs_link() then does
 * what rbs_insert() does after its walk. The walks were three quarters of
 * a full replay (node: 181k inserts, a cache miss per level).
 */
static uint32_t next_live(const struct sim *S, uint32_t x)
{
	return nset_succ(&S->live, x);
}

static void sim_insert(struct sim *S, uint32_t x)
{
	uint32_t p = nset_pred(&S->live, x), q = nset_succ(&S->live, x);

	if (p && !S->t.n[p].right)
		rbs_link(&S->t, x, p, 0);
	else if (q && !S->t.n[q].left)
		rbs_link(&S->t, x, q, 1);
	else if (!p && !q)
		rbs_link(&S->t, x, 0, 0);
	else
		rbs_insert(&S->t, x);   /* not reached (see above) */
	nset_add(&S->live, x);
}

/* symbols__fixup_end(is_kallsyms = false) on the live symbol nodes, the
 * last one ending at the model's page rule */
static void sim_fixup_end(struct sim *S)
{
	struct rbs_node *n = S->t.n;
	struct rbs_val *v = S->t.v;
	uint64_t page = sl_model_last_page(S->src->model);
	uint32_t x, prev = 0;

	for (x = next_live(S, 0); x; x = next_live(S, x)) {
		if (prev && v[prev].end == n[prev].start)
			v[prev].end = n[x].start;
		prev = x;
	}
	if (prev && v[prev].end == n[prev].start)
		v[prev].end = (n[prev].start + page - 1) / page * page + page;
}

/* symbols__fixup_duplicate(); 6.2+ marks the survivor of an IFUNC pair */
static void sim_fixup_duplicate(struct sim *S)
{
	int mark = S->src->model->fixup.dup_marks_ifunc_alias;
	uint32_t curr = next_live(S, 0), next;
	int r;

	while (curr) {
		next = next_live(S, curr);
again:
		if (!next)
			break;
		if (S->t.n[curr].start != S->t.n[next].start) {
			curr = next;
			continue;
		}
		r = sim_choose(S, curr, next);
		if (r == CHOOSE_DEFER) {
			sim_defer(S, curr, next);
			r = 0;              /* the same tree as either choice */
		}
		if (r == 0) {
			if (mark && AUX_TYPE(S->t.v[next].aux) == STT_GNU_IFUNC)
				S->t.v[curr].aux |= AUX_ALIAS;
			rbs_erase(&S->t, next);
			nset_del(&S->live, next);
			next = next_live(S, next);
			goto again;
		}
		if (mark && AUX_TYPE(S->t.v[curr].aux) == STT_GNU_IFUNC)
			S->t.v[next].aux |= AUX_ALIAS;
		rbs_erase(&S->t, curr);
		nset_del(&S->live, curr);
		curr = next;
	}
}

/* One synthesized symbol: symbol__new(start, len) + symbols__insert(); its
 * key is outside the node numbering, so it walks from the root. */
static void sim_insert_synth(struct sim *S, uint32_t *slot, uint64_t start, uint64_t len, uint64_t id)
{
	struct rbs_node *N = &S->t.n[*slot];
	struct rbs_val *V = &S->t.v[*slot];

	N->start = start;
	V->end = len ? start + len : start;
	V->id = id;
	V->aux = STB_GLOBAL | ((uint64_t)STT_FUNC << 8);
	rbs_insert(&S->t, *slot);
	(*slot)++;
	S->nsynth++;
}

/* dso__synthesize_plt_symbols() of perf 6.1 */
static void sim_plt_v61(struct sim *S, const struct symidx_layout *lay, uint32_t slot)
{
	uint32_t i;

	if (!lay->plt_ok)
		return;
	for (i = 0; i < lay->nplt_rel; i++)
		sim_insert_synth(S, &slot, lay->plt_first + (uint64_t)i * lay->plt_entsize, lay->plt_entsize,
				 SIM_PLT | i);
}

/*
 * dso__synthesize_plt_symbols() of perf 6.2+ (core/model/perf612.c lists the
 * rules). S->name_of[k] gets, for the IFUNC entries named from the tree, the
 * node whose name perf uses (0: none, "offset_0x..@plt").
 */
static void sim_plt_v62(struct sim *S, const struct symidx_layout *lay, uint32_t slot)
{
	const struct symidx_plt2 *p = &lay->p2;
	uint32_t x, hdr = 0, i, f = 0;
	uint64_t base, ent;

	if (!p->ok)
		return;
	x = rbs_find(&S->t, p->plt_off);
	if (x && S->t.n[x].start < p->plt_off && S->t.v[x].end > p->plt_off)
		S->t.v[x].end = p->plt_off;
	if (!p->sizes_ok)
		return;
	hdr = slot;
	sim_insert_synth(S, &slot, p->plt_off, p->hdr, SIM_PLT_HDR);
	for (i = 0; i < p->ngot; i++)
		sim_insert_synth(S, &slot, p->got_off + (uint64_t)i * p->got_ent, p->got_ent, SIM_PLT_GOT | i);
	if (p->sec) {
		S->t.v[hdr].end = p->plt_off + p->plt_size;
		base = p->sec_off;
		ent = p->sec_ent;
	} else {
		base = p->plt_off;
		ent = p->ent;
	}
	if (!p->rel_ok)
		return;
	if (!p->sec) {
		if ((uint64_t)p->nrel * ent == p->plt_size) {
			rbs_erase(&S->t, hdr);      /* dso__delete_symbol */
			S->nsynth--;
		} else {
			base += p->hdr;
		}
	}
	for (i = 0; i < p->nrel; i++) {
		if (f < p->nifunc && p->ifunc_k[f] == i) {
			uint32_t y = rbs_find(&S->t, p->ifunc_addr[f]);

			if (y && S->t.n[y].start == p->ifunc_addr[f] &&
			    (AUX_TYPE(S->t.v[y].aux) == STT_GNU_IFUNC || (S->t.v[y].aux & AUX_ALIAS)))
				S->name_of[i] = y;
			f++;
		}
		sim_insert_synth(S, &slot, base + (uint64_t)i * ent, ent, SIM_PLT | i);
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
 * sim_build - replay perf's load of the entries @ents[0..@nk) (indices into
 * idx->entries, ascending; NULL = every entry) and of the symbols the
 * model's PLT synthesis adds into S->t. Scratch memory is a memfd mapping,
 * not heap, except below SIM_HEAP_MAX bytes (a few hundred symbols: five
 * syscalls would cost more than the replay). Returns 0, 1 if a duplicate
 * choice depends on names the model cannot give, or -errno; sim_free()
 * after.
 */
#define SIM_HEAP_MAX (64u << 10)

static void sim_free(struct sim *S)
{
	if (!S->map)
		return;
	if (S->heap)
		free(S->map);
	else
		munmap(S->map, S->map_size);
	S->map = NULL;
}

struct ins_ctx {
	const struct symidx_entry *e;
	const uint32_t *ents;
};

/* perf's insertion order of two positions of ents[]: (table, index) */
static int ins_order(const void *pa, const void *pb, void *ctx)
{
	const struct ins_ctx *c = ctx;
	const struct symidx_entry *a = &c->e[c->ents[*(const uint32_t *)pa]];
	const struct symidx_entry *b = &c->e[c->ents[*(const uint32_t *)pb]];

	if (a->table != b->table)
		return a->table < b->table ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int sim_build(struct sim *S, const struct symidx *idx, const struct symidx_src *src,
		     const struct symidx_layout *lay, const uint32_t *ents, uint32_t nk)
{
	const struct sl_model *m = src->model;
	const struct symidx_entry *e = idx->entries;
	uint32_t i, nodes, *ins, nr[2] = { 0, 0 }, k, nslots = 0, npn, nname;
	char *p;
	int fd, t;

	memset(S, 0, sizeof(*S));
	S->idx = idx;
	S->src = src;
	if (!ents) {
		nk = idx->nentries;
		nslots = idx->nsymtab + idx->ndynsym;
	}
	nodes = nk + sim_synth_nodes(lay, m->plt) + 1;
	nname = m->plt == SL_PLT_V62 && lay->p2.rel_ok ? lay->p2.nrel : 0;
	/* nodes, the live set, deferred-choice lists (one element per erased
	 * node plus one per list: at most 2 nk), the name memo where it pays,
	 * the 6.2+ entry names, the insertion order (+ table slots for the
	 * whole table) */
	npn = nk >= PNAME_SLOTS / 4 ? PNAME_SLOTS : 0;
	S->map_size = (size_t)nodes * (sizeof(struct rbs_node) + sizeof(struct rbs_val)) +
		      nset_layout(NULL, nk + 1, NULL) * sizeof(uint64_t) +
		      (2 * (size_t)nk + 2) * sizeof(struct sim_cand) +
		      (size_t)npn * sizeof(struct pname) + (size_t)nname * sizeof(uint32_t) +
		      ((size_t)nk + nslots) * sizeof(uint32_t) + 64;
	S->heap = S->map_size <= SIM_HEAP_MAX;
	if (S->heap) {
		if (!(S->map = calloc(1, S->map_size)))
			return -ENOMEM;
	} else {
		fd = memfd_create("symlazy-sim", MFD_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (ftruncate(fd, (off_t)S->map_size) < 0) {
			close(fd);
			return -ENOMEM;
		}
		S->map = mmap(NULL, S->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		if (S->map == MAP_FAILED) {
			S->map = NULL;
			return -ENOMEM;
		}
	}
	S->t.n = S->map;
	S->t.v = (struct rbs_val *)(void *)(S->t.n + nodes);
	S->t.root = 0;
	S->nk = nk;
	S->nodes = nodes;
	p = (char *)(S->t.v + nodes);
	p += nset_layout(&S->live, nk + 1, (uint64_t *)(void *)p) * sizeof(uint64_t);
	S->cand = (struct sim_cand *)(void *)p;
	p += (2 * (size_t)nk + 2) * sizeof(struct sim_cand);
	if (npn) {
		S->pn = (struct pname *)(void *)p;
		p += (size_t)npn * sizeof(struct pname);
	}
	if (nname) {
		S->name_of = (uint32_t *)(void *)p;
		S->nname = nname;
		p += (size_t)nname * sizeof(uint32_t);
	}
	ins = (uint32_t *)(void *)p;
	if (!ents) {
		/* insertion order of the whole table by placing each entry at its
		 * table slot: O(n), no sort (the scratch starts zeroed) */
		uint32_t *slot = ins + nk;

		for (i = 0; i < idx->nentries; i++)
			slot[(e[i].table ? idx->nsymtab : 0) + e[i].idx] = i + 1;
		for (i = 0, k = 0; i < nslots; i++)
			if (slot[i])
				ins[k++] = slot[i] - 1;
	} else {
		struct ins_ctx c = { e, ents };

		for (i = 0; i < nk; i++)
			ins[i] = i;
		qsort_r(ins, nk, sizeof(*ins), ins_order, &c);
	}

	for (t = 0, k = 0; t < 2; t++) {
		for (; k < nk; k++) {
			uint32_t x = ins[k] + 1;
			const struct symidx_entry *E = &e[ents ? ents[ins[k]] : ins[k]];
			struct rbs_node *N = &S->t.n[x];
			struct rbs_val *V = &S->t.v[x];

			/* insertion order is random in memory: fetch ahead */
			if (k + 16 < nk) {
				__builtin_prefetch(&e[ents ? ents[ins[k + 16]] : ins[k + 16]]);
				__builtin_prefetch(&S->t.n[ins[k + 16] + 1], 1);
				__builtin_prefetch(&S->t.v[ins[k + 16] + 1], 1);
			}

			if (E->table != (uint32_t)t)
				break;
			N->start = E->start;
			V->end = E->size ? E->start + E->size : E->start;
			V->id = ((uint64_t)E->table << 32) | E->idx;
			V->aux = E->bind | ((uint64_t)E->type << 8);
			sim_insert(S, x);
			nr[t]++;
		}
		if (idx->abort_pass == (uint32_t)t + 1)
			break;      /* goto out_elf_end: no fixups, dso__load_sym() = -1 */
		if (nr[t]) {
			sim_fixup_end(S);
			sim_fixup_duplicate(S);
		}
	}
	if (nr[0] + nr[1] > 0 && !idx->abort_pass) {        /* dso__load: ret > 0 */
		if (m->plt == SL_PLT_V62)
			sim_plt_v62(S, lay, nk + 1);
		else
			sim_plt_v61(S, lay, nk + 1);
	}
	return S->uncertain ? 1 : 0;
}

/* perf's answer for each address into @o (symbol, start, end, name
 * source; every field but id may be NULL): 0, or 1 if a deferred choice
 * met names that cannot be mirrored. */
static int sim_answers(struct sim *S, const uint64_t *addrs, size_t naddrs, const struct sim_out *o)
{
	size_t a;

	for (a = 0; a < naddrs; a++) {
		uint32_t x = rbs_find(&S->t, addrs[a]);
		uint64_t id = x ? sim_resolve(S, x) : SIM_NULL;

		o->id[a] = id;
		if (o->start)
			o->start[a] = x ? S->t.n[x].start : 0;
		if (o->end)
			o->end[a] = x ? S->t.v[x].end : 0;
		if (o->name) {
			uint32_t y = 0;

			if (S->name_of && (id >> 32) == (SIM_PLT >> 32) && (uint32_t)id < S->nname)
				y = S->name_of[(uint32_t)id];
			o->name[a] = y ? sim_resolve(S, y) : SIM_NULL;
			if (o->name_start)
				o->name_start[a] = y ? S->t.n[y].start : 0;
		}
	}
	return S->uncertain ? 1 : 0;
}

/* ---- perf's full tree, cached ------------------------------------------
 *
 * The full tree depends on the DSO's tables, its layout, the model and the
 * demangling mode only - not on the addresses - so it is replayed once and
 * its final shape kept beside the index (file "<build-id>-<key>.tree"):
 * later runs answer the shape-dependent addresses with one rbs_find() walk
 * each instead of replaying every insertion (node: 181k symbols, 340M
 * instructions of replay per perf run). Only the search structure is
 * stored: start, end, id and the two children of each live node, in
 * breadth-first order (index 0 = none); a node whose duplicate choice was
 * deferred has id SIM_PEND | o, its candidates being pool[o+1 .. o+pool[o]],
 * and the choice is made when it answers. After the pool, the 6.2+ PLT
 * entries named from the tree: (entry k, node) pairs. A file whose replay
 * hit a name-dependent choice symlazy cannot mirror stores only that
 * verdict.
 */
#define SYMTREE_MAGIC   "SYMLZTR\0"
#define SYMTREE_VERSION 4u          /* 4: model in the key, named PLT entries */

struct symtree_hdr {
	char magic[8];
	uint32_t version, hdr_size;
	uint64_t key;               /* tree_key(): index key, model, demangling, version */
	uint64_t checksum;          /* symindex_checksum of everything after the header */
	uint32_t nnodes, root;      /* nodes[1..nnodes]; root 0 = empty */
	uint32_t uncertain;         /* 1: the replay needs names we cannot mirror */
	uint32_t npool;             /* uint64_t words of candidate lists after the nodes */
	uint32_t nnames, pad;       /* struct symtree_name after the pool */
};

struct symtree_node {
	uint64_t start, end, id;
	uint32_t left, right;
};

struct symtree_name {
	uint32_t k, node;           /* PLT entry k is named after node */
};

struct symtree {
	void *map;
	size_t map_size;
	const struct symtree_hdr *h;
	const struct symtree_node *n;   /* n[0] unused */
	const uint64_t *pool;
	const struct symtree_name *names;
};

#define SIM_PEND (5ull << 32)

static uint64_t tree_key(const struct symidx *idx, const struct symidx_src *src)
{
	const struct sl_model *m = src->model;
	uint64_t h = 0xcbf29ce484222325ull, v = SYMTREE_VERSION, page = sl_model_last_page(m);
	int32_t dem = src->demangle, rules[2] = { (int32_t)m->plt, m->fixup.dup_marks_ifunc_alias };
	const char *dn = m->demangler_name ? m->demangler_name() : "";

	h = fnv1a(h, &v, sizeof(v));
	h = fnv1a(h, &idx->key, sizeof(idx->key));
	h = fnv1a(h, &dem, sizeof(dem));
	/* the model's rules and names: its name, PLT variant, fixups, and the
	 * demangler this process found (6.12: perf's own or __cxa_demangle) */
	h = fnv1a(h, m->name, strlen(m->name) + 1);
	h = fnv1a(h, rules, sizeof(rules));
	h = fnv1a(h, &page, sizeof(page));
	return fnv1a(h, dn, strlen(dn) + 1);
}

static void tree_name(const struct symidx_src *src, uint64_t key, char *buf, size_t n)
{
	char hex[2 * 20 + 1];

	build_id_hex(src->build_id, src->build_id_len > 20 ? 20 : src->build_id_len, hex);
	snprintf(buf, n, "%s-%016llx.tree", hex[0] ? hex : "nobuildid", (unsigned long long)key);
}

/* Map a cached tree; 0 if its header, size and checksum hold. Node links
 * are bounds-checked by tree_find() as it walks, not here. */
static int tree_open(const struct symidx_src *src, uint64_t key, struct symtree *T)
{
	char name[128];
	struct stat st;
	const struct symtree_hdr *h;
	void *map;
	int fd;

	memset(T, 0, sizeof(*T));
	if (src->cache_dirfd < 0)
		return -ENOENT;
	tree_name(src, key, name, sizeof(name));
	fd = openat(src->cache_dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(*h) ||
	    st.st_uid != geteuid()) {
		close(fd);
		return -EINVAL;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -errno;
	h = map;
	if (memcmp(h->magic, SYMTREE_MAGIC, 8) || h->version != SYMTREE_VERSION || h->hdr_size != sizeof(*h) ||
	    h->key != key || h->uncertain > 1 || h->root > h->nnodes || (h->uncertain && h->nnodes) ||
	    (uint64_t)st.st_size != sizeof(*h) + ((uint64_t)h->nnodes + 1) * sizeof(struct symtree_node) +
				    (uint64_t)h->npool * sizeof(uint64_t) +
				    (uint64_t)h->nnames * sizeof(struct symtree_name) ||
	    symindex_checksum((const char *)map + sizeof(*h), (size_t)st.st_size - sizeof(*h)) != h->checksum) {
		munmap(map, (size_t)st.st_size);
		return -EINVAL;
	}
	T->map = map;
	T->map_size = (size_t)st.st_size;
	T->h = h;
	T->n = (const void *)(h + 1);
	T->pool = (const void *)(T->n + h->nnodes + 1);
	T->names = (const void *)(T->pool + h->npool);
	return 0;
}

/* rbs_find() on a mapped tree; -1 if a link is out of bounds or the walk is
 * deeper than a red-black tree of 2^32 nodes can be (a damaged file). */
static int tree_find(const struct symtree *T, uint64_t ip, uint32_t *out)
{
	uint32_t x = T->h->root, depth = 0;

	while (x) {
		const struct symtree_node *N;

		if (x > T->h->nnodes || ++depth > 2 * 32 + 2)
			return -1;
		N = &T->n[x];
		if (ip < N->start)
			x = N->left;
		else if (ip > N->end || (ip == N->end && ip != N->start))
			x = N->right;
		else
			break;
	}
	*out = x;
	return 0;
}

/* The identity of cached node @x (1..nnodes), a deferred choice made with
 * @R's names; -1 for a damaged candidate list. */
static int tree_id(const struct symtree *T, struct sim *R, uint32_t x, uint64_t *id)
{
	uint64_t v = T->n[x].id;

	if ((v >> 32) == (SIM_PEND >> 32)) {
		uint64_t o = (uint32_t)v;

		if (o >= T->h->npool || T->pool[o] < 2 || T->pool[o] > T->h->npool - o - 1)
			return -1;
		v = fold_names(R, T->pool + o + 1, (uint32_t)T->pool[o]);
	}
	*id = v;
	return 0;
}

/* Write S's final tree (or, @uncertain, only that verdict) to the cache:
 * temp file, renamed into place. Failures are silent: the next run replays. */
static void tree_save(const struct sim *S, const struct symidx_src *src, uint64_t key, int uncertain)
{
	struct symtree_hdr *h;
	struct symtree_node *out;
	struct symtree_name *names;
	uint64_t *pool;
	uint32_t live = 0, npool = 0, nnames = 0, x, i, cnt, o = 0, k, bad = 0;
	uint32_t *bfs = NULL;
	char tmpname[96], name[128];
	size_t size;
	void *map;
	int fd;

	if (src->cache_dirfd < 0)
		return;
	if (!uncertain) {
		live = S->nsynth;       /* synthesized nodes stay, but for the ".plt" one */
		for (x = next_live(S, 0); x; x = next_live(S, x)) {
			uint32_t q;

			live++;
			if (NODE_PEND(&S->t.v[x]))
				for (npool++, q = NODE_PEND(&S->t.v[x]); q; q = S->cand[q].next)
					npool++;
		}
		for (k = 0; k < S->nname; k++)
			nnames += S->name_of[k] != 0;
		if (nnames && !(bfs = calloc(S->nodes + 1, sizeof(*bfs))))
			return;
	}
	size = sizeof(*h) + ((size_t)live + 1) * sizeof(*out) + (size_t)npool * sizeof(uint64_t) +
	       (size_t)nnames * sizeof(*names);
	fd = sl_cache_backing(src, size, tmpname, sizeof(tmpname));
	if (fd < 0) {
		free(bfs);
		return;
	}
	if (!tmpname[0]) {          /* memfd: no cache file to keep */
		close(fd);
		free(bfs);
		return;
	}
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		sl_cache_discard(src, tmpname);
		close(fd);
		free(bfs);
		return;
	}
	h = map;
	out = (void *)(h + 1);
	pool = (void *)(out + live + 1);
	names = (void *)(pool + npool);
	memset(out, 0, sizeof(*out));
	/* breadth-first renumbering; a queued node's sim index waits in its
	 * .left until the node is filled in */
	cnt = 0;
	if (live && S->t.root)
		out[++cnt].left = S->t.root;
	for (i = 1; i <= cnt; i++) {
		uint32_t sx = out[i].left;
		const struct rbs_node *N = &S->t.n[sx];
		const struct rbs_val *V = &S->t.v[sx];

		if (bfs && sx < S->nodes)
			bfs[sx] = i;
		out[i].start = N->start;
		out[i].end = V->end;
		out[i].id = V->id;
		out[i].left = out[i].right = 0;
		if (NODE_PEND(V) && o < npool) {
			uint32_t q, c = o++;

			out[i].id = SIM_PEND | c;
			for (q = NODE_PEND(V); q && o < npool; q = S->cand[q].next)
				pool[o++] = S->cand[q].id;
			pool[c] = o - c - 1;
		}
		if (N->left) {
			if (cnt < live) {
				out[++cnt].left = N->left;
				out[i].left = cnt;
			} else {
				bad = 1;
			}
		}
		if (N->right) {
			if (cnt < live) {
				out[++cnt].left = N->right;
				out[i].right = cnt;
			} else {
				bad = 1;
			}
		}
	}
	for (k = 0, i = 0; k < S->nname && i < nnames; k++) {
		if (!S->name_of[k])
			continue;
		names[i].k = k;
		names[i].node = bfs[S->name_of[k]];
		bad |= !names[i].node;
		i++;
	}
	free(bfs);
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, SYMTREE_MAGIC, 8);
	h->version = SYMTREE_VERSION;
	h->hdr_size = sizeof(*h);
	h->key = key;
	h->nnodes = cnt;
	h->root = cnt ? 1 : 0;
	h->uncertain = (uint32_t)!!uncertain;
	h->npool = npool;
	h->nnames = nnames;
	h->checksum = symindex_checksum(out, size - sizeof(*h));
	munmap(map, size);
	tree_name(src, key, name, sizeof(name));
	if (bad || cnt != live || o != npool || i != nnames ||
	    renameat(src->cache_dirfd, tmpname, src->cache_dirfd, name) < 0)
		sl_cache_discard(src, tmpname);
	close(fd);
}

/* The answers of the cached tree @T into @o; @R gives the names of
 * deferred choices. 0, or -1 if the file is damaged. */
static int tree_answers(const struct symtree *T, struct sim *R, const uint64_t *addrs, size_t naddrs,
			const struct sim_out *o)
{
	size_t a;

	for (a = 0; a < naddrs; a++) {
		uint32_t x, y = 0, j;
		uint64_t id = SIM_NULL, nid = SIM_NULL;

		if (tree_find(T, addrs[a], &x) < 0 || (x && tree_id(T, R, x, &id) < 0))
			return -1;
		if (x && (id >> 32) == (SIM_PLT >> 32))
			for (j = 0; j < T->h->nnames; j++)
				if (T->names[j].k == (uint32_t)id) {
					y = T->names[j].node;
					if (!y || y > T->h->nnodes || tree_id(T, R, y, &nid) < 0)
						return -1;
					break;
				}
		o->id[a] = id;
		if (o->start)
			o->start[a] = x ? T->n[x].start : 0;
		if (o->end)
			o->end[a] = x ? T->n[x].end : 0;
		if (o->name) {
			o->name[a] = y ? nid : SIM_NULL;
			if (o->name_start)
				o->name_start[a] = y ? T->n[y].start : 0;
		}
	}
	return 0;
}

/*
 * full_answers - perf's answers with the whole table for each address (@o:
 * symbol, start, end, name source) under src's model: from the cached tree,
 * else by replaying the full load (and caching its shape). Returns 0, 1 if
 * perf's duplicate choice needs names symlazy cannot mirror, or -errno.
 */
static int full_answers(const struct symidx *idx, const struct symidx_src *src,
			const struct symidx_layout *lay, const uint64_t *addrs, size_t naddrs,
			const struct sim_out *o)
{
	uint64_t key = tree_key(idx, src);
	struct symtree T;
	struct sim S;
	int r;

	if (tree_open(src, key, &T) == 0) {
		struct sim R;           /* names only, for deferred choices */
		int bad = 0;

		memset(&R, 0, sizeof(R));
		R.idx = idx;
		R.src = src;
		r = (int)T.h->uncertain;
		if (!r)
			bad = tree_answers(&T, &R, addrs, naddrs, o) < 0;
		munmap(T.map, T.map_size);
		if (R.uncertain)
			return 1;
		if (!bad)
			return r;
		/* damaged links: replay (and overwrite the file) */
	}
	r = sim_build(&S, idx, src, lay, NULL, 0);
	if (r >= 0) {
		tree_save(&S, src, key, r > 0);
		if (r == 0)
			r = sim_answers(&S, addrs, naddrs, o);
	}
	sim_free(&S);
	return r;
}

/* Which members of kept groups are shown after an aborted .dynsym pass.
 * There same-start duplicates stay in the tree and the first one a search
 * meets is the answer, so fewer duplicates mean fewer ways for the reduced
 * tree to meet another one:
 *   - a .dynsym member (inserted without fixups: it matters only as an
 *     answer and for the shape) is shown only if it is the full tree's
 *     answer for some address (dyn_ans, bits per .dynsym index);
 *   - the .symtab members of a group whose answers are all .dynsym members
 *     are left out too, unless a kept zero-size .symtab symbol ends at the
 *     group (end_need: perf's symbols__fixup_end uses it) or a .symtab
 *     member answers something (sym_ans); bits per group. */
struct members {
	uint8_t *dyn_ans, *dyn_grp, *sym_ans, *end_need;
};

static int member_kept(const struct members *M, const struct symidx_entry *E, uint32_t g)
{
	if (!M || !M->dyn_ans)
		return 1;
	if (E->table == 1)
		return BIT_TEST(M->dyn_ans, E->idx);
	return !BIT_TEST(M->dyn_grp, g) || BIT_TEST(M->sym_ans, g) || BIT_TEST(M->end_need, g);
}

/* The reduced load: the shown entries of the kept groups (O(kept), not a
 * pass over the whole table). */
static int sim_reduced(const struct symidx *idx, const struct symidx_src *src,
		       const struct symidx_layout *lay, const uint8_t *kept, const struct members *M,
		       const uint64_t *addrs, size_t naddrs, const struct sim_out *o)
{
	uint32_t *ents, n = 0, cap = 0, i, k;
	struct sim S;
	int r;

	for (i = 0; i < idx->ngroups; i++)
		if (BIT_TEST(kept, i))
			cap += idx->groups[i].n;
	ents = malloc(((size_t)cap + 1) * sizeof(*ents));
	if (!ents)
		return -ENOMEM;
	for (i = 0; i < idx->ngroups; i++)
		if (BIT_TEST(kept, i))
			for (k = idx->groups[i].first; k < idx->groups[i].first + idx->groups[i].n; k++)
				if (member_kept(M, &idx->entries[k], i))
					ents[n++] = k;
	r = sim_build(&S, idx, src, lay, ents, n);
	if (r == 0)
		r = sim_answers(&S, addrs, naddrs, o);
	sim_free(&S);
	free(ents);
	return r;
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
	r = full_answers(idx, src, lay, addrs, naddrs, &o);
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
	uint8_t *kept;
	struct members M = { 0 };
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
		buf = malloc(naddrs * 9 * sizeof(*buf));
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
		red.start = buf + 8 * naddrs;
		r = full_answers(idx, src, lay, addrs, naddrs, &full);
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
		if (idx->abort_pass == SYMIDX_ABORT_DYNSYM) {
			/* .dynsym members are shown only where they are the answer */
			size_t gb = (idx->ngroups + 7) / 8 + 1;

			M.dyn_ans = calloc((idx->ndynsym + 7) / 8 + 1 + 3 * gb, 1);
			if (!M.dyn_ans) {
				ret = -ENOMEM;
				goto out;
			}
			M.dyn_grp = M.dyn_ans + (idx->ndynsym + 7) / 8 + 1;
			M.sym_ans = M.dyn_grp + gb;
			M.end_need = M.sym_ans + gb;
			for (a = 0; a < naddrs; a++) {
				uint32_t g = full.id[a] == SIM_NULL ? SYMIDX_NONE : pred_group(idx, full.start[a]);

				if (g == SYMIDX_NONE || (full.id[a] >> 32) > 1)
					continue;
				if ((full.id[a] >> 32) == 0) {
					BIT_SET(M.sym_ans, g);
				} else if ((uint32_t)full.id[a] < idx->ndynsym) {
					BIT_SET(M.dyn_ans, (uint32_t)full.id[a]);
					BIT_SET(M.dyn_grp, g);
				}
			}
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

			if (G->flags & SG_ZERO_SYMTAB) {
				if (M.end_need && G->next_sym != SYMIDX_NONE)
					BIT_SET(M.end_need, G->next_sym);
				PUSH(G->next_sym);
			}
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

				if (!member_kept(&M, E, i))
					continue;
				if (E->table == 0 && E->idx < idx->nsymtab)
					BIT_SET(keep_symtab, E->idx);
				else if (E->table == 1 && E->idx < idx->ndynsym)
					BIT_SET(keep_dynsym, E->idx);
			}
		}
		/* the symbol perf's pass stops at stays, so the pass stops there */
		if (idx->abort_pass == SYMIDX_ABORT_SYMTAB && idx->abort_idx < idx->nsymtab)
			BIT_SET(keep_symtab, idx->abort_idx);
		else if (idx->abort_pass == SYMIDX_ABORT_DYNSYM && idx->abort_idx < idx->ndynsym)
			BIT_SET(keep_dynsym, idx->abort_idx);
		if (!namb)
			break;
		/* rule 2, second half: the reduced tree must answer like the full
		 * one - same symbol, same end, same name source */
		r = sim_reduced(idx, src, lay, kept, &M, addrs, naddrs, &red);
		if (r != 0) {
			ret = r < 0 ? r : 1;
			goto out;
		}
		for (a = 0; a < naddrs && red.end[a] == full.end[a] && red.name[a] == full.name[a] &&
			    (red.id[a] == full.id[a] ||
			     (idx->abort_pass && red.start[a] == full.start[a] &&
			      same_print(src, red.id[a], full.id[a]))); a++)
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
	free(M.dyn_ans);
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
