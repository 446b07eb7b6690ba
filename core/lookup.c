/* SPDX-License-Identifier: MIT */
/*
 * lookup.c - perf 6.1's symbol for a file offset (lookup.h). The proof of
 * a group's answer is the one of index/symindex.c answer(); the survivor of
 * a group follows symbols__fixup_end / symbols__fixup_duplicate /
 * choose_best_symbol of tools/perf/util/symbol.c as index/symindex.c
 * sim_choose does; PLT names follow dso__synthesize_plt_symbols of
 * tools/perf/util/symbol-elf.c. Uses the libelf linked into the program
 * (elfops_direct), so this file is not part of libsymlazy.so. The name
 * lookups at the end answer from index/names.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/elfops.h"
#include "index/elfx.h"
#include "core/lookup.h"
#include "core/models.h"
#include "index/names.h"
#include "index/symindex.h"
#include "util/util.h"

/* perf's sympltname[1024] buffer (symbol-elf.c) cuts longer PLT names. */
#define PLT_NAME_MAX 1024

struct sl_lookup {
	const struct elf_ops *ops;
	const struct sl_model *model;
	int fd, rfd;                 /* rfd: separate runtime ELF, or -1 */
	Elf *elf, *relf;             /* relf == elf without a separate runtime ELF */
	struct symidx_layout lay;
	struct symidx_src src;
	struct symidx idx;
	unsigned char bid[20];
	int bid_len;
	/* PLT synthesis inputs of the runtime ELF (names of the k-th stub) */
	Elf_Data *rel, *rdynsym, *rdynstr;
	int rel_is_rela, is64;
};

static Elf *open_elf(const struct elf_ops *ops, const char *path, int *fdp, struct stat *st,
		     char *err, size_t errsz, int *rc)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);   /* never block on a FIFO */
	Elf *elf;

	*fdp = -1;
	if (fd < 0) {
		*rc = sl_errf(err, errsz, -errno, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		*rc = sl_errf(err, errsz, -EINVAL, "%s: %s", path, "not a regular file");
		return NULL;
	}
	elf = ops->elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || ops->elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			ops->elf_end(elf);
		close(fd);
		*rc = sl_errf(err, errsz, -EINVAL, "%s: %s", path, "not an ELF file");
		return NULL;
	}
	*fdp = fd;
	return elf;
}

/* The .rela.plt (else .rel.plt) data and .dynsym names of the runtime ELF,
 * as dso__synthesize_plt_symbols() finds them. */
static void plt_inputs(struct sl_lookup *l)
{
	const struct elf_ops *ops = l->ops;
	GElf_Ehdr eh;
	GElf_Shdr rsh, dsh;
	Elf_Scn *rs, *ds, *ss;

	if (!l->lay.plt_ok || !ops->gelf_getehdr(l->relf, &eh))
		return;
	l->is64 = eh.e_ident[EI_CLASS] == ELFCLASS64;
	if (!sl_elf_section(ops, l->relf, ".rela.plt", &rs, &rsh) &&
	    !sl_elf_section(ops, l->relf, ".rel.plt", &rs, &rsh))
		return;
	if (!sl_elf_section(ops, l->relf, ".dynsym", &ds, &dsh) || dsh.sh_type != SHT_DYNSYM)
		return;
	ss = ops->elf_getscn(l->relf, dsh.sh_link);
	l->rel_is_rela = rsh.sh_type == SHT_RELA;
	l->rel = ops->elf_getdata(rs, NULL);
	l->rdynsym = ops->elf_getdata(ds, NULL);
	l->rdynstr = ss ? ops->elf_getdata(ss, NULL) : NULL;
}

