/* ifunc.c - an ifunc (STT_GNU_IFUNC symbol whose value is its resolver) whose
 * implementations are hot. Calls to it go through a PLT slot, so a sample can
 * land in the PLT (a documented fallback for the lazy plan). */
#include "corpus.h"

CORPUS_COLD64(ifn)

__attribute__((noinline)) static unsigned long if_impl_generic(unsigned long x)
{
	for (int i = 0; i < 4000; i++)
		x = x * 6364136223846793005ul + 1;
	return x;
}

__attribute__((noinline)) static unsigned long if_impl_fast(unsigned long x)
{
	for (int i = 0; i < 4000; i++)
		x = (x ^ (x >> 7)) * 0x9e3779b97f4a7c15ul;
	return x;
}

static volatile int if_choice = 1;

static void *if_resolver(void)
{
	return if_choice ? (void *)if_impl_fast : (void *)if_impl_generic;
}

unsigned long if_hot(unsigned long) __attribute__((ifunc("if_resolver")));

__attribute__((noinline)) unsigned long if_driver(void)
{
	unsigned long x = 1;

	while (!corpus_stop) {
		x = if_hot(x);
		x = if_impl_generic(x);
	}
	return x;
}

int main(int argc, char **argv)
{
	unsigned long x;

	corpus_arm(argc > 1 ? argv[1] : NULL);
	x = if_driver();
	if (argc > 99)
		x += ifn_cold_01(x);
	return x == 0xdeadbeefUL;
}
