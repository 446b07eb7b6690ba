/* SPDX-License-Identifier: MIT */
/*
 * dwflindex.h - the address-sorted index of one libdwfl module's symbols
 * (what dwfl_module_getsymtab() / dwfl_module_getsym_info() give: the main
 * symtab or dynsym, merged with the .gnu_debugdata minisymtab), so that
 * dwfl_module_addrsym/addrinfo can be answered with a binary search instead
 * of libdwfl's scan of every symbol (libdwfl/dwfl_module_addrsym.c).
 *
 * Only the model's candidates are kept (struct sl_lookup_rules.eligible:
 * named, defined, not SECTION/FILE/TLS), with what the selection needs: the
 * value libdwfl compares, st_size, the symbol index (scan order), the
 * binding rank and the pass (globals/locals). Values are stored without the
 * module's bias so that the index survives address-space randomisation:
 *   array 0 ("biased"): symbols whose value is st_value + the bias of their
 *            Elf (SHF_ALLOC sections); key = value - base, where base is the
 *            bias of the module's symbol file (dwfl_module_info symbias);
 *   array 1 ("fixed"): symbols libdwfl does not bias (SHN_ABS, SHN_COMMON,
 *            non-SHF_ALLOC sections) and every symbol of an ET_REL module
 *            (section-relative, placed by libdwfl's layout); key = value.
 * Each array is sorted by (key, index) and summarised per block of
 * SL_DWFL_BLK entries (first key, prefix max of key + size, prefix last
 * sizeless entry, per scope), so a lookup reads one or two 512-byte blocks.
 *
 * Index files live in the cache directory as "dwfl-<key>.idx" (key: format
 * version, table shape, machine, the identity of the Elf of the first
 * scanned symbol); the header records every Elf the symbols come from (file
 * identity or "in memory", bias relative to base, a probe index), checked
 * against the live module before use. ET_REL modules and modules whose
 * symbols all come from memory images are indexed in a memfd only.
 */
#ifndef SYMLAZY_DWFLINDEX_H
#define SYMLAZY_DWFLINDEX_H

#include <stddef.h>
#include <stdint.h>
#include <gelf.h>
#include "index/elfx.h"
#include "index/model.h"

#define SL_DWFL_BLK 32
#define SL_DWFL_NONE 0xffffffffu
#define SL_DWFL_MAGIC "SLDWFLX\0"
#define SL_DWFL_VERSION 2u       /* 2: checksum over 8 KiB chunks */
#define SL_DWFL_CHUNK 8192u       /* payload checksum chunk (symindex_checksum each, folded) */

struct sl_dwfl_ent {            /* 16 bytes */
	uint64_t key;
	uint32_t size;              /* st_size (larger sizes: not indexable) */
	uint32_t info;              /* DE_* */
};
#define DE_NDX_MASK   0x0fffffffu
#define DE_PASS2      (1u << 28)  /* scanned in the second (locals) pass */
#define DE_BIND_SHIFT 29          /* 2 bits: binding rank */
#define DE_ELF1       (1u << 31)  /* from the module's second Elf */

static inline uint32_t de_ndx(const struct sl_dwfl_ent *e) { return e->info & DE_NDX_MASK; }
static inline int de_pass(const struct sl_dwfl_ent *e) { return (e->info & DE_PASS2) != 0; }
static inline int de_bind(const struct sl_dwfl_ent *e) { return (int)((e->info >> DE_BIND_SHIFT) & 3u); }

struct sl_dwfl_blk {            /* 32 bytes, one per SL_DWFL_BLK entries */
	uint64_t first_key;
	uint64_t pmax[2];           /* max key + size over entries [0, end of block] of scope s */
	uint32_t last0[2];          /* last sizeless entry of scope s in [0, end of block], or NONE */
};

struct sl_dwfl_elfdesc {
	int32_t probe;              /* first symbol index (scan order) from this Elf */
	uint32_t tracked;           /* 1: opened from a file (id valid), 0: memory image */
	uint64_t dev, ino, size;
	int64_t mtime_sec, mtime_nsec;
	uint64_t delta;             /* bias of this Elf - base */
};

