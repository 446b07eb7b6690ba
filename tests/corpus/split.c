/* split.c - mprotect() of the page holding sp_hot_a to RWX after a few ms
 * splits the text mapping: the kernel reports a new MMAP2 (other prot, pgoff)
 * over part of the old one, and perf splits its map (maps__fixup_overlappings).
 * Samples before and after the split must resolve identically. */
#include <stdint.h>
#include <sys/mman.h>
#include "corpus.h"
CORPUS_COLD64(spl)
__attribute__((noinline, aligned(4096))) unsigned long sp_hot_a(unsigned long x)
{
	for (int i = 0; i < 2000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}
CORPUS_COLD8(splb, 9) /* filler between the two page-aligned functions */
__attribute__((noinline, aligned(4096))) unsigned long sp_hot_b(unsigned long x)
{
	for (int i = 0; i < 2000; i++)
		x ^= (x << 7) ^ (x >> 9);
	return x;
}
int main(int argc, char **argv)
{
	unsigned long x = 1;
	corpus_arm(argc > 1 ? argv[1] : NULL);
	for (long n = 0; n < 3000 && !corpus_stop; n++) {
		x = sp_hot_a(x);
		x = sp_hot_b(x);
	}
	mprotect((void *)((uintptr_t)sp_hot_a & ~4095ul), 4096, PROT_READ | PROT_WRITE | PROT_EXEC);
	while (!corpus_stop) {
		x = sp_hot_a(x);
		x = sp_hot_b(x);
	}
	return x == 0xdeadbeefUL;
}
