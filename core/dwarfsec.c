/* SPDX-License-Identifier: MIT */
/*
 * dwarfsec.c - see dwarfsec.h. Upstream facts (elfutils 0.196):
 * libdwfl/open.c __libdw_open_file opens every module file and debug file
 * with elf_begin(fd, ELF_C_READ_MMAP, NULL); libdw/dwarf_begin_elf.c
 * check_section inflates a section only when its header has SHF_COMPRESSED
 * (elf_compress) or its name starts with ".zdebug" (elf_compress_gnu; such
 * files are left alone: index/dbgsec.c only rewrites SHF_COMPRESSED).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/dwarfsec.h"
#include "core/session.h"
#include "index/dbgsec.h"
#include "util/reason.h"
#include "util/util.h"

#define ADD(s, field, n) __atomic_fetch_add(&(s)->totals.field, (n), __ATOMIC_RELAXED)

struct dwsec_ent {
	struct dwsec_ent *next;
	Elf *elf;
	int cfd;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct dwsec_ent *ents;
static int nents;                     /* read without the lock: elf_end's fast path */
static int warned;
/* what the copy handed out by the last sl_dwsec_begin of this thread holds */
static __thread __attribute__((tls_model("initial-exec"))) struct sl_dbgsec_info pending;

int sl_dwsec_from_libdw(const char *fname, uintptr_t fbase, uintptr_t *base)
{
	uintptr_t known = __atomic_load_n(base, __ATOMIC_RELAXED);
	const char *b;

	if (!fname)
		return 0;
	if (known)
		return fbase == known;
	b = strrchr(fname, '/');
	b = b ? b + 1 : fname;
	if (strncmp(b, "libdw.so", 8) && strncmp(b, "libdw-", 6))
		return 0;
	__atomic_store_n(base, fbase, __ATOMIC_RELAXED);
	return 1;
}

int sl_dwsec_begin(struct sl_session *s, int fd, Elf_Cmd cmd, Elf *ref)
{
	struct sl_dbgsec_info info = { 0 };
	int dirfd, cfd;

	if (!s->cfg.dwarf_map || ref || fd < 0 ||
	    (cmd != ELF_C_READ && cmd != ELF_C_READ_MMAP && cmd != ELF_C_READ_MMAP_PRIVATE))
		return -1;
	dirfd = sl_session_cache_fd(s);
	if (dirfd < 0)
		return -1;
	cfd = sl_dbgsec_open(fd, dirfd, s->cfg.dwarf_abbrev ? SL_DBGSEC_ABBREV : 0, &info);
	if (cfd >= 0) {
		pending = info;
		return cfd;
	}
	if (cfd == -ENOENT || cfd == -EINVAL)
		return -1;              /* nothing compressed / a layout left to libdw */
	ADD(s, dbg_left, 1);
	if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED)) {
		char link[64], path[PATH_MAX], msg[1024];
		struct sl_why why;
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, path, sizeof(path) - 1);
		path[n > 0 ? n : 0] = '\0';
		sl_why_set(&why, SL_R_DBGSEC_FAILED, "%s: %s", n > 0 ? path : "?", strerror(-cfd));
		sl_why_format(&why, msg, sizeof(msg));
		sl_warnx("symlazy: %s", msg);
	}
	return -1;
}

void sl_dwsec_adopt(struct sl_session *s, Elf *elf, int cfd)
{
	struct dwsec_ent *e = elf ? malloc(sizeof(*e)) : NULL;

	if (!e) {
		close(cfd);     /* no Elf (or no memory: libelf has the file mapped) */
		return;
	}
	e->elf = elf;
	e->cfd = cfd;
	pthread_mutex_lock(&lock);
	e->next = ents;
	ents = e;
	__atomic_store_n(&nents, nents + 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&lock);
	ADD(s, dbg_files, 1);
	ADD(s, dbg_sections, pending.sections);
	ADD(s, dbg_bytes, pending.bytes);
	ADD(s, dbg_built, (uint64_t)pending.built);
}

void sl_dwsec_forget(struct sl_session *s, Elf *elf)
{
	struct dwsec_ent **pp, *e = NULL;

	(void)s;
	if (!__atomic_load_n(&nents, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&lock);
	for (pp = &ents; *pp; pp = &(*pp)->next) {
		if ((*pp)->elf == elf) {
			e = *pp;
			*pp = e->next;
			__atomic_store_n(&nents, nents - 1, __ATOMIC_RELEASE);
			break;
		}
	}
	pthread_mutex_unlock(&lock);
	if (e) {
		close(e->cfd);
		free(e);
	}
}
