/* SPDX-License-Identifier: MIT */
#include "core/scan.h"

enum scan_verdict scan_step(struct scan_state *st, uint64_t idx, uint64_t nr,
			    uintptr_t site, int two_sites)
{
	if (idx == 0) {
		st->active = 1;
		st->expected = 1;
		st->site0 = site;
		st->site1 = 0;
		return SCAN_START;
	}
	if (!st->active || idx != st->expected)
		return SCAN_RANDOM;
	if (idx == 1) {
		if (two_sites && site == st->site0) {
			st->active = 0;
			return SCAN_RANDOM;
		}
		st->site1 = site;
	} else if (two_sites && site != st->site1) {
		return SCAN_RANDOM;
	}
	st->expected++;
	if (idx >= nr) {
		st->active = 0;
		return SCAN_END;
	}
	return SCAN_NEXT;
}
