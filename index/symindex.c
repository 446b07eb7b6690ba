/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "symindex.h"

#define SYMIDX_MAGIC   "SYMLZIX\0"
#define SYMIDX_VERSION 2u

struct symidx_hdr {
	char magic[8];
	uint32_t version, hdr_size;
	uint64_t key;               /* hash of build-id, file identity, layout, sizes */
	uint64_t checksum;          /* fnv1a64 of everything after the header */
	uint32_t nentries, ngroups, nsymtab, ndynsym;
	uint32_t unmodelable, pad;
	char why[96];
	unsigned char build_id[20];
	uint32_t build_id_len;
};

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= c[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* Word-wise FNV-style checksum for the payload (fast on large indexes). */
static uint64_t payload_sum(const void *p, size_t n)
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

int symindex_layout(const struct elf_ops *ops, Elf *elf, struct symidx_layout *lay)
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

static uint64_t roundup4k(uint64_t x)
{
	return (x + 4095) / 4096 * 4096;
}

/*
 * Classify one symbol exactly as perf 6.1's dso__load_sym_internal() main
 * loop does on x86 (symbol-elf.c; see ../shared notes §2.2). Returns
 * 1 (candidate, *start set), 0 (perf skips it), -1 (perf would abort the pass
 * or we cannot model it: whole DSO unmodelable).
 */
static int classify(const GElf_Sym *s, const struct secinfo *secs, size_t shnum,
		    const struct symidx_layout *lay, uint64_t *start)
{
	int type = GELF_ST_TYPE(s->st_info), vis = GELF_ST_VISIBILITY(s->st_other);
	int is_label = type == STT_NOTYPE && s->st_name != 0 && s->st_shndx != SHN_UNDEF &&
		       s->st_shndx != SHN_ABS && vis != STV_HIDDEN && vis != STV_INTERNAL;
	int is_func = (type == STT_FUNC || type == STT_GNU_IFUNC) && s->st_name != 0 &&
		      s->st_shndx != SHN_UNDEF;
	int is_obj = type == STT_OBJECT && s->st_name != 0 && s->st_shndx != SHN_UNDEF;
	const struct secinfo *sec;
	unsigned i;

	if (!is_label && !is_func && !is_obj)
		return 0;
	if (s->st_shndx == SHN_ABS)
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

static int load_secinfo(const struct elf_ops *ops, Elf *elf, struct secinfo **out, size_t *nout)
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
		secs[i].label_ok = name && (strstr(name, "text") || strstr(name, "data"));
		secs[i].addr = sh.sh_addr;
		secs[i].offset = sh.sh_offset;
	}
	*out = secs;
	*nout = shnum;
	return 0;
}

static uint64_t index_key(const struct symidx_src *src)
{
	uint64_t h = 0xcbf29ce484222325ull, v = SYMIDX_VERSION;

	h = fnv1a(h, &v, sizeof(v));
	h = fnv1a(h, src->build_id, src->build_id_len);
	h = fnv1a(h, &src->file_key, sizeof(src->file_key));
	h = fnv1a(h, src->layout, sizeof(*src->layout));
	h = fnv1a(h, &src->nsymtab, sizeof(src->nsymtab));
	h = fnv1a(h, &src->ndynsym, sizeof(src->ndynsym));
	return h;
}

