/* SPDX-License-Identifier: MIT */
/*
 * perfdata/htab.h - the one open-addressing hash table of the perf.data reader
 * (perfdata/record.c sample IDs, perfdata/machine.c threads and DSOs,
 * perfdata/perfdata.c (tid, ip) pairs and HEADER_BUILD_ID names), and the
 * growable-array helper those files share.
 *
 * The table stores uint32_t indices into an array the caller owns; keys live
 * in that array. Linear probing, power-of-two capacity, load <= 1/2, no
 * deletion. Hashes are the caller's (sl_mix64 / sl_fnv1a from util.h).
 */
#ifndef SYMLAZY_PD_HTAB_H
#define SYMLAZY_PD_HTAB_H

#include <stddef.h>
#include <stdint.h>

#define PD_HTAB_EMPTY UINT32_MAX

struct pd_htab {
	uint32_t *slot;		/* cap entries, PD_HTAB_EMPTY = free */
	size_t cap;		/* power of two, 0 before pd_htab_init */
	size_t nr;		/* used slots */
};

/* hash of the element at index @idx of the caller's array */
typedef uint64_t (*pd_htab_hash_fn)(const void *ctx, uint32_t idx);
/* does the element at @idx have key @key? */
typedef int (*pd_htab_eq_fn)(const void *ctx, uint32_t idx, const void *key);

/* pd_htab_init - empty table of @cap slots (@cap a power of two >= 2).
 * Returns 0 or -ENOMEM. */
int pd_htab_init(struct pd_htab *t, size_t cap);

/* pd_htab_free - release the slots; the table is empty (cap 0) again. */
void pd_htab_free(struct pd_htab *t);

/* pd_htab_get - index stored for the key with hash @h, or PD_HTAB_EMPTY.
 * An uninitialised (cap 0) table holds nothing. */
uint32_t pd_htab_get(const struct pd_htab *t, uint64_t h, pd_htab_eq_fn eq,
		     const void *ctx, const void *key);

/*
 * pd_htab_add - store @idx (whose key is known to be absent) under hash @h.
 * Grows the table first when it would pass half full, rehashing every
 * stored index with @hf. Returns 0 or -ENOMEM (table unchanged).
 */
int pd_htab_add(struct pd_htab *t, uint64_t h, uint32_t idx, pd_htab_hash_fn hf,
		const void *ctx);

/*
 * pd_grow - make the array *@p (elements of @sz bytes, *@alloc allocated)
 * hold at least @need elements, doubling from 8. Returns 0 or -ENOMEM
 * (array unchanged).
 */
int pd_grow(void **p, size_t *alloc, size_t need, size_t sz);

#endif
