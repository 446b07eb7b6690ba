/* SPDX-License-Identifier: MIT */
/*
 * test_threads - libsymlazy.so under threads, as a libelf client sees it.
 *
 * Each cmocka test starts this program again as a child (`--child ...`) with
 * LD_PRELOAD=<shim> and SYMLAZY_* set (the shim reads its config once, in its
 * constructor), then checks the child's exit status, what it saw, and the
 * shim's stats JSON. The parent itself uses libelf directly (no preload) to
 * compute build-ids and lookup addresses for SYMLAZY_ADDRS.
 *
 *   scan_concurrent  8 threads, 8 different ELF files (the generated fixture
 *                    if present, system libraries), budget + lazy + cache dir,
 *                    3 rounds: every thread sees what one sequential thread sees
 *   scan_same_file   8 threads on one file, cold cache: one index, no corruption
 *   budget_exact     8 threads on a DSO of equal-cost symbols, budget fitting K:
 *                    exactly K pass (stats totals.passed, charged_bytes = K*cost)
 *   perf_top         perf top's shape: a process thread loading symbol tables
 *                    into shared state, a display thread reading that state and
 *                    doing random gelf_getsym lookups and elf_begin/elf_end
 *   debug_pair       separate debug files (runtime layout from another live Elf
 *                    with the same build-id): 8 threads each holding the runtime
 *                    file open while scanning the debug file (perf's way: lazy
 *                    every time), and debug/runtime files in different threads;
 *                    with SYMLAZY_MMAP=1 and =0 (libelf heap-loads with =0)
 *
 * The shim is SYMLAZY_TEST_SO, else libsymlazy.so next to this binary, else
 * in its parent directory (build/tests/ -> build/, build/tsan/ -> build/tsan/).
 * The sanitizer builds (make sanitize: build/asan/test_threads and
 * build/tsan/test_threads) preload the matching sanitizer shim; their reports
 * make the child exit non-zero. SYMLAZY_TEST_SECONDS scales perf_top (default 2).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define MAXF 16
#define EQ_SYMS 2000            /* functions in eq.so, names fn_NNNNNN */
/* the child is no tool symlazy knows: core/model/other.c charges 320 + 3 x (strlen + 1) */
#define EQ_COST (320 + 3 * (9 + 1))

/* ------------------------------------------------------------ child side */

struct tres {
	uint64_t named[2], digest[2], total[2];
	int ok;
};

static uint64_t mix(uint64_t h, const char *s, uint64_t v)
{
	h ^= v * 0x9e3779b97f4a7c15ull;
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h * 0xff51afd7ed558ccdull;
}

/* One libelf client scan of both symbol tables, like bcc: every index
 * 0..n (n itself fails), names through elf_strptr. */
static int scan_file(const char *path, struct tres *r)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e;
	Elf_Scn *scn = NULL;

	memset(r, 0, sizeof(*r));
	if (fd < 0)
		return -1;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e) {
		close(fd);
		return -1;
	}
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		int t;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize)
			continue;
		t = sh.sh_type == SHT_DYNSYM;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i <= n; i++) {
			GElf_Sym s;
			const char *nm;

			if (!gelf_getsym(d, (int)i, &s))
				continue;
			r->total[t]++;
			if (!s.st_name)
				continue;
			nm = elf_strptr(e, sh.sh_link, s.st_name);
			r->named[t]++;
			r->digest[t] += mix(0, nm, s.st_value);
		}
	}
	elf_end(e);
	close(fd);
	r->ok = 1;
	return 0;
}

struct job {
	const char **files;
	int nfiles, rounds, any;
	pthread_barrier_t *bar;
	struct tres res[MAXF];
	int mismatch;
};

static void *scan_thread(void *arg)
{
	struct job *j = arg;
	int f, k;

	pthread_barrier_wait(j->bar);
	for (k = 0; k < j->rounds; k++) {
		for (f = 0; f < j->nfiles; f++) {
			struct tres r;

			scan_file(j->files[f], &r);
			if (k == 0)
				j->res[f] = r;
			else if (!j->any && memcmp(&r, &j->res[f], sizeof(r)))
				j->mismatch = 1;
		}
	}
	return NULL;
}

/* --child scan ROUNDS THREADS FILE...: THREADS == 1 scans every file in
 * order; otherwise thread i scans FILE[i % nfiles]. Prints "FILE TABLE
 * NAMED DIGEST" (round 0) and fails if a later round saw something else,
 * unless @any (scanany: results may legitimately depend on timing). */
