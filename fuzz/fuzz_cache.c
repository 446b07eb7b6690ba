/* SPDX-License-Identifier: MIT */
/*
 * fuzz_cache - symindex_open() (index/symindex.c try_cache/validate/attach)
 * on an arbitrary file sitting in the cache dir under the exact name it
 * looks for. The indexed ELF is fixed (cache_elf.S); the cache file is
 * built from the input, by mode = data[0] % 6:
 *   0  the rest of the input, as is
 *   1  the rest of the input with magic/version/hdr_size/key forced to the
 *      expected values and the payload checksum recomputed
 *   2  the good cache file with data[3..] written at offset u16(data[1..2]),
 *      size kept, checksum recomputed (a crafted or buggy-writer file)
 *   3  like 2 without the checksum fix (disk corruption)
 *   4  the good file with header counts set by 5-byte records {field,
 *      u32 value}: field picks nentries, ngroups, nsymtab, ndynsym or
 *      unmodelable (the header is outside the checksum: bit rot does this)
 *   5  the good file with fields set by 10-byte records {field, index,
 *      u64 value}: field picks first, n, next_sym, next_all, flags, start of
 *      group[index] or idx, table, start of entry[index]; checksum fixed
 * Modes 4 and 5 name fields, not offsets, so their inputs stay meaningful
 * when the file layout changes (tests/regress/cache/known/ uses them).
 * symindex_open must succeed (use the file or rebuild it), a rebuilt file
 * must equal the good one, and a plan over it must stay inside the keep
 * bitmaps the shim allocates (nsyms / 8 + 1 bytes, checked by ASan).
 * With FUZZ_CACHE_STRICT=1 it also checks that a file accepted in mode 3
 * means the same as the good one (header fields outside the checksum).
 *
 * An accepted file must also be self-consistent: header counts equal to
 * the tables', every group's entries and successors inside the arrays,
 * every entry's table 0/1 and index inside its table. Regression inputs for
 * the two gaps this found (fixed in c3e4f6e, "Cache: validate every header
 * and payload field"): tests/regress/cache/K1-* (header nsymtab/ndynsym,
 * outside the checksum, drove symindex_plan()'s writes to the keep bitmaps:
 * a heap overflow from one corrupted byte) and K2-* (group/entry fields
 * under a valid checksum: out-of-bounds reads in symindex_plan/sim_run).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include "fuzz_common.h"
#include "fuzz_elf.h"
#include "index/format.h"
#include "util/reason.h"

extern const unsigned char fuzz_cache_elf[], fuzz_cache_elf_end[];

#define hdr symidx_hdr           /* the on-disk header (index/format.h) */

static const struct elf_ops *ops;
static char dir[64], name[256];
static int cdirfd = -1, strict;
static struct symidx_layout lay;
static struct symidx_src src;
static unsigned char bid[20], *good;
static size_t goodsz;
static uint64_t starts[256];
static size_t nstarts;


static void fix_sum(unsigned char *f, size_t n)
{
	uint64_t s;

	if (n < sizeof(struct hdr))
		return;
	{
		struct symidx_hdr h;    /* f may be unaligned */

		memcpy(&h, f, sizeof(h));
		s = symidx_file_checksum(&h, f + sizeof(struct hdr), n - sizeof(struct hdr));
	}
	memcpy(f + offsetof(struct hdr, checksum), &s, 8);
}

static void cleanup(void)
{
	DIR *d;
	struct dirent *de;

	if (cdirfd < 0)
		return;
	d = fdopendir(dup(cdirfd));
	while (d && (de = readdir(d)) != NULL)
		if (de->d_name[0] != '.' || (de->d_name[1] && strcmp(de->d_name, "..")))
			unlinkat(cdirfd, de->d_name, 0);
	if (d)
		closedir(d);
	rmdir(dir);
}

