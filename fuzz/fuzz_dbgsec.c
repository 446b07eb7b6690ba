/* SPDX-License-Identifier: MIT */
/*
 * fuzz_dbgsec - the decompressed copy of an ELF file's SHF_COMPRESSED debug
 * sections (index/dbgsec.h) on arbitrary bytes (a memfd):
 *   sl_dbgsec_plan    must say 0, -ENOENT or -EINVAL; a plan keeps every
 *                     moved section, the section header table and the kept
 *                     prefix inside the copy, without overlaps;
 *   sl_dbgsec_open    (plans of at most 64 MiB) in a private cache dir under
 *                     /tmp: a copy it returns has the planned size, its ELF
 *                     header and section headers are those of the plan,
 *                     every section with bytes lies inside it, and libelf
 *                     reads it (elf_begin, every section header) when it
 *                     reads the file; a second
 *                     call finds it (built 0). On failure (a corrupt stream:
 *                     -EBADMSG) no file is left in the dir.
 * libz.so.1 / libzstd.so.1 are loaded with dlopen by util/zlib_dl.c and
 * util/zstd_dl.c (linked here; -ldl); the harness checks at start-up that
 * both load, else every compressed stream would fail with -ENOSYS.
 * FUZZ_DBGSEC_VERBOSE=1: one line per planned input (plan, open's result).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include "fuzz_common.h"
#include "index/cache.h"
#include "index/dbgsec.h"
#include "util/reason.h"
#include "util/zlib_dl.h"
#include "util/zstd_dl.h"

#define MAX_COPY (64ull << 20)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	if (!zlib_dl_load() || !zstd_dl_load()) {
		fprintf(stderr, "fuzz_dbgsec: libz.so.1 or libzstd.so.1 does not load\n");
		exit(1);
	}
	elf_version(EV_CURRENT);
	if (fuzz_cache_dir() < 0) {
		fprintf(stderr, "fuzz_dbgsec: %s: cannot open a cache dir\n", fuzz_cache_path);
		exit(1);
	}
	return 0;
}

static int has_bytes(const Elf64_Shdr *s)
{
	return s->sh_type != SHT_NOBITS && s->sh_type != SHT_NULL;
}

static void check_plan(const struct sl_dbgsec_plan *p)
{
	uint64_t end = p->cut;

	FUZZ_CHECK(p->cut >= sizeof(Elf64_Ehdr) && p->cut <= p->file_size);
	FUZZ_CHECK(p->info.sections >= 1 && p->info.sections <= p->nmoved);
	for (uint32_t i = 0; i < p->nmoved; i++) {
		const Elf64_Shdr *d = &p->new_sh[p->order[i]];

		FUZZ_CHECK(p->order[i] > 0 && p->order[i] < p->eh.e_shnum);
		FUZZ_CHECK(!(d->sh_flags & SHF_COMPRESSED));
		FUZZ_CHECK(d->sh_offset >= end && d->sh_size <= p->eh.e_shoff - d->sh_offset);
		end = d->sh_offset + d->sh_size;
	}
	FUZZ_CHECK(p->eh.e_shoff >= end && p->eh.e_shoff % 8 == 0);
	FUZZ_CHECK(p->size == p->eh.e_shoff + (uint64_t)p->eh.e_shnum * sizeof(Elf64_Shdr));
}

/* libelf's section count of the file at @fd after reading every header, or -1 */
static long libelf_shnum(int fd)
{
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t shnum;
	long r = -1;

	if (e && elf_kind(e) == ELF_K_ELF && elf_getshdrnum(e, &shnum) == 0) {
		GElf_Shdr g;
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(e, scn)) && gelf_getshdr(scn, &g))
			;
		r = scn ? -1 : (long)shnum;
	}
	elf_end(e);
	return r;
}

/* the copy at @cfd is the plan's and libelf reads it if it reads @in */
static void check_copy(int in, int cfd, const struct sl_dbgsec_plan *p)
{
	size_t n = (size_t)p->eh.e_shnum * sizeof(Elf64_Shdr);
	Elf64_Shdr *sh = malloc(n);
	Elf64_Ehdr eh;
	struct stat st;
	FUZZ_CHECK(sh != NULL);
	FUZZ_CHECK(fstat(cfd, &st) == 0 && (uint64_t)st.st_size == p->size + SL_DBGSEC_TRAILER);
	FUZZ_CHECK(pread(cfd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) && !memcmp(&eh, &p->eh, sizeof(eh)));
	FUZZ_CHECK(eh.e_shoff + n == p->size);
	FUZZ_CHECK(pread(cfd, sh, n, (off_t)eh.e_shoff) == (ssize_t)n && !memcmp(sh, p->new_sh, n));
	for (size_t i = 1; i < eh.e_shnum; i++) {
		FUZZ_CHECK(!(sh[i].sh_flags & SHF_COMPRESSED) || sh[i].sh_offset < p->cut);
		if (has_bytes(&sh[i]))
			FUZZ_CHECK(sh[i].sh_offset <= (uint64_t)st.st_size &&
				   sh[i].sh_size <= (uint64_t)st.st_size - sh[i].sh_offset);
	}
	free(sh);
	/* the ELF header is the file's but for e_shoff: libelf reads the copy
	 * when it reads the file (an EI_VERSION it refuses, say, it refuses in both) */
	if (libelf_shnum(in) >= 0)
		FUZZ_CHECK(libelf_shnum(cfd) == (long)eh.e_shnum);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sl_dbgsec_plan p;
	struct sl_dbgsec_info info;
	char path[64];
	int fd, r, cfd;

	if (size > (1u << 20))
		return 0;
	fd = fuzz_memfd(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	r = sl_dbgsec_plan(fd, &p);
	FUZZ_CHECK(r == 0 || r == -ENOENT || r == -EINVAL);
	if (r < 0) {
		close(fd);
		return 0;
	}
	check_plan(&p);
	if (p.size > MAX_COPY || p.info.bytes > MAX_COPY) {
		/* a bomb: the harness does not write it */
		sl_dbgsec_plan_free(&p);
		close(fd);
		return 0;
	}
	memset(&info, 0, sizeof(info));
	cfd = sl_dbgsec_open(fd, fuzz_cache_fd, SL_DBGSEC_ABBREV, &info);
	if (getenv("FUZZ_DBGSEC_VERBOSE"))
		fprintf(stderr, "fuzz_dbgsec: plan %u moved, %u inflated (%llu bytes), copy %llu bytes: open %d, libelf %ld\n",
			p.nmoved, p.info.sections, (unsigned long long)p.info.bytes, (unsigned long long)p.size, cfd, libelf_shnum(fd));
	if (cfd >= 0) {
		FUZZ_CHECK(info.built == 1 && info.sections == p.info.sections && info.bytes == p.info.bytes);
		check_copy(fd, cfd, &p);
		close(cfd);
		FUZZ_CHECK(fuzz_cache_entries() == 1);
		memset(&info, 0, sizeof(info));
		cfd = sl_dbgsec_open(fd, fuzz_cache_fd, SL_DBGSEC_ABBREV, &info);
		FUZZ_CHECK(cfd >= 0 && info.built == 0);
		close(cfd);
		fuzz_cache_clean();
	} else {
		FUZZ_CHECK(cfd == -EBADMSG || cfd == -EINVAL || cfd == -ENOSPC || cfd == -EFBIG);
		FUZZ_CHECK(fuzz_cache_entries() == 0);
	}
	sl_dbgsec_plan_free(&p);
	close(fd);
	return 0;
}