static int child_scan(int argc, char **argv, int any)
{
	int rounds = atoi(argv[0]), nthreads = atoi(argv[1]), nf = argc - 2, i, f, rc = 0;
	const char **files = (const char **)argv + 2;
	struct job *jobs = calloc((size_t)nthreads, sizeof(*jobs));
	pthread_t *tid = calloc((size_t)nthreads, sizeof(*tid));
	pthread_barrier_t bar;

	pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
	for (i = 0; i < nthreads; i++) {
		jobs[i].bar = &bar;
		jobs[i].rounds = rounds;
		jobs[i].any = any;
		jobs[i].files = nthreads == 1 ? files : files + (i % nf);
		jobs[i].nfiles = nthreads == 1 ? nf : 1;
		pthread_create(&tid[i], NULL, scan_thread, &jobs[i]);
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(tid[i], NULL);
	for (i = 0; i < nthreads; i++) {
		for (f = 0; f < jobs[i].nfiles; f++) {
			const struct tres *r = &jobs[i].res[f];

			if (!r->ok) {
				printf("%s unreadable\n", jobs[i].files[f]);
				continue;
			}
			printf("%s symtab %llu %016llx\n", jobs[i].files[f], (unsigned long long)r->named[0],
			       (unsigned long long)r->digest[0]);
			printf("%s dynsym %llu %016llx\n", jobs[i].files[f], (unsigned long long)r->named[1],
			       (unsigned long long)r->digest[1]);
		}
		if (jobs[i].mismatch) {
			printf("MISMATCH between rounds in thread %d\n", i);
			rc = 3;
		}
	}
	fflush(stdout);
	pthread_barrier_destroy(&bar);
	free(jobs);
	free(tid);
	return rc;
}

/* perf's pattern for a separate debug file: the runtime file (runtime_ss)
 * stays open in the same thread while the debug file (syms_ss) is scanned. */
struct pjob {
	const char *dbg, *rt;
	int rounds, mismatch, ok;
	struct tres res;
	pthread_barrier_t *bar;
};

static void *pair_thread(void *arg)
{
	struct pjob *j = arg;

	pthread_barrier_wait(j->bar);
	for (int k = 0; k < j->rounds; k++) {
		int fd = open(j->rt, O_RDONLY | O_CLOEXEC);
		Elf *rt = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
		size_t phnum = 0;
		struct tres r;

		if (rt)
			elf_getphdrnum(rt, &phnum);
		scan_file(j->dbg, &r);
		if (rt)
			elf_end(rt);
		if (fd >= 0)
			close(fd);
		if (k == 0)
			j->res = r;
		else if (memcmp(&r, &j->res, sizeof(r)))
			j->mismatch = 1;
	}
	return NULL;
}

/* --child pairs ROUNDS THREADS DBG RT: prints "DBG TABLE NAMED DIGEST" per thread */
static int child_pairs(char **argv)
{
	int rounds = atoi(argv[0]), n = atoi(argv[1]), i, rc = 0;
	struct pjob *jobs = calloc((size_t)n, sizeof(*jobs));
	pthread_t *tid = calloc((size_t)n, sizeof(*tid));
	pthread_barrier_t bar;

	pthread_barrier_init(&bar, NULL, (unsigned)n);
	for (i = 0; i < n; i++) {
		jobs[i] = (struct pjob){ .dbg = argv[2], .rt = argv[3], .rounds = rounds, .bar = &bar };
		pthread_create(&tid[i], NULL, pair_thread, &jobs[i]);
	}
	for (i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	for (i = 0; i < n; i++) {
		printf("%s symtab %llu %016llx\n", argv[2], (unsigned long long)jobs[i].res.named[0],
		       (unsigned long long)jobs[i].res.digest[0]);
		if (jobs[i].mismatch) {
			printf("MISMATCH between rounds in thread %d\n", i);
			rc = 3;
		}
	}
	fflush(stdout);
	pthread_barrier_destroy(&bar);
	free(jobs);
	free(tid);
	return rc;
}

/* perf top: the process thread loads symbol tables (full scans) and
 * publishes them; the display thread reads what was published, looks up
 * single symbols at random (annotate, PLT), and opens/closes Elfs. */
struct top_shared {
	pthread_mutex_t mu;
	uint64_t published[MAXF];
	unsigned long generation;
	atomic_int stop;
	const char **files;
	int nfiles;
	unsigned long loads, lookups;
};

static void *top_process(void *arg)
{
	struct top_shared *s = arg;
	int f = 0;

	while (!atomic_load(&s->stop)) {
		struct tres r;

		if (scan_file(s->files[f], &r) == 0) {
			pthread_mutex_lock(&s->mu);
			s->published[f] = r.named[0] + r.named[1];
			s->generation++;
			s->loads++;
			pthread_mutex_unlock(&s->mu);
		}
		f = (f + 1) % s->nfiles;
	}
	return NULL;
}

static void *top_display(void *arg)
{
	struct top_shared *s = arg;
	unsigned seed = 12345;
	int f = 0;

	while (!atomic_load(&s->stop)) {
		int fd = open(s->files[f], O_RDONLY | O_CLOEXEC);
		Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
		Elf_Scn *scn = NULL;
		uint64_t sum = 0;

		pthread_mutex_lock(&s->mu);
		for (int i = 0; i < s->nfiles; i++)
			sum += s->published[i];
		pthread_mutex_unlock(&s->mu);
		(void)sum;
		while (e && (scn = elf_nextscn(e, scn)) != NULL) {
			GElf_Shdr sh;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
				continue;
			d = elf_getdata(scn, NULL);
			for (int k = 0; d && k < 64; k++) {
				GElf_Sym sym;
				int idx = (int)(rand_r(&seed) % (sh.sh_size / sh.sh_entsize + 1));

				if (gelf_getsym(d, idx, &sym) && sym.st_name)
					(void)elf_strptr(e, sh.sh_link, sym.st_name);
			}
		}
		if (e)
			elf_end(e);
		if (fd >= 0)
			close(fd);
		pthread_mutex_lock(&s->mu);
		s->lookups++;
		pthread_mutex_unlock(&s->mu);
		f = (f + 1) % s->nfiles;
	}
	return NULL;
}

/* --child top SECONDS FILE... */
static int child_top(int argc, char **argv)
{
	struct top_shared s;
	pthread_t p, d;
	double secs = atof(argv[0]);
	struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };

	memset(&s, 0, sizeof(s));
	pthread_mutex_init(&s.mu, NULL);
	s.files = (const char **)argv + 1;
	s.nfiles = argc - 1;
	pthread_create(&p, NULL, top_process, &s);
	pthread_create(&d, NULL, top_display, &s);
	nanosleep(&ts, NULL);
	atomic_store(&s.stop, 1);
	pthread_join(p, NULL);
	pthread_join(d, NULL);
	printf("loads %lu lookups %lu\n", s.loads, s.lookups);
	/* exit while nothing runs; the shim must not tear down under us */
	return s.loads > 0 && s.lookups > 0 ? 0 : 4;
}

static int child_main(int argc, char **argv)
{
	/* The shim is loaded; keep it out of what this process spawns (the
	 * sanitizers' llvm-symbolizer cannot run with a sanitizer shim). */
	unsetenv("LD_PRELOAD");
	elf_version(EV_CURRENT);
	alarm(300);             /* a hang is a failure, not a stuck test run */
	if (argc >= 4 && (!strcmp(argv[0], "scan") || !strcmp(argv[0], "scanany")))
		return child_scan(argc - 1, argv + 1, !strcmp(argv[0], "scanany"));
	if (argc >= 5 && !strcmp(argv[0], "pairs"))
		return child_pairs(argv + 1);
	if (argc >= 3 && !strcmp(argv[0], "top"))
		return child_top(argc - 1, argv + 1);
	fprintf(stderr, "test_threads: bad child arguments\n");
	return 2;
}

/* ----------------------------------------------------------- parent side */

static char self[PATH_MAX - 128], so_path[PATH_MAX], tmpdir[64];
static const char *files[MAXF];
static int nfiles;
static char eq_so[PATH_MAX], pair_rt[PATH_MAX], pair_dbg[PATH_MAX];

static int exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static void find_shim(void)
{
	const char *e = getenv("SYMLAZY_TEST_SO");
	char dir[PATH_MAX - 64], *slash;

	if (e && *e) {
		snprintf(so_path, sizeof(so_path), "%s", e);
		return;
	}
	snprintf(dir, sizeof(dir), "%s", self);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	snprintf(so_path, sizeof(so_path), "%s/libsymlazy.so", dir);
	if (!exists(so_path))
		snprintf(so_path, sizeof(so_path), "%s/../libsymlazy.so", dir);
}

/* Build-id and a few lookup addresses (file offsets of about 40 functions
 * per table, start and start+1) of @path, appended to @out as SYMLAZY_ADDRS
 * lines. */
static int write_addrs(const char *path, FILE *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), n = 0;
	Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	Elf_Scn *scn = NULL;
	char hex[41] = "";
	size_t phnum = 0;

	if (!e) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_rawdata(scn, NULL);
		if (d && d->d_size >= 16 + 20) {
			const unsigned char *p = d->d_buf;
			uint32_t namesz, descsz, type;

			memcpy(&namesz, p, 4);
			memcpy(&descsz, p + 4, 4);
			memcpy(&type, p + 8, 4);
			if (type == 3 && namesz == 4 && descsz <= 20 && 16 + descsz <= d->d_size) {
				for (uint32_t i = 0; i < descsz; i++)
					sprintf(hex + 2 * i, "%02x", p[16 + i]);
				break;
			}
		}
	}
	elf_getphdrnum(e, &phnum);
	while (hex[0] && (scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		size_t nsym = sh.sh_size / sh.sh_entsize, stride = nsym / 40 + 1;

		for (size_t i = 1; i < nsym; i += stride) {
			GElf_Sym s;

			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_value)
				continue;
			for (size_t k = 0; k < phnum; k++) {
				GElf_Phdr ph;

				if (gelf_getphdr(e, (int)k, &ph) && ph.p_type == PT_LOAD &&
				    s.st_value >= ph.p_vaddr && s.st_value < ph.p_vaddr + ph.p_memsz) {
					uint64_t off = s.st_value - (ph.p_vaddr - ph.p_offset);

					fprintf(out, "%s %llx\n%s %llx\n", hex, (unsigned long long)off, hex,
						(unsigned long long)off + 1);
					n++;
					break;
				}
			}
		}
	}
	elf_end(e);
	close(fd);
	return n;
}

