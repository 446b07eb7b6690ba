/* SPDX-License-Identifier: MIT */
/*
 * perfdata/unwind_replay.c - pd_unwind_replay_pass (perfdata/unwind.h): unwind every
 * DWARF sample with the libunwind perf 6.1 uses (libunwind-x86_64.so.8,
 * loaded with dlopen: libsymlazy.so keeps libc as its only NEEDED entry)
 * through accessors that behave like perf's
 * (tools/perf/util/unwind-libunwind-local.c; written from its behaviour):
 *   access_reg    the sampled user registers (perf_reg_value by mask);
 *   access_mem    the dump for [SP, SP + dyn_size - 8), else the bytes of
 *                 the file of the map holding the address (access_dso_mem);
 *                 writes ignored;
 *   find_proc_info  the map of the IP, its DSO's .eh_frame_hdr (section
 *                 header by name) and first PT_LOAD, segbase from the
 *                 lowest map of that DSO, then dwarf_search_unwind_table
 *                 over the remote table (.debug_frame is compiled out of
 *                 Debian's perf on x86);
 *   get_entries   IP register, then unw_step while > 0 and fewer than 127
 *                 entries (PERF_MAX_STACK_DEPTH), each IP - 1 unless
 *                 unw_is_signal_frame.
 * One address space per thread, UNW_CACHE_GLOBAL as in perf.
 * Differences that can only add addresses: maps are the union the thread
 * reaches (pd_machine_threads_of) rather than those live at the sample's
 * time. Used by `symlazy-addrs --unwind=replay|both` to measure the scan's
 * over-approximation and as an optional tighter source; not on by default
 * (it costs about what perf's own unwinding costs).
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "perfdata/htab.h"
#include "perfdata/unwind.h"
#include "util/elfimg.h"
#include "util/util.h"

#if defined(__x86_64__) && __has_include(<libunwind-x86_64.h>)
#include <libunwind-x86_64.h>
#define HAVE_REPLAY 1
#endif

#ifndef HAVE_REPLAY
int pd_unwind_hybrid_pass(const char *path, struct pd_machine *m, const struct pd_unwind_env *env,
			  pd_unwind_add_fn add, pd_unwind_unsure_fn unsure, void *ctx,
			  struct pd_unwind_stats *st, uint64_t *nr_scanned, char *err,
			  size_t errsz)
{
	(void)env;
	if (nr_scanned)
		*nr_scanned = 0;
	return pd_unwind_pass(path, m, add, unsure, ctx, st, err, errsz);
}

int pd_unwind_replay_pass(const char *path, struct pd_machine *m, pd_unwind_add_fn add,
			  pd_unwind_unsure_fn unsure, void *ctx, struct pd_unwind_stats *st,
			  char *err, size_t errsz)
{
	(void)path; (void)m; (void)add; (void)unsure; (void)ctx; (void)st;
	if (err && errsz)
		snprintf(err, errsz, "built without libunwind headers");
	return -ENOTSUP;
}
#else

#define MAX_STACK 127		/* PERF_MAX_STACK_DEPTH, perf script's default */

/* perf's x86 register ids (arch/x86/include/uapi/asm/perf_regs.h) */
enum { R_AX, R_BX, R_CX, R_DX, R_SI, R_DI, R_BP, R_SP, R_IP, R_FLAGS, R_CS, R_SS,
       R_DS, R_ES, R_FS, R_GS, R_R8, R_R9, R_R10, R_R11, R_R12, R_R13, R_R14, R_R15 };

