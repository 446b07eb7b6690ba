/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
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
#include "index/symindex.h"
#include "util/util.h"

int sl_cache_dir_default(char *buf, size_t n, const char *(*getenv_fn)(const char *))
{
	const char *x = getenv_fn("XDG_CACHE_HOME"), *h = getenv_fn("HOME");
	int r;

	if (x && x[0])
		r = snprintf(buf, n, "%s/symlazy", x);
	else if (h && h[0])
		r = snprintf(buf, n, "%s/.cache/symlazy", h);
	else
		return -ENOENT;
	return r < 0 || (size_t)r >= n ? -ENAMETOOLONG : 0;
}

int sl_cache_dir_open(const char *dir, struct sl_why *why)
{
	char parent[PATH_MAX], *slash;
	struct stat st;
	int fd, e;

	if ((size_t)snprintf(parent, sizeof(parent), "%s", dir) >= sizeof(parent)) {
		sl_why_set(why, SL_R_CACHE_UNUSABLE, "%s", strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = '\0';
		(void)mkdir(parent, 0700);
	}
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		goto unusable;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		goto unusable;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(fd);
		sl_why_set(why, SL_R_CACHE_NOT_PRIVATE, "%s", dir);
		return -EPERM;
	}
	if (faccessat(fd, ".", W_OK, AT_EACCESS) < 0) {
		e = errno;
		close(fd);
		errno = e;
		goto unusable;
	}
	return fd;
unusable:
	e = errno;
	sl_why_set(why, SL_R_CACHE_UNUSABLE, "%s: %s", dir, strerror(e));
	return -e;
}

uint64_t sl_cache_key(const struct symidx_src *src)
{
	uint64_t h = SL_FNV_OFFSET, v = SYMIDX_VERSION, fk = sl_file_id_key(&src->file_id);

	h = sl_fnv1a(h, &v, sizeof(v));
	h = sl_fnv1a(h, src->build_id, src->build_id_len);
	h = sl_fnv1a(h, &fk, sizeof(fk));
	if (!src->build_id_len && src->file_id.valid) {
		/* no build-id: a file rewritten in place with its size and mtime
		 * kept (touch -r, clamped mtimes) is told apart by its ctime */
		h = sl_fnv1a_u64(h, (uint64_t)src->file_id.ctime_sec);
		h = sl_fnv1a_u64(h, (uint64_t)src->file_id.ctime_nsec);
	}
	h = sl_fnv1a(h, src->layout, sizeof(*src->layout));
	h = sl_fnv1a(h, &src->nsymtab, sizeof(src->nsymtab));
	h = sl_fnv1a(h, &src->ndynsym, sizeof(src->ndynsym));
	{
		/* the model's rules the index is built with (ends of last symbols);
		 * its keep rule and section filters are the same for every perf model */
		uint64_t page = sl_model_last_page(src->model);

		if (page != 4096)
			h = sl_fnv1a(h, &page, sizeof(page));
	}
	return h;
}

void sl_cache_name(const struct symidx_src *src, uint64_t key, char *buf, size_t n)
{
	char hex[2 * 20 + 1];

	build_id_hex(src->build_id, src->build_id_len > 20 ? 20 : src->build_id_len, hex);
	snprintf(buf, n, "%s-%016llx.idx", hex[0] ? hex : "nobuildid", (unsigned long long)key);
}

