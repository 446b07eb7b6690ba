/* SPDX-License-Identifier: MIT */
/*
 * srcline/a2l_build.c - what GNU addr2line 2.40 would read of an ELF file
 * without debug information (srcline/a2l.h): eligibility (the debug
 * information search of bfd), the table build straight from the file's
 * bytes (no libelf, no libbfd: libsymlazy.so needs libc only), and the
 * linear symbol-name scan of addr2line.c lookup_symbol.
 *
 * Format facts: ELF-64 Object File Format and the gABI (headers, section
 * headers, symbol tables, notes); binutils-2.40 bfd/elfcode.h
 * elf_slurp_symbol_table, bfd/elf.c bfd_section_from_shdr /
 * bfd_elf_sym_name / _bfd_elf_maybe_function_sym, bfd/dwarf2.c
 * _bfd_elf_find_function / _bfd_dwarf2_slurp_debug_info / find_debug_info,
 * bfd/opncls.c find_separate_debug_file, binutils/addr2line.c slurp_symtab /
 * lookup_symbol, bfd/bfd.c bfd_demangle.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elf.h>
#include <libiberty/demangle.h>
#include "index/format.h"
#include "index/cache.h"
#include "srcline/a2l.h"
#include "srcline/a2l_dwarf.h"
#include "srcline/a2l_elf.h"
#include "util/reason.h"
#include "util/util.h"

#define DEBUGDIR "/usr/lib/debug"       /* Debian's libbfd-2.40-system.so DEBUGDIR */
#define SHN_X86_64_LCOMMON_ 0xff02

/* ---- the ELF image (util/elfimg.h) ---------------------------------------------- */

int a2l_img_open(struct sl_elfimg *m, int fd, size_t size)
{
	int r = sl_elfimg_open(m, fd, size);

	if (r == 0 && (m->eh.e_machine != EM_X86_64 || (m->eh.e_type != ET_EXEC && m->eh.e_type != ET_DYN))) {
		sl_elfimg_close(m);
		return -ENOTSUP;
	}
	return r;
}

/*
 * The symbols addr2line.c slurp_symtab canonicalizes: the first SHT_SYMTAB
 * (bfd/elf.c bfd_section_from_shdr ignores later ones) if it has more than
 * its null entry, else the first SHT_DYNSYM's; none: t->n = 0. -EINVAL when
 * bfd would fail or read differently than we can mirror: sh_entsize not 24,
 * data outside the file, a string table that is not a NUL-ended SHT_STRTAB;
 * -ENOTSUP: an SHT_SYMTAB_SHNDX section (extended indexes).
 */
int a2l_canon_table(const struct sl_elfimg *m, struct a2l_tab *t)
{
	struct sl_elfimg_symtab st;
	Elf64_Shdr sh;
	size_t idx[2] = { 0, 0 };

	memset(t, 0, sizeof(*t));
	for (size_t i = 1; i < m->shnum; i++) {
		if (sl_elfimg_shdr(m, i, &sh) < 0)
			return -EINVAL;
		if (sh.sh_type == SHT_SYMTAB_SHNDX)
			return -ENOTSUP;
		if (sh.sh_type == SHT_SYMTAB && !idx[0])
			idx[0] = i;
		if (sh.sh_type == SHT_DYNSYM && !idx[1])
			idx[1] = i;
	}
	for (int k = 0; k < 2; k++) {
		if (!idx[k] || sl_elfimg_shdr(m, idx[k], &sh) < 0)
			continue;
		/* bfd_section_from_shdr fails the whole file on a bad
		 * sh_entsize or an sh_info (first global) past the table */
		if (sl_elfimg_symtab(m, &sh, 0, &st) < 0 || (uint64_t)sh.sh_info * sizeof(Elf64_Sym) > sh.sh_size)
			return -EINVAL;
		if (st.n <= 1)
			continue;               /* canonicalizes to no symbols: next table */
		if (st.n >= A2L_NONE)
			return -EFBIG;
		if (sl_elfimg_symtab(m, &sh, SL_ELFIMG_STRTAB_NUL, &st) < 0)
			return -EINVAL;
		t->off = sh.sh_offset;
		t->n = (uint32_t)st.n;
		t->str_off = (uint64_t)(st.str - m->p);
		t->str_size = st.strsz;
		t->dynamic = k;
		return 0;
	}
	return 0;
}

