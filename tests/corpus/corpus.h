/* corpus.h - shared helpers for the exactness corpus (tests/integration/corpus.sh).
 *
 * Every program runs its hot loops until a SIGALRM timer set from argv[1]
 * (seconds, default 0.3) fires, so recordings are short and samples land in
 * known functions. The hot loops call nothing through the PLT unless a case
 * wants PLT samples. CORPUS_COLD64(p) defines 64 never-called functions
 * p_cold_00..p_cold_77 so a DSO's symbol table is much larger than the set of
 * symbols its samples need.
 */
#ifndef CORPUS_H
#define CORPUS_H
#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>

static volatile sig_atomic_t corpus_stop;

static void corpus_alarm(int sig)
{
	(void)sig;
	corpus_stop = 1;
}

static inline void corpus_arm(const char *arg)
{
	double s = arg ? atof(arg) : 0.3;
	struct itimerval t;

	if (s <= 0)
		s = 0.3;
	t.it_interval.tv_sec = 0;
	t.it_interval.tv_usec = 0;
	t.it_value.tv_sec = (long)s;
	t.it_value.tv_usec = (long)((s - (double)(long)s) * 1e6);
	signal(SIGALRM, corpus_alarm);
	setitimer(ITIMER_REAL, &t, NULL);
}

#define CORPUS_COLD1(p, n) \
	__attribute__((noinline, used)) unsigned long p##_cold_##n(unsigned long x) \
	{ return (x * (0x##n + 3ul)) ^ (x >> (0x##n % 7)); }
#define CORPUS_COLD8(p, a) \
	CORPUS_COLD1(p, a##0) CORPUS_COLD1(p, a##1) CORPUS_COLD1(p, a##2) CORPUS_COLD1(p, a##3) \
	CORPUS_COLD1(p, a##4) CORPUS_COLD1(p, a##5) CORPUS_COLD1(p, a##6) CORPUS_COLD1(p, a##7)
#define CORPUS_COLD64(p) \
	CORPUS_COLD8(p, 0) CORPUS_COLD8(p, 1) CORPUS_COLD8(p, 2) CORPUS_COLD8(p, 3) \
	CORPUS_COLD8(p, 4) CORPUS_COLD8(p, 5) CORPUS_COLD8(p, 6) CORPUS_COLD8(p, 7)

#endif
