/* SPDX-License-Identifier: MIT */
/*
 * pd_kernel.h - the kernel and JIT part of the address collector
 * (core/perfdata.c calls these; results land in struct pd_result's kern and
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
#include "perfdata.h"
#include "pd_record.h"

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

#endif
