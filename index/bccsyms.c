/* SPDX-License-Identifier: MIT */
/*
 * bccsyms.c - libbcc 0.26's ProcSyms answered from a shared index (bccsyms.h).
 * Every rule below names the bcc function it mirrors (iovisor/bcc v0.26.0).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "index/bccsyms.h"
#include "index/elfx.h"
#include "util/util.h"

void sl_bcc_registry_init(struct sl_bcc_registry *r, const struct elf_ops *ops,
			  const char *(*getenv_fn)(const char *))
{
	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->lock, NULL);
	r->ops = ops;
	r->getenv_fn = getenv_fn;
}

static int same_id(const struct sl_file_id *a, const struct sl_file_id *b)
{
	if (a->valid != b->valid)
		return 0;
	if (!a->valid)
		return 1;
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec;
}

static int stat_id(const char *path, struct sl_file_id *id)
{
	struct stat st;

	memset(id, 0, sizeof(*id));
	if (stat(path, &st) < 0)
		return -errno;
	sl_file_id_from_stat(id, &st);
	return 0;
}

/* bcc_elf.c bcc_elf_file_open(): open(O_RDONLY) + elf_begin(ELF_C_READ)
 * (read through the page cache here: ELF_C_READ_MMAP gives the same view). */
static Elf *open_elf(const struct elf_ops *ops, const char *path, int *fd)
{
	Elf *e;

	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	if (ops->elf_version(EV_CURRENT) == EV_NONE)
		goto fail;
	e = ops->elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (e)
		return e;
fail:
	close(*fd);
	*fd = -1;
	return NULL;
}

static void close_elf(const struct elf_ops *ops, Elf *e, int fd)
{
	if (e)
		ops->elf_end(e);
	if (fd >= 0)
		close(fd);
}

/* bcc_elf.c get_section_elf_data(): data of the first section named @name. */
static Elf_Data *section_data(const struct elf_ops *ops, Elf *e, const char *name)
{
	Elf_Scn *scn;

	if (!sl_elf_section(ops, e, name, &scn, NULL))
		return NULL;
	return ops->elf_getdata(scn, NULL);
}

/* The CRC-32 of .gnu_debuglink (bcc_elf.c gnu_debuglink_crc32, the one of
 * https://sourceware.org/gdb/onlinedocs/gdb/Separate-Debug-Files.html). */
static uint32_t crc32_gnu(uint32_t crc, const unsigned char *p, size_t n)
{
	static uint32_t table[256];
	static int init;

	if (!init) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
		init = 1;
	}
	crc = ~crc;
	for (size_t i = 0; i < n; i++)
		crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* bcc_elf.c verify_checksum() */
static int crc_ok(const char *path, uint32_t want)
{
	struct stat st;
	void *buf;
	uint32_t got;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || st.st_size <= 0) {
		close(fd);
		return 0;
	}
	buf = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (buf == MAP_FAILED)
		return 0;
	got = crc32_gnu(0, buf, (size_t)st.st_size);
	munmap(buf, (size_t)st.st_size);
	return got == want;
}

/* bcc_elf.c bcc_elf_file_open() succeeds? */
static int can_open_elf(const struct elf_ops *ops, const char *path)
{
	int fd;
	Elf *e = open_elf(ops, path, &fd);

	close_elf(ops, e, fd);
	return e != NULL;
}

/* bcc_elf.c try_open_debuglink_candidate() */
static int try_debuglink(const struct elf_ops *ops, const char *path, int check_crc, uint32_t crc)
{
	if (access(path, F_OK))
		return 0;
	if (check_crc && !crc_ok(path, crc))
		return 0;
	return can_open_elf(ops, path);
}

