/* SPDX-License-Identifier: MIT */
/*
 * dbgsec.c - the decompressed copy of a file with compressed debug sections
 * (dbgsec.h). Format facts: glibc elf.h (Elf64_Ehdr, Elf64_Shdr, Elf64_Chdr,
 * ELFCOMPRESS_*), the gABI "Section Compression" (the Chdr sits at the start
 * of the section, the compressed stream follows); what libelf makes of an
 * inflated section: elfutils libelf/elf_compress.c elf_compress (type 0).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "index/abbrevord.h"
#include "index/cache.h"
#include "index/format.h"
#include "index/dbgsec.h"
#include "util/elfimg.h"
#include "util/util.h"
#include "util/zlib_dl.h"
#include "util/zstd_dl.h"

#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2      /* gABI; glibc elf.h since 2.37 */
#endif

#define DBGSEC_VERSION 3u      /* 2: a checksum trailer after the ELF bytes;
				 * 3: SL_DBGSEC_ABBREV in the key */
#define BUF_IN (256u << 10)
#define BUF_OUT (256u << 10)
/* larger section alignments are left alone: a ch_addralign or sh_addralign
 * of 2^40 would otherwise plan (and write) a terabyte of zero padding, or
 * wrap the offsets past 2^64 */
#define MAX_ALIGN (1ull << 16)

