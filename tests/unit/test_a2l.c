/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for srcline/ (a2l.h): GNU addr2line 2.40 answers from the
 * symbol table. A shared object is linked at test time from two assembler
 * files with STT_FILE symbols (locals after their file, globals after a
 * file-after-symbol), a function with a nested one (the one-entry cache of
 * _bfd_elf_find_function), aliases at one address with different sizes,
 * types and bindings, zero-size symbols, an annobin-style hidden local
 * marker, an object in .text, a local notype symbol in .data, .bss, a
 * versioned .dynsym. Expected answers are written out here and, when
 * /usr/bin/addr2line is there, every byte stream is also compared with it.
 * DWARF (libg.so, -g -O1): the answer with its file and line, the .a2d
 * table's validation (targeted and random mutations), a DWARF section bfd
 * would not read the same way refused with reason "DWARF: ".
 * Eligibility: -g, --strip-debug, --only-keep-debug + --add-gnu-debuglink,
 * strip --strip-all (.dynsym only). Corrupt, truncated and foreign cache
 * files are rebuilt; hostile ELF files are refused without a crash.
 */
#include <stdarg.h>
#include <stdatomic.h>
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
#include "index/cache.h"
#include "index/format.h"
#include "srcline/a2l.h"
#include "srcline/a2l_dwarf.h"
#include "tests/unit/testutil.h"
#include "util/reason.h"

/* the formatted text of a reason (util/reason.h), as the stats print it */
static const char *why_text(const struct sl_why *w)
{
	static char text[SL_WHY_DETAIL + 256];

	sl_why_format(w, text, sizeof(text));
	return text;
}

static const char *asm_a =
	"\t.file \"one.c\"\n"
	"\t.text\n"
	"\t.type lf,@function\nlf:\n\t.fill 16,1,0x90\n\t.size lf,16\n"
	"\t.globl outer\n\t.type outer,@function\nouter:\n\t.fill 8,1,0x90\n"
	"\t.globl inner\n\t.type inner,@function\ninner:\n\t.fill 8,1,0x90\n\t.size inner,8\n"
	"\t.fill 16,1,0x90\n\t.size outer,32\n"
	"\t.globl al_small\n\t.type al_small,@function\n"
	"\t.globl al_big\n\t.type al_big,@function\n"
	"\t.weak al_weak\n\t.type al_weak,@function\n"
	"\t.type al_local,@function\n"
	"al_small:\nal_big:\nal_weak:\nal_local:\n\t.fill 48,1,0x90\n"
	"\t.size al_small,4\n\t.size al_big,32\n\t.size al_weak,32\n\t.size al_local,48\n"
	"\t.globl zs\n\t.type zs,@function\nzs:\n\t.fill 8,1,0x90\n"
	"\t.hidden anno\n\t.type anno,@notype\nanno:\n\t.fill 8,1,0x90\n"
	"\t.type lnote,@notype\nlnote:\n\t.fill 8,1,0x90\n"
	"\t.globl gobj\n\t.type gobj,@object\ngobj:\n\t.fill 8,1,0\n\t.size gobj,8\n"
	"\t.globl vfn1\n\t.type vfn1,@function\nvfn1:\n\t.fill 8,1,0x90\n\t.size vfn1,8\n"
	"\t.symver vfn1,vfn@VER_1\n"
	"\t.globl vfn2\n\t.type vfn2,@function\nvfn2:\n\t.fill 8,1,0x90\n\t.size vfn2,8\n"
	"\t.symver vfn2,vfn@@VER_2\n"
	"\t.globl callsputs\n\t.type callsputs,@function\ncallsputs:\n\tjmp puts@PLT\n\t.size callsputs,5\n"
	"\t.data\n\t.globl dvar\n\t.type dvar,@object\ndvar:\n\t.quad 1\n\t.size dvar,8\n"
	"\t.type dnote,@notype\ndnote:\n\t.quad 2\n"
	"\t.bss\n\t.globl bvar\n\t.type bvar,@object\nbvar:\n\t.zero 64\n\t.size bvar,64\n"
	"\t.section .note.GNU-stack,\"\",@progbits\n";

