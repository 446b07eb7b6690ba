/* SPDX-License-Identifier: MIT */
/*
 * perfdata/machine.c - threads, maps and DSOs of a perf.data (see perfdata/machine.h;
 * facts from perf 6.1 util/machine.c, util/thread.c, util/map.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata/machine.h"
#include "util/util.h"

int pd_machine_init(struct pd_machine *m)
{
	memset(m, 0, sizeof(*m));
	m->last_thread = UINT32_MAX;
	m->last_tid = -1;
	m->last_tid_pid = -1;	/* (pid -1 never reaches the pair cache) */
	if (pd_htab_init(&m->thread_tab, 256) < 0 || pd_htab_init(&m->dso_tab, 256) < 0)
		return -ENOMEM;
	return 0;
}

void pd_machine_free(struct pd_machine *m)
{
	size_t i;

	for (i = 0; i < m->nr_threads; i++) {
		free(m->threads[i].maps);
		free(m->threads[i].maxend);
		free(m->threads[i].parents);
	}
	free(m->threads);
	pd_htab_free(&m->thread_tab);
	for (i = 0; i < m->nr_dsos; i++)
		free(m->dsos[i].path);
	free(m->dsos);
	pd_htab_free(&m->dso_tab);
	free(m->list);
	memset(m, 0, sizeof(*m));
}

/* --------------------------------------------------------------- threads */

static uint64_t tid_hash(int32_t tid)
{
	return sl_mix64((uint32_t)tid);
}

static uint64_t thread_hash(const void *ctx, uint32_t idx)
{
	return tid_hash(((const struct pd_machine *)ctx)->threads[idx].tid);
}

static int thread_eq(const void *ctx, uint32_t idx, const void *key)
{
	return ((const struct pd_machine *)ctx)->threads[idx].tid == *(const int32_t *)key;
}

struct pd_thread *pd_machine_find(struct pd_machine *m, int32_t tid)
{
	uint32_t i;

	if (m->last_thread != UINT32_MAX && m->last_key == tid)
		return &m->threads[m->last_thread];
	i = pd_htab_get(&m->thread_tab, tid_hash(tid), thread_eq, m, &tid);
	if (i == PD_HTAB_EMPTY)
		return NULL;
	m->last_key = tid;
	m->last_thread = i;
	return &m->threads[i];
}

static struct pd_thread *thread_get(struct pd_machine *m, int32_t tid)
{
	struct pd_thread *t = pd_machine_find(m, tid);
	uint32_t n = (uint32_t)m->nr_threads;

	if (t)
		return t;
	if (m->nr_threads >= UINT32_MAX - 1 ||
	    pd_grow((void **)&m->threads, &m->alloc_threads, m->nr_threads + 1, sizeof(*m->threads)) < 0)
		return NULL;
	t = &m->threads[n];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->uf = n;
	t->next_member = UINT32_MAX;
	if (pd_htab_add(&m->thread_tab, tid_hash(tid), n, thread_hash, m) < 0)
		return NULL;
	m->nr_threads++;
	m->last_key = tid;
	m->last_thread = n;
	return t;
}

static uint32_t uf_root(struct pd_machine *m, uint32_t i)
{
	while (m->threads[i].uf != i) {
		m->threads[i].uf = m->threads[m->threads[i].uf].uf;	/* path halving */
		i = m->threads[i].uf;
	}
	return i;
}

struct pd_thread *pd_machine_thread(struct pd_machine *m, int32_t pid, int32_t tid)
{
	struct pd_thread *t = thread_get(m, tid), *l;
	uint32_t ti, a, b;

	if (!t || pid == -1 || pid == tid || (tid == m->last_tid && pid == m->last_tid_pid))
		return t;
	ti = (uint32_t)(t - m->threads);
	if (!(l = thread_get(m, pid)))	/* may move m->threads */
		return NULL;
	if ((a = uf_root(m, ti)) != (b = uf_root(m, (uint32_t)(l - m->threads)))) {
		m->threads[a > b ? a : b].uf = a < b ? a : b;
		m->classes = 1;
	}
	m->last_tid = tid;
	m->last_tid_pid = pid;
	return &m->threads[ti];
}

/* ------------------------------------------------------------------ dsos */

struct dso_key {
	const char *path;
	const unsigned char *id;
	unsigned size;
	const struct pd_file_ino *ino;
};

static const struct pd_file_ino no_ino;

