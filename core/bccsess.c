/* SPDX-License-Identifier: MIT */
/*
 * core/bccsess.c - the session's libbcc plans (session.h sl_session_bcc_plan,
 * sl_session_bcc_answers): what libbcc's own scans of a file may see under a
 * budget or SYMLAZY_ADDRS (core/bccplan.c), each file charged once per
 * process whatever the number of caches (PIDs) that load it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "index/cache.h"
#include "core/models.h"
#include "core/session.h"
#include "core/tool.h"
#include "perfdata/unwind.h"
#include "util/util.h"

struct sl_bcc_charged {
	struct sl_bcc_charged *next;
	const struct sl_bcc_index *idx;
	const struct sl_tool_model *m;
	struct sl_bcc_plan plan;
};

static int bcc_plan_copy(struct sl_bcc_plan *dst, const struct sl_bcc_plan *src)
{
	*dst = *src;
	for (unsigned i = 0; i < src->nt; i++) {
		size_t n = (size_t)src->t[i].nsyms / 8 + 1;

		dst->t[i].keep = malloc(n);
		if (!dst->t[i].keep) {
			dst->nt = i;
			sl_bcc_plan_free(dst);
			return -ENOMEM;
		}
		memcpy(dst->t[i].keep, src->t[i].keep, n);
	}
	return 0;
}

int sl_session_bcc_plan(struct sl_session *s, const char *path, const struct sl_bcc_option *opt,
			const struct sl_tool_model *m, struct sl_bcc_plan *out)
{
	const struct sl_bcc_index *idx = NULL;
	struct sl_bcc_charged *ch;
	int r;

	memset(out, 0, sizeof(*out));
	if (s->cfg.hide_all || (!s->lazy_on && !s->cfg.max_bytes))
		return 0;
	if (s->lazy_on) {
		unsigned char bid[20];
		struct symidx_layout lay;
		const struct pd_dso *dso = NULL;
		uint64_t *va = NULL;
		size_t nva = 0;
		int fd = open(path, O_RDONLY | O_CLOEXEC), bl = -1;
		Elf *e = fd >= 0 ? s->ops->elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
		struct stat st;

		if (e) {
			bl = elf_read_build_id(s->ops, e, bid, sizeof(bid));
			dso = bl > 0 ? perfdata_find_build_id(&s->addrs, bid, (size_t)bl) : NULL;
			if (dso && sl_elf_runtime_layout(s->ops, e, fstat(fd, &st) == 0 ? (uint64_t)st.st_size : 0,
							 &lay) && sl_session_addrs_inside(s, dso, &lay, path)) {
				va = malloc(dso->nr_addrs * sizeof(*va) + 1);
				for (size_t i = 0; va && i < dso->nr_addrs; i++)
					for (unsigned l = 0; l < lay.nloads; l++)
						if (dso->addrs[i] >= lay.loads[l].offset &&
						    dso->addrs[i] < lay.loads[l].offset + lay.loads[l].size) {
							/* bcc's offsets are st_value space */
							va[nva++] = dso->addrs[i] - lay.loads[l].offset + lay.loads[l].vaddr;
							break;
						}
			}
			s->ops->elf_end(e);
		}
		if (fd >= 0)
			close(fd);
		if (va) {
			struct sl_why why;
			char text[SL_WHY_DETAIL + 128];

			idx = sl_bcc_index_get(&s->bcc, path, opt);
			r = idx ? sl_bcc_plan_addrs(idx, va, nva, out, &why) : -1;
			free(va);
			if (r == 0)
				return 1;
			if (r > 0 && s->cfg.verbose) {
				sl_why_format(&why, text, sizeof(text));
				sl_warnx("symlazy: %s: %s; loading all its symbols", path, text);
			}
		}
	}
	if (!s->cfg.max_bytes)
		return 0;
	if (!idx)
		idx = sl_bcc_index_get(&s->bcc, path, opt);
	if (!idx)
		return 0;               /* the libelf-level budget plan applies */
	pthread_mutex_lock(&s->bcc.lock);
	for (ch = s->bcc.charged; ch; ch = ch->next)
		if (ch->idx == idx && ch->m == m)
			break;
	r = ch ? bcc_plan_copy(out, &ch->plan) : -1;
	pthread_mutex_unlock(&s->bcc.lock);
	if (ch && r == 0) {
		out->charged = 0;
		out->reused = 1;
		return 1;
	}
	r = sl_bcc_plan_budget(idx, &s->budget, &m->sym, out);
	if (r < 0) {
		sl_bcc_plan_free(out);
		return 0;
	}
	if (out->dropped && !atomic_exchange(&s->budget_warned, 1))
		sl_warnx("symlazy: symbol budget of %llu bytes (SYMLAZY_MAX_BYTES) exhausted while loading %s; "
			 "symbols it could not keep (%s's cost: %s) %s; raise SYMLAZY_MAX_BYTES to keep more",
			 (unsigned long long)s->cfg.max_bytes, path, m->tool, m->sym.name,
			 m->unknown_shows ? m->unknown_shows : "show as [unknown]");
	ch = calloc(1, sizeof(*ch));
	if (ch && bcc_plan_copy(&ch->plan, out) == 0) {
		ch->idx = idx;
		ch->m = m;
		pthread_mutex_lock(&s->bcc.lock);
		ch->next = s->bcc.charged;
		s->bcc.charged = ch;
		pthread_mutex_unlock(&s->bcc.lock);
	} else {
		free(ch);
	}
	return 1;
}

int sl_session_bcc_answers(const struct sl_session *s)
{
	return s->cfg.bcc_index && !s->cfg.hide_all;
}
