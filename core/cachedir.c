/* SPDX-License-Identifier: MIT */
/*
 * cachedir.c - the session's index cache directory (SYMLAZY_CACHE_DIR,
 * policy in index/cache.c): opened once, at set-up when lazy mode turns on
 * or on first use, in the mount namespace the process started in (perf's
 * version check may open it earlier, quietly); why it cannot be used is
 * said on stderr at most once, by a run that uses it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "index/cache.h"
#include "core/session.h"
#include "util/util.h"

/* Open the cache dir (once: callers set cache_tried). Its one-line
 * complaint, if any, waits in s->cache_msg until sl_session_cache_fd()
 * says it: perf's version check opens the dir before lazy mode is known
 * to be on, and only a run that uses the cache says why it cannot. */
static void open_cache_dir(struct sl_session *s)
{
	struct sl_why why;
	char now[64];
	ssize_t n;
	int fd;

	if (!s->cfg.cache_dir[0])
		return;
	n = readlink("/proc/self/ns/mnt", now, sizeof(now) - 1);
	now[n > 0 ? n : 0] = '\0';
	if (strcmp(now, s->start_mntns)) {
		if (s->cfg.verbose)
			snprintf(s->cache_msg, sizeof(s->cache_msg),
				 "symlazy: started in another mount namespace; keeping the index in memory");
		return;
	}
	fd = sl_cache_dir_open(s->cfg.cache_dir, &why);
	if (fd >= 0) {
		s->cache_dirfd = fd;
		return;
	}
	if (why.code == SL_R_CACHE_NOT_PRIVATE)
		snprintf(s->cache_msg, sizeof(s->cache_msg),
			 "symlazy: cache dir %s is not private to this user; keeping the index in memory",
			 s->cfg.cache_dir);
	else if (s->cfg.verbose)
		snprintf(s->cache_msg, sizeof(s->cache_msg),
			 "symlazy: cache dir %s unusable (%s); keeping the index in memory",
			 s->cfg.cache_dir, strerror(-fd));
}

int sl_session_cache_quiet(struct sl_session *s)
{
	if (!s->cache_tried) {
		open_cache_dir(s);
		s->cache_tried = 1;
	}
	return s->cache_dirfd;
}

int sl_session_cache_fd(struct sl_session *s)
{
	int fd;

	if (!__atomic_load_n(&s->cache_said, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&s->cache_lock);
		if (!s->cache_tried)
			open_cache_dir(s);
		s->cache_tried = 1;
		if (s->cache_msg[0])
			sl_warnx("%s", s->cache_msg);
		s->cache_msg[0] = '\0';
		__atomic_store_n(&s->cache_said, 1, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&s->cache_lock);
	}
	fd = s->cache_dirfd;
	return fd;
}