static void cache_name(const struct symidx_src *src, uint64_t key, char *buf, size_t n)
{
	char hex[2 * 20 + 1];

	build_id_hex(src->build_id, src->build_id_len > 20 ? 20 : src->build_id_len, hex);
	snprintf(buf, n, "%s-%016llx.idx", hex[0] ? hex : "nobuildid", (unsigned long long)key);
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

/* Validate a mapped cache file against the expected key; 0 if usable. */
static int validate(const void *map, size_t size, uint64_t key)
{
	const struct symidx_hdr *h = map;
	uint64_t need;

	if (size < sizeof(*h) || memcmp(h->magic, SYMIDX_MAGIC, 8) ||
	    h->version != SYMIDX_VERSION || h->hdr_size != sizeof(*h) || h->key != key)
		return -EINVAL;
	need = sizeof(*h) + (uint64_t)h->nentries * sizeof(struct symidx_entry) +
	       (uint64_t)h->ngroups * sizeof(struct symidx_group);
	if (need != size || h->ngroups > h->nentries)
		return -EINVAL;
	if (payload_sum((const char *)map + sizeof(*h), size - sizeof(*h)) != h->checksum)
		return -EINVAL;
	return 0;
}

static int try_cache(const struct symidx_src *src, uint64_t key, struct symidx *out)
{
	char name[128];
	struct stat st;
	void *map;
	int fd;

	if (src->cache_dirfd < 0)
		return -ENOENT;
	cache_name(src, key, name, sizeof(name));
	fd = openat(src->cache_dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(struct symidx_hdr) ||
	    st.st_uid != geteuid()) {
		close(fd);
		return -EINVAL;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -errno;
	if (validate(map, (size_t)st.st_size, key) < 0) {
		munmap(map, (size_t)st.st_size);
		return -EINVAL;
	}
	attach(out, map, (size_t)st.st_size);
	out->from_cache = 1;
	return 0;
}

/* Create the backing file: a temp file in the cache dir (renamed into place
 * later) or a memfd. Space is reserved with posix_fallocate so writes through
 * the mapping cannot hit ENOSPC (SIGBUS). */
static int make_backing(const struct symidx_src *src, size_t size, char *tmpname, size_t n)
{
	int fd = -1, r;

	tmpname[0] = '\0';
	if (src->cache_dirfd >= 0) {
		snprintf(tmpname, n, ".tmp-%d-%lx.idx", (int)getpid(), (unsigned long)random());
		fd = openat(src->cache_dirfd, tmpname, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 && (r = posix_fallocate(fd, 0, (off_t)size)) != 0) {
			close(fd);
			unlinkat(src->cache_dirfd, tmpname, 0);
			fd = -1;
		}
		if (fd < 0)
			tmpname[0] = '\0';
	}
	if (fd < 0) {
		fd = memfd_create("symlazy-index", MFD_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (ftruncate(fd, (off_t)size) < 0) {
			r = -errno;
			close(fd);
			return r;
		}
	}
	return fd;
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
	char tmpname[96], name[128];
	char why[96] = "";
	int unmodelable = 0, fd, ret;
	void *map;
	Elf_Data *tabs[2] = { src->symtab, src->dynsym };
	uint32_t counts[2] = { src->symtab ? src->nsymtab : 0, src->dynsym ? src->ndynsym : 0 };

	ret = load_secinfo(ops, src->elf, &secs, &shnum);
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
			c = classify(&s, secs, shnum, src->layout, &st);
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
	fd = make_backing(src, cap_bytes, tmpname, sizeof(tmpname));
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
			    classify(&s, secs, shnum, src->layout, &st) != 1)
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

					end = nx == SYMIDX_NONE ? roundup4k(G->start) + 4096 : grp[nx].start;
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
	h->checksum = payload_sum((char *)map + sizeof(*h), final_size - sizeof(*h));
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
	if (tmpname[0]) {
		cache_name(src, key, name, sizeof(name));
		if (renameat(src->cache_dirfd, tmpname, src->cache_dirfd, name) < 0)
			unlinkat(src->cache_dirfd, tmpname, 0);
	}
	close(fd);
	attach(out, map, final_size);
	return 0;

fail_fd:
	if (tmpname[0])
		unlinkat(src->cache_dirfd, tmpname, 0);
	close(fd);
	return ret;
}

int symindex_open(const struct symidx_src *src, struct symidx *out)
{
	uint64_t key = index_key(src);

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

/*
 * Answer for @a: 0 = no symbol (NULL), 1 = group *@g, -1 = ambiguous
 * (depends on rb-tree shape or PLT synthesis).
 */
static int answer(const struct symidx *idx, const struct symidx_layout *lay, uint64_t a, uint32_t *g)
{
	uint32_t p = pred_group(idx, a);
	const struct symidx_group *T;

	if (lay && in_plt(lay, a, a))
		return -1;
	if (p == SYMIDX_NONE)
		return 0;
	T = &idx->groups[p];
	if (T->pmax > a)
		return -1;
	if (a == T->start || a < T->min_end) {
		if (lay && in_plt(lay, T->start + 1, a))
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

	if (idx->unmodelable || answer(idx, NULL, addr, &g) != 1)
		return SYMIDX_NONE;
	return g;
}

int symindex_plan(const struct symidx *idx, const struct symidx_layout *lay,
		  const uint64_t *addrs, size_t naddrs,
		  uint8_t *keep_symtab, uint8_t *keep_dynsym,
		  uint32_t *kept_groups, char *why, size_t whysz)
{
	uint8_t *kept;
	uint32_t *stack = NULL, sp = 0, cap = 0, nk = 0, i;
	size_t a;
	int ret = 0;

	*kept_groups = 0;
	if (idx->unmodelable) {
		snprintf(why, whysz, "%s", idx->why);
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
		int r = answer(idx, lay, addrs[a], &g);

		if (r < 0) {
			snprintf(why, whysz, "address %#llx %s", (unsigned long long)addrs[a],
				 in_plt(lay, addrs[a], addrs[a]) ? "is in the PLT" :
				 "is covered by overlapping symbols");
			ret = 1;
			goto out;
		}
		if (r == 1)
			PUSH(g);
	}
	if (!nk)
		PUSH(0);        /* rule 4: perf's ret > 0 so PLT synthesis still runs */
	while (sp) {
		const struct symidx_group *G = &idx->groups[stack[--sp]];

		if (G->flags & SG_ZERO_SYMTAB)
			PUSH(G->next_sym);
		if (G->flags & SG_ZERO_DYNSYM)
			PUSH(G->next_all);
	}
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
	*kept_groups = nk;
#undef PUSH
out:
	free(stack);
	free(kept);
	return ret;
}