static int run_cmd(const char *cmd)
{
	int r = system(cmd);

	return WIFEXITED(r) ? WEXITSTATUS(r) : 128;
}

static int setup(void **state)
{
	static const char *cands[] = {
		"/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libstdc++.so.6",
		"/lib/x86_64-linux-gnu/libelf.so.1", "/lib/x86_64-linux-gnu/libm.so.6",
		"/lib/x86_64-linux-gnu/libz.so.1", "/lib/x86_64-linux-gnu/libzstd.so.1",
		"/lib/x86_64-linux-gnu/libdw.so.1", "/lib/x86_64-linux-gnu/libcrypto.so.3",
		"/lib/x86_64-linux-gnu/libcmocka.so.0", "/lib/x86_64-linux-gnu/liblzma.so.5",
		"/lib/x86_64-linux-gnu/libgcc_s.so.1", "/lib/x86_64-linux-gnu/libbz2.so.1.0",
	};
	static char fixture[PATH_MAX], cmd[4 * PATH_MAX];
	char *slash;
	FILE *f;
	size_t i;

	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/symlazy-threads-XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	find_shim();
	if (!exists(so_path)) {
		fprintf(stderr, "test_threads: shim %s not found (make first)\n", so_path);
		return -1;
	}
	/* the generated fixture: build/fixture/main from build/tests/ or build/<san>/ */
	snprintf(fixture, sizeof(fixture), "%s", self);
	slash = strrchr(fixture, '/');
	if (slash) {
		snprintf(slash, sizeof(fixture) - (size_t)(slash - fixture), "/../fixture/main");
		if (exists(fixture) && getenv("SYMLAZY_TEST_NO_FIXTURE") == NULL)
			files[nfiles++] = fixture;
	}
	for (i = 0; i < sizeof(cands) / sizeof(cands[0]) && nfiles < 8; i++)
		if (exists(cands[i]))
			files[nfiles++] = cands[i];
	if (nfiles < 2)
		return -1;
	snprintf(cmd, sizeof(cmd), "%s/addrs", tmpdir);
	f = fopen(cmd, "w");
	if (!f)
		return -1;
	for (i = 0; i < (size_t)nfiles; i++)
		write_addrs(files[i], f);
	fclose(f);

	/* eq.so: EQ_SYMS functions whose names all have 9 bytes, no .symtab */
	snprintf(cmd, sizeof(cmd), "%s/eq.s", tmpdir);
	f = fopen(cmd, "w");
	if (!f)
		return -1;
	fprintf(f, "\t.text\n");
	for (i = 0; i < EQ_SYMS; i++)
		fprintf(f, "\t.globl fn_%06zu\n\t.type fn_%06zu,@function\nfn_%06zu:\n\tret\n\t.size fn_%06zu,1\n",
			i, i, i, i);
	fprintf(f, "\t.section .note.GNU-stack,\"\",@progbits\n");
	fclose(f);
	snprintf(eq_so, sizeof(eq_so), "%s/eq.so", tmpdir);
	snprintf(cmd, sizeof(cmd), "cc -shared -nostdlib -Wl,--build-id -Wl,--strip-all -o %s %s/eq.s", eq_so, tmpdir);
	if (run_cmd(cmd) != 0)
		eq_so[0] = '\0';
	/* eight copies (eight files: the budget charges a file once per process) */
	for (i = 0; i < 8 && eq_so[0]; i++) {
		snprintf(cmd, sizeof(cmd), "cp %s %s/eq%zu.so", eq_so, tmpdir, i);
		if (run_cmd(cmd) != 0)
			eq_so[0] = '\0';
	}

	/* a runtime file and its separate debug file (same build-id) */
	snprintf(cmd, sizeof(cmd),
		 "cd %s && printf '%s' > p.c && cc -O1 -shared -fPIC -Wl,--build-id -o pair.so p.c && "
		 "objcopy --only-keep-debug pair.so pair.debug && strip -s pair.so",
		 tmpdir,
		 "int a1(int x){return x+1;}\\nint a2(int x){return x*2;}\\n"
		 "static int h(int x){return x^7;}\\nint a3(int x){return h(x)+a1(x);}\\n"
		 "int a4(int x){return a2(x)-a3(x);}\\n");
	if (run_cmd(cmd) == 0) {
		snprintf(pair_rt, sizeof(pair_rt), "%s/pair.so", tmpdir);
		snprintf(pair_dbg, sizeof(pair_dbg), "%s/pair.debug", tmpdir);
		snprintf(cmd, sizeof(cmd), "%s/pair.addrs", tmpdir);
		f = fopen(cmd, "w");
		if (f) {
			write_addrs(pair_dbg, f);
			fclose(f);
		}
	}
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return run_cmd(cmd);
}

