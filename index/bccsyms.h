/* SPDX-License-Identifier: MIT */
/*
 * bccsyms.h - libbcc 0.26's user-space symbolization (ProcSyms), answered
 * from one shared, address-sorted index per symbol file.
 *
 * What bcc does (iovisor/bcc v0.26.0, src/cc/bcc_syms.cc, bcc_elf.c,
 * bcc_proc.c, syms.h), and what is mirrored here:
 *   modules   bcc_procutils_each_module(): executable, file-backed mappings
 *             of /proc/PID/maps in order, one module per distinct name
 *             (ranges appended), then perf maps (/tmp/perf-PID.map); the
 *             module file is /proc/PID/root + name (ModulePath::path());
 *             its type from the ELF header (ET_EXEC: addresses as they are,
 *             ET_DYN: __so_calc_mod_offset with the .text section).
 *   symbols   Module::load_sym_table() -> bcc_elf_foreach_sym[_lazy]():
 *             the debug file found by find_debug_file() (build-id under
 *             /usr/lib/debug or BCC_DEBUGINFO_ROOT, then .gnu_debuglink with
 *             its CRC) is listed first, then the module file; per file every
 *             SHT_SYMTAB/SHT_DYNSYM section in header order, every symbol with
 *             a name, st_value != 0 and its type in use_symbol_type, in table
 *             order; then std::sort by start alone (not stable: the order of
 *             equal starts depends on the whole vector, so it is reproduced
 *             with the same libstdc++ algorithm, index/bccsort.cc).
 *   lookup    Module::find_addr(): upper_bound, then walk back while the
 *             start <= offset, first symbol whose [start, start+size) holds
 *             the offset wins, stop at one that ends before the nearest start.
 *   demangle  __cxa_demangle() of names starting "_Z" or "___Z".
 * The index (struct sl_bcc_ent, in bcc's sorted order) lives in a memfd,
 * names are read from a read-only mapping of the symbol file: page cache,
 * no per-symbol heap, one index per file shared by every PID.
 *
 * Whatever is not mirrored exactly (perf maps, memfd and zip modules, [vdso], BCC_SYMFS,
 * a module that cannot be opened, a process whose exe changed, demangling
 * without __cxa_demangle) makes sl_bcc_resolve() return SL_BCC_DELEGATE: the
 * caller asks the real libbcc, on its own cache made at the same time.
 */
#ifndef SYMLAZY_BCCSYMS_H
#define SYMLAZY_BCCSYMS_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include "util/elfops.h"
#include "index/elfx.h"
#include "util/reason.h"

/* struct bcc_symbol / struct bcc_symbol_option of bcc_syms.h (v0.26.0). */
struct sl_bcc_symbol {
	const char *name;
	const char *demangle_name;
	const char *module;
	uint64_t offset;
};

struct sl_bcc_option {
	int use_debug_file;
	int check_debug_file_crc;
	int lazy_symbolize;
	uint32_t use_symbol_type;
};

/* ProcSyms' default option (bcc_syms.cc ProcSyms::ProcSyms). */
#define SL_BCC_DEFAULT_TYPES ((1u << STT_FUNC) | (1u << STT_GNU_IFUNC))

/* One symbol as bcc keeps it, in bcc's sorted order. */
struct sl_bcc_ent {
	uint64_t start, size;
	uint64_t name_off;          /* file offset of the NUL-terminated name */
	uint32_t name_len;
	uint32_t idx;               /* index in its table */
	uint16_t shndx;             /* section index of its table */
	uint8_t file;               /* 0 the debug file, 1 the module file */
	uint8_t table;              /* 0 .symtab (SHT_SYMTAB), 1 .dynsym */
	uint32_t seq;               /* position in bcc's vector before the sort */
};

/* One symbol file pair (module + debug file) with its index; shared, never freed. */
struct sl_bcc_index {
	struct sl_bcc_index *next;
	struct sl_file_id id[2];    /* [0] debug file (valid=0: none), [1] module */
	uint32_t types;             /* use_symbol_type */
	int use_debug, check_crc;
	char path[2][PATH_MAX];     /* as opened */
	const char *map[2];         /* read-only mappings (names) */
	size_t map_size[2];
	struct sl_bcc_ent *ents;    /* memfd mapping */
	size_t n, map_bytes;
	int unmodelable;            /* bcc would do something not mirrored */
	struct sl_why why;          /* then: SL_R_BCC_TABLE, the detail says what */
	struct { uint8_t file; uint16_t shndx; uint32_t nsyms; } tabs[8];
	unsigned ntabs;             /* the symbol tables listed */
};

