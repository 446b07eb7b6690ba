/* SPDX-License-Identifier: MIT */
/*
 * core/model/perfprobe61.c - `perf probe` of perf 6.1 (tools/perf/builtin-probe.c,
 * util/probe-event.c show_available_funcs for -F, probe point lookup by
 * name). It loads a DSO's symbols as perf script does (symbol-elf.c
 * dso__load_sym, same keep rule: core/model/perf61.c) and then keeps more per
 * symbol (the name list it filters and prints). Measured: `perf probe -x
 * main -F` on the 500k-symbol fixture, 96 MB above the floor for 505,164
 * names = 190 bytes per symbol, where perf script's charge (64 + name + 1)
 * comes to 189. Charged: 128 + 2 x (name + 1).
 */
#include "core/models.h"

static uint64_t perfprobe_cost(uint64_t namelen)
{
	return 128 + 2 * (namelen + 1);
}

/* A charge model only (core/tool.c sl_charge_model): the session's rules
 * stay those of perf's version (core/session.c), so what a charge reads is
 * all it has: the keep rule (perf's: the budget's candidates), the cost,
 * the budget rules, what a dropped symbol looks like. */
const struct sl_tool_model sl_model_perf61_probe = {
	.sym.name = "perf-6.1-probe",
	.tool = "perf",
	.sym.sym_kind = sl_perf_sym_kind,
	.sym.sym_cost = perfprobe_cost,
	.launches_workloads = 1,
	.budget_rules = SL_BR_ZERO_STRETCH | SL_BR_OVERLAP,
	.unknown_shows = "are not listed or found",
};