struct lu {			/* libunwind entry points */
	void *h;
	unw_addr_space_t (*create)(unw_accessors_t *, int);
	void (*destroy)(unw_addr_space_t);
	int (*set_caching)(unw_addr_space_t, unw_caching_policy_t);
	int (*init_remote)(unw_cursor_t *, unw_addr_space_t, void *);
	int (*step)(unw_cursor_t *);
	int (*get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
	int (*is_signal_frame)(unw_cursor_t *);
	int (*search)(unw_addr_space_t, unw_word_t, unw_dyn_info_t *, unw_proc_info_t *, int,
		      void *);
};

struct rfile {			/* one DSO file, mapped, with its unwind facts */
	int state;		/* 0 not tried, 1 usable, -1 unusable */
	int trusted;		/* its build-id is the one perf.data records */
	const unsigned char *p;
	size_t size;
	uint64_t hdr_addr, hdr_off, base;	/* .eh_frame_hdr sh_addr/sh_offset, PT_LOAD */
};

struct as_ent {
	uint32_t key;		/* class root of the threads it serves */
	unw_addr_space_t as;
	/* DSOs (machine index bits) for which something uncertain happened
	 * while libunwind unwound a frame in them: libunwind caches what it
	 * read for a frame (UNW_CACHE_GLOBAL, as perf), so later frames there
	 * skip the accessors whose checks would have said so again */
	uint8_t *taint;
};

struct replay {
	struct lu lu;
	struct pd_machine *m;
	struct rfile *files;	/* by machine dso index */
	size_t nfiles;
	struct as_ent *as;
	size_t nas, alloc_as;
	const struct pd_unwind_env *env;
	int check;		/* hybrid: track whether the replay is certain */
	/* the sample being unwound */
	const struct pd_sample *s;
	const uint32_t *threads;
	size_t nthreads;
	uint32_t own;		/* class root of the sample's thread */
	int uncertain;		/* the replay may differ from perf's unwinding */
	struct as_ent *cur_as;	/* the address space in use */
	uint32_t cur_dso[2];	/* DSOs of the frame being stepped (ip, ip - 1) */
};

/* Something in this replay may differ from perf: the sample is scanned,
 * and the DSO of the frame being unwound is tainted for later samples. */
static void unsure_here(struct replay *r)
{
	unsigned k;

	if (!r->check)
		return;
	r->uncertain = 1;
	for (k = 0; k < 2 && r->cur_as; k++)
		if (r->cur_dso[k] < r->m->nr_dsos)
			r->cur_as->taint[r->cur_dso[k] >> 3] |= (uint8_t)(1u << (r->cur_dso[k] & 7));
}

static uint32_t class_root(const struct pd_machine *m, uint32_t i)
{
	while (m->threads[i].uf != i)
		i = m->threads[i].uf;
	return i;
}

static int in_vdso(const struct replay *r, uint64_t addr)
{
	size_t i;

	if (!r->env)
		return 0;
	for (i = 0; i < r->env->nr_vdso; i++)
		if (r->env->vdso[2 * i] <= addr && addr < r->env->vdso[2 * i + 1])
			return 1;
	return 0;
}

static int reg_value(const struct pd_sample *s, unsigned id, uint64_t *v)
{
	uint64_t mask = s->user_regs.mask;
	unsigned idx;

	if (id >= 64 || !(mask & (1ull << id)) || !s->user_regs.regs)
		return -EINVAL;
	idx = (unsigned)__builtin_popcountll(mask & ((1ull << id) - 1));
	if (idx >= s->user_regs.nr)
		return -EINVAL;
	*v = pd_u64(s->user_regs.regs, idx);
	return 0;
}

#define MAX_DATA 8

struct pick {
	const struct pd_map *code, *data;
	int ncode, ndata;	/* further distinct (dso, start - pgoff) seen */
	int foreign;		/* a hit in a FORK ancestor's maps */
	int own;		/* the thread being resolved is of the sample's class */
	const struct pd_map *alt[MAX_DATA];	/* the data maps of those places */
	unsigned nalt;
};

static int same_place(const struct pd_map *a, const struct pd_map *b)
{
	return a->dso == b->dso && a->start - a->pgoff == b->start - b->pgoff;
}

static int pick_map(void *ctx, const struct pd_map *map, uint64_t ip)
{
	struct pick *p = ctx;

	(void)ip;
	if (!p->own)
		p->foreign = 1;
	if (!map->data) {
		if (!p->code)
			p->code = map;
		else if (!same_place(p->code, map))
			p->ncode++;
		return 0;
	}
	if (!p->data)
		p->data = map;
	else if (!same_place(p->data, map))
		p->ndata++;
	if (p->nalt < MAX_DATA)
		p->alt[p->nalt++] = map;
	else
		p->ndata = MAX_DATA + 1;	/* too many to compare */
	return 0;
}

/* thread__find_map: a map of the sample's thread holding @addr (here: of
 * any thread it reaches). perf splits an older mapping where a newer one
 * overlaps it (ld.so maps the whole file r--, then the r-x segment over
 * it; perf record --call-graph dwarf records data mmaps too), so a code
 * mapping wins over a data one. The replay is uncertain when the union of
 * maps leaves a choice perf's time-ordered maps may make otherwise: two
 * places for the address, a map only a FORK ancestor has, only data maps
 * of several places, or a [vdso]. */
static const struct pd_map *pick_all(struct replay *r, uint64_t addr, struct pick *p)
{
	size_t q;

	memset(p, 0, sizeof(*p));
	for (q = 0; q < r->nthreads; q++) {
		p->own = class_root(r->m, r->threads[q]) == r->own;
		pd_machine_resolve(r->m, r->threads[q], addr, pick_map, p);
	}
	return p->code ? p->code : p->data;
}

static const struct pd_map *find_map(struct replay *r, uint64_t addr)
{
	struct pick p;
	const struct pd_map *mp = pick_all(r, addr, &p);

	if (p.foreign || p.ncode || (!p.code && p.ndata) || in_vdso(r, addr))
		unsure_here(r);
	return mp;
}

/* the GNU build-id note of the PT_NOTE segments of @img, 0 if none. Notes
 * are padded to the segment's alignment (8 for .note.gnu.property, 4 for
 * the build-id) */
static unsigned file_build_id(const struct sl_elfimg *img, unsigned char *out)
{
	Elf64_Phdr ph;
	const unsigned char *d;
	unsigned n;

	for (size_t i = 0; sl_elfimg_phdr(img, i, &ph) == 0; i++)
		if (ph.p_type == PT_NOTE && (d = sl_elfimg_at(img, ph.p_offset, ph.p_filesz)) &&
		    (n = sl_elfimg_notes_build_id(d, ph.p_filesz, SL_ELFIMG_NOTE_PADDED |
						  (ph.p_align == 8 ? SL_ELFIMG_NOTE_ALIGN8 : 0), out, 20)))
			return n;
	return 0;
}

static struct rfile *file_of(struct replay *r, uint32_t dso)
{
	struct rfile *f;
	struct stat st;
	struct sl_elfimg img;
	Elf64_Phdr ph;
	Elf64_Shdr sh;
	int fd;
	size_t i;

