/* SPDX-License-Identifier: MIT */
/*
 * names.h - the name index of one ELF file: name -> symbol (value, size,
 * type, binding, table, uprobe file offset) and file offset -> symbol, from a
 * self-contained file in the cache directory (doc/index-format.md is the
 * byte-level description another language reads it with; go/ does).
 *
 * Separate from the address index perf's lookups map (index/format.h): perf's
 * hot path is unchanged, and this file is keyed by what any language can
 * compute, the stat(2) identity of the ELF file:
 *   "<key %016x>.names", key = FNV-1a 64 over the little-endian u64 words
 *   SYMNAMES_VERSION, st_dev, st_ino, st_size, st_mtim.tv_sec, st_mtim.tv_nsec,
 *   st_ctim.tv_sec, st_ctim.tv_nsec (the change time: a file rewritten in
 *   place with its size and mtime restored is another file).
 *
 * What is indexed (ELF gABI "Symbol Table"; GNU symbol versioning as in the
 * LSB "Symbol Versioning" chapter):
 *   - every symbol but index 0 of the first SHT_SYMTAB and the first SHT_DYNSYM
 *     section (the sections Go's debug/elf Symbols()/DynamicSymbols() and bcc's
 *     bcc_elf_foreach_sym read) with a non-empty name inside its string table,
 *     except STT_SECTION and STT_FILE symbols; .symtab records first, then
 *     .dynsym, each in table order;
 *   - a binary without SHT_SYMTAB takes .symtab from its separate debug file,
 *     searched as libbcc does (src/cc/bcc_elf.c find_debug_via_buildid, then
 *     find_debug_via_debuglink): /usr/lib/debug/.build-id/xx/yyyy.debug with
 *     the same build-id, then the .gnu_debuglink name in the binary's
 *     directory (not the binary itself), its .debug/ and /usr/lib/debug<dir>/,
 *     with a matching CRC-32; the binary's own .dynsym and program headers are
 *     used with it;
 *   - a versioned .dynsym symbol (.gnu.version index >= 2, named by
 *     .gnu.version_d or .gnu.version_r) gets a second key as readelf renders
 *     it (binutils readelf.c get_symbol_version_string): "name@@VER" for a
 *     defined symbol of a version the file defines (.gnu.version_d),
 *     "name@VER" when that version is hidden (VERSYM_HIDDEN) or the version
 *     is a needed one (.gnu.version_r: imports, copy relocations). GNU ld
 *     writes those names into .symtab, and libbcc matches names literally
 *     (strcmp, bcc_syms.cc _find_sym);
 *   - offset: st_value - p_vaddr + p_offset of the first PT_LOAD with PF_X in
 *     program header order whose [p_vaddr, p_vaddr + p_memsz) holds st_value,
 *     else st_value: cilium/ebpf link/uprobe.go Executable.load(), bcc's
 *     _find_load() (bcc_syms.cc).
 * Name lookups (symnames_lookup): of the records with that key, the last
 * STT_FUNC one (cilium keeps a map name -> address filled from .symtab then
 * .dynsym, so the last one wins); it is not found when its offset is 0
 * (cilium: "cannot resolve library call"). Without an STT_FUNC record, the
 * last defined (st_shndx != SHN_UNDEF) record of another type.
 * Offset lookups (symnames_symbolize): defined STT_FUNC / STT_GNU_IFUNC
 * records whose value lies in an executable PT_LOAD, by offset: the one with
 * the greatest start whose [offset, offset + max(size, 1)) holds it; among
 * equal starts STT_FUNC, then GLOBAL, WEAK, LOCAL, then record order.
 *
 * Only ELFCLASS64 little-endian files are read (-ENOTSUP otherwise).
 */
#ifndef SYMLAZY_NAMES_H
#define SYMLAZY_NAMES_H

#include <stddef.h>
#include <stdint.h>

#define SYMNAMES_MAGIC     "SYMLZNM\0"
#define SYMNAMES_VERSION   2u         /* 2: st_ctim in the key and the header */
#define SYMNAMES_ENDIAN    0x0102030405060708ull
#define SYMNAMES_MAX_LOADS 16
#define SYMNAMES_NONE      0xffffffffu
#define SYMNAMES_SUFFIX    ".names"

/* header flags */
#define SN_F_SYMTAB   1u        /* a .symtab was read (the file's or its debug file's) */
#define SN_F_DYNSYM   2u        /* a .dynsym was read */
#define SN_F_DEBUG    4u        /* .symtab came from the debug file dbg_path names */
#define SN_F_VERSIONS 8u        /* .gnu.version was read */

