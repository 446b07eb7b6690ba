/* SPDX-License-Identifier: MIT */
/*
 * lookup.h - "which symbol would perf 6.1 print for this address?" as a
 * C-callable API, for tools that do not use libelf themselves (Go or Rust
 * agents through cgo / FFI, the `symlazy lookup` command); and, at the end,
 * name -> symbol lookups with uprobe file offsets (`symlazy offsets`; the
 * pure-Go package at go/ reads the same index file).
 *
 * Addresses are file-relative: the file offset perf computes with
 * map__map_ip() (tools/perf/util/map.c: ip - map->start + map->pgoff, with
 * start and pgoff from the PERF_RECORD_MMAP/MMAP2 of the mapping) and the
 * offsets SYMLAZY_ADDRS files list. Symbol starts are in the same space
 * (st_value - (p_vaddr - p_offset) of the PT_LOAD holding st_value, as
 * index/symindex.h explains), so "offset" below is what perf prints after
 * "+0x" with -F sym,symoff.
 *
 * How an answer is found (each step mirrors perf 6.1's dso__load_sym of
 * util/symbol-elf.c and util/symbol.c):
 *   1. the index of index/symindex.h (cached like the shim's when the caller
 *      passes a cache directory) gives the group of same-start symbols whose
 *      start is the greatest <= addr; when that group surely contains addr
 *      and no other symbol or PLT stub can (the proof of symindex.h rule 1),
 *      its survivor is chosen as symbols__fixup_end + symbols__fixup_duplicate
 *      would: .symtab members first (size, then binding, then names via the
 *      model's choose_by_name on demangled names), then the .dynsym ones;
 *   2. otherwise (overlapping symbols, PLT stubs, addresses in no group)
 *      perf's whole load is replayed (symindex_replay, index/rbsim.c),
 *      including the synthesized "name@plt" symbols.
 * The name is the one perf stores: demangled by the model (libiberty's
 * cplus_demangle with perf's flags; SYMIDX_DEM_* of symindex.h).
 * "exact" is 0 when perf post-processes a name (legacy Rust hash
 * stripping, OCaml, Java demangling) in a way symlazy does not mirror and
 * that name decides a duplicate choice or is the answer; everything else is
 * perf's answer for perf 6.1 on x86-64.
 *
 * Link: build/libsymlazy_core.a -lelf -liberty -lpthread -ldl.
 * Thread rules: a handle is used by one thread at a time; different
 * handles are independent. No process globals.
 */
#ifndef SYMLAZY_LOOKUP_H
#define SYMLAZY_LOOKUP_H

#include <stddef.h>
#include <stdint.h>

struct sl_lookup;           /* opaque handle: one ELF file and its index */

struct sl_lookup_opts {
	int demangle;           /* SYMIDX_DEM_NOOPTS (perf's default), SYMIDX_DEM_NONE
				 * (--no-demangle), SYMIDX_DEM_VERBOSE (-v); 0 = default */
	const char *runtime;    /* runtime ELF (program headers, .plt) when @path is a
				 * separate debug file; NULL: @path itself */
	int cache_dirfd;        /* index cache directory (index/cache.h sl_cache_dir_open),
				 * or -1: the index lives in a memfd and is dropped at close */
};

enum sl_lookup_table { SL_LOOKUP_SYMTAB = 0, SL_LOOKUP_DYNSYM = 1, SL_LOOKUP_PLT = 2 };

struct sl_lookup_sym {
	uint64_t addr;          /* the address asked (file offset) */
	int found;              /* 1: a symbol; 0: perf prints [unknown] */
	int exact;              /* 1: perf 6.1's answer and name; 0: best effort */
	uint64_t start;         /* symbol start, file offset (0 if !found) */
	uint64_t offset;        /* addr - start: perf's "+0x..." (0 if !found) */
	uint32_t table;         /* enum sl_lookup_table */
	uint32_t index;         /* index in that table; PLT: the k-th .rela.plt entry */
};

struct sl_lookup_info {
	char build_id[41];      /* lowercase hex, "" without a build-id note */
	uint32_t nsymtab, ndynsym;  /* table sizes (entries) */
	uint32_t ncandidates;   /* symbols perf would insert from both tables */
	int from_cache;         /* 1: the index was mapped from the cache directory */
};

/*
 * sl_lookup_open - open the ELF file @path (an executable, shared object or
 * its separate debug file) and map or build its index. @opts may be NULL
 * (defaults: perf's demangling, @path is its own runtime ELF, no cache).
 * Returns 0 with *@out set, or a negative errno with a one-line reason in
 * @err (@errsz bytes): -ENOENT/-EACCES (open), -EINVAL (not an ELF file,
 * no symbol table, no runtime ELF, a runtime ELF with another build-id, a
 * table perf would abort on), -ENOMEM.
 */
int sl_lookup_open(const char *path, const struct sl_lookup_opts *opts, struct sl_lookup **out,
		   char *err, size_t errsz);

/*
 * sl_lookup_addr - perf's symbol for one address into *@out. Returns 1
 * (found), 0 ([unknown]), or a negative errno (-ENOMEM). Cost: O(log n)
 * in the common case, O(n log n) (a replay) for addresses covered by
 * overlapping symbols or PLT stubs and for addresses no symbol holds.
 */
int sl_lookup_addr(struct sl_lookup *l, uint64_t addr, struct sl_lookup_sym *out);

/*
 * sl_lookup_addrs - the same for @n addresses (any order, repeats allowed)
 * into @out[0..n); the addresses that need a replay share one. Returns the
 * number found (0..n) or a negative errno.
 */
long sl_lookup_addrs(struct sl_lookup *l, const uint64_t *addrs, size_t n, struct sl_lookup_sym *out);