/* Run a child with the shim preloaded and @env ("NAME=value", NULL-ended)
 * added; its stdout goes to @out. Returns the wait status. */
static int run_child(char *const *cargs, const char *const *env, const char *out)
{
	char *envp[512], lp[PATH_MAX + 64];
	char *argv[64];
	int n = 0, i, st = 0;
	pid_t pid;

	for (i = 0; environ[i] && n < 480; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) && strncmp(environ[i], "SYMLAZY_", 8))
			envp[n++] = environ[i];
	snprintf(lp, sizeof(lp), "LD_PRELOAD=%s", so_path);
	envp[n++] = lp;
	for (i = 0; env[i] && n < 510; i++)
		envp[n++] = (char *)env[i];
	envp[n] = NULL;
	argv[0] = self;
	argv[1] = (char *)"--child";
	for (i = 0; cargs[i] && i < 60; i++)
		argv[i + 2] = cargs[i];
	argv[i + 2] = NULL;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(127);
		execve(self, argv, envp);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return st;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* The number after "key": in @json, searched from @from (NULL = start). */
static long long json_num(const char *json, const char *from, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(from ? from : json, pat);
	return p ? atoll(p + strlen(pat)) : -1;
}

static int count_str(const char *s, const char *needle)
{
	int n = 0;

	while (s && (s = strstr(s, needle)) != NULL) {
		n++;
		s++;
	}
	return n;
}

