/* SPDX-License-Identifier: MIT */
/*
 * scan.h - recognise a full-table scan among gelf_getsym() calls on one Elf_Data.
 *
 * A scan is the sequence idx 0, 1, 2, ... nr (the last, past-the-end call
 * fails in libelf and ends the scan). perf 6.1's elf_symtab__for_each_symbol()
 * calls gelf_getsym for idx 0 from the for-init and for idx >= 1 from the
 * for-increment: two distinct call sites. Its PLT synthesis reads .dynsym by
 * relocation index from a single call site, and can ask for 0 then 1 (an
 * IRELATIVE reloc has symbol index 0). With @two_sites set (callers inside the
 * perf executable), idx 1 must come from a different return address than idx 0,
 * and every later idx from the same one as idx 1; anything else is random
 * access and is passed through untouched.
 */
#ifndef SYMLAZY_SCAN_H
#define SYMLAZY_SCAN_H

#include <stdint.h>

enum scan_verdict {
	SCAN_RANDOM = 0,   /* not part of a scan: pass through */
	SCAN_START,        /* idx 0 of a (possible) scan */
	SCAN_NEXT,         /* idx 1..nr-1 of a scan: apply the plan */
	SCAN_END,          /* idx >= nr right after the last element */
};

struct scan_state {
	int active;
	uint64_t expected;
	uintptr_t site0, site1;
};

/* scan_step - classify one call. @nr: entries in the table (sh_size/sh_entsize),
 * @site: the caller's return address. */
enum scan_verdict scan_step(struct scan_state *st, uint64_t idx, uint64_t nr,
			    uintptr_t site, int two_sites);

#endif