	if (dso >= r->nfiles)
		return NULL;
	f = &r->files[dso];
	if (f->state)
		return f->state > 0 ? f : NULL;
	f->state = -1;
	fd = open(r->m->dsos[dso].path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return NULL;
	}
	f->p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (f->p == MAP_FAILED) {
		f->p = NULL;
		return NULL;
	}
	f->size = (size_t)st.st_size;
	f->state = 1;
	/* util/elfimg.h reads the headers of the mapping (which stays ours) */
	if (sl_elfimg_init(&img, f->p, f->size) < 0)
		return f;	/* readable bytes, no unwind table */
	/* perf reads a DSO with a recorded build-id from its build-id cache
	 * copy or the path: the same bytes if the file still has that build-id;
	 * one without (no samples: perf record's HEADER_BUILD_ID lists DSOs
	 * with hits) from the path, as we do */
	f->trusted = 1;
	if (r->env && r->env->ids && r->env->id_sizes[dso]) {
		unsigned char id[20];
		unsigned n = file_build_id(&img, id);

		f->trusted = n == r->env->id_sizes[dso] && !memcmp(id, r->env->ids[dso], n);
	}
	for (i = 0; sl_elfimg_phdr(&img, i, &ph) == 0; i++)
		if (ph.p_type == PT_LOAD) {
			f->base = ph.p_vaddr & ~(uint64_t)(getpagesize() - 1);
			break;
		}
	if (sl_elfimg_find_name(&img, ".eh_frame_hdr", &sh)) {
		f->hdr_addr = sh.sh_addr;
		f->hdr_off = sh.sh_offset;
	}
	return f;
}

/* access_dso_mem: the map's file bytes at the address */
/* 8 file bytes at @addr through @mp: 0, or -1 (unreadable) or -2 (file
 * unusable or not the recorded one) */
static int map_read(struct replay *r, const struct pd_map *mp, uint64_t addr, unw_word_t *v)
{
	struct rfile *f = file_of(r, mp->dso);
	uint64_t off;

	if (!f || !f->trusted)
		return -2;
	off = addr - mp->start + mp->pgoff;
	if (off > f->size || f->size - off < 8)
		return -1;
	memcpy(v, f->p + off, 8);
	return 0;
}

/* access_dso_mem. Where only data mappings of several places hold @addr
 * (perf record -d / --call-graph dwarf record data mmaps; ld.so maps the
 * whole file, then segments over it), perf's split maps hold one of them:
 * certain if every one gives the same bytes. */
static int dso_read(struct replay *r, uint64_t addr, unw_word_t *v)
{
	struct pick p;
	const struct pd_map *mp = pick_all(r, addr, &p);
	unsigned k;
	int rc;

	if (!mp)
		return in_vdso(r, addr) ? (unsure_here(r), -1) : -1;
	if (p.foreign || p.ncode || in_vdso(r, addr) || p.ndata > MAX_DATA)
		unsure_here(r);
	rc = map_read(r, mp, addr, v);
	if (rc == -2) {
		unsure_here(r);	/* perf may open a file we cannot, or another copy */
		return -1;
	}
	if (!p.code && p.ndata && p.ndata <= MAX_DATA)
		for (k = 0; k < p.nalt; k++) {
			unw_word_t w;
			int rk = map_read(r, p.alt[k], addr, &w);

			if (rk != rc || (rc == 0 && w != *v)) {
				unsure_here(r);
				break;
			}
		}
	return rc;
}

static int acc_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp, int wr, void *arg)
{
	struct replay *r = arg;
	const struct pd_sample *s = r->s;
	uint64_t sp, end;

	(void)as;
	if (wr || !s->user_regs.regs) {
		*valp = 0;
		return 0;
	}
	if (reg_value(s, R_SP, &sp) < 0)
		return -EINVAL;
	end = sp + s->user_stack.dyn_size;
	if (addr + sizeof(unw_word_t) < addr)
		return -EINVAL;
	if (addr < sp || addr + sizeof(unw_word_t) >= end) {
		if (dso_read(r, addr, valp)) {
			*valp = 0;
			return -1;
		}
		return 0;
	}
	memcpy(valp, s->user_stack.data + (addr - sp), sizeof(*valp));
	return 0;
}

