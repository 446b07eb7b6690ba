/* SPDX-License-Identifier: MIT */
/*
 * srcline/a2l_dwarf_die.c - srcline/a2l_dwarf.h: units and DIEs as
 * binutils-2.40 bfd/dwarf2.c parse_comp_unit, scan_unit_for_symbols and
 * find_abstract_instance read them, the unit map and its zones (the order
 * its trie asks units in: insert_arange_in_trie), and the best function
 * per address (lookup_address_in_function_table).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elf.h>
#include <dwarf.h>
#include "index/cache.h"
#include "index/format.h"
#include "srcline/a2l.h"
#include "srcline/a2l_dwarf.h"
#include "srcline/a2l_dwarf_int.h"
#include "srcline/a2l_elf.h"

struct mev { uint64_t lo, hi; uint32_t unit; int extra; };

struct fr { uint64_t lo, hi; uint32_t fn; };
/* ---- units and DIEs (parse_comp_unit, scan_unit_for_symbols) --------------------- */

/* bfd/dwarf2.c mangle_style(lang) == 0: DW_AT_name is the linkage name */
static int name_is_linkage(uint64_t lang)
{
	switch (lang) {
	case 0x1: case 0x2: case 0x5: case 0x6: case 0x7: case 0x9: case 0xf: case 0xc: case 0x12: case 0x1d:
	case 0x8001: case 0x8765: case 0x8004: case 0x8006: case 0x8007:
		return 1;
	default:
		return 0;
	}
}

int a2d_parse_unit(struct bld *b, uint64_t off, uint64_t *next)
{
	struct rd r = { b->info.p + off, b->info.p + b->info.n, 0 };
	struct unit *u;
	uint64_t len, abo, code, low = 0, high = 0;
	const struct abbr *ab;
	const struct aattr *at;
	int rel = 0, rr;

	len = a2d_rd_n(&r, 4);
	if (r.bad || len == 0xffffffff || len == 0)
		return -ENOTSUP;       /* 64-bit DWARF (or IRIX's) */
	if (len > (uint64_t)(r.e - r.p))
		return -EINVAL;
	r.e = r.p + len;
	*next = off + 4 + len;
	if (!(u = a2d_vpush(&b->units)))
		return -ENOMEM;
	u->off = off;
	u->end = *next;
	u->own.sz = u->extra.sz = sizeof(struct arng);
	u->dirs.sz = sizeof(const char *);
	u->files.sz = sizeof(struct file_ent);
	u->version = (unsigned)a2d_rd_n(&r, 2);
	if (u->version < 4 || u->version > 5)
		return -ENOTSUP;
	if (u->version == 5) {
		if (a2d_rd_n(&r, 1) != DW_UT_compile)
			return -ENOTSUP;
		u->addr_size = (unsigned)a2d_rd_n(&r, 1);
		abo = a2d_rd_n(&r, 4);
	} else {
		abo = a2d_rd_n(&r, 4);
		u->addr_size = (unsigned)a2d_rd_n(&r, 1);
	}
	if (r.bad)
		return -EINVAL;
	if (u->addr_size != 8)
		return -ENOTSUP;
	if ((rr = a2d_read_abbrevs(b, u, abo)) < 0)
		return rr;
	code = a2d_rd_uleb(&r);
	if (r.bad || !code || !(ab = a2d_abbr_of(b, u, code)))
		return -EINVAL;
	if (ab->tag != DW_TAG_compile_unit)
		return -ENOTSUP;
	u->compile = 1;
	at = ab->nattr ? (const struct aattr *)b->aattrs.p + ab->first : NULL;
	for (uint32_t i = 0; i < ab->nattr; i++) {
		struct attr a;

		if ((rr = a2d_read_attr(b, u, &r, at[i].form, at[i].ic, &a)) < 0)
			return rr;
		switch (at[i].name) {
		case DW_AT_stmt_list:
			if (a2d_is_int_form(a.form)) {
				u->stmtlist = 1;
				u->line_off = a.val;
			}
			break;
		case DW_AT_low_pc:
			if (a2d_is_int_form(a.form))
				low = u->base = a.val;
			break;
		case DW_AT_high_pc:
			if (a2d_is_int_form(a.form)) {
				high = a.val;
				rel = a.form != DW_FORM_addr;
			}
			break;
		case DW_AT_ranges:
			if (a2d_is_int_form(a.form) && (rr = a2d_read_rangelist(b, u, a.val, &u->own)) < 0)
				return rr;
			break;
		case DW_AT_comp_dir: {
			const char *cd = a.kind == AV_STR ? a.str : NULL, *cp;

			if (cd && (cp = strchr(cd, ':')) && cp != cd && cp[-1] == '.' && cp[1] == '/')
				cd = cp + 1;    /* Irix 6.2 "<machine>.:" */
			u->comp_dir = cd;
			break;
		}
		case DW_AT_language:
			if (a2d_is_int_form(a.form))
				u->lang = a.val;
			break;
		case DW_AT_addr_base:
		case DW_AT_str_offsets_base:
		case DW_AT_GNU_dwo_name:
		case DW_AT_dwo_name:
			return -ENOTSUP;
		default:
			break;
		}
	}
	if (rel)
		high += low;
	if (high != 0 && (rr = a2d_arange_add(&u->own, low, high)) < 0)
		return rr;
	u->first_die = (uint64_t)(r.p - b->info.p);
	return 0;
}