/* What bcc learns by opening a file, remembered by file identity (bpftrace
 * makes a new ProcSyms per address): the module type and .text, and the
 * debug file find_debug_file() picks for this path string and options. */
struct sl_bcc_memo {
	struct sl_bcc_memo *next;
	struct sl_file_id id;
	int kind;                   /* enum sl_bcc_kind */
	uint64_t text_addr, text_off;
	int dbg_state;              /* 0 not searched, 1 found, 2 none, -1 not mirrored */
	int dbg_crc;                /* check_crc of that search */
	char *path, *dbg;           /* the module path searched from; debug file */
	struct sl_file_id dbg_id;
};

/* Process-wide registry of indexes and debug-file search results. */
struct sl_bcc_registry {
	pthread_mutex_t lock;
	struct sl_bcc_index *head;
	struct sl_bcc_memo *memo;
	const struct elf_ops *ops;
	const char *(*getenv_fn)(const char *);
	unsigned long built, reused;
	struct sl_bcc_charged *charged;  /* budget plans, one per index and model */
};

void sl_bcc_registry_init(struct sl_bcc_registry *r, const struct elf_ops *ops,
			  const char *(*getenv_fn)(const char *));

/*
 * sl_bcc_index_get - the index of the symbol file at @path (a module path
 * as bcc opens it) for @opt: found by file identity (and that of its debug
 * file) or built. NULL on error (then bcc's answer cannot be given: delegate).
 */
const struct sl_bcc_index *sl_bcc_index_get(struct sl_bcc_registry *r, const char *path,
					    const struct sl_bcc_option *opt);

/*
 * sl_bcc_index_build - build the index of (@dbg_path or NULL, @path) for @opt
 * into @out (for tests and tools; sl_bcc_index_get uses it). 0 or -errno.
 */
int sl_bcc_index_build(const struct elf_ops *ops, const char *dbg_path, const char *path,
		       const struct sl_bcc_option *opt, struct sl_bcc_index *out);

/*
 * sl_bcc_find_debug - bcc's find_debug_file() for the module file @path
 * (opened as @elf): the debug file's path into @out, 1 if found, 0 if not,
 * -1 if bcc would look somewhere not mirrored (BCC_SYMFS set).
 */
int sl_bcc_find_debug(const struct elf_ops *ops, Elf *elf, const char *path, int check_crc,
		      const char *(*getenv_fn)(const char *), char *out, size_t n);

/*
 * sl_bcc_find - bcc's Module::find_addr() on @idx for @offset: the entry
 * index that answers, or -1. */
long sl_bcc_find(const struct sl_bcc_index *idx, uint64_t offset);

/* sl_bcc_name - the name of entry @i (NUL-terminated, in the file mapping). */
const char *sl_bcc_name(const struct sl_bcc_index *idx, size_t i);

/* sl_bcc_sort - std::sort of bcc's vector by start (index/bccsort.cc). */
void sl_bcc_sort(struct sl_bcc_ent *e, size_t n);

/* ---- plans for libbcc's own scans ---------------------------------------- */

struct sl_bcc_charged;

/* One table's keep-set: which symbols bcc's scan of it may see. */
struct sl_bcc_keep {
	struct sl_file_id id;       /* the file */
	uint32_t shndx, nsyms;
	uint8_t *keep;              /* bit per table index */
};

/* What one bcc_elf_foreach_sym[_lazy](path) call may see (core/bccplan.c). */
struct sl_bcc_plan {
	int lazy;                   /* 1: SYMLAZY_ADDRS keep-set, 0: budget */
	int reused;                 /* a budget plan made (and charged) before */
	struct sl_bcc_keep t[8];
	unsigned nt;
	uint64_t charged, passed, dropped, honest_drops;
};

struct budget;
struct sl_model;

/*
 * sl_bcc_plan_budget - charge @idx's symbols in the order bcc pushes them
 * (debug file, then module; tables in header order) at @m's cost until @b
 * refuses, then drop what could answer wrongly in bcc's lookup: of symbols
 * with one start and size only the one bcc's sorted vector answers with
 * stays, and the reduced vector is sorted as bcc will sort it and checked
 * over every kept symbol's range against the full one; a symbol that
 * answers where the full table answers otherwise is dropped (repeated until
 * none does; at worst nothing is kept). 0 or -ENOMEM (then nothing is kept).
 */
