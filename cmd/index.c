/* SPDX-License-Identifier: MIT */
/*
 * index.c - `symlazy index`: build the index files the shim maps from its
 * cache directory (index/cache.h), list them, clean them.
 *
 * The index is keyed (index/cache.c sl_cache_key) by the build-id, the
 * identity of the scanned file (fstat: dev, inode, size, mtime), the
 * runtime layout and the table sizes, so it must be built from the very
 * file perf scans, with the src made as core/session.c sl_dso_plan makes
 * it: symindex_src_init(elf, runtime layout, build-id, file id, cache
 * dirfd, demangle, model). perf 6.1 scans the first of these that has the
 * build-id and a .symtab (tools/perf/util/symbol.c dso__load,
 * binary_type_symtab[]; util/dso.c dso__read_binary_type_filename):
 * the .gnu_debuglink target, the build-id cache copy
 * ($HOME/.debug/.build-id/xx/yyyy/elf, `perf record` makes it), its
 * "debug" sibling, /usr/lib/debug/<path>.debug, /usr/lib/debug/<path>,
 * /usr/lib/debug/.build-id/xx/yyyy.debug, then the recorded path. With
 * -i perf.data that search is made for every DSO of the recording.
 * --names builds the name index instead (index/names.h: `symlazy offsets`
 * and the Go package at go/ read it), keyed by the file's identity alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "index/cache.h"
#include "core/models.h"
#include "cli.h"
#include "core/config.h"
#include "core/lookup.h"
#include "index/elfx.h"
#include "perfdata/perfdata.h"
#include "index/symindex.h"

static const char *const SUB = "index";

static const char USAGE[] =
	"usage: symlazy index [--runtime ELF] FILE...\n"
	"       symlazy index --names FILE...\n"
	"       symlazy index -i perf.data\n"
	"       symlazy index --list | --clean\n"
	"Build the symbol indexes the shim maps from its cache directory ($SYMLAZY_CACHE_DIR,\n"
	"else $XDG_CACHE_HOME/symlazy, else ~/.cache/symlazy), so a later perf script/report\n"
	"under the shim starts with a cache hit. An index is keyed by the build-id and the\n"
	"identity of the file perf scans: give that file (perf reads the build-id cache copy\n"
	"~/.debug/.build-id/xx/yyyy/elf, or a separate debug file, before the recorded path),\n"
	"or let -i find them for every DSO of a recording as perf 6.1 does.\n"
	"  -i, --input FILE   index every DSO with samples in this perf.data\n"
	"      --runtime ELF  the runtime ELF (program headers) when FILE is a separate debug file\n"
	"      --names        (re)build the name index of each FILE instead: what symlazy offsets\n"
	"                     and the Go package (go/) map; any ELF executable or shared object,\n"
	"                     with or without a build-id\n"
	"      --list         list the index files: name, bytes, build-id\n"
	"      --clean        remove every index file\n"
	"Exit: 0 ok, 1 a file could not be indexed or the cache is unusable, 2 usage.\n";

static int open_cache(void)
{
	struct symlazy_config cfg;
	struct sl_why why;
	char text[640];
	int fd;

	config_load(&cfg, cli_getenv);
	if (!cfg.cache_dir[0]) {
		cli_err(SUB, "no cache directory (SYMLAZY_CACHE_DIR=off, or HOME unset): nothing to write to");
		return -1;
	}
	fd = sl_cache_dir_open(cfg.cache_dir, &why);
	if (fd < 0) {
		sl_why_format(&why, text, sizeof(text));
		cli_err(SUB, "%s", text);
	}
	return fd;
}

struct elf_file {
	int fd;
	Elf *elf;
	struct stat st;
	unsigned char bid[20];
	int bid_len;
};

static void ef_close(const struct elf_ops *ops, struct elf_file *f)
{
	if (f->elf)
		ops->elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

/* Open @path as an ELF file; 0, or -errno / -EINVAL (not ELF) quietly. */
static int ef_open(const struct elf_ops *ops, const char *path, struct elf_file *f)
{
	int r;

	memset(f, 0, sizeof(*f));
	f->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);   /* a FIFO must not block: checked below */
	if (f->fd < 0)
		return -errno;
	if (fstat(f->fd, &f->st) < 0 || !S_ISREG(f->st.st_mode)) {
		ef_close(ops, f);
		return -EINVAL;
	}
	f->elf = ops->elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || ops->elf_kind(f->elf) != ELF_K_ELF) {
		ef_close(ops, f);
		return -EINVAL;
	}
	r = elf_read_build_id(ops, f->elf, f->bid, sizeof(f->bid));
	f->bid_len = r > 0 ? r : 0;
	return 0;
}