static const struct unit *unit_at(const struct bld *b, uint64_t off)
{
	const struct unit *u = b->units.p;
	size_t lo = 0, hi = b->units.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (off < u[mid].off)
			hi = mid;
		else if (off >= u[mid].end)
			lo = mid + 1;
		else
			return &u[mid];
	}
	return NULL;
}

/* bfd/dwarf2.c find_abstract_instance: the name (and is_linkage) of the DIE @a refers to */
static int find_abstract(struct bld *b, const struct unit *u, const struct attr *ref, unsigned depth,
			 const char **pname, int *linkage)
{
	uint64_t die;
	struct rd r;
	const struct abbr *ab;
	const struct aattr *at;
	uint64_t code;
	int rr;

	if (depth == 100)
		return -EINVAL;
	if (ref->form == DW_FORM_ref_addr) {
		if (!ref->val)
			return 0;
		if (ref->val >= b->info.n || !(u = unit_at(b, ref->val)))
			return -EINVAL;
		die = ref->val;
	} else if (ref->form == DW_FORM_ref1 || ref->form == DW_FORM_ref2 || ref->form == DW_FORM_ref4 ||
		   ref->form == DW_FORM_ref8 || ref->form == DW_FORM_ref_udata) {
		if (!ref->val || ref->val >= u->end - u->off)
			return -EINVAL;
		die = u->off + ref->val;
	} else {
		return -ENOTSUP;
	}
	r = (struct rd){ b->info.p + die, b->info.p + u->end, 0 };
	code = a2d_rd_uleb(&r);
	if (r.bad)
		return -EINVAL;
	if (!code)
		return 0;
	if (!(ab = a2d_abbr_of(b, u, code)))
		return -EINVAL;
	at = ab->nattr ? (const struct aattr *)b->aattrs.p + ab->first : NULL;
	for (uint32_t i = 0; i < ab->nattr; i++) {
		struct attr a;

		if ((rr = a2d_read_attr(b, u, &r, at[i].form, at[i].ic, &a)) < 0)
			return rr;      /* bfd stops quietly: refused */
		switch (at[i].name) {
		case DW_AT_name:
			if (!*pname && a.kind == AV_STR) {
				*pname = a.str;
				if (name_is_linkage(u->lang))
					*linkage = 1;
			}
			break;
		case DW_AT_specification:
			if (a2d_is_int_form(a.form) && (rr = find_abstract(b, u, &a, depth + 1, pname, linkage)) < 0)
				return rr;
			break;
		case DW_AT_linkage_name:
		case DW_AT_MIPS_linkage_name:
			if (a.kind == AV_STR) {
				*pname = a.str;
				*linkage = 1;
			}
			break;
		case DW_AT_decl_file:
			/* comp_unit_maybe_decode_line_info(unit) must succeed */
			if (!u->stmtlist)
				return -ENOTSUP;
			break;
		default:
			break;
		}
	}
	return 0;
}