/* bfd/elf.c bfd_elf_sym_name: the name of entry @i, "(null)" when st_name is
 * outside the string table; STT_SECTION symbols without a name read the
 * section's name. */
const char *a2l_sym_name(const struct sl_elfimg *m, const struct a2l_tab *t, const Elf64_Sym *s)
{
	const char *n;

	if (s->st_name == 0 && ELF64_ST_TYPE(s->st_info) == STT_SECTION && s->st_shndx < m->shnum) {
		Elf64_Shdr sh;

		if (sl_elfimg_shdr(m, s->st_shndx, &sh) < 0 || !(n = sl_elfimg_sec_name(m, &sh)))
			return "(null)";
		return n;
	}
	if (s->st_name >= t->str_size)
		return "(null)";
	return (const char *)m->p + t->str_off + s->st_name;   /* the table ends in a NUL */
}

void a2l_sym(const struct sl_elfimg *m, const struct a2l_tab *t, uint32_t i, Elf64_Sym *s)
{
	memcpy(s, m->p + t->off + (uint64_t)i * sizeof(*s), sizeof(*s));
}

/* ---- eligibility --------------------------------------------------------------- */

static int exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0;
}

/* A debug file bfd could open: any candidate path that exists. */
static int debug_file(const struct sl_elfimg *m, const char *path, char *found, size_t fsz)
{
	static const char *const roots[] = { DEBUGDIR, DEBUGDIR "/usr", DEBUGDIR };
	char cand[PATH_MAX + 600], dir[PATH_MAX], canon[PATH_MAX];
	Elf64_Shdr sh;
	const unsigned char *d;
	size_t len;

	/* bfd_follow_build_id_debuglink: ".build-id/xx/rest.debug", no
	 * directory of the file: ".", ".debug/", then the roots. bfd takes the
	 * first note of .note.gnu.build-id; every NT_GNU_BUILD_ID note of every
	 * SHT_NOTE section is tried here (conservative) */
	for (size_t i = 1; i < m->shnum; i++) {
		struct sl_elfimg_note n;
		uint64_t o = 0;

		if (sl_elfimg_shdr(m, i, &sh) < 0 || sh.sh_type != SHT_NOTE || !(d = sl_elfimg_sec_data(m, &sh)))
			continue;
		/* a last note whose descriptor ends unpadded at the section
		 * end is read, as bfd/elf.c elf_parse_notes reads it */
		while (sl_elfimg_note_next(d, sh.sh_size, 0, &o, &n) > 0) {
			if (n.type == NT_GNU_BUILD_ID && n.descsz && n.descsz <= 64) {
				char hex[130], base[160];
				const char *const tries[] = { "", ".debug/", DEBUGDIR "/", DEBUGDIR "/usr/" };

				for (uint32_t k = 0; k < n.descsz; k++)
					snprintf(hex + 2 * k, 3, "%02x", n.desc[k]);
				snprintf(base, sizeof(base), ".build-id/%.2s/%s.debug", hex, hex + 2);
				for (size_t k = 0; k < sizeof(tries) / sizeof(tries[0]); k++) {
					snprintf(cand, sizeof(cand), "%s%s", tries[k], base);
					if (exists(cand))
						return snprintf(found, fsz, "%s", cand), 1;
				}
			}
		}
	}
	/* bfd_follow_gnu_debuglink: the name in .gnu_debuglink */
	if (!sl_elfimg_find_name(m, ".gnu_debuglink", &sh) || !(d = sl_elfimg_sec_data(m, &sh)) || !sh.sh_size ||
	    !memchr(d, 0, sh.sh_size) || !d[0])
		return 0;
	len = strlen(path);
	while (len && path[len - 1] != '/')
		len--;
	snprintf(dir, sizeof(dir), "%.*s", (int)len, path);
	if (!realpath(path, canon))
		snprintf(canon, sizeof(canon), "%s", path);
	len = strlen(canon);
	while (len && canon[len - 1] != '/')
		len--;
	canon[len] = '\0';
	snprintf(cand, sizeof(cand), "%s%s", dir, (const char *)d);
	if (exists(cand))
		return snprintf(found, fsz, "%s", cand), 1;
	snprintf(cand, sizeof(cand), "%s.debug/%s", dir, (const char *)d);
	if (exists(cand))
		return snprintf(found, fsz, "%s", cand), 1;
	for (size_t k = 0; k < 3; k++) {
		snprintf(cand, sizeof(cand), "%s%s%s%s", roots[k], canon[0] == '/' ? "" : "/", canon, (const char *)d);
		if (exists(cand))
			return snprintf(found, fsz, "%s", cand), 1;
	}
	return 0;
}

