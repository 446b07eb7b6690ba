/* SPDX-License-Identifier: MIT */
/*
 * elfimg.c - the bounds-checked ELF64 reader (util/elfimg.h). Format facts:
 * System V ABI (gABI) "ELF Header", "Sections", "String Table", "Symbol
 * Table", "Note Section", "Program Header"; the note walk as elfutils
 * libelf/gelf_getnote.c and binutils bfd/elf.c elf_parse_notes do it.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include "util/elfimg.h"

int sl_elfimg_in_file(const struct sl_elfimg *m, uint64_t off, uint64_t len)
{
	return off <= m->size && len <= m->size - off;
}

const unsigned char *sl_elfimg_at(const struct sl_elfimg *m, uint64_t off, uint64_t len)
{
	return sl_elfimg_in_file(m, off, len) ? m->p + off : NULL;
}

/* header @i at e_shoff + i * e_shentsize, for i below @n */
static int shdr_of(const struct sl_elfimg *m, size_t n, size_t i, Elf64_Shdr *out)
{
	uint64_t off = m->eh.e_shoff + (uint64_t)i * sizeof(*out);

	if (i >= n || !sl_elfimg_in_file(m, off, sizeof(*out)))
		return -ENOENT;
	memcpy(out, m->p + off, sizeof(*out));
	return 0;
}

int sl_elfimg_shdr(const struct sl_elfimg *m, size_t i, Elf64_Shdr *out)
{
	return shdr_of(m, m->shnum, i, out);
}

/*
 * The checks every reader here applies. Where the hand-written readers this
 * replaces differed, the stricter one on malformed files is kept:
 * e_shentsize must equal sizeof(Elf64_Shdr) (the name index builder took any
 * size >= 64 with that stride, the addr2line reader and the debug copy only
 * 64, as bfd/elfcode.h elf_object_p does); the byte order is checked against
 * the host as well as EI_DATA (one reader did); EI_VERSION must be
 * EV_CURRENT (elfutils libelf/elf_begin.c determine_kind, bfd elf_object_p
 * and Go's debug/elf refuse other versions; none of the readers checked).
 */
static int parse(struct sl_elfimg *m)
{
	static const union { uint16_t u; uint8_t b[2]; } host = { 1 };
	Elf64_Shdr s0;

	if (m->size < EI_NIDENT || memcmp(m->p, ELFMAG, SELFMAG))
		return -EINVAL;
	if (m->p[EI_CLASS] != ELFCLASS64 || m->p[EI_DATA] != ELFDATA2LSB || !host.b[0])
		return -ENOTSUP;
	if (m->p[EI_VERSION] != EV_CURRENT || m->size < sizeof(m->eh))
		return -EINVAL;
	memcpy(&m->eh, m->p, sizeof(m->eh));
	m->shnum = m->eh.e_shnum;
	m->shstrndx = m->eh.e_shstrndx;
	if (!m->eh.e_shoff) {           /* gABI: no section header table */
		m->shnum = 0;
		return 0;
	}
	if (m->eh.e_shentsize != sizeof(Elf64_Shdr) || shdr_of(m, 1, 0, &s0) < 0)
		return -EINVAL;
	/* gABI "Sections": with SHN_LORESERVE or more sections e_shnum is 0
	 * and section 0's sh_size holds the count; with a section name table
	 * index of SHN_LORESERVE or more, e_shstrndx is SHN_XINDEX and section
	 * 0's sh_link holds it */
	if (!m->eh.e_shnum)
		m->shnum = s0.sh_size;
	if (m->eh.e_shstrndx == SHN_XINDEX)
		m->shstrndx = s0.sh_link;
	if (m->shnum > m->size / sizeof(Elf64_Shdr) ||
	    !sl_elfimg_in_file(m, m->eh.e_shoff, (uint64_t)m->shnum * sizeof(Elf64_Shdr)))
		return -EINVAL;
	return 0;
}

