/* SPDX-License-Identifier: MIT */
/*
 * symindex.h - the per-DSO symbol index and the lazy keep-set.
 *
 * The index models what perf 6.1 builds from one symbol file (its .symtab pass
 * then its .dynsym pass, tools/perf/util/symbol-elf.c dso__load_sym()):
 *   - candidates: the symbols perf's main loop would insert, after exactly
 *     its filters (is_label / elf_sym__filter, SHN_ABS, SHF_ALLOC, the
 *     "text"/"data" section-name filter for labels),
 *   - their starts in perf's space: st_value - (p_vaddr - p_offset) of the
 *     runtime file's PT_LOAD that holds st_value (elf_read_program_header),
 *   - "groups": all candidates of both tables with one start. perf's
 *     symbols__fixup_end/fixup_duplicate make a group's survivor depend only
 *     on its members and on the next distinct start (per pass), so a group is
 *     kept or dropped as a whole,
 *   - per group the range of ends perf may give its survivor (min_end..max_end)
 *     and the prefix maximum of ends, to prove a lookup unambiguous.
 * Entries and groups live in one mmap'd file (built in a memfd, written to
 * the cache dir with write() and used from there), so the index costs page
 * cache, not anonymous memory, and later runs reuse it. Beside it, when a
 * lookup needs perf's rb-tree shape, the final shape of perf's full tree
 * ("<build-id>-<key>.tree", index/tree.c).
 */
#ifndef SYMLAZY_SYMINDEX_H
#define SYMLAZY_SYMINDEX_H

#include <stddef.h>
#include <stdint.h>
#include "util/elfops.h"
#include "index/elfx.h"

#define SYMIDX_MAX_LOADS 16
#define SYMIDX_MAX_SECS 128
#define SYMIDX_NONE 0xffffffffu
#define SYMIDX_MAX_IFUNC 128

/* perf's demangling of user symbol names (symbol-elf.c demangle_sym):
 * cplus_demangle(name, verbose ? DMGL_PARAMS|DMGL_ANSI : DMGL_NO_OPTS)
 * unless --no-demangle. UNKNOWN makes every name-dependent choice uncertain. */
#define SYMIDX_DEM_UNKNOWN 0
#define SYMIDX_DEM_NONE    1
#define SYMIDX_DEM_NOOPTS  2
#define SYMIDX_DEM_VERBOSE 3

struct symidx_load {            /* one runtime PT_LOAD */
	uint64_t vaddr, offset, size; /* size = max(p_memsz, p_filesz) */
};

struct symidx_layout {          /* facts about the runtime ELF of the DSO */
	struct symidx_load loads[SYMIDX_MAX_LOADS];
	unsigned nloads;
	uint64_t plt_lo[4], plt_hi[4]; /* file-offset ranges of .plt, .plt.sec, .plt.got, .iplt */
	unsigned nplt;
	/* runtime section headers by index: perf adjusts a symbol outside every
	 * PT_LOAD by sh_addr - sh_offset of the runtime section when the symbol
	 * file's section is SHT_NOBITS (separate debug files) */
	uint64_t sec_addr[SYMIDX_MAX_SECS], sec_off[SYMIDX_MAX_SECS];
	unsigned nsecs;
	/* PLT synthesis (symbol-elf.c dso__synthesize_plt_symbols): .rela.plt or
	 * .rel.plt linked to .dynsym, and .plt: nplt_rel symbols of plt_entsize
	 * bytes from plt_first = .plt sh_offset + one header entry */
	int plt_ok;
	uint64_t plt_first, plt_entsize;
	uint32_t nplt_rel;
	/* PLT synthesis of perf 6.2+ (model.h SL_PLT_V62), see struct symidx_plt2 */
	struct symidx_plt2 {
		uint32_t ok;            /* a section named .plt exists (the first one) */
		uint32_t sizes_ok;      /* get_plt_sizes() gave an entry size */
		uint32_t machine;       /* e_machine */
		uint64_t plt_off, plt_size, hdr, ent; /* .plt; header and entry sizes */
		uint64_t got_off, got_ent;            /* x86 .plt.got (got_ent 0: none) */
		uint32_t ngot;                        /* its entries */
		uint32_t sec;                         /* x86 .plt.sec exists */
		uint64_t sec_off, sec_ent;
		uint32_t rel_ok;        /* the relocation loop runs, nrel entries */
		uint32_t nrel;
		uint32_t unmodelable;   /* perf would fault (relocation sh_entsize 0) */
		uint32_t ifunc_unknown; /* some entry's name may come from the tree but
					 * was not recorded (too many, stale symbol) */
		uint32_t nifunc;        /* entries named from the tree (get_ifunc_name) */
		uint32_t ifunc_k[SYMIDX_MAX_IFUNC];   /* their positions in r_offset order */
		uint64_t ifunc_addr[SYMIDX_MAX_IFUNC];/* the file offset perf looks up */
	} p2;
};

