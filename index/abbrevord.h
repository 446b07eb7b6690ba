/* SPDX-License-Identifier: MIT */
/*
 * abbrevord.h - unit DIE abbreviations first.
 *
 * libdwfl's address lookup (elfutils 0.196 libdwfl/cu.c addrarange ->
 * libdw/dwarf_getaranges.c __libdw_getdieranges) interns every unit of a
 * debug file (libdw/libdw_findcu.c __libdw_intern_next_unit) and reads each
 * unit DIE's DW_AT_low_pc/DW_AT_ranges. Reading a DIE looks its abbreviation
 * code up (libdw/dwarf_tag.c __libdw_findabbrev), which parses the unit's
 * abbreviation table entry by entry from its start until the code turns up,
 * allocating a Dwarf_Abbrev and a hash slot per parsed entry
 * (libdw/dwarf_getabbrev.c __libdw_getabbrev). GCC numbers abbreviations by
 * use count, so the unit DIE's (used once) is usually the last one of its
 * table: every entry of every table is parsed and kept on the heap (libc6-dbg:
 * 1.8 MB of 5.2 MB for 3232 units).
 *
 * sl_abbrev_front moves, in each table, the entry the unit DIE uses to the
 * front of its table. Codes stay the same, the table keeps its offset and
 * length, every other entry keeps its bytes and relative order, so libdw
 * finds the same entries for the same codes and parses the others later in
 * the same order; only the offset of an entry inside its table changes
 * (visible through dwarf_getabbrev(die, offset) and
 * dwarf_getabbrevattr_data's offset, not used by perf). A move is made only
 * when libdw's reading of the entries it skips is unaffected: the moved
 * entry and every entry before it parse cleanly (each LEB128 ends inside
 * the section within 10 bytes, values below 2^32: libdw reads them into
 * unsigned int), their codes are distinct and non-zero, and no other
 * table's walk touches the bytes that move (no unit's table starts inside
 * them; a table starting before them ends, past its 0 byte, at or before
 * them; a table with an entry that does not parse reaches the section end). Format facts: DWARF 5 section 7.5.1
 * (unit headers), 7.5.3 (abbreviation tables), DWARF 4 section 7.5.1.2
 * (.debug_types headers).
 */
#ifndef SYMLAZY_ABBREVORD_H
#define SYMLAZY_ABBREVORD_H

#include <stddef.h>
#include <stdint.h>

struct sl_abbrev_stats {
	uint64_t units;         /* unit headers read */
	uint64_t moved;         /* units whose DIE's entry was moved to the front */
	uint64_t front;         /* units whose entry was already first */
	uint64_t left;          /* units left alone (unclean table, duplicate code,
				 * overlap, unknown header, work bound) */
};

/*
 * sl_abbrev_front - rewrite the .debug_abbrev bytes @abbrev (@alen bytes,
 * in place) for the units of @info (@ilen bytes: .debug_info) and of
 * @types (@tlen bytes: a DWARF 4 .debug_types section; NULL/0 when there is
 * none). Little-endian ELF only (the caller's check). Bounded work: at
 * most 16 * @alen + 1 MiB bytes walked (each table once) and moved in all;
 * past that, units are left. Memory: 16 bytes per unit (table starts and
 * their reach) plus 4 bytes per entry of the largest table searched.
 * Returns 0 and fills @st (accumulated: the caller zeroes it), or -ENOMEM
 * (then @abbrev may hold some moves already made, each complete).
 */
int sl_abbrev_front(unsigned char *abbrev, size_t alen, const unsigned char *info, size_t ilen,
		    const unsigned char *types, size_t tlen, struct sl_abbrev_stats *st);

#endif
