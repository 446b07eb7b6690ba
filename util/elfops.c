/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include "util/elfops.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

/* Walk the notes of one SHT_NOTE section. Note layout (ELF gABI, "Note
 * Section"): Elf{32,64}_Nhdr {namesz, descsz, type} then name and desc, each
 * padded to 4 bytes (both ELF classes use 4-byte words for GNU notes). */
static int scan_notes(const unsigned char *p, size_t size, unsigned char *out, size_t outsz)
{
	size_t off = 0;

	while (off + 12 <= size) {
		uint32_t namesz, descsz, type;
		size_t name_off, desc_off, next;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		name_off = off + 12;
		if (namesz > size || descsz > size)
			return -EINVAL;
		desc_off = name_off + ((namesz + 3u) & ~3u);
		next = desc_off + ((descsz + 3u) & ~3u);
		if (desc_off > size || desc_off + descsz > size)
			return -EINVAL;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(p + name_off, "GNU", 4)) {
			if (descsz == 0)
				return -EINVAL;
			if (descsz > outsz)
				descsz = outsz;
			memcpy(out, p + desc_off, descsz);
			return (int)descsz;
		}
		if (next <= off)
			return -EINVAL;
		off = next;
	}
	return -ENOENT;
}

int elf_read_build_id(const struct elf_ops *ops, Elf *elf, unsigned char *out, size_t outsz)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	int ret = -ENOENT;

	if (!ops || !elf || !out || !outsz)
		return -EINVAL;
	while ((scn = ops->elf_nextscn(elf, scn)) != NULL) {
		Elf_Data *d;
		int r;

		if (!ops->gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		/* elf_rawdata: no byte-order conversion and no heap copy for
		 * mmapped files; the note words are host-endian for native files.
		 * Foreign-endian files are never filtered (see keepset). */
		d = ops->elf_rawdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size == 0)
			continue;
		r = scan_notes(d->d_buf, d->d_size, out, outsz);
		if (r > 0)
			return r;
		if (r == -EINVAL)
			ret = -EINVAL;
	}
	return ret;
}

char *build_id_hex(const unsigned char *id, size_t len, char *buf)
{
	static const char hx[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		buf[2 * i] = hx[id[i] >> 4];
		buf[2 * i + 1] = hx[id[i] & 15];
	}
	buf[2 * len] = '\0';
	return buf;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int build_id_parse(const char *hex, unsigned char *out, size_t outsz)
{
	size_t n = 0;

	while (hex[0] && hex[0] != ' ' && hex[0] != '\t' && hex[0] != '\n') {
		int hi = hexval(hex[0]), lo = hex[1] ? hexval(hex[1]) : -1;

		if (hi < 0 || lo < 0 || n >= outsz)
			return -EINVAL;
		out[n++] = (unsigned char)(hi << 4 | lo);
		hex += 2;
	}
	return n ? (int)n : -EINVAL;
}
