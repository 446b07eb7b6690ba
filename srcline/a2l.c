/* SPDX-License-Identifier: MIT */
/*
 * srcline/a2l.c - GNU addr2line 2.40's answers from the table
 * (srcline/a2l.h): key, validation, the cache file, the answer of one input
 * line and the serving loop. The table's build is srcline/a2l_build.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>
#include "index/cache.h"
#include "index/format.h"
#include "srcline/a2l.h"
#include "srcline/a2l_dwarf.h"
#include "srcline/a2l_elf.h"
#include "util/reason.h"
#include "util/util.h"

_Static_assert(sizeof(struct a2l_hdr) == 160, "a2l header layout");
_Static_assert(sizeof(struct a2l_sec) == 32, "a2l section layout");
_Static_assert(sizeof(struct a2l_func) == 24, "a2l function layout");

uint64_t a2l_key(const struct stat *st)
{
	uint64_t w[8] = { A2L_VERSION, (uint64_t)st->st_dev, (uint64_t)st->st_ino, (uint64_t)st->st_size,
			  (uint64_t)st->st_mtim.tv_sec, (uint64_t)st->st_mtim.tv_nsec,
			  (uint64_t)st->st_ctim.tv_sec, (uint64_t)st->st_ctim.tv_nsec };

	return sl_fnv1a(SL_FNV_OFFSET, w, sizeof(w));
}

void a2l_file_name(uint64_t key, char *buf, size_t n)
{
	snprintf(buf, n, "%016llx" A2L_SUFFIX, (unsigned long long)key);
}

/* ---- validation ------------------------------------------------------------ */

/* A string ref in the area (@size bytes): 4-aligned, length <= @max, NUL in bounds. */
static int ref_ok(const unsigned char *area, uint64_t size, uint32_t ref, uint32_t max)
{
	uint32_t len;

	if (ref % 4 || (uint64_t)ref + 4 > size)
		return 0;
	memcpy(&len, area + ref, 4);
	return len <= max && (uint64_t)ref + 4 + len + 1 <= size && area[(uint64_t)ref + 4 + len] == 0;
}

int a2l_validate(const void *map, size_t size)
{
	const struct a2l_hdr *h = map;
	const unsigned char *base = map, *str;
	const struct a2l_sec *s;
	const struct a2l_func *f;
	uint64_t off;

	if (size < sizeof(*h) || memcmp(h->magic, A2L_MAGIC, 8) || h->version != A2L_VERSION ||
	    h->hdr_size != sizeof(*h) || h->endian != A2L_ENDIAN || h->file_size != size || h->flags > 15 ||
	    h->max_str > h->strings_size)
		return -EINVAL;
	off = sizeof(*h);
	if (h->secs_off != off)
		return -EINVAL;
	off += (uint64_t)h->nsecs * sizeof(*s);
	if (h->funcs_off != off)
		return -EINVAL;
	off += (uint64_t)h->nfuncs * sizeof(*f);
	if (h->strings_off != off || h->strings_size > UINT32_MAX || off + h->strings_size != size)
		return -EINVAL;
	if (symindex_checksum(base + 32, size - 32) != h->checksum)
		return -EINVAL;
	s = (const void *)(base + h->secs_off);
	f = (const void *)(base + h->funcs_off);
	str = base + h->strings_off;
	for (uint32_t i = 0, e = 0; i < h->nsecs; i++) {
		if ((i && s[i].shndx <= s[i - 1].shndx) || s[i].first != e || s[i].end < s[i].first ||
		    s[i].end > h->nfuncs || !s[i].size)
			return -EINVAL;
		for (uint32_t k = s[i].first; k < s[i].end; k++) {
			if ((k > s[i].first && f[k].off <= f[k - 1].off) || f[k].off >= s[i].size || !f[k].size ||
			    !ref_ok(str, h->strings_size, f[k].name, h->max_str) ||
			    (f[k].file != A2L_NONE && !ref_ok(str, h->strings_size, f[k].file, h->max_str)))
				return -EINVAL;
		}
		e = s[i].end;
		if (i + 1 == h->nsecs && e != h->nfuncs)
			return -EINVAL;
	}
	if (!h->nsecs && h->nfuncs)
		return -EINVAL;
	return 0;
}

