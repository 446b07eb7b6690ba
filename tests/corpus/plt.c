/* plt.c - samples in PLT stubs, so the lazy plan must fall back to the full
 * table for this binary ("address ... is in the PLT"; perf 6.1 prints these
 * samples as _init+0x.. because the zero-size _init is extended over .plt)
 * and the output must still be identical.
 * A timer sample almost never lands on the PLT's single `jmp *GOT` (the IP
 * skids to the jump target), so strlen's .got.plt slot is reset to its lazy
 * value before every call (link with -z lazy): each call then runs the rest
 * of the stub (push; jmp PLT0) and samples land there. */
#include <string.h>
#include "corpus.h"

CORPUS_COLD64(plt)

extern unsigned long _GLOBAL_OFFSET_TABLE_[];
static const char *volatile plt_str = "corpus";
static unsigned long *plt_slot, plt_lazy;
static volatile unsigned long plt_sink;

/* strlen's .got.plt slot is the one its first call changes */
static void find_slot(void)
{
	unsigned long before[64];

	memcpy(before, _GLOBAL_OFFSET_TABLE_, sizeof(before));
	plt_sink = strlen(plt_str);     /* strlen is declared pure: keep the call */
	__asm__ volatile("" ::: "memory");
	for (int i = 3; i < 64; i++) {
		if (_GLOBAL_OFFSET_TABLE_[i] != before[i]) {
			plt_slot = &_GLOBAL_OFFSET_TABLE_[i];
			plt_lazy = before[i];
			return;
		}
	}
}

__attribute__((noinline)) unsigned long plt_loop(unsigned long x)
{
	for (int i = 0; i < 200; i++) {
		if (plt_slot) {
			*plt_slot = plt_lazy;
			__builtin_ia32_clflush(plt_slot);
			__asm__ volatile("" ::: "memory");
		}
		x += strlen(plt_str);
	}
	return x;
}

int main(int argc, char **argv)
{
	unsigned long x = 1;

	find_slot();
	corpus_arm(argc > 1 ? argv[1] : NULL);
	while (!corpus_stop)
		x = plt_loop(x);
	if (argc > 99)
		x += plt_cold_01(x);
	return x == 0xdeadbeefUL;
}