static int pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	char *c = buf;

	while (n) {
		ssize_t r = pread(fd, c, n, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EINVAL;     /* short file */
		c += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

void sl_dbgsec_plan_free(struct sl_dbgsec_plan *p)
{
	free(p->old_sh);
	free(p->new_sh);
	free(p->order);
	memset(p, 0, sizeof(*p));
}

static int has_bytes(const Elf64_Shdr *s)
{
	return s->sh_type != SHT_NOBITS && s->sh_type != SHT_NULL;
}

static int cmp_off(const void *a, const void *b, void *ctx)
{
	const Elf64_Shdr *sh = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (sh[x].sh_offset != sh[y].sh_offset)
		return sh[x].sh_offset < sh[y].sh_offset ? -1 : 1;
	return x < y ? -1 : x > y;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/* the headers of @fd (util/elfimg.h, mapped into @img) copied into @p. The
 * copy writes e_shnum section headers back at a new e_shoff, so a file
 * with the gABI escapes (e_shnum 0 with the count in section 0, e_shnum
 * SHN_LORESERVE or more, e_shstrndx SHN_XINDEX) or no table is left alone */
static int read_headers(int fd, struct sl_elfimg *img, struct sl_dbgsec_plan *p)
{
	struct stat st;
	size_t n;
	int r;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr))
		return -EINVAL;
	p->file_size = (uint64_t)st.st_size;
	if ((r = sl_elfimg_open(img, fd, (size_t)st.st_size)) < 0)
		return r == -ENOTSUP ? -EINVAL : r;
	if (img->eh.e_shnum == 0 || img->eh.e_shnum >= SHN_LORESERVE || img->eh.e_shstrndx == SHN_XINDEX ||
	    img->shnum != img->eh.e_shnum)
		return -EINVAL;
	p->eh = img->eh;
	n = img->shnum;
	p->old_sh = malloc(n * sizeof(Elf64_Shdr));
	p->new_sh = malloc(n * sizeof(Elf64_Shdr));
	p->order = malloc(n * sizeof(uint32_t));
	if (!p->old_sh || !p->new_sh || !p->order)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		sl_elfimg_shdr(img, i, &p->old_sh[i]);  /* i < shnum: inside the file */
	return 0;
}

/* the program headers end before @cut (they stay where they are) */
static int phdrs_before(const struct sl_elfimg *img, uint64_t cut)
{
	const Elf64_Ehdr *eh = &img->eh;
	Elf64_Phdr ph;

	if (eh->e_phnum == 0)
		return 0;
	if (eh->e_phnum == PN_XNUM || sl_elfimg_phdrs(img) < 0 ||
	    eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > cut)
		return -EINVAL;
	for (unsigned i = 0; sl_elfimg_phdr(img, i, &ph) == 0; i++)
		if (ph.p_filesz && (ph.p_offset > cut || cut - ph.p_offset < ph.p_filesz))
			return -EINVAL;
	return 0;
}

int sl_dbgsec_plan(int fd, struct sl_dbgsec_plan *p)
{
	struct sl_elfimg img;
	uint64_t cut = UINT64_MAX, cur;
	unsigned n, i;
	int r;

	memset(p, 0, sizeof(*p));
	memset(&img, 0, sizeof(img));
	if ((r = read_headers(fd, &img, p)) < 0)
		goto fail;
	n = p->eh.e_shnum;
	for (i = 1; i < n; i++) {
		const Elf64_Shdr *s = &p->old_sh[i];

		if (!(s->sh_flags & SHF_COMPRESSED))
			continue;
		if ((s->sh_flags & SHF_ALLOC) || !has_bytes(s) || s->sh_size < sizeof(Elf64_Chdr) ||
		    s->sh_offset > p->file_size || p->file_size - s->sh_offset < s->sh_size) {
			r = -EINVAL;
			goto fail;
		}
		if (s->sh_offset < cut)
			cut = s->sh_offset;
	}
	if (cut == UINT64_MAX) {
		r = -ENOENT;
		goto fail;
	}
	r = -EINVAL;
	if (cut < sizeof(Elf64_Ehdr) || phdrs_before(&img, cut) < 0)
		goto fail;
	memcpy(p->new_sh, p->old_sh, n * sizeof(Elf64_Shdr));
	for (i = 1; i < n; i++) {
		const Elf64_Shdr *s = &p->old_sh[i];

		if (!has_bytes(s))
			continue;
		if (s->sh_offset > p->file_size || p->file_size - s->sh_offset < s->sh_size)
			goto fail;          /* libelf would not map it either: leave alone */
		if (s->sh_offset < cut) {
			if (cut - s->sh_offset < s->sh_size)
				goto fail;  /* straddles X */
			continue;
		}
		if (s->sh_flags & SHF_ALLOC)
			goto fail;          /* loaded bytes keep their offsets */
		p->order[p->nmoved++] = i;
	}
	qsort_r(p->order, p->nmoved, sizeof(uint32_t), cmp_off, p->old_sh);
	cur = cut;
	for (i = 0; i < p->nmoved; i++) {
		const Elf64_Shdr *s = &p->old_sh[p->order[i]];
		Elf64_Shdr *d = &p->new_sh[p->order[i]];
		uint64_t size = s->sh_size, align = s->sh_addralign;

		if (s->sh_flags & SHF_COMPRESSED) {
			Elf64_Chdr ch;

			if ((r = pread_all(fd, &ch, sizeof(ch), s->sh_offset)) < 0)
				goto fail;
			r = -EINVAL;
			if ((ch.ch_type != ELFCOMPRESS_ZLIB && ch.ch_type != ELFCOMPRESS_ZSTD) ||
			    ch.ch_size > (1ull << 40) || (ch.ch_addralign & (ch.ch_addralign - 1)) ||
			    ch.ch_addralign > MAX_ALIGN)
				goto fail;
			size = ch.ch_size;
			align = ch.ch_addralign;
			d->sh_flags &= ~(uint64_t)SHF_COMPRESSED;
			d->sh_size = size;
			d->sh_addralign = align;
			p->info.sections++;
			p->info.bytes += size;
		} else if ((align & (align - 1)) || align > MAX_ALIGN) {
			r = -EINVAL;
			goto fail;
		}
		cur = align_up(cur, align);
		d->sh_offset = cur;
		cur += size;
	}
	p->cut = cut;
	p->eh.e_shoff = align_up(cur, 8);
	p->size = p->eh.e_shoff + (uint64_t)n * sizeof(Elf64_Shdr);
	sl_elfimg_close(&img);
	return 0;
fail:
	sl_elfimg_close(&img);
	sl_dbgsec_plan_free(p);
	return r;
}

static int zeros(int out, uint64_t n)
{
	static const char zero[4096];

	while (n) {
		size_t k = n < sizeof(zero) ? (size_t)n : sizeof(zero);

		if (sl_cache_write_all(out, zero, k) < 0)
			return -errno;
		n -= k;
	}
	return 0;
}

static int copy_range(int in, int out, uint64_t off, uint64_t n, char *buf)
{
	int r;

	while (n) {
		size_t k = n < BUF_IN ? (size_t)n : BUF_IN;

		if ((r = pread_all(in, buf, k, off)) < 0)
			return r;
		if (sl_cache_write_all(out, buf, k) < 0)
			return -errno;
		off += k;
		n -= k;
	}
	return 0;
}

/* inflate the stream of section @s (past its Chdr) into @out: exactly @want bytes */
static int inflate_section(int in, int out, const Elf64_Shdr *s, uint32_t type, uint64_t want,
			   char *ibuf, char *obuf)
{
	uint64_t off = s->sh_offset + sizeof(Elf64_Chdr), left = s->sh_size - sizeof(Elf64_Chdr);
	uint64_t got = 0;
	const struct zlib_dl *zl = NULL;
	const struct zstd_dl *zs = NULL;
	z_stream z;
	ZSTD_DStream *ds = NULL;
	int r = 0, done = 0;

	if (type == ELFCOMPRESS_ZLIB) {
		if (!(zl = zlib_dl_load()))
			return -ENOSYS;
		memset(&z, 0, sizeof(z));
		if (zl->inflateInit_(&z, ZLIB_VERSION, (int)sizeof(z)) != Z_OK)
			return -ENOMEM;
	} else {
		int zr = zstd_dl_dstream(&zs, &ds);

		if (zr < 0)
			return zr;
	}
	while (!done && r == 0) {
		size_t k = left < BUF_IN ? (size_t)left : BUF_IN, ipos = 0, produced;

		if (k && (r = pread_all(in, ibuf, k, off)) < 0)
			break;
		off += k;
		left -= k;
		/* feed this chunk until it is used up and the output is drained */
		do {
			if (zl) {
				int zr;

				z.next_in = (Bytef *)ibuf + ipos;
				z.avail_in = (uInt)(k - ipos);
				z.next_out = (Bytef *)obuf;
				z.avail_out = BUF_OUT;
				zr = zl->inflate(&z, Z_NO_FLUSH);
				ipos = k - z.avail_in;
				produced = BUF_OUT - z.avail_out;
				if (zr == Z_STREAM_END)
					done = 1;
				else if (zr != Z_OK && zr != Z_BUF_ERROR)
					r = -EBADMSG;
			} else {
				ZSTD_inBuffer ib = { ibuf, k, ipos };
				ZSTD_outBuffer ob = { obuf, BUF_OUT, 0 };
				size_t zr = zs->decompressStream(ds, &ob, &ib);

				ipos = ib.pos;
				produced = ob.pos;
				if (zs->isError(zr))
					r = -EBADMSG;
				else if (zr == 0)
					done = 1;
			}
			if (r == 0 && produced) {
				if (produced > want - got)
					r = -EBADMSG;  /* more than ch_size */
				else if (sl_cache_write_all(out, obuf, produced) < 0)
					r = -errno;
				got += produced;
			}
		} while (r == 0 && !done && (ipos < k || produced == BUF_OUT));
		if (r == 0 && !done && !left)
			r = -EBADMSG;                  /* the stream does not end */
	}
	if (zl)
		zl->inflateEnd(&z);
	if (ds)
		zs->freeDStream(ds);
	if (r == 0 && got != want)
		r = -EBADMSG;
	return r;
}

static int write_copy(int in, int out, const struct sl_dbgsec_plan *p)
{
	char *ibuf = malloc(BUF_IN), *obuf = malloc(BUF_OUT);
	uint64_t cur;
	int r;

	if (!ibuf || !obuf) {
		r = -ENOMEM;
		goto out;
	}
	if ((r = copy_range(in, out, 0, p->cut, ibuf)) < 0)
		goto out;
	cur = p->cut;
	for (uint32_t i = 0; i < p->nmoved; i++) {
		const Elf64_Shdr *s = &p->old_sh[p->order[i]], *d = &p->new_sh[p->order[i]];

		if ((r = zeros(out, d->sh_offset - cur)) < 0)
			goto out;
		if (s->sh_flags & SHF_COMPRESSED) {
			Elf64_Chdr ch;

			if ((r = pread_all(in, &ch, sizeof(ch), s->sh_offset)) < 0 ||
			    (r = inflate_section(in, out, s, ch.ch_type, d->sh_size, ibuf, obuf)) < 0)
				goto out;
		} else if ((r = copy_range(in, out, s->sh_offset, s->sh_size, ibuf)) < 0) {
			goto out;
		}
		cur = d->sh_offset + d->sh_size;
	}
	if ((r = zeros(out, p->eh.e_shoff - cur)) < 0)
		goto out;
	if (sl_cache_write_all(out, p->new_sh, (size_t)p->eh.e_shnum * sizeof(Elf64_Shdr)) < 0 ||
	    pwrite(out, &p->eh, sizeof(p->eh), 0) != (ssize_t)sizeof(p->eh))
		r = errno ? -errno : -EIO;
out:
	free(ibuf);
	free(obuf);
	return r;
}

/* the copy's section named @name with bytes inside [0, size): its index or 0 */
static unsigned find_sec(const unsigned char *m, const struct sl_dbgsec_plan *p, const char *name)
{
	const Elf64_Shdr *sh = p->new_sh, *str;
	size_t nl = strlen(name) + 1;

	if (p->eh.e_shstrndx == SHN_UNDEF || p->eh.e_shstrndx >= p->eh.e_shnum)
		return 0;
	str = &sh[p->eh.e_shstrndx];
	if (!has_bytes(str) || str->sh_offset > p->size || p->size - str->sh_offset < str->sh_size)
		return 0;
	for (unsigned i = 1; i < p->eh.e_shnum; i++) {
		if (sh[i].sh_type != SHT_PROGBITS || (sh[i].sh_flags & SHF_COMPRESSED) ||
		    sh[i].sh_offset > p->size || p->size - sh[i].sh_offset < sh[i].sh_size ||
		    sh[i].sh_name >= str->sh_size || str->sh_size - sh[i].sh_name < nl)
			continue;
		if (!memcmp(m + str->sh_offset + sh[i].sh_name, name, nl))
			return i;
	}
	return 0;
}

/* SL_DBGSEC_ABBREV: each unit DIE's abbreviation first in its table
 * (index/abbrevord.h), in the written copy @cfd; not for ET_REL files (their
 * unit headers' abbrev offsets are relocated by libdwfl) */
static int abbrev_pass(int cfd, struct sl_dbgsec_plan *p)
{
	struct sl_abbrev_stats st = { 0 };
	unsigned char *m;
	unsigned a, i, t;
	int r;

	if (p->eh.e_type == ET_REL || !p->size)
		return 0;
	m = mmap(NULL, (size_t)p->size, PROT_READ | PROT_WRITE, MAP_SHARED, cfd, 0);
	if (m == MAP_FAILED)
		return -errno;
	a = find_sec(m, p, ".debug_abbrev");
	i = find_sec(m, p, ".debug_info");
	t = find_sec(m, p, ".debug_types");
	r = 0;
	if (a && (i || t))
		r = sl_abbrev_front(m + p->new_sh[a].sh_offset, (size_t)p->new_sh[a].sh_size,
				    i ? m + p->new_sh[i].sh_offset : NULL, i ? (size_t)p->new_sh[i].sh_size : 0,
				    t ? m + p->new_sh[t].sh_offset : NULL, t ? (size_t)p->new_sh[t].sh_size : 0,
				    &st);
	munmap(m, (size_t)p->size);
	p->info.abbrev_moved = st.moved;
	return r;
}

/* an existing copy matches the plan: ours, regular, sized, same headers */
/* The copy ends with a 16-byte trailer after the ELF bytes (libelf reads
 * only what the headers point at): DBGSEC_SUM_MAGIC and symindex_checksum()
 * of bytes [0, p->size), so a copy damaged in the cache is rebuilt rather
 * than shown to libdw. */
#define DBGSEC_SUM_MAGIC "SLDBGSUM"

static int copy_checksum(int cfd, uint64_t size, uint64_t *sum)
{
	void *m;

	if (!size)
		return -EINVAL;
	m = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, cfd, 0);
	if (m == MAP_FAILED)
		return -errno;
	*sum = symindex_checksum(m, (size_t)size);
	munmap(m, (size_t)size);
	return 0;
}

