/* basic.c - plain C: main -> driver -> mid -> two leaves, a static function,
 * rarely-taken tail calls and calls to cold functions (annotate resolves their
 * targets), 64 cold functions. Built as PIE, non-PIE and stripped+debuglink;
 * also the exec target of the fork/exec and two-process cases.
 * Usage: basic [seconds [mul|xor]]   (mul/xor: only that leaf runs;
 * CORPUS_TAG only changes the build-id) */
#include "corpus.h"

#ifndef CORPUS_TAG
#define CORPUS_TAG "basic"
#endif
const char corpus_tag[] = CORPUS_TAG;

CORPUS_COLD64(basic)

__attribute__((noinline)) unsigned long rare_tail(unsigned long x)
{
	return x ^ 0x5bd1e995ul;
}

__attribute__((noinline)) unsigned long leaf_mul(unsigned long x)
{
	for (int i = 0; i < 2000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	if (__builtin_expect(x == 42, 0))
		return rare_tail(x);            /* tail call to a cold function */
	return x;
}

__attribute__((noinline)) static unsigned long leaf_xorshift(unsigned long x)
{
	for (int i = 0; i < 1500; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	if (__builtin_expect(x == 7, 0))
		x = basic_cold_13(x) + 1;       /* call to a cold function */
	return x;
}

__attribute__((noinline)) unsigned long mid(unsigned long x, int which)
{
	if (which)
		x = leaf_mul(x);
	else
		x = leaf_xorshift(x);
	return x + 1;
}

/* mode 0: leaf_xorshift only, 1: leaf_mul only, 2: both */
__attribute__((noinline)) unsigned long driver(int mode)
{
	unsigned long x = 1;
	int i = 0;

	while (!corpus_stop) {
		x = mid(x, mode == 2 ? i & 1 : mode);
		i++;
	}
	return x;
}

int main(int argc, char **argv)
{
	unsigned long x;
	int mode = 2;

	if (argc > 2)
		mode = argv[2][0] == 'm' ? 1 : argv[2][0] == 'x' ? 0 : 2;
	corpus_arm(argc > 1 ? argv[1] : NULL);
	x = driver(mode);
	if (argc > 99)
		x += basic_cold_01(x) + basic_cold_77(x) + (unsigned long)corpus_tag[0];
	return x == 0xdeadbeefUL;
}