int sl_elfimg_init(struct sl_elfimg *m, const void *p, size_t size)
{
	int r;

	memset(m, 0, sizeof(*m));
	m->p = p;
	m->size = size;
	r = parse(m);
	if (r < 0)
		memset(m, 0, sizeof(*m));
	return r;
}

int sl_elfimg_open(struct sl_elfimg *m, int fd, size_t size)
{
	void *p;
	int r;

	memset(m, 0, sizeof(*m));
	if (size < EI_NIDENT)
		return -EINVAL;
	p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	r = sl_elfimg_init(m, p, size);
	if (r < 0) {
		munmap(p, size);
		return r;
	}
	m->mapped = 1;
	return 0;
}

void sl_elfimg_close(struct sl_elfimg *m)
{
	if (m->mapped && m->p)
		munmap((void *)m->p, m->size);
	memset(m, 0, sizeof(*m));
}

const unsigned char *sl_elfimg_sec_data(const struct sl_elfimg *m, const Elf64_Shdr *sh)
{
	if (sh->sh_type == SHT_NOBITS)
		return NULL;
	return sl_elfimg_at(m, sh->sh_offset, sh->sh_size);
}

const char *sl_elfimg_str(const struct sl_elfimg *m, size_t sec, uint64_t off)
{
	const unsigned char *d;
	Elf64_Shdr ss;

	if (sl_elfimg_shdr(m, sec, &ss) < 0 || !(d = sl_elfimg_sec_data(m, &ss)) || off >= ss.sh_size ||
	    !memchr(d + off, 0, ss.sh_size - off))
		return NULL;
	return (const char *)d + off;
}

const char *sl_elfimg_sec_name(const struct sl_elfimg *m, const Elf64_Shdr *sh)
{
	return sl_elfimg_str(m, m->shstrndx, sh->sh_name);
}

size_t sl_elfimg_find_type(const struct sl_elfimg *m, uint32_t type, Elf64_Shdr *out)
{
	for (size_t i = 1; i < m->shnum; i++)
		if (sl_elfimg_shdr(m, i, out) == 0 && out->sh_type == type)
			return i;
	return 0;
}

size_t sl_elfimg_find_name(const struct sl_elfimg *m, const char *name, Elf64_Shdr *out)
{
	for (size_t i = 1; i < m->shnum; i++) {
		const char *n;

		if (sl_elfimg_shdr(m, i, out) == 0 && (n = sl_elfimg_sec_name(m, out)) && !strcmp(n, name))
			return i;
	}
	return 0;
}

/* e_phentsize must equal sizeof(Elf64_Phdr) (the stricter of the readers
 * this replaces: the debug copy required it, the name index builder took
 * any size >= 56, the unwinding replay ignored it); a table with entries
 * must have a non-zero e_phoff (gABI: zero means no table) */
int sl_elfimg_phdrs(const struct sl_elfimg *m)
{
	if (!m->eh.e_phnum)
		return 0;
	if (m->eh.e_phentsize != sizeof(Elf64_Phdr) || !m->eh.e_phoff ||
	    !sl_elfimg_in_file(m, m->eh.e_phoff, (uint64_t)m->eh.e_phnum * sizeof(Elf64_Phdr)))
		return -EINVAL;
	return 0;
}

int sl_elfimg_phdr(const struct sl_elfimg *m, size_t i, Elf64_Phdr *out)
{
	if (sl_elfimg_phdrs(m) < 0)
		return -EINVAL;
	if (i >= m->eh.e_phnum)
		return -ENOENT;
	memcpy(out, m->p + m->eh.e_phoff + (uint64_t)i * sizeof(*out), sizeof(*out));
	return 0;
}

int sl_elfimg_symtab(const struct sl_elfimg *m, const Elf64_Shdr *sh, unsigned flags,
		     struct sl_elfimg_symtab *t)
{
	Elf64_Shdr ss;

