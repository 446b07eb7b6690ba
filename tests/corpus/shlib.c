/* shlib.c - libcorpus_shlib.so: the hot code of the shared-library case.
 * shl_run arms the timer and loops; samples land in shl_hot_* (and the
 * static shl_inner); 64 cold functions make the table large. */
#include <stdio.h>
#include "corpus.h"

CORPUS_COLD64(shl)

__attribute__((noinline)) static unsigned long shl_inner(unsigned long x)
{
	for (int i = 0; i < 1200; i++)
		x = (x << 5) + x + 0x9e3779b9ul;
	return x;
}

__attribute__((noinline)) unsigned long shl_hot_mix(unsigned long x)
{
	for (int i = 0; i < 1500; i++)
		x = x * 2862933555777941757ul + 3037000493ul;
	if (__builtin_expect(x == 99, 0))
		printf("never %lu\n", x);       /* a call through the PLT, never taken */
	return shl_inner(x);
}

__attribute__((noinline)) unsigned long shl_hot_shift(unsigned long x)
{
	for (int i = 0; i < 1500; i++)
		x ^= (x >> 11) ^ (x << 9);
	if (__builtin_expect(x == 5, 0))
		return shl_cold_42(x);
	return x;
}

unsigned long shl_run(const char *secs)
{
	unsigned long x = 3;

	corpus_arm(secs);
	while (!corpus_stop) {
		x = shl_hot_mix(x);
		x = shl_hot_shift(x);
	}
	return x;
}