int sl_lookup_open(const char *path, const struct sl_lookup_opts *opts, struct sl_lookup **out,
		   char *err, size_t errsz)
{
	struct sl_lookup_opts def = { SYMIDX_DEM_NOOPTS, NULL, -1 };
	struct sl_lookup *l;
	struct sl_file_id id = { 0 };
	struct stat st, rst;
	int r = 0;

	*out = NULL;
	if (errsz)
		err[0] = '\0';
	if (!opts)
		opts = &def;
	l = calloc(1, sizeof(*l));
	if (!l)
		return sl_errf(err, errsz, -ENOMEM, "out of memory");
	l->ops = elfops_direct();
	l->model = &sl_model_perf61.sym;
	l->rfd = -1;
	l->ops->elf_version(EV_CURRENT);
	l->elf = open_elf(l->ops, path, &l->fd, &st, err, errsz, &r);
	if (!l->elf)
		goto bad;
	r = elf_read_build_id(l->ops, l->elf, l->bid, sizeof(l->bid));
	l->bid_len = r > 0 ? r : 0;
	l->relf = l->elf;
	if (opts->runtime) {
		unsigned char rb[20];
		int n;

		l->relf = open_elf(l->ops, opts->runtime, &l->rfd, &rst, err, errsz, &r);
		if (!l->relf)
			goto bad;
		n = elf_read_build_id(l->ops, l->relf, rb, sizeof(rb));
		if (n != l->bid_len || (n > 0 && memcmp(rb, l->bid, (size_t)n))) {
			r = sl_errf(err, errsz, -EINVAL, "%s: build-id differs from %s's", opts->runtime, path);
			goto bad;
		}
		if (!sl_elf_runtime_layout(l->ops, l->relf, (uint64_t)rst.st_size, &l->lay)) {
			r = sl_errf(err, errsz, -EINVAL, "%s: %s", opts->runtime, "no runtime ELF with program headers");
			goto bad;
		}
	} else if (!sl_elf_runtime_layout(l->ops, l->elf, (uint64_t)st.st_size, &l->lay)) {
		r = sl_errf(err, errsz, -EINVAL, "%s: %s", path,
			 "no runtime ELF with program headers (a separate debug file? give the binary as the runtime ELF)");
		goto bad;
	}
	sl_file_id_from_stat(&id, &st);
	if (!symindex_src_init(&l->src, l->ops, l->elf, &l->lay, l->bid, (size_t)l->bid_len, &id,
			       opts->cache_dirfd, opts->demangle ? opts->demangle : SYMIDX_DEM_NOOPTS,
			       l->model)) {
		r = sl_errf(err, errsz, -EINVAL, "%s: %s", path, "no .symtab or .dynsym");
		goto bad;
	}
	r = symindex_open(&l->src, &l->idx);
	if (r < 0) {
		sl_errf(err, errsz, r, "%s: index: %s", path, strerror(-r));
		goto bad;
	}
	if (l->idx.unmodelable) {
		r = sl_errf(err, errsz, -EINVAL, "%s: perf 6.1 cannot load this table: %s", path, l->idx.why);
		goto bad;
	}
	plt_inputs(l);
	*out = l;
	return 0;
bad:
	sl_lookup_close(l);
	return r < 0 ? r : -EINVAL;
}

void sl_lookup_close(struct sl_lookup *l)
{
	if (!l)
		return;
	symindex_close(&l->idx);
	if (l->relf && l->relf != l->elf)
		l->ops->elf_end(l->relf);
	if (l->elf)
		l->ops->elf_end(l->elf);
	if (l->rfd >= 0)
		close(l->rfd);
	if (l->fd >= 0)
		close(l->fd);
	free(l);
}

void sl_lookup_get_info(const struct sl_lookup *l, struct sl_lookup_info *info)
{
	memset(info, 0, sizeof(*info));
	build_id_hex(l->bid, (size_t)l->bid_len, info->build_id);
	info->nsymtab = l->src.symtab ? l->src.nsymtab : 0;
	info->ndynsym = l->src.dynsym ? l->src.ndynsym : 0;
	info->ncandidates = l->idx.nentries;
	info->from_cache = l->idx.from_cache;
}

/* ---- names --------------------------------------------------------------- */

static const char *str_at(const Elf_Data *str, uint64_t off)
{
	if (!str || !str->d_buf || off >= str->d_size ||
	    !memchr((const char *)str->d_buf + off, 0, str->d_size - off))
		return NULL;
	return (const char *)str->d_buf + off;
}

/* The raw name of table symbol (@table, @i) and its binding. */
static const char *raw_name(const struct sl_lookup *l, uint32_t table, uint32_t i, int *bind)
{
	Elf_Data *tab = table ? l->src.dynsym : l->src.symtab;
	Elf_Data *str = table ? l->src.dynsym_str : l->src.symtab_str;
	GElf_Sym sym;

	if (!tab || !l->ops->gelf_getsym(tab, (int)i, &sym))
		return NULL;
	if (bind)
		*bind = GELF_ST_BIND(sym.st_info);
	return str_at(str, sym.st_name);
}

