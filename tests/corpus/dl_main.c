/* dl_main.c - dlopen()s libcorpus_dl.so from its own directory, runs dl_run.
 * Usage: dl_main [seconds [reload]]
 * reload: run half the time, dlclose the library, dlopen a filler library
 * (libcorpus_shlib.so) so the freed range is taken, dlopen libcorpus_dl.so
 * again (now at another address in the same process) and run the rest. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[4096];

static void *load(const char *name)
{
	char path[4200];
	void *h;

	snprintf(path, sizeof(path), "%s%s", dir, name);
	h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dl_main: %s\n", dlerror());
		exit(2);
	}
	return h;
}

static unsigned long run(void *h, const char *secs)
{
	unsigned long (*fn)(const char *) = (unsigned long (*)(const char *))dlsym(h, "dl_run");

	if (!fn)
		exit(2);
	return fn(secs);
}

int main(int argc, char **argv)
{
	const char *slash = strrchr(argv[0], '/');
	const char *secs = argc > 1 ? argv[1] : "0.3";
	unsigned long x;
	void *h, *filler;
	char half[32];

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - argv[0] + 1) : 0, argv[0]);
	if (argc > 2 && !strcmp(argv[2], "reload")) {
		snprintf(half, sizeof(half), "%g", atof(secs) / 2);
		h = load("libcorpus_dl.so");
		x = run(h, half);
		dlclose(h);
		filler = load("libcorpus_shlib.so");
		h = load("libcorpus_dl.so");
		x += run(h, half);
		dlclose(h);
		dlclose(filler);
	} else {
		x = run(load("libcorpus_dl.so"), secs);
	}
	return x == 0;
}