struct symidx_entry {           /* one candidate symbol */
	uint64_t start;             /* perf's adjusted start */
	uint64_t size;              /* st_size */
	uint32_t idx;               /* index in its table */
	uint16_t table;             /* 0 = .symtab, 1 = .dynsym */
	uint8_t bind;               /* GELF_ST_BIND (perf's duplicate choice) */
	uint8_t type;               /* GELF_ST_TYPE (6.2+: IFUNC aliases and names) */
};

struct symidx_group {
	uint64_t start, min_end, max_end;
	uint64_t pmax;              /* max of max_end over all earlier groups (0 if none) */
	uint32_t first, n;          /* entries[first .. first+n) */
	uint32_t next_sym;          /* next group holding a .symtab candidate, or NONE */
	uint32_t next_all;          /* next group, or NONE */
	uint32_t flags;             /* SG_* */
};
#define SG_ZERO_SYMTAB 1u       /* has a zero-size .symtab member */
#define SG_ZERO_DYNSYM 2u       /* has a zero-size .dynsym member */
#define SG_HAS_SYMTAB  4u

struct symidx {
	void *map;                  /* whole mapping (header + arrays) */
	size_t map_size;
	const struct symidx_entry *entries;
	const struct symidx_group *groups;
	uint32_t nentries, ngroups;
	uint32_t nsymtab, ndynsym;  /* table sizes (sh_size / sh_entsize) */
	int unmodelable;            /* we can't model perf's load of this DSO */
	char why[96];               /* reason when unmodelable */
	/* A pass perf aborts (dso__load_sym_internal(), tools/perf/util/symbol-elf.c:
	 * a candidate whose st_shndx elf_getscn() rejects -> goto out_elf_end):
	 * the symbols of that table before abort_idx are inserted, that pass
	 * gets no symbols__fixup_end/fixup_duplicate, dso__load_sym() returns
	 * -1 (after a .symtab abort the .dynsym pass never runs), so no PLT
	 * symbols are synthesized and map__load() fails once. The index holds
	 * exactly the symbols perf inserts. */
	uint32_t abort_pass;        /* SYMIDX_ABORT_NONE / _SYMTAB / _DYNSYM */
	uint32_t abort_idx;         /* the aborting symbol's index in its table */
	int from_cache;             /* 1 if mapped from an existing cache file */
	uint64_t key;               /* identity of the index (file name, tree cache) */
};

#define SYMIDX_ABORT_NONE   0u
#define SYMIDX_ABORT_SYMTAB 1u      /* table 0's pass aborts */
#define SYMIDX_ABORT_DYNSYM 2u      /* table 1's pass aborts */

struct sl_model;

struct symidx_src {
	const struct elf_ops *ops;
	const struct sl_model *model; /* the tool's rules (index/model.h), from symindex_src_init */
	Elf *elf;                   /* the symbol file being scanned */
	Elf_Data *symtab, *dynsym;  /* either may be NULL */
	Elf_Data *symtab_str, *dynsym_str; /* their string tables (names for perf's
					    * duplicate choice in the simulation) */
	int demangle;               /* how perf demangles names: SYMIDX_DEM_* */
	uint32_t nsymtab, ndynsym;
	const struct symidx_layout *layout;
	const unsigned char *build_id; size_t build_id_len;
	int cache_dirfd;            /* -1: no cache, memfd only */
	struct sl_file_id file_id;  /* identity of the file (part of the cache key;
				     * the only identity when there is no build-id) */
};

/*
 * symindex_open - map the cached index for @src or build it.
 * Cost: O(n log n) in-place sort over the mapping; no per-symbol heap memory.
 * Returns 0 or a negative errno (-ENOMEM, -EIO). A corrupt, truncated or
 * foreign cache file is ignored and rebuilt.
 */
int symindex_open(const struct symidx_src *src, struct symidx *out);
void symindex_close(struct symidx *idx);

/*
 * symindex_src_init - the one way to fill a struct symidx_src: zero it, set
 * the given fields (@file_id may be NULL = unknown; @cache_dirfd -1 = memfd
 * only; @demangle SYMIDX_DEM_*; @model the tool's model whose rules the
 * index is built and answered with, core/models.h), and pick the tables with
 * symindex_src_tables(). Returns what symindex_src_tables() returns.
 */
