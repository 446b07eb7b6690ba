/* SPDX-License-Identifier: MIT */
/*
 * dwfl.c - libdwfl lookups answered from the index (dwfl.h). Upstream
 * references are elfutils 0.188: libdwfl/dwfl_module_addrsym.c
 * (__libdwfl_addrsym, same_section), libdwfl/dwfl_module_getsym.c
 * (__libdwfl_getsym), libdwfl/libdwflP.h (dwfl_adjusted_st_value,
 * dwfl_deadjust_st_value: value = st_value + the bias of the symbol's Elf).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include "core/dwfl.h"
#include "core/models.h"
#include "core/session.h"
#include "util/util.h"

#define COUNT(s, field) __atomic_fetch_add(&(s)->totals.field, 1, __ATOMIC_RELAXED)

int sl_dwfl_enabled(struct sl_session *s, const struct sl_dwfl_ops *ops)
{
	int st = __atomic_load_n(&s->dwfl_state, __ATOMIC_ACQUIRE);

	if (st == 0) {
		const struct sl_lookup_rules *R = sl_model_libdwfl188.sym.lookup;
		const char *v = ops->version ? ops->version(NULL) : NULL;

		st = s->cfg.dwfl && R->version_matches(v) ? 1 : -1;
		if (st < 0 && s->cfg.dwfl && s->cfg.verbose)
			sl_warnx("symlazy: libdw %s is not %s, whose lookups symlazy mirrors; libdwfl answers itself",
				 v ? v : "?", R->version);
		__atomic_store_n(&s->dwfl_state, st, __ATOMIC_RELEASE);
	}
	return st > 0;
}

void sl_dwfl_mod_reset(struct sl_dwfl_mod *m)
{
	sl_dwfl_index_close(&m->idx);
	memset(m, 0, sizeof(*m));
}

int sl_dwfl_mod_uses(const struct sl_dwfl_mod *m, const Elf *elf)
{
	return elf && (m->elfs[0] == elf || m->elfs[1] == elf);
}

/* ---- the index's view of the module ----------------------------------- */

struct ctx {
	const struct sl_dwfl_ops *ops;
	Dwfl_Module *mod;
	GElf_Addr addr;
};

static const char *src_getsym(void *cp, int ndx, GElf_Sym *sym, uint64_t *value, uint32_t *shndx,
			      Elf **elf, uint64_t *bias)
{
	const struct ctx *c = cp;
	GElf_Addr v = 0;
	GElf_Word sh = 0;
	Dwarf_Addr b = 0;
	const char *name = c->ops->getsym_info(c->mod, ndx, sym, &v, &sh, elf, &b);

	*value = v;
	*shndx = sh;
	*bias = b;
	return name;
}

static int src_elf_facts(void *cp, Elf *elf, unsigned *e_type, unsigned *e_machine, struct sl_file_id *id)
{
	const struct ctx *c = cp;
	GElf_Ehdr eh;

	if (!c->ops->elf->gelf_getehdr(elf, &eh))
		return 0;
	*e_type = eh.e_type;
	*e_machine = eh.e_machine;
	if (!c->ops->elf_identity || !c->ops->elf_identity(c->ops->ctx, elf, id))
		id->valid = 0;
	return 1;
}

/*
 * same_section() of the addrsym variant (adjust_st_value true): the section
 * of the candidate's Elf that holds addr - bias, found by a walk in header
 * order (first match; none: SHN_ABS), against the candidate's section index;
 * reserved indexes (SHN_ABS, and -1 for non-SHF_ALLOC) match only exactly.
 */
