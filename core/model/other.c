/* SPDX-License-Identifier: MIT */
/*
 * core/model/other.c - a tool symlazy does not know (eu-nm, gdb, a Python bcc
 * script's own scans...). What it keeps and what that costs are unknown, so
 * the charge is conservative: every named, defined symbol of the table
 * (any type but SECTION and FILE) is charged 320 + 3 x (name + 1) bytes,
 * the most a known tool spends (bpftrace's listing, core/model/bpftrace017.c). The
 * budget then bounds the symbols such a tool can see, not a measured
 * memory figure. Kept symbols never stretch over dropped ones in the ways
 * tools are known to stretch (zero-size symbols, overlaps).
 */
#include "core/models.h"

static enum sl_sym_kind other_sym_kind(const GElf_Sym *s)
{
	int t = GELF_ST_TYPE(s->st_info);

	if (!s->st_name || s->st_shndx == SHN_UNDEF || t == STT_SECTION || t == STT_FILE)
		return SL_SYM_SKIP;
	return t == STT_OBJECT ? SL_SYM_OBJECT : t == STT_NOTYPE ? SL_SYM_LABEL : SL_SYM_FUNC;
}

const struct sl_tool_model sl_model_other = {
	.sym.name = "other",
	.tool = "other",
	.sym.sym_kind = other_sym_kind,
	.sym.sym_cost = bpftrace_listing_cost,     /* the most a known tool spends */
	.budget_rules = SL_BR_ZERO_STRETCH | SL_BR_OVERLAP,
	.unknown_shows = "are hidden from the tool",
};