/* Sections bfd reads line information from (any of them: not eligible). */
static const char *debug_section(const char *n)
{
	static const char *const prefixes[] = { ".debug_", ".zdebug", ".gnu.linkonce.wi.", ".stab" };
	static const char *const exact[] = { ".debug", ".gnu_debugaltlink", ".line" };

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(n, prefixes[i], strlen(prefixes[i])))
			return n;
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (!strcmp(n, exact[i]))
			return n;
	return NULL;
}

/* The reason for the a2l_img_open error @r of @path (util/reason.h). */
static void a2l_img_why(struct sl_why *why, int r, const char *path)
{
	if (r == -ENOTSUP)
		sl_why_set(why, SL_R_A2L_ELF_KIND, "%s", path);
	else if (r == -EINVAL)
		sl_why_set(why, SL_R_NOT_ELF, "%s", path);
	else if (r == -ENOMEM)
		sl_why_set(why, SL_R_NOMEM, NULL);
	else
		sl_why_set(why, SL_R_OPEN_FAILED, "%s: %s", path, strerror(-r));
}

int a2l_eligible(const char *path, struct sl_why *why)
{
	struct sl_elfimg m;
	struct a2l_tab t;
	struct stat st;
	Elf64_Shdr sh;
	char found[PATH_MAX + 600];
	int fd, r, ok = -EINVAL;

	sl_why_set(why, SL_R_NONE, NULL);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return r = -errno, sl_whyf(why, SL_R_OPEN_FAILED, r, "%s: %s", path, strerror(-r));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return sl_whyf(why, SL_R_NOT_REGULAR, -EINVAL, "%s", path);
	}
	if (st.st_size < 1) {
		close(fd);
		return sl_whyf(why, SL_R_NOT_ELF, -EINVAL, "%s", path);         /* empty */
	}
	r = a2l_img_open(&m, fd, (size_t)st.st_size);
	close(fd);
	if (r < 0) {
		a2l_img_why(why, r, path);
		ok = r;
		goto out;
	}
	for (size_t i = 1; i < m.shnum; i++) {
		const char *n;

		if (sl_elfimg_shdr(&m, i, &sh) < 0 || !(n = sl_elfimg_sec_name(&m, &sh))) {
			sl_why_set(why, SL_R_NOT_ELF, "%s", path);       /* section i has no readable name */
			goto out;
		}
		if (debug_section(n)) {
			/* the file's own .debug_info is served (srcline/a2l_dwarf.h):
			 * bfd then follows no debug link; DWARF 1, stabs, .zdebug,
			 * dwz and other debug sections stay with binutils */
			if (!strncmp(n, ".debug_", 7) && !strstr(n, ".dwo") && a2l_dw_wanted(&m))
				continue;
			sl_why_set(why, SL_R_A2L_DEBUG, "%s", n);
			ok = 0;
			goto out;
		}
	}
	r = a2l_canon_table(&m, &t);
	if (r < 0) {
		sl_why_set(why, SL_R_A2L_SYMTAB, "%s", r == -ENOTSUP ? "extended section indexes" :
			   "bad size, entry size or string table");
		ok = r < 0 ? r : -EINVAL;
		goto out;
	}
	if (!a2l_dw_wanted(&m) && debug_file(&m, path, found, sizeof(found))) {
		sl_why_set(why, SL_R_A2L_DEBUG_FILE, "%s", found);
		ok = 0;
		goto out;
	}
	ok = 1;
out:
	sl_elfimg_close(&m);
	return ok;
}

int a2l_has_dwarf(const char *path)
{
	struct sl_elfimg m;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), r = 0;

	if (fd < 0)
		return 0;
	memset(&m, 0, sizeof(m));
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && a2l_img_open(&m, fd, (size_t)st.st_size) == 0)
		r = a2l_dw_wanted(&m);
	sl_elfimg_close(&m);
	close(fd);
	return r;
}