static int read_file(const char *n, unsigned char **out, size_t *outsz)
{
	struct stat st;
	int fd = openat(cdirfd, n, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*out = malloc((size_t)st.st_size + 1);
	r = read(fd, *out, (size_t)st.st_size);
	close(fd);
	*outsz = r > 0 ? (size_t)r : 0;
	return r == st.st_size ? 0 : -1;
}

/* Seeds: the good file in each mode, and small patches of it. */
static void write_seeds(const char *sdir)
{
	static const unsigned char patch[][4] = {
		{ 2, 32, 0, 0xff }, { 2, 36, 0, 0x7f }, { 2, 40, 0, 0xff }, { 3, 48, 0, 1 },
		{ 2, 176, 0, 0xee }, { 2, 200, 0, 0x41 }, { 3, 220, 0, 0 }, { 2, 24, 0, 0 },
	};
	char path[512];
	FILE *f;
	unsigned m;

	for (m = 0; m < 4; m++) {
		snprintf(path, sizeof(path), "%s/good-mode%u", sdir, m);
		if ((f = fopen(path, "wb")) != NULL) {
			fputc((int)m, f);
			if (m >= 2) {
				fputc(0, f);
				fputc(0, f);
			}
			fwrite(m >= 2 ? good + 0 : good, 1, m >= 2 ? 8 : goodsz, f);
			fclose(f);
		}
	}
	for (m = 0; m < sizeof(patch) / sizeof(patch[0]); m++) {
		snprintf(path, sizeof(path), "%s/patch-%u", sdir, m);
		if ((f = fopen(path, "wb")) != NULL) {
			fwrite(patch[m], 1, 4, f);
			fclose(f);
		}
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	size_t n = (size_t)(fuzz_cache_elf_end - fuzz_cache_elf);
	char *copy = malloc(n);
	struct symidx idx;
	DIR *d;
	struct dirent *de;
	Elf *elf;
	uint32_t g;
	const char *base;

	(void)argc; (void)argv;
	strict = getenv("FUZZ_CACHE_STRICT") && atoi(getenv("FUZZ_CACHE_STRICT"));
	ops = elfops_direct();
	memcpy(copy, fuzz_cache_elf, n);
	elf = ops->elf_memory(copy, n);
	if (!elf) {
		fprintf(stderr, "fuzz_cache: embedded ELF unreadable\n");
		abort();
	}
	fuzz_elf_src(ops, elf, n, &lay, &src, bid);
	/* one dir per process, on tmpfs when there is one (each run writes,
	 * renames and maps a file); libFuzzer's fork-mode jobs end without
	 * atexit, so remove the dirs of dead processes first */
	base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	d = opendir(base);
	while (d && (de = readdir(d)) != NULL) {
		int pid;

		if (sscanf(de->d_name, "symlazy-fuzz-cache-%d", &pid) == 1 && pid > 0 &&
		    kill(pid, 0) < 0 && errno == ESRCH) {
			char cmd[320];

			snprintf(cmd, sizeof(cmd), "rm -rf '%s/%s'", base, de->d_name);
			(void)!system(cmd);
		}
	}
	if (d)
		closedir(d);
	snprintf(dir, sizeof(dir), "%s/symlazy-fuzz-cache-%d", base, (int)getpid());
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		abort();
	cdirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	atexit(cleanup);
	src.cache_dirfd = cdirfd;
	if (symindex_open(&src, &idx) != 0 || idx.unmodelable || !idx.ngroups) {
		fprintf(stderr, "fuzz_cache: cannot index the embedded ELF\n");
		abort();
	}
	for (g = 0; g < idx.ngroups && nstarts + 2 <= 256; g++) {
		starts[nstarts++] = idx.groups[g].start;
		starts[nstarts++] = idx.groups[g].start + 1;
	}
	symindex_close(&idx);
	d = fdopendir(dup(cdirfd));
	while (d && (de = readdir(d)) != NULL)
		if (strstr(de->d_name, ".idx") && de->d_name[0] != '.')
			snprintf(name, sizeof(name), "%s", de->d_name);
	if (d)
		closedir(d);
	if (!name[0] || read_file(name, &good, &goodsz) < 0 || goodsz < sizeof(struct hdr) ||
	    ((struct hdr *)good)->hdr_size != sizeof(struct hdr)) {
		fprintf(stderr, "fuzz_cache: no usable cache file (header mirror out of date?)\n");
		abort();
	}
	if (getenv("FUZZ_CACHE_SEED_DIR"))
		write_seeds(getenv("FUZZ_CACHE_SEED_DIR"));
	return 0;
}

/* Do the groups and entries of an accepted index stay inside its arrays
 * and tables? */
static int groups_sane(const struct symidx *idx)
{
	uint32_t i;

	for (i = 0; i < idx->nentries; i++) {
		const struct symidx_entry *e = &idx->entries[i];

		if (e->table > 1 || e->idx >= (e->table ? idx->ndynsym : idx->nsymtab))
			return 0;
	}
	for (i = 0; i < idx->ngroups; i++) {
		const struct symidx_group *g = &idx->groups[i];

		if (g->first > idx->nentries || g->n > idx->nentries - g->first ||
		    (g->next_sym != SYMIDX_NONE && g->next_sym >= idx->ngroups) ||
		    (g->next_all != SYMIDX_NONE && g->next_all >= idx->ngroups))
			return 0;
	}
	return 1;
}

static void write_cache(const unsigned char *f, size_t n)
{
	int fd = openat(cdirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	size_t off = 0;

	if (fd < 0)
		abort();
	while (off < n) {
		ssize_t w = write(fd, f + off, n - off);

		if (w <= 0)
			abort();
		off += (size_t)w;
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *f, *now = NULL;
	size_t n, nowsz = 0, i;
	struct symidx idx;
	uint64_t addrs[256 + 8];
	size_t naddrs = 0;
	int mode, r;

	if (size < 1 || size > 65536)
		return 0;
	mode = data[0] % 6;
	data++;
	size--;
	if (mode == 4 || mode == 5) {
		struct hdr *H;
		const uint8_t *p;

		n = goodsz;
		f = malloc(n);
		memcpy(f, good, n);
		H = (struct hdr *)f;
		if (mode == 4) {
			uint32_t *fld[] = { &H->nentries, &H->ngroups, &H->nsymtab, &H->ndynsym, &H->unmodelable };

			for (p = data; p + 5 <= data + size; p += 5)
				memcpy(fld[p[0] % 5], p + 1, 4);
		} else {
			struct symidx_entry *E = (struct symidx_entry *)(f + sizeof(*H));
			struct symidx_group *G = (struct symidx_group *)(E + H->nentries);

			for (p = data; p + 10 <= data + size; p += 10) {
				uint64_t v;
				uint32_t v32;

				memcpy(&v, p + 2, 8);
				v32 = (uint32_t)v;
				switch (p[0] % 9) {
				case 0: G[p[1] % H->ngroups].first = v32; break;
				case 1: G[p[1] % H->ngroups].n = v32; break;
				case 2: G[p[1] % H->ngroups].next_sym = v32; break;
				case 3: G[p[1] % H->ngroups].next_all = v32; break;
				case 4: G[p[1] % H->ngroups].flags = v32; break;
				case 5: G[p[1] % H->ngroups].start = v; break;
				case 6: E[p[1] % H->nentries].idx = v32; break;
				case 7: E[p[1] % H->nentries].table = v32; break;
				default: E[p[1] % H->nentries].start = v; break;
				}
			}
			fix_sum(f, n);
		}
	} else if (mode <= 1) {
		n = size;
		f = malloc(n ? n : 1);
		memcpy(f, data, n);
		if (mode == 1 && n >= sizeof(struct hdr)) {
			const struct hdr *G = (const struct hdr *)good;
			struct hdr *H = (struct hdr *)f;

			memcpy(H->magic, G->magic, 8);
			H->version = G->version;
			H->hdr_size = G->hdr_size;
			H->key = G->key;
			fix_sum(f, n);
		}
	} else {
		size_t off;

		if (size < 2)
			return 0;
		n = goodsz;
		f = malloc(n);
		memcpy(f, good, n);
		off = ((size_t)data[0] | (size_t)data[1] << 8) % n;
		for (i = 2; i < size && off < n; i++, off++)
			f[off] = data[i];
		if (mode == 2)
			fix_sum(f, n);
	}
	write_cache(f, n);
	r = symindex_open(&src, &idx);
	FUZZ_CHECK(r == 0);
	if (getenv("FUZZ_DEBUG"))
		fprintf(stderr, "fuzz_cache: mode %d, %zu bytes, from_cache %d, %u entries, %u groups\n", mode, n, idx.from_cache, idx.nentries, idx.ngroups);
	if (idx.from_cache) {
		FUZZ_CHECK(idx.nsymtab == src.nsymtab && idx.ndynsym == src.ndynsym);
		FUZZ_CHECK(groups_sane(&idx));
	}
	if (!idx.from_cache) {
		/* ignored and rebuilt: the file is the good one again */
		FUZZ_CHECK(read_file(name, &now, &nowsz) == 0);
		FUZZ_CHECK(nowsz == goodsz && !memcmp(now, good, goodsz));
		free(now);
	} else if (strict && mode == 3) {
		const struct hdr *G = (const struct hdr *)good, *H = idx.map;

		FUZZ_CHECK(H->nsymtab == G->nsymtab && H->ndynsym == G->ndynsym &&
			   H->unmodelable == G->unmodelable);
	}
	for (i = 0; i < nstarts; i++)
		addrs[naddrs++] = starts[i];
	{
		uint8_t *ks = calloc(src.nsymtab / 8 + 1, 1), *kd = calloc(src.ndynsym / 8 + 1, 1);
		uint32_t kept;
		struct sl_why why;

		r = symindex_plan(&idx, &lay, &src, addrs, naddrs, ks, kd, &kept, &why);
		FUZZ_CHECK(r == 0 || r == 1 || r == -ENOMEM);
		/* one address at a time too: an ambiguous address makes the
		 * whole plan give up before it reads the groups it kept (four
		 * per run, from an input-chosen offset: each replay costs a
		 * tree build, and this keeps the harness at thousands of runs/s) */
		for (i = 0; i < naddrs && i < 4; i++) {
			size_t a = (i + size * 7 + (size ? data[size - 1] : 0)) % naddrs;

			memset(ks, 0, src.nsymtab / 8 + 1);
			memset(kd, 0, src.ndynsym / 8 + 1);
			r = symindex_plan(&idx, &lay, &src, &addrs[a], 1, ks, kd, &kept, &why);
			FUZZ_CHECK(r == 0 || r == 1 || r == -ENOMEM);
		}
		for (i = 0; i < naddrs; i++) {
			uint32_t g = symindex_find(&idx, addrs[i]);

			FUZZ_CHECK(g == SYMIDX_NONE || g < idx.ngroups);
		}
		free(ks);
		free(kd);
	}
	symindex_close(&idx);
	free(f);
	return 0;
}