static int acc_reg(unw_addr_space_t as, unw_regnum_t regnum, unw_word_t *valp, int wr, void *arg)
{
	static const signed char id[] = {
		[UNW_X86_64_RAX] = R_AX, [UNW_X86_64_RDX] = R_DX, [UNW_X86_64_RCX] = R_CX,
		[UNW_X86_64_RBX] = R_BX, [UNW_X86_64_RSI] = R_SI, [UNW_X86_64_RDI] = R_DI,
		[UNW_X86_64_RBP] = R_BP, [UNW_X86_64_RSP] = R_SP, [UNW_X86_64_R8] = R_R8,
		[UNW_X86_64_R9] = R_R9, [UNW_X86_64_R10] = R_R10, [UNW_X86_64_R11] = R_R11,
		[UNW_X86_64_R12] = R_R12, [UNW_X86_64_R13] = R_R13, [UNW_X86_64_R14] = R_R14,
		[UNW_X86_64_R15] = R_R15, [UNW_X86_64_RIP] = R_IP,
	};
	struct replay *r = arg;
	uint64_t v;

	(void)as;
	if (wr)
		return 0;
	if (!r->s->user_regs.regs) {
		*valp = 0;
		return 0;
	}
	if (regnum < 0 || regnum > UNW_X86_64_RIP)
		return -EINVAL;
	if (reg_value(r->s, (unsigned)id[regnum], &v) < 0)
		return -EINVAL;
	*valp = v;
	return 0;
}

static int acc_fpreg(unw_addr_space_t as, unw_regnum_t n, unw_fpreg_t *v, int wr, void *arg)
{
	(void)as; (void)n; (void)v; (void)wr; (void)arg;
	return -UNW_EINVAL;
}

static int acc_dyn(unw_addr_space_t as, unw_word_t *dil, void *arg)
{
	(void)as; (void)dil; (void)arg;
	return -UNW_ENOINFO;
}

static int acc_resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	(void)as; (void)c; (void)arg;
	return -UNW_EINVAL;
}

static int acc_name(unw_addr_space_t as, unw_word_t a, char *b, size_t n, unw_word_t *o, void *arg)
{
	(void)as; (void)a; (void)b; (void)n; (void)o; (void)arg;
	return -UNW_EINVAL;
}

static void acc_put(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	(void)as; (void)pi; (void)arg;
}