int sl_cache_validate(const void *map, size_t size, uint64_t key, const struct symidx_src *src)
{
	const struct symidx_hdr *h = map;
	const struct symidx_entry *e;
	const struct symidx_group *g;
	uint32_t nsym = src->symtab ? src->nsymtab : 0, ndyn = src->dynsym ? src->ndynsym : 0, i, k;
	uint64_t need, pmax = 0;

	if (size < sizeof(*h) || memcmp(h->magic, SYMIDX_MAGIC, 8) ||
	    h->version != SYMIDX_VERSION || h->hdr_size != sizeof(*h) || h->key != key)
		return -EINVAL;
	need = sizeof(*h) + (uint64_t)h->nentries * sizeof(struct symidx_entry) +
	       (uint64_t)h->ngroups * sizeof(struct symidx_group);
	if (need != size || h->ngroups > h->nentries || h->nsymtab != nsym || h->ndynsym != ndyn ||
	    h->unmodelable > 1 || (h->unmodelable && h->nentries) || h->abort_pass > SYMIDX_ABORT_DYNSYM ||
	    (h->unmodelable && h->abort_pass) ||
	    (h->abort_pass && h->abort_idx >= (h->abort_pass == SYMIDX_ABORT_SYMTAB ? nsym : ndyn)))
		return -EINVAL;
	if (symidx_file_checksum(h, (const char *)map + sizeof(*h), size - sizeof(*h)) != h->checksum)
		return -EINVAL;
	e = (const void *)(h + 1);
	g = (const void *)(e + h->nentries);
	for (i = 0, k = 0; i < h->ngroups; i++) {
		if (g[i].first != k || g[i].n == 0 || g[i].n > h->nentries - k ||
		    (i && g[i].start <= g[i - 1].start) || g[i].min_end > g[i].max_end || g[i].pmax != pmax ||
		    (g[i].next_sym != SYMIDX_NONE && (g[i].next_sym <= i || g[i].next_sym >= h->ngroups)) ||
		    (g[i].next_all != SYMIDX_NONE && (g[i].next_all <= i || g[i].next_all >= h->ngroups)))
			return -EINVAL;
		for (uint32_t j = k; j < k + g[i].n; j++)     /* groups cover every entry */
			if (e[j].start != g[i].start || e[j].table > 1 || e[j].idx >= (e[j].table ? ndyn : nsym) ||
			    /* an aborted pass: only what perf inserted before it, nothing after */
			    (h->abort_pass == SYMIDX_ABORT_SYMTAB && (e[j].table || e[j].idx >= h->abort_idx)) ||
			    (h->abort_pass == SYMIDX_ABORT_DYNSYM && e[j].table && e[j].idx >= h->abort_idx))
				return -EINVAL;
		k += g[i].n;
		pmax = g[i].max_end > pmax ? g[i].max_end : pmax;
	}
	return k == h->nentries ? 0 : -EINVAL;
}

int sl_cache_file_map(int dirfd, const char *name, size_t min, void **mapp, size_t *sizep)
{
	struct stat st;
	void *map;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)min || st.st_uid != geteuid()) {
		close(fd);
		return -EINVAL;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -errno;
	*mapp = map;
	*sizep = (size_t)st.st_size;
	return 0;
}

int sl_cache_map(const struct symidx_src *src, uint64_t key, void **mapp, size_t *sizep)
{
	char name[128];
	size_t size;
	void *map;
	int r;

	if (src->cache_dirfd < 0)
		return -ENOENT;
	sl_cache_name(src, key, name, sizeof(name));
	r = sl_cache_file_map(src->cache_dirfd, name, sizeof(struct symidx_hdr), &map, &size);
	if (r < 0)
		return r;
	if (sl_cache_validate(map, size, key, src) < 0) {
		munmap(map, size);
		return -EINVAL;
	}
	*mapp = map;
	*sizep = size;
	return 0;
}

int sl_cache_scratch(size_t size)
{
	int fd = memfd_create("symlazy-index", MFD_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)size) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

