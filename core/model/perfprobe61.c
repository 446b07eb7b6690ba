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

const struct sl_model sl_model_perf61_probe = {
	.name = "perf-6.1-probe",
	.tool = "perf",
	.image_matches = perf61_image_matches,
	.parse_argv = perf61_parse_argv,
	.text_output = perf61_text_output,
	.sym_kind = perf61_sym_kind,
	.label_section_ok = perf61_label_section_ok,
	.sym_cost = perfprobe_cost,
	.demangle = perf61_demangle,
	.choose_by_name = perf61_choose_by_name,
	.choose_by_summary = 1,
	.launches_workloads = 1,
	.budget_rules = SL_BR_ZERO_STRETCH | SL_BR_OVERLAP,
	.unknown_shows = "are not listed or found",
};