static uint64_t dso_key_hash(const char *path, const unsigned char *id, unsigned size,
			     const struct pd_file_ino *ino)
{
	uint64_t h = sl_fnv1a(SL_FNV_OFFSET, path, strlen(path) + 1);

	h = sl_fnv1a(h, id, size);
	if (ino && ino->valid)
		h = sl_fnv1a_u64(sl_fnv1a_u64(h, ino->ino), ((uint64_t)ino->maj << 32) | ino->min);
	return sl_mix64(h);
}

static int ino_eq(const struct pd_machine_dso *d, const struct pd_file_ino *k)
{
	if (!k)
		k = &no_ino;
	return d->ino.valid == k->valid &&
	       (!k->valid || (d->ino.ino == k->ino && d->ino.maj == k->maj && d->ino.min == k->min));
}

static uint64_t dso_hash(const void *ctx, uint32_t idx)
{
	const struct pd_machine_dso *d = &((const struct pd_machine *)ctx)->dsos[idx];

	return dso_key_hash(d->path, d->build_id, d->build_id_size, &d->ino);
}

static int dso_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct dso_key *k = key;
	const struct pd_machine_dso *d = &((const struct pd_machine *)ctx)->dsos[idx];

	return d->build_id_size == k->size && !memcmp(d->build_id, k->id, k->size) &&
	       ino_eq(d, k->ino) && !strcmp(d->path, k->path);
}

long pd_machine_dso(struct pd_machine *m, const char *path, const unsigned char *id,
		    unsigned size, const struct pd_file_ino *ino)
{
	struct dso_key k = { path, id, size, ino };
	uint64_t h = dso_key_hash(path, id, size, ino);
	struct pd_machine_dso *d;
	uint32_t i = pd_htab_get(&m->dso_tab, h, dso_eq, m, &k);

	if (i != PD_HTAB_EMPTY)
		return (long)i;
	if (size > PD_MACHINE_BUILD_ID_MAX || m->nr_dsos >= INT32_MAX ||
	    pd_grow((void **)&m->dsos, &m->alloc_dsos, m->nr_dsos + 1, sizeof(*m->dsos)) < 0)
		return -ENOMEM;
	d = &m->dsos[m->nr_dsos];
	memset(d, 0, sizeof(*d));
	if (!(d->path = strdup(path)))
		return -ENOMEM;
	memcpy(d->build_id, id, size);
	d->build_id_size = size;
	if (ino)
		d->ino = *ino;
	if (pd_htab_add(&m->dso_tab, h, (uint32_t)m->nr_dsos, dso_hash, m) < 0) {
		free(d->path);
		return -ENOMEM;
	}
	return (long)m->nr_dsos++;
}

/* ------------------------------------------------------------ maps, fork */

int pd_machine_mmap(struct pd_machine *m, int32_t pid, int32_t tid, uint64_t start,
		    uint64_t len, uint64_t pgoff, uint32_t dso, int data)
{
	struct pd_thread *t = pd_machine_thread(m, pid, tid);
	struct pd_map *mp;

	if (!t || pd_grow((void **)&t->maps, &t->alloc_maps, t->nr_maps + 1, sizeof(*t->maps)) < 0)
		return -ENOMEM;
	mp = &t->maps[t->nr_maps++];
	mp->start = start;
	mp->end = start + len < start ? UINT64_MAX : start + len;
	mp->pgoff = pgoff;
	mp->dso = dso;
	mp->data = data != 0;
	t->sorted = 0;
	return 0;
}

int pd_machine_fork(struct pd_machine *m, int32_t pid, int32_t ppid, int32_t tid,
		    int32_t ptid)
{
	struct pd_thread *t;
	size_t i;

	if (!pd_machine_thread(m, pid, tid) || !pd_machine_thread(m, ppid, ptid))
		return -ENOMEM;
	if (pid == ppid)	/* a new thread: shares its process's maps */
		return 0;
	if (!(t = thread_get(m, tid)))
		return -ENOMEM;
	for (i = 0; i < t->nr_parents; i++)
		if (t->parents[i] == ptid)
			return 0;
	if (pd_grow((void **)&t->parents, &t->alloc_parents, t->nr_parents + 1, sizeof(*t->parents)) < 0)
		return -ENOMEM;
	t->parents[t->nr_parents++] = ptid;
	return 0;
}

/* --------------------------------------------------------------- queries */