/* dw_read_encoded_value of perf for the .eh_frame_hdr header fields */
static int read_enc(const unsigned char **p, const unsigned char *end, uint64_t base,
		    unsigned enc, uint64_t *val)
{
	const unsigned char *c = *p;
	uint64_t v = 0;

	if (enc == 0xff) {	/* DW_EH_PE_omit */
		*val = 0;
		return 0;
	}
	if (enc == 0x00) {	/* DW_EH_PE_ptr */
		if (end - c < 8)
			return -EINVAL;
		memcpy(val, c, 8);
		*p = c + 8;
		return 0;
	}
	switch (enc & 0x70) {
	case 0x00: break;
	case 0x10: v = base + (uint64_t)(c - *p); break;	/* pcrel: perf uses its buffer address */
	default: return -EINVAL;
	}
	if ((enc & 0x07) == 0)
		enc |= 0x03;
	switch (enc & 0x0f) {
	case 0x0b: { int32_t x; if (end - c < 4) return -EINVAL; memcpy(&x, c, 4); v += (uint64_t)(int64_t)x; c += 4; break; }
	case 0x03: { uint32_t x; if (end - c < 4) return -EINVAL; memcpy(&x, c, 4); v += x; c += 4; break; }
	case 0x0c:
	case 0x04: { uint64_t x; if (end - c < 8) return -EINVAL; memcpy(&x, c, 8); v += x; c += 8; break; }
	default: return -EINVAL;
	}
	*val = v;
	*p = c;
	return 0;
}

static int acc_find(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi, int need, void *arg)
{
	struct replay *r = arg;
	const struct pd_map *mp = find_map(r, ip);
	struct rfile *f;
	uint64_t base = UINT64_MAX, fde_count, dummy, segbase;
	const unsigned char *h, *e, *q;
	unw_dyn_info_t di;
	size_t i, k;

	if (!mp)
		return -EINVAL;
	if (!(f = file_of(r, mp->dso))) {
		unsure_here(r);
		return -EINVAL;
	}
	if (!f->trusted)
		unsure_here(r);
	if (!f->hdr_off)
		return -EINVAL;
	/* perf: start - pgoff of the lowest map of this DSO in the thread's
	 * start-ordered maps. The union answers alike unless a map of the DSO
	 * comes from a FORK ancestor or the DSO was mapped twice (two code maps
	 * of one file offset at different addresses, e.g. dlopen after dlclose):
	 * then perf's maps at the sample's time may lack the lowest one. */
	{
		uint64_t low = UINT64_MAX;
		const struct pd_map *seen[8];
		unsigned ns = 0, j;

		for (i = 0; i < r->nthreads; i++) {
			const struct pd_thread *t = &r->m->threads[r->threads[i]];
			int own = class_root(r->m, r->threads[i]) == r->own;

			for (k = 0; k < t->nr_maps; k++) {
				const struct pd_map *x = &t->maps[k];

				if (x->dso != mp->dso)
					continue;
				if (!own)
					unsure_here(r);
				for (j = 0; !x->data && j < ns; j++)
					if (seen[j]->pgoff == x->pgoff && seen[j]->start != x->start)
						unsure_here(r);
				if (x->data)
					;
				else if (ns < 8)
					seen[ns++] = x;
				else
					unsure_here(r);
				if (x->start < low) {
					low = x->start;
					base = x->start - x->pgoff;
				}
			}
		}
	}
	base -= f->base;
	segbase = base + f->hdr_addr;
	if (f->hdr_off > f->size || f->size - f->hdr_off < 4 + 16)
		return -EINVAL;
	h = f->p + f->hdr_off;
	e = h + 4 + 16;		/* perf reads version, 3 encodings and two encoded words */
	q = h + 4;
	/* pcrel values are relative to perf's copy of the header: only the
	 * length consumed matters for the table offset */
	if (read_enc(&q, e, 0, h[1], &dummy) < 0 || read_enc(&q, e, 0, h[2], &fde_count) < 0)
		return -EINVAL;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = mp->start;
	di.end_ip = mp->end;
	di.u.rti.segbase = segbase;
	di.u.rti.table_data = segbase + (uint64_t)(q - h);
	di.u.rti.table_len = fde_count * 8 / sizeof(unw_word_t);
	return r->lu.search(as, ip, &di, pi, need, arg);
}

static unw_accessors_t accessors = {
	.find_proc_info = acc_find,
	.put_unwind_info = acc_put,
	.get_dyn_info_list_addr = acc_dyn,
	.access_mem = acc_mem,
	.access_reg = acc_reg,
	.access_fpreg = acc_fpreg,
	.resume = acc_resume,
	.get_proc_name = acc_name,
};