static int copy_seal(int cfd, uint64_t size)
{
	unsigned char t[SL_DBGSEC_TRAILER];
	uint64_t sum;
	int r = copy_checksum(cfd, size, &sum);

	if (r < 0)
		return r;
	memcpy(t, DBGSEC_SUM_MAGIC, 8);
	memcpy(t + 8, &sum, 8);
	return pwrite(cfd, t, sizeof(t), (off_t)size) == (ssize_t)sizeof(t) ? 0 : -EIO;
}

static int copy_matches(int cfd, const struct sl_dbgsec_plan *p)
{
	size_t n = (size_t)p->eh.e_shnum * sizeof(Elf64_Shdr);
	Elf64_Ehdr eh;
	struct stat st;
	void *sh;
	int ok;

	unsigned char t[SL_DBGSEC_TRAILER];
	uint64_t sum;

	if (fstat(cfd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (uint64_t)st.st_size != p->size + sizeof(t))
		return 0;
	if (pread_all(cfd, t, sizeof(t), p->size) < 0 || memcmp(t, DBGSEC_SUM_MAGIC, 8) ||
	    copy_checksum(cfd, p->size, &sum) < 0 || memcmp(t + 8, &sum, 8))
		return 0;
	if (pread_all(cfd, &eh, sizeof(eh), 0) < 0 || memcmp(&eh, &p->eh, sizeof(eh)))
		return 0;
	if (!(sh = malloc(n)))
		return 0;
	ok = pread_all(cfd, sh, n, p->eh.e_shoff) == 0 && !memcmp(sh, p->new_sh, n);
	free(sh);
	return ok;
}

static uint64_t identity_key(int fd, unsigned flags)
{
	struct stat st;
	uint64_t h = SL_FNV_OFFSET, v[8];
	uint32_t ver = DBGSEC_VERSION;

	if (fstat(fd, &st) < 0)
		return 0;
	v[0] = st.st_dev;
	v[1] = st.st_ino;
	v[2] = (uint64_t)st.st_size;
	v[3] = (uint64_t)st.st_mtim.tv_sec;
	v[4] = (uint64_t)st.st_mtim.tv_nsec;
	v[5] = (uint64_t)st.st_ctim.tv_sec;
	v[6] = (uint64_t)st.st_ctim.tv_nsec;
	v[7] = 0x64626773ull ^ ((uint64_t)flags << 32);     /* "dbgs", the rewrites */
	h = sl_fnv1a(h, &ver, sizeof(ver));
	return sl_fnv1a(h, v, sizeof(v));
}

int sl_dbgsec_open(int fd, int dirfd, unsigned flags, struct sl_dbgsec_info *info)
{
	static _Atomic unsigned long seq;
	struct sl_dbgsec_plan p;
	char name[64], tmp[96];
	int cfd, r;

	if (dirfd < 0)
		return -ENOENT;
	if ((r = sl_dbgsec_plan(fd, &p)) < 0)
		return r;
	snprintf(name, sizeof(name), "dwarf-%016llx.dbg", (unsigned long long)identity_key(fd, flags));
	cfd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (cfd >= 0) {
		if (copy_matches(cfd, &p)) {
			*info = p.info;
			info->built = 0;
			sl_dbgsec_plan_free(&p);
			return cfd;
		}
		close(cfd);
	}
	/* ".dbg" so sl_cache_clean() also removes what a killed run left */
	snprintf(tmp, sizeof(tmp), ".tmp-%d-%lu.dbg", (int)getpid(), atomic_fetch_add(&seq, 1));
	cfd = openat(dirfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (cfd < 0) {
		r = -errno;
		sl_dbgsec_plan_free(&p);
		return r;
	}
	r = write_copy(fd, cfd, &p);
	if (r == 0 && (flags & SL_DBGSEC_ABBREV))
		r = abbrev_pass(cfd, &p);
	if (r == 0)
		r = copy_seal(cfd, p.size);
	if (r == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
		r = -errno;
	if (r < 0) {
		unlinkat(dirfd, tmp, 0);
		close(cfd);
		sl_dbgsec_plan_free(&p);
		return r;
	}
	*info = p.info;
	info->built = 1;
	sl_dbgsec_plan_free(&p);
	/* the caller reads: hand it a read-only descriptor of the final name */
	r = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(cfd);
	return r < 0 ? -errno : r;
}
