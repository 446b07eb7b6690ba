/* SPDX-License-Identifier: MIT */
/*
 * index/symindex.c - build, cache and open the address-sorted symbol index
 * of one DSO (the format: index/format.h; what it answers: index/symindex.h):
 * which tables perf reads (symsrc__init), each symbol classified as perf's
 * dso__load_sym_internal() loop would (tools/perf/util/symbol-elf.c), sorted
 * by start, built in a memfd and written to the cache (index/cache.c). The ELF
 * layout facts it needs are index/layout.c; answers are index/answer.c; the
 * replay of perf's tree is index/replay.c, index/choose.c, index/tree.c.
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

/* Four independent lanes of word-wise FNV-1a over 32-byte blocks, folded
 * at the end with the tail bytes: every open checks the whole file (node:
 * 9.8 MB of index, 3.3 MB of tree), and one serial multiply chain per word
 * was its cost. Incremental (symidx_cks_*, index/format.h) so a file can be
 * checksummed as it is written; symindex_checksum() is the one-call form. */
void symidx_cks_init(struct symidx_cks *c)
{
	c->h[0] = 0xcbf29ce484222325ull;
	c->h[1] = 0x84222325cbf29ce4ull;
	c->h[2] = 0x9ce484222325cbf2ull;
	c->h[3] = 0x2325cbf29ce48422ull;
	c->nt = 0;
}

static void cks_blocks(struct symidx_cks *c, const unsigned char *p, size_t nblocks)
{
	uint64_t h0 = c->h[0], h1 = c->h[1], h2 = c->h[2], h3 = c->h[3], w[4];

	for (size_t i = 0; i < nblocks; i++, p += 32) {
		memcpy(w, p, 32);
		h0 = (h0 ^ w[0]) * 0x100000001b3ull;
		h1 = (h1 ^ w[1]) * 0x100000001b3ull;
		h2 = (h2 ^ w[2]) * 0x100000001b3ull;
		h3 = (h3 ^ w[3]) * 0x100000001b3ull;
	}
	c->h[0] = h0;
	c->h[1] = h1;
	c->h[2] = h2;
	c->h[3] = h3;
}

void symidx_cks_update(struct symidx_cks *c, const void *p, size_t n)
{
	const unsigned char *b = p;

	if (c->nt) {                /* complete the block begun by the last call */
		size_t k = 32 - c->nt < n ? 32 - c->nt : n;

		memcpy(c->tail + c->nt, b, k);
		c->nt += k;
		b += k;
		n -= k;
		if (c->nt < 32)
			return;
		cks_blocks(c, c->tail, 1);
		c->nt = 0;
	}
	cks_blocks(c, b, n / 32);
	memcpy(c->tail, b + n / 32 * 32, n % 32);
	c->nt = n % 32;
}

uint64_t symidx_cks_final(const struct symidx_cks *c)
{
	uint64_t r = sl_fnv1a(0xcbf29ce484222325ull, c->h, sizeof(c->h));

	r ^= r >> 29;
	return sl_fnv1a(r, c->tail, c->nt);
}

uint64_t symindex_checksum(const void *p, size_t n)
{
	struct symidx_cks c;

	symidx_cks_init(&c);
	symidx_cks_update(&c, p, n);
	return symidx_cks_final(&c);
}

static int entry_less(const struct symidx_entry *a, const struct symidx_entry *b)
{
	if (a->start != b->start)
		return a->start < b->start;
	if (a->table != b->table)
		return a->table < b->table;
	return a->idx < b->idx;
}

SL_HEAPSORT(heapsort_entries, struct symidx_entry, entry_less)

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
	heapsort_entries(e, n);
}

/* One table as perf's symsrc__init() finds it: by name, then by type. */
static Elf_Data *named_table(const struct elf_ops *ops, Elf *elf, size_t shstrndx, size_t shnum,
			     const char *want, Elf64_Word type, uint32_t *n, Elf_Data **str)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	const char *name;

	while ((scn = sl_elf_next(ops, elf, scn, shstrndx, &sh, &name)) != NULL) {
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
	char why[96] = "";
	int unmodelable = 0, fd, cf, ret;
	uint32_t abort_pass = SYMIDX_ABORT_NONE, abort_idx = 0;
	void *map;
	Elf_Data *tabs[2] = { src->symtab, src->dynsym };
	uint32_t counts[2] = { src->symtab ? src->nsymtab : 0, src->dynsym ? src->ndynsym : 0 };
	uint64_t page = sl_model_last_page(src->model);

	ret = load_secinfo(ops, src->model, src->elf, &secs, &shnum);
	if (ret < 0)
		return ret;

	/* One pass: the scratch memfd is sized for every symbol being a
	 * candidate (it is cut to its final size below), so the table is read
	 * once instead of once to count and once to fill. */
	cap_bytes = sizeof(*h) + ((size_t)counts[0] + counts[1]) * (sizeof(*e) + sizeof(*grp));
	fd = sl_cache_scratch(cap_bytes);
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
	cf = sl_cache_save(src, key, map, final_size);
	if (cf >= 0) {
		/* use the cache file's pages (just written, in the page cache)
		 * and let the memfd go, rather than keep both copies */
		void *fm = mmap(NULL, final_size, PROT_READ, MAP_SHARED, cf, 0);

		close(cf);
		if (fm != MAP_FAILED) {
			munmap(map, final_size);
			map = fm;
		}
	}
	close(fd);
	attach(out, map, final_size);
	return 0;

fail_fd:
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