/* record flags */
#define SN_S_EXEC     1u        /* offset came from an executable PT_LOAD */
#define SN_S_HIDDEN   2u        /* .gnu.version entry has VERSYM_HIDDEN (0x8000) */
#define SN_S_VERKEY   4u        /* the record has a second, versioned key */

/* The file: header, records, buckets, slots, address order, strings; every
 * part starts 8-byte aligned at the offset the header gives. Host byte order
 * (the endian field reads SYMNAMES_ENDIAN). 672 bytes. */
struct symnames_hdr {
	char magic[8];                  /*   0 SYMNAMES_MAGIC */
	uint32_t version;               /*   8 SYMNAMES_VERSION */
	uint32_t hdr_size;              /*  12 sizeof(struct symnames_hdr) */
	uint64_t endian;                /*  16 SYMNAMES_ENDIAN */
	uint64_t checksum;              /*  24 symindex_checksum() of bytes [32, file_size) */
	uint64_t file_size;             /*  32 */
	uint64_t key;                   /*  40 the key the file name carries */
	uint64_t dev, ino, size;        /*  48 stat(2) identity of the ELF file */
	int64_t mtime_sec, mtime_nsec;  /*  72 */
	uint64_t dbg_dev, dbg_ino, dbg_size;    /*  88 the debug file's (SN_F_DEBUG), else 0 */
	int64_t dbg_mtime_sec, dbg_mtime_nsec;  /* 112 */
	uint32_t flags;                 /* 128 SN_F_* */
	uint32_t nsyms;                 /* 132 records */
	uint32_t nslots;                /* 136 keys */
	uint32_t nbuckets;              /* 140 a power of two */
	uint32_t naddrs;                /* 144 address-order entries */
	uint32_t nloads;                /* 148 executable PT_LOADs in loads[] */
	uint32_t nsymtab, ndynsym;      /* 152 entries of the tables read (with the null symbol) */
	uint64_t syms_off, buckets_off, slots_off, addrs_off, strings_off, strings_size; /* 160 */
	uint32_t dbg_path;              /* 208 string ref of the debug file's path, or NONE */
	uint32_t build_id_len;          /* 212 */
	unsigned char build_id[32];     /* 216 GNU build-id of the ELF file (NT_GNU_BUILD_ID) */
	uint16_t e_type, e_machine;     /* 248 */
	uint32_t nversions;             /* 252 version names stored first in the string area
					 * (after the debug path), by version index */
	struct symnames_load {          /* 256 the PT_LOADs with PF_X, program header order */
		uint64_t vaddr, memsz, offset;
	} loads[SYMNAMES_MAX_LOADS];
	int64_t ctime_sec, ctime_nsec;  /* 640 st_ctim of the ELF file */
	int64_t dbg_ctime_sec, dbg_ctime_nsec;  /* 656 the debug file's (SN_F_DEBUG), else 0 */
};

struct symnames_sym {                   /* one record, 48 bytes */
	uint64_t value, size;           /*  0 st_value, st_size */
	uint64_t offset;                /* 16 the uprobe file offset (above) */
	uint32_t name;                  /* 24 string ref of the name in its string table */
	uint32_t index;                 /* 28 index in its table */
	uint32_t version;               /* 32 string ref of the version name, or NONE */
	uint16_t shndx;                 /* 36 st_shndx */
	uint8_t table;                  /* 38 0 = .symtab, 1 = .dynsym */
	uint8_t info;                   /* 39 st_info: type = info & 15, binding = info >> 4 */
	uint8_t other;                  /* 40 st_other */
	uint8_t flags;                  /* 41 SN_S_* */
	uint16_t versym;                /* 42 its .gnu.version entry (.dynsym), else 0 */
	uint32_t pad;                   /* 44 */
};

struct symnames_slot {                  /* one key, 12 bytes */
	uint32_t tag;                   /* hash >> 32 */
	uint32_t rec;                   /* record index */
	uint32_t key;                   /* string ref of the key */
};

struct symnames_addr {                  /* one address-order entry, 24 bytes */
	uint64_t start;                 /* the record's offset */
	uint64_t pmax;                  /* max of start + max(size, 1) over entries [0, this] */
	uint32_t rec, pad;
};

/* A string ref is the offset in the string area of a u32 length, followed by
 * that many bytes, a NUL and zero padding to a multiple of 4. The area holds,
 * in this order: the debug file's path (SN_F_DEBUG), the nversions version
 * names (ascending version index), then per record its name and, for
 * SN_S_VERKEY, its versioned key right after it. */

struct symnames {
	void *map;
	size_t map_size;
	const struct symnames_hdr *h;
	const struct symnames_sym *syms;
	const uint32_t *buckets;
	const struct symnames_slot *slots;
	const struct symnames_addr *addrs;
	const unsigned char *strings;
	int from_cache;                 /* 1: mapped from an existing cache file */
};

