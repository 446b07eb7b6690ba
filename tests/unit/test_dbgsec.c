/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the decompressed copy of a file with compressed debug
 * sections (index/dbgsec.c), on programs compiled at test time with
 * -g -gz=zlib (and, when objcopy can and this host's libelf inflates it,
 * compressed with zstd by objcopy). The copy is
 * checked against libelf itself: for every section, its header and bytes in
 * the copy equal what elf_compress(scn, 0, 0) + elf_getdata give for the
 * original (elfutils libelf/elf_compress.c), and the program headers are
 * unchanged. Also: nothing compressed (-ENOENT), a corrupt stream (-EBADMSG),
 * a truncated file (-EINVAL), a second open maps the cached copy. And
 * core/dwarfsec.c's rule for which calls come from libdw (sl_dwsec_from_libdw).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/dwarfsec.h"
#include "index/dbgsec.h"
#include "tests/unit/testutil.h"

static char dir[64];
static int have_zstd;

static const char *prog =
	"static inline __attribute__((always_inline)) int tri(int x) { return x * 3; }\n"
	"int g(int x) { return tri(x) + tri(x + 1); }\n"
	"int main(int c, char **v) { (void)v; return g(c); }\n";

/* libelf (the reference) can inflate every compressed section of @name */
static int libelf_inflates(const char *name)
{
	char p[128];
	int fd, ok = 1;
	Elf *e;
	Elf_Scn *scn = NULL;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if ((fd = open(p, O_RDONLY)) < 0)
		return 0;
	elf_version(EV_CURRENT);
	if (!(e = elf_begin(fd, ELF_C_READ, NULL))) {
		close(fd);
		return 0;
	}
	while (ok && (scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr s;

		if (gelf_getshdr(scn, &s) && (s.sh_flags & SHF_COMPRESSED))
			ok = elf_compress(scn, 0, 0) == 1;
	}
	elf_end(e);
	close(fd);
	return ok;
}

static int setup(void **state)
{
	FILE *f;

	(void)state;
	strcpy(dir, "/tmp/sl-dbgsec-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	{
		char p[128];

		snprintf(p, sizeof(p), "%s/p.c", dir);
		if (!(f = fopen(p, "w")))
			return -1;
		fputs(prog, f);
		fclose(f);
	}
	if (test_sh("cc -O2 -g -gz=zlib -o %s/z %s/p.c && cc -O2 -g -o %s/plain %s/p.c", dir, dir, dir, dir))
		return -1;
	have_zstd = test_sh("objcopy --compress-debug-sections=zstd %s/plain %s/zs 2>/dev/null", dir, dir) == 0 &&
		    test_sh("readelf -t %s/zs | grep -qi zstd", dir) == 0;
	elf_version(EV_CURRENT);
	if (have_zstd)          /* the reference: this host's libelf must inflate zstd */
		have_zstd = libelf_inflates("zs");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	test_sh("rm -rf %s", dir);
	return 0;
}

static int open_in(const char *name)
{
	char p[128];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return open(p, O_RDONLY);
}

static int cache_dir(const char *name)
{
	char p[128];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	mkdir(p, 0700);
	return open(p, O_RDONLY | O_DIRECTORY);
}

/* the copy at @cfd reads, through libelf, as @fd does once inflated */
static void same_as_inflated(int fd, int cfd)
{
	Elf *a = elf_begin(fd, ELF_C_READ, NULL), *b = elf_begin(cfd, ELF_C_READ, NULL);
	size_t na, nb, pa, pb, i;
	Elf_Scn *sa = NULL, *sb = NULL;

	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(elf_getshdrnum(a, &na), 0);
	assert_int_equal(elf_getshdrnum(b, &nb), 0);
	assert_int_equal(na, nb);
	assert_int_equal(elf_getphdrnum(a, &pa), 0);
	assert_int_equal(elf_getphdrnum(b, &pb), 0);
	assert_int_equal(pa, pb);
	for (i = 0; i < pa; i++) {
		GElf_Phdr x, y;

		assert_non_null(gelf_getphdr(a, (int)i, &x));
		assert_non_null(gelf_getphdr(b, (int)i, &y));
		assert_memory_equal(&x, &y, sizeof(x));
	}
	while ((sa = elf_nextscn(a, sa)) != NULL) {
		GElf_Shdr x, y;
		Elf_Data *da, *db;

		sb = elf_nextscn(b, sb);
		assert_non_null(sb);
		assert_non_null(gelf_getshdr(sa, &x));
		if (x.sh_flags & SHF_COMPRESSED) {
			assert_int_equal(elf_compress(sa, 0, 0), 1);
			assert_non_null(gelf_getshdr(sa, &x));
		}
		assert_non_null(gelf_getshdr(sb, &y));
		assert_int_equal(x.sh_name, y.sh_name);
		assert_int_equal(x.sh_type, y.sh_type);
		assert_int_equal(x.sh_flags, y.sh_flags);
		assert_int_equal(x.sh_addr, y.sh_addr);
		assert_int_equal(x.sh_size, y.sh_size);
		assert_int_equal(x.sh_link, y.sh_link);
		assert_int_equal(x.sh_info, y.sh_info);
		assert_int_equal(x.sh_addralign, y.sh_addralign);
		assert_int_equal(x.sh_entsize, y.sh_entsize);
		if (x.sh_type == SHT_NOBITS || !x.sh_size)
			continue;
		da = elf_getdata(sa, NULL);
		db = elf_getdata(sb, NULL);
		assert_non_null(da);
		assert_non_null(db);
		assert_int_equal(da->d_size, db->d_size);
		assert_memory_equal(da->d_buf, db->d_buf, da->d_size);
	}
	assert_null(elf_nextscn(b, sb));
	elf_end(a);
	elf_end(b);
}

static void copy_case(const char *name, const char *cache)
{
	struct sl_dbgsec_info info = { 0 };
	struct sl_dbgsec_plan p;
	int fd = open_in(name), dfd = cache_dir(cache), cfd, cfd2;
	uint32_t want;

	assert_true(fd >= 0 && dfd >= 0);
	assert_int_equal(sl_dbgsec_plan(fd, &p), 0);
	want = p.info.sections;
	sl_dbgsec_plan_free(&p);
	assert_true(want >= 1);
	cfd = sl_dbgsec_open(fd, dfd, 0, &info);
	assert_true(cfd >= 0);
	assert_int_equal(info.built, 1);
	assert_int_equal(info.sections, want);
	assert_true(info.bytes > 0);
	same_as_inflated(fd, cfd);
	/* again: the cached copy, not rebuilt */
	memset(&info, 0, sizeof(info));
	cfd2 = sl_dbgsec_open(fd, dfd, 0, &info);
	assert_true(cfd2 >= 0);
	assert_int_equal(info.built, 0);
	assert_int_equal(info.sections, want);
	close(cfd2);
	close(cfd);
	close(fd);
	close(dfd);
}

static void test_zlib_copy(void **state)
{
	(void)state;
	copy_case("z", "c1");
}

static void test_zstd_copy(void **state)
{
	(void)state;
	if (!have_zstd)
		skip();
	copy_case("zs", "c2");
}

static void test_not_compressed(void **state)
{
	struct sl_dbgsec_info info = { 0 };
	struct sl_dbgsec_plan p;
	int fd = open_in("plain"), dfd = cache_dir("c3");

	(void)state;
	assert_int_equal(sl_dbgsec_plan(fd, &p), -ENOENT);
	assert_int_equal(sl_dbgsec_open(fd, dfd, 0, &info), -ENOENT);
	assert_int_equal(sl_dbgsec_open(fd, -1, 0, &info), -ENOENT);
	close(fd);
	close(dfd);
}

/* the copy of a file whose .debug_info stream is damaged is refused, and
 * nothing is left in the cache dir */
static void test_corrupt_stream(void **state)
{
	struct sl_dbgsec_info info = { 0 };
	struct sl_dbgsec_plan p;
	int fd, dfd, r;
	uint64_t off = 0;
	char buf[64];

	(void)state;
	assert_int_equal(test_sh("cp %s/z %s/bad", dir, dir), 0);
	fd = open_in("bad");
	assert_int_equal(sl_dbgsec_plan(fd, &p), 0);
	for (uint32_t i = 0; i < p.nmoved; i++) {
		const Elf64_Shdr *s = &p.old_sh[p.order[i]];

		if ((s->sh_flags & SHF_COMPRESSED) && s->sh_size > 64 && !off)
			off = s->sh_offset + s->sh_size / 2;
	}
	sl_dbgsec_plan_free(&p);
	close(fd);
	assert_true(off > 0);
	fd = open(strcat(strcpy(buf, dir), "/bad"), O_RDWR);
	assert_int_equal(pwrite(fd, "\xff\x00\xff\x00\xff\x00\xff\x00", 8, (off_t)off), 8);
	dfd = cache_dir("c4");
	r = sl_dbgsec_open(fd, dfd, 0, &info);
	assert_int_equal(r, -EBADMSG);
	assert_int_equal(test_sh("test -z \"$(ls -A %s/c4)\"", dir), 0);
	close(fd);
	close(dfd);
}

static void test_truncated(void **state)
{
	struct sl_dbgsec_plan p;
	struct stat st;
	int fd;
	char buf[64];

	(void)state;
	assert_int_equal(test_sh("cp %s/z %s/trunc", dir, dir), 0);
	fd = open(strcat(strcpy(buf, dir), "/trunc"), O_RDWR);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(ftruncate(fd, st.st_size - 200), 0);   /* into the section headers */
	assert_int_equal(sl_dbgsec_plan(fd, &p), -EINVAL);
	close(fd);
}

/* core/dwarfsec.c: which calls come from libdw (the shim passes dladdr's answer) */
static void test_from_libdw(void **state)
{
	uintptr_t base = 0;

	(void)state;
	assert_int_equal(sl_dwsec_from_libdw(NULL, 0x1000, &base), 0);
	assert_int_equal(sl_dwsec_from_libdw("/usr/bin/perf", 0x1000, &base), 0);
	assert_int_equal(sl_dwsec_from_libdw("/usr/lib/x86_64-linux-gnu/libdwarf.so.1", 0x2000, &base), 0);
	assert_int_equal(sl_dwsec_from_libdw("/usr/lib/x86_64-linux-gnu/libelf.so.1", 0x3000, &base), 0);
	assert_int_equal(base, 0);
	assert_int_equal(sl_dwsec_from_libdw("/usr/lib/x86_64-linux-gnu/libdw.so.1", 0x7f0000, &base), 1);
	assert_int_equal(base, 0x7f0000);
	/* from now on the base decides: the same object under another name, not another libdw */
	assert_int_equal(sl_dwsec_from_libdw("/usr/lib/x86_64-linux-gnu/libdw-0.196.so", 0x7f0000, &base), 1);
	assert_int_equal(sl_dwsec_from_libdw("/opt/libdw.so.1", 0x900000, &base), 0);
	assert_int_equal(sl_dwsec_from_libdw(NULL, 0x7f0000, &base), 0);
	base = 0;
	assert_int_equal(sl_dwsec_from_libdw("libdw-0.196.so", 0x5000, &base), 1);
	assert_int_equal(base, 0x5000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_from_libdw),
		cmocka_unit_test(test_zlib_copy),
		cmocka_unit_test(test_zstd_copy),
		cmocka_unit_test(test_not_compressed),
		cmocka_unit_test(test_corrupt_stream),
		cmocka_unit_test(test_truncated),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