/* bcc_elf.c same_file() */
static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (stat(a, &sa) || stat(b, &sb))
		return 0;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int sl_bcc_find_debug(const struct elf_ops *ops, Elf *elf, const char *path, int check_crc,
		      const char *(*getenv_fn)(const char *), char *out, size_t n)
{
	const char *symfs = getenv_fn ? getenv_fn("BCC_SYMFS") : NULL;
	const char *root;
	Elf_Data *d;
	char hex[128], tmp[PATH_MAX], *bindir;
	uint32_t crc;

	/* find_debug_via_symfs(): not mirrored */
	if (symfs && *symfs)
		return -1;
	/* find_debug_via_buildid(): find_buildid() reads .note.gnu.build-id by name */
	d = section_data(ops, elf, ".note.gnu.build-id");
	if (d && d->d_buf && d->d_size > 16 && !memcmp((const char *)d->d_buf + 12, "GNU", 4)) {
		const unsigned char *b = (const unsigned char *)d->d_buf + 16;
		size_t len = d->d_size - 16;

		if (len * 2 + 1 > sizeof(hex))
			return -1;          /* bcc's buffer overflows */
		for (size_t i = 0; i < len; i++)
			snprintf(hex + i * 2, 3, "%02x", b[i]);
		root = getenv_fn ? getenv_fn("BCC_DEBUGINFO_ROOT") : NULL;
		if (!root)
			root = "/usr/lib/debug";
		snprintf(out, n, "%s/.build-id/%c%c/%s.debug", root, hex[0], hex[1], hex + 2);
		if (can_open_elf(ops, out))
			return 1;
	}
	/* find_debug_via_debuglink() */
	d = section_data(ops, elf, ".gnu_debuglink");
	if (d && d->d_buf && d->d_size > 5) {
		const char *name = d->d_buf;

		if (!memchr(name, '\0', d->d_size))
			return -1;
		memcpy(&crc, (const char *)d->d_buf + d->d_size - 4, 4);
		snprintf(tmp, sizeof(tmp), "%s", path);
		bindir = dirname(tmp);
		snprintf(out, n, "%s/%s", bindir, name);
		if (!same_file(out, path) && try_debuglink(ops, out, check_crc, crc))
			return 1;
		snprintf(out, n, "%s/.debug/%s", bindir, name);
		if (try_debuglink(ops, out, check_crc, crc))
			return 1;
		snprintf(out, n, "/usr/lib/debug%s/%s", bindir, name);
		if (try_debuglink(ops, out, check_crc, crc))
			return 1;
	}
	/* find_debug_via_mini_debug_info() / _debuginfod(): Debian's libbcc has
	 * neither (no liblzma, no libdebuginfod); elsewhere they may answer */
	if (section_data(ops, elf, ".gnu_debugdata"))
		return -1;
	if (getenv_fn && getenv_fn("DEBUGINFOD_URLS") && *getenv_fn("DEBUGINFOD_URLS"))
		return -1;
	out[0] = '\0';
	return 0;
}

/* ---- index build -------------------------------------------------------- */

struct build {
	struct sl_bcc_ent *e;
	size_t n, cap;
};

