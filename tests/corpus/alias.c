/* alias.c - several symbols at one address: global, local, weak aliases of
 * one hot function, a weak hot definition with a strong alias, built with
 * -rdynamic so the globals are in .dynsym too (perf scans both tables and
 * keeps one symbol per address: symbols__fixup_duplicate / choose_best_symbol). */
#include "corpus.h"

CORPUS_COLD64(alw)

__attribute__((noinline)) unsigned long aw_impl(unsigned long x)
{
	for (int i = 0; i < 1500; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}
unsigned long aw_alias(unsigned long) __attribute__((alias("aw_impl")));
unsigned long aw_weak_alias(unsigned long) __attribute__((weak, alias("aw_impl")));
static unsigned long aw_local_alias(unsigned long) __attribute__((alias("aw_impl"), used));
unsigned long __aw_underscored(unsigned long) __attribute__((alias("aw_impl")));

__attribute__((weak, noinline)) unsigned long aw_weak_hot(unsigned long x)
{
	for (int i = 0; i < 1500; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}
unsigned long aw_strong_of_weak(unsigned long) __attribute__((alias("aw_weak_hot")));

/* a hot static function with a hidden global alias */
__attribute__((noinline)) static unsigned long aw_static_hot(unsigned long x)
{
	for (int i = 0; i < 1000; i++)
		x = (x >> 5) ^ (x * 0x9e3779b97f4a7c15ul);
	return x;
}
extern unsigned long aw_hidden_alias(unsigned long) __attribute__((alias("aw_static_hot"), visibility("hidden")));

__attribute__((noinline)) unsigned long aw_driver(void)
{
	unsigned long x = 1;

	while (!corpus_stop) {
		x = aw_alias(x);
		x = aw_weak_hot(x);
		x = aw_static_hot(x);
	}
	return x;
}

int main(int argc, char **argv)
{
	unsigned long x;

	corpus_arm(argc > 1 ? argv[1] : NULL);
	x = aw_driver();
	if (argc > 99)
		x += aw_local_alias(x) + aw_weak_alias(x) + __aw_underscored(x) + aw_strong_of_weak(x) +
		     aw_hidden_alias(x) + alw_cold_01(x);
	return x == 0xdeadbeefUL;
}