int symindex_src_init(struct symidx_src *src, const struct elf_ops *ops, Elf *elf,
		      const struct symidx_layout *lay, const unsigned char *build_id,
		      size_t build_id_len, const struct sl_file_id *file_id, int cache_dirfd,
		      int demangle, const struct sl_model *model);

/*
 * symindex_src_tables - fill @src's symtab/dynsym (+ string tables, counts =
 * sh_size / sh_entsize) the way perf's symsrc__init() picks them: the
 * section named ".symtab" if it is SHT_SYMTAB, ".dynsym" if SHT_DYNSYM.
 * Returns how many of the two were found. Calls only non-failing libelf
 * lookups once the section exists, so elf_errno() is left alone.
 */
int symindex_src_tables(const struct elf_ops *ops, Elf *elf, struct symidx_src *src);

/* symindex_checksum - the cache files' payload checksum (four lanes of
 * word-wise FNV-1a; detects corruption, not tampering: the cache dir is
 * private). */
uint64_t symindex_checksum(const void *p, size_t n);

/*
 * symindex_layout - the layout (PT_LOADs, PLT ranges, PLT synthesis inputs)
 * of a runtime ELF. @fsize is the size in bytes of the file (or memory
 * image) behind @elf, 0 if unknown: perf synthesizes PLT symbols only when
 * elf_getdata() of .rela.plt succeeds, and libelf fails it for a section
 * that does not fit in the file (elfutils elf_getdata.c
 * __libelf_set_rawdata_wrlock: offset/size against maximum_size), so a
 * relocation section past @fsize means no PLT symbols. No libelf call that
 * can fail or allocate is made. Returns 0 or -errno.
 */
int symindex_layout(const struct elf_ops *ops, Elf *elf, uint64_t fsize, struct symidx_layout *lay);

/*
 * symindex_plan - the keep-set for sorted, unique lookup addresses @addrs.
 * Fills @keep_symtab / @keep_dynsym (bitmaps of nsymtab / ndynsym bits,
 * zeroed by the caller) with the members of every group that must be kept so
 * perf answers each address exactly as with the full table:
 *   rule 1 (answer): the group T with the greatest start <= A is kept if it
 *          surely contains A (A == start or A < min_end), no earlier group
 *          may contain A (pmax <= A) and no PLT symbol starts in (T.start, A]:
 *          then T is the only containing node on every search path;
 *   rule 2 (shape): otherwise (overlaps, PLT) the answer depends on the rb-tree
 *          shape: with @src, perf's full tree gives its answer (its final
 *          shape cached beside the index, else replayed: rbsim.h, and then
 *          cached), that symbol's group is kept, and the reduced tree is
 *          replayed; every address must get the same symbol from both,
 *          else (or without @src) return 1 (= pass the full table);
 *   rule 3 (ends): a kept group with a zero-size .symtab member keeps its
 *          next .symtab group, one with a zero-size .dynsym member its next
 *          group, recursively (perf's fixup_end uses the in-order successor);
 *   rule 4 (PLT): at least one group is kept so perf's ret > 0 and PLT
 *          synthesis runs as in the full load.
 * The model of @src (perf 6.1 without @src) gives the PLT variant and the
 * fixup rules: with SL_PLT_V62 the replay also truncates the symbol over
 * .plt, inserts the .plt/.plt.got/.plt.sec symbols, marks IFUNC aliases and
 * names IFUNC entries from the tree (the group that names a looked-up entry
 * is kept); answers are compared as (symbol, end, name source).
 * Returns 0 (plan made), 1 (fall back, util/reason.h: use the full table)
 * with the reason in @why: SL_R_UNMODELABLE (the index's own reason as the
 * detail), SL_R_PLT_RELOCS, SL_R_AMBIGUOUS / SL_R_PLT_ADDRESS (an address
 * only a tree replay decides, and no @src), SL_R_DUP_DEMANGLE, SL_R_DEMANGLER
 * (the model's demangler cannot give the names), SL_R_PLT_IFUNC,
 * SL_R_REPLAY_DISAGREES, SL_R_REPLAY_DIFFERS; or -errno (SL_R_PLAN_FAILED).
 * @kept_groups gets the number of groups kept.
 */
struct sl_why;
int symindex_plan(const struct symidx *idx, const struct symidx_layout *lay,
		  const struct symidx_src *src,
		  const uint64_t *addrs, size_t naddrs,
		  uint8_t *keep_symtab, uint8_t *keep_dynsym,
		  uint32_t *kept_groups, struct sl_why *why);