static int demangles_to(const char *name, const char *want);

/* ---- the build ------------------------------------------------------------------ */

struct cand {                   /* one candidate function while sorting, 32 bytes */
	uint64_t off, size;
	uint32_t sec, order;    /* index in secs[], canonical index */
	uint32_t name;          /* st_name, A2L_NONE: "(null)" */
	uint32_t file;          /* ordinal of its STT_FILE symbol, or A2L_NONE */
};

static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;
	int c;

	if ((c = SL_CMP(a->sec, b->sec)) || (c = SL_CMP(a->off, b->off)))
		return c;
	if ((c = SL_CMP(b->size, a->size)))     /* _bfd_elf_find_function: the larger size wins */
		return c;
	return SL_CMP(a->order, b->order);      /* then the first one */
}

static uint64_t str_bytes(uint64_t len)
{
	return (4 + len + 1 + 3) & ~3ull;
}

static uint32_t put_str(unsigned char *area, uint64_t *at, const char *s, size_t len)
{
	uint32_t ref = (uint32_t)*at, l = (uint32_t)len;

	memcpy(area + *at, &l, 4);
	memcpy(area + *at + 4, s, len);
	memset(area + *at + 4 + len, 0, str_bytes(len) - 4 - len);
	*at += str_bytes(len);
	return ref;
}

