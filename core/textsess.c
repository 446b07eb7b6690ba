/* SPDX-License-Identifier: MIT */
/*
 * textsess.c - the session's text symbol sources (session.h
 * sl_session_text_kind / sl_session_text_open; the filters: textsrc.h).
 * One entry per path, filtered at its first open and kept for the process.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/session.h"
#include "textsrc/kallsyms.h"
#include "textsrc/textsrc.h"
#include "util/util.h"

struct sl_text_src {
	struct sl_text_src *next;
	char path[PATH_MAX];
	int kind;
	int hidden;                  /* SYMLAZY_HIDE_ALL: an empty perf map */
	struct sl_text t;
	struct text_stats *st;
};

int sl_session_text_kind(const struct sl_session *s, const char *path)
{
	int k;

	if (!s->text_lazy && !s->cfg.hide_all)
		return SL_TEXT_NONE;
	k = sl_text_classify(path, s->kallsyms_arg[0] ? s->kallsyms_arg : NULL);
	if (k == SL_TEXT_KALLSYMS && !(s->text_lazy & 1))
		return SL_TEXT_NONE;     /* HIDE_ALL hides user (JIT) symbols only */
	if (k == SL_TEXT_PERFMAP && !(s->text_lazy & 2) && !s->cfg.hide_all)
		return SL_TEXT_NONE;     /* DWARF unwinding: JIT lookups unknown */
	return k;
}

static void warn_once(const struct sl_text_src *src)
{
	char why[SL_WHY_DETAIL + 128];

	/* only where stock perf's own output hints at the cause */
	if (src->t.why.code != SL_R_KS_ZERO && src->t.why.code != SL_R_KS_LONG_NAME)
		return;
	sl_why_format(&src->t.why, why, sizeof(why));
	sl_warnx("symlazy: %s: %s; loading all of it", src->path, why);
}

static void build(struct sl_session *s, struct sl_text_src *src)
{
	const char *buf = NULL;
	size_t len = 0, maplen = 0;
	struct stat st0, st1;
	int fd, rc, kcore = 0;

	if (src->hidden) {
		src->t.filtered = 1;
		return;
	}
	if (src->kind == SL_TEXT_KALLSYMS && s->kernel_why.code != SL_R_NONE) {
		src->t.why = s->kernel_why;      /* perf diff inputs differ (core/inputs.c) */
		return;
	}
	fd = open(src->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		sl_why_set(&src->t.why, SL_R_TEXT_UNREADABLE, "%s (%s)", src->path, strerror(errno));
		return;
	}
	if (fstat(fd, &st0) < 0 || (rc = sl_text_load(fd, &buf, &len, &maplen)) < 0) {
		sl_why_set(&src->t.why, SL_R_TEXT_UNREADABLE, "%s", src->path);
		close(fd);
		return;
	}
	if (src->kind == SL_TEXT_KALLSYMS)
		kcore = sl_text_kcore(src->path);
	rc = sl_text_filter(&s->addrs, (enum sl_text_kind)src->kind, src->path, buf, len, kcore,
			   s->model && (s->model->kallsyms_rules & SL_KS_DROP_LOCAL_LABELS) ?
			   KS_RULE_DROP_LOCAL_LABELS : 0, &src->t);
	if (rc < 0)
		sl_why_set(&src->t.why, SL_R_NOMEM, NULL);
	/* a perf map still being written: perf reads what is there when it
	 * reads; if it changed while we read, leave it to perf */
	if (src->t.filtered && S_ISREG(st0.st_mode) &&
	    (fstat(fd, &st1) < 0 || st1.st_size != st0.st_size ||
	     st1.st_mtim.tv_sec != st0.st_mtim.tv_sec || st1.st_mtim.tv_nsec != st0.st_mtim.tv_nsec)) {
		sl_text_free(&src->t);
		src->t.filtered = 0;
		sl_why_set(&src->t.why, SL_R_PM_GROWING, NULL);
	}
	if (src->st)
		src->st->bytes = len;
	sl_text_unload(buf, maplen);
	close(fd);
}

int sl_session_text_open(struct sl_session *s, const char *path, int kind, int cloexec)
{
	struct sl_text_src *src;
	int fd = -1, saved = errno;

	if (kind == SL_TEXT_NONE || strlen(path) >= PATH_MAX)
		return -1;
	pthread_mutex_lock(&s->text_lock);
	for (src = s->texts; src; src = src->next)
		if (!strcmp(src->path, path))
			break;
	if (!src && (src = calloc(1, sizeof(*src))) != NULL) {
		strcpy(src->path, path);
		src->kind = kind;
		src->hidden = s->cfg.hide_all && kind == SL_TEXT_PERFMAP;
		src->st = calloc(1, sizeof(*src->st));
		build(s, src);
		if (src->st) {
			struct text_stats *st = src->st;

			snprintf(st->path, sizeof(st->path), "%s", path);
			st->kind = kind == SL_TEXT_KALLSYMS ? "kallsyms" : "perfmap";
			st->mode = src->hidden ? "hidden" : src->t.filtered ? "lazy" : "whole";
			st->scanned = src->t.records;
			st->symbols = src->t.symbols;
			st->kept = src->t.filtered ? src->t.kept : src->t.records;
			st->kept_bytes = src->t.filtered ? src->t.len : st->bytes;
			sl_why_format(&src->t.why, st->reason, sizeof(st->reason));
			st->reason_code = src->t.why.code ? sl_reason_name(src->t.why.code) : NULL;
			*s->text_stats_tail = st;
			s->text_stats_tail = &st->next;
		}
		if (!src->t.filtered)
			warn_once(src);
		src->next = s->texts;
		s->texts = src;
	}
	if (src && src->t.filtered) {
		fd = sl_text_memfd(src->t.text ? src->t.text : "", src->t.len, cloexec);
		if (fd < 0)
			fd = -1;
		else if (src->st)
			src->st->opens++;
	}
	pthread_mutex_unlock(&s->text_lock);
	errno = saved;
	return fd;
}