int a2d_scan_unit(struct bld *b, uint32_t ui)
{
	struct unit *u = (struct unit *)b->units.p + ui;
	struct rd r = { b->info.p + u->first_die, b->info.p + u->end, 0 };
	uint32_t *stack = NULL;
	size_t cap = 0;
	long level = 0;
	struct vec rng = { NULL, 0, 0, sizeof(struct arng) };
	int rr = 0;

	u->fn_first = (uint32_t)b->fns.n;
	if (u->first_die >= u->end)
		goto out;
	cap = 64;
	if (!(stack = malloc(cap * 4)))
		return -ENOMEM;
	stack[0] = A2L_NONE;
	while (level >= 0) {
		uint64_t die = (uint64_t)(r.p - b->info.p), code, low = 0, high = 0;
		const struct abbr *ab;
		const struct aattr *at;
		uint32_t fi = A2L_NONE;
		struct fn *f = NULL;
		int rel = 0;

		if (r.p >= r.e) {
			rr = -EINVAL;
			goto out;
		}
		code = a2d_rd_uleb(&r);
		if (r.bad) {
			rr = -EINVAL;
			goto out;
		}
		if (!code) {
			level--;
			continue;
		}
		if (!(ab = a2d_abbr_of(b, u, code))) {
			rr = -EINVAL;
			goto out;
		}
		if (ab->tag == DW_TAG_subprogram || ab->tag == DW_TAG_entry_point ||
		    ab->tag == DW_TAG_inlined_subroutine) {
			if (b->fns.n >= A2L_NONE - 1 || !(f = a2d_vpush(&b->fns))) {
				rr = -ENOMEM;
				goto out;
			}
			fi = (uint32_t)(b->fns.n - 1);
			f->cu = ui;
			f->die = die;
			f->caller = A2L_NONE;
			f->call_file_s = NULL;
			if (ab->tag == DW_TAG_inlined_subroutine) {
				f->flags |= A2D_F_INLINED;
				for (long i = level; i-- > 0;)
					if (stack[i] != A2L_NONE) {
						f->caller = stack[i];
						break;
					}
			}
		}
		stack[level] = fi;
		rng.n = 0;
		at = ab->nattr ? (const struct aattr *)b->aattrs.p + ab->first : NULL;
		for (uint32_t i = 0; i < ab->nattr; i++) {
			struct attr a;
			const char *name;
			int lk;

			if ((rr = a2d_read_attr(b, u, &r, at[i].form, at[i].ic, &a)) < 0)
				goto out;
			if (fi == A2L_NONE)
				continue;
			f = (struct fn *)b->fns.p + fi;
			switch (at[i].name) {
			case DW_AT_call_file:
				if (a2d_is_int_form(a.form) && !(f->call_file_s = a2d_concat_filename(b, u, a.val))) {
					rr = -ENOMEM;
					goto out;
				}
				break;
			case DW_AT_call_line:
				if (a2d_is_int_form(a.form))
					f->call_line = (uint32_t)a.val;
				break;
			case DW_AT_abstract_origin:
			case DW_AT_specification:
				if (a2d_is_int_form(a.form)) {
					name = f->name;
					lk = !!(f->flags & A2D_F_LINKAGE);
					if ((rr = find_abstract(b, u, &a, 0, &name, &lk)) < 0)
						goto out;
					f = (struct fn *)b->fns.p + fi;
					f->name = name;
					f->flags = (f->flags & ~A2D_F_LINKAGE) | (lk ? A2D_F_LINKAGE : 0);
				}
				break;
			case DW_AT_name:
				if (!f->name && a.kind == AV_STR) {
					f->name = a.str;
					if (name_is_linkage(u->lang))
						f->flags |= A2D_F_LINKAGE;
				}
				break;
			case DW_AT_linkage_name:
			case DW_AT_MIPS_linkage_name:
				if (a.kind == AV_STR) {
					f->name = a.str;
					f->flags |= A2D_F_LINKAGE;
				}
				break;
			case DW_AT_low_pc:
				if (a2d_is_int_form(a.form))
					low = a.val;
				break;
			case DW_AT_high_pc:
				if (a2d_is_int_form(a.form)) {
					high = a.val;
					rel = a.form != DW_FORM_addr;
				}
				break;
			case DW_AT_ranges:
				if (a2d_is_int_form(a.form) && (rr = a2d_read_rangelist(b, u, a.val, &rng)) < 0)
					goto out;
				break;
			default:
				break;
			}
		}
		if (ab->children) {
			level++;
			if ((size_t)level >= cap) {
				uint32_t *ns = realloc(stack, cap * 2 * 4);

				if (!ns) {
					rr = -ENOMEM;
					goto out;
				}
				stack = ns;
				cap *= 2;
			}
			stack[level] = A2L_NONE;
		}
		if (rel)
			high += low;
		if (fi != A2L_NONE && high != 0 && (rr = a2d_arange_add(&rng, low, high)) < 0)
			goto out;
		if (fi != A2L_NONE) {
			const struct arng *a = rng.p;

			f = (struct fn *)b->fns.p + fi;
			f->first_rng = (uint32_t)b->frng.n;
			f->nrng = (uint32_t)rng.n;
			for (size_t k = 0; k < rng.n; k++) {
				struct arng *d = a2d_vpush(&b->frng);

				if (!d) {
					rr = -ENOMEM;
					goto out;
				}
				*d = a[k];
				if ((rr = a2d_arange_push(&u->extra, a[k].lo, a[k].hi)) < 0)
					goto out;
			}
		}
	}
out:
	u->fn_end = (uint32_t)b->fns.n;
	free(stack);
	free(rng.p);
	return rr;
}

