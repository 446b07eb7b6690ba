/* dl.c - libcorpus_dl.so, loaded with dlopen() by dl_main. */
#include "corpus.h"

CORPUS_COLD64(dlx)

__attribute__((noinline)) unsigned long dl_hot_a(unsigned long x)
{
	for (int i = 0; i < 1800; i++)
		x = x * 0x5851f42d4c957f2dul + 0x14057b7ef767814ful;
	return x;
}

__attribute__((noinline)) static unsigned long dl_hot_b(unsigned long x)
{
	for (int i = 0; i < 900; i++)
		x = (x >> 3) ^ (x * 0xff51afd7ed558ccdul);
	return x;
}

__attribute__((noinline)) unsigned long dl_mid(unsigned long x)
{
	return dl_hot_b(dl_hot_a(x)) + 1;
}

unsigned long dl_run(const char *secs)
{
	unsigned long x = 5;

	corpus_arm(secs);
	while (!corpus_stop)
		x = dl_mid(x);
	return x;
}
