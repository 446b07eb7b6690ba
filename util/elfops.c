/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include "util/elfimg.h"
#include "util/elfops.h"

/* The first GNU build-id note of one SHT_NOTE section: its length (cut to
 * @outsz), -ENOENT if none, -EINVAL when a note runs past the section or
 * the build-id is empty. The walk is util/elfimg.h sl_elfimg_note_next (gABI
 * "Note Section": Elf{32,64}_Nhdr {namesz, descsz, type}, name and desc
 * each padded to 4 bytes, as both ELF classes write GNU notes). */
static int scan_notes(const unsigned char *p, size_t size, unsigned char *out, size_t outsz)
{
	struct sl_elfimg_note n;
	uint64_t off = 0;
	int r;

	while ((r = sl_elfimg_note_next(p, size, 0, &off, &n)) > 0) {
		size_t len = n.descsz;

		if (!sl_elfimg_note_is(&n, "GNU", NT_GNU_BUILD_ID))
			continue;
		if (!len)
			return -EINVAL;
		len = len > outsz ? outsz : len;
		memcpy(out, n.desc, len);
		return (int)len;
	}
	return r < 0 ? r : -ENOENT;
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