/* What perf answers an address with, by the replay of its whole load. */
enum symidx_answer_kind {
	SYMIDX_ANS_NONE = 0,        /* no symbol */
	SYMIDX_ANS_SYM,             /* a symbol of .symtab (table 0) or .dynsym (1) */
	SYMIDX_ANS_PLT,             /* the index-th PLT relocation entry */
	SYMIDX_ANS_PLT_HDR,         /* the ".plt" symbol (6.2+) */
	SYMIDX_ANS_PLT_GOT,         /* the index-th .plt.got entry (6.2+) */
};

struct symidx_answer {
	enum symidx_answer_kind kind;
	uint32_t table, index;
	uint64_t start, end;        /* perf's symbol start and end (after fixups) */
	int named_from;             /* 6.2+ IFUNC entry named after a symbol: 1 */
	uint32_t name_table, name_index;
};

/*
 * symindex_replay - perf's answers for @addrs (any order) from a replay of
 * its load of the full table with the model of @src (rbsim.h + PLT
 * synthesis). For tests and tools. Returns 0, 1 (a duplicate choice needed
 * names the model could not give: answers may be wrong), -errno.
 */
int symindex_replay(const struct symidx *idx, const struct symidx_src *src,
		    const struct symidx_layout *lay, const uint64_t *addrs, size_t naddrs,
		    struct symidx_answer *out);

/*
 * symindex_classify - what the index alone proves about perf's answer for
 * @addr (a file offset) under PLT rules @plt (enum sl_plt_rules, model.h): 1 = group *@g answers it
 * (rule 1 of symindex_plan), 0 = no symbol does, -1 = it depends on the
 * tree's shape, PLT synthesis or an aborted pass (ask symindex_replay_ids).
 * @lay NULL: no PLT facts.
 */
int symindex_classify(const struct symidx *idx, const struct symidx_layout *lay, int plt,
		      uint64_t addr, uint32_t *g);

/* symindex_find - group index that perf's full table answers @addr with, or
 * SYMIDX_NONE (no symbol / ambiguous). For tests and tools. */
uint32_t symindex_find(const struct symidx *idx, uint64_t addr);

/*
 * symindex_replay_ids - symindex_replay() as ids: perf's answers for @addrs
 * (any order) from a replay of its whole load of @src (both passes, symbols__fixup_end,
 * symbols__fixup_duplicate, PLT synthesis; index/rbsim.c). Per address,
 * @ans[i] gets the node perf's symbols__find returns: SYMIDX_ID(table, idx)
 * for a table symbol, SYMIDX_ID_PLT | k for the k-th synthesized PLT symbol
 * (the k-th .rela.plt/.rel.plt entry), SYMIDX_ID_NULL for none; @ans_start
 * (may be NULL) its start. The full tree comes from the cache beside the
 * index (src->cache_dirfd) when there is one, else it is replayed (and its
 * shape cached). Returns 0, 1 (fall back, util/reason.h: a plan would load
 * the full table) if some same-address duplicate choice depended on a name
 * perf post-processes beyond libiberty (answers are then best effort),
 * -EINVAL for an unmodelable index, -errno.
 * Cost: O(n log n) for n candidates, scratch in a memfd mapping.
 */
#define SYMIDX_ID(table, idx) (((uint64_t)(table) << 32) | (uint32_t)(idx))
#define SYMIDX_ID_PLT  (2ull << 32)
#define SYMIDX_ID_PLT_HDR (3ull << 32)   /* the ".plt" symbol (perf 6.2+) */
#define SYMIDX_ID_PLT_GOT (4ull << 32)   /* | j: the j-th .plt.got entry (perf 6.2+) */
#define SYMIDX_ID_NULL UINT64_MAX
int symindex_replay_ids(const struct symidx *idx, const struct symidx_src *src,
			const struct symidx_layout *lay, const uint64_t *addrs, size_t naddrs,
			uint64_t *ans, uint64_t *ans_start);

/* symindex_debug_eager - @on: make every duplicate choice of the replay
 * when perf makes it, demangling as needed (no deferral): the reference the
 * tests compare the deferred replay with. Process-wide; for tests. */
void symindex_debug_eager(int on);

/* Heap sort of entries by (start, table, idx), in place, no allocation. */
void symindex_sort(struct symidx_entry *e, size_t n);

#define BIT_SET(b, i)  ((b)[(i) >> 3] |= (uint8_t)(1u << ((i) & 7)))
#define BIT_TEST(b, i) (((b)[(i) >> 3] >> ((i) & 7)) & 1u)

#endif