int sl_cache_backing(int dirfd, size_t size, const char *suffix, const char *memfd_name, char *tmp, size_t n)
{
	static _Atomic unsigned long seq;   /* never random(): see sl_cache_tmp_open */
	int fd = -1;

	tmp[0] = '\0';
	if (dirfd >= 0) {
		snprintf(tmp, n, ".tmp-%d-%lu%s", (int)getpid(), atomic_fetch_add(&seq, 1), suffix);
		fd = openat(dirfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 && posix_fallocate(fd, 0, (off_t)size) != 0) {
			close(fd);
			unlinkat(dirfd, tmp, 0);
			fd = -1;
		}
		if (fd < 0)
			tmp[0] = '\0';
	}
	if (fd < 0) {
		fd = memfd_create(memfd_name, MFD_CLOEXEC);
		if (fd >= 0 && ftruncate(fd, (off_t)size) < 0) {
			int e = errno;

			close(fd);
			errno = e;
			fd = -1;
		}
	}
	return fd < 0 ? -errno : fd;
}

int sl_cache_tmp_open(const struct symidx_src *src, char *tmpname, size_t n)
{
	/* a private counter, never random(): perf seeds libc's generator
	 * and draws the "Tip" perf report prints from it */
	static _Atomic unsigned long seq;
	int fd;

	tmpname[0] = '\0';
	if (src->cache_dirfd < 0)
		return -1;
	/* ".idx" so sl_cache_clean() also removes what a killed run left */
	snprintf(tmpname, n, ".tmp-%d-%lu.idx", (int)getpid(), atomic_fetch_add(&seq, 1));
	fd = openat(src->cache_dirfd, tmpname, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		tmpname[0] = '\0';
	return fd;
}

int sl_cache_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

int sl_cache_tmp_commit(const struct symidx_src *src, const char *tmpname, const char *name, int ok)
{
	if (!tmpname[0])
		return -1;
	if (ok && renameat(src->cache_dirfd, tmpname, src->cache_dirfd, name) == 0)
		return 0;
	unlinkat(src->cache_dirfd, tmpname, 0);
	return -1;
}

int sl_cache_save(const struct symidx_src *src, uint64_t key, const void *p, size_t n)
{
	char tmpname[96], name[128];
	int fd = sl_cache_tmp_open(src, tmpname, sizeof(tmpname));

	if (fd < 0)
		return -1;
	sl_cache_name(src, key, name, sizeof(name));
	if (sl_cache_tmp_commit(src, tmpname, name, sl_cache_write_all(fd, p, n) == 0) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int walk(int dirfd, int clean, void (*fn)(const char *, uint64_t, void *), void *ctx)
{
	int fd = dup(dirfd), count = 0;
	DIR *d;
	struct dirent *de;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	rewinddir(d);
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);
		struct stat st;

		int tree = len >= 6 && !strcmp(de->d_name + len - 5, ".tree");
		int model = len >= 7 && !strcmp(de->d_name + len - 6, ".model");
		int names = len >= 7 && !strcmp(de->d_name + len - 6, ".names");
		int dbg = len >= 5 && !strcmp(de->d_name + len - 4, ".dbg");
		int a2l = len >= 5 && !strcmp(de->d_name + len - 4, ".a2l");

		if ((len < 5 || strcmp(de->d_name + len - 4, ".idx")) && !names && !dbg && !a2l &&
		    !(clean && (tree || model)))
			continue;   /* cached trees (index/tree.c) and perf version verdicts
				     * (core/tool.c) are cleaned with the indexes */
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (clean) {
			if (unlinkat(dirfd, de->d_name, 0) == 0)
				count++;
		} else if (de->d_name[0] != '.') {
			if (fn)
				fn(de->d_name, (uint64_t)st.st_size, ctx);
			count++;
		}
	}
	closedir(d);
	return count;
}

int sl_cache_list(int dirfd, void (*fn)(const char *name, uint64_t bytes, void *ctx), void *ctx)
{
	return walk(dirfd, 0, fn, ctx);
}

int sl_cache_clean(int dirfd)
{
	return walk(dirfd, 1, NULL, NULL);
}

void sl_cache_backing_drop(int dirfd, int fd, const char *tmp)
{
	if (fd < 0)
		return;
	if (tmp[0])
		unlinkat(dirfd, tmp, 0);
	close(fd);
}