/* SYMLAZY_TEST_SKIP="test_a test_b": skip those tests (used to run a test
 * with a known, reported bug separately). */
static void maybe_skip(const char *name)
{
	const char *e = getenv("SYMLAZY_TEST_SKIP");
	size_t n = strlen(name);

	while (e && (e = strstr(e, name)) != NULL) {
		if (e[n] == '\0' || e[n] == ' ' || e[n] == ',')
			skip();
		e += n;
	}
}

static void expect_clean_exit(int st, const char *what)
{
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		if (WIFSIGNALED(st))
			fail_msg("%s: child killed by signal %d", what, WTERMSIG(st));
		fail_msg("%s: child exited %d (sanitizer report or check failure; see stderr)", what,
			 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	}
}

/* Sorted unique lines of a file, as one string (for comparing outputs). */
static char *sorted_lines(const char *path)
{
	char cmd[PATH_MAX + 64], out[PATH_MAX + 16];

	snprintf(out, sizeof(out), "%s.sorted", path);
	snprintf(cmd, sizeof(cmd), "sort -u %s > %s", path, out);
	if (run_cmd(cmd) != 0)
		return NULL;
	return slurp(out);
}

/* Every (file, table) line must appear with a single value. */
static void expect_consistent(const char *sorted, const char *what)
{
	const char *p = sorted, *q;
	char prev[PATH_MAX + 16] = "";

	while (p && *p) {
		char key[PATH_MAX + 16];
		const char *sp;

		q = strchr(p, '\n');
		if (!q)
			break;
		sp = strchr(p, ' ');
		sp = sp && sp < q ? strchr(sp + 1, ' ') : NULL;
		if (sp && sp < q) {
			snprintf(key, sizeof(key), "%.*s", (int)(sp - p), p);
			if (!strcmp(key, prev))
				fail_msg("%s: threads saw different symbols for %s", what, key);
			snprintf(prev, sizeof(prev), "%s", key);
		}
		if (!strncmp(p, "MISMATCH", 8) || strstr(p, " unreadable"))
			fail_msg("%s: %.*s", what, (int)(q - p), p);
		p = q + 1;
	}
}

