/* deep.c - a deep recursion whose stack is far larger than perf's user stack
 * dump (--call-graph dwarf,SIZE): unwinding stops where the copied stack
 * ends, perf 6.1 prints the frames it reached. Two recursions, one with a
 * large frame (few frames fit in the dump), one with a small frame (deeper
 * than perf's max stack of 127 entries fits, so max_stack cuts too). */
#include <stdlib.h>
#include "corpus.h"

CORPUS_COLD64(deep)

__attribute__((noinline)) unsigned long deep_leaf(unsigned long x)
{
	for (int i = 0; i < 3000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

__attribute__((noinline)) unsigned long deep_big(int n, unsigned long x)
{
	volatile unsigned char pad[512];

	pad[n & 511] = (unsigned char)x;
	if (n <= 0)
		return deep_leaf(x);
	return deep_big(n - 1, x + pad[(n * 7) & 511]) + 1;
}

__attribute__((noinline)) unsigned long deep_small(int n, unsigned long x)
{
	if (n <= 0)
		return deep_leaf(x);
	return deep_small(n - 1, x * 3 + 1) ^ (unsigned long)n;
}

static volatile unsigned long deep_sink;

int main(int argc, char **argv)
{
	unsigned long x = 1;

	corpus_arm(argc > 1 ? argv[1] : NULL);
	while (!corpus_stop) {
		x = deep_big(200, x);
		x = deep_small(400, x);
	}
	deep_sink = x;	/* (exit 0: perf record passes the workload's status on) */
	return 0;
}
