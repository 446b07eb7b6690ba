/* forkexec.c - a parent that forks: one child runs hot code without exec
 * (it inherits the parent's maps), two children exec other corpus binaries
 * (basic and cxx from this program's directory); the parent spins too. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "corpus.h"

CORPUS_COLD64(fex)

__attribute__((noinline)) unsigned long fe_parent_spin(unsigned long x)
{
	for (int i = 0; i < 1500; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

__attribute__((noinline)) unsigned long fe_child_spin(unsigned long x)
{
	for (int i = 0; i < 1500; i++)
		x ^= (x << 5) ^ (x >> 3);
	return x;
}

static pid_t spawn(const char *dir, const char *prog, const char *secs)
{
	char path[4096];
	pid_t p = fork();

	if (p == 0) {
		snprintf(path, sizeof(path), "%s%s", dir, prog);
		execl(path, prog, secs, (char *)NULL);
		_exit(127);
	}
	return p;
}

int main(int argc, char **argv)
{
	const char *secs = argc > 1 ? argv[1] : "0.3";
	char dir[4096];
	const char *slash = strrchr(argv[0], '/');
	unsigned long x = 1;
	pid_t kids[3];
	int st, bad = 0;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - argv[0] + 1) : 0, argv[0]);
	corpus_arm(secs);   /* the timer is not inherited by fork */
	kids[0] = fork();
	if (kids[0] == 0) {
		corpus_arm(secs);
		while (!corpus_stop)
			x = fe_child_spin(x);
		_exit(x == 0xdeadbeefUL);
	}
	kids[1] = spawn(dir, "basic", secs);
	kids[2] = spawn(dir, "cxx", secs);
	while (!corpus_stop)
		x = fe_parent_spin(x);
	for (int i = 0; i < 3; i++)
		if (waitpid(kids[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	if (argc > 99)
		x += fex_cold_01(x);
	return bad || x == 0xdeadbeefUL;
}