/* Upper bound of the symbols bcc may list from @e (sum of table sizes). */
static size_t count_syms(const struct elf_ops *ops, Elf *e)
{
	Elf_Scn *scn = NULL;
	size_t total = 0;

	while ((scn = ops->elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;

		if (!ops->gelf_getshdr(scn, &sh))
			continue;
		if ((sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) && sh.sh_entsize)
			total += sh.sh_size / sh.sh_entsize + 1;
	}
	return total;
}

/* bcc_elf.c listsymbols() + list_in_scn() for one file. */
static int list_file(const struct elf_ops *ops, Elf *e, int file, const struct sl_bcc_option *opt,
		     uint64_t fsize, struct build *b, struct sl_why *why,
		     struct sl_bcc_index *tabs_of)
{
	__typeof__(tabs_of->tabs[0]) *out_tabs = tabs_of ? tabs_of->tabs : NULL;
	unsigned *out_ntabs = tabs_of ? &tabs_of->ntabs : NULL;

	Elf_Scn *scn = NULL;

	while ((scn = ops->elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh, strsh;
		Elf_Data *data = NULL;
		Elf_Scn *strscn;

		if (!ops->gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
			continue;
		if (!sh.sh_entsize) {
			sl_why_set(why, SL_R_BCC_TABLE, "symbol table with sh_entsize 0");
			return -1;          /* bcc divides by it */
		}
		if (out_tabs && *out_ntabs < 8) {
			out_tabs[*out_ntabs].file = (uint8_t)file;
			out_tabs[*out_ntabs].shndx = (uint16_t)ops->elf_ndxscn(scn);
			out_tabs[*out_ntabs].nsyms = (uint32_t)(sh.sh_size / sh.sh_entsize);
			(*out_ntabs)++;
		} else if (out_tabs) {
			sl_why_set(why, SL_R_BCC_TABLE, "more than 8 symbol tables");
			return -1;
		}
		/* names are read later from the file at the string table's
		 * sh_offset: only right when libelf gives those bytes as they are */
		memset(&strsh, 0, sizeof(strsh));
		strscn = ops->elf_getscn(e, sh.sh_link);
		if (strscn && ops->gelf_getshdr(strscn, &strsh) && strsh.sh_size &&
		    ((strsh.sh_flags & SHF_COMPRESSED) || strsh.sh_type == SHT_NOBITS ||
		     strsh.sh_offset + strsh.sh_size > fsize)) {
			sl_why_set(why, SL_R_BCC_TABLE, "string table not readable in place");
			return -1;
		}
		while ((data = ops->elf_getdata(scn, data)) != NULL) {
			size_t count = data->d_size / sh.sh_entsize;

			if (data->d_size % sh.sh_entsize)
				return 0;   /* list_in_scn returns -1: listsymbols stops */
			for (size_t i = 0; i < count; i++) {
				GElf_Sym sym;
				const char *name;
				struct sl_bcc_ent *x;

				if (!ops->gelf_getsym(data, (int)i, &sym))
					continue;
				name = ops->elf_strptr(e, sh.sh_link, sym.st_name);
				if (!name || !name[0] || sym.st_value == 0)
					continue;
				if (!(opt->use_symbol_type & (1u << (GELF_ST_TYPE(sym.st_info) & 0xf))))
					continue;
				if (b->n == b->cap) {
					sl_why_set(why, SL_R_BCC_TABLE, "symbol count past the table sizes");
					return -1;
				}
				x = &b->e[b->n];
				x->start = sym.st_value;
				x->size = sym.st_size;
				x->name_off = strsh.sh_offset + sym.st_name;
				x->name_len = (uint32_t)strlen(name);
				x->idx = (uint32_t)i;
				x->shndx = (uint16_t)ops->elf_ndxscn(scn);
				x->file = (uint8_t)file;
				x->table = sh.sh_type == SHT_DYNSYM;
				x->seq = (uint32_t)b->n;
				b->n++;
			}
		}
	}
	return 0;
}

static const char *map_file(const char *path, size_t *size)
{
	struct stat st;
	void *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*size = 0;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || st.st_size <= 0) {
		close(fd);
		return NULL;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	*size = (size_t)st.st_size;
	return p;
}

int sl_bcc_index_build(const struct elf_ops *ops, const char *dbg_path, const char *path,
		       const struct sl_bcc_option *opt, struct sl_bcc_index *out)
{
	Elf *e[2] = { NULL, NULL };
	int fd[2] = { -1, -1 }, mfd = -1, r = 0;
	size_t cap = 0;
	struct build b = { 0 };
	void *m;

	memset(out, 0, sizeof(*out));
	out->types = opt->use_symbol_type;
	out->use_debug = opt->use_debug_file;
	out->check_crc = opt->check_debug_file_crc;
	snprintf(out->path[1], sizeof(out->path[1]), "%s", path);
	if (dbg_path && *dbg_path)
		snprintf(out->path[0], sizeof(out->path[0]), "%s", dbg_path);
	for (int f = 0; f < 2; f++) {
		if (!out->path[f][0])
			continue;
		e[f] = open_elf(ops, out->path[f], &fd[f]);
		if (!e[f]) {
			r = -ENOENT;
			goto out;
		}
		{
			struct stat st;

			if (fstat(fd[f], &st) == 0)
				sl_file_id_from_stat(&out->id[f], &st);
		}
		cap += count_syms(ops, e[f]);
		out->map[f] = map_file(out->path[f], &out->map_size[f]);
	}
	out->map_bytes = (cap ? cap : 1) * sizeof(struct sl_bcc_ent);
	mfd = memfd_create("symlazy-bcc", MFD_CLOEXEC);
	if (mfd < 0 || ftruncate(mfd, (off_t)out->map_bytes) < 0) {
		r = -errno;
		goto out;
	}
	m = mmap(NULL, out->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (m == MAP_FAILED) {
		r = -errno;
		goto out;
	}
	b.e = m;
	b.cap = cap;
	/* foreach_sym_core(): the debug file first, then the module */
	for (int f = 0; f < 2 && !out->unmodelable; f++) {
		if (!e[f])
			continue;
		if (list_file(ops, e[f], f, opt, out->map_size[f], &b, &out->why, out) < 0)
			out->unmodelable = 1;
	}
	out->ents = b.e;
	out->n = b.n;
	if (!out->unmodelable)
		sl_bcc_sort(out->ents, out->n);
out:
	if (mfd >= 0)
		close(mfd);
	for (int f = 0; f < 2; f++)
		close_elf(ops, e[f], fd[f]);
	if (r < 0) {
		for (int f = 0; f < 2; f++)
			if (out->map[f])
				munmap((void *)out->map[f], out->map_size[f]);
		out->map[0] = out->map[1] = NULL;
	}
	return r;
}

const char *sl_bcc_name(const struct sl_bcc_index *idx, size_t i)
{
	const struct sl_bcc_ent *x = &idx->ents[i];
	const char *m = idx->map[x->file];

	if (!m || x->name_off + x->name_len >= idx->map_size[x->file])
		return NULL;
	return m + x->name_off;
}

long sl_bcc_find(const struct sl_bcc_index *idx, uint64_t offset)
{
	const struct sl_bcc_ent *e = idx->ents;
	size_t lo = 0, hi = idx->n, it;
	uint64_t limit;

	/* std::upper_bound(syms_, Symbol(nullptr, offset, 0)) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (offset < e[mid].start)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo == 0)
		return -1;
	it = lo - 1;
	limit = e[it].start;
	for (; offset >= e[it].start; --it) {
		if (offset < e[it].start + e[it].size)
			return (long)it;
		if (limit > e[it].start + e[it].size)
			break;
		if (it == 0)
			break;
	}
	return -1;
}

/* ---- registry ----------------------------------------------------------- */

/* The memo entry of (@id, @path); created if missing. Called locked. */
static struct sl_bcc_memo *memo_of(struct sl_bcc_registry *r, const struct sl_file_id *id,
				   const char *path)
{
	struct sl_bcc_memo *m;

	for (m = r->memo; m; m = m->next)
		if (same_id(&m->id, id) && !strcmp(m->path, path))
			return m;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->path = strdup(path);
	if (!m->path) {
		free(m);
		return NULL;
	}
	m->id = *id;
	m->next = r->memo;
	r->memo = m;
	return m;
}

/* find_debug_file() for @path, remembered: 1 found (@dbg, @did set), 0 none,
 * -1 not mirrored or unreadable. */
static int debug_of(struct sl_bcc_registry *r, const char *path, const struct sl_file_id *id,
		    int check_crc, char *dbg, size_t n, struct sl_file_id *did)
{
	struct sl_bcc_memo *m;
	int found, fd;
	Elf *e;

	pthread_mutex_lock(&r->lock);
	m = memo_of(r, id, path);
	if (m && m->dbg_state && m->dbg_crc == check_crc) {
		found = m->dbg_state == 1 ? 1 : m->dbg_state == 2 ? 0 : -1;
		if (found == 1) {
			snprintf(dbg, n, "%s", m->dbg);
			*did = m->dbg_id;
		}
		pthread_mutex_unlock(&r->lock);
		/* the debug file must still be the one found */
		if (found == 1) {
			struct sl_file_id now;

			if (stat_id(dbg, &now) < 0 || !same_id(&now, did))
				goto search;
		}
		return found;
	}
	pthread_mutex_unlock(&r->lock);
search:
	e = open_elf(r->ops, path, &fd);
	if (!e)
		return -1;
	found = sl_bcc_find_debug(r->ops, e, path, check_crc, r->getenv_fn, dbg, n);
	close_elf(r->ops, e, fd);
	if (found == 1 && stat_id(dbg, did) < 0)
		found = -1;
	pthread_mutex_lock(&r->lock);
	m = memo_of(r, id, path);
	if (m) {
		free(m->dbg);
		m->dbg = found == 1 ? strdup(dbg) : NULL;
		m->dbg_state = found == 1 ? (m->dbg ? 1 : 0) : found == 0 ? 2 : -1;
		m->dbg_crc = check_crc;
		if (found == 1)
			m->dbg_id = *did;
	}
	pthread_mutex_unlock(&r->lock);
	return found;
}

const struct sl_bcc_index *sl_bcc_index_get(struct sl_bcc_registry *r, const char *path,
					    const struct sl_bcc_option *opt)
{
	struct sl_bcc_index *x, tmp;
	struct sl_file_id id, did;
	char dbg[PATH_MAX] = "";
	int found = 0;

	if (stat_id(path, &id) < 0)
		return NULL;
	memset(&did, 0, sizeof(did));
	if (opt->use_debug_file) {
		found = debug_of(r, path, &id, opt->check_debug_file_crc, dbg, sizeof(dbg), &did);
		if (found < 0)
			return NULL;
	}
	pthread_mutex_lock(&r->lock);
	for (x = r->head; x; x = x->next) {
		if (x->types == opt->use_symbol_type && same_id(&x->id[1], &id) &&
		    same_id(&x->id[0], &did)) {
			r->reused++;
			pthread_mutex_unlock(&r->lock);
			return x->unmodelable ? NULL : x;
		}
	}
	pthread_mutex_unlock(&r->lock);
	if (sl_bcc_index_build(r->ops, found ? dbg : NULL, path, opt, &tmp) < 0)
		return NULL;
	x = malloc(sizeof(*x));
	if (!x)
		return NULL;
	*x = tmp;
	pthread_mutex_lock(&r->lock);
	x->next = r->head;
	r->head = x;
	r->built++;
	pthread_mutex_unlock(&r->lock);
	return x->unmodelable ? NULL : x;
}

/* ---- ProcSyms ------------------------------------------------------------ */

/* bcc_proc.c bcc_mapping_is_file_backed() */
static int file_backed(const char *name)
{
	static const char *const not_files[] = { "//anon", "/dev/zero", "/anon_hugepage", "[stack",
						 "/SYSV", "[heap]", "[vsyscall]" };

	if (!name[0])
		return 0;
	for (size_t i = 0; i < sizeof(not_files) / sizeof(not_files[0]); i++)
		if (!strncmp(name, not_files[i], strlen(not_files[i])))
			return 0;
	return 1;
}

/* Module type and .text of @path (bcc_syms.cc Module::Module,
 * bcc_elf_get_type, bcc_elf_get_text_scn_info). */
static void type_module(struct sl_bcc_registry *r, struct sl_bcc_mod *m)
{
	struct sl_file_id id;
	struct sl_bcc_memo *mm;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	int fd;
	Elf *e;

	m->kind = SL_BCC_MOD_DELEGATE;
	/* ModulePath::path(): /proc/PID/root/NAME when accessible */
	if (access(m->path, F_OK) < 0 || stat_id(m->path, &id) < 0)
		return;
	pthread_mutex_lock(&r->lock);
	for (mm = r->memo; mm; mm = mm->next) {
		if (mm->kind && same_id(&mm->id, &id)) {
			m->kind = (enum sl_bcc_kind)mm->kind;
			m->text_addr = mm->text_addr;
			m->text_off = mm->text_off;
			pthread_mutex_unlock(&r->lock);
			return;
		}
	}
	pthread_mutex_unlock(&r->lock);
	e = open_elf(r->ops, m->path, &fd);
	if (!e)
		return;
	if (r->ops->gelf_getehdr(e, &eh)) {
		if (eh.e_type == ET_EXEC) {
			m->kind = SL_BCC_MOD_EXEC;
		} else if (eh.e_type == ET_DYN && sl_elf_section(r->ops, e, ".text", NULL, &sh)) {
			m->kind = SL_BCC_MOD_SO;
			m->text_addr = sh.sh_addr;
			m->text_off = sh.sh_offset;
		}
	}
	close_elf(r->ops, e, fd);
	pthread_mutex_lock(&r->lock);
	mm = memo_of(r, &id, m->path);
	if (mm) {
		mm->kind = (int)m->kind;
		mm->text_addr = m->text_addr;
		mm->text_off = m->text_off;
	}
	pthread_mutex_unlock(&r->lock);
}

static struct sl_bcc_mod *module_for(struct sl_bcc_proc *p, struct sl_bcc_registry *r,
				     const char *name, const char *proc_root, int delegate)
{
	struct sl_bcc_mod *m, *nm;
	char path[PATH_MAX * 2];

	for (size_t i = 0; i < p->nmods; i++)
		if (!strcmp(p->mods[i].name, name))
			return &p->mods[i];
	nm = realloc(p->mods, (p->nmods + 1) * sizeof(*nm));
	if (!nm)
		return NULL;
	p->mods = nm;
	m = &p->mods[p->nmods];
	memset(m, 0, sizeof(*m));
	snprintf(path, sizeof(path), "%s/%d/root%s", proc_root, p->pid, name);
	m->name = strdup(name);
	m->path = strdup(path);
	if (!m->name || !m->path) {
		free(m->name);
		free(m->path);
		return NULL;
	}
	p->nmods++;
	if (delegate)
		m->kind = SL_BCC_MOD_DELEGATE;  /* memfd or zip: libbcc answers */
	else
		type_module(r, m);
	return m;
}

int sl_bcc_proc_parse_maps(struct sl_bcc_proc *p, struct sl_bcc_registry *r, const char *maps,
			   const char *proc_root)
{
	const char *line = maps;

	while (line && *line) {
		unsigned long start, end, maj, mnr, ino;
		unsigned long long off;
		char perm[5], buf[PATH_MAX + 1], *name;
		const char *nl = strchr(line, '\n');
		char one[PATH_MAX + 128];
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		struct sl_bcc_mod *m;

		if (len >= sizeof(one))
			return -ENAMETOOLONG;
		memcpy(one, line, len);
		one[len] = '\0';
		line = nl ? nl + 1 : NULL;
		buf[0] = '\0';
		/* _procfs_maps_each_module(): the same conversions; a line that
		 * does not give all 8 ends the list */
		if (sscanf(one, "%lx-%lx %4s %llx %lx:%lx %lu%[^\n]", &start, &end, perm, &off, &maj,
			   &mnr, &ino, buf) != 8)
			break;
		if (perm[2] != 'x')
			continue;
		name = buf;
		while (isspace((unsigned char)*name))
			name++;
		if (!file_backed(name))
			continue;
		/* memfd modules: bcc names them /proc/PID/fd/N; zip modules (a
		 * path holding ".zip" or ".apk"): bcc 0.31 reads the entry at the
		 * mapping's offset (bcc_proc.c _procfs_find_zip_entry,
		 * core/model/bcc031.c): both are left to libbcc */
		m = module_for(p, r, name, proc_root,
			       strstr(name, "/memfd:") || strstr(name, ".zip") || strstr(name, ".apk"));
		if (!m)
			return -ENOMEM;
		if (sl_grow((void **)&m->r, &m->cap, m->nr + 1, sizeof(*m->r), 4) < 0)
			return -ENOMEM;
		m->r[m->nr].start = start;
		m->r[m->nr].end = end;
		m->r[m->nr].file_offset = off;
		m->nr++;
	}
	return 0;
}

/* bcc_perf_map.c bcc_perf_map_nstgid() */
static int nstgid(const char *proc_root, int pid)
{
	char path[PATH_MAX], line[512];
	int v = pid;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/status", proc_root, pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		const char *t = strrchr(line, '\t');

		if ((strstr(line, "Tgid:") || strstr(line, "NStgid:")) && t)
			v = (int)strtol(t, NULL, 10);
	}
	fclose(f);
	return v;
}

/* Would bcc add a perf map module (bcc_procutils_each_module's two
 * candidates, added when readable: bcc_is_valid_perf_map)? Conservative:
 * any of the paths bcc may try is readable. */
static int perf_map_exists(const char *proc_root, int pid, const char *root_target)
{
	char p[PATH_MAX * 2];
	const char *t = strcmp(root_target, "/") ? root_target : "";
	int ns = nstgid(proc_root, pid);

	snprintf(p, sizeof(p), "%s/%d/root%s/tmp/perf-%d.map", proc_root, pid, t, ns);
	if (!access(p, R_OK))
		return 1;
	snprintf(p, sizeof(p), "%s/tmp/perf-%d.map", t, ns);
	if (!access(p, R_OK))
		return 1;
	snprintf(p, sizeof(p), "/tmp/perf-%d.map", pid);
	if (!access(p, R_OK))
		return 1;
	snprintf(p, sizeof(p), "%s/%d/root/tmp/perf-%d.map", proc_root, pid, pid);
	return !access(p, R_OK);
}

static int read_link(const char *path, char *out, size_t n)
{
	ssize_t k = readlink(path, out, n - 1);

	if (k < 0)
		return -errno;
	out[k] = '\0';
	return 0;
}

static char *read_text(const char *path)
{
	size_t cap = 65536, len = 0;
	char *buf = malloc(cap + 1);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (!buf || fd < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	for (;;) {
		ssize_t k;

		if (len == cap) {
			char *nb = realloc(buf, cap * 2 + 1);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		k = read(fd, buf + len, cap - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		len += (size_t)k;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

int sl_bcc_proc_load(struct sl_bcc_proc *p, struct sl_bcc_registry *r, int pid,
		     const struct sl_bcc_option *opt, const char *proc_root)
{
	char path[PATH_MAX], *maps;
	struct stat st;
	int rc;

	memset(p, 0, sizeof(*p));
	p->pid = pid;
	if (opt) {
		p->opt = *opt;
	} else {
		p->opt.use_debug_file = 1;
		p->opt.check_debug_file_crc = 1;
		p->opt.lazy_symbolize = 1;
		p->opt.use_symbol_type = SL_BCC_DEFAULT_TYPES;
	}
	/* ProcStat::ProcStat(): exe inode, root and mount namespace */
	snprintf(path, sizeof(path), "%s/%d/exe", proc_root, pid);
	if (stat(path, &st) == 0) {
		p->exe_ino = st.st_ino;
		p->exe_ino_ok = 1;
	}
	snprintf(path, sizeof(path), "%s/%d/root", proc_root, pid);
	rc = read_link(path, p->root, sizeof(p->root));
	snprintf(path, sizeof(path), "%s/%d/ns/mnt", proc_root, pid);
	if (!rc)
		rc = read_link(path, p->mntns, sizeof(p->mntns));
	snprintf(path, sizeof(path), "%s/%d/maps", proc_root, pid);
	maps = rc ? NULL : read_text(path);
	if (!maps) {
		p->delegate_all = 1;
		return rc ? rc : -errno;
	}
	rc = sl_bcc_proc_parse_maps(p, r, maps, proc_root);
	free(maps);
	if (rc < 0) {
		p->delegate_all = 1;
		return rc;
	}
	p->has_perf_map = perf_map_exists(proc_root, pid, p->root);
	return 0;
}

void sl_bcc_proc_free(struct sl_bcc_proc *p)
{
	for (size_t i = 0; i < p->nmods; i++) {
		free(p->mods[i].name);
		free(p->mods[i].path);
		free(p->mods[i].r);
	}
	free(p->mods);
	p->mods = NULL;
	p->nmods = 0;
}

/* ProcStat::is_stale(): the exe's inode changed and refresh_root() finds a
 * new root or mount namespace (bcc refreshes the modules then). */
static int stale(struct sl_bcc_proc *p)
{
	char path[64], root[PATH_MAX], ns[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/exe", p->pid);
	if (stat(path, &st) < 0 || !p->exe_ino_ok || st.st_ino == p->exe_ino)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/root", p->pid);
	if (read_link(path, root, sizeof(root)))
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", p->pid);
	if (read_link(path, ns, sizeof(ns)))
		return 0;
	return strcmp(root, p->root) || strcmp(ns, p->mntns);
}

int sl_bcc_resolve(struct sl_bcc_proc *p, struct sl_bcc_registry *r, uint64_t addr,
		   struct sl_bcc_symbol *sym, int demangle, sl_bcc_demangle_fn dem)
{
	const char *original = NULL;
	struct sl_bcc_symbol out;

	if (p->delegate_all)
		return SL_BCC_DELEGATE;
	if (stale(p)) {
		p->delegate_all = 1;
		return SL_BCC_DELEGATE;
	}
	memset(&out, 0, sizeof(out));
	for (size_t i = 0; i < p->nmods && !original; i++) {
		struct sl_bcc_mod *m = &p->mods[i];
		uint64_t offset = 0;
		size_t k;
		long hit;

		/* Module::contains(): the first range holding addr */
		for (k = 0; k < m->nr; k++)
			if (addr >= m->r[k].start && addr < m->r[k].end)
				break;
		if (k == m->nr)
			continue;
		if (m->kind == SL_BCC_MOD_DELEGATE)
			return SL_BCC_DELEGATE;
		if (m->kind == SL_BCC_MOD_SO)   /* __so_calc_mod_offset() */
			offset = addr - (m->r[k].start - m->r[k].file_offset) + (m->text_addr - m->text_off);
		else
			offset = addr;
		if (!m->loaded) {
			m->idx = sl_bcc_index_get(r, m->path, &p->opt);
			m->loaded = 1;
		}
		if (!m->idx)
			return SL_BCC_DELEGATE;
		/* Module::find_addr() */
		out.module = m->name;
		out.offset = offset;
		hit = sl_bcc_find(m->idx, offset);
		if (hit >= 0) {
			const char *name = sl_bcc_name(m->idx, (size_t)hit);

			if (!name)
				return SL_BCC_DELEGATE;
			out.name = name;
			out.offset = offset - m->idx->ents[hit].start;
			if (demangle) {
				/* ProcSyms::resolve_addr() */
				if (!strncmp(name, "_Z", 2) || !strncmp(name, "___Z", 4)) {
					if (!dem)
						return SL_BCC_DELEGATE;
					out.demangle_name = dem(name, NULL, NULL, NULL);
				}
				if (!out.demangle_name)
					out.demangle_name = name;
			}
			*sym = out;
			return SL_BCC_FOUND;
		}
		/* found in a module's range but not in its symbols: only perf
		 * maps are tried after it */
		original = m->name;
	}
	if (p->has_perf_map)
		return SL_BCC_DELEGATE;
	if (original)
		out.module = original;
	*sym = out;
	return SL_BCC_NOTFOUND;
}