/*
 * Build (or find) the index of @f as the shim would: @lay is the runtime
 * layout. Prints one line. Returns 0 or -1.
 */
static int index_one(const struct elf_ops *ops, int dirfd, const char *path, struct elf_file *f,
		     const struct symidx_layout *lay, const char *note)
{
	struct symidx_src src;
	struct symidx idx;
	struct sl_file_id id;
	char name[128], hex[41];
	int r;

	sl_file_id_from_stat(&id, &f->st);
	if (!symindex_src_init(&src, ops, f->elf, lay, f->bid, (size_t)f->bid_len, &id, dirfd,
			       SYMIDX_DEM_NOOPTS, &sl_model_perf61.sym)) {
		cli_err(SUB, "%s: no .symtab or .dynsym", path);
		return -1;
	}
	r = symindex_open(&src, &idx);
	if (r < 0) {
		cli_err(SUB, "%s: index build failed: %s", path, strerror(-r));
		return -1;
	}
	sl_cache_name(&src, sl_cache_key(&src), name, sizeof(name));
	if (idx.unmodelable)
		printf("%s: %s (%s): perf 6.1 cannot be modelled here (%s): the shim loads it eagerly\n",
		       path, name, idx.from_cache ? "cached" : "built", idx.why);
	else
		printf("%s: %s %s: %u symbols perf keeps in %u groups (.symtab %u, .dynsym %u), build-id %s%s\n",
		       path, idx.from_cache ? "cached" : "built", name, idx.nentries, idx.ngroups, idx.nsymtab,
		       idx.ndynsym, build_id_hex(f->bid, (size_t)f->bid_len, hex), note ? note : "");
	symindex_close(&idx);
	return 0;
}

/* Runtime layout of @f itself, else of @runtime (same build-id required). */
static int layout_for(const struct elf_ops *ops, const char *path, struct elf_file *f, const char *runtime,
		      struct symidx_layout *lay)
{
	struct elf_file rf;
	int ok;

	if (sl_elf_runtime_layout(ops, f->elf, (uint64_t)f->st.st_size, lay))
		return 0;
	if (!runtime) {
		cli_err(SUB, "%s: no runtime ELF with program headers (a separate debug file? give the binary "
			"with --runtime)", path);
		return -1;
	}
	if (ef_open(ops, runtime, &rf) < 0) {
		cli_err(SUB, "%s: cannot open as ELF", runtime);
		return -1;
	}
	if (rf.bid_len != f->bid_len || memcmp(rf.bid, f->bid, (size_t)f->bid_len)) {
		cli_err(SUB, "%s: build-id differs from %s's", runtime, path);
		ef_close(ops, &rf);
		return -1;
	}
	ok = sl_elf_runtime_layout(ops, rf.elf, (uint64_t)rf.st.st_size, lay);
	ef_close(ops, &rf);
	if (!ok)
		cli_err(SUB, "%s: no runtime ELF with program headers", runtime);
	return ok ? 0 : -1;
}

static int index_files(int dirfd, char **files, int n, const char *runtime)
{
	const struct elf_ops *ops = elfops_direct();
	int bad = 0;

	for (int i = 0; i < n; i++) {
		struct elf_file f;
		struct symidx_layout lay;
		int r = ef_open(ops, files[i], &f);

		if (r < 0) {
			cli_err(SUB, "%s: %s", files[i], r == -EINVAL ? "not an ELF file" : strerror(-r));
			bad = 1;
			continue;
		}
		if (!f.bid_len) {
			cli_err(SUB, "%s: no build-id note: the shim keeps such DSOs eager, an index would not be used",
				files[i]);
			bad = 1;
		} else if (sl_elf_is_kernel(ops, f.elf)) {
			cli_err(SUB, "%s: a kernel image or module: the shim never filters those", files[i]);
			bad = 1;
		} else if (layout_for(ops, files[i], &f, runtime, &lay) < 0 ||
			   index_one(ops, dirfd, files[i], &f, &lay, NULL) < 0) {
			bad = 1;
		}
		ef_close(ops, &f);
	}
	return bad ? CLI_FAIL : CLI_OK;
}

/* The name index of each file, rebuilt (a debug file installed since is
 * then picked up). */