/*
 * symnames_hash - the key hash: h = FNV offset basis; each full 8-byte
 * little-endian word w of @s: h = (h ^ w) * FNV prime; then the 0..7 tail
 * bytes little-endian in the low bits with @n << 56 xor'ed in: h = (h ^ t) *
 * prime; result = splitmix64's finaliser of h (util.h sl_mix64).
 * Bucket = hash & (nbuckets - 1), slot tag = hash >> 32.
 */
uint64_t symnames_hash(const char *s, size_t n);

/* symnames_key - the cache key of a file with this stat(2) identity
 * (st_dev, st_ino, st_size, st_mtim, st_ctim). */
uint64_t symnames_key(uint64_t dev, uint64_t ino, uint64_t size, int64_t mtime_sec, int64_t mtime_nsec,
		      int64_t ctime_sec, int64_t ctime_nsec);

#define SN_OPEN_REBUILD 1       /* build even if a valid cache file exists */

/*
 * symnames_open - map the name index of the ELF file @path from the cache
 * directory @dirfd (index/cache.h sl_cache_dir_open; -1: none) or build it
 * there (without a usable directory: in a memfd, dropped at close).
 * Cost: O(n) to validate a cache file; a build reads both tables once and
 * sorts (O(n log n)) in the mapping it writes, no per-symbol heap memory.
 * Returns 0, or -errno with the reason in @why (util/reason.h):
 * -ENOENT/-EACCES (open: SL_R_OPEN_FAILED), -EINVAL (SL_R_NOT_REGULAR,
 * SL_R_NOT_ELF, SL_R_NAMES_NOT_EXEC, SL_R_NAMES_PHDRS, SL_R_NAMES_SYMTAB),
 * -ENOTSUP (not ELFCLASS64 little-endian: SL_R_NAMES_ELF_KIND; too many
 * PT_LOADs: SL_R_NAMES_LOADS), -EFBIG (more than 2^32 - 1 records or string
 * bytes: SL_R_TOO_BIG), -ENOMEM (SL_R_NOMEM), -EIO (SL_R_NAMES_FILE).
 */
struct sl_why;
int symnames_open(const char *path, int dirfd, unsigned flags, struct symnames *out, struct sl_why *why);
void symnames_close(struct symnames *n);

/*
 * symnames_validate - 0 if @map (@size bytes) is a usable name index, else
 * -EINVAL: magic, version, endianness, sizes, bounds and alignment of every
 * part, the checksum, every record's and slot's string refs and indexes,
 * buckets ascending, the address order sorted with its running maxima. The
 * identity is the caller's to compare. Queries never read out of bounds once
 * this passed.
 */
int symnames_validate(const void *map, size_t size);

/*
 * symnames_lookup - the record that answers the name @s (@len bytes, exact
 * bytes, no demangling) by the rule above: its index, or SYMNAMES_NONE;
 * *@key (may be NULL) gets the string ref of the key that matched.
 * O(1): one bucket of about one slot.
 */
uint32_t symnames_lookup(const struct symnames *n, const char *s, size_t len, uint32_t *key);

/* symnames_symbolize - the record holding file offset @off by the rule above,
 * or SYMNAMES_NONE. O(log n) plus the overlapping records walked. */
uint32_t symnames_symbolize(const struct symnames *n, uint64_t off);

/* symnames_str - the string at ref @ref (NUL-terminated, length in *@len if
 * @len), "" for SYMNAMES_NONE. */
const char *symnames_str(const struct symnames *n, uint32_t ref, size_t *len);

/* symnames_next_ref - the ref of the string stored after the valid ref @ref
 * in the string area @area. */
uint32_t symnames_next_ref(const unsigned char *area, uint32_t ref);

/* symnames_file_name - "<key %016x>.names" into @buf. */
void symnames_file_name(uint64_t key, char *buf, size_t n);

/*
 * symnames_build - for index/names.c only (index/names_build.c): build the index
 * of the ELF file open as @fd (stat @st) into a new file: the cache dir's
 * temporary ".tmp-<pid>-<n>.names" when @dirfd >= 0 (renamed to its name
 * when complete), else a memfd. Maps the result into @out. Returns 0 or
 * -errno with @why set (as symnames_open).
 */
struct stat;
int symnames_build(const char *path, int fd, const struct stat *st, int dirfd, struct symnames *out,
		   struct sl_why *why);

/* symnames_attach - fill @out from a validated mapping (names.c). */
void symnames_attach(struct symnames *out, void *map, size_t size);

#endif
