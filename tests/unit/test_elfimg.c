/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the bounds-checked ELF64 reader (util/elfimg.c) on a small
 * image built here byte by byte: a valid file (headers, section names,
 * lookups, symbol table, notes, build-id, program headers, the mapped
 * variant), the gABI escapes (e_shnum 0 with the count in section 0's
 * sh_size, SHN_XINDEX with the index in its sh_link), section header table
 * and section data out of range, offset+size wrapping past 2^64, string
 * tables without a final NUL, a wrong sh_entsize, truncated headers,
 * refused byte orders, classes and versions, 4- and 8-byte note padding.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "util/elfimg.h"

#define IMG_MAX 2048

static const char shstr[] = "\0.note.gnu.build-id\0.strtab\0.symtab\0.shstrtab\0.text";
static const char symstr[] = "\0main\0helper";     /* ends in its NUL */
static const unsigned char bid[20] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };

struct img {
	unsigned char b[IMG_MAX];
	size_t size;
	uint64_t note_off, str_off, sym_off, shstr_off;
};

enum { S_NULL, S_NOTE, S_STRTAB, S_SYMTAB, S_SHSTRTAB, S_TEXT, NSEC };

static uint64_t up8(uint64_t x)
{
	return (x + 7) & ~7ull;
}

static Elf64_Ehdr *ehdr(struct img *m)
{
	return (Elf64_Ehdr *)m->b;
}

static Elf64_Shdr *shdr(struct img *m, unsigned i)
{
	return (Elf64_Shdr *)(m->b + ehdr(m)->e_shoff) + i;
}

/* Ehdr, 2 program headers (PT_LOAD, PT_NOTE), the build-id note, .strtab,
 * .symtab (null, main, helper), .shstrtab, then 6 section headers. */
