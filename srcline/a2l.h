/* SPDX-License-Identifier: MIT */
/*
 * a2l.h - GNU addr2line 2.40 (Debian 12: `addr2line -e F -i -f`, optionally
 * `-a`), answered in-process, byte for byte, for an ELF file in which
 * binutils finds no debug information at all, so that every answer comes
 * from the symbol table alone (bfd/elf.c _bfd_elf_find_nearest_line_with_alt
 * falls through DWARF 2, DWARF 1 and stabs to bfd/dwarf2.c
 * _bfd_elf_find_function). perf (util/srcline.c addr2line()) keeps one such
 * child per DSO and writes "%016llx\n,\n" per query; for DSOs without DWARF
 * (librustc_driver, libLLVM) binutils spends ~50 ms per query scanning the
 * symbol table and demangling every name for the "," sentinel.
 *
 * What is mirrored (binutils-2.40 sources; none of their code is copied):
 *   - binutils/addr2line.c slurp_symtab: the canonical symbols are .symtab
 *     without its null entry; when that gives none, .dynsym. Names come
 *     unversioned (bfd/elfcode.h elf_slurp_symbol_table, bfd/elf.c
 *     bfd_elf_sym_name: no "@VER" in 2.40; an st_name outside the string
 *     table reads "(null)"); section from st_shndx, value section-relative;
 *   - binutils/addr2line.c translate_addresses: fgets into char[100] (lines
 *     of at most 99 bytes; longer ones arrive in pieces), is_symbol (a line
 *     whose first non-blank is not a digit, and is not A-F/a-f on a line
 *     without '+', names a symbol: lookup_symbol, exact name then demangled
 *     name, else 0), else strtoul(line, 16) (bfd/bfd.c bfd_scan_vma on an
 *     LP64 host); 64-bit ELF masks nothing and x86-64 does not sign-extend;
 *     `-a` prints "0x%016lx\n" (bfd_printf_vma); "??\n??:0\n" when nothing
 *     was found; else the function name ("??" when empty), "\n", the file
 *     name or "??", ":?\n" (line 0); no inline frames (no DWARF);
 *   - find_address_in_section: every SHF_ALLOC section in section header
 *     order whose [sh_addr, sh_addr + sh_size) holds pc is tried until one
 *     answers (.tbss overlaps the sections after it);
 *   - bfd/dwarf2.c _bfd_elf_find_function (2.40: no better_fit, no size
 *     shrinking) with bfd/elf.c _bfd_elf_maybe_function_sym: candidates are
 *     the symbols of that section that are not STT_SECTION, STT_FILE,
 *     STT_OBJECT/STT_COMMON, STT_TLS, STT_RELC/SRELC, and not a zero-size
 *     local hidden STT_NOTYPE one; size = st_size or 1; the winner is the
 *     greatest value <= offset (whatever its size), then the greatest size,
 *     then the first in table order; its file name is the last STT_FILE
 *     symbol before it in table order, unless it is not local and an
 *     STT_FILE symbol followed some other symbol before it;
 *   - the one-entry cache of _bfd_elf_find_function (last section, func,
 *     func_size): a query in the same section inside [func, func + size)
 *     answers with the cached function even if a nested symbol is nearer
 *     (struct a2l_table.c_sec / c_func); so answers depend on the previous
 *     queries exactly as binutils' do.
 * A file with its own .debug_info (bfd then reads it and follows no debug
 * link) is answered from the DWARF table as well (srcline/a2l_dwarf.h:
 * A2L_F_DWARF, "<key>.a2d"): bfd/elf.c _bfd_elf_find_nearest_line_with_alt
 * -> bfd/dwarf2.c _bfd_dwarf2_find_nearest_line_with_alt, the done: block's
 * _bfd_elf_find_function and its renaming of non-linkage functions (state
 * per session), _bfd_dwarf2_find_inliner_info for -i (the first frame's
 * discriminator is printed on every frame, as translate_addresses does);
 * queries in a non-code section (bfd's do_line) or in a zone where the
 * lazy unit order matters set need_real, and a2l_serve hands the session
 * over to the real addr2line.
 * Limits: only ELFCLASS64 little-endian EM_X86_64 ET_EXEC/ET_DYN files
 * (a2l_eligible says 0 otherwise: the caller runs the real addr2line), and
 * eligibility is conservative (a debug file that merely exists, any
 * .debug* section other than the .debug_info family of a file that has
 * .debug_info, makes a file ineligible even where bfd would reject it);
 * refused (a2l_eligible 0, a2l_open -EINVAL/-ENOTSUP) where bfd's reading
 * could differ from ours: SHT_SYMTAB_SHNDX, symbol table sh_entsize not 24,
 * a string table that is not a NUL-ended SHT_STRTAB, e_shentsize not 64.
 * A line naming a symbol other than "," (perf never sends one) is looked up
 * by a linear scan of the ELF file, as binutils does, demangling with the
 * libiberty linked here (libiberty-dev of the same release as binutils
 * 2.40 on Debian 12) and allocating; "," is answered from the table.
 *
 * The table is a self-contained cache file "<key %016llx>.a2l" in the cache
 * directory (index/cache.h), key = FNV-1a 64 over the little-endian u64
 * words A2L_VERSION, st_dev, st_ino, st_size, st_mtim.tv_sec,
 * st_mtim.tv_nsec, st_ctim.tv_sec, st_ctim.tv_nsec (index/names.h symnames_key
 * plus the change time), validated on open
 * (magic, version, sizes, checksum, every index and string ref).
 */