static int index_names(int dirfd, char **files, int n)
{
	struct sl_names_opts no = { dirfd, 1 };
	int bad = 0;

	for (int i = 0; i < n; i++) {
		struct sl_names *idx;
		struct sl_names_info info;
		char err[1024];

		if (sl_names_open(files[i], &no, &idx, err, sizeof(err)) < 0) {
			cli_err(SUB, "%s", err);
			bad = 1;
			continue;
		}
		sl_names_get_info(idx, &info);
		printf("%s: built names index: %u symbols, %u names (.symtab %u, .dynsym %u), %llu bytes, build-id %s%s%s\n",
		       files[i], info.nsyms, info.nkeys, info.nsymtab, info.ndynsym,
		       (unsigned long long)info.index_bytes, info.build_id[0] ? info.build_id : "none",
		       info.debug_file[0] ? ", .symtab from " : "", info.debug_file);
		sl_names_close(idx);
	}
	return bad ? CLI_FAIL : CLI_OK;
}

/* ---- -i perf.data: the files perf 6.1 will scan ------------------------------ */

static int has_section_type(const struct elf_ops *ops, Elf *elf, const char *name, Elf64_Word type)
{
	GElf_Shdr sh;

	return sl_elf_section(ops, elf, name, NULL, &sh) && sh.sh_type == type;
}

/* The .gnu_debuglink file name of @elf into @out (util/dso.c
 * filename__read_debuglink: the section's leading string). */
static int debuglink(const struct elf_ops *ops, Elf *elf, char *out, size_t n)
{
	Elf_Scn *scn;
	Elf_Data *d;

	if (!sl_elf_section(ops, elf, ".gnu_debuglink", &scn, NULL) || !(d = ops->elf_getdata(scn, NULL)) ||
	    !d->d_buf || !d->d_size || !memchr(d->d_buf, 0, d->d_size))
		return 0;
	snprintf(out, n, "%s", (const char *)d->d_buf);
	return out[0] != '\0';
}