static int lu_load(struct lu *lu, char *err, size_t errsz)
{
	memset(lu, 0, sizeof(*lu));
	lu->h = dlopen("libunwind-x86_64.so.8", RTLD_NOW | RTLD_LOCAL);
	if (!lu->h) {
		if (err && errsz)
			snprintf(err, errsz, "cannot load libunwind-x86_64.so.8");
		return -ENOTSUP;
	}
#define SYM(f, n) (*(void **)&lu->f = dlsym(lu->h, n))
	if (!SYM(create, "_Ux86_64_create_addr_space") || !SYM(destroy, "_Ux86_64_destroy_addr_space") ||
	    !SYM(set_caching, "_Ux86_64_set_caching_policy") || !SYM(init_remote, "_Ux86_64_init_remote") ||
	    !SYM(step, "_Ux86_64_step") || !SYM(get_reg, "_Ux86_64_get_reg") ||
	    !SYM(is_signal_frame, "_Ux86_64_is_signal_frame") ||
	    !SYM(search, "_Ux86_64_dwarf_search_unwind_table")) {
		dlclose(lu->h);
		lu->h = NULL;
		if (err && errsz)
			snprintf(err, errsz, "libunwind-x86_64.so.8 lacks a function perf uses");
		return -ENOTSUP;
	}
#undef SYM
	return 0;
}

#define MAX_AS 64		/* address spaces kept (libunwind caches per space) */

/* One address space per process (class), as perf keeps one per maps;
 * the caches only memoize, so evicting one changes no result. */
static struct as_ent *as_get(struct replay *r, uint32_t key)
{
	size_t i;
	struct as_ent *e;

	for (i = 0; i < r->nas; i++)
		if (r->as[i].key == key)
			return &r->as[i];
	if (r->nas == MAX_AS) {
		r->lu.destroy(r->as[0].as);
		free(r->as[0].taint);
		memmove(r->as, r->as + 1, (MAX_AS - 1) * sizeof(*r->as));
		r->nas--;
	}
	if (pd_grow((void **)&r->as, &r->alloc_as, r->nas + 1, sizeof(*r->as)) < 0)
		return NULL;
	e = &r->as[r->nas];
	e->key = key;
	e->taint = calloc(r->m->nr_dsos / 8 + 1, 1);
	e->as = e->taint ? r->lu.create(&accessors, 0) : NULL;
	if (!e->as) {
		free(e->taint);
		return NULL;
	}
	r->lu.set_caching(e->as, UNW_CACHE_GLOBAL);
	r->nas++;
	return e;
}

static uint32_t dso_at(struct replay *r, uint64_t addr)
{
	int keep = r->check;
	const struct pd_map *mp;

	r->check = 0;	/* a lookup for bookkeeping: raises nothing */
	mp = find_map(r, addr);
	r->check = keep;
	return mp ? mp->dso : UINT32_MAX;
}

static int tainted(const struct replay *r, uint32_t dso)
{
	return dso < r->m->nr_dsos && (r->cur_as->taint[dso >> 3] & (1u << (dso & 7)));
}

/* Unwind one sample; its lookups go to @ips (MAX_STACK entries, zeros
 * skipped). Returns the number of entries, or -ENOMEM. */
static int replay_sample(struct replay *r, const struct pd_sample *s, int32_t tid, uint64_t *ips)
{
	unw_cursor_t c;
	uint64_t ip;
	unw_word_t w, cur;
	struct pd_thread *t;
	int i = 1, n = 0, rc;

	r->s = s;
	r->uncertain = 0;
	r->cur_as = NULL;
	r->cur_dso[0] = r->cur_dso[1] = UINT32_MAX;
	r->nthreads = pd_machine_threads_of(r->m, tid, &r->threads);
	t = tid == -1 ? NULL : pd_machine_find(r->m, tid);
	r->own = t ? class_root(r->m, (uint32_t)(t - r->m->threads)) : UINT32_MAX;
	if (!t && r->check)
		r->uncertain = 1;	/* no TID field or no such thread */
	if (reg_value(s, R_IP, &ip) < 0)
		return 0;	/* perf: get_entries fails, nothing looked up */
	if (ip)
		ips[n++] = ip;
	if (!(r->cur_as = as_get(r, r->own)))
		return -ENOMEM;
	rc = r->lu.init_remote(&c, r->cur_as->as, r);
	cur = ip;
	for (;;) {
		int more;

		/* the frame about to be stepped: libunwind looks it up at ip
		 * or ip - 1 and may answer from its cache */
		if (r->check) {
			r->cur_dso[0] = dso_at(r, cur);
			r->cur_dso[1] = cur ? dso_at(r, cur - 1) : UINT32_MAX;
			if (tainted(r, r->cur_dso[0]) || tainted(r, r->cur_dso[1]))
				r->uncertain = 1;
		}
		if (rc || (more = r->lu.step(&c)) <= 0)
			break;
		if (i >= MAX_STACK) {	/* perf's limit can be raised (--max-stack) */
			r->uncertain = 1;	/* (this sample only: no cache effect) */
			break;
		}
		r->lu.get_reg(&c, UNW_REG_IP, &w);
		cur = w;
		if (r->lu.is_signal_frame(&c) <= 0)
			--w;
		i++;
		if (w)
			ips[n++] = w;
	}
	return n;
}