#ifndef SYMLAZY_A2L_H
#define SYMLAZY_A2L_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define A2L_MAGIC   "SYMLZA2L"
#define A2L_VERSION 3u         /* 2: st_ctim in the key and the header; 3: A2L_F_DWARF */
#define A2L_ENDIAN  0x0102030405060708ull
#define A2L_NONE    0xffffffffu
#define A2L_SUFFIX  ".a2l"
#define A2L_LINE    100         /* addr2line.c translate_addresses: char addr_hex[100] */

/* header flags */
#define A2L_F_SYMS    1u        /* addr2line has symbols (syms != NULL) */
#define A2L_F_DYNSYM  2u        /* they are .dynsym's */
#define A2L_F_COMMA   4u        /* a symbol is named exactly "," (comma_pc) */
#define A2L_F_DWARF   8u        /* bfd reads the file's own .debug_info: answers need "<key>.a2d" */

/* The file: header, sections, functions, strings (each 8-aligned, in this
 * order, host byte order). */
struct a2l_hdr {
	char magic[8];                  /*   0 A2L_MAGIC */
	uint32_t version, hdr_size;     /*   8 */
	uint64_t endian;                /*  16 A2L_ENDIAN */
	uint64_t checksum;              /*  24 symindex_checksum() of bytes [32, file_size) */
	uint64_t file_size;             /*  32 */
	uint64_t key;                   /*  40 */
	uint64_t dev, ino, size;        /*  48 stat(2) identity of the ELF file */
	int64_t mtime_sec, mtime_nsec;  /*  72 */
	uint32_t flags;                 /*  88 A2L_F_* */
	uint32_t nsecs, nfuncs;         /*  92 */
	uint32_t max_str;               /* 100 the longest string's length */
	uint64_t secs_off, funcs_off, strings_off, strings_size; /* 104 */
	uint64_t comma_pc;              /* 136 the pc the line "," reads (0 without A2L_F_COMMA) */
	int64_t ctime_sec, ctime_nsec;  /* 144 st_ctim: a file rewritten in place with its
					 * size and mtime restored is not the same file */
};                                      /* 160 bytes */

struct a2l_sec {                        /* one SHF_ALLOC section, 32 bytes */
	uint64_t vma, size;             /* sh_addr, sh_size */
	uint32_t first, end;            /* its functions: funcs[first, end) */
	uint32_t shndx, flags;          /* A2L_S_CODE: SHF_EXECINSTR (bfd SEC_CODE) */
};
#define A2L_S_CODE 1u

struct a2l_func {                       /* the best candidate at one value, 24 bytes */
	uint64_t off, size;             /* st_value - sh_addr; st_size or 1 */
	uint32_t name, file;            /* string refs (file: A2L_NONE: no file name) */
};

/* A string ref is the offset in the string area of a u32 length, the bytes,
 * a NUL and zero padding to a multiple of 4. */

