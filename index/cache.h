/* SPDX-License-Identifier: MIT */
/*
 * cache.h - the index cache: directory policy, key, file names, validation
 * and how new index files are written. One index file per
 * (DSO contents, layout): "<build-id-hex>-<key>.idx", or
 * "nobuildid-<key>.idx" where the key then carries the file identity.
 * Files may be deleted at any time; a corrupt, truncated, foreign or
 * other-user file is ignored and rebuilt, never trusted.
 */
#ifndef SYMLAZY_CACHE_H
#define SYMLAZY_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include "util/reason.h"

struct symidx_src;

/*
 * sl_cache_dir_default - the default cache directory into @buf (@n bytes):
 * $XDG_CACHE_HOME/symlazy, else $HOME/.cache/symlazy, from @getenv_fn.
 * Returns 0, or -ENOENT when neither variable is set (no cache).
 */
int sl_cache_dir_default(char *buf, size_t n, const char *(*getenv_fn)(const char *));

/*
 * sl_cache_dir_open - open (creating it 0700, and its parent, if missing)
 * the cache directory @dir. It must be a real directory (no symlink at the
 * last component), owned by the effective uid, not group/world-writable,
 * and writable. Returns an O_DIRECTORY fd, or -errno with @why set:
 * SL_R_CACHE_NOT_PRIVATE (owner/mode), SL_R_CACHE_UNUSABLE (mkdir/open/access).
 */
int sl_cache_dir_open(const char *dir, struct sl_why *why);

/*
 * sl_cache_file_map - map the cache file @name of @dirfd read-only (shared):
 * a regular file (no symlink at @name, O_NONBLOCK against FIFOs), owned by
 * the effective uid, of at least @min bytes. 0 with *@mapp / *@sizep set
 * (munmap them), or -errno (-EINVAL: not such a file). Validation of the
 * contents is the caller's.
 */
int sl_cache_file_map(int dirfd, const char *name, size_t min, void **mapp, size_t *sizep);

/* sl_cache_key - the key of the index for @src: FNV-1a over the format
 * version, build-id, file identity (when there is no build-id it is the only
 * identity), the runtime layout and the table sizes. */
uint64_t sl_cache_key(const struct symidx_src *src);

/* sl_cache_name - "<build-id-hex|nobuildid>-<key %016x>.idx" into @buf. */
void sl_cache_name(const struct symidx_src *src, uint64_t key, char *buf, size_t n);

/*
 * sl_cache_validate - 0 if the mapped file (@map, @size bytes) is a usable
 * index for @src with @key; else -EINVAL. Beyond magic, version, key, size
 * and checksum, every field later used as an index or bound is checked:
 * table sizes equal @src's, entries name a table and an index inside it,
 * groups are sorted by start, cover their entries exactly and link forward.
 */
int sl_cache_validate(const void *map, size_t size, uint64_t key, const struct symidx_src *src);

/*
 * sl_cache_map - map the cache file for (@src, @key) read-only after
 * validating it. Returns 0 with *@map / *@size, -ENOENT (no cache dir or no
 * file), -EINVAL (not ours or corrupt: caller rebuilds), other -errno.
 */
int sl_cache_map(const struct symidx_src *src, uint64_t key, void **map, size_t *size);

/*
 * New cache files are written with write() into a temp file in the cache
 * dir and renamed into place (atomic for concurrent readers), not built
 * through a shared mapping of a preallocated (posix_fallocate) file: the
 * index is built in a memfd and written in one go, the tree is streamed
 * through a small buffer instead of being mapped whole (a cold run on a
 * node profile: 4.6 MiB less peak RSS, same wall time), and a full disk is
 * a failed write(), not a SIGBUS.
 *
 * sl_cache_scratch - a memfd of @size bytes (page cache, not the tool's
 * anonymous memory) to build an index in. Returns the fd or -errno.
 */
int sl_cache_scratch(size_t size);

/*
 * sl_cache_backing - the file a self-contained cache table (the name index
 * "*.names" of index/names.h, the addr2line table "*.a2l" of srcline/a2l.h)
 * is built in through a shared mapping: a new ".tmp-<pid>-<n><suffix>" in
 * @dirfd with @size bytes reserved by posix_fallocate (a full disk fails
 * here, not as SIGBUS later), its name into @tmp (@n bytes: rename or unlink
 * it when done), or, without a directory (@dirfd -1) or when that fails, a
 * memfd called @memfd_name of @size bytes (@tmp = ""). Returns the fd, or
 * -errno from memfd_create/ftruncate.
 */
int sl_cache_backing(int dirfd, size_t size, const char *suffix, const char *memfd_name, char *tmp, size_t n);

/* sl_cache_backing_drop - an unfinished sl_cache_backing file given up: its
 * temporary name @tmp (if any) unlinked from @dirfd, @fd closed (if >= 0). */
void sl_cache_backing_drop(int dirfd, int fd, const char *tmp);

/* sl_cache_tmp_open - a new ".tmp-<pid>-<n>.idx" in the cache dir opened
 * read-write (@tmpname gets its name), or -1 (@tmpname = "") without a
 * cache dir or on failure. */
int sl_cache_tmp_open(const struct symidx_src *src, char *tmpname, size_t n);

/* sl_cache_write_all - write @n bytes at @p to @fd (EINTR retried);
 * 0, or -1 with errno set. */
int sl_cache_write_all(int fd, const void *p, size_t n);

/* sl_cache_tmp_commit - rename the temp file @tmpname to @name if @ok,
 * else (or if the rename fails) remove it. 0 if renamed; -1 for "". */
int sl_cache_tmp_commit(const struct symidx_src *src, const char *tmpname, const char *name, int ok);

/*
 * sl_cache_save - put the finished index (@n bytes at @p) into the cache
 * dir as the file of (@src, @key): a temp file written with write() and
 * renamed into place. Returns that file's fd (to map it: its pages are in
 * the page cache), or -1 (no cache dir, or the write failed: nothing left
 * behind, the caller keeps its copy).
 */
int sl_cache_save(const struct symidx_src *src, uint64_t key, const void *p, size_t n);

/*
 * sl_cache_list - call @fn(name, bytes, ctx) for each index file ("*.idx",
 * the name indexes "*.names" of index/names.h, the decompressed debug
 * copies "*.dbg" of index/dbgsec.h and the addr2line tables "*.a2l" of
 * srcline/a2l.h; not temp files) in the
 * directory @dirfd. Returns the count or -errno.
 * sl_cache_clean - remove every index, name index, cached tree ("*.tree",
 * perf's full tree beside its index, index/tree.c), perf version verdict
 * ("*.model", core/tool.c) and temp file there; returns the count removed
 * or -errno.
 */
int sl_cache_list(int dirfd, void (*fn)(const char *name, uint64_t bytes, void *ctx), void *ctx);
int sl_cache_clean(int dirfd);

#endif