/* ---- open / close ------------------------------------------------------------ */

void a2l_attach(struct a2l_table *out, void *map, size_t size)
{
	const unsigned char *b = map;

	out->map = map;
	out->map_size = size;
	out->h = map;
	out->secs = (const void *)(b + out->h->secs_off);
	out->funcs = (const void *)(b + out->h->funcs_off);
	out->strings = b + out->h->strings_off;
	out->c_sec = A2L_NONE;
	out->c_func = A2L_NONE;
}

static int map_cached(int dirfd, const struct stat *st, struct a2l_table *out)
{
	char name[64];
	const struct a2l_hdr *h;
	void *map;
	size_t msize;
	int r;

	a2l_file_name(a2l_key(st), name, sizeof(name));
	r = sl_cache_file_map(dirfd, name, sizeof(struct a2l_hdr), &map, &msize);
	if (r < 0)
		return r;
	h = map;
	if (a2l_validate(map, msize) < 0 || h->dev != (uint64_t)st->st_dev || h->ino != (uint64_t)st->st_ino ||
	    h->size != (uint64_t)st->st_size || h->mtime_sec != st->st_mtim.tv_sec ||
	    h->mtime_nsec != st->st_mtim.tv_nsec || h->ctime_sec != st->st_ctim.tv_sec ||
	    h->ctime_nsec != st->st_ctim.tv_nsec) {
		munmap(map, msize);
		return -EINVAL;
	}
	a2l_attach(out, map, msize);
	out->from_cache = 1;
	madvise(map, msize, MADV_DONTNEED);     /* validation read every page */
	return 0;
}

int a2l_open(const char *path, int dirfd, struct a2l_table *out, struct sl_why *why)
{
	struct stat st;
	int fd, r;

	memset(out, 0, sizeof(*out));
	out->c_sec = out->c_func = A2L_NONE;
	sl_why_set(why, SL_R_NONE, NULL);
	if (strlen(path) >= sizeof(out->path))
		return sl_whyf(why, SL_R_OPEN_FAILED, -ENAMETOOLONG, "%s: %s", path, strerror(ENAMETOOLONG));
	fd = sl_open_regular(path, &st, why);
	if (fd < 0)
		return fd;
	if (dirfd < 0 || map_cached(dirfd, &st, out) < 0)
		r = a2l_build(path, fd, &st, dirfd, out, why);
	else
		r = 0;
	if (r == 0 && (out->h->flags & A2L_F_DWARF) && (r = a2l_dw_open(out, path, fd, &st, dirfd, why)) < 0)
		a2l_close(out);
	close(fd);
	if (r == 0)
		snprintf(out->path, sizeof(out->path), "%s", path);
	return r;
}

void a2l_close(struct a2l_table *t)
{
	if (t->map)
		munmap(t->map, t->map_size);
	if (t->dmap)
		munmap(t->dmap, t->dmap_size);
	if (t->fstate)
		munmap(t->fstate, ((size_t)t->dh_nfuncs ? (size_t)t->dh_nfuncs : 1) * 4);
	memset(t, 0, sizeof(*t));
	t->c_sec = t->c_func = A2L_NONE;
}

/* ---- answers ----------------------------------------------------------------- */

/* The best function of section @si at @off (the deduplicated table holds
 * _bfd_elf_find_function's pick per value: the last value <= @off). */