struct sl_dwfl_hdr {
	char magic[8];
	uint32_t version, hdr_size;
	uint64_t key;
	uint64_t checksum;          /* symindex_checksum() of everything after the header */
	uint32_t syments, first_global, e_type, e_machine;
	uint32_t n[2], nblk[2];
	uint32_t nelf, pad;
	uint64_t lo[2], hi[2];      /* least key, greatest key + size per array */
	struct sl_dwfl_elfdesc elf[2];
};

/* An open index: read with pread (a mapping would be faulted in 64 KiB
 * around every touched page, costing the tool resident memory; pread costs
 * page cache only), plus the first key of every block on the heap (8 bytes
 * per SL_DWFL_BLK entries) for the binary search. */
struct sl_dwfl_index {
	int fd;
	struct sl_dwfl_hdr hdr;
	const struct sl_dwfl_hdr *h;   /* &hdr once open, NULL when closed */
	uint64_t *keys[2];
	off_t eoff[2], boff[2];
	int from_cache;
};

/* Where the symbols come from: the library's own per-index reader. */
struct sl_dwfl_src {
	int syments, first_global;  /* dwfl_module_getsymtab / _first_global */
	uint64_t base;              /* bias of the symbol file (dwfl_module_info symbias) */
	const struct sl_lookup_rules *rules;
	/* dwfl_module_getsym_info(): name (NULL on error), the raw GElf_Sym,
	 * the value, section index, Elf and that Elf's bias */
	const char *(*getsym)(void *ctx, int ndx, GElf_Sym *sym, uint64_t *value, uint32_t *shndx,
			      Elf **elf, uint64_t *bias);
	/* facts of an Elf: e_type, e_machine (0 on failure) and file identity
	 * (id->valid = 0 for memory images and unknown Elfs) */
	int (*elf_facts)(void *ctx, Elf *elf, unsigned *e_type, unsigned *e_machine,
			 struct sl_file_id *id);
	void *ctx;
	int cache_dirfd;            /* -1: memfd only */
};

/*
 * sl_dwfl_index_cached - map the cache file for @src if there is a valid one
 * whose recorded Elfs match the live module (probes through @src->getsym).
 * 0 with @out, -ENOENT (none usable), other -errno.
 * sl_dwfl_index_build - read every symbol through @src->getsym in libdwfl's
 * scan order, build the index (into the cache dir when the module has a
 * file identity, else a memfd). 0 with @out, 1 (fall back, util/reason.h:
 * libdwfl answers) when libdwfl's answers cannot be modelled (@why:
 * SL_R_DWFL_UNMODELED, the detail says what: unreadable symbol, more than
 * two Elfs, a value that is neither st_value + bias nor st_value, sizes past
 * 32 bits, a machine the rules exclude), or -errno (@why: SL_R_INDEX_FAILED).
 */
struct sl_why;
int sl_dwfl_index_cached(const struct sl_dwfl_src *src, struct sl_dwfl_index *out);
int sl_dwfl_index_build(const struct sl_dwfl_src *src, struct sl_dwfl_index *out, struct sl_why *why);
void sl_dwfl_index_close(struct sl_dwfl_index *x);

/* Scratch for one lookup: the candidates handed to the rules. */
#define SL_DWFL_QCAP 64
struct sl_dwfl_qbuf {
	struct sl_lk_sym cont[2][SL_DWFL_QCAP];
	struct sl_lk_sym atv[2][SL_DWFL_QCAP];
};

/*
 * sl_dwfl_query - fill @q (model.h) for address @addr of a module whose
 * symbol file bias is @base. Returns 0, or -E2BIG when more candidates or a
 * longer walk than the scratch allows are involved, -ERANGE when @base puts
 * the biased keys across the top of the address space (the caller then asks
 * the library). q->same_section / ctx are left for the caller.
 */
int sl_dwfl_query(const struct sl_dwfl_index *x, uint64_t base, uint64_t addr,
		  struct sl_dwfl_qbuf *qb, struct sl_lk_query *q);

/* sl_dwfl_sort - sort entries by (key, index) in place (heap sort, no memory). */
void sl_dwfl_sort(struct sl_dwfl_ent *e, size_t n);

#endif
