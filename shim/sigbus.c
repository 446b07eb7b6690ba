/* SPDX-License-Identifier: MIT */
/*
 * sigbus.c - a file truncated while libelf has it mapped.
 *
 * The mmap mechanism serves ELF_C_READ from a private file mapping. If the
 * file is truncated while mapped, touching a page past the new end raises
 * SIGBUS, where stock libelf (pread into heap copies) would have failed the
 * call or kept its copy. So the shim remembers the mappings it caused and, on
 * a SIGBUS inside one of them, maps a zero page over the faulting page and
 * lets the tool continue (symbols there read as empty), with one stderr line.
 * Faults anywhere else go to the previous handler or the default action.
 * The handler is installed on the first upgraded elf_begin only.
 */
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "shim.h"

#define NRANGES 256

static struct {
	_Atomic uintptr_t lo, hi;
} ranges[NRANGES];
static struct sigaction old_bus;
static atomic_int installed, warned;

static void bus_handler(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr, pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	int i;

	for (i = 0; i < NRANGES; i++) {
		uintptr_t lo = atomic_load(&ranges[i].lo), hi = atomic_load(&ranges[i].hi);

		if (lo && a >= lo && a < hi) {
			void *p = mmap((void *)(a & ~(pg - 1)), pg, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

			if (p != MAP_FAILED) {
				static const char msg[] = "symlazy: an ELF file was truncated while mapped; "
							  "reading zeros past its new end (SYMLAZY_MMAP=0 avoids this)\n";

				if (!atomic_exchange(&warned, 1))
					(void)!write(2, msg, sizeof(msg) - 1);
				return;
			}
		}
	}
	if ((old_bus.sa_flags & SA_SIGINFO) && old_bus.sa_sigaction) {
		old_bus.sa_sigaction(sig, si, uc);
	} else if (old_bus.sa_handler != SIG_DFL && old_bus.sa_handler != SIG_IGN && old_bus.sa_handler) {
		old_bus.sa_handler(sig);
	} else {
		signal(sig, SIG_DFL);   /* the fault repeats with the default action */
	}
}

void shim_sigbus_watch(const void *base, size_t size)
{
	int i;

	if (!base || !size)
		return;
	if (!atomic_exchange(&installed, 1)) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = bus_handler;
		sa.sa_flags = SA_SIGINFO | SA_NODEFER;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGBUS, &sa, &old_bus);
	}
	for (i = 0; i < NRANGES; i++) {
		uintptr_t zero = 0;

		if (atomic_compare_exchange_strong(&ranges[i].lo, &zero, (uintptr_t)base)) {
			atomic_store(&ranges[i].hi, (uintptr_t)base + size);
			return;
		}
	}
}

void shim_sigbus_forget(const void *base)
{
	int i;

	if (!base)
		return;
	for (i = 0; i < NRANGES; i++) {
		if (atomic_load(&ranges[i].lo) == (uintptr_t)base) {
			atomic_store(&ranges[i].hi, 0);
			atomic_store(&ranges[i].lo, 0);
			return;
		}
	}
}
