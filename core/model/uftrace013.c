/* SPDX-License-Identifier: MIT */
/*
 * core/model/uftrace013.c - uftrace 0.13 (namhyung/uftrace v0.13, utils/symbol.c).
 *
 * Keep rule (load_symbol): st_shndx != SHN_UNDEF, st_size != 0, type FUNC,
 * GNU_IFUNC or OBJECT, and not an alias (same st_value as the symbol loaded
 * just before it in table order). .dynsym is read only without .symtab.
 *
 * uftrace record saves each module's symbols to <name>.sym (save_symbol_file:
 * one "addr type name" line per symbol, an end marker only after the last one
 * and where functions turn into data) and uftrace replay reads them back
 * (load_symbol_file): a symbol's size becomes the distance to the next line.
 * A symbol kept before dropped ones would so cover them in the saved trace
 * (SL_BR_NEXT_STRETCH): under a budget only an address-ordered suffix of
 * the symbols is kept, every kept symbol followed by the one that follows it
 * in the full table (core/budgetplan.c).
 *
 * Heap per kept symbol (record: load_module_symtabs): struct uftrace_symbol
 * (24 bytes) in one array, its qsort (glibc msort) copy, the sym_names
 * pointer array and its copy, the (demangled) name: measured 160 bytes per
 * symbol on the 500k-symbol fixture (uftrace record --force, 606,660
 * symbols, 97 MB above the floor). Charged: 64 + name + 1 + 23.
 */
#include "core/models.h"

static enum sl_sym_kind uftrace_sym_kind(const GElf_Sym *s)
{
	int t = GELF_ST_TYPE(s->st_info);

	if (s->st_shndx == SHN_UNDEF || !s->st_size || !s->st_name)
		return SL_SYM_SKIP;
	if (t == STT_FUNC || t == STT_GNU_IFUNC)
		return SL_SYM_FUNC;
	if (t == STT_OBJECT)
		return SL_SYM_OBJECT;
	return SL_SYM_SKIP;
}

static uint64_t uftrace_cost(uint64_t namelen)
{
	return 64 + namelen + 1 + 23;
}

const struct sl_tool_model sl_model_uftrace013 = {
	.sym.name = "uftrace-0.13",
	.tool = "uftrace",
	.sym.sym_kind = uftrace_sym_kind,
	.sym.sym_cost = uftrace_cost,
	.launches_workloads = 1,            /* uftrace record/live CMD */
	.budget_rules = SL_BR_NEXT_STRETCH | SL_BR_OVERLAP,
	.unknown_shows = "are missing from the trace's .sym files (addresses without a name)",
};