/* The .dynsym name the @k-th PLT relocation refers to (raw). */
static const char *plt_raw_name(const struct sl_lookup *l, uint32_t k)
{
	uint64_t info, symi;
	size_t esz;
	GElf_Sym sym;

	if (!l->rel || !l->rel->d_buf || !l->rdynsym)
		return NULL;
	esz = l->is64 ? (l->rel_is_rela ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel))
		      : (l->rel_is_rela ? sizeof(Elf32_Rela) : sizeof(Elf32_Rel));
	if ((uint64_t)(k + 1) * esz > l->rel->d_size)
		return NULL;
	if (l->is64) {
		memcpy(&info, (const char *)l->rel->d_buf + (size_t)k * esz + 8, 8);
		symi = ELF64_R_SYM(info);
	} else {
		uint32_t i32;

		memcpy(&i32, (const char *)l->rel->d_buf + (size_t)k * esz + 4, 4);
		symi = ELF32_R_SYM(i32);
	}
	if (symi > 0x7fffffff || !l->ops->gelf_getsym(l->rdynsym, (int)symi, &sym))
		return NULL;
	return str_at(l->rdynstr, sym.st_name);
}

/* The name perf stores for @raw: malloc'ed demangled name or NULL (= raw). */
static char *demangled(const struct sl_lookup *l, const char *raw, int *uncertain)
{
	return l->model->demangle(raw, l->src.demangle, uncertain);
}

int sl_lookup_name(struct sl_lookup *l, const struct sl_lookup_sym *s, char *buf, size_t n)
{
	const char *raw;
	char *d;
	int unc = 0, len;

	if (!s->found)
		return -EINVAL;
	if (s->table == SL_LOOKUP_PLT) {
		char plt[PLT_NAME_MAX];

		raw = plt_raw_name(l, s->index);
		d = raw ? demangled(l, raw, &unc) : NULL;
		/* perf names a stub whose symbol it cannot read by "" + "@plt" */
		snprintf(plt, sizeof(plt), "%s@plt", d ? d : raw ? raw : "");
		free(d);
		return snprintf(buf, n, "%s", plt);
	}
	if (s->table > SL_LOOKUP_DYNSYM || !(raw = raw_name(l, s->table, s->index, NULL)))
		return -EINVAL;
	d = demangled(l, raw, &unc);
	len = snprintf(buf, n, "%s", d ? d : raw);
	free(d);
	return len;
}

/* ---- answers --------------------------------------------------------------- */

struct cand {
	uint32_t table, idx;
	uint64_t end;
	int bind, type;
};

/* choose_best_symbol() (symbol.c) as index/symindex.c sim_choose: 0 keep a. */
static int choose(const struct sl_lookup *l, const struct cand *a, const struct cand *b, uint64_t start,
		  int *uncertain)
{
	int64_t la = (int64_t)(a->end - start), lb = (int64_t)(b->end - start);
	const char *na, *nb;
	int unc = 0, r;
	char *da, *db;

	if (lb == 0 && la > 0)
		return 0;
	if (la == 0 && lb > 0)
		return 1;
	if (l->model->fixup.notype_loses && a->type != b->type) {      /* 7.x */
		if (a->type == STT_NOTYPE)
			return 1;
		if (b->type == STT_NOTYPE)
			return 0;
	}
	if (b->bind == STB_WEAK && a->bind != STB_WEAK)
		return 0;
	if (a->bind == STB_WEAK && b->bind != STB_WEAK)
		return 1;
	if (a->bind == STB_GLOBAL && b->bind != STB_GLOBAL)
		return 0;
	if (b->bind == STB_GLOBAL && a->bind != STB_GLOBAL)
		return 1;
	na = raw_name(l, a->table, a->idx, NULL);
	nb = raw_name(l, b->table, b->idx, NULL);
	if (!na || !nb) {
		*uncertain = 1;
		return 0;
	}
	if (!strcmp(na, nb))
		return l->model->choose_by_name(na, nb);
	da = demangled(l, na, &unc);
	db = demangled(l, nb, &unc);
	r = unc ? 0 : l->model->choose_by_name(da ? da : na, db ? db : nb);
	if (unc)
		*uncertain = 1;
	free(da);
	free(db);
	return r;
}

/* symbols__fixup_duplicate() over one run of same-start nodes in in-order
 * (= insertion) order: returns the survivor's position. */
static size_t dedup(const struct sl_lookup *l, const struct cand *c, size_t n, uint64_t start, int *unc)
{
	size_t cur = 0;

	for (size_t nx = 1; nx < n; nx++)
		if (choose(l, &c[cur], &c[nx], start, unc) != 0)
			cur = nx;
	return cur;
}

