/* overlap_main.c - drives ov_outer (overlap.s). */
#include "corpus.h"

CORPUS_COLD64(ovm)

unsigned long ov_outer(unsigned long);

int main(int argc, char **argv)
{
	unsigned long x = 1;

	corpus_arm(argc > 1 ? argv[1] : NULL);
	while (!corpus_stop)
		x = ov_outer(x);
	return x == 0xdeadbeefUL;
}