	memset(t, 0, sizeof(*t));
	if (!(t->syms = sl_elfimg_sec_data(m, sh)) || sh->sh_size % sizeof(Elf64_Sym) ||
	    (!(flags & SL_ELFIMG_ANY_ENTSIZE) && sh->sh_entsize != sizeof(Elf64_Sym))) {
		t->syms = NULL;
		return -EINVAL;
	}
	t->n = sh->sh_size / sizeof(Elf64_Sym);
	if (sl_elfimg_shdr(m, sh->sh_link, &ss) == 0 && (t->str = sl_elfimg_sec_data(m, &ss)) != NULL)
		t->strsz = ss.sh_size;
	if ((flags & SL_ELFIMG_STRTAB_NUL) &&
	    (!t->str || ss.sh_type != SHT_STRTAB || !t->strsz || t->str[t->strsz - 1] != 0)) {
		memset(t, 0, sizeof(*t));
		return -EINVAL;
	}
	return 0;
}

int sl_elfimg_sym(const struct sl_elfimg_symtab *t, uint64_t i, Elf64_Sym *out)
{
	if (i >= t->n)
		return -ENOENT;
	memcpy(out, t->syms + i * sizeof(*out), sizeof(*out));
	return 0;
}

const char *sl_elfimg_sym_name(const struct sl_elfimg_symtab *t, uint32_t st_name, uint32_t *len)
{
	const unsigned char *z;

	if (!t->str || st_name >= t->strsz || !(z = memchr(t->str + st_name, 0, t->strsz - st_name)))
		return NULL;
	if (len)
		*len = (uint32_t)(z - (t->str + st_name));
	return (const char *)t->str + st_name;
}

/* offsets are relative to @d: libelf aligns them from the start of the
 * section's (segment's) data, as does bfd */
int sl_elfimg_note_next(const unsigned char *d, uint64_t size, unsigned flags, uint64_t *off,
			struct sl_elfimg_note *n)
{
	uint64_t a = (flags & SL_ELFIMG_NOTE_ALIGN8) ? 7 : 3, o = *off, desc, next;
	Elf64_Nhdr nh;

	if (o > size || size - o < sizeof(nh))
		return 0;
	memcpy(&nh, d + o, sizeof(nh));
	desc = (o + sizeof(nh) + nh.n_namesz + a) & ~a;
	next = (desc + nh.n_descsz + a) & ~a;
	if (desc > size || nh.n_descsz > size - desc || ((flags & SL_ELFIMG_NOTE_PADDED) && next > size))
		return -EINVAL;
	n->type = nh.n_type;
	n->namesz = nh.n_namesz;
	n->descsz = nh.n_descsz;
	n->name = d + o + sizeof(nh);
	n->desc = d + desc;
	*off = next;
	return 1;
}

int sl_elfimg_note_is(const struct sl_elfimg_note *n, const char *name, uint32_t type)
{
	size_t len = strlen(name) + 1;

	return n->type == type && n->namesz == len && !memcmp(n->name, name, len);
}

uint32_t sl_elfimg_notes_build_id(const unsigned char *d, uint64_t size, unsigned flags, unsigned char *out,
				  uint32_t max)
{
	struct sl_elfimg_note n;
	uint64_t o = 0;

	while (sl_elfimg_note_next(d, size, flags, &o, &n) > 0)
		if (sl_elfimg_note_is(&n, "GNU", NT_GNU_BUILD_ID) && n.descsz && n.descsz <= max) {
			memcpy(out, n.desc, n.descsz);
			return n.descsz;
		}
	return 0;
}

uint32_t sl_elfimg_build_id(const struct sl_elfimg *m, unsigned char *out, uint32_t max)
{
	Elf64_Shdr sh;

	for (size_t i = 1; i < m->shnum; i++) {
		const unsigned char *d;
		uint32_t len;

		if (sl_elfimg_shdr(m, i, &sh) < 0 || sh.sh_type != SHT_NOTE || !(d = sl_elfimg_sec_data(m, &sh)))
			continue;
		if ((len = sl_elfimg_notes_build_id(d, sh.sh_size, SL_ELFIMG_NOTE_PADDED, out, max)))
			return len;
	}
	return 0;
}
