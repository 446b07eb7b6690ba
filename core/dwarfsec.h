/* SPDX-License-Identifier: MIT */
/*
 * dwarfsec.h - libdw's compressed debug sections served from the page cache.
 * When libdw opens an ELF file (elfutils libdwfl/open.c
 * __libdw_open_file: elf_begin(fd, ELF_C_READ_MMAP, NULL)) that holds
 * SHF_COMPRESSED sections, the shim asks here for the decompressed copy of
 * that file (index/dbgsec.h) and gives elf_begin the copy's descriptor: libelf
 * maps it, and libdw's check_section (libdw/dwarf_begin_elf.c) finds no
 * SHF_COMPRESSED flag, so it neither calls elf_compress nor mallocs the
 * inflated bytes; elf_getdata hands out pointers into the mapping. The file
 * libdw opened stays its own descriptor (libdwfl validates build-id / CRC on
 * it), only the Elf handle reads the copy. The copy's descriptor lives until
 * that Elf's elf_end.
 */
#ifndef SYMLAZY_DWARFSEC_H
#define SYMLAZY_DWARFSEC_H

#include <libelf.h>
#include <stdint.h>

struct sl_session;

/*
 * sl_dwsec_from_libdw - is a call whose return address lies in the object
 * dladdr names @fname (path as the loader has it, NULL when none), loaded
 * at @fbase, a call from libdw? The object's basename starts with
 * "libdw.so" or "libdw-" (elfutils installs libdw-<version>.so with the
 * soname link libdw.so.1; "libdwarf", "libdwfl*" do not match). The first
 * match stores @fbase in *@base (atomically; 0 = none yet); from then on
 * only an object at that base matches. Returns 1 or 0.
 */
int sl_dwsec_from_libdw(const char *fname, uintptr_t fbase, uintptr_t *base);

/*
 * sl_dwsec_begin - for elf_begin(@fd, @cmd, @ref) called from libdw: an fd
 * of the decompressed copy to pass instead (owned by the caller until
 * sl_dwsec_adopt), or -1 to leave the call alone: SYMLAZY_DWARF_MAP=0, no
 * cache dir, @ref set, @cmd not one of the read commands (ELF_C_READ,
 * ELF_C_READ_MMAP, ELF_C_READ_MMAP_PRIVATE), nothing compressed, a layout
 * index/dbgsec.c does not rewrite, or a failure (then one stderr line per
 * process, reason SL_R_DBGSEC_FAILED, and the "left" counter).
 */
int sl_dwsec_begin(struct sl_session *s, int fd, Elf_Cmd cmd, Elf *ref);

/* sl_dwsec_adopt - elf_begin on the copy returned @elf: remember (@elf,
 * @cfd) and count the file; with @elf NULL the copy's fd is closed. */
void sl_dwsec_adopt(struct sl_session *s, Elf *elf, int cfd);

/* sl_dwsec_forget - @elf is being ended: close its copy's fd if it has one. */
void sl_dwsec_forget(struct sl_session *s, Elf *elf);

#endif
