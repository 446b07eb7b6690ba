/* SPDX-License-Identifier: MIT */
/*
 * core/model/bcc031.c - libbcc 0.31 (iovisor/bcc v0.31.0; Debian 13's
 * libbcc_bpf.so.0.31.0 and libbcc.so.0.31.0, bpfcc 0.31.0+ds-7) as a symbol
 * consumer.
 *
 * Between the tags v0.26.0 and v0.31.0, src/cc/bcc_syms.cc, bcc_syms.h,
 * syms.h and bcc_elf.h are unchanged: ProcSyms::Module::load_sym_table,
 * find_addr, BuildSyms, the callbacks the shim recognises and the kept
 * struct (so the heap per symbol measured for core/model/bcc026.c) are the
 * same. What changed:
 *   - src/cc/bcc_elf.c: bcc_elf_file_open() opens a path it cannot open()
 *     as "ARCHIVE!/ENTRY" inside a zip archive (bcc_zip.c); list_in_scn (the
 *     keep rule) and bcc_elf_foreach_sym[_lazy] are unchanged;
 *   - src/cc/bcc_proc.c _procfs_maps_each_module: a mapping whose path holds
 *     ".zip" or ".apk" becomes the module "PATH!/ENTRY" of the zip entry at
 *     its offset (_procfs_find_zip_entry); the maps fields are parsed with
 *     PRIx64 (the same values on 64-bit hosts).
 * Zip modules are not mirrored: index/bccsyms.c hands any module whose path
 * holds ".zip" or ".apk" to the real libbcc (under 0.26 too, where such a
 * path is a plain file: asking libbcc is always exact).
 *
 * The entry points are exported by libbcc_bpf.so.0 as well as libbcc.so.0
 * (nm -D of Debian's 0.26 and 0.31 builds); bpftrace 0.23.2 links only
 * libbcc_bpf.so.0 (shim/resolve.c finds either). Neither library holds a
 * version string: the version is the one of the library's file name
 * (CMake's VERSION, libbcc_bpf.so.0.31.0; core/tool.c sl_bcc_models_for_file).
 */
#include "core/models.h"

/* The same three models as 0.26 (core/model/bcc026.c): the files above
 * that decide them are unchanged. */
const struct sl_tool_model sl_model_bcc031_lazy = SL_BCC_MODEL_LAZY("0.31");
const struct sl_tool_model sl_model_bcc031 = SL_BCC_MODEL_EAGER("0.31");
const struct sl_tool_model sl_model_bcc031_build = SL_BCC_MODEL_BUILD("0.31");
