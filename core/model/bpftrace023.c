/* SPDX-License-Identifier: MIT */
/*
 * core/model/bpftrace023.c - bpftrace 0.23 (bpftrace/bpftrace v0.23.2,
 * Debian 13's 0.23.2-1), recognised by its version literal "v0.23." in the
 * executable (CMake's BPFTRACE_VERSION, printed by `bpftrace --version`).
 *
 * Stacks are symbolized by libbcc's symcache as in 0.17 (src/usyms.cpp
 * Usyms::resolve: bcc_symcache_new + bcc_symcache_resolve, a new cache per
 * address for cache_user_symbols=none, one per pid or per executable
 * otherwise), answered by the shim through the libbcc model of the libbcc
 * loaded (core/model/bcc026.c, bcc031.c). bpftrace's own scans through
 * bcc_elf_foreach_sym are
 *   - the function listing (src/probe_matcher.cpp, `bpftrace -l` and
 *     wildcard uprobes): as in 0.17, names into a set, then one string;
 *   - per_program symbol caching (src/utils.cpp get_symbol_table_for_elf):
 *     a std::map node per symbol (name as std::string, start, end; keep
 *     types every type but STT_NOTYPE), about 100 bytes plus the name.
 * Charged with 0.17's measured listing cost (core/model/bpftrace017.c:
 * 320 + 3 x (name + 1)), the larger of the two. Not measured on 0.23.
 */
#include "core/models.h"

int bpftrace023_image_matches(const char *img, size_t len)
{
	return bpftrace_image_has_version(img, len, "0.23");
}

const struct sl_tool_model sl_model_bpftrace023 = SL_BPFTRACE_MODEL("0.23", bpftrace023_image_matches);
