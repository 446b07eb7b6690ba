/* SPDX-License-Identifier: MIT */
/*
 * core/model/bcc026.c - libbcc 0.26 (iovisor/bcc v0.26.0) as a symbol consumer:
 * ProcSyms::Module::load_sym_table (src/cc/bcc_syms.cc) keeps what
 * bcc_elf_foreach_sym[_lazy] (src/cc/bcc_elf.c list_in_scn) reports, by the
 * cache's bcc_symbol_option.lazy_symbolize. The shim tells which one a scan
 * serves from the callback libbcc passes (shim/wrappers_bcc.c).
 *
 * Keep rule (list_in_scn): a name (elf_strptr non-NULL, non-empty),
 * st_value != 0 and (1 << st_type) in use_symbol_type; no section check.
 *
 * Heap per kept symbol, measured on the 500k-symbol fixture (peak RssAnon
 * above SYMLAZY_HIDE_ALL's floor, 505,710 symbols of main, names 124 bytes
 * on average): lazy 28 MB = 56 bytes (sizeof(ProcSyms::Symbol), syms.h:
 * bool + NameIdx{3 size_t, bool} + start + size, in a std::vector),
 * non-lazy 136 MB = 272 bytes (+ the name as a std::string in an
 * unordered_set: 64-byte hash node, the string's heap copy past 15 bytes,
 * 8-byte buckets). The vector doubles: when it grows, the old and the new
 * array are both resident, so the symbol part is charged twice (112).
 * Charged: lazy 112; non-lazy 112 + 64 + 16 (buckets, rehash) + name + 1 +
 * 31 (malloc header and rounding of the string) - never below the measure.
 */
#include "core/models.h"
#include "index/symindex.h"

enum sl_sym_kind bcc026_sym_kind_types(const GElf_Sym *s, uint32_t types)
{
	unsigned t = GELF_ST_TYPE(s->st_info) & 0xf;

	if (!s->st_name || !s->st_value || !(types & (1u << t)))
		return SL_SYM_SKIP;
	return t == STT_OBJECT ? SL_SYM_OBJECT : t == STT_NOTYPE ? SL_SYM_LABEL : SL_SYM_FUNC;
}

/* Without the option at hand: ProcSyms' default (FUNC | GNU_IFUNC). */
enum sl_sym_kind bcc026_sym_kind(const GElf_Sym *s)
{
	return bcc026_sym_kind_types(s, (1u << STT_FUNC) | (1u << STT_GNU_IFUNC));
}

uint64_t bcc026_lazy_cost(uint64_t namelen)
{
	(void)namelen;              /* the name stays in the file until resolved */
	return 112;
}

uint64_t bcc026_cost(uint64_t namelen)
{
	return 112 + 64 + 16 + namelen + 1 + 31;
}

/* bcc never stretches a symbol: Module::find_addr answers with a symbol
 * holding the offset in [start, start + size), so only overlaps (nesting) and
 * the order of equal starts matter: the plan is made on libbcc's own sorted
 * vector (core/bccplan.c), SL_BR_OVERLAP for scans outside it. BuildSyms::Module
 * (bcc_syms.cc, build-id stack maps) keeps the same vector with names
 * (non-lazy), but resolve_addr answers with the last start <= offset, whatever
 * its size: every symbol reaches the next one (SL_BR_NEXT_STRETCH).
 * SL_BCC_MODEL_* (core/models.h) hold these values for every version. */
const struct sl_tool_model sl_model_bcc026_lazy = SL_BCC_MODEL_LAZY("0.26");
const struct sl_tool_model sl_model_bcc026 = SL_BCC_MODEL_EAGER("0.26");
const struct sl_tool_model sl_model_bcc026_build = SL_BCC_MODEL_BUILD("0.26");