struct a2d_hdr;

struct a2l_table {
	void *map;
	size_t map_size;
	const struct a2l_hdr *h;
	const struct a2l_sec *secs;
	const struct a2l_func *funcs;
	const unsigned char *strings;
	int from_cache;                 /* 1: mapped from an existing cache file */
	/* _bfd_elf_find_function's cache: section (A2L_NONE: NULL) and func */
	uint32_t c_sec, c_func;
	char path[4096];                /* the ELF file, for symbol-name lines */
	/* A2L_F_DWARF: the DWARF table (srcline/a2l_dwarf.h) and the state
	 * bfd's done: block keeps per funcinfo: 0 as read, 1 is_linkage set,
	 * 2 + ref: is_linkage set and the name replaced by this string ref of
	 * the symbol table's string area */
	void *dmap;
	size_t dmap_size;
	const struct a2d_hdr *dh;
	uint32_t *fstate;               /* mmap'd, dh_nfuncs entries */
	uint32_t dh_nfuncs;
	int need_real;                  /* a2l_answer met a query only binutils answers */
	int no_heap;                    /* the forked child gave perf's heap back (core/a2lsess.c):
					 * no malloc; a symbol-name line other than "," is handed
					 * to the real addr2line (need_real) */
	uint64_t answered;              /* queries a2l_serve answered itself */
	_Atomic uint64_t *live_answered;        /* if set: answered, stored as it grows (stats) */
	_Atomic uint32_t *live_handed;          /* if set: 1 at the hand-over (stats) */
	char exe[4096];                 /* the addr2line of a2l_serve's fallback ("": /usr/bin/addr2line) */
};

/*
 * a2l_eligible - a yes/no answer (not util/reason.h's 0/1 convention): 1
 * when GNU addr2line 2.40 reads no debug information for the ELF file
 * @path, so that a2l_answer is its answer; otherwise the reason in @why
 * (util/reason.h) and -errno when the file is not one whose symbol table is
 * mirrored (-ENOENT/-EACCES: open, SL_R_OPEN_FAILED; -EINVAL: not a regular
 * file SL_R_NOT_REGULAR, not ELF or corrupt headers SL_R_NOT_ELF, symbol
 * table SL_R_A2L_SYMTAB; -ENOTSUP: not a 64-bit LE x86-64 ET_EXEC/ET_DYN
 * file SL_R_A2L_ELF_KIND, extended section indexes SL_R_A2L_SYMTAB), 0 when
 * binutils would read debug information (SL_R_A2L_DEBUG: a section; SL_R_A2L_DEBUG_FILE:
 * a separate debug file): a section bfd reads line information from
 * (.debug_* / .zdebug_* / .gnu.linkonce.wi.* (bfd/dwarf2.c find_debug_info),
 * .debug (bfd/dwarf1.c), .stab (bfd/syms.c), .gnu_debugaltlink); or a
 * separate debug file bfd/dwarf2.c _bfd_dwarf2_slurp_debug_info would look
 * at: any file that exists at a path bfd/opncls.c find_separate_debug_file
 * tries for bfd_follow_build_id_debuglink (".build-id/xx/rest.debug" under
 * ".", ".debug/", /usr/lib/debug, /usr/lib/debug/usr, /usr/lib/debug) or
 * bfd_follow_gnu_debuglink (the .gnu_debuglink name in the file's directory,
 * its .debug/, and under /usr/lib/debug, /usr/lib/debug/usr and
 * /usr/lib/debug again followed by the realpath directory) - existence is
 * enough (conservative: no CRC or build-id check).
 */
struct sl_why;
int a2l_eligible(const char *path, struct sl_why *why);

/* a2l_has_dwarf - 1 when the ELF file @path has its own .debug_info (its
 * answers would come from the DWARF table, built on the heap), else 0. */
int a2l_has_dwarf(const char *path);

/* a2l_key - the cache key of a file with this stat(2) identity. */
uint64_t a2l_key(const struct stat *st);

/* a2l_file_name - "<key %016llx>.a2l" into @buf (@n bytes). */
void a2l_file_name(uint64_t key, char *buf, size_t n);