static int replay_run(const char *path, struct pd_machine *m, const struct pd_unwind_env *env,
		      int hybrid, pd_unwind_add_fn add, pd_unwind_unsure_fn unsure, void *ctx,
		      struct pd_unwind_stats *st, uint64_t *nr_scanned, char *err, size_t errsz)
{
	struct replay r;
	struct pd_reader *rd = NULL;
	struct pd_record rec;
	struct pd_unwind_stats local;
	struct pd_unwind_scanner *sc = NULL;
	uint64_t ips[MAX_STACK];
	size_t i;
	int32_t tid;
	int rc, k, n;

	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	if (nr_scanned)
		*nr_scanned = 0;
	memset(&r, 0, sizeof(r));
	r.m = m;
	r.env = env;
	r.check = hybrid;
	if ((rc = lu_load(&r.lu, err, errsz)) < 0) {
		if (!hybrid)
			return rc;
		if (err && errsz)
			err[0] = '\0';
		return pd_unwind_pass(path, m, add, unsure, ctx, st, err, errsz);
	}
	r.nfiles = m->nr_dsos;
	r.files = calloc(r.nfiles ? r.nfiles : 1, sizeof(*r.files));
	if (!r.files || (hybrid && !(sc = pd_unwind_scanner_new(m)))) {
		rc = -ENOMEM;
		goto out;
	}
	if ((rc = pd_open(&rd, path, NULL, err, errsz)) < 0)
		goto out;
	while ((rc = pd_unwind_next(rd, &rec, unsure, ctx, st, &tid)) > 0) {
		const struct pd_sample *s = &rec.sample;

		if ((n = replay_sample(&r, s, tid, ips)) < 0) {
			rc = n;
			goto out;
		}
		if (hybrid && r.uncertain) {
			if (nr_scanned)
				(*nr_scanned)++;
			if ((rc = pd_unwind_scanner_sample(sc, s, tid, add, ctx, st)) < 0)
				goto out;
			continue;
		}
		st->stack_bytes += s->user_stack.dyn_size;
		for (k = 0; k < n; k++) {
			st->candidates++;
			if ((rc = add(ctx, tid, ips[k])) < 0)
				goto out;
		}
	}
out:
	pd_close(rd);
	pd_unwind_scanner_free(sc);
	for (i = 0; i < r.nas; i++) {
		r.lu.destroy(r.as[i].as);
		free(r.as[i].taint);
	}
	free(r.as);
	for (i = 0; r.files && i < r.nfiles; i++)
		if (r.files[i].p)
			munmap((void *)r.files[i].p, r.files[i].size);
	free(r.files);
	if (r.lu.h)
		dlclose(r.lu.h);
	return rc < 0 ? rc : 0;
}

int pd_unwind_hybrid_pass(const char *path, struct pd_machine *m, const struct pd_unwind_env *env,
			  pd_unwind_add_fn add, pd_unwind_unsure_fn unsure, void *ctx,
			  struct pd_unwind_stats *st, uint64_t *nr_scanned, char *err,
			  size_t errsz)
{
	return replay_run(path, m, env, 1, add, unsure, ctx, st, nr_scanned, err, errsz);
}

int pd_unwind_replay_pass(const char *path, struct pd_machine *m, pd_unwind_add_fn add,
			  pd_unwind_unsure_fn unsure, void *ctx, struct pd_unwind_stats *st,
			  char *err, size_t errsz)
{
	return replay_run(path, m, NULL, 0, add, unsure, ctx, st, NULL, err, errsz);
}
#endif