static const char *asm_b =
	"\t.file \"two.c\"\n"
	"\t.text\n"
	"\t.type lf2,@function\nlf2:\n\t.fill 12,1,0x90\n\t.size lf2,12\n"
	"\t.globl f3\n\t.type f3,@function\nf3:\n\tcall lf2\n\tret\n\t.size f3,6\n"
	"\t.section .note.GNU-stack,\"\",@progbits\n";

static const char *c_src = "int gcount;\nint dbgfn(int x) { return x * 3 + gcount; }\n"
			   "static int sfn(int x) { return x + 1; }\nint (*keep)(int) = sfn;\n";

static const char *vscript = "VER_1 { global: vfn; outer; inner; al_small; al_big; al_weak; zs; gobj; "
			     "callsputs; dvar; bvar; f3; local: *; };\nVER_2 { global: vfn; } VER_1;\n";

static char dir[64], so[128], cache[128];
static int have_binutils;

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/symlazy-a2l-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	test_put(dir, "a.s", asm_a);
	test_put(dir, "b.s", asm_b);
	test_put(dir, "c.c", c_src);
	test_put(dir, "v.map", vscript);
	snprintf(so, sizeof(so), "%s/libt.so", dir);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	elf_version(EV_CURRENT);
	have_binutils = access("/usr/bin/addr2line", X_OK) == 0 &&
			!test_sh("/usr/bin/addr2line --version 2>/dev/null | head -1 | grep -q ' 2\\.40$'");
	return test_sh("cd %s && cc -c a.s b.s && cc -shared -Wl,--build-id -Wl,--version-script=v.map -o libt.so a.o b.o"
		  " && cc -shared -fPIC -g -O1 -o libg.so c.c && cp libg.so libnodebug.so && strip --strip-debug libnodebug.so"
		  " && cp libt.so libdyn.so && strip --strip-all libdyn.so"
		  " && cp libg.so liblink.so && objcopy --only-keep-debug liblink.so liblink.dbg"
		  " && strip --strip-debug liblink.so && objcopy --add-gnu-debuglink=liblink.dbg liblink.so",
		  dir) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	test_sh("rm -rf %s", dir);
	return 0;
}

/* st_value of the first symbol @name in .symtab (else .dynsym) of @path. */
static uint64_t addr_of(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	uint64_t v = 0;
	int found = 0;

	for (int pass = 0; pass < 2 && !found; pass++) {
		Elf_Scn *scn = NULL;

		while (!found && (scn = elf_nextscn(e, scn)) != NULL) {
			GElf_Shdr s;
			Elf_Data *d;

			gelf_getshdr(scn, &s);
			if (s.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) || !(d = elf_getdata(scn, NULL)))
				continue;
			for (size_t i = 1; i < s.sh_size / s.sh_entsize && !found; i++) {
				GElf_Sym sym;
				const char *nm;

				gelf_getsym(d, (int)i, &sym);
				nm = elf_strptr(e, s.sh_link, sym.st_name);
				if (nm && !strcmp(nm, name)) {
					v = sym.st_value;
					found = 1;
				}
			}
		}
	}
	elf_end(e);
	close(fd);
	assert_true(found);
	return v;
}

/* Run a2l_serve on @input and, with binutils, addr2line; compare; the
 * a2l_serve bytes into @out (@n). */
static _Atomic uint32_t handed;

