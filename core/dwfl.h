/* SPDX-License-Identifier: MIT */
/*
 * dwfl.h - answering libdwfl's symbol-by-address lookups from the index:
 * dwfl_module_addrsym(), dwfl_module_addrinfo() and dwfl_module_addrname()
 * (which upstream implements with an internal call to addrinfo, so the shim
 * must take it too). Every decision is here; the shim (shim/dwfl.c) owns the
 * Dwfl_Module registry and forwards.
 *
 * Per module: the first SL_DWFL_CACHE_AFTER lookups go to libdwfl; the next
 * maps a cached index if there is one; without one, libdwfl answers up to
 * SL_DWFL_BUILD_AFTER lookups and the next builds the index (into the cache
 * dir when the module's symbol file has a file identity). Every lookup after
 * that is a binary search plus one dwfl_module_getsym_info() for the
 * answer's fields. Anything the index
 * cannot answer exactly - unmodelable modules, a sizeless fallback whose
 * section test needs libdwfl's section cache (addrinfo), "no symbol" with a
 * bias pointer, a changed module, more candidates than the scratch holds -
 * goes to the real function.
 */
#ifndef SYMLAZY_DWFL_H
#define SYMLAZY_DWFL_H

#include <elfutils/libdwfl.h>
#include "index/dwflindex.h"
#include "util/elfops.h"

struct sl_session;

/* lookups of a module libdwfl answers before symlazy maps a cached index
 * (one scan is what a single lookup costs anyway), and before it builds one
 * (a build costs about three scans: the worst case is then about
 * (16 + 3) / 17 of stock, once per file; later runs read the cache) */
#define SL_DWFL_CACHE_AFTER 1
#define SL_DWFL_BUILD_AFTER 16

/* The real libdw functions (resolved by the shim; fakes in unit tests). */
struct sl_dwfl_ops {
	int (*getsymtab)(Dwfl_Module *);
	int (*getsymtab_first_global)(Dwfl_Module *);
	const char *(*getsym_info)(Dwfl_Module *, int, GElf_Sym *, GElf_Addr *, GElf_Word *, Elf **,
				   Dwarf_Addr *);
	const char *(*module_info)(Dwfl_Module *, void ***, Dwarf_Addr *, Dwarf_Addr *, Dwarf_Addr *,
				   Dwarf_Addr *, const char **, const char **);
	const char *(*addrinfo)(Dwfl_Module *, GElf_Addr, GElf_Off *, GElf_Sym *, GElf_Word *, Elf **,
				Dwarf_Addr *);
	const char *(*addrsym)(Dwfl_Module *, GElf_Addr, GElf_Sym *, GElf_Word *);
	const char *(*version)(Dwfl *);
	/* the file identity of an Elf the tool opened (0 if unknown) */
	int (*elf_identity)(void *ctx, Elf *elf, struct sl_file_id *id);
	void *ctx;
	const struct elf_ops *elf;  /* real libelf */
};

/* Per-module state (one per Dwfl_Module in the shim's registry). */
struct sl_dwfl_mod {
	int state;                  /* DM_* */
	int syments, first_global;
	unsigned library_calls;
	int cache_missed;           /* no usable cache file: do not look again */
	Elf *elfs[2];               /* the Elfs the index's symbols come from */
	struct sl_dwfl_index idx;
	char why[128];              /* why libdwfl answers (DM_LIBRARY) */
};
enum { DM_NEW = 0, DM_INDEXED, DM_LIBRARY };

void sl_dwfl_mod_reset(struct sl_dwfl_mod *m);

/* Does @m use @elf (elf_end of it ends the module's index)? */
int sl_dwfl_mod_uses(const struct sl_dwfl_mod *m, const Elf *elf);

/*
 * sl_dwfl_lookup - dwfl_module_addrinfo (@adjust 0) or dwfl_module_addrsym
 * (@adjust 1: @off, @elfp and @biasp are NULL) for @mod, with libdwfl 0.188's
 * results and side effects on the caller's buffers. @m is @mod's state.
 */
const char *sl_dwfl_lookup(struct sl_session *s, const struct sl_dwfl_ops *ops, struct sl_dwfl_mod *m,
			   Dwfl_Module *mod, GElf_Addr addr, GElf_Off *off, GElf_Sym *sym,
			   GElf_Word *shndxp, Elf **elfp, Dwarf_Addr *biasp, int adjust);

/* sl_dwfl_enabled - may lookups be answered in this process (SYMLAZY_DWFL,
 * libdw version)? Decided once from @ops. */
int sl_dwfl_enabled(struct sl_session *s, const struct sl_dwfl_ops *ops);

#endif