static void test_scan_concurrent(void **state)
{
	char out8[PATH_MAX], out1[PATH_MAX], stats[PATH_MAX], envs[4][PATH_MAX + 32];
	char *args[MAXF + 4], n8[8];
	const char *env[6];
	char *a, *b, *js;
	int st, i;

	(void)state;
	maybe_skip(__func__);
	snprintf(envs[0], sizeof(envs[0]), "SYMLAZY_ADDRS=%s/addrs", tmpdir);
	snprintf(envs[1], sizeof(envs[1]), "SYMLAZY_CACHE_DIR=%s/cache", tmpdir);
	snprintf(envs[2], sizeof(envs[2]), "SYMLAZY_STATS=%s/scan8.json", tmpdir);
	snprintf(envs[3], sizeof(envs[3]), "SYMLAZY_MAX_BYTES=1G");
	for (i = 0; i < 4; i++)
		env[i] = envs[i];
	env[4] = NULL;
	snprintf(n8, sizeof(n8), "%d", nfiles);
	args[0] = (char *)"scan";
	args[1] = (char *)"3";
	args[2] = n8;
	for (i = 0; i < nfiles; i++)
		args[3 + i] = (char *)files[i];
	args[3 + nfiles] = NULL;
	snprintf(out8, sizeof(out8), "%s/scan8.out", tmpdir);
	st = run_child(args, env, out8);
	expect_clean_exit(st, "8 threads");
	/* the same files by one thread, warm cache */
	args[1] = (char *)"1";
	args[2] = (char *)"1";
	snprintf(envs[2], sizeof(envs[2]), "SYMLAZY_STATS=%s/scan1.json", tmpdir);
	snprintf(out1, sizeof(out1), "%s/scan1.out", tmpdir);
	st = run_child(args, env, out1);
	expect_clean_exit(st, "1 thread");
	a = sorted_lines(out8);
	b = sorted_lines(out1);
	assert_non_null(a);
	assert_non_null(b);
	expect_consistent(a, "8 threads");
	assert_string_equal(a, b);
	snprintf(stats, sizeof(stats), "%s/scan8.json", tmpdir);
	js = slurp(stats);
	assert_non_null(js);
	print_message("scan_concurrent: %d files; stats: lazy scans %d, budget scans %d, passed %lld, charged %lld\n",
		      nfiles, count_str(js, "\"mode\":\"lazy\""), count_str(js, "\"mode\":\"budget\""),
		      json_num(js, strstr(js, "\"totals\""), "passed"), json_num(js, NULL, "charged_bytes"));
	assert_true(count_str(js, "\"mode\":\"lazy\"") >= 1);
	assert_int_equal(json_num(js, strstr(js, "\"totals\""), "dropped") >= 0, 1);
	free(a);
	free(b);
	free(js);
}