/*
 * sl_lookup_name - the name perf prints for @s (found == 1): demangled as
 * opened, "name@plt" for PLT symbols, into @buf (@n bytes, always
 * NUL-terminated when @n > 0). Returns the length of the whole name (as
 * snprintf: a result >= @n means it was cut), or -EINVAL (!found, or @s
 * not from this handle), -ENOMEM.
 */
int sl_lookup_name(struct sl_lookup *l, const struct sl_lookup_sym *s, char *buf, size_t n);

/* sl_lookup_get_info - facts about the opened file into *@info. */
void sl_lookup_get_info(const struct sl_lookup *l, struct sl_lookup_info *info);

/* sl_lookup_close - unmap the index, end the ELF handles, free @l (NULL ok). */
void sl_lookup_close(struct sl_lookup *l);

/* ---- by name: symbol values and uprobe offsets ---------------------------- */

/*
 * The name index of an ELF file (index/names.h; its bytes: doc/index-format.md),
 * for agents that attach uprobes by function name: what `nm` / `readelf -s`
 * show for a name, and the file offset the kernel's uprobe takes
 * (st_value - p_vaddr + p_offset of the executable PT_LOAD holding st_value,
 * else st_value: cilium/ebpf link/uprobe.go, bcc's bcc_resolve_symname).
 * Independent of perf's model and of the address lookups above: any ET_EXEC or
 * ET_DYN ELFCLASS64 little-endian file, with or without a build-id, .symtab
 * and .dynsym (a stripped file's .symtab comes from its debug file).
 * Names are raw (mangled) symbol names; "name@@VER" / "name@VER" also match
 * versioned .dynsym symbols. The handle is read-only: any number of threads
 * may query one handle at once.
 */
struct sl_names;            /* opaque handle: one mapped name index */

struct sl_names_opts {
	int cache_dirfd;        /* index cache directory (index/cache.h sl_cache_dir_open),
				 * or -1: the index lives in a memfd, dropped at close */
	int rebuild;            /* 1: build even when a valid cache file exists */
};

struct sl_name_sym {
	const char *name;       /* by name: the key that matched; by offset: the symbol's
				 * name. NUL-terminated, inside the index mapping: valid
				 * until sl_names_close */
	const char *version;    /* the .dynsym symbol's version name, "" if none */
	uint64_t value;         /* st_value */
	uint64_t size;          /* st_size, bytes */
	uint64_t offset;        /* the uprobe file offset (above) */
	uint32_t index;         /* index in its table */
	uint32_t table;         /* SL_LOOKUP_SYMTAB or SL_LOOKUP_DYNSYM */
	uint16_t shndx;         /* st_shndx (SHN_UNDEF: an imported symbol) */
	uint8_t type;           /* GELF_ST_TYPE: STT_FUNC 2, STT_GNU_IFUNC 10, STT_OBJECT 1... */
	uint8_t bind;           /* GELF_ST_BIND: STB_LOCAL 0, STB_GLOBAL 1, STB_WEAK 2 */
	uint8_t visibility;     /* GELF_ST_VISIBILITY of st_other */
	uint8_t exec;           /* 1: offset came from an executable PT_LOAD */
	uint8_t hidden;         /* 1: the version is hidden (VERSYM_HIDDEN) */
};

struct sl_names_info {
	char build_id[65];      /* lowercase hex, "" without an NT_GNU_BUILD_ID note */
	char debug_file[4096];  /* the separate debug file .symtab came from, "" if none */
	uint32_t nsymtab, ndynsym;  /* entries of the tables read (with the null symbol) */
	uint32_t nsyms, nkeys;  /* records and name keys in the index */
	uint64_t index_bytes;   /* size of the index file */
	int from_cache;         /* 1: mapped from an existing cache file */
};

/*
 * sl_names_open - map the name index of @path from the cache directory or
 * build it (O(n) reads of both tables plus an O(n log n) sort, written to the
 * cache file or memfd, no per-symbol heap). @opts may be NULL (no cache).
 * Returns 0 with *@out set, or a negative errno with a one-line reason in
 * @err (@errsz bytes): -ENOENT/-EACCES (open), -EINVAL (not an ELF executable
 * or shared object, corrupt headers), -ENOTSUP (not ELFCLASS64 little-endian),
 * -EFBIG, -ENOMEM, -EIO.
 */
int sl_names_open(const char *path, const struct sl_names_opts *opts, struct sl_names **out, char *err,
		  size_t errsz);

/*
 * sl_lookup_by_name - the symbol @name answers to (index/names.h rule: the
 * last STT_FUNC symbol of that name in .symtab-then-.dynsym order, as
 * cilium/ebpf's map keeps it; not found if its offset is 0, an imported
 * function; without an STT_FUNC symbol, the last defined one of another
 * type) into *@out. Returns 1 (found) or 0. O(1); no allocation.
 */
int sl_lookup_by_name(const struct sl_names *n, const char *name, struct sl_name_sym *out);

/*
 * sl_lookup_by_offset - the STT_FUNC / STT_GNU_IFUNC symbol whose
 * [offset, offset + max(size, 1)) holds the file offset @offset (innermost
 * first; among equal starts FUNC, GLOBAL, WEAK, LOCAL, then table order).
 * Returns 1 (found) or 0. O(log n); no allocation.
 */
int sl_lookup_by_offset(const struct sl_names *n, uint64_t offset, struct sl_name_sym *out);

/* sl_names_get_info - facts about the opened index into *@info. */
void sl_names_get_info(const struct sl_names *n, struct sl_names_info *info);

/* sl_names_close - unmap the index and free @n (NULL ok). */
void sl_names_close(struct sl_names *n);

#endif