/* Index in @secs of the SHF_ALLOC section @shndx, or A2L_NONE. */
static uint32_t sec_of(const struct a2l_sec *secs, uint32_t nsecs, uint32_t shndx)
{
	uint32_t lo = 0, hi = nsecs;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (secs[mid].shndx == shndx)
			return mid;
		if (secs[mid].shndx < shndx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return A2L_NONE;
}

/*
 * Walk the canonical symbols as _bfd_elf_find_function does (bfd/dwarf2.c):
 * the STT_FILE state machine and the _bfd_elf_maybe_function_sym filter.
 * Counts candidates into *@ncand and FILE symbols into *@nfile; fills
 * @c and @fidx (the FILE symbols' indexes) when not NULL. With @h: the pc
 * perf's sentinel line "," reads (lookup_symbol: the first symbol named
 * ",", else the first whose bfd_demangle is ","; only a name holding a
 * ',' can demangle to a lone ",": the demanglers print commas only between
 * other things); its value + section vma, i.e. st_value (st_size for
 * SHN_COMMON).
 */
static void walk(const struct sl_elfimg *m, const struct a2l_tab *t, const struct a2l_sec *secs, uint32_t nsecs,
		 struct cand *c, uint64_t *ncand, uint32_t *nfile, uint32_t *fidx, struct a2l_hdr *h)
{
	enum { nothing_seen, symbol_seen, file_after_symbol_seen } state = nothing_seen;
	uint32_t file = A2L_NONE, nf = 0;
	uint64_t k = 0, dem_pc = 0;
	int dem_found = 0;
	Elf64_Sym s;

	for (uint32_t i = 1; i < t->n; i++) {
		unsigned type, bind;
		uint32_t si;
		const struct a2l_sec *sec;
		uint64_t off;

		a2l_sym(m, t, i, &s);
		type = ELF64_ST_TYPE(s.st_info);
		bind = ELF64_ST_BIND(s.st_info);
		if (h && !(h->flags & A2L_F_COMMA)) {
			const char *n = a2l_sym_name(m, t, &s);
			uint64_t v = s.st_shndx == SHN_COMMON || s.st_shndx == SHN_X86_64_LCOMMON_ ? s.st_size : s.st_value;

			if (!strcmp(n, ",")) {
				h->flags |= A2L_F_COMMA;
				h->comma_pc = v;
			} else if (!dem_found && strchr(n, ',') && demangles_to(n, ",")) {
				dem_found = 1;
				dem_pc = v;
			}
		}
		if (type == STT_FILE) {         /* BSF_FILE */
			if (fidx)
				fidx[nf] = i;
			file = nf++;
			if (state == symbol_seen)
				state = file_after_symbol_seen;
			continue;
		}
		/* bfd sets symbol_seen after judging the symbol; only
		 * file_after_symbol_seen matters to it, so earlier is the same */
		if (state == nothing_seen)
			state = symbol_seen;
		/* _bfd_elf_maybe_function_sym: not section, file, object (also
		 * STT_COMMON), TLS, RELC (8), SRELC (9) symbols; the section
		 * the pc is in (an SHF_ALLOC one; st_shndx >= SHN_LORESERVE
		 * names bfd's abs/common/und sections) */
		if (type == STT_SECTION || type == STT_OBJECT || type == STT_COMMON || type == STT_TLS || type == 8 ||
		    type == 9 || s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE ||
		    (si = sec_of(secs, nsecs, s.st_shndx)) == A2L_NONE)
			continue;
		if (!s.st_size && bind == STB_LOCAL && type == STT_NOTYPE &&
		    ELF64_ST_VISIBILITY(s.st_other) == STV_HIDDEN)
			continue;               /* annobin's markers */
		sec = &secs[si];
		off = s.st_value - sec->vma;    /* elf_slurp_symbol_table: section-relative */
		if (off >= sec->size)
			continue;               /* never <= an offset inside the section */
		if (c) {
			/* the file name: the last STT_FILE before it, for a local
			 * symbol or before any file-after-symbol was seen */
			c[k] = (struct cand){ off, s.st_size ? s.st_size : 1, si, i,
					      s.st_name < t->str_size ? s.st_name : A2L_NONE,
					      file != A2L_NONE && (bind == STB_LOCAL || state != file_after_symbol_seen) ?
					      file : A2L_NONE };
		}
		k++;
	}
	if (h && !(h->flags & A2L_F_COMMA) && dem_found) {     /* no exact "," anywhere */
		h->flags |= A2L_F_COMMA;
		h->comma_pc = dem_pc;
	}
	*ncand = k;
	*nfile = nf;
}

static int write_table(const struct sl_elfimg *m, const struct a2l_tab *t, const struct stat *st, int dirfd,
		       struct a2l_table *out, struct sl_why *why)
{
	struct a2l_sec *secs = NULL;
	struct cand *c = NULL;
	uint32_t *fref = NULL, *fidx = NULL, nsecs = 0, nfile = 0, nf = 0, maxs = 0;
	uint64_t ncand = 0, strs = 0, size, at, cbytes = 0, fbytes = 0;
	struct a2l_hdr hh, *h;
	struct a2l_func *funcs;
	unsigned char *map = NULL, *area;
	char tmp[64], name[64];
	Elf64_Shdr sh;
	int fd = -1, ret;

	memset(&hh, 0, sizeof(hh));
	/* find_address_in_section: the SHF_ALLOC sections, section order */
	for (size_t i = 1; i < m->shnum; i++)
		if (sl_elfimg_shdr(m, i, &sh) == 0 && (sh.sh_flags & SHF_ALLOC) && sh.sh_type != SHT_NULL && sh.sh_size)
			nsecs++;
	secs = calloc(nsecs ? nsecs : 1, sizeof(*secs));
	if (!secs)
		return sl_whyf(why, SL_R_NOMEM, -ENOMEM, NULL);
	nsecs = 0;
	for (size_t i = 1; i < m->shnum; i++)
		if (sl_elfimg_shdr(m, i, &sh) == 0 && (sh.sh_flags & SHF_ALLOC) && sh.sh_type != SHT_NULL && sh.sh_size)
			secs[nsecs++] = (struct a2l_sec){ sh.sh_addr, sh.sh_size, 0, 0, (uint32_t)i,
							   (sh.sh_flags & SHF_EXECINSTR) ? A2L_S_CODE : 0 };
	if (t->n)
		hh.flags |= A2L_F_SYMS | (t->dynamic ? A2L_F_DYNSYM : 0);
	if (a2l_dw_wanted(m))
		hh.flags |= A2L_F_DWARF;
	walk(m, t, secs, nsecs, NULL, &ncand, &nfile, NULL, &hh);
	if (ncand >= A2L_NONE)
		{ ret = sl_whyf(why, SL_R_TOO_BIG, -EFBIG, "functions"); goto out; }
	cbytes = ncand * sizeof(*c);
	fbytes = (uint64_t)nfile * 8;
	if ((ncand && !(c = sl_scratch_map((size_t)cbytes, "symlazy-a2l-sort"))) ||
	    (nfile && !(fidx = sl_scratch_map((size_t)fbytes, "symlazy-a2l-files"))))
		{ ret = sl_whyf(why, SL_R_NOMEM, -ENOMEM, "scratch memory: %s", strerror(errno)); goto out; }
	fref = fidx ? fidx + nfile : NULL;
	walk(m, t, secs, nsecs, c, &ncand, &nfile, fidx, NULL);
	if (ncand)
		qsort(c, (size_t)ncand, sizeof(*c), cand_cmp);
	/* one function per (section, value): the first after the sort is the
	 * one _bfd_elf_find_function picks among them */
	for (uint64_t k = 0; k < ncand; k++)
		if (!nf || c[k].sec != c[nf - 1].sec || c[k].off != c[nf - 1].off)
			c[nf++] = c[k];
	if (nfile)
		memset(fref, 0, (size_t)nfile * 4);
	for (uint32_t k = 0; k < nf; k++) {
		Elf64_Sym s;
		size_t len;

		a2l_sym(m, t, c[k].order, &s);
		len = strlen(a2l_sym_name(m, t, &s));
		strs += str_bytes(len);
		maxs = len > maxs ? (uint32_t)len : maxs;
		if (c[k].file != A2L_NONE && !fref[c[k].file]) {
			fref[c[k].file] = 1;
			a2l_sym(m, t, fidx[c[k].file], &s);
			len = strlen(a2l_sym_name(m, t, &s));
			strs += str_bytes(len);
			maxs = len > maxs ? (uint32_t)len : maxs;
		}
	}
	if (strs > UINT32_MAX - 8)
		{ ret = sl_whyf(why, SL_R_TOO_BIG, -EFBIG, "string bytes"); goto out; }
	size = sizeof(*h) + (uint64_t)nsecs * sizeof(*secs) + (uint64_t)nf * sizeof(*funcs) + strs;
	fd = sl_cache_backing(dirfd, (size_t)size, A2L_SUFFIX, "symlazy-a2l", tmp, sizeof(tmp));
	if (fd < 0)
		{ ret = sl_whyf(why, SL_R_A2L_INDEX, fd, "%s", strerror(-fd)); goto out; }
	map = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		map = NULL;
		ret = sl_whyf(why, SL_R_A2L_INDEX, -errno, "%s", strerror(errno));
		goto out;
	}
	h = (void *)map;
	*h = hh;
	memcpy(h->magic, A2L_MAGIC, 8);
	h->version = A2L_VERSION;
	h->hdr_size = sizeof(*h);
	h->endian = A2L_ENDIAN;
	h->file_size = size;
	SL_FILE_IDENT_SET(h, st);
	h->key = a2l_key(st);
	h->nsecs = nsecs;
	h->nfuncs = nf;
	h->max_str = maxs;
	h->secs_off = sizeof(*h);
	h->funcs_off = h->secs_off + (uint64_t)nsecs * sizeof(*secs);
	h->strings_off = h->funcs_off + (uint64_t)nf * sizeof(*funcs);
	h->strings_size = strs;
	funcs = (void *)(map + h->funcs_off);
	area = map + h->strings_off;
	at = 0;
	for (uint32_t i = 0, k = 0; i < nsecs; i++) {  /* c[] is sorted by section */
		secs[i].first = k;
		while (k < nf && c[k].sec == i)
			k++;
		secs[i].end = k;
	}
	for (uint32_t k = 0; k < nf; k++) {
		Elf64_Sym s;
		const char *n;
		uint32_t fr = A2L_NONE;

		if (c[k].file != A2L_NONE) {
			if (fref[c[k].file] == 1) {     /* first use: store the name */
				a2l_sym(m, t, fidx[c[k].file], &s);
				n = a2l_sym_name(m, t, &s);
				fref[c[k].file] = 2 + put_str(area, &at, n, strlen(n));
			}
			fr = fref[c[k].file] - 2;
		}
		a2l_sym(m, t, c[k].order, &s);
		n = a2l_sym_name(m, t, &s);
		funcs[k] = (struct a2l_func){ c[k].off, c[k].size, put_str(area, &at, n, strlen(n)), fr };
	}
	memcpy(map + h->secs_off, secs, (size_t)nsecs * sizeof(*secs));
	h->checksum = symindex_checksum(map + 32, (size_t)size - 32);
	mprotect(map, (size_t)size, PROT_READ);
	if (tmp[0]) {
		a2l_file_name(h->key, name, sizeof(name));
		if (renameat(dirfd, tmp, dirfd, name) < 0)
			unlinkat(dirfd, tmp, 0);
		tmp[0] = '\0';
	}
	a2l_attach(out, map, (size_t)size);
	map = NULL;
	ret = 0;
out:
	if (map)
		munmap(map, (size_t)size);
	sl_cache_backing_drop(dirfd, fd, tmp);
	if (c)
		munmap(c, (size_t)cbytes);
	if (fidx)
		munmap(fidx, (size_t)fbytes);
	free(secs);
	return ret;
}

