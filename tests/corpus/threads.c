/* threads.c - three pthreads with different hot functions; one of them calls
 * clock_gettime through a function pointer (no PLT stub in this binary), so
 * samples land in libc and the [vdso] as well. */
#include <pthread.h>
#include <time.h>
#include "corpus.h"

CORPUS_COLD64(thr)

__attribute__((noinline)) unsigned long th_mul(unsigned long x)
{
	for (int i = 0; i < 2000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

__attribute__((noinline)) unsigned long th_shift(unsigned long x)
{
	for (int i = 0; i < 2000; i++)
		x ^= (x << 7) ^ (x >> 9);
	return x;
}

static int (*volatile th_clock)(clockid_t, struct timespec *) = clock_gettime;

__attribute__((noinline)) unsigned long th_clock_loop(unsigned long x)
{
	struct timespec ts;

	for (int i = 0; i < 50; i++) {
		th_clock(CLOCK_MONOTONIC, &ts);
		x += (unsigned long)ts.tv_nsec;
	}
	return x;
}

static void *worker(void *arg)
{
	unsigned long x = (unsigned long)arg, which = x % 3;

	while (!corpus_stop) {
		if (which == 0)
			x = th_mul(x);
		else if (which == 1)
			x = th_shift(x);
		else
			x = th_clock_loop(x);
	}
	return (void *)x;
}

int main(int argc, char **argv)
{
	pthread_t t[3];
	unsigned long sum = 0;
	void *r;

	corpus_arm(argc > 1 ? argv[1] : NULL);
	for (unsigned long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 3));
	for (int i = 0; i < 3; i++) {
		pthread_join(t[i], &r);
		sum += (unsigned long)r;
	}
	if (argc > 99)
		sum += thr_cold_01(sum);
	return sum == 0xdeadbeefUL;
}
