/* libcdbg.c - samples inside libc: qsort (libc's merge sort, the local
 * msort_with_tmp.part.0), memcpy/memset (the ifunc-selected local
 * __memmove_*_unaligned_erms / __memset_*), strlen. Those local names are
 * only in libc's .symtab, which Debian ships in libc6-dbg
 * (/usr/lib/debug/.build-id/xx/rest.debug); without it perf names them from
 * .dynsym or prints [unknown]. Used by corpus.sh's libc-debug cases.
 * Usage: libcdbg [seconds] */
#include <stdio.h>
#include <string.h>
#include "corpus.h"

CORPUS_COLD64(libcdbg)

static char src[1 << 16], dst[1 << 16];

__attribute__((noinline)) static int ld_cmp(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return (x > y) - (x < y);
}

__attribute__((noinline)) unsigned long ld_sort(unsigned *v, size_t n, unsigned long seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ul + 1442695040888963407ul;
		v[i] = (unsigned)(seed >> 33);
	}
	qsort(v, n, sizeof(*v), ld_cmp);
	return seed ^ v[n / 2];
}

__attribute__((noinline)) unsigned long ld_copy(unsigned long x)
{
	memset(src, (int)(x & 0x7f) | 1, sizeof(src) - 1);
	memcpy(dst, src, sizeof(src));
	return x + strlen(dst);
}

int main(int argc, char **argv)
{
	static unsigned v[512];
	unsigned long x = 1;

	corpus_arm(argc > 1 ? argv[1] : NULL);
	while (!corpus_stop) {
		x = ld_sort(v, sizeof(v) / sizeof(v[0]), x);
		x = ld_copy(x);
	}
	if (argc > 99)
		x += libcdbg_cold_01(x) + libcdbg_cold_77(x);
	printf("%lu\n", x & 1);
	return 0;
}