static void serve_opt(const char *path, const char *input, int with_addresses, int no_heap, char *out, size_t n)
{
	char in_p[160], got_p[160], ref_p[160];
	struct a2l_table t;
	struct sl_why why;
	int in, o;
	ssize_t k;

	snprintf(in_p, sizeof(in_p), "%s/in", dir);
	snprintf(got_p, sizeof(got_p), "%s/got", dir);
	snprintf(ref_p, sizeof(ref_p), "%s/ref", dir);
	test_put(dir, "in", input);
	assert_int_equal(a2l_open(path, -1, &t, &why), 0);
	t.no_heap = no_heap;
	atomic_store(&handed, 0);
	t.live_handed = &handed;
	in = open(in_p, O_RDONLY);
	o = open(got_p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_int_equal(a2l_serve(in, o, &t, with_addresses), 0);
	close(in);
	close(o);
	a2l_close(&t);
	o = open(got_p, O_RDONLY);
	k = read(o, out, n - 1);
	close(o);
	assert_true(k >= 0);
	out[k] = '\0';
	if (have_binutils) {
		assert_int_equal(test_sh("/usr/bin/addr2line -e %s %s-i -f < %s > %s", path, with_addresses ? "-a " : "",
				    in_p, ref_p), 0);
		if (test_sh("cmp -s %s %s", ref_p, got_p)) {
			test_sh("diff %s %s | head -20 >&2", ref_p, got_p);
			fail_msg("a2l_serve differs from addr2line for %s", path);
		}
	}
}

static void serve(const char *path, const char *input, int with_addresses, char *out, size_t n)
{
	serve_opt(path, input, with_addresses, 0, out, n);
}

static void q(char *buf, size_t n, uint64_t a)
{
	size_t l = strlen(buf);

	snprintf(buf + l, n - l, "%016llx\n,\n", (unsigned long long)a);
}

static void test_eligible(void **state)
{
	char p[160];
	struct sl_why why;

	(void)state;
	assert_int_equal(a2l_eligible(so, &why), 1);
	/* its own .debug_info: served from the DWARF table (a2l_dwarf.h) */
	snprintf(p, sizeof(p), "%s/libg.so", dir);
	assert_int_equal(a2l_eligible(p, &why), 1);
	snprintf(p, sizeof(p), "%s/libnodebug.so", dir);
	assert_int_equal(a2l_eligible(p, &why), 1);
	snprintf(p, sizeof(p), "%s/libdyn.so", dir);
	assert_int_equal(a2l_eligible(p, &why), 1);
	/* .gnu_debuglink to a file beside it: binutils follows it */
	snprintf(p, sizeof(p), "%s/liblink.so", dir);
	assert_int_equal(a2l_eligible(p, &why), 0);
	assert_non_null(strstr(why_text(&why), "liblink.dbg"));
	test_sh("mv %s/liblink.dbg %s/liblink.dbg.away", dir, dir);
	assert_int_equal(a2l_eligible(p, &why), 1);
	/* ... or in its .debug/ */
	test_sh("mkdir -p %s/.debug && mv %s/liblink.dbg.away %s/.debug/liblink.dbg", dir, dir, dir);
	assert_int_equal(a2l_eligible(p, &why), 0);
	/* a build-id debug file, even relative to the working directory */
	{
		char cwd[512];

		assert_non_null(getcwd(cwd, sizeof(cwd)));
		assert_int_equal(test_sh("cd %s && id=$(readelf -n libnodebug.so | awk '/Build ID/ {print $3}') && "
				    "d=$(echo $id | cut -c1-2) && r=$(echo $id | cut -c3-) && mkdir -p .build-id/$d && "
				    "touch .build-id/$d/$r.debug", dir), 0);
		snprintf(p, sizeof(p), "%s/libnodebug.so", dir);
		assert_int_equal(chdir(dir), 0);
		assert_int_equal(a2l_eligible(p, &why), 0);
		assert_non_null(strstr(why_text(&why), ".build-id/"));
		assert_int_equal(chdir(cwd), 0);
		assert_int_equal(a2l_eligible(p, &why), 1);
		test_sh("rm -rf %s/.build-id", dir);
	}
	/* not ELF, missing, a directory */
	snprintf(p, sizeof(p), "%s/a.s", dir);
	assert_int_equal(a2l_eligible(p, &why), -EINVAL);
	assert_int_equal(a2l_eligible("/nonexistent/x.so", &why), -ENOENT);
	assert_int_equal(a2l_eligible(dir, &why), -EINVAL);
}

static void test_answers(void **state)
{
	char in[8192] = "", out[16384];
	uint64_t outer = addr_of(so, "outer"), al = addr_of(so, "al_big"), zs = addr_of(so, "zs");
	uint64_t anno = addr_of(so, "anno"), gobj = addr_of(so, "gobj"), lf = addr_of(so, "lf");
	uint64_t dnote = addr_of(so, "dnote"), bvar = addr_of(so, "bvar"), f3 = addr_of(so, "f3");
	uint64_t vfn1 = addr_of(so, "vfn1");

	(void)state;
	q(in, sizeof(in), outer + 10);  /* fresh: the nested inner */
	q(in, sizeof(in), outer + 2);   /* outer, cached with its size 32 */
	q(in, sizeof(in), outer + 10);  /* the cache answers: outer */
	q(in, sizeof(in), al + 2);      /* aliases: the largest size, then the first: al_local (48) */
	q(in, sizeof(in), zs + 3);      /* zero size: still the nearest start */
	q(in, sizeof(in), anno + 1);    /* hidden local zero-size notype: skipped, zs */
	q(in, sizeof(in), gobj + 1);    /* an object: skipped, lnote */
	q(in, sizeof(in), lf + 1);      /* a local after FILE one.c */
	q(in, sizeof(in), f3 + 1);      /* a global after a file-after-symbol: no file */
	q(in, sizeof(in), dnote);       /* .data: the local notype */
	q(in, sizeof(in), bvar + 8);    /* .bss: an object only */
	q(in, sizeof(in), vfn1);        /* versioned: no @VER in 2.40 */
	q(in, sizeof(in), 0);
	q(in, sizeof(in), 0xffffffffffffffffull);
	serve(so, in, 0, out, sizeof(out));
	assert_string_equal(out,
			    "inner\n??:?\n??\n??:0\n"
			    "outer\n??:?\n??\n??:0\n"
			    "outer\n??:?\n??\n??:0\n"
			    "al_local\none.c:?\n??\n??:0\n"
			    "zs\n??:?\n??\n??:0\n"
			    "zs\n??:?\n??\n??:0\n"
			    "lnote\none.c:?\n??\n??:0\n"
			    "lf\none.c:?\n??\n??:0\n"
			    "f3\n??:?\n??\n??:0\n"
			    "dnote\none.c:?\n??\n??:0\n"
			    "??\n??:0\n??\n??:0\n"
			    "vfn1\n:?\n??\n??:0\n"   /* forced local by the version script: after ld's empty STT_FILE */
			    "??\n??:0\n??\n??:0\n"
			    "??\n??:0\n??\n??:0\n");
	in[0] = '\0';
	q(in, sizeof(in), outer + 1);
	serve(so, in, 1, out, sizeof(out));
	{
		char want[256];

		snprintf(want, sizeof(want), "0x%016llx\nouter\n??:?\n0x0000000000000000\n??\n??:0\n",
			 (unsigned long long)(outer + 1));
		assert_string_equal(out, want);
	}
}

static void test_dynsym_only(void **state)
{
	char p[160], in[4096] = "", out[8192];
	uint64_t outer = addr_of(so, "outer"), vfn2 = addr_of(so, "vfn2"), lf = addr_of(so, "lf");

	(void)state;
	snprintf(p, sizeof(p), "%s/libdyn.so", dir);
	q(in, sizeof(in), outer + 12);
	q(in, sizeof(in), vfn2 + 1);    /* vfn@@VER_2: printed "vfn" */
	q(in, sizeof(in), lf + 1);      /* a local: not in .dynsym; the nearest before it, or none */
	serve(p, in, 0, out, sizeof(out));
	assert_non_null(strstr(out, "inner\n??:?\n"));
	assert_non_null(strstr(out, "vfn\n??:?\n"));
	assert_null(strstr(out, "@"));
}

static void test_lines(void **state)
{
	char in[4096], out[16384];
	uint64_t outer = addr_of(so, "outer");

	(void)state;
	/* fgets pieces of 99 bytes, blanks, 0x prefixes, hex letters, symbols,
	 * symbol+offset, no final newline */
	snprintf(in, sizeof(in),
		 "%0120llx\n  0x%llx\n\n%llX\nouter\nouter+0x3\n  outer + 4\nouter+\n+5\n-1\nzz\nabc+1\n,\n"
		 "f3\ninner\n%llx",
		 (unsigned long long)outer, (unsigned long long)outer + 1, (unsigned long long)outer + 2,
		 (unsigned long long)outer + 3);
	serve(so, in, 1, out, sizeof(out));
	assert_non_null(strstr(out, "outer\n??:?\n"));
	assert_int_equal(atomic_load(&handed), 0);
	/* the forked child without perf's heap (core/a2lsess.c drop_perf_heap):
	 * the first symbol-name line ("outer") hands the session to binutils,
	 * replaying the lines before it: the same bytes */
	if (have_binutils) {
		serve_opt(so, in, 1, 1, out, sizeof(out));
		assert_non_null(strstr(out, "outer\n??:?\n"));
		assert_int_equal(atomic_load(&handed), 1);
	}
}

/* A symbol named ",": perf's sentinel line reads its address (lookup_symbol) */
static void test_comma_symbol(void **state)
{
	char p[160], out[4096];

	(void)state;
	test_put(dir, "comma.s", "\t.text\n\t.globl f0\n\t.type f0,@function\nf0:\n\t.fill 16,1,0x90\n\t.size f0,16\n"
		       "\t.globl \",\"\n\t.type \",\",@function\n\",\":\n\t.fill 8,1,0x90\n\t.size \",\",8\n"
		       "\t.section .note.GNU-stack,\"\",@progbits\n");
	assert_int_equal(test_sh("cd %s && cc -shared -nostdlib -o libcomma.so comma.s", dir), 0);
	snprintf(p, sizeof(p), "%s/libcomma.so", dir);
	assert_int_equal(a2l_eligible(p, NULL), 1);
	{
		char in[64];
		uint64_t f0 = addr_of(p, "f0"), c = addr_of(p, ",");
		char want[256];

		in[0] = '\0';
		q(in, sizeof(in), f0);
		serve(p, in, 1, out, sizeof(out));
		snprintf(want, sizeof(want), "0x%016llx\nf0\n??:?\n0x%016llx\n,\n??:?\n", (unsigned long long)f0,
			 (unsigned long long)c);
		assert_string_equal(out, want);
	}
}

static void test_cache_files(void **state)
{
	struct a2l_table t;
	char name[64], p[256], out[512];
	struct sl_why why;
	struct stat st;
	int dfd, fd;
	struct sl_why w = { 0 };
	uint64_t outer = addr_of(so, "outer");
	char line[64];
	size_t n;

	(void)state;
	dfd = sl_cache_dir_open(cache, &w);
	assert_true(dfd >= 0);
	assert_int_equal(a2l_open(so, dfd, &t, &why), 0);
	assert_int_equal(t.from_cache, 0);
	a2l_close(&t);
	assert_int_equal(a2l_open(so, dfd, &t, &why), 0);
	assert_int_equal(t.from_cache, 1);
	snprintf(line, sizeof(line), "%016llx\n", (unsigned long long)outer);
	n = a2l_answer(&t, line, strlen(line), 0, out, sizeof(out));
	assert_int_equal(n, strlen("outer\n??:?\n"));
	assert_memory_equal(out, "outer\n??:?\n", n);
	/* a short @out: the full count, only outsz bytes written */
	assert_int_equal(a2l_answer(&t, line, strlen(line), 0, out, 3), n);
	a2l_close(&t);
	stat(so, &st);
	a2l_file_name(a2l_key(&st), name, sizeof(name));
	snprintf(p, sizeof(p), "%s/%s", cache, name);
	/* every single-byte corruption of the header and a few of the body:
	 * rebuilt, never trusted */
	for (off_t off = 0; off < 400; off += 7) {
		unsigned char b;

		fd = open(p, O_RDWR);
		if (fd < 0)
			break;
		if (pread(fd, &b, 1, off) != 1) {
			close(fd);
			break;
		}
		b ^= 0x41;
		assert_int_equal(pwrite(fd, &b, 1, off), 1);
		close(fd);
		assert_int_equal(a2l_open(so, dfd, &t, &why), 0);
		assert_int_equal(t.from_cache, 0);
		n = a2l_answer(&t, line, strlen(line), 0, out, sizeof(out));
		assert_memory_equal(out, "outer\n??:?\n", n);
		a2l_close(&t);
	}
	/* truncated, then garbage */
	assert_int_equal(truncate(p, 100), 0);
	assert_int_equal(a2l_open(so, dfd, &t, &why), 0);
	assert_int_equal(t.from_cache, 0);
	a2l_close(&t);
	test_sh("head -c 5000 /dev/urandom > %s", p);
	assert_int_equal(a2l_open(so, dfd, &t, &why), 0);
	assert_int_equal(t.from_cache, 0);
	a2l_close(&t);
	close(dfd);
}

/* Mutated tables with a recomputed checksum: a2l_validate rejects them or
 * answers stay in bounds (run under ASan by make sanitize builds too). */
static void test_validate_mutations(void **state)
{
	struct a2l_table t, m;
	char out[8192];
	struct sl_why why;
	unsigned char *copy;
	unsigned seed = 12345;
	uint64_t outer = addr_of(so, "outer");
	char line[64];

	(void)state;
	assert_int_equal(a2l_open(so, -1, &t, &why), 0);
	assert_int_equal(a2l_validate(t.map, t.map_size), 0);
	copy = malloc(t.map_size);
	assert_non_null(copy);
	snprintf(line, sizeof(line), "%016llx\n", (unsigned long long)outer);
	for (int it = 0; it < 3000; it++) {
		struct a2l_hdr *h = (void *)copy;

		memcpy(copy, t.map, t.map_size);
		for (int k = 0; k < 1 + it % 4; k++) {
			size_t at = (size_t)(rand_r(&seed) % (it % 2 ? t.map_size : 200));

			copy[at] = (unsigned char)rand_r(&seed);
		}
		h->checksum = symindex_checksum(copy + 32, t.map_size - 32);
		if (a2l_validate(copy, t.map_size) < 0)
			continue;
		memset(&m, 0, sizeof(m));
		a2l_attach(&m, copy, t.map_size);
		snprintf(m.path, sizeof(m.path), "%s", so);
		for (uint64_t a = outer - 64; a < outer + 256; a += 5) {
			snprintf(line, sizeof(line), "%016llx\n", (unsigned long long)a);
			assert_true(a2l_answer(&m, line, strlen(line), 1, out, sizeof(out)) > 0);
		}
	}
	free(copy);
	a2l_close(&t);
}

/* the DWARF table of libg.so: answers, validation */
static void test_dwarf(void **state)
{
	struct a2l_table t;
	char p[160], line[64], out[4096], want[512];
	struct sl_why why;
	uint64_t fn;
	size_t n;
	unsigned char *copy;
	struct a2d_hdr *h;
	unsigned seed = 777;

	(void)state;
	snprintf(p, sizeof(p), "%s/libg.so", dir);
	fn = addr_of(p, "dbgfn");
	assert_int_equal(a2l_open(p, -1, &t, &why), 0);
	assert_non_null(t.dh);
	assert_int_equal(a2l_dw_validate(t.dmap, t.dmap_size), 0);
	assert_true(t.dh->nfuncs >= 1 && t.dh->nlints >= 1 && t.dh->ncus == 1);
	/* dbgfn's first byte: C (DW_AT_name is the linkage name), line 2 of c.c */
	snprintf(line, sizeof(line), "%016llx\n", (unsigned long long)fn);
	n = a2l_answer(&t, line, strlen(line), 0, out, sizeof(out));
	out[n < sizeof(out) ? n : sizeof(out) - 1] = '\0';
	snprintf(want, sizeof(want), "dbgfn\n%s/c.c:2\n", dir);
	assert_string_equal(out, want);
	assert_int_equal(t.need_real, 0);
	/* a data section (do_line in bfd): handed over, nothing written */
	snprintf(line, sizeof(line), "%016llx\n", (unsigned long long)addr_of(p, "gcount"));
	assert_int_equal(a2l_answer(&t, line, strlen(line), 1, out, sizeof(out)), 0);
	assert_int_equal(t.need_real, 1);
	if (have_binutils) {
		char got[4096];

		snprintf(line, sizeof(line), "%016llx\n,\n%016llx\n", (unsigned long long)fn,
			 (unsigned long long)fn + 3);
		serve(p, line, 1, got, sizeof(got));
		assert_non_null(strstr(got, want));
	}
	/* targeted corruption, checksum recomputed: each refused */
	copy = malloc(t.dmap_size);
	assert_non_null(copy);
	h = (void *)copy;
#define MUT(stmt)                                                                       \
	do {                                                                            \
		memcpy(copy, t.dmap, t.dmap_size);                                      \
		stmt;                                                                   \
		h->checksum = symindex_checksum(copy + 32, t.dmap_size - 32);           \
		assert_int_equal(a2l_dw_validate(copy, t.dmap_size), -EINVAL);         \
	} while (0)
	MUT(h->version++);
	MUT(h->nfuncs++);
	MUT(h->max_depth = 0);
	MUT(((struct a2d_func *)(copy + h->funcs_off))[0].caller = 0);      /* itself: a cycle */
	MUT(((struct a2d_func *)(copy + h->funcs_off))[0].name = (uint32_t)h->strings_size);
	MUT(((struct a2d_lint *)(copy + h->lints_off))[0].hi = ((struct a2d_lint *)(copy + h->lints_off))[0].lo);
	MUT(((struct a2d_cu *)(copy + h->cus_off))[0].l_end = h->nlints + 1);
	MUT(((struct a2d_range *)(copy + h->ranges_off))[0].cu = h->ncus);
	memcpy(copy, t.dmap, t.dmap_size);
	assert_int_equal(a2l_dw_validate(copy, t.dmap_size - 8), -EINVAL);     /* truncated */
	copy[40] ^= 1;                                                          /* checksum */
	assert_int_equal(a2l_dw_validate(copy, t.dmap_size), -EINVAL);
	/* random bytes: refused or answering in bounds */
	for (int it = 0; it < 2000; it++) {
		struct a2l_table m = t;

		memcpy(copy, t.dmap, t.dmap_size);
		for (int k = 0; k < 1 + it % 3; k++)
			copy[32 + rand_r(&seed) % (t.dmap_size - 32)] = (unsigned char)rand_r(&seed);
		h->checksum = symindex_checksum(copy + 32, t.dmap_size - 32);
		if (a2l_dw_validate(copy, t.dmap_size) < 0)
			continue;
		m.dmap = copy;
		m.dh = (void *)copy;
		m.need_real = 0;
		memset(t.fstate, 0, 4 * (size_t)t.dh->nfuncs);
		for (uint64_t a = fn - 32; a < fn + 64; a += 3) {
			snprintf(line, sizeof(line), "%016llx\n", (unsigned long long)a);
			(void)a2l_answer(&m, line, strlen(line), 1, out, sizeof(out));
		}
	}
	free(copy);
	a2l_close(&t);
	/* a line program bfd reads differently (DWARF 3 unit header): refused */
	assert_int_equal(test_sh("cd %s && cc -shared -fPIC -gdwarf-3 -O1 -o libg3.so c.c", dir), 0);
	snprintf(p, sizeof(p), "%s/libg3.so", dir);
	assert_int_equal(a2l_eligible(p, &why), 1);
	assert_int_equal(a2l_open(p, -1, &t, &why), -ENOTSUP);
	assert_int_equal(why.code, SL_R_A2L_DWARF);        /* refused as DWARF (a2l_dwarf) */
}

static void test_hostile(void **state)
{
	struct a2l_table t;
	char p[160], cwd[1024];
	struct sl_why why;

	(void)state;
	snprintf(p, sizeof(p), "%s/trunc.so", dir);
	for (int cut = 0; cut < 20000; cut += 997) {
		test_sh("head -c %d %s > %s", cut, so, p);
		if (a2l_open(p, -1, &t, &why) == 0) {
			char out[512];

			a2l_answer(&t, "1000\n", 5, 1, out, sizeof(out));
			a2l_close(&t);
		} else {
			assert_true(why.code != SL_R_NONE);
		}
		a2l_eligible(p, &why);
	}
	/* random bytes after a valid ELF header */
	test_sh("head -c 64 %s > %s && head -c 4096 /dev/urandom >> %s", so, p, p);
	if (a2l_open(p, -1, &t, &why) == 0)
		a2l_close(&t);
	assert_int_equal(a2l_open("/nonexistent-symlazy-test", -1, &t, &why), -ENOENT);
	/* a zlib-compressed .debug_line whose section is cut to half its size
	 * (Elf64_Chdr.ch_size kept; tests/corpus/cxx.cpp: enough line rows that
	 * binutils' old loop span forever): refused, not inflated forever (the input
	 * runs out with output space left: inflate makes no progress) */
	snprintf(p, sizeof(p), "%s/libz_cut.so", dir);
	if (getcwd(cwd, sizeof(cwd)) &&
	    test_sh("c++ -shared -fPIC -O2 -g -I%s/tests/corpus -o %s/libzc.so %s/tests/corpus/cxx.cpp && cd %s && "
		    "objcopy --compress-debug-sections=zlib libzc.so libzc2.so && python3 -c \"%s\" libzc2.so %s",
		    cwd, dir, cwd, dir,
		    "import struct,sys\n"
		    "d=bytearray(open(sys.argv[1],'rb').read()); o,=struct.unpack_from('<Q',d,40)\n"
		    "es,n,si=struct.unpack_from('<HHH',d,58); so=struct.unpack_from('<Q',d,o+si*es+24)[0]\n"
		    "for i in range(n):\n"
		    " h=o+i*es; nm=struct.unpack_from('<I',d,h)[0]\n"
		    " if d[so+nm:d.index(0,so+nm)]==b'.debug_line': struct.pack_into('<Q',d,h+32,struct.unpack_from('<Q',d,h+32)[0]//2)\n"
		    "open(sys.argv[2],'wb').write(d)", p) == 0) {
		alarm(60);      /* a hang fails the test */
		assert_true(a2l_open(p, -1, &t, &why) < 0);
		assert_non_null(strstr(why_text(&why), ".debug_line"));
		alarm(0);
	}
	snprintf(p, sizeof(p), "%s/a.s", dir);
	assert_int_equal(a2l_open(p, -1, &t, &why), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eligible),
		cmocka_unit_test(test_answers),
		cmocka_unit_test(test_dynsym_only),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_comma_symbol),
		cmocka_unit_test(test_cache_files),
		cmocka_unit_test(test_validate_mutations),
		cmocka_unit_test(test_dwarf),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