static int cmp_map(const void *a, const void *b)
{
	const struct pd_map *x = a, *y = b;
	int c;

	if ((c = SL_CMP(x->start, y->start)) || (c = SL_CMP(x->end, y->end)) ||
	    (c = SL_CMP(x->pgoff, y->pgoff)) || (c = SL_CMP(x->dso, y->dso)))
		return c;
	return SL_CMP(x->data, y->data);
}

static int thread_sort(struct pd_thread *t)
{
	size_t i, o = 0;

	if (t->sorted)
		return 0;
	if (t->nr_maps > 1)
		qsort(t->maps, t->nr_maps, sizeof(*t->maps), cmp_map);
	for (i = 0; i < t->nr_maps; i++)
		if (!o || cmp_map(&t->maps[o - 1], &t->maps[i]))
			t->maps[o++] = t->maps[i];
	t->nr_maps = o;
	free(t->maxend);
	t->maxend = malloc((o ? o : 1) * sizeof(*t->maxend));
	if (!t->maxend)
		return -ENOMEM;
	for (i = 0; i < o; i++)
		t->maxend[i] = i && t->maxend[i - 1] > t->maps[i].end ? t->maxend[i - 1] : t->maps[i].end;
	t->sorted = 1;
	return 0;
}

int pd_machine_prepare(struct pd_machine *m)
{
	size_t i;
	int rc;

	if (m->prepared)	/* the DWARF pass prepares before resolve_all */
		return 0;
	for (i = 0; i < m->nr_threads; i++)
		if ((rc = thread_sort(&m->threads[i])) < 0)
			return rc;
	free(m->list);
	m->list = malloc((m->nr_threads ? m->nr_threads : 1) * sizeof(*m->list));
	if (!m->list)
		return -ENOMEM;
	/* members of each class, chained from the class root */
	if (m->classes)
		for (i = m->nr_threads; i-- > 0;) {
			uint32_t root = uf_root(m, (uint32_t)i);

			if (root != i) {
				m->threads[i].next_member = m->threads[root].next_member;
				m->threads[root].next_member = (uint32_t)i;
			}
		}
	m->prepared = 1;
	return 0;
}

size_t pd_machine_threads_of(struct pd_machine *m, int32_t tid, const uint32_t **list)
{
	size_t n = 0, j, o;
	uint32_t *l = m->list;

	*list = l;
	m->gen++;
	if (tid == -1) {
		for (j = 0; j < m->nr_threads; j++)
			l[n++] = (uint32_t)j;
	} else {
		struct pd_thread *t = pd_machine_find(m, tid);

		if (t) {
			t->visit = m->gen;
			l[n++] = (uint32_t)(t - m->threads);
		}
		for (j = 0; j < n; j++) {
			struct pd_thread *c = &m->threads[l[j]];
			size_t q;
			uint32_t mb;

			if (m->classes)
				for (mb = uf_root(m, l[j]); mb != UINT32_MAX; mb = m->threads[mb].next_member)
					if (m->threads[mb].visit != m->gen) {
						m->threads[mb].visit = m->gen;
						l[n++] = mb;
					}
			for (q = 0; q < c->nr_parents; q++) {
				struct pd_thread *pp = pd_machine_find(m, c->parents[q]);

				if (pp && pp->visit != m->gen) {
					pp->visit = m->gen;
					l[n++] = (uint32_t)(pp - m->threads);
				}
			}
		}
	}
	/* only threads that own mappings (in a multi-threaded process, the
	 * ones that issued an mmap) */
	for (j = 0, o = 0; j < n; j++)
		if (m->threads[l[j]].nr_maps)
			l[o++] = l[j];
	return o;
}

static uint64_t map_start(const void *elem)
{
	return ((const struct pd_map *)elem)->start;
}

int pd_machine_resolve(struct pd_machine *m, uint32_t thread, uint64_t ip, pd_map_fn fn,
		       void *ctx)
{
	const struct pd_thread *t = &m->threads[thread];
	size_t i = sl_last_le(t->maps, t->nr_maps, sizeof(*t->maps), ip, map_start);
	int rc;

	/* maps sorted by start; maxend[i] bounds the ends of maps[0..i] */
	for (; i != (size_t)-1 && t->maxend[i] > ip; i--)
		if (ip < t->maps[i].end && (rc = fn(ctx, &t->maps[i], ip)) != 0)
			return rc;
	return 0;
}