static uint32_t best(const struct a2l_table *t, uint32_t si, uint64_t off)
{
	uint32_t lo = t->secs[si].first, hi = t->secs[si].end;

	while (lo < hi) {               /* first function with value > off */
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->funcs[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > t->secs[si].first ? lo - 1 : A2L_NONE;
}

/* bfd/dwarf2.c _bfd_elf_find_function with its cache (last_section, func,
 * func_size): the same section and an offset inside [func, func + size)
 * keep the cached function, whatever a fresh scan would pick (a nested
 * symbol, say); anything else scans again (here: binary search) and caches
 * the result, NULL included. uint64_t wraps as bfd_vma does. */
static uint32_t find_function(struct a2l_table *t, uint32_t si, uint64_t off)
{
	const struct a2l_func *f = t->c_func != A2L_NONE ? &t->funcs[t->c_func] : NULL;

	if (t->c_sec != si || !f || off < f->off || off >= f->off + f->size) {
		t->c_sec = si;
		t->c_func = best(t, si, off);
	}
	return t->c_func;
}

struct obuf {
	char *p;
	size_t n, cap;
};

static void put(struct obuf *o, const void *s, size_t n)
{
	if (o->n < o->cap)
		memcpy(o->p + o->n, s, n <= o->cap - o->n ? n : o->cap - o->n);
	o->n += n;
}

static void put_ref(struct obuf *o, const struct a2l_table *t, uint32_t ref)
{
	uint32_t len;

	memcpy(&len, t->strings + ref, 4);
	put(o, t->strings + ref + 4, len);
}

/* ---- DWARF answers (srcline/a2l_dwarf.h) ------------------------------------------ */

struct sref { const unsigned char *area; uint32_t ref; };      /* ref A2L_NONE: NULL */

#define DW(t, T, off) ((const T *)((const unsigned char *)(t)->dmap + (t)->dh->off))

static void put_sref(struct obuf *o, struct sref s)
{
	uint32_t len;

	memcpy(&len, s.area + s.ref, 4);
	put(o, s.area + s.ref + 4, len);
}

static int sref_empty(struct sref s)
{
	uint32_t len;

	if (s.ref == A2L_NONE)
		return 1;
	memcpy(&len, s.area + s.ref, 4);
	return len == 0;
}

/* the interval of [first, end) holding @pc, or A2L_NONE (sorted, disjoint) */
#define FIND_IV(arr, first, end, pc, res)                                       \
	do {                                                                    \
		uint32_t lo_ = (first), hi_ = (end);                            \
		(res) = A2L_NONE;                                               \
		while (lo_ < hi_) {                                             \
			uint32_t mid_ = lo_ + (hi_ - lo_) / 2;                  \
			if ((pc) < (arr)[mid_].lo)                              \
				hi_ = mid_;                                     \
			else if ((pc) >= (arr)[mid_].hi)                        \
				lo_ = mid_ + 1;                                 \
			else {                                                  \
				(res) = mid_;                                   \
				break;                                          \
			}                                                       \
		}                                                               \
	} while (0)

/* funcinfo->name as the session has left it */
static struct sref cur_name(const struct a2l_table *t, uint32_t fn)
{
	const struct a2d_func *f = DW(t, struct a2d_func, funcs_off);
	uint32_t st = t->fstate[fn];

	if (st >= 2)
		return (struct sref){ t->strings, st - 2 };
	return (struct sref){ DW(t, unsigned char, strings_off), f[fn].name };
}

struct dwans {
	struct sref name, file;
	uint32_t line, discr, inl;
};

/*
 * bfd/elf.c _bfd_elf_find_nearest_line_with_alt for section @si, offset
 * @off (pc = vma + off): bfd/dwarf2.c _bfd_dwarf2_find_nearest_line_with_alt
 * (the unit holding pc, comp_unit_find_nearest_line, then the done: block
 * with _bfd_elf_find_function and its update of function->name and
 * is_linkage); when it finds nothing the symbol-table fallback asks
 * _bfd_elf_find_function again with the same symbols and section, which
 * answers NULL again (no .debug/.stab: dwarf1 and stabs find nothing).
 * Returns 1 (found) with *@a, else 0.
 */
static int dw_nearest(struct a2l_table *t, uint32_t si, uint64_t off, uint64_t pc, struct dwans *a)
{
	const struct a2d_range *rg = DW(t, struct a2d_range, ranges_off);
	const struct a2d_cu *cu = DW(t, struct a2d_cu, cus_off);
	const struct a2d_fint *fi = DW(t, struct a2d_fint, fints_off);
	const struct a2d_lint *li = DW(t, struct a2d_lint, lints_off);
	const struct a2d_func *fn = DW(t, struct a2d_func, funcs_off);
	const unsigned char *dstr = DW(t, unsigned char, strings_off);
	uint32_t r, f = A2L_NONE, l = A2L_NONE, func = A2L_NONE, sym;
	int found = 0;

	a->name = a->file = (struct sref){ NULL, A2L_NONE };
	a->line = a->discr = 0;
	a->inl = A2L_NONE;
	FIND_IV(rg, 0, t->dh->nranges, pc, r);
	if (r != A2L_NONE) {
		const struct a2d_cu *c = &cu[rg[r].cu];

		FIND_IV(fi, c->f_first, c->f_end, pc, f);
		FIND_IV(li, c->l_first, c->l_end, pc, l);
		if (f != A2L_NONE) {
			func = fi[f].fn;
			if (fn[func].flags & A2D_F_INLINED)
				a->inl = func;
		}
		if (l != A2L_NONE) {
			a->file = (struct sref){ dstr, li[l].file };
			a->line = li[l].line;
			a->discr = li[l].discr;
		}
		found = f != A2L_NONE || l != A2L_NONE;
	}
	/* done: */
	if (func != A2L_NONE && (t->fstate[func] || (fn[func].flags & A2D_F_LINKAGE))) {
		a->name = cur_name(t, func);
		return 1;
	}
	sym = (t->h->flags & A2L_F_SYMS) ? find_function(t, si, off) : A2L_NONE;
	if (sym != A2L_NONE) {
		a->name = (struct sref){ t->strings, t->funcs[sym].name };
		if (a->file.ref == A2L_NONE)
			a->file = (struct sref){ t->strings, t->funcs[sym].file };
		found = 1;
	}
	if (func != A2L_NONE) {
		if (sym == A2L_NONE)
			a->name = cur_name(t, func);
		else if (t->funcs[sym].off + t->secs[si].vma == fn[func].low)
			t->fstate[func] = 2 + t->funcs[sym].name;
		if (!t->fstate[func])
			t->fstate[func] = 1;
	}
	return found;
}

static void put_frame(struct obuf *o, struct sref name, struct sref file, uint32_t line, uint32_t discr)
{
	char nb[64];

	if (sref_empty(name))
		put(o, "??", 2);
	else
		put_sref(o, name);
	put(o, "\n", 1);
	if (file.ref == A2L_NONE)
		put(o, "??", 2);
	else
		put_sref(o, file);
	if (!line)
		put(o, ":?\n", 3);
	else if (discr)
		put(o, nb, (size_t)snprintf(nb, sizeof(nb), ":%u (discriminator %u)\n", line, discr));
	else
		put(o, nb, (size_t)snprintf(nb, sizeof(nb), ":%u\n", line));
}

/* binutils/addr2line.c translate_addresses with -i -f for one pc */
static void dw_answer(struct a2l_table *t, uint64_t pc, struct obuf *o)
{
	const struct a2d_func *fn = DW(t, struct a2d_func, funcs_off);
	const unsigned char *dstr = DW(t, unsigned char, strings_off);
	struct dwans a;
	int found = 0;

	const struct a2d_zone *z = DW(t, struct a2d_zone, zones_off);
	uint32_t zi;

	/* a query that binutils answers by symbol (do_line: a non-code section,
	 * bfd/dwarf2.c looks for a symbol at the address and the variable or
	 * function tables) or in a zone where the order of reading matters */
	for (zi = 0; zi < t->h->nsecs; zi++)     /* find_address_in_section: none holds pc */
		if (pc >= t->secs[zi].vma && pc < t->secs[zi].vma + t->secs[zi].size)
			break;
	if (zi == t->h->nsecs) {
		put(o, "??\n??:0\n", 8);
		return;
	}
	FIND_IV(z, 0, t->dh->nzones, pc, zi);
	if (zi != A2L_NONE) {
		t->need_real = 1;
		return;
	}
	for (uint32_t si = 0; si < t->h->nsecs; si++) {
		const struct a2l_sec *s = &t->secs[si];

		if (pc >= s->vma && pc < s->vma + s->size && !(s->flags & A2L_S_CODE) && (t->h->flags & A2L_F_SYMS)) {
			t->need_real = 1;
			return;
		}
	}
	for (uint32_t si = 0; si < t->h->nsecs && !found; si++) {
		const struct a2l_sec *s = &t->secs[si];

		if (pc < s->vma || pc >= s->vma + s->size)
			continue;
		found = dw_nearest(t, si, pc - s->vma, pc, &a);
	}
	if (!found) {
		put(o, "??\n??:0\n", 8);
		return;
	}
	put_frame(o, a.name, a.file, a.line, a.discr);
	/* bfd_find_inliner_info: caller_file, caller_func->name, caller_line;
	 * the discriminator printed is the first frame's */
	for (uint32_t f = a.inl; f != A2L_NONE && fn[f].caller != A2L_NONE; f = fn[f].caller)
		put_frame(o, cur_name(t, fn[f].caller), (struct sref){ dstr, fn[f].call_file }, fn[f].call_line,
			  a.discr);
}

/* libiberty safe-ctype ISSPACE: space, \t, \n, \v, \f, \r */
static int a2l_isspace(int c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

size_t a2l_answer(struct a2l_table *t, const char *line, size_t len, int with_addresses, char *out,
		  size_t outsz)
{
	char buf[A2L_LINE], *adr;
	struct obuf o = { out, 0, outsz };
	uint64_t pc = 0;
	uint32_t fi = A2L_NONE;
	int sym;

	len = len < A2L_LINE - 1 ? len : A2L_LINE - 1;
	memcpy(buf, line, len);
	buf[len] = '\0';
	/* addr2line.c is_symbol: a symbol unless the first non-blank is a
	 * digit or the end, or a hex letter on a line without '+' */
	adr = buf;
	while (a2l_isspace((unsigned char)*adr))
		adr++;
	sym = !(*adr >= '0' && *adr <= '9') && *adr &&
	      !(((*adr | 0x20) >= 'a' && (*adr | 0x20) <= 'f') && !strchr(adr, '+'));
	if (sym) {
		char *symp = adr, *end;
		uint64_t offset = 0;

		while (*adr && !a2l_isspace((unsigned char)*adr) && *adr != '+')
			adr++;
		end = adr;
		while (a2l_isspace((unsigned char)*adr))
			adr++;
		if (*adr == '+')
			offset = strtoul(adr + 1, NULL, 0);
		*end = '\0';
		/* lookup_symbol: the first exact name, else the first whose
		 * bfd_demangle is it, else 0 (without the offset). perf's
		 * sentinel "," was looked up when the table was built */
		if (!strcmp(symp, ","))
			pc = (t->h->flags & A2L_F_COMMA) ? t->h->comma_pc + offset : 0;
		else if (t->no_heap) {
			t->need_real = 1;       /* the lookup demangles with malloc */
			return 0;
		} else if (!a2l_lookup_symbol(t, symp, offset, &pc))
			pc = 0;
	} else {
		pc = strtoul(buf, NULL, 16);    /* bfd_scan_vma on LP64 */
	}
	/* 64-bit ELF: pc &= (sign << 1) - 1 keeps every bit; x86-64 does not
	 * sign-extend (elf_backend_data.sign_extend_vma 0) */
	if (with_addresses) {
		static const char hex[] = "0123456789abcdef";
		char a[19] = "0x";

		for (int i = 0; i < 16; i++)
			a[2 + i] = hex[(pc >> (60 - 4 * i)) & 15];
		a[18] = '\n';
		put(&o, a, sizeof(a));  /* bfd_printf_vma: %016lx */
	}
	if (t->dh) {
		dw_answer(t, pc, &o);
		return t->need_real ? 0 : o.n;
	}
	if (t->h->flags & A2L_F_SYMS) {
		/* find_address_in_section: each SHF_ALLOC section holding pc, in
		 * section order, until one finds a function */
		for (uint32_t si = 0; si < t->h->nsecs && fi == A2L_NONE; si++) {
			const struct a2l_sec *s = &t->secs[si];

			if (pc < s->vma || pc >= s->vma + s->size)
				continue;
			fi = find_function(t, si, pc - s->vma);
		}
	}
	if (fi == A2L_NONE) {
		put(&o, "??\n??:0\n", 8);
	} else {
		const struct a2l_func *f = &t->funcs[fi];
		uint32_t nlen;

		memcpy(&nlen, t->strings + f->name, 4);
		if (nlen)
			put_ref(&o, t, f->name);
		else
			put(&o, "??", 2);
		put(&o, "\n", 1);
		if (f->file != A2L_NONE)
			put_ref(&o, t, f->file);
		else
			put(&o, "??", 2);
		put(&o, ":?\n", 3);     /* line 0; no inliner info without DWARF */
	}
	return o.n;
}

size_t a2l_answer_max(const struct a2l_table *t)
{
	size_t ms = t->h->max_str;

	if (!t->dh)
		return 2 * ms + 64;
	ms = t->dh->max_str > ms ? t->dh->max_str : ms;
	return ((size_t)t->dh->max_depth + 1) * (2 * ms + 64) + 64;
}

/* ---- the loop ------------------------------------------------------------------ */

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* ---- the fallback: the real addr2line, replayed ----------------------------------- */

/* Buffers of the forked child come from mmap, not malloc: perf's heap is
 * shared copy-on-write with it, and glibc's first malloc there sorts the
 * unsorted bin, writing chunk headers all over perf's heap (each page then
 * copied: half a MiB per child measured). */
static void *amap(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Run t->exe on perf's arguments; feed it @log (@logfd: every input piece
 * answered so far), then @pending (@npend bytes), then the rest of @in_fd;
 * drop its first @sent output bytes and pass the rest to @out_fd. */
static int hand_over(struct a2l_table *t, int with_addresses, int logfd, const char *pending, size_t npend,
		     int in_fd, int out_fd, uint64_t sent)
{
	int to[2], from[2], r = 0, in_eof = in_fd < 0;
	pid_t pid;
	char *buf = amap(65536), *wb = NULL;
	size_t wn = 0, woff = 0;
	off_t logoff = 0;
	int replay = logfd >= 0;

	if (!buf)
		return -ENOMEM;
	if (pipe2(to, O_CLOEXEC) < 0) {
		munmap(buf, 65536);
		return -errno;
	}
	if (pipe2(from, O_CLOEXEC) < 0) {
		close(to[0]);
		close(to[1]);
		munmap(buf, 65536);
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(to[0]); close(to[1]); close(from[0]); close(from[1]);
		munmap(buf, 65536);
		return r;
	}
	if (pid == 0) {
		extern char **environ;
		char *argv[8];
		int k = 0;

		dup2(to[0], 0);
		dup2(from[1], 1);
		argv[k++] = (char *)"addr2line";
		argv[k++] = (char *)"-e";
		argv[k++] = t->path;
		if (with_addresses)
			argv[k++] = (char *)"-a";
		argv[k++] = (char *)"-i";
		argv[k++] = (char *)"-f";
		argv[k] = NULL;
		execve(t->exe[0] ? t->exe : "/usr/bin/addr2line", argv, environ);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	fcntl(to[1], F_SETFL, O_NONBLOCK);
	for (;;) {
		struct pollfd pf[3];
		int np = 0, ito = -1, ifr, iin = -1;

		/* what to write next */
		if (woff == wn) {
			woff = wn = 0;
			wb = buf + 32768;
			if (replay) {
				ssize_t k = pread(logfd, wb, 32768, logoff);

				if (k > 0) {
					logoff += k;
					wn = (size_t)k;
				} else {
					replay = 0;
				}
			}
			if (!wn && !replay && npend) {
				wb = (char *)pending;
				wn = npend;
				npend = 0;
			}
		}
		if (wn > woff) {
			pf[np] = (struct pollfd){ to[1], POLLOUT, 0 };
			ito = np++;
		} else if (!replay && !npend && in_eof && to[1] >= 0) {
			close(to[1]);
			to[1] = -1;
		}
		pf[np] = (struct pollfd){ from[0], POLLIN, 0 };
		ifr = np++;
		if (wn == woff && !replay && !npend && !in_eof) {
			pf[np] = (struct pollfd){ in_fd, POLLIN, 0 };
			iin = np++;
		}
		if (poll(pf, (nfds_t)np, -1) < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (ito >= 0 && (pf[ito].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t k = write(to[1], wb + woff, wn - woff);

			if (k > 0)
				woff += (size_t)k;
			else if (k < 0 && errno != EAGAIN && errno != EINTR) {
				woff = wn;      /* addr2line is gone: drain it */
				replay = 0;
				npend = 0;
				in_eof = 1;
			}
		}
		if (iin >= 0 && (pf[iin].revents & (POLLIN | POLLHUP | POLLERR))) {
			ssize_t k = read(in_fd, buf, 32768);

			if (k > 0) {
				wb = buf;
				wn = (size_t)k;
				woff = 0;
			} else if (k == 0 || (errno != EINTR && errno != EAGAIN)) {
				in_eof = 1;
			}
		}
		if (pf[ifr].revents & (POLLIN | POLLHUP | POLLERR)) {
			char ob[16384];
			ssize_t k = read(from[0], ob, sizeof(ob));

			if (k > 0) {
				size_t skip = sent > (uint64_t)k ? (size_t)k : (size_t)sent;

				sent -= skip;
				if ((size_t)k > skip && (r = write_all(out_fd, ob + skip, (size_t)k - skip)) < 0)
					break;
			} else if (k == 0 || (errno != EINTR && errno != EAGAIN)) {
				break;          /* addr2line exited */
			}
		}
	}
	if (to[1] >= 0)
		close(to[1]);
	close(from[0]);
	waitpid(pid, NULL, 0);
	munmap(buf, 65536);
	return r;
}

int a2l_serve(int in_fd, int out_fd, struct a2l_table *t, int with_addresses)
{
	enum { IN = 4096 };     /* perf writes one query and waits: small, few pages dirtied in the forked child */
	size_t need = a2l_answer_max(t), ocap = IN + need, have = 0, on = 0;
	char *in = amap(IN), *out = amap(ocap);
	int eof = 0, r = 0, logfd = -1;
	uint64_t sent = 0;

	if (!in || !out) {
		if (in)
			munmap(in, IN);
		if (out)
			munmap(out, ocap);
		return -ENOMEM;
	}
	if ((t->dh || t->no_heap) && (logfd = memfd_create("symlazy-a2l-log", MFD_CLOEXEC)) < 0) {
		r = -errno;
		munmap(in, IN);
		munmap(out, ocap);
		return r;
	}
	while (!eof) {
		ssize_t n = read(in_fd, in + have, IN - have);
		size_t pos = 0;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (n == 0)
			eof = 1;
		have += (size_t)n;
		/* fgets(buf, 100): through a '\n', at most 99 bytes, the rest at EOF */
		while (pos < have) {
			size_t avail = have - pos, lim = avail < A2L_LINE - 1 ? avail : A2L_LINE - 1, len, k;
			const char *nl = memchr(in + pos, '\n', lim);

			if (nl)
				len = (size_t)(nl - (in + pos)) + 1;
			else if (avail >= A2L_LINE - 1 || eof)
				len = lim;
			else
				break;
			if (ocap - on < need) {
				if ((r = write_all(out_fd, out, on)) < 0)
					goto done;
				sent += on;
				on = 0;
			}
			k = a2l_answer(t, in + pos, len, with_addresses, out + on, ocap - on);
			if (t->need_real) {
				if (t->live_handed)
					atomic_store(t->live_handed, 1);
				/* the answers so far out, the pieces so far logged, then binutils */
				if ((r = write_all(out_fd, out, on)) < 0 || (r = write_all(logfd, in, pos)) < 0)
					goto done;
				sent += on;
				r = hand_over(t, with_addresses, logfd, in + pos, have - pos, eof ? -1 : in_fd, out_fd,
					      sent);
				goto done;
			}
			on += k;
			pos += len;
			t->answered++;
			if (t->live_answered)
				atomic_store(t->live_answered, t->answered);
		}
		if (logfd >= 0 && pos && (r = write_all(logfd, in, pos)) < 0)
			break;
		memmove(in, in + pos, have - pos);
		have -= pos;
		if (on && (r = write_all(out_fd, out, on)) < 0)
			break;
		sent += on;
		on = 0;
	}
done:
	if (logfd >= 0)
		close(logfd);
	munmap(in, IN);
	munmap(out, ocap);
	return r;
}
