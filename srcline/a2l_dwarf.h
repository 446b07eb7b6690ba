/* SPDX-License-Identifier: MIT */
/*
 * a2l_dwarf.h - internal to srcline/: GNU addr2line 2.40's DWARF answers
 * (bfd/dwarf2.c _bfd_dwarf2_find_nearest_line_with_alt without do_line, and
 * _bfd_dwarf2_find_inliner_info) for an ELF file whose own .debug_info bfd
 * reads, from a sibling cache file "<key>.a2d" (same key as "<key>.a2l").
 *
 * What binutils computes lazily (units read in .debug_info order as queries
 * need them, each unit's line table and function table decoded on its first
 * query, their ranges then added to the unit's ranges and the lookup trie)
 * is computed here eagerly, and answered only where laziness cannot change
 * an answer: outside the "zones" (struct a2d_zone) - where units' own
 * ranges (DW_AT_low_pc/high_pc, DW_AT_ranges) overlap, and where a
 * function range or line sequence of a unit lies outside that unit's own
 * ranges (a unit without ranges: all of them) - restricted to SHF_ALLOC
 * sections (where a query can land). Outside the zones the answer for an
 * address is the one unit holding it, or none:
 *   - lookup_address_in_function_table: among the unit's DW_TAG_subprogram,
 *     DW_TAG_entry_point and DW_TAG_inlined_subroutine ranges (arange_add
 *     merges a range into an adjacent one) holding the address, the
 *     shortest; ties go to the later DIE (bfd compares funcinfo pointers,
 *     allocated in DIE order); precomputed as disjoint intervals;
 *   - lookup_address_in_line_info_table: the sequences sorted and trimmed
 *     (sort_line_sequences), the last row at each address kept
 *     (add_line_info, PR ld/4986), file names by concat_filename at decode
 *     time; precomputed as disjoint intervals (file, line, discriminator);
 *   - names: DW_AT_linkage_name / DW_AT_MIPS_linkage_name over DW_AT_name,
 *     DW_AT_name a linkage name where mangle_style(DW_AT_language) is 0,
 *     DW_AT_abstract_origin / DW_AT_specification followed by
 *     find_abstract_instance (which follows DW_AT_specification only);
 *   - callers: the nearest enclosing function DIE of an inlined subroutine,
 *     with its DW_AT_call_file (concat_filename) and DW_AT_call_line.
 * The per-session state of the `done:` block (a function whose name is not
 * a linkage name takes the ELF symbol's name when that symbol starts at its
 * first range, and is marked a linkage name either way) lives in the table's
 * fstate array, so answers depend on earlier queries as binutils' do.
 * Refused (a2l_open fails, the real addr2line runs): DWARF 2/3, 64-bit
 * DWARF, units other than DW_UT_compile, split DWARF, strx/addrx/rnglistx
 * forms, DW_FORM_GNU_ref_alt/strp_alt, .zdebug, more than one .debug_info,
 * lines out of address order within a sequence, a maximum_ops_per_insn
 * other than 1, two units sharing line offset 0, more than 16 MiB of
 * .debug_info + .debug_line. Served, but handed over to the real addr2line
 * when a query lands there (a2l.h a2l_serve): the zones where the lazy
 * order can matter (units' ranges overlapping, a function range or line
 * sequence outside its unit's ranges, e.g. a COMDAT function two units
 * claim) and addresses in non-code sections (bfd's do_line lookup by
 * symbol in the variable and function tables).
 */
#ifndef SYMLAZY_A2L_DWARF_H
#define SYMLAZY_A2L_DWARF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define A2D_MAGIC   "SYMLZA2D"
#define A2D_VERSION 1u
#define A2D_SUFFIX  ".a2d"
#define A2D_MAX_DEPTH 4096      /* inline chain depth served */

#define A2D_F_LINKAGE 1u        /* funcinfo.is_linkage at start */
#define A2D_F_INLINED 2u        /* DW_TAG_inlined_subroutine */

struct a2d_hdr {
	char magic[8];                  /*   0 A2D_MAGIC */
	uint32_t version, hdr_size;     /*   8 */
	uint64_t endian;                /*  16 A2L_ENDIAN */
	uint64_t checksum;              /*  24 symindex_checksum() of bytes [32, file_size) */
	uint64_t file_size;             /*  32 */
	uint64_t key;                   /*  40 a2l_key of the ELF file */
	uint64_t dev, ino, size;        /*  48 */
	int64_t mtime_sec, mtime_nsec;  /*  72 */
	int64_t ctime_sec, ctime_nsec;  /*  88 */
	uint32_t nranges, ncus, nfints, nlints; /* 104 */
	uint32_t nfuncs, max_str, max_depth, nzones; /* 120 */
	uint64_t ranges_off, cus_off, fints_off, lints_off, funcs_off; /* 136 */
	uint64_t strings_off, strings_size;     /* 176 */
	uint64_t zones_off;             /* 192 struct a2d_zone[nzones], after the strings */
};                                      /* 200 bytes */

/* where binutils' answer can depend on the order units were read (or on
 * what is not mirrored): a query there hands the session to the real
 * addr2line (a2l_serve replays the queries so far) */
struct a2d_zone { uint64_t lo, hi; };

struct a2d_range { uint64_t lo, hi; uint32_t cu, pad; };       /* a unit's own range, 24 */
struct a2d_cu { uint32_t f_first, f_end, l_first, l_end; };     /* its intervals, 16 */
struct a2d_fint { uint64_t lo, hi; uint32_t fn, pad; };          /* best function, 24 */
struct a2d_lint { uint64_t lo, hi; uint32_t file, line, discr, pad; }; /* line row, 32 */
struct a2d_func {                       /* one funcinfo, 32 bytes */
	uint64_t low;                   /* arange.low (the first range's low) */
	uint32_t name;                  /* string ref or A2L_NONE (NULL) */
	uint32_t caller;                /* caller_func index (< own index) or A2L_NONE */
	uint32_t call_file;             /* caller_file string ref or A2L_NONE */
	uint32_t call_line;
	uint32_t flags;                 /* A2D_F_* */
	uint32_t pad;
};

struct sl_elfimg;
struct a2l_table;

/* a2l_dw_wanted - 1 when bfd reads DWARF from the ELF image @m itself
 * (a ".debug_info" section), else 0. */
int a2l_dw_wanted(const struct sl_elfimg *m);

/* a2l_dw_validate - 0 if @map (@size bytes) is a usable .a2d table, else
 * -EINVAL: magic, version, layout, checksum, ranges sorted and disjoint,
 * unit interval slices in bounds, intervals sorted and disjoint, function
 * refs in bounds, callers earlier (no cycles), every string ref in bounds. */
int a2l_dw_validate(const void *map, size_t size);

/* a2l_dw_open - map (or build from the ELF at @path, open as @fd) the DWARF
 * table of @t into @t (dirfd: cache directory or -1). 0, or -errno with the
 * reason in @why (util/reason.h): SL_R_A2L_DWARF (-ENOTSUP, -EINVAL, -EFBIG:
 * DWARF outside the served class), SL_R_NOT_ELF, SL_R_A2L_INDEX (the table
 * file), SL_R_NOMEM. */
struct sl_why;
int a2l_dw_open(struct a2l_table *t, const char *path, int fd, const struct stat *st, int dirfd,
		struct sl_why *why);

#endif
