/* SPDX-License-Identifier: MIT */
/*
 * index/format.h - the on-disk layout of one index file (the cache entry
 * index/cache.c maps and index/symindex.c writes; fuzz/fuzz_cache.c uses the
 * same header). Host byte order; a file is only ever read on the host that
 * wrote it (the key includes the layout and the file identity).
 *
 *   struct symidx_hdr                     (hdr_size bytes)
 *   struct symidx_entry entries[nentries] (symindex.h)
 *   struct symidx_group groups[ngroups]   (symindex.h)
 *
 * checksum = symindex_checksum() of everything after the header, mixed
 * with the header fields no structural check can verify (unmodelable,
 * abort_pass, abort_idx): symidx_file_checksum() below.
 */
#ifndef SYMLAZY_INDEX_FORMAT_H
#define SYMLAZY_INDEX_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define SYMIDX_MAGIC   "SYMLZIX\0"
#define SYMIDX_VERSION 6u           /* 3: key from index/cache.c sl_cache_key; 4 (branch
                                     * wall): entries carry the binding; 5: and the type;
                                     * 6: an aborted pass is recorded (abort_pass) */

struct symidx_hdr {
	char magic[8];
	uint32_t version, hdr_size;
	uint64_t key;               /* sl_cache_key(): build-id, file identity, layout, sizes */
	uint64_t checksum;          /* of everything after the header */
	uint32_t nentries, ngroups, nsymtab, ndynsym;
	uint32_t unmodelable;
	uint32_t abort_pass;        /* SYMIDX_ABORT_*: the pass perf 6.1/6.12 abort */
	uint32_t abort_idx, pad;    /* the symbol of that table the pass stops at */
	char why[96];
	unsigned char build_id[20];
	uint32_t build_id_len;
};

uint64_t symindex_checksum(const void *p, size_t n);

/* The same checksum computed piecewise (a file checksummed as it is
 * written): init, update with the payload in any cut, final. */
struct symidx_cks {
	uint64_t h[4];
	unsigned char tail[32];     /* bytes of an unfinished 32-byte block */
	size_t nt;
};

void symidx_cks_init(struct symidx_cks *c);
void symidx_cks_update(struct symidx_cks *c, const void *p, size_t n);
uint64_t symidx_cks_final(const struct symidx_cks *c);

/* The stored checksum of an index file: the payload's, with the header
 * fields that change perf's answers and no bound can check (a flipped
 * abort_pass would replay another load) folded in. */
static inline uint64_t symidx_file_checksum(const struct symidx_hdr *h, const void *payload, size_t n)
{
	uint32_t f[3] = { h->unmodelable, h->abort_pass, h->abort_idx };

	return symindex_checksum(payload, n) ^ (symindex_checksum(f, sizeof(f)) * 0x9e3779b97f4a7c15ull);
}

#endif
