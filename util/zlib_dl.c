/* SPDX-License-Identifier: MIT */
#include <dlfcn.h>
#include <pthread.h>
#include "util/zlib_dl.h"

static struct zlib_dl z;
static int ok;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	void *h = dlopen("libz.so.1", RTLD_LAZY | RTLD_LOCAL);

	if (!h)
		return;
	*(void **)&z.inflateInit_ = dlsym(h, "inflateInit_");
	*(void **)&z.inflate = dlsym(h, "inflate");
	*(void **)&z.inflateEnd = dlsym(h, "inflateEnd");
	ok = z.inflateInit_ && z.inflate && z.inflateEnd;
}

const struct zlib_dl *zlib_dl_load(void)
{
	pthread_once(&once, load);
	return ok ? &z : NULL;
}