static void test_scan_same_file(void **state)
{
	char out[PATH_MAX], envs[3][PATH_MAX + 32], *a, *js;
	char *args[16];
	const char *env[4];
	int st, i;

	(void)state;
	maybe_skip(__func__);
	snprintf(envs[0], sizeof(envs[0]), "SYMLAZY_ADDRS=%s/addrs", tmpdir);
	snprintf(envs[1], sizeof(envs[1]), "SYMLAZY_CACHE_DIR=%s/cache-same", tmpdir);
	snprintf(envs[2], sizeof(envs[2]), "SYMLAZY_STATS=%s/same.json", tmpdir);
	for (i = 0; i < 3; i++)
		env[i] = envs[i];
	env[3] = NULL;
	args[0] = (char *)"scan";
	args[1] = (char *)"2";
	args[2] = (char *)"8";
	args[3] = (char *)files[0];
	args[4] = NULL;
	snprintf(out, sizeof(out), "%s/same.out", tmpdir);
	st = run_child(args, env, out);
	expect_clean_exit(st, "8 threads, one file");
	a = sorted_lines(out);
	assert_non_null(a);
	expect_consistent(a, "8 threads, one file");
	assert_int_equal(count_str(a, "\n"), 2);      /* one symtab and one dynsym line */
	snprintf(out, sizeof(out), "%s/same.json", tmpdir);
	js = slurp(out);
	assert_non_null(js);
	assert_true(count_str(js, "\"mode\":\"lazy\"") >= 1);
	free(a);
	free(js);
}

static void test_budget_exact(void **state)
{
	const long long K = 3001, N = 8;
	char out[PATH_MAX], envs[3][PATH_MAX + 32], *js, *o, *p, eqs[8][PATH_MAX];
	char *args[16];
	const char *env[4];
	long long named = 0;
	int st, i;

	(void)state;
	maybe_skip(__func__);
	if (!eq_so[0])
		skip();
	for (i = 0; i < 8; i++)
		snprintf(eqs[i], sizeof(eqs[i]), "%s/eq%d.so", tmpdir, i);
	snprintf(envs[0], sizeof(envs[0]), "SYMLAZY_MAX_BYTES=%lld", K * EQ_COST + EQ_COST - 1);
	snprintf(envs[1], sizeof(envs[1]), "SYMLAZY_LAZY=off");
	snprintf(envs[2], sizeof(envs[2]), "SYMLAZY_STATS=%s/budget.json", tmpdir);
	for (i = 0; i < 3; i++)
		env[i] = envs[i];
	env[3] = NULL;
	args[0] = (char *)"scan";
	args[1] = (char *)"1";
	args[2] = (char *)"8";
	for (i = 0; i < 8; i++)
		args[3 + i] = eqs[i];
	args[11] = NULL;
	snprintf(out, sizeof(out), "%s/budget.out", tmpdir);
	st = run_child(args, env, out);
	expect_clean_exit(st, "budget");
	o = slurp(out);
	assert_non_null(o);
	for (p = o; (p = strstr(p, " dynsym ")) != NULL; p++)
		named += atoll(p + 8);
	snprintf(out, sizeof(out), "%s/budget.json", tmpdir);
	js = slurp(out);
	assert_non_null(js);
	print_message("budget_exact: budget %lld B = %lld symbols of %d B: passed %lld, dropped %lld, charged %lld, "
		      "tool saw %lld named symbols\n", K * EQ_COST + EQ_COST - 1, K, EQ_COST,
		      json_num(js, strstr(js, "\"totals\""), "passed"), json_num(js, strstr(js, "\"totals\""), "dropped"),
		      json_num(js, NULL, "charged_bytes"), named);
	assert_int_equal(json_num(js, strstr(js, "\"totals\""), "passed"), K);
	assert_int_equal(json_num(js, strstr(js, "\"totals\""), "dropped"), N * EQ_SYMS - K);
	assert_int_equal(json_num(js, NULL, "charged_bytes"), K * EQ_COST);
	assert_int_equal(named, K);
	free(o);
	free(js);
}

static void test_perf_top(void **state)
{
	char out[PATH_MAX], envs[3][PATH_MAX + 32], secs[16], *o;
	char *args[MAXF + 4];
	const char *env[4], *s = getenv("SYMLAZY_TEST_SECONDS");
	int st, i;

	(void)state;
	maybe_skip(__func__);
	snprintf(envs[0], sizeof(envs[0]), "SYMLAZY_ADDRS=%s/addrs", tmpdir);
	snprintf(envs[1], sizeof(envs[1]), "SYMLAZY_CACHE_DIR=%s/cache", tmpdir);
	snprintf(envs[2], sizeof(envs[2]), "SYMLAZY_MAX_BYTES=512M");
	for (i = 0; i < 3; i++)
		env[i] = envs[i];
	env[3] = NULL;
	snprintf(secs, sizeof(secs), "%s", s && *s ? s : "2");
	args[0] = (char *)"top";
	args[1] = secs;
	/* skip the big fixture: many short loads are the point here */
	for (i = 1; i < nfiles; i++)
		args[1 + i] = (char *)files[i];
	args[1 + nfiles] = NULL;
	snprintf(out, sizeof(out), "%s/top.out", tmpdir);
	st = run_child(args, env, out);
	o = slurp(out);
	print_message("perf_top: %s", o ? o : "(no output)\n");
	free(o);
	expect_clean_exit(st, "perf top pattern");
}

