/* SPDX-License-Identifier: MIT */
/*
 * util.h - small utilities shared by every core module (prefix sl_).
 * Hashing (FNV-1a, 64-bit: http://www.isthe.com/chongo/tech/comp/fnv/),
 * u64 ordering, "last element <= x" binary search, sort+unique, and the one
 * stderr line writer. No allocation, no globals.
 */
#ifndef SYMLAZY_UTIL_H
#define SYMLAZY_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SL_FNV_OFFSET 0xcbf29ce484222325ull
#define SL_FNV_PRIME  0x100000001b3ull

/* sl_streq - @name is non-NULL and equals @want. */
static inline int sl_streq(const char *name, const char *want)
{
	return name && !strcmp(name, want);
}

/* sl_fnv1a - fold @n bytes at @p into hash @h (start with SL_FNV_OFFSET). */
static inline uint64_t sl_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * SL_FNV_PRIME;
	return h;
}

/* sl_fnv1a_u64 - fold one 64-bit word into @h (as one FNV step on the word). */
static inline uint64_t sl_fnv1a_u64(uint64_t h, uint64_t v)
{
	return (h ^ v) * SL_FNV_PRIME;
}

/* sl_mix64 - a 64-bit finaliser (splitmix64's), for open-addressing tables. */
static inline uint64_t sl_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

/* sl_utf8_put - the UTF-8 bytes of code point @cp (below 0x110000) into @o
 * (room for 4); returns how many (1-4). RFC 3629 section 3. */
size_t sl_utf8_put(char *o, uint32_t cp);

/*
 * SL_CMP(x, y) - -1, 0 or 1 as @x is below, equal to or above @y: one key of
 * a qsort(3) comparator, `if ((c = SL_CMP(a->k, b->k))) return c;`.
 */
#define SL_CMP(x, y) (((x) > (y)) - ((x) < (y)))

/*
 * SL_FILE_IDENT_SET(h, st) - a file's identity, as stat(2) gives it (st_dev,
 * st_ino, st_size, st_mtim, st_ctim), into the same-named fields of the cache
 * table header @h (index/names.h struct symnames_hdr, srcline/a2l.h and
 * srcline/a2l_dwarf.h headers): what the readers compare before they trust a
 * table built from a file without a build-id.
 */
#define SL_FILE_IDENT_SET(h, st) do {                                           \
	(h)->dev = (uint64_t)(st)->st_dev;                                      \
	(h)->ino = (uint64_t)(st)->st_ino;                                      \
	(h)->size = (uint64_t)(st)->st_size;                                    \
	(h)->mtime_sec = (st)->st_mtim.tv_sec;                                  \
	(h)->mtime_nsec = (st)->st_mtim.tv_nsec;                                \
	(h)->ctime_sec = (st)->st_ctim.tv_sec;                                  \
	(h)->ctime_nsec = (st)->st_ctim.tv_nsec;                                \
} while (0)

/*
 * SL_HEAPSORT(name, type, less) - defines static void name(type *e, size_t n),
 * an in-place heapsort (not stable) of @n elements by the strict order
 * less(const type *a, const type *b). A macro so that each index format
 * keeps its own element type and its comparison inlines; index/symindex.c
 * and index/dwflindex.c sort with it.
 */
#define SL_HEAPSORT(name, type, less)                                           \
	static void name##_sift(type *e, size_t root, size_t n)                 \
	{                                                                       \
		for (;;) {                                                      \
			size_t c = 2 * root + 1;                                \
			type t;                                                 \
			if (c >= n)                                             \
				return;                                         \
			if (c + 1 < n && less(&e[c], &e[c + 1]))                \
				c++;                                            \
			if (!less(&e[root], &e[c]))                             \
				return;                                         \
			t = e[root]; e[root] = e[c]; e[c] = t;                  \
			root = c;                                               \
		}                                                               \
	}                                                                       \
	static void name(type *e, size_t n)                                     \
	{                                                                       \
		size_t i;                                                       \
		if (n < 2)                                                      \
			return;                                                 \
		for (i = n / 2; i-- > 0;)                                       \
			name##_sift(e, i, n);                                   \
		for (i = n - 1; i > 0; i--) {                                   \
			type t = e[0];                                          \
			e[0] = e[i]; e[i] = t;                                  \
			name##_sift(e, 0, i);                                   \
		}                                                               \
	}

/*
 * sl_grow - make the array *@p (elements of @sz bytes, *@alloc allocated)
 * hold at least @need elements: the capacity starts at @first and doubles.
 * Returns 0 or -ENOMEM (array unchanged).
 */
int sl_grow(void **p, size_t *alloc, size_t need, size_t sz, size_t first);

/* sl_cmp_u64 - qsort comparator for uint64_t. */
int sl_cmp_u64(const void *a, const void *b);

/* sl_sort_unique_u64 - sort @v[0..n) ascending and drop repeats, in place.
 * Returns the new count. */
size_t sl_sort_unique_u64(uint64_t *v, size_t n);

/*
 * sl_last_le - index of the last element of the sorted array @base (@n
 * elements of @size bytes) whose key (@key_of(element)) is <= @x, or
 * (size_t)-1 if there is none. O(log n).
 */
size_t sl_last_le(const void *base, size_t n, size_t size, uint64_t x,
		  uint64_t (*key_of)(const void *elem));

/* sl_last_le_u64 - the same on a plain sorted uint64_t array. */
size_t sl_last_le_u64(const uint64_t *v, size_t n, uint64_t x);

/*
 * sl_warnx - write one line "<formatted>\n" to stderr with one write(2)
 * (no stdio buffering, so it never interleaves with the tool's own output
 * mid-line). Lines longer than 1 KiB are cut with "...". errno is preserved.
 */
void sl_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * sl_scratch_map - @bytes (0: 1) of zeroed read-write scratch in a memfd
 * mapping named @name: planning arrays of large tables then do not grow the
 * tool's heap and are gone when unmapped (munmap(p, bytes ? bytes : 1)).
 * Returns NULL on failure (errno from memfd_create/ftruncate/mmap).
 */
void *sl_scratch_map(size_t bytes, const char *name);

/*
 * sl_errf - format a one-line error into @err (@n bytes; nothing when @n is
 * 0) and return @r (a -errno). Only for the text-buffer errors of the public
 * lookup API (core/lookup.h); inside, reasons travel as struct sl_why
 * (util/reason.h sl_whyf).
 */
int sl_errf(char *err, size_t n, int r, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * sl_open_regular - open @path read-only (O_CLOEXEC, O_NONBLOCK: a FIFO
 * never blocks) and fstat it into *@st. Returns the fd, or -errno with the
 * reason in @why (util/reason.h; may be NULL): -errno of open(2) with
 * SL_R_OPEN_FAILED ("<path>: <strerror>"), -EINVAL with SL_R_NOT_REGULAR
 * (<path>) when it is not a regular file.
 */
struct stat;
struct sl_why;
int sl_open_regular(const char *path, struct stat *st, struct sl_why *why);

#endif
