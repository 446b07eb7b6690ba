/* dwsig.c - samples inside a signal handler (DWARF unwinding must cross the
 * kernel's signal frame: libc's __restore_rt, whose CFI reads the
 * interrupted registers out of the ucontext on the stack) and in the code
 * it interrupted. main spins and raises SIGUSR1 every few rounds; the
 * handler does as much work as the spinning. */
#include <signal.h>
#include <string.h>
#include "corpus.h"

CORPUS_COLD64(sig)

static volatile unsigned long sig_sink;

__attribute__((noinline)) unsigned long sig_handler_work(unsigned long x)
{
	for (int i = 0; i < 20000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

static void on_usr1(int sig)
{
	(void)sig;
	sig_sink += sig_handler_work(sig_sink);
}

__attribute__((noinline)) unsigned long sig_main_spin(unsigned long x)
{
	for (int i = 0; i < 3000; i++)
		x ^= (x << 7) ^ (x >> 9);
	return x;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	unsigned long x = 1, n = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	corpus_arm(argc > 1 ? argv[1] : NULL);
	while (!corpus_stop) {
		x = sig_main_spin(x);
		if (++n % 8 == 0)
			raise(SIGUSR1);
	}
	sig_sink += x;
	return 0;
}