static uint64_t next_start(const struct symidx *idx, uint32_t next, uint64_t start)
{
	/* symbols__fixup_end(): the last symbol ends at the next page boundary */
	return next == SYMIDX_NONE ? (start + 4095) / 4096 * 4096 + 4096 : idx->groups[next].start;
}

/* The node of group @g perf keeps after both passes (symindex.h: a group's
 * survivor depends only on its members and on the next distinct start). */
static int group_survivor(const struct sl_lookup *l, uint32_t g, struct cand *out, int *unc)
{
	const struct symidx *idx = &l->idx;
	const struct symidx_group *G = &idx->groups[g];
	struct cand *c = malloc(((size_t)G->n + 1) * sizeof(*c));
	size_t n = 0, k;

	if (!c)
		return -ENOMEM;
	/* entries of a group are sorted by (table, idx): perf's insertion order */
	for (int pass = 0; pass < 2; pass++) {
		size_t first = n, m = 0;
		uint32_t nxt = pass ? G->next_all : G->next_sym;

		for (k = G->first; k < G->first + G->n; k++)
			if (idx->entries[k].table == (uint32_t)pass)
				m++;
		if (!m)
			continue;
		for (k = G->first; k < G->first + G->n; k++) {
			const struct symidx_entry *e = &idx->entries[k];

			if (e->table != (uint32_t)pass)
				continue;
			c[n].table = e->table;
			c[n].idx = e->idx;
			c[n].bind = 0;
			c[n].type = e->type;
			raw_name(l, e->table, e->idx, &c[n].bind);
			/* symbols__fixup_end: a zero-size symbol ends where its in-order
			 * successor starts: the next same-start member (zero length) or,
			 * for the last one, the next start this pass has */
			c[n].end = e->size ? e->start + e->size :
				   (n + 1 - first == m ? next_start(idx, nxt, G->start) : G->start);
			n++;
		}
		if (pass == 0) {
			c[0] = c[dedup(l, c, n, G->start, unc)];
			n = 1;
		}
	}
	*out = c[dedup(l, c, n, G->start, unc)];
	free(c);
	return 0;
}

static void fill_found(const struct sl_lookup *l, struct sl_lookup_sym *o, uint64_t a, uint32_t table,
		       uint32_t index, uint64_t start, int exact)
{
	int unc = 0;

	memset(o, 0, sizeof(*o));
	o->addr = a;
	o->found = 1;
	o->start = start;
	o->offset = a - start;
	o->table = table;
	o->index = index;
	/* a name perf post-processes beyond libiberty is not mirrored */
	if (table == SL_LOOKUP_PLT) {
		const char *raw = plt_raw_name(l, index);

		free(raw ? demangled(l, raw, &unc) : NULL);
	} else {
		const char *raw = raw_name(l, table, index, NULL);

		free(raw ? demangled(l, raw, &unc) : NULL);
	}
	o->exact = exact && !unc;
}

static void fill_none(struct sl_lookup_sym *o, uint64_t a, int exact)
{
	memset(o, 0, sizeof(*o));
	o->addr = a;
	o->exact = exact;
}

long sl_lookup_addrs(struct sl_lookup *l, const uint64_t *addrs, size_t n, struct sl_lookup_sym *out)
{
	uint64_t *amb = NULL, *ans = NULL, *ast = NULL;
	size_t *where = NULL, namb = 0, i;
	long found = 0;
	int r = 0;

	for (i = 0; i < n; i++) {
		uint32_t g = SYMIDX_NONE;
		int c = symindex_classify(&l->idx, &l->lay, SL_PLT_V61, addrs[i], &g);

		if (c == 1) {
			struct cand s;
			int unc = 0;

			r = group_survivor(l, g, &s, &unc);
			if (r < 0)
				goto out;
			fill_found(l, &out[i], addrs[i], s.table, s.idx, l->idx.groups[g].start, !unc);
			found++;
		} else if (c == 0) {
			fill_none(&out[i], addrs[i], 1);
		} else {
			if (!amb && (!(amb = malloc(n * sizeof(*amb))) || !(where = malloc(n * sizeof(*where))))) {
				r = -ENOMEM;
				goto out;
			}
			amb[namb] = addrs[i];
			where[namb++] = i;
		}
	}
	if (namb) {
		ans = malloc(namb * sizeof(*ans));
		ast = malloc(namb * sizeof(*ast));
		if (!ans || !ast) {
			r = -ENOMEM;
			goto out;
		}
		r = symindex_replay_ids(&l->idx, &l->src, &l->lay, amb, namb, ans, ast);
		if (r < 0)
			goto out;
		for (i = 0; i < namb; i++) {
			struct sl_lookup_sym *o = &out[where[i]];
			uint64_t id = ans[i];

			if (id == SYMIDX_ID_NULL) {
				fill_none(o, amb[i], r == 0);
				continue;
			}
			if (id & SYMIDX_ID_PLT)
				fill_found(l, o, amb[i], SL_LOOKUP_PLT, (uint32_t)id, ast[i], r == 0);
			else
				fill_found(l, o, amb[i], (uint32_t)(id >> 32), (uint32_t)id, ast[i], r == 0);
			found++;
		}
		r = 0;
	}
out:
	free(amb);
	free(where);
	free(ans);
	free(ast);
	return r < 0 ? r : found;
}

