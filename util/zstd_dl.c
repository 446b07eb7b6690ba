/* SPDX-License-Identifier: MIT */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include "util/zstd_dl.h"

static struct zstd_dl z;
static int ok;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	void *h = dlopen("libzstd.so.1", RTLD_LAZY | RTLD_LOCAL);

	if (!h)
		return;
	*(void **)&z.createDStream = dlsym(h, "ZSTD_createDStream");
	*(void **)&z.initDStream = dlsym(h, "ZSTD_initDStream");
	*(void **)&z.decompressStream = dlsym(h, "ZSTD_decompressStream");
	*(void **)&z.freeDStream = dlsym(h, "ZSTD_freeDStream");
	*(void **)&z.isError = dlsym(h, "ZSTD_isError");
	*(void **)&z.getErrorName = dlsym(h, "ZSTD_getErrorName");
	ok = z.createDStream && z.initDStream && z.decompressStream && z.freeDStream && z.isError &&
	     z.getErrorName;
}

const struct zstd_dl *zstd_dl_load(void)
{
	pthread_once(&once, load);
	return ok ? &z : NULL;
}

int zstd_dl_dstream(const struct zstd_dl **zsp, ZSTD_DStream **dsp)
{
	const struct zstd_dl *zs = zstd_dl_load();
	ZSTD_DStream *ds;

	if (!zs)
		return -ENOSYS;
	if (!(ds = zs->createDStream()))
		return -ENOMEM;
	if (zs->isError(zs->initDStream(ds))) {
		zs->freeDStream(ds);
		return -ENOMEM;
	}
	*zsp = zs;
	*dsp = ds;
	return 0;
}