static int same_section_addrsym(void *cp, const struct sl_lk_sym *s)
{
	const struct ctx *c = cp;
	const struct elf_ops *E = c->ops->elf;
	GElf_Sym sym;
	GElf_Addr value = 0, mod_addr;
	GElf_Word shndx = 0, addr_shndx = SHN_ABS;
	Dwarf_Addr bias = 0;
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;

	if (!c->ops->getsym_info(c->mod, (int)s->ndx, &sym, &value, &shndx, &elf, &bias) || !elf)
		return -1;
	if (shndx >= SHN_LORESERVE)
		return value == c->addr;
	mod_addr = c->addr - bias;
	while ((scn = E->elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (E->gelf_getshdr(scn, &sh) && mod_addr >= sh.sh_addr && mod_addr < sh.sh_addr + sh.sh_size) {
			addr_shndx = (GElf_Word)E->elf_ndxscn(scn);
			break;
		}
	}
	return shndx == addr_shndx;
}

/* The addrinfo variant's same_section() looks both addresses up in the
 * module's section cache (derelocate.c __libdwfl_find_section_ndx), which
 * can also set libdwfl's error: libdwfl decides. */
static int same_section_library(void *cp, const struct sl_lk_sym *s)
{
	(void)cp;
	(void)s;
	return -1;
}

/* ---- lookups ------------------------------------------------------------ */

static const char *library(struct sl_session *s, const struct sl_dwfl_ops *ops, Dwfl_Module *mod,
			   GElf_Addr addr, GElf_Off *off, GElf_Sym *sym, GElf_Word *shndxp, Elf **elfp,
			   Dwarf_Addr *biasp, int adjust)
{
	COUNT(s, dwfl_library);
	if (adjust)
		return ops->addrsym(mod, addr, sym, shndxp);
	return ops->addrinfo(mod, addr, off, sym, shndxp, elfp, biasp);
}

static void give_up(struct sl_session *s, struct sl_dwfl_mod *m, const struct sl_why *why)
{
	sl_dwfl_index_close(&m->idx);
	m->state = DM_LIBRARY;
	sl_why_format(why, m->why, sizeof(m->why));
	COUNT(s, dwfl_unmodelable);
	if (s->cfg.verbose)
		sl_warnx("symlazy: libdwfl module answered by libdwfl: %s", m->why);
}

/* Make the index of @m: the cache, or (after enough library calls) a build.
 * 1 if indexed, 0 if this lookup goes to libdwfl. */
static int ensure_index(struct sl_session *s, struct sl_dwfl_mod *m, struct sl_dwfl_src *src)
{
	struct sl_why why;
	int r, saved = errno;           /* our files and mappings are not the tool's business */

	if (m->library_calls < SL_DWFL_CACHE_AFTER) {
		m->library_calls++;
		return 0;
	}
	if (!m->cache_missed && sl_dwfl_index_cached(src, &m->idx) == 0) {
		errno = saved;
		COUNT(s, dwfl_cached);
	} else {
		errno = saved;
		m->cache_missed = 1;
		if (m->library_calls < SL_DWFL_BUILD_AFTER) {
			m->library_calls++;
			return 0;
		}
		r = sl_dwfl_index_build(src, &m->idx, &why);
		errno = saved;
		if (r != 0) {
			give_up(s, m, &why);        /* 1 or -errno: libdwfl answers */
			return 0;
		}
		COUNT(s, dwfl_built);
	}
	errno = saved;
	m->state = DM_INDEXED;
	m->syments = src->syments;
	m->first_global = src->first_global;
	/* the Elfs behind the symbols: their elf_end ends this index */
	for (uint32_t k = 0; k < m->idx.h->nelf && k < 2; k++) {
		GElf_Sym sym;
		uint64_t value, bias;
		uint32_t shndx;
		Elf *elf = NULL;

		if (!src->getsym(src->ctx, m->idx.h->elf[k].probe, &sym, &value, &shndx, &elf, &bias) || !elf) {
			struct sl_why w;

			sl_why_set(&w, SL_R_DWFL_STALE, "probe symbol unreadable");
			give_up(s, m, &w);
			return 0;
		}
		m->elfs[k] = elf;
	}
	return 1;
}

const char *sl_dwfl_lookup(struct sl_session *s, const struct sl_dwfl_ops *ops, struct sl_dwfl_mod *m,
			   Dwfl_Module *mod, GElf_Addr addr, GElf_Off *off, GElf_Sym *sym,
			   GElf_Word *shndxp, Elf **elfp, Dwarf_Addr *biasp, int adjust)
{
	const struct sl_lookup_rules *R = sl_model_libdwfl188.sym.lookup;
	struct ctx c = { ops, mod, addr };
	struct sl_dwfl_src src;
	struct sl_dwfl_qbuf qb;
	struct sl_lk_query q;
	const struct sl_lk_sym *best = NULL;
	Dwarf_Addr symbias = 0;
	GElf_Sym gs;
	GElf_Addr value = 0;
	GElf_Word shndx = 0;
	Dwarf_Addr b = 0;
	Elf *elf = NULL;
	const char *name;
	int syments, fg, r;

	COUNT(s, dwfl_lookups);
	if (!mod || !m)
		return library(s, ops, mod, addr, off, sym, shndxp, elfp, biasp, adjust);
	/* __libdwfl_addrsym begins with these two; failures are libdwfl's */
	syments = ops->getsymtab(mod);
	if (syments < 0)
		return library(s, ops, mod, addr, off, sym, shndxp, elfp, biasp, adjust);
	fg = ops->getsymtab_first_global(mod);
	if (fg < 0 || !ops->module_info(mod, NULL, NULL, NULL, NULL, &symbias, NULL, NULL))
		return library(s, ops, mod, addr, off, sym, shndxp, elfp, biasp, adjust);
	if (m->state != DM_NEW && (m->syments != syments || m->first_global != fg)) {
		unsigned calls = m->library_calls;

		sl_dwfl_mod_reset(m);       /* another module behind a reused pointer */
		m->library_calls = calls;
	}
	if (m->state == DM_LIBRARY)
		return library(s, ops, mod, addr, off, sym, shndxp, elfp, biasp, adjust);
	memset(&src, 0, sizeof(src));
	src.syments = syments;
	src.first_global = fg;
	src.base = symbias;
	src.rules = R;
	src.getsym = src_getsym;
	src.elf_facts = src_elf_facts;
	src.ctx = &c;
	{
		int saved = errno;

		src.cache_dirfd = sl_session_cache_fd(s);
		errno = saved;
	}
	if (m->state == DM_NEW && !ensure_index(s, m, &src))
		return library(s, ops, mod, addr, off, sym, shndxp, elfp, biasp, adjust);

	r = sl_dwfl_query(&m->idx, symbias, addr, &qb, &q);
	if (r < 0)
		return library(s, ops, mod, addr, off, sym, shndxp, elfp, biasp, adjust);
	q.same_section = adjust ? same_section_addrsym : same_section_library;
	q.ctx = &c;
	r = R->select(&q, &best);
	if (r < 0)
		return library(s, ops, mod, addr, off, sym, shndxp, elfp, biasp, adjust);
	if (r == 0) {
		/* no symbol: *off = addr - 0, closest_shndx SHN_UNDEF, closest_elf
		 * NULL; the bias of a NULL Elf depends on the module's debug Elf
		 * (dwfl_adjusted_st_value): libdwfl computes that one */
		if (biasp)
			return library(s, ops, mod, addr, off, sym, shndxp, elfp, biasp, adjust);
		if (off)
			*off = addr;
		if (shndxp)
			*shndxp = SHN_UNDEF;
		if (elfp)
			*elfp = NULL;
		COUNT(s, dwfl_answered);
		return NULL;
	}
	name = ops->getsym_info(mod, (int)best->ndx, &gs, &value, &shndx, &elf, &b);
	if (!name || value != best->value || !R->eligible(name, &gs) ||
	    (elf != m->elfs[0] && elf != m->elfs[1])) {
		struct sl_why w;

		sl_why_set(&w, SL_R_DWFL_STALE, NULL);
		give_up(s, m, &w);
		return library(s, ops, mod, addr, off, sym, shndxp, elfp, biasp, adjust);
	}
	if (adjust)
		gs.st_value = value;        /* addrsym returns the adjusted st_value */
	*sym = gs;
	if (off)
		*off = addr - value;
	if (shndxp)
		*shndxp = shndx;
	if (elfp)
		*elfp = elf;
	if (biasp)
		*biasp = b;
	COUNT(s, dwfl_answered);
	return name;
}
