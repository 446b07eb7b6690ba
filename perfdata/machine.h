/* SPDX-License-Identifier: MIT */
/*
 * perfdata/machine.h - the thread/map model behind the address collector
 * (prefix pd_machine_): which file mappings an address sampled by a thread
 * may resolve through, as a superset of what perf 6.1 can reach.
 *
 * Facts (perf 6.1 util/machine.c, util/thread.c, util/map.c):
 *   - every record reaches its thread through machine__findnew_thread(pid,
 *     tid), which looks the thread up by tid alone, whatever the pid field
 *     says (tid 0 = idle and tid -1 included);
 *   - a thread created as (pid, tid) with pid != tid and pid != -1 shares
 *     the maps of the thread whose tid is pid (thread__init_maps,
 *     machine__update_thread_pid);
 *   - FORK with pid != ppid makes a new process that starts with a copy of
 *     the maps of the forking thread ptid (thread__clone_maps);
 *   - an address maps to `ip - map.start + map.pgoff` (map__map_ip).
 * The model: threads keyed by tid; every (pid, tid) pair a record names
 * joins thread tid and thread pid into one class (union-find); FORK adds a
 * parent edge tid -> ptid. An address sampled by thread T may resolve
 * through every mapping ever recorded for a thread of T's class, of a FORK
 * ancestor or of an ancestor's class (transitively), so neither event order
 * nor damaged pid fields can make the set miss a lookup perf does. In an
 * intact recording a class is one process. Exec and exit never remove maps.
 *
 * DSOs are interned by (path, embedded MMAP2 build-id, MMAP2 device/inode); maps refer to them
 * by index. Memory grows with threads, maps and DSOs only.
 */
#ifndef SYMLAZY_PD_MACHINE_H
#define SYMLAZY_PD_MACHINE_H

#include <stddef.h>
#include <stdint.h>
#include "perfdata/htab.h"

#define PD_MACHINE_BUILD_ID_MAX 20

struct pd_map {
	uint64_t start, end;	/* [start, end) in the thread's address space */
	uint64_t pgoff;		/* file offset of start */
	uint32_t dso;		/* pd_machine.dsos index */
	uint32_t data;		/* 1: non-exec mapping (MMAP_DATA) */
};

struct pd_thread {		/* a perf thread (util/thread.h), keyed by tid */
	int32_t tid;
	uint32_t visit;		/* generation stamp for pd_machine_threads_of */
	struct pd_map *maps;
	size_t nr_maps, alloc_maps;
	uint64_t *maxend;	/* prefix max of maps[].end (after prepare) */
	int sorted;
	int32_t *parents;	/* tids of FORK parents */
	size_t nr_parents, alloc_parents;
	uint32_t uf;		/* union-find parent: the thread's class */
	uint32_t next_member;	/* next thread of the same class (after prepare) */
};

/* The device and inode an MMAP2 record (without build-id) names. */
struct pd_file_ino {
	uint32_t maj, min;
	uint64_t ino;
	int valid;
};

struct pd_machine_dso {
	char *path;
	unsigned char build_id[PD_MACHINE_BUILD_ID_MAX];
	unsigned build_id_size;	/* embedded (MMAP2) build-id, 0 = none */
	struct pd_file_ino ino;	/* MMAP2 maj/min/ino, valid = 0 for MMAP */
};

struct pd_machine {
	struct pd_thread *threads;
	size_t nr_threads, alloc_threads;
	struct pd_htab thread_tab;
	int32_t last_key;	/* lookup cache: tid -> threads index */
	uint32_t last_thread;
	int32_t last_tid, last_tid_pid;	/* last (pid, tid) pair joined */
	int classes;		/* some thread was joined to another */
	struct pd_machine_dso *dsos;
	size_t nr_dsos, alloc_dsos;
	struct pd_htab dso_tab;
	uint32_t gen;
	uint32_t *list;		/* scratch of pd_machine_threads_of */
	int prepared;		/* pd_machine_prepare ran (later calls: no-ops) */
};

/* pd_machine_init - an empty machine. Returns 0 or -ENOMEM. */
int pd_machine_init(struct pd_machine *m);

/* pd_machine_free - release everything (also after a failed init). */
void pd_machine_free(struct pd_machine *m);

/*
 * pd_machine_thread - a record names thread @tid of process @pid: find or
 * create thread @tid and join it with thread @pid (unless pid is -1 or
 * tid). Returns the thread (valid until the next call that may create a
 * thread) or NULL (out of memory).
 */
struct pd_thread *pd_machine_thread(struct pd_machine *m, int32_t pid, int32_t tid);

/* pd_machine_find - thread @tid or NULL; creates nothing. */
struct pd_thread *pd_machine_find(struct pd_machine *m, int32_t tid);

/* pd_machine_dso - index of the DSO (@path, @id of @size <= 20 bytes; size
 * 0 = no embedded build-id; @ino: the MMAP2 device/inode, NULL or !valid
 * for MMAP), interned on first use: one path mapped from two inodes (a
 * binary replaced during the recording) is two DSOs. -ENOMEM on failure. */
long pd_machine_dso(struct pd_machine *m, const char *path, const unsigned char *id,
		    unsigned size, const struct pd_file_ino *ino);

/*
 * pd_machine_mmap - MMAP/MMAP2 of [start, start+len) at file offset @pgoff
 * of DSO @dso by thread @tid of @pid (pd_machine_thread semantics; end
 * saturates at UINT64_MAX). @data: a non-exec mapping. 0 or -ENOMEM.
 */
int pd_machine_mmap(struct pd_machine *m, int32_t pid, int32_t tid, uint64_t start,
		    uint64_t len, uint64_t pgoff, uint32_t dso, int data);

/* pd_machine_fork - FORK {pid, ppid, tid, ptid}: names both threads; if
 * pid != ppid, thread @tid gets parent @ptid. 0 or -ENOMEM. */
int pd_machine_fork(struct pd_machine *m, int32_t pid, int32_t ppid, int32_t tid,
		    int32_t ptid);

/* pd_machine_prepare - after the last record: sort and deduplicate every
 * thread's maps, chain the classes. 0 or -ENOMEM. No mmap/fork/thread
 * calls may follow; calling it again does nothing. */
int pd_machine_prepare(struct pd_machine *m);

/*
 * pd_machine_threads_of - the threads (indices into m->threads) whose maps
 * an address sampled by thread @tid resolves through: tid's class, FORK
 * ancestors and their classes, transitively; for @tid -1 (samples without
 * PERF_SAMPLE_TID) every thread. Only threads that own maps are listed.
 * *@list is valid until the next call. After pd_machine_prepare.
 */
size_t pd_machine_threads_of(struct pd_machine *m, int32_t tid, const uint32_t **list);

/* Called for a map that contains @ip; nonzero return stops the walk. */
typedef int (*pd_map_fn)(void *ctx, const struct pd_map *map, uint64_t ip);

/*
 * pd_machine_resolve - call @fn for every map of thread @thread (an index)
 * that contains @ip, data maps included (perf 6.1 keeps one map tree per
 * thread, so a code address inside a -d data mapping resolves there too).
 * Returns the first nonzero @fn result, else 0. After pd_machine_prepare;
 * O(log maps + matches).
 */
int pd_machine_resolve(struct pd_machine *m, uint32_t thread, uint64_t ip, pd_map_fn fn,
		       void *ctx);

#endif
