/* SPDX-License-Identifier: MIT */
/*
 * perfdata/kernel.h - the kernel and JIT part of the address collector
 * (perfdata/perfdata.c calls these; results land in struct pd_result's kern and
 * jit fields, perfdata.h). Facts: perf 6.1 util/machine.c
 * (machine__process_kernel_mmap_event, machine__process_mmap{,2}_event),
 * util/map.c map__new (anonymous executable memory -> /tmp/perf-PID.map,
 * identity addresses), util/machine.c thread__resolve_callchain_sample
 * (PERF_CONTEXT_* switch the cpumode of the entries that follow).
 */
#ifndef SYMLAZY_PD_KERNEL_H
#define SYMLAZY_PD_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include "perfdata/perfdata.h"
#include "perfdata/record.h"

#define PD_KERNEL_HALF 0x8000000000000000ull

/* pd_kernel_addr - perf may look up @ip in the kernel maps. 0 or -ENOMEM. */
int pd_kernel_addr(struct pd_kernel *k, uint64_t ip);

/* pd_kernel_mmap - an MMAP/MMAP2 in kernel cpumode (@misc: header.misc). */
int pd_kernel_mmap(struct pd_kernel *k, uint16_t misc, const struct pd_mmap *mm);

/* pd_jit_path - if a user MMAP/MMAP2 is memory perf gives the DSO
 * "/tmp/perf-PID.map" (map__new: anonymous or no-DSO memory, executable),
 * write that path to @out and return 1; else 0. */
int pd_jit_path(uint16_t misc, const struct pd_mmap *mm, const char *filename, char *out,
		size_t n);

/* pd_kernel_finish - sort and deduplicate the addresses. 0 or -ENOMEM. */
int pd_kernel_finish(struct pd_kernel *k);

/* pd_kernel_free - free @k's arrays. */
void pd_kernel_free(struct pd_kernel *k);

/* pd_module_name - perf's dso short name of a module MMAP filename
 * (util/dso.c __kmod_path__parse: "[name]" as is, ".../ext4.ko[.xz]" ->
 * "[ext4]", '-' -> '_'); 0, or -1 if it is not a module name. */
int pd_module_name(const char *filename, char *out, size_t n);

#endif