/* Candidate files for a DSO in perf's order (at most 10); returns the count. */
static int candidates(const struct elf_ops *ops, const char *path, const char *hex, char (*c)[PATH_MAX])
{
	const char *home = getenv("HOME"), *bdir = getenv("PERF_BUILDID_DIR");
	char dir[PATH_MAX], link[PATH_MAX], cache[PATH_MAX];
	struct elf_file f;
	int n = 0;

	if (bdir && *bdir)
		cli_path(cache, "%s", bdir);
	else
		cli_path(cache, "%s/.debug", home ? home : "");
	if (!strcmp(path, "[vdso]")) {
		/* perf's build-id cache copy of the vdso (util/build-id.c
		 * build_id_cache__basename: "vdso" under [vdso]/<build-id>) */
		n += !cli_path(c[n], "%s/[vdso]/%s/vdso", cache, hex);
		n += !cli_path(c[n], "%s/.build-id/%.2s/%s/vdso", cache, hex, hex + 2);
		return n;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	if (strrchr(dir, '/'))
		*strrchr(dir, '/') = '\0';
	if (ef_open(ops, path, &f) == 0) {
		if (debuglink(ops, f.elf, link, sizeof(link))) {
			/* debuglink_paths[] of util/dso.c */
			n += !cli_path(c[n], "%s", link);
			n += !cli_path(c[n], "%s/%s", dir, link);
			n += !cli_path(c[n], "%s/.debug/%s", dir, link);
			n += !cli_path(c[n], "/usr/lib/debug%s/%s", dir, link);
		}
		ef_close(ops, &f);
	}
	n += !cli_path(c[n], "%s/.build-id/%.2s/%s/elf", cache, hex, hex + 2);
	n += !cli_path(c[n], "%s/.build-id/%.2s/%s/debug", cache, hex, hex + 2);
	n += !cli_path(c[n], "/usr/lib/debug%s.debug", path);
	n += !cli_path(c[n], "/usr/lib/debug%s", path);
	n += !cli_path(c[n], "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	n += !cli_path(c[n], "%s", path);
	return n;
}

static int index_perfdata(int dirfd, const char *in)
{
	const struct elf_ops *ops = elfops_direct();
	struct pd_result res;
	char err[512] = "";
	int r, bad = 0, done = 0;

	r = perfdata_read(in, ops, &res, err, sizeof(err));
	if (r < 0) {
		cli_err(SUB, "%s: %s", in, err[0] ? err : strerror(-r));
		return CLI_FAIL;
	}
	for (size_t i = 0; i < res.nr_dsos; i++) {
		const struct pd_dso *dso = &res.dsos[i];
		char cand[10][PATH_MAX], hex[41];
		int nc, syms = -1, run = -1;
		struct elf_file f[10];
		struct symidx_layout lay;

		if (!dso->build_id_size || !dso->path || (dso->path[0] != '/' && strcmp(dso->path, "[vdso]")))
			continue;       /* [kernel.kallsyms], anonymous: nothing to index */
		build_id_hex(dso->build_id, dso->build_id_size, hex);
		nc = candidates(ops, dso->path, hex, cand);
		for (int k = 0; k < nc; k++) {
			f[k].fd = -1;
			f[k].elf = NULL;
			if (ef_open(ops, cand[k], &f[k]) < 0)
				continue;
			if ((unsigned)f[k].bid_len != dso->build_id_size ||
			    memcmp(f[k].bid, dso->build_id, dso->build_id_size)) {
				ef_close(ops, &f[k]);
				continue;
			}
			if (syms < 0 && has_section_type(ops, f[k].elf, ".symtab", SHT_SYMTAB))
				syms = k;
			if (run < 0 && sl_elf_runtime_layout(ops, f[k].elf, (uint64_t)f[k].st.st_size, &lay))
				run = k;
		}
		if (syms < 0) {
			/* no .symtab anywhere: perf scans the runtime file's .dynsym */
			for (int k = 0; k < nc && syms < 0; k++)
				if (f[k].elf && has_section_type(ops, f[k].elf, ".dynsym", SHT_DYNSYM))
					syms = k;
		}
		if (syms < 0 || run < 0) {
			cli_err(SUB, "%s: no readable file with build-id %s%s", dso->path, hex,
				syms >= 0 ? " and program headers" : "");
			bad = 1;
		} else if (sl_elf_is_kernel(ops, f[syms].elf)) {
			/* kernel modules: never filtered */
		} else {
			char note[PATH_MAX + 16] = "";

			sl_elf_runtime_layout(ops, f[run].elf, (uint64_t)f[run].st.st_size, &lay);
			if (strcmp(cand[syms], dso->path))
				snprintf(note, sizeof(note), " (for %s)", dso->path);
			if (index_one(ops, dirfd, cand[syms], &f[syms], &lay, note) < 0)
				bad = 1;
			else
				done++;
		}
		for (int k = 0; k < nc; k++)
			ef_close(ops, &f[k]);
	}
	perfdata_free(&res);
	if (!done && !bad)
		cli_err(SUB, "%s: no user-space DSO with a build-id has samples", in);
	return bad || !done ? CLI_FAIL : CLI_OK;
}

/* ---- --list / --clean ------------------------------------------------------- */

static void list_cb(const char *name, uint64_t bytes, void *ctx)
{
	const char *dash = strchr(name, '-');

	(void)ctx;
	printf("%-62s %12llu  %.*s\n", name, (unsigned long long)bytes,
	       dash && strncmp(name, "nobuildid-", 10) ? (int)(dash - name) : 1,
	       dash && strncmp(name, "nobuildid-", 10) ? name : "-");
}

int cmd_index(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "runtime", required_argument, NULL, 'r' },
		{ "list", no_argument, NULL, 'l' },
		{ "clean", no_argument, NULL, 'c' },
		{ "names", no_argument, NULL, 'N' },
		CLI_OPTS_END,
	};
	const char *in = NULL, *runtime = NULL;
	int c, list = 0, clean = 0, names = 0, fd, rc;

	optind = 1;
	while ((c = cli_getopt(SUB, USAGE, argc, argv, "+:i:h", opts)) != -1) {
		switch (c) {
		case 'i': in = optarg; break;
		case 'r': runtime = optarg; break;
		case 'l': list = 1; break;
		case 'c': clean = 1; break;
		case 'N': names = 1; break;
		case 'h': return CLI_OK;
		default: return CLI_USAGE;
		}
	}
	if (list + clean + !!in + (optind < argc) != 1 || (runtime && (list || clean || in || names)) ||
	    (names && optind >= argc)) {
		cli_err(SUB, "give FILE..., -i perf.data, --list or --clean (one of them; see symlazy index --help)");
		return CLI_USAGE;
	}
	fd = open_cache();
	if (fd < 0)
		return CLI_FAIL;
	if (list) {
		rc = sl_cache_list(fd, list_cb, NULL);
		if (rc < 0)
			cli_err(SUB, "cannot list the cache: %s", strerror(-rc));
		rc = rc < 0 ? CLI_FAIL : CLI_OK;
	} else if (clean) {
		rc = sl_cache_clean(fd);
		if (rc < 0)
			cli_err(SUB, "cannot clean the cache: %s", strerror(-rc));
		else
			printf("removed %d index file%s\n", rc, rc == 1 ? "" : "s");
		rc = rc < 0 ? CLI_FAIL : CLI_OK;
	} else if (in) {
		rc = index_perfdata(fd, in);
	} else if (names) {
		rc = index_names(fd, argv + optind, argc - optind);
	} else {
		rc = index_files(fd, argv + optind, argc - optind, runtime);
	}
	close(fd);
	if (cli_flush_stdout(SUB) != CLI_OK)
		rc = CLI_FAIL;
	return rc;
}