static void build(struct img *m)
{
	Elf64_Ehdr *eh = ehdr(m);
	Elf64_Phdr *ph;
	Elf64_Nhdr nh = { 4, sizeof(bid), NT_GNU_BUILD_ID };
	Elf64_Sym sym[3];
	uint64_t o;

	memset(m, 0, sizeof(*m));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phoff = sizeof(*eh);
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phnum = 2;
	o = eh->e_phoff + 2 * sizeof(Elf64_Phdr);
	m->note_off = o;
	memcpy(m->b + o, &nh, sizeof(nh));
	memcpy(m->b + o + sizeof(nh), "GNU", 4);
	memcpy(m->b + o + sizeof(nh) + 4, bid, sizeof(bid));
	o += sizeof(nh) + 4 + sizeof(bid);
	m->str_off = o;
	memcpy(m->b + o, symstr, sizeof(symstr));
	o = up8(o + sizeof(symstr));
	m->sym_off = o;
	memset(sym, 0, sizeof(sym));
	sym[1].st_name = 1;
	sym[1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
	sym[1].st_value = 0x1000;
	sym[2].st_name = 6;
	sym[2].st_info = ELF64_ST_INFO(STB_LOCAL, STT_FUNC);
	memcpy(m->b + o, sym, sizeof(sym));
	o += sizeof(sym);
	m->shstr_off = o;
	memcpy(m->b + o, shstr, sizeof(shstr));
	o = up8(o + sizeof(shstr));
	eh->e_shoff = o;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = NSEC;
	eh->e_shstrndx = S_SHSTRTAB;
	m->size = o + NSEC * sizeof(Elf64_Shdr);
	assert_true(m->size <= IMG_MAX);
	*shdr(m, S_NOTE) = (Elf64_Shdr){ 1, SHT_NOTE, SHF_ALLOC, 0, m->note_off, sizeof(nh) + 4 + sizeof(bid),
					 0, 0, 4, 0 };
	*shdr(m, S_STRTAB) = (Elf64_Shdr){ 20, SHT_STRTAB, 0, 0, m->str_off, sizeof(symstr), 0, 0, 1, 0 };
	*shdr(m, S_SYMTAB) = (Elf64_Shdr){ 28, SHT_SYMTAB, 0, 0, m->sym_off, sizeof(sym), S_STRTAB, 2, 8,
					   sizeof(Elf64_Sym) };
	*shdr(m, S_SHSTRTAB) = (Elf64_Shdr){ 36, SHT_STRTAB, 0, 0, m->shstr_off, sizeof(shstr), 0, 0, 1, 0 };
	*shdr(m, S_TEXT) = (Elf64_Shdr){ 46, SHT_NOBITS, SHF_ALLOC | SHF_EXECINSTR, 0x1000, 0, 0x100, 0, 0, 16, 0 };
	ph = (Elf64_Phdr *)(m->b + eh->e_phoff);
	ph[0] = (Elf64_Phdr){ PT_LOAD, PF_R | PF_X, 0, 0, 0, m->size, m->size, 0x1000 };
	ph[1] = (Elf64_Phdr){ PT_NOTE, PF_R, m->note_off, m->note_off, m->note_off, sizeof(nh) + 4 + sizeof(bid),
			      sizeof(nh) + 4 + sizeof(bid), 4 };
}

static int init(struct sl_elfimg *e, struct img *m)
{
	return sl_elfimg_init(e, m->b, m->size);
}

static void test_valid(void **state)
{
	struct img *m = malloc(sizeof(*m));
	struct sl_elfimg e;
	struct sl_elfimg_symtab t;
	Elf64_Shdr sh;
	Elf64_Phdr ph;
	Elf64_Sym s;
	unsigned char out[32];
	uint32_t len;
	FILE *f;

	(void)state;
	build(m);
	assert_int_equal(init(&e, m), 0);
	assert_int_equal(e.shnum, NSEC);
	assert_int_equal(e.shstrndx, S_SHSTRTAB);
	assert_int_equal(e.eh.e_type, ET_DYN);
	assert_int_equal(sl_elfimg_shdr(&e, S_SYMTAB, &sh), 0);
	assert_string_equal(sl_elfimg_sec_name(&e, &sh), ".symtab");
	assert_int_equal(sl_elfimg_shdr(&e, NSEC, &sh), -ENOENT);
	assert_int_equal(sl_elfimg_find_name(&e, ".strtab", &sh), S_STRTAB);
	assert_int_equal(sl_elfimg_find_name(&e, ".nothere", &sh), 0);
	assert_int_equal(sl_elfimg_find_type(&e, SHT_NOTE, &sh), S_NOTE);
	assert_int_equal(sl_elfimg_find_type(&e, SHT_DYNSYM, &sh), 0);
	assert_int_equal(sl_elfimg_find_type(&e, SHT_NOBITS, &sh), S_TEXT);
	assert_null(sl_elfimg_sec_data(&e, &sh));               /* NOBITS */
	assert_string_equal(sl_elfimg_str(&e, S_STRTAB, 6), "helper");
	assert_null(sl_elfimg_str(&e, S_STRTAB, sizeof(symstr)));
	assert_null(sl_elfimg_str(&e, S_TEXT, 0));
	assert_null(sl_elfimg_str(&e, 99, 0));
	/* symbols */
	sl_elfimg_shdr(&e, S_SYMTAB, &sh);
	assert_int_equal(sl_elfimg_symtab(&e, &sh, SL_ELFIMG_STRTAB_NUL, &t), 0);
	assert_int_equal(t.n, 3);
	assert_int_equal(t.strsz, sizeof(symstr));
	assert_int_equal(sl_elfimg_sym(&t, 1, &s), 0);
	assert_int_equal(s.st_value, 0x1000);
	assert_string_equal(sl_elfimg_sym_name(&t, s.st_name, &len), "main");
	assert_int_equal(len, 4);
	assert_int_equal(sl_elfimg_sym(&t, 3, &s), -ENOENT);
	assert_null(sl_elfimg_sym_name(&t, sizeof(symstr), NULL));
	/* program headers and notes */
	assert_int_equal(sl_elfimg_phdrs(&e), 0);
	assert_int_equal(sl_elfimg_phdr(&e, 1, &ph), 0);
	assert_int_equal(ph.p_type, PT_NOTE);
	assert_int_equal(sl_elfimg_phdr(&e, 2, &ph), -ENOENT);
	assert_int_equal(sl_elfimg_build_id(&e, out, sizeof(out)), sizeof(bid));
	assert_memory_equal(out, bid, sizeof(bid));
	assert_int_equal(sl_elfimg_build_id(&e, out, 19), 0);  /* longer than asked for */
	assert_int_equal(sl_elfimg_notes_build_id(m->b + m->note_off, 36, SL_ELFIMG_NOTE_PADDED, out, 20), 20);
	sl_elfimg_close(&e);
	assert_null(e.p);
	sl_elfimg_close(&e);                                    /* twice: harmless */

	/* the mapped variant reads the same */
	f = tmpfile();
	assert_non_null(f);
	assert_int_equal(fwrite(m->b, 1, m->size, f), m->size);
	fflush(f);
	assert_int_equal(sl_elfimg_open(&e, fileno(f), m->size), 0);
	assert_int_equal(e.mapped, 1);
	assert_int_equal(sl_elfimg_find_name(&e, ".symtab", &sh), S_SYMTAB);
	sl_elfimg_close(&e);
	assert_int_equal(sl_elfimg_open(&e, fileno(f), 8), -EINVAL);
	assert_null(e.p);
	fclose(f);
	free(m);
}

/* gABI "Sections": e_shnum 0 and the count in section 0's sh_size;
 * e_shstrndx SHN_XINDEX and the index in section 0's sh_link */
static void test_xindex(void **state)
{
	struct img *m = malloc(sizeof(*m));
	struct sl_elfimg e;
	Elf64_Shdr sh;

	(void)state;
	build(m);
	ehdr(m)->e_shnum = 0;
	shdr(m, 0)->sh_size = NSEC;
	ehdr(m)->e_shstrndx = SHN_XINDEX;
	shdr(m, 0)->sh_link = S_SHSTRTAB;
	assert_int_equal(init(&e, m), 0);
	assert_int_equal(e.shnum, NSEC);
	assert_int_equal(e.shstrndx, S_SHSTRTAB);
	assert_int_equal(sl_elfimg_find_name(&e, ".symtab", &sh), S_SYMTAB);
	/* without the escape value sh_link is not looked at */
	ehdr(m)->e_shstrndx = S_SHSTRTAB;
	shdr(m, 0)->sh_link = 77;
	assert_int_equal(init(&e, m), 0);
	assert_int_equal(e.shstrndx, S_SHSTRTAB);
	/* a count of 0 there: no sections */
	shdr(m, 0)->sh_size = 0;
	assert_int_equal(init(&e, m), 0);
	assert_int_equal(e.shnum, 0);
	assert_int_equal(sl_elfimg_find_name(&e, ".symtab", &sh), 0);
	/* a count past the file */
	shdr(m, 0)->sh_size = NSEC + 1;
	assert_int_equal(init(&e, m), -EINVAL);
	shdr(m, 0)->sh_size = UINT64_MAX / sizeof(Elf64_Shdr) + 2;   /* the product wraps */
	assert_int_equal(init(&e, m), -EINVAL);
	/* an index past the table names nothing */
	shdr(m, 0)->sh_size = NSEC;
	ehdr(m)->e_shstrndx = SHN_XINDEX;
	shdr(m, 0)->sh_link = NSEC + 3;
	assert_int_equal(init(&e, m), 0);
	assert_int_equal(sl_elfimg_shdr(&e, S_SYMTAB, &sh), 0);
	assert_null(sl_elfimg_sec_name(&e, &sh));
	free(m);
}

static void test_out_of_range(void **state)
{
	struct img *m = malloc(sizeof(*m));
	struct sl_elfimg e;
	struct sl_elfimg_symtab t;
	Elf64_Shdr sh;
	uint64_t shoff;

	(void)state;
	build(m);
	shoff = ehdr(m)->e_shoff;
	ehdr(m)->e_shoff = m->size - sizeof(Elf64_Shdr) * NSEC + 8;    /* last header cut */
	assert_int_equal(init(&e, m), -EINVAL);
	ehdr(m)->e_shoff = m->size + 64;
	assert_int_equal(init(&e, m), -EINVAL);
	ehdr(m)->e_shoff = shoff;
	ehdr(m)->e_shnum = NSEC + 1;
	assert_int_equal(init(&e, m), -EINVAL);
	ehdr(m)->e_shnum = NSEC;
	/* no table at all: e_shoff 0 */
	ehdr(m)->e_shoff = 0;
	assert_int_equal(init(&e, m), 0);
	assert_int_equal(e.shnum, 0);
	ehdr(m)->e_shoff = shoff;
	/* a section's bytes past the end */
	shdr(m, S_SYMTAB)->sh_offset = m->size - 24;
	shdr(m, S_SYMTAB)->sh_size = 48;
	assert_int_equal(init(&e, m), 0);
	sl_elfimg_shdr(&e, S_SYMTAB, &sh);
	assert_null(sl_elfimg_sec_data(&e, &sh));
	assert_int_equal(sl_elfimg_symtab(&e, &sh, 0, &t), -EINVAL);
	assert_null(t.syms);
	/* one ending exactly at the end is inside */
	shdr(m, S_SYMTAB)->sh_size = 24;
	sl_elfimg_shdr(&e, S_SYMTAB, &sh);
	assert_non_null(sl_elfimg_sec_data(&e, &sh));
	assert_int_equal(sl_elfimg_at(&e, m->size, 0) - e.p, (long)m->size);
	assert_null(sl_elfimg_at(&e, m->size, 1));
	/* program headers past the end, of a bad size, or at offset 0 */
	ehdr(m)->e_phnum = 40;
	assert_int_equal(init(&e, m), 0);
	assert_int_equal(sl_elfimg_phdrs(&e), -EINVAL);
	ehdr(m)->e_phnum = 2;
	ehdr(m)->e_phentsize = 64;
	assert_int_equal(init(&e, m), 0);
	assert_int_equal(sl_elfimg_phdrs(&e), -EINVAL);
	ehdr(m)->e_phentsize = sizeof(Elf64_Phdr);
	ehdr(m)->e_phoff = 0;
	assert_int_equal(init(&e, m), 0);
	assert_int_equal(sl_elfimg_phdrs(&e), -EINVAL);
	ehdr(m)->e_phnum = 0;
	assert_int_equal(init(&e, m), 0);
	assert_int_equal(sl_elfimg_phdrs(&e), 0);
	free(m);
}

/* offset + size past 2^64: refused, never wrapped into the file */
static void test_overflow(void **state)
{
	struct img *m = malloc(sizeof(*m));
	struct sl_elfimg e;
	struct sl_elfimg_symtab t;
	struct sl_elfimg_note n;
	Elf64_Shdr sh;
	Elf64_Nhdr nh = { 0xffffffffu, 4, NT_GNU_BUILD_ID };
	unsigned char notes[64];
	uint64_t off = 0;

	(void)state;
	build(m);
	ehdr(m)->e_shoff = UINT64_MAX - 63;
	assert_int_equal(init(&e, m), -EINVAL);
	build(m);
	ehdr(m)->e_phoff = UINT64_MAX - 8;
	assert_int_equal(init(&e, m), 0);
	assert_int_equal(sl_elfimg_phdrs(&e), -EINVAL);
	build(m);
	shdr(m, S_SYMTAB)->sh_offset = UINT64_MAX - 8;
	shdr(m, S_SYMTAB)->sh_size = 48;
	shdr(m, S_STRTAB)->sh_offset = 16;
	shdr(m, S_STRTAB)->sh_size = UINT64_MAX - 8;
	assert_int_equal(init(&e, m), 0);
	sl_elfimg_shdr(&e, S_SYMTAB, &sh);
	assert_null(sl_elfimg_sec_data(&e, &sh));
	assert_int_equal(sl_elfimg_symtab(&e, &sh, 0, &t), -EINVAL);
	assert_null(sl_elfimg_str(&e, S_STRTAB, 1));
	assert_false(sl_elfimg_in_file(&e, UINT64_MAX, 2));
	assert_false(sl_elfimg_in_file(&e, 2, UINT64_MAX));
	/* a note name size of 2^32 - 1 */
	memset(notes, 0, sizeof(notes));
	memcpy(notes, &nh, sizeof(nh));
	assert_int_equal(sl_elfimg_note_next(notes, sizeof(notes), 0, &off, &n), -EINVAL);
	nh.n_namesz = 4;
	nh.n_descsz = 0xfffffff0u;
	memcpy(notes, &nh, sizeof(nh));
	off = 0;
	assert_int_equal(sl_elfimg_note_next(notes, sizeof(notes), 0, &off, &n), -EINVAL);
	off = UINT64_MAX - 4;
	assert_int_equal(sl_elfimg_note_next(notes, sizeof(notes), 0, &off, &n), 0);
	free(m);
}

static void test_strtab_without_nul(void **state)
{
	struct img *m = malloc(sizeof(*m));
	struct sl_elfimg e;
	struct sl_elfimg_symtab t;
	Elf64_Shdr sh;
	Elf64_Sym s;

	(void)state;
	build(m);
	m->b[m->str_off + sizeof(symstr) - 1] = 'x';            /* "helperx", no NUL */
	m->b[m->shstr_off + sizeof(shstr) - 1] = 'x';           /* ".textx" */
	assert_int_equal(init(&e, m), 0);
	assert_null(sl_elfimg_str(&e, S_STRTAB, 6));
	assert_string_equal(sl_elfimg_str(&e, S_STRTAB, 1), "main");
	sl_elfimg_shdr(&e, S_TEXT, &sh);
	assert_null(sl_elfimg_sec_name(&e, &sh));
	assert_int_equal(sl_elfimg_find_name(&e, ".text", &sh), 0);
	assert_int_equal(sl_elfimg_find_name(&e, ".symtab", &sh), S_SYMTAB);
	/* without STRTAB_NUL the table reads, the unended name does not */
	assert_int_equal(sl_elfimg_symtab(&e, &sh, 0, &t), 0);
	sl_elfimg_sym(&t, 2, &s);
	assert_null(sl_elfimg_sym_name(&t, s.st_name, NULL));
	sl_elfimg_sym(&t, 1, &s);
	assert_string_equal(sl_elfimg_sym_name(&t, s.st_name, NULL), "main");
	assert_int_equal(sl_elfimg_symtab(&e, &sh, SL_ELFIMG_STRTAB_NUL, &t), -EINVAL);
	/* a string table of another type, or empty */
	build(m);
	shdr(m, S_STRTAB)->sh_type = SHT_PROGBITS;
	assert_int_equal(init(&e, m), 0);
	sl_elfimg_shdr(&e, S_SYMTAB, &sh);
	assert_int_equal(sl_elfimg_symtab(&e, &sh, SL_ELFIMG_STRTAB_NUL, &t), -EINVAL);
	assert_int_equal(sl_elfimg_symtab(&e, &sh, 0, &t), 0);
	assert_non_null(t.str);
	shdr(m, S_STRTAB)->sh_type = SHT_STRTAB;
	shdr(m, S_STRTAB)->sh_size = 0;
	assert_int_equal(sl_elfimg_symtab(&e, &sh, SL_ELFIMG_STRTAB_NUL, &t), -EINVAL);
	/* a link past the table: no strings */
	shdr(m, S_SYMTAB)->sh_link = 99;
	sl_elfimg_shdr(&e, S_SYMTAB, &sh);
	assert_int_equal(sl_elfimg_symtab(&e, &sh, 0, &t), 0);
	assert_null(t.str);
	assert_null(sl_elfimg_sym_name(&t, 1, NULL));
	free(m);
}

static void test_entsize(void **state)
{
	struct img *m = malloc(sizeof(*m));
	struct sl_elfimg e;
	struct sl_elfimg_symtab t;
	Elf64_Shdr sh;

	(void)state;
	build(m);
	shdr(m, S_SYMTAB)->sh_entsize = 0;
	assert_int_equal(init(&e, m), 0);
	sl_elfimg_shdr(&e, S_SYMTAB, &sh);
	assert_int_equal(sl_elfimg_symtab(&e, &sh, 0, &t), -EINVAL);
	assert_int_equal(sl_elfimg_symtab(&e, &sh, SL_ELFIMG_ANY_ENTSIZE, &t), 0);
	assert_int_equal(t.n, 3);
	shdr(m, S_SYMTAB)->sh_entsize = 16;
	sl_elfimg_shdr(&e, S_SYMTAB, &sh);
	assert_int_equal(sl_elfimg_symtab(&e, &sh, 0, &t), -EINVAL);
	/* a size not a multiple of the entry: refused either way */
	shdr(m, S_SYMTAB)->sh_entsize = sizeof(Elf64_Sym);
	shdr(m, S_SYMTAB)->sh_size = 3 * sizeof(Elf64_Sym) - 1;
	sl_elfimg_shdr(&e, S_SYMTAB, &sh);
	assert_int_equal(sl_elfimg_symtab(&e, &sh, 0, &t), -EINVAL);
	assert_int_equal(sl_elfimg_symtab(&e, &sh, SL_ELFIMG_ANY_ENTSIZE, &t), -EINVAL);
	/* e_shentsize other than 64, larger or smaller */
	build(m);
	ehdr(m)->e_shentsize = 128;
	assert_int_equal(init(&e, m), -EINVAL);
	ehdr(m)->e_shentsize = 10;
	assert_int_equal(init(&e, m), -EINVAL);
	free(m);
}

static void test_truncated(void **state)
{
	struct img *m = malloc(sizeof(*m));
	struct sl_elfimg e;

	(void)state;
	build(m);
	assert_int_equal(sl_elfimg_init(&e, m->b, 0), -EINVAL);
	assert_int_equal(sl_elfimg_init(&e, m->b, 4), -EINVAL);
	assert_int_equal(sl_elfimg_init(&e, m->b, EI_NIDENT - 1), -EINVAL);
	assert_int_equal(sl_elfimg_init(&e, m->b, EI_NIDENT), -EINVAL);
	assert_int_equal(sl_elfimg_init(&e, m->b, sizeof(Elf64_Ehdr) - 1), -EINVAL);
	assert_null(e.p);
	/* the header alone, its section header table cut off */
	assert_int_equal(sl_elfimg_init(&e, m->b, sizeof(Elf64_Ehdr)), -EINVAL);
	assert_int_equal(sl_elfimg_init(&e, m->b, m->size - 1), -EINVAL);
	assert_int_equal(sl_elfimg_init(&e, m->b, m->size), 0);
	/* not ELF, or of another version */
	m->b[1] = 'e';
	assert_int_equal(init(&e, m), -EINVAL);
	build(m);
	m->b[EI_VERSION] = 0;
	assert_int_equal(init(&e, m), -EINVAL);
	free(m);
}

static void test_refused_classes(void **state)
{
	struct img *m = malloc(sizeof(*m));
	struct sl_elfimg e;

	(void)state;
	build(m);
	m->b[EI_DATA] = ELFDATA2MSB;
	assert_int_equal(init(&e, m), -ENOTSUP);
	assert_null(e.p);
	m->b[EI_DATA] = 7;
	assert_int_equal(init(&e, m), -ENOTSUP);
	build(m);
	m->b[EI_CLASS] = ELFCLASS32;
	assert_int_equal(init(&e, m), -ENOTSUP);
	/* refused before the size of the rest is looked at */
	assert_int_equal(sl_elfimg_init(&e, m->b, EI_NIDENT), -ENOTSUP);
	free(m);
}

static void put_note(unsigned char *d, uint32_t namesz, uint32_t descsz, uint32_t type, const char *name)
{
	Elf64_Nhdr nh = { namesz, descsz, type };

	memcpy(d, &nh, sizeof(nh));
	memcpy(d + sizeof(nh), name, namesz);
}

static void test_notes(void **state)
{
	unsigned char d[128], out[20];
	struct sl_elfimg_note n;
	uint64_t off = 0;

	(void)state;
	/* 8-byte alignment (a p_align 8 PT_NOTE: .note.gnu.property): the
	 * descriptor at 16, the next note at 16 + 8 */
	memset(d, 0, sizeof(d));
	put_note(d, 4, 8, NT_GNU_PROPERTY_TYPE_0, "GNU");
	put_note(d + 24, 4, 20, NT_GNU_BUILD_ID, "GNU");
	memcpy(d + 24 + 16, bid, 20);
	assert_int_equal(sl_elfimg_note_next(d, 64, SL_ELFIMG_NOTE_ALIGN8, &off, &n), 1);
	assert_int_equal(n.desc - d, 16);
	assert_int_equal(off, 24);
	assert_true(sl_elfimg_note_is(&n, "GNU", NT_GNU_PROPERTY_TYPE_0));
	assert_false(sl_elfimg_note_is(&n, "GNU", NT_GNU_BUILD_ID));
	assert_false(sl_elfimg_note_is(&n, "GN", NT_GNU_PROPERTY_TYPE_0));
	assert_int_equal(sl_elfimg_note_next(d, 64, SL_ELFIMG_NOTE_ALIGN8, &off, &n), 1);
	assert_int_equal(n.desc - d, 40);
	assert_int_equal(off, 64);
	assert_int_equal(sl_elfimg_note_next(d, 64, SL_ELFIMG_NOTE_ALIGN8, &off, &n), 0);
	assert_int_equal(sl_elfimg_notes_build_id(d, 64, SL_ELFIMG_NOTE_ALIGN8 | SL_ELFIMG_NOTE_PADDED, out, 20), 20);
	assert_memory_equal(out, bid, 20);
	/* 4-byte alignment, a last descriptor of 5 bytes ending the data
	 * unpadded: read, unless every note must be padded */
	memset(d, 0, sizeof(d));
	put_note(d, 4, 5, NT_GNU_BUILD_ID, "GNU");
	memcpy(d + 16, bid, 5);
	off = 0;
	assert_int_equal(sl_elfimg_note_next(d, 21, 0, &off, &n), 1);
	assert_int_equal(n.descsz, 5);
	assert_int_equal(off, 24);
	assert_int_equal(sl_elfimg_note_next(d, 21, 0, &off, &n), 0);
	off = 0;
	assert_int_equal(sl_elfimg_note_next(d, 21, SL_ELFIMG_NOTE_PADDED, &off, &n), -EINVAL);
	assert_int_equal(sl_elfimg_notes_build_id(d, 21, SL_ELFIMG_NOTE_PADDED, out, 20), 0);
	assert_int_equal(sl_elfimg_notes_build_id(d, 21, 0, out, 20), 5);
	assert_int_equal(sl_elfimg_notes_build_id(d, 24, SL_ELFIMG_NOTE_PADDED, out, 4), 0);
	/* an empty build-id is not one; a header that does not fit ends the walk */
	put_note(d, 4, 0, NT_GNU_BUILD_ID, "GNU");
	assert_int_equal(sl_elfimg_notes_build_id(d, 16, 0, out, 20), 0);
	off = 0;
	assert_int_equal(sl_elfimg_note_next(d, 11, 0, &off, &n), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_xindex),
		cmocka_unit_test(test_out_of_range),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_strtab_without_nul),
		cmocka_unit_test(test_entsize),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_refused_classes),
		cmocka_unit_test(test_notes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