/*
 * a2l_open - map the table of the ELF file @path from the cache directory
 * @dirfd (index/cache.h sl_cache_dir_open; -1: none) or build it there
 * (without a directory: in a memfd, dropped at close). Eligibility is the
 * caller's (a2l_eligible). The cache of answers starts empty, as in a new
 * addr2line process. Cost: O(n) to validate; a build reads the symbol table
 * once and sorts in the mapping it writes (O(n log n)), no per-symbol heap.
 * Returns 0, or -errno with the reason in @why (util/reason.h):
 * -ENOENT/-EACCES/-ENAMETOOLONG (open: SL_R_OPEN_FAILED), -EINVAL (not a
 * regular file, not ELF, corrupt headers or tables: SL_R_NOT_REGULAR,
 * SL_R_NOT_ELF, SL_R_A2L_SYMTAB), -ENOTSUP (not ELFCLASS64 LE x86-64
 * executable or shared object: SL_R_A2L_ELF_KIND; SHN_XINDEX:
 * SL_R_A2L_SYMTAB), -EFBIG (SL_R_TOO_BIG), -ENOMEM (SL_R_NOMEM), -EIO (the
 * table file: SL_R_A2L_INDEX); the file's own DWARF outside the mirrored
 * class: SL_R_A2L_DWARF (srcline/a2l_dwarf.h a2l_dw_open).
 */
int a2l_open(const char *path, int dirfd, struct a2l_table *out, struct sl_why *why);
void a2l_close(struct a2l_table *t);

/*
 * a2l_validate - 0 if @map (@size bytes) is a usable table, else -EINVAL:
 * magic, version, endianness, layout, checksum, sections sorted by index
 * with function ranges ascending and inside the table, functions sorted by
 * value inside each section, every string ref in bounds and NUL-terminated.
 * Queries never read out of bounds once this passed.
 */
int a2l_validate(const void *map, size_t size);

/*
 * a2l_answer - the bytes addr2line 2.40 `-i -f` (`-a -i -f` with
 * @with_addresses) writes for the input piece @line (@len bytes, as one
 * fgets(buf, 100, stdin) returned it: at most 99 bytes, a NUL ends it
 * early), into @out (@outsz bytes; 2 * h->max_str + 64 always suffice).
 * Updates the one-entry cache in @t. Returns the byte count the answer
 * has, like snprintf: only the first @outsz bytes are stored. O(#sections + log n), no allocation for a
 * hex line or ","; a line naming another symbol scans the ELF file.
 */
size_t a2l_answer(struct a2l_table *t, const char *line, size_t len, int with_addresses, char *out,
		  size_t outsz);

/* a2l_answer_max - the most bytes one a2l_answer can need for @t. */
size_t a2l_answer_max(const struct a2l_table *t);

/*
 * a2l_serve - addr2line's loop (with a DWARF table: a query a2l_answer
 * cannot answer (t->need_real) hands the session to the real addr2line
 * t->exe: it is started with perf's arguments, fed every input piece so
 * far (kept in a memfd, not in memory) and then the rest; its first bytes,
 * the answers already given, are dropped, the rest is passed through): read @in_fd to EOF, cut it into the pieces
 * fgets(buf, 100) would (through a '\n', at most 99 bytes, the rest at EOF),
 * answer each and write(2) the answers to @out_fd (those of the pieces one
 * read(2) completed, in one write). No stdio, no allocation per query.
 * Returns 0 at EOF or -errno (read/write; EINTR is retried; -EPIPE when the
 * reader is gone).
 */
int a2l_serve(int in_fd, int out_fd, struct a2l_table *t, int with_addresses);

/*
 * a2l_build - for srcline/a2l.c only: build the table of the ELF file open
 * as @fd (stat @st) into a new file in @dirfd (temporary name, renamed when
 * complete) or a memfd, and map it into @out. 0 or -errno with @why set
 * (as a2l_open).
 */
struct stat;
int a2l_build(const char *path, int fd, const struct stat *st, int dirfd, struct a2l_table *out,
	      struct sl_why *why);

/* a2l_attach - fill @out from a validated mapping (a2l.c). */
void a2l_attach(struct a2l_table *out, void *map, size_t size);

#endif