int a2l_build(const char *path, int fd, const struct stat *st, int dirfd, struct a2l_table *out,
	      struct sl_why *why)
{
	struct sl_elfimg m;
	struct a2l_tab t;
	int r = a2l_img_open(&m, fd, (size_t)st->st_size);

	if (r < 0) {
		a2l_img_why(why, r, path);
		goto out;
	}
	r = a2l_canon_table(&m, &t);
	if (r < 0) {
		sl_why_set(why, SL_R_A2L_SYMTAB, "%s", r == -ENOTSUP ? "extended section indexes" :
			   r == -EFBIG ? "too many symbols" : "bad size, entry size or string table");
		goto out;
	}
	r = write_table(&m, &t, st, dirfd, out, why);
out:
	sl_elfimg_close(&m);
	return r;
}

/* ---- addr2line.c lookup_symbol ---------------------------------------------- */

/* bfd/bfd.c bfd_demangle(abfd, @name, DMGL_PARAMS | DMGL_ANSI) for x86-64
 * ELF (no leading char) compared with @want: leading '.'/'$' kept aside,
 * "@..." cut before cplus_demangle and put back after. */
static int demangles_to(const char *name, const char *want)
{
	const char *pre = name, *suf;
	char cut[4096], *res;
	size_t pre_len, rl;
	int eq;

	while (*name == '.' || *name == '$')
		name++;
	pre_len = (size_t)(name - pre);
	suf = strchr(name, '@');
	if (suf) {
		if ((size_t)(suf - name) >= sizeof(cut))
			return 0;
		memcpy(cut, name, (size_t)(suf - name));
		cut[suf - name] = '\0';
		name = cut;
	}
	res = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
	if (!res)
		return 0;
	rl = strlen(res);
	eq = !strncmp(want, pre, pre_len) && !strncmp(want + pre_len, res, rl) &&
	     !strcmp(want + pre_len + rl, suf ? suf : "");
	free(res);
	return eq;
}

