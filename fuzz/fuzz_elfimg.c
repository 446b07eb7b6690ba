/* SPDX-License-Identifier: MIT */
/*
 * fuzz_elfimg - the bounds-checked ELF64 reader (util/elfimg.h) on arbitrary
 * bytes, read in place (sl_elfimg_init: ASan sees any read past the input)
 * and, when the last input byte is odd, also mapped from a memfd
 * (sl_elfimg_open: the same headers). Invariants:
 *   init/open     say 0, -EINVAL or -ENOTSUP; on 0 the section header
 *                 table (shnum entries of 64 bytes at e_shoff) is inside;
 *   sections      every header below shnum reads; section data, names and
 *                 strings returned lie inside the input, each string's NUL
 *                 too; find_name / find_type give the first match;
 *   symbols       SHT_SYMTAB / SHT_DYNSYM tables read with every flag
 *                 combination: the entries (up to 4096) and their names
 *                 inside; STRTAB_NUL implies a string table ending in NUL;
 *   notes         every note of every SHT_NOTE section and PT_NOTE segment,
 *                 4- and 8-byte padding, padded or not: name and descriptor
 *                 inside, the walk moves forward; build-ids at most @max;
 *   phdrs         a usable table has every entry inside.
 */
#include <errno.h>
#include "fuzz_common.h"
#include "util/elfimg.h"

static const unsigned char *lo, *hi;

static void inside(const void *p, uint64_t len)
{
	const unsigned char *c = p;

	FUZZ_CHECK(c >= lo && c <= hi && len <= (uint64_t)(hi - c));
}

static void inside_str(const char *s)
{
	inside(s, 1);
	inside(s, strlen(s) + 1);
}

static void walk_notes(const unsigned char *d, uint64_t size)
{
	for (unsigned flags = 0; flags < 4; flags++) {
		struct sl_elfimg_note n;
		unsigned char out[64];
		uint64_t off = 0, prev;
		uint32_t len;
		int r, k = 0;

		do {
			prev = off;
			r = sl_elfimg_note_next(d, size, flags, &off, &n);
			FUZZ_CHECK(r == 1 || r == 0 || r == -EINVAL);
			if (r == 1) {
				FUZZ_CHECK(off > prev);
				inside(n.name, n.namesz);
				inside(n.desc, n.descsz);
				FUZZ_CHECK(n.desc >= n.name && n.desc + n.descsz <= d + size);
				if (flags & SL_ELFIMG_NOTE_PADDED)
					FUZZ_CHECK(off <= size);
			} else {
				FUZZ_CHECK(off == prev);
			}
		} while (r == 1 && ++k < 4096);
		len = sl_elfimg_notes_build_id(d, size, flags, out, 20);
		FUZZ_CHECK(len <= 20);
	}
}

static void walk_symtab(const struct sl_elfimg *m, const Elf64_Shdr *sh)
{
	for (unsigned flags = 0; flags < 4; flags++) {
		struct sl_elfimg_symtab t;
		Elf64_Sym s;
		uint32_t len;
		int r = sl_elfimg_symtab(m, sh, flags, &t);

		FUZZ_CHECK(r == 0 || r == -EINVAL);
		if (r < 0) {
			FUZZ_CHECK(!t.syms && !t.n);
			continue;
		}
		inside(t.syms, t.n * sizeof(Elf64_Sym));
		if (!(flags & SL_ELFIMG_ANY_ENTSIZE))
			FUZZ_CHECK(sh->sh_entsize == sizeof(Elf64_Sym));
		if (t.str)
			inside(t.str, t.strsz);
		if (flags & SL_ELFIMG_STRTAB_NUL)
			FUZZ_CHECK(t.str && t.strsz && !t.str[t.strsz - 1]);
		for (uint64_t i = 0; i < t.n && i < 4096; i++) {
			const char *nm;

			FUZZ_CHECK(sl_elfimg_sym(&t, i, &s) == 0);
			if ((nm = sl_elfimg_sym_name(&t, s.st_name, &len))) {
				inside_str(nm);
				FUZZ_CHECK(strlen(nm) == len);
			}
		}
		FUZZ_CHECK(sl_elfimg_sym(&t, t.n, &s) == -ENOENT);
	}
}

static void walk(const struct sl_elfimg *m)
{
	Elf64_Shdr sh, f;
	Elf64_Phdr ph;
	unsigned char out[32];
	size_t i;

	if (m->shnum)
		inside(m->p + m->eh.e_shoff, m->shnum * sizeof(Elf64_Shdr));
	for (i = 0; i < m->shnum && i < 4096; i++) {
		const unsigned char *d;
		const char *name;

		FUZZ_CHECK(sl_elfimg_shdr(m, i, &sh) == 0);
		if ((d = sl_elfimg_sec_data(m, &sh)))
			inside(d, sh.sh_size);
		if ((name = sl_elfimg_sec_name(m, &sh))) {
			size_t j;

			inside_str(name);
			j = sl_elfimg_find_name(m, name, &f);
			if (i)          /* the search starts at section 1 */
				FUZZ_CHECK(j >= 1 && j <= i);
		}
		if ((name = sl_elfimg_str(m, i, sh.sh_size / 2)))
			inside_str(name);
		if (i) {
			size_t j = sl_elfimg_find_type(m, sh.sh_type, &f);

			FUZZ_CHECK(j >= 1 && j <= i && f.sh_type == sh.sh_type);
		}
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)
			walk_symtab(m, &sh);
		if (sh.sh_type == SHT_NOTE && d)
			walk_notes(d, sh.sh_size);
	}
	FUZZ_CHECK(sl_elfimg_shdr(m, m->shnum, &sh) == -ENOENT);
	FUZZ_CHECK(sl_elfimg_build_id(m, out, sizeof(out)) <= sizeof(out));
	if (sl_elfimg_phdrs(m) == 0) {
		for (i = 0; sl_elfimg_phdr(m, i, &ph) == 0; i++) {
			const unsigned char *d;

			if (ph.p_type == PT_NOTE && (d = sl_elfimg_at(m, ph.p_offset, ph.p_filesz)))
				walk_notes(d, ph.p_filesz);
		}
		FUZZ_CHECK(i == m->eh.e_phnum);
	} else {
		FUZZ_CHECK(sl_elfimg_phdr(m, 0, &ph) == -EINVAL);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sl_elfimg m, mm;
	char path[64];
	size_t shnum = 0, shstrndx = 0;
	int r, fd;

	lo = data;
	hi = data + size;
	r = sl_elfimg_init(&m, data, size);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOTSUP);
	if (r < 0) {
		FUZZ_CHECK(m.p == NULL);
		sl_elfimg_close(&m);
	} else {
		FUZZ_CHECK(!m.mapped && m.p == data && m.size == size);
		shnum = m.shnum;
		shstrndx = m.shstrndx;
		walk(&m);
		sl_elfimg_close(&m);
	}
	if (!size || !(data[size - 1] & 1))
		return 0;
	fd = fuzz_memfd(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	FUZZ_CHECK(sl_elfimg_open(&mm, fd, size) == r);
	close(fd);
	if (r == 0) {
		FUZZ_CHECK(mm.mapped && mm.shnum == shnum && mm.shstrndx == shstrndx &&
			   !memcmp(mm.p, data, size));
		lo = mm.p;
		hi = mm.p + size;
		walk(&mm);
	}
	sl_elfimg_close(&mm);
	return 0;
}