static void debug_pair(const char *mmap_env)
{
	char out[PATH_MAX], envs[3][PATH_MAX + 32], *a, *js;
	char *args[16];
	const char *env[5];
	int st, i, nlazy;

	if (!pair_dbg[0])
		skip();
	snprintf(envs[0], sizeof(envs[0]), "SYMLAZY_ADDRS=%s/pair.addrs", tmpdir);
	snprintf(envs[1], sizeof(envs[1]), "SYMLAZY_CACHE_DIR=off");
	snprintf(envs[2], sizeof(envs[2]), "SYMLAZY_STATS=%s/pair.json", tmpdir);
	for (i = 0; i < 3; i++)
		env[i] = envs[i];
	env[3] = mmap_env;
	env[4] = NULL;
	/* 1. perf's way, 8 threads at once: each thread keeps the runtime file
	 * open while it scans the debug file, so the plan is lazy every time */
	args[0] = (char *)"pairs";
	args[1] = (char *)"6";
	args[2] = (char *)"8";
	args[3] = pair_dbg;
	args[4] = pair_rt;
	args[5] = NULL;
	snprintf(out, sizeof(out), "%s/pairs.out", tmpdir);
	st = run_child(args, env, out);
	expect_clean_exit(st, "debug pair, same thread");
	a = sorted_lines(out);
	assert_non_null(a);
	expect_consistent(a, "debug pair, same thread");
	free(a);
	snprintf(out, sizeof(out), "%s/pair.json", tmpdir);
	js = slurp(out);
	assert_non_null(js);
	nlazy = count_str(js, "\"table\":\"symtab\",\"mode\":\"lazy\"");
	print_message("debug_pair (%s): runtime file open in the same thread: %d of 48 debug-file scans lazy\n",
		      mmap_env, nlazy);
	assert_int_equal(nlazy, 48);
	free(js);
	/* 2. debug and runtime files in different threads: a thread must not
	 * touch another thread's Elf (libelf does no locking), so the debug
	 * file gets no runtime layout and is loaded in full */
	args[0] = (char *)"scanany";
	args[1] = (char *)"12";
	args[2] = (char *)"8";
	args[3] = pair_dbg;
	args[4] = pair_rt;
	args[5] = NULL;
	snprintf(out, sizeof(out), "%s/pair.out", tmpdir);
	st = run_child(args, env, out);
	expect_clean_exit(st, "debug pair, other threads");
	a = sorted_lines(out);
	assert_non_null(a);
	assert_null(strstr(a, "unreadable"));
	assert_true(count_str(a, "\n") <= 6);        /* <= 2 answers per table */
	snprintf(out, sizeof(out), "%s/pair.json", tmpdir);
	js = slurp(out);
	assert_non_null(js);
	print_message("debug_pair (%s): runtime file in other threads: %d lazy, %d eager debug-file scans\n", mmap_env,
		      count_str(js, "\"table\":\"symtab\",\"mode\":\"lazy\""),
		      count_str(js, "\"table\":\"symtab\",\"mode\":\"eager\""));
	free(js);
	free(a);
}

static void test_debug_pair(void **state)
{
	(void)state;
	maybe_skip(__func__);
	debug_pair("SYMLAZY_MMAP=1");
}

/* ELF_C_READ: libelf loads program headers and note data into the heap on
 * first use, so another thread's reads of an Elf race with its owner's. */
static void test_debug_pair_nommap(void **state)
{
	(void)state;
	maybe_skip(__func__);
	debug_pair("SYMLAZY_MMAP=0");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scan_concurrent),
		cmocka_unit_test(test_scan_same_file),
		cmocka_unit_test(test_budget_exact),
		cmocka_unit_test(test_perf_top),
		cmocka_unit_test(test_debug_pair),
		cmocka_unit_test(test_debug_pair_nommap),
	};
	ssize_t n;

	if (argc >= 2 && !strcmp(argv[1], "--child"))
		return child_main(argc - 2, argv + 2);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = '\0';
	elf_version(EV_CURRENT);
	return cmocka_run_group_tests_name("threads", tests, setup, teardown);
}