/* ---- where laziness could matter ---------------------------------------------------- */

int a2d_arng_cmp(const void *pa, const void *pb)
{
	const struct arng *a = pa, *b = pb;

	return a->lo < b->lo ? -1 : a->lo > b->lo ? 1 : (a->hi < b->hi ? -1 : a->hi > b->hi);
}



/* 1 when [lo, hi) meets an SHF_ALLOC section (a query can land there) */
int a2d_meets_alloc(const struct sl_elfimg *m, uint64_t lo, uint64_t hi)
{
	Elf64_Shdr sh;

	for (size_t i = 1; i < m->shnum; i++)
		if (sl_elfimg_shdr(m, i, &sh) == 0 && (sh.sh_flags & SHF_ALLOC) && sh.sh_type != SHT_NULL && sh.sh_size &&
		    lo < sh.sh_addr + sh.sh_size && sh.sh_addr < hi)
			return 1;
	return 0;
}

/* [lo, hi) inside one of the merged, sorted ranges @o[0, n) */
static int inside(const struct arng *o, size_t n, uint64_t lo, uint64_t hi)
{
	size_t a = 0, z = n;

	while (a < z) {         /* last own range with lo <= x.lo */
		size_t mid = (a + z) / 2;

		if (o[mid].lo <= lo)
			a = mid + 1;
		else
			z = mid;
	}
	return a > 0 && hi <= o[a - 1].hi;
}

/* [lo, hi) meets one of the merged, sorted ranges @o[0, n) */
static int meets_own(const struct arng *o, size_t n, uint64_t lo, uint64_t hi)
{
	size_t a = 0, z = n;

	while (a < z) {         /* first own range with hi > lo */
		size_t mid = (a + z) / 2;

		if (o[mid].hi <= lo)
			a = mid + 1;
		else
			z = mid;
	}
	return a < n && o[a].lo < hi;
}

size_t a2d_arng_merge(struct arng *z, size_t n, const struct sl_elfimg *m)
{
	size_t nz = 0;

	if (n)
		qsort(z, n, sizeof(*z), a2d_arng_cmp);
	for (size_t k = 0; k < n; k++) {
		if (z[k].lo >= z[k].hi || (m && !a2d_meets_alloc(m, z[k].lo, z[k].hi)))
			continue;
		if (nz && z[k].lo <= z[nz - 1].hi) {
			if (z[k].hi > z[nz - 1].hi)
				z[nz - 1].hi = z[k].hi;
		} else {
			z[nz++] = z[k];
		}
	}
	return nz;
}

/* merge each unit's own ranges (sorted, disjoint) */
void a2d_merge_own(struct bld *b)
{
	struct unit *u = b->units.p;

	for (size_t i = 0; i < b->units.n; i++)
		u[i].own.n = a2d_arng_merge(u[i].own.p, u[i].own.n, NULL);
}

/* unit @u answers (a function or a line) everywhere in [lo, hi) */
static int unit_covers(const struct bld *b, const struct unit *u, uint64_t lo, uint64_t hi)
{
	const struct a2d_fint *f = b->fints.p;
	const struct ltmp *l = b->lints.p;

	while (lo < hi) {
		uint64_t next = lo;
		uint32_t a, z;

		for (a = u->f_first, z = u->f_end; a < z;) {
			uint32_t mid = a + (z - a) / 2;

			if (f[mid].hi <= lo)
				a = mid + 1;
			else
				z = mid;
		}
		if (a < u->f_end && f[a].lo <= lo)
			next = f[a].hi;
		for (a = u->l_first, z = u->l_end; a < z;) {
			uint32_t mid = a + (z - a) / 2;

			if (l[mid].hi <= lo)
				a = mid + 1;
			else
				z = mid;
		}
		if (a < u->l_end && l[a].lo <= lo && l[a].hi > next)
			next = l[a].hi;
		if (next == lo)
			return 0;
		lo = next;
	}
	return 1;
}