int sl_bcc_plan_budget(const struct sl_bcc_index *idx, struct budget *b, const struct sl_model *m,
		       struct sl_bcc_plan *out);

/*
 * sl_bcc_plan_addrs - the keep-set for @vaddrs (bcc's offsets: st_value
 * space, sorted): the symbol bcc answers each with, checked on the reduced
 * vector as bcc will sort it. 0 with @out set, 1 (fall back, util/reason.h:
 * keep the full table) when the reduced vector answers some address
 * differently (@why: SL_R_BCC_REDUCED, the address), -ENOMEM (@why:
 * SL_R_NOMEM).
 */
int sl_bcc_plan_addrs(const struct sl_bcc_index *idx, const uint64_t *vaddrs, size_t n,
		      struct sl_bcc_plan *out, struct sl_why *why);

void sl_bcc_plan_free(struct sl_bcc_plan *p);

/* sl_bcc_plan_keep - the keep-set for table @shndx of the file @id, or NULL. */
const struct sl_bcc_keep *sl_bcc_plan_keep(const struct sl_bcc_plan *p, const struct sl_file_id *id,
					   uint32_t shndx);

/* ---- one ProcSyms ------------------------------------------------------- */

enum sl_bcc_kind { SL_BCC_MOD_EXEC = 1, SL_BCC_MOD_SO, SL_BCC_MOD_DELEGATE };

struct sl_bcc_range {
	uint64_t start, end, file_offset;
};

struct sl_bcc_mod {
	char *name;                 /* the name bcc reports (maps path) */
	char *path;                 /* /proc/PID/root + name */
	enum sl_bcc_kind kind;
	struct sl_bcc_range *r;
	size_t nr, cap;
	uint64_t text_addr, text_off;
	const struct sl_bcc_index *idx;
	int loaded;                 /* idx looked up (lazy, as load_sym_table) */
};

struct sl_bcc_proc {
	int pid;
	struct sl_bcc_option opt;
	struct sl_bcc_mod *mods;
	size_t nmods;
	int has_perf_map;           /* a perf map module follows the ELF ones */
	int delegate_all;           /* exe changed (ProcStat::is_stale) or setup failed */
	int exe_ino_ok;
	ino_t exe_ino;
	char root[PATH_MAX], mntns[64];
};

/*
 * sl_bcc_proc_load - what ProcSyms(@pid, @opt) reads at construction
 * (/proc/PID/maps, module types, ProcStat). @opt NULL = bcc's default.
 * @proc_root: "/proc" (tests pass a fake tree). 0 or -errno (then every
 * answer is delegated).
 */
int sl_bcc_proc_load(struct sl_bcc_proc *p, struct sl_bcc_registry *r, int pid,
		     const struct sl_bcc_option *opt, const char *proc_root);
void sl_bcc_proc_free(struct sl_bcc_proc *p);

/* sl_bcc_proc_parse_maps - the module list from a maps text (@maps, NUL-
 * terminated), as _procfs_maps_each_module + ProcSyms::_add_module do. */
int sl_bcc_proc_parse_maps(struct sl_bcc_proc *p, struct sl_bcc_registry *r, const char *maps,
			   const char *proc_root);

enum sl_bcc_answer { SL_BCC_DELEGATE = -2, SL_BCC_NOTFOUND = -1, SL_BCC_FOUND = 0 };

/* A demangler with __cxa_demangle's contract (malloc'ed result or NULL). */
typedef char *(*sl_bcc_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

/*
 * sl_bcc_resolve - ProcSyms::resolve_addr(@addr, @sym, @demangle):
 * SL_BCC_FOUND / SL_BCC_NOTFOUND with *@sym filled exactly as bcc fills it,
 * or SL_BCC_DELEGATE (nothing written): ask the real libbcc.
 * @dem may be NULL (then demangling answers are delegated).
 */
int sl_bcc_resolve(struct sl_bcc_proc *p, struct sl_bcc_registry *r, uint64_t addr,
		   struct sl_bcc_symbol *sym, int demangle, sl_bcc_demangle_fn dem);

#endif