int sl_lookup_addr(struct sl_lookup *l, uint64_t addr, struct sl_lookup_sym *out)
{
	return (int)sl_lookup_addrs(l, &addr, 1, out);
}

/* ---- by name ----------------------------------------------------------------- */

struct sl_names {
	struct symnames idx;
};

int sl_names_open(const char *path, const struct sl_names_opts *opts, struct sl_names **out, char *err,
		  size_t errsz)
{
	struct sl_names *n;
	struct sl_why why;
	char text[768];
	int r;

	*out = NULL;
	if (errsz)
		err[0] = '\0';
	n = calloc(1, sizeof(*n));
	if (!n)
		return sl_errf(err, errsz, -ENOMEM, "out of memory");
	r = symnames_open(path, opts ? opts->cache_dirfd : -1, opts && opts->rebuild ? SN_OPEN_REBUILD : 0,
			  &n->idx, &why);
	if (r < 0) {
		free(n);
		sl_why_format(&why, text, sizeof(text));
		return sl_errf(err, errsz, r, "%s", text);
	}
	*out = n;
	return 0;
}

static void fill_name_sym(const struct sl_names *n, uint32_t rec, const char *key, struct sl_name_sym *o)
{
	const struct symnames_sym *r = &n->idx.syms[rec];

	memset(o, 0, sizeof(*o));
	o->name = key ? key : symnames_str(&n->idx, r->name, NULL);
	o->version = symnames_str(&n->idx, r->version, NULL);
	o->value = r->value;
	o->size = r->size;
	o->offset = r->offset;
	o->index = r->index;
	o->table = r->table;
	o->shndx = r->shndx;
	o->type = (uint8_t)GELF_ST_TYPE(r->info);
	o->bind = (uint8_t)GELF_ST_BIND(r->info);
	o->visibility = (uint8_t)GELF_ST_VISIBILITY(r->other);
	o->exec = (r->flags & SN_S_EXEC) != 0;
	o->hidden = (r->flags & SN_S_HIDDEN) != 0;
}

int sl_lookup_by_name(const struct sl_names *n, const char *name, struct sl_name_sym *out)
{
	uint32_t key, rec = symnames_lookup(&n->idx, name, strlen(name), &key);

	if (rec == SYMNAMES_NONE) {
		memset(out, 0, sizeof(*out));
		return 0;
	}
	/* the key inside the mapping (equal to @name) outlives the caller's string */
	fill_name_sym(n, rec, symnames_str(&n->idx, key, NULL), out);
	return 1;
}

int sl_lookup_by_offset(const struct sl_names *n, uint64_t offset, struct sl_name_sym *out)
{
	uint32_t rec = symnames_symbolize(&n->idx, offset);

	if (rec == SYMNAMES_NONE) {
		memset(out, 0, sizeof(*out));
		return 0;
	}
	fill_name_sym(n, rec, NULL, out);
	return 1;
}

void sl_names_get_info(const struct sl_names *n, struct sl_names_info *info)
{
	const struct symnames_hdr *h = n->idx.h;

	memset(info, 0, sizeof(*info));
	for (uint32_t i = 0; i < h->build_id_len; i++)
		snprintf(info->build_id + 2 * i, 3, "%02x", h->build_id[i]);
	snprintf(info->debug_file, sizeof(info->debug_file), "%s",
		 (h->flags & SN_F_DEBUG) ? symnames_str(&n->idx, h->dbg_path, NULL) : "");
	info->nsymtab = h->nsymtab;
	info->ndynsym = h->ndynsym;
	info->nsyms = h->nsyms;
	info->nkeys = h->nslots;
	info->index_bytes = h->file_size;
	info->from_cache = n->idx.from_cache;
}

void sl_names_close(struct sl_names *n)
{
	if (!n)
		return;
	symnames_close(&n->idx);
	free(n);
}