int a2d_u64_cmp(const void *pa, const void *pb);



static int mev_cmp(const void *pa, const void *pb)
{
	const struct mev *a = pa, *b = pb;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/*
 * The unit map and the zones. bfd's trie keeps each leaf's ranges in the
 * order they were inserted (a range of the same unit that overlaps or
 * touches one already there widens that entry: insert_arange_in_trie), and
 * asks the units in that order; a unit's own ranges are inserted when it is
 * read (in .debug_info order), its function ranges and line sequences when
 * it is first asked (decoded). So at an address the first unit U (in
 * .debug_info order) whose own ranges hold it is asked before any other,
 * unless an earlier unit's function range or sequence outside its own
 * ranges holds it too (inserted whenever that unit was decoded): a zone.
 * Where U answers (a function or a line) its answer is binutils'; where it
 * does not and another unit could (its own ranges, or a function range or
 * sequence outside them), a zone; where no unit's own ranges hold the
 * address and none's function range or sequence does, no unit answers.
 * Only addresses inside SHF_ALLOC sections matter (no query lands elsewhere).
 */
int a2d_build_map(struct bld *b)
{
	struct unit *u = b->units.p;
	struct vec ev = { NULL, 0, 0, sizeof(struct mev) }, act = { NULL, 0, 0, sizeof(uint32_t) };
	uint64_t *bd = NULL;
	size_t nb = 0, j = 0;
	int rr = 0;

	for (size_t i = 0; i < b->units.n; i++) {
		const struct arng *o = u[i].own.p, *x = u[i].extra.p;

		if (!u[i].stmtlist)
			continue;       /* comp_unit_maybe_decode_line_info fails: never answers */
		for (size_t k = 0; k < u[i].own.n; k++) {
			struct mev *e = a2d_vpush(&ev);

			if (!e)
				goto nomem;
			*e = (struct mev){ o[k].lo, o[k].hi, (uint32_t)i, 0 };
		}
		for (size_t k = 0; k < u[i].extra.n; k++) {
			struct mev *e;

			if (x[k].lo >= x[k].hi || inside(o, u[i].own.n, x[k].lo, x[k].hi) ||
			    !a2d_meets_alloc(b->m, x[k].lo, x[k].hi))
				continue;
			if (!(e = a2d_vpush(&ev)))
				goto nomem;
			*e = (struct mev){ x[k].lo, x[k].hi, (uint32_t)i, 1 };
		}
	}
	if (!ev.n)
		goto out;
	qsort(ev.p, ev.n, sizeof(struct mev), mev_cmp);
	if (!(bd = malloc(2 * ev.n * sizeof(*bd))))
		goto nomem;
	for (size_t k = 0; k < ev.n; k++) {
		bd[nb++] = ((struct mev *)ev.p)[k].lo;
		bd[nb++] = ((struct mev *)ev.p)[k].hi;
	}
	qsort(bd, nb, sizeof(*bd), a2d_u64_cmp);
	for (size_t i = 0; i < nb; i++) {
		const struct mev *e = ev.p;
		uint32_t *a, U = A2L_NONE, emin = A2L_NONE, on = 0, en = 0;
		uint64_t x = bd[i], y;
		size_t w = 0, i2 = i + 1;

		if (i && bd[i - 1] == x)
			continue;
		while (i2 < nb && bd[i2] == x)
			i2++;
		if (i2 >= nb)
			break;
		y = bd[i2];
		a = act.p;
		for (size_t k = 0; k < act.n; k++)
			if (e[a[k]].hi > x)
				a[w++] = a[k];
		act.n = w;
		while (j < ev.n && e[j].lo == x) {
			uint32_t *s;

			if (act.n >= 1u << 20) {
				rr = sl_whyf(b->why, SL_R_A2L_DWARF, -ENOTSUP, "more than 2^20 ranges overlap at %#llx",
					   (unsigned long long)x);
				goto out;
			}
			if (!(s = a2d_vpush(&act)))
				goto nomem;
			*s = (uint32_t)j++;
		}
		if (!a2d_meets_alloc(b->m, x, y))
			continue;
		a = act.p;
		for (size_t k = 0; k < act.n; k++) {
			const struct mev *c = &e[a[k]];

			if (c->extra) {
				en++;
				emin = c->unit < emin ? c->unit : emin;
			} else {
				on++;
				U = c->unit < U ? c->unit : U;
			}
		}
		if (U == A2L_NONE ? en > 0 : (emin < U || ((on > 1 || en) && !unit_covers(b, &u[U], x, y)))) {
			if ((rr = a2d_arange_push(&b->zone, x, y)) < 0)
				goto out;
		} else if (U != A2L_NONE) {
			struct crng *c = b->cranges.n ? (struct crng *)b->cranges.p + b->cranges.n - 1 : NULL;

			if (c && c->hi == x && c->cu == U) {
				c->hi = y;
			} else {
				if (!(c = a2d_vpush(&b->cranges)))
					goto nomem;
				*c = (struct crng){ x, y, U };
			}
		}
	}
	goto out;
nomem:
	rr = -ENOMEM;
out:
	free(ev.p);
	free(act.p);
	free(bd);
	return rr;
}

/* ---- the best function per address (lookup_address_in_function_table) ------------ */



static int fr_cmp(const void *pa, const void *pb)
{
	const struct fr *a = pa, *b = pb;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

int a2d_u64_cmp(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

int a2d_func_intervals(struct bld *b, struct unit *u)
{
	const struct fn *fns = b->fns.p;
	const struct arng *fr = b->frng.p;
	struct fr *v = NULL;
	uint64_t *bd = NULL;
	uint32_t *act = NULL;
	size_t n = 0, nb = 0, na = 0, j = 0;
	int rr = 0;

	u->f_first = (uint32_t)b->fints.n;
	for (uint32_t f = u->fn_first; f < u->fn_end; f++)
		n += fns[f].nrng;
	if (!n)
		goto done;
	v = malloc(n * sizeof(*v));
	bd = malloc(2 * n * sizeof(*bd));
	act = malloc(MAX_ACTIVE * sizeof(*act));
	if (!v || !bd || !act) {
		rr = -ENOMEM;
		goto done;
	}
	n = 0;
	for (uint32_t f = u->fn_first; f < u->fn_end; f++)
		for (uint32_t k = 0; k < fns[f].nrng; k++) {
			const struct arng *a = &fr[fns[f].first_rng + k];

			if (a->lo >= a->hi)
				continue;       /* never holds an address */
			/* only answers for addresses inside the unit's own ranges
			 * are used (build_map): a range meeting none is left out */
			if (!meets_own(u->own.p, u->own.n, a->lo, a->hi))
				continue;
			v[n] = (struct fr){ a->lo, a->hi, f };
			bd[nb++] = a->lo;
			bd[nb++] = a->hi;
			n++;
		}
	qsort(v, n, sizeof(*v), fr_cmp);
	qsort(bd, nb, sizeof(*bd), a2d_u64_cmp);
	for (size_t i = 0; i < nb; i++) {
		uint64_t x = bd[i];
		uint32_t best = A2L_NONE;
		uint64_t blen = 0;
		size_t w = 0;

		if (i && bd[i - 1] == x)
			continue;
		for (size_t k = 0; k < na; k++)         /* drop the ended ones */
			if (v[act[k]].hi > x)
				act[w++] = act[k];
		na = w;
		while (j < n && v[j].lo == x) {
			if (na == MAX_ACTIVE) {
				rr = sl_whyf(b->why, SL_R_A2L_DWARF, -ENOTSUP, "more than %d function ranges overlap at %#llx",
					   MAX_ACTIVE, (unsigned long long)x);
				goto done;
			}
			act[na++] = (uint32_t)j++;
		}
		for (size_t k = 0; k < na; k++) {
			const struct fr *c = &v[act[k]];
			uint64_t len = c->hi - c->lo;

			if (best == A2L_NONE || len < blen || (len == blen && c->fn > best)) {
				best = c->fn;
				blen = len;
			}
		}
		if (best != A2L_NONE) {
			size_t i2 = i + 1;
			struct a2d_fint *o = b->fints.n ? (struct a2d_fint *)b->fints.p + b->fints.n - 1 : NULL;

			while (i2 < nb && bd[i2] == x)
				i2++;
			if (i2 >= nb)
				break;
			if (o && b->fints.n > u->f_first && o->hi == x && o->fn == best) {
				o->hi = bd[i2];
			} else {
				if (!(o = a2d_vpush(&b->fints))) {
					rr = -ENOMEM;
					goto done;
				}
				*o = (struct a2d_fint){ x, bd[i2], best, 0 };
			}
		}
	}
done:
	u->f_end = (uint32_t)b->fints.n;
	free(v);
	free(bd);
	free(act);
	return rr;
}

