/* zerosize_main.c - drives the asm functions of zerosize.s. */
#include <stdlib.h>
#include "corpus.h"

CORPUS_COLD64(zsm)

unsigned long zs_typed_hot(unsigned long);
unsigned long zs_untyped_hot(unsigned long);
unsigned long zs_call_local_hot(unsigned long);
unsigned long zs_cold_typed(unsigned long);
unsigned long zs_hidden_hot(unsigned long);
unsigned long zs_object_hot(unsigned long);
unsigned long zs_badsec_func(unsigned long);

__attribute__((noinline)) unsigned long zs_driver(void)
{
	unsigned long x = 1;

	while (!corpus_stop) {
		x = zs_typed_hot(x);
		x = zs_untyped_hot(x);
		x = zs_call_local_hot(x);
		x = zs_hidden_hot(x);
		x = zs_object_hot(x);
		x = zs_badsec_func(x);
	}
	return x;
}

/* called by zs_call_at_end (zerosize.s) as its last instruction */
__attribute__((noreturn, noinline)) void zs_final_spin(void)
{
	exit(zs_driver() == 0xdeadbeefUL);
}

__attribute__((noreturn)) void zs_call_at_end(void);
unsigned long zs_next_cold(unsigned long);

int main(int argc, char **argv)
{
	corpus_arm(argc > 1 ? argv[1] : NULL);
	if (argc > 99)
		return (int)(zs_cold_typed(1) + zsm_cold_01(2) + zs_next_cold(3));
	zs_call_at_end();
}
