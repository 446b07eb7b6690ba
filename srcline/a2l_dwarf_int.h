/* SPDX-License-Identifier: MIT */
/*
 * a2l_dwarf_int.h - internal to srcline/a2l_dwarf*.c: the build state of
 * the DWARF table (srcline/a2l_dwarf.h) shared by the reader
 * (a2l_dwarf_read.c: sections, abbreviations, attributes, ranges, the line
 * program), the DIE scan and unit map (a2l_dwarf_die.c) and the file
 * (a2l_dwarf.c: strings, layout, validation, open).
 */
#ifndef SYMLAZY_A2L_DWARF_INT_H
#define SYMLAZY_A2L_DWARF_INT_H

#include <stddef.h>
#include <stdint.h>
#include <elf.h>
#include "srcline/a2l_elf.h"
#include "util/reason.h"
#include "util/util.h"

#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2     /* gABI */
#endif
#define A2D_MAX_DWARF (16u << 20)    /* ~1.5 s of table build */
#define MAX_ACTIVE 4096

struct vec { void *p; size_t n, cap, sz; };

struct dsec { const unsigned char *p; uint64_t n; void *owned; int present; };

struct rd { const unsigned char *p, *e; int bad; };

struct abbr { uint32_t code, tag, children, first, nattr; };
struct aattr { uint32_t name, form; int64_t ic; };

struct arng { uint64_t lo, hi; };

struct fn {                     /* one funcinfo while building */
	uint32_t cu, caller, flags, call_line;
	const char *name, *call_file_s;
	char *call_file;        /* owned */
	uint32_t first_rng, nrng;       /* in b->frng, bfd's arange list order */
	uint64_t die;           /* .debug_info offset */
};

struct file_ent { const char *name; uint32_t dir; };

struct unit {
	uint64_t off, end, first_die;   /* in .debug_info */
	unsigned version, addr_size;
	uint32_t abbr_first, abbr_n, abbr_maxcode, *abbr_by_code;
	uint64_t lang, base, line_off;
	int stmtlist, compile;
	const char *comp_dir;
	struct vec own;         /* struct arng: initial aranges */
	struct vec extra;       /* struct arng: function ranges and line sequences */
	/* line table */
	struct vec dirs, files; /* const char *, struct file_ent */
	int use0;
	uint32_t fn_first, fn_end;
	uint32_t l_first, l_end, f_first, f_end;    /* output slices */
};

struct ltmp { uint64_t lo, hi; const char *f; uint32_t line, discr; };
struct lrow { uint64_t addr; const char *file; uint32_t line, discr; int end; };
struct seq { uint64_t low, end; uint32_t first, n, idx; };  /* rows in b->rows */

struct bld {
	const struct sl_elfimg *m;
	struct dsec info, abbrev, line, str, line_str, ranges, rnglists;
	struct vec units, abbrs, aattrs, fns, frng, rows, seqs, lints, fints, cranges, strs, owned;
	struct vec zone;        /* struct arng: where laziness could matter */
	struct sl_why *why;     /* the refusal: SL_R_A2L_DWARF mostly (util/reason.h) */
};

struct attr {
	uint32_t name, form;
	int kind;
	uint64_t val;
	const char *str;        /* AV_STR: NULL = empty or missing (bfd: NULL) */
};

enum { AV_NONE, AV_INT, AV_STR, AV_BLK };

struct crng { uint64_t lo, hi; uint32_t cu; };

/* cross-file functions (srcline/a2l_dwarf*.c) */
void *a2d_vpush(struct vec *v);
int a2d_load_sec(const struct sl_elfimg *m, const Elf64_Shdr *sh, struct dsec *d);
void a2d_bld_free(struct bld *b);
uint64_t a2d_rd_n(struct rd *r, unsigned n);
uint64_t a2d_rd_uleb(struct rd *r);
int64_t a2d_rd_sleb(struct rd *r);
const char *a2d_cstr(const unsigned char *p, const unsigned char *e);
int a2d_read_abbrevs(struct bld *b, struct unit *u, uint64_t off);
const struct abbr *a2d_abbr_of(const struct bld *b, const struct unit *u, uint64_t code);
int a2d_read_attr(struct bld *b, const struct unit *u, struct rd *r, uint32_t form, int64_t ic, struct attr *a);
int a2d_is_int_form(uint32_t f);
int a2d_arange_add(struct vec *v, uint64_t lo, uint64_t hi);
int a2d_read_rangelist(struct bld *b, const struct unit *u, uint64_t off, struct vec *v);
int a2d_arange_push(struct vec *v, uint64_t lo, uint64_t hi);
const char *a2d_concat_filename(struct bld *b, const struct unit *u, uint64_t file64);
int a2d_decode_lines(struct bld *b, struct unit *u, uint32_t ui);
int a2d_parse_unit(struct bld *b, uint64_t off, uint64_t *next);
int a2d_scan_unit(struct bld *b, uint32_t ui);
void a2d_merge_own(struct bld *b);
int a2d_func_intervals(struct bld *b, struct unit *u);
int a2d_build_map(struct bld *b);
int a2d_arng_cmp(const void *pa, const void *pb);
/* a2d_arng_merge - sort @z[0, n) and merge overlapping or touching ranges
 * in place, dropping empty ones and, with @m, those meeting no SHF_ALLOC
 * section of @m; returns the new count */
size_t a2d_arng_merge(struct arng *z, size_t n, const struct sl_elfimg *m);
int a2d_meets_alloc(const struct sl_elfimg *m, uint64_t lo, uint64_t h);
int a2d_u64_cmp(const void *pa, const void *pb);

#endif