int a2l_lookup_symbol(const struct a2l_table *tb, const char *sym, uint64_t offset, uint64_t *pc)
{
	struct sl_elfimg m;
	struct a2l_tab t;
	struct stat st;
	Elf64_Sym s;
	int fd, found = 0;

	memset(&m, 0, sizeof(m));       /* sl_elfimg_close below may run before a2l_img_open */
	fd = open(tb->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || (uint64_t)st.st_dev != tb->h->dev || (uint64_t)st.st_ino != tb->h->ino ||
	    (uint64_t)st.st_size != tb->h->size || st.st_mtim.tv_sec != tb->h->mtime_sec ||
	    st.st_mtim.tv_nsec != tb->h->mtime_nsec || st.st_ctim.tv_sec != tb->h->ctime_sec ||
	    st.st_ctim.tv_nsec != tb->h->ctime_nsec || a2l_img_open(&m, fd, (size_t)st.st_size) < 0) {
		close(fd);
		sl_elfimg_close(&m);
		return 0;
	}
	close(fd);
	if (a2l_canon_table(&m, &t) < 0)
		t.n = 0;
	/* exact name, then demangled name: the first symbol in table order */
	for (int pass = 0; pass < 2 && !found; pass++)
		for (uint32_t i = 1; i < t.n && !found; i++) {
			const char *n;

			a2l_sym(&m, &t, i, &s);
			n = a2l_sym_name(&m, &t, &s);
			if (pass ? demangles_to(n, sym) : !strcmp(n, sym)) {
				/* value + section vma: st_value; SHN_COMMON's value is st_size */
				*pc = (s.st_shndx == SHN_COMMON || s.st_shndx == SHN_X86_64_LCOMMON_ ? s.st_size :
				       s.st_value) + offset;
				found = 1;
			}
		}
	sl_elfimg_close(&m);
	return found;
}
