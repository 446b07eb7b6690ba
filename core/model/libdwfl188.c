/* SPDX-License-Identifier: MIT */
/*
 * core/model/libdwfl188.c - the lookup rules of elfutils 0.188 libdwfl, the symbol
 * search behind dwfl_module_addrsym() and dwfl_module_addrinfo() (and
 * dwfl_module_addrname(), which calls addrinfo), mirrored from
 * libdwfl/dwfl_module_addrsym.c at tag elfutils-0.188 (written anew here,
 * not copied). The index side (which symbols are candidates of one address,
 * in which pass) is index/dwflindex.c; this file decides between them.
 *
 * What upstream does for one address ADDR (__libdwfl_addrsym):
 *   - the symbols are those of dwfl_module_getsymtab(): main table (locals,
 *     then globals) merged with the auxiliary .gnu_debugdata minisymtab
 *     (dwfl_module_getsym.c __libdwfl_getsym); each gives a name, a GElf_Sym,
 *     a value (st_value with the bias of its Elf applied unless SHN_ABS,
 *     SHN_UNDEF, SHN_COMMON or a non-SHF_ALLOC section; section-relative in
 *     ET_REL files), a section index (-1 for non-SHF_ALLOC) and its Elf;
 *   - pass 1 scans [first_global, syments) ([1, syments) when first_global
 *     is 0: a dynsym found through phdrs); pass 2 scans the locals
 *     [1, first_global) only if pass 1 found no sized symbol containing
 *     ADDR and did not find a sizeless one at exactly ADDR;
 *   - a symbol is tried (search_table) when its name is non-empty, st_shndx
 *     is not SHN_UNDEF, value <= ADDR and its type is not STT_SECTION,
 *     STT_FILE or STT_TLS;
 *   - try_sym_value: every tried symbol raises min_label to value + st_size;
 *     a sized symbol containing ADDR replaces the current best if there is
 *     none, or it starts later, or it binds stronger (GLOBAL 3 > WEAK 2 >
 *     LOCAL 1 > other 0), or it starts at the same value, binds equally and is
 *     smaller; a sizeless symbol becomes the fallback while there is no sized
 *     best, if value >= min_label (so no tried symbol reaches past it) and it
 *     lies in ADDR's section (same_section);
 *   - at the end the sized best wins, else the fallback if its value is still
 *     >= min_label.
 * Consequences used by dwfl188_select (each follows from the fold above):
 *   - the sized best depends only on the containing sized symbols of the one
 *     pass that has some, folded in index order;
 *   - without containing sized symbols the fallback, if any, is the last
 *     symbol in scan order, among the sizeless ones at the greatest sizeless
 *     value V <= ADDR, that passes same_section, and only if V >= min_label
 *     (min_label is then the max of value + size over the tried symbols).
 * On x86-64 (and every 0.188 backend but ARM's function address mask and
 * PPC64's function descriptors, backends/arm_init.c, backends/ppc64_init.c)
 * the addrinfo variant's "resolved" values never differ from st_value, so
 * both variants try each symbol once with the same value.
 */
#include <string.h>
#include "core/models.h"

int dwfl188_eligible(const char *name, const GElf_Sym *sym)
{
	unsigned type = GELF_ST_TYPE(sym->st_info);

	return name && name[0] != '\0' && sym->st_shndx != SHN_UNDEF &&
	       type != STT_SECTION && type != STT_FILE && type != STT_TLS;
}

/* binding_value() */
int dwfl188_bind_rank(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
		return 3;
	case STB_WEAK:
		return 2;
	case STB_LOCAL:
		return 1;
	default:
		return 0;
	}
}

/* try_sym_value() for a sized symbol @c containing the address, against the
 * current best @cur: the two conditions of upstream, in upstream's form. */
int dwfl188_replaces(const struct sl_lk_sym *cur, const struct sl_lk_sym *c)
{
	if (!cur || cur->value < c->value || cur->bind < c->bind)
		return 1;
	return cur->value == c->value &&
	       ((cur->size > c->size && cur->bind <= c->bind) ||
		(cur->size >= c->size && cur->bind < c->bind));
}

static const struct sl_lk_sym *fold(const struct sl_lk_sym *c, size_t n)
{
	const struct sl_lk_sym *cur = NULL;

	for (size_t i = 0; i < n; i++)
		if (dwfl188_replaces(cur, &c[i]))
			cur = &c[i];
	return cur;
}

/* The last candidate of atv[@s] in scan order that passes same_section:
 * 1 with *@out, 0 none, -1 a later one cannot be decided. */
static int last_in_section(const struct sl_lk_query *q, int s, const struct sl_lk_sym **out)
{
	for (size_t i = q->natv[s]; i-- > 0;) {
		int r = q->same_section(q->ctx, &q->atv[s][i]);

		if (r < 0)
			return -1;
		if (r) {
			*out = &q->atv[s][i];
			return 1;
		}
	}
	return 0;
}

/* The sizeless fallback of scope @s (no containing sized symbol in it). */
static int fallback(const struct sl_lk_query *q, int s, const struct sl_lk_sym **out)
{
	if (!q->have_v[s] || q->v[s] < q->m[s])
		return 0;
	return last_in_section(q, s, out);
}

int dwfl188_select(const struct sl_lk_query *q, const struct sl_lk_sym **out)
{
	int r;

	/* pass 1: globals (all of the table when first_global is 0 or 1) */
	if (q->ncont[0]) {
		*out = fold(q->cont[0], q->ncont[0]);
		return 1;
	}
	if (!q->two_passes)
		return fallback(q, 0, out);
	/* pass 1 ended with a sizeless fallback at exactly ADDR: no pass 2,
	 * and that fallback is the answer (its value ADDR is >= min_label, as
	 * every tried sized symbol ends at or before ADDR) */
	if (q->have_v[0] && q->v[0] == q->addr) {
		r = last_in_section(q, 0, out);
		if (r != 0)
			return r;
	}
	/* pass 2: locals, continuing with pass 1's min_label and fallback */
	if (q->ncont[1]) {
		*out = fold(q->cont[1], q->ncont[1]);
		return 1;
	}
	return fallback(q, 1, out);
}

/* Machines whose 0.188 backend changes symbol values for lookups. */
static int dwfl188_machine_ok(unsigned e_machine)
{
	return e_machine != EM_ARM && e_machine != EM_PPC64;
}

/*
 * The versions whose lookups are these rules: 0.188, and 0.192 (Debian 13's
 * libdw1t64 0.192-4). Between the tags elfutils-0.188 and elfutils-0.192 the
 * files behind the lookup are unchanged: libdwfl/dwfl_module_addrsym.c,
 * dwfl_module_addrname.c, dwfl_module_getsym.c and dwfl_module_getsymtab.c
 * not at all; dwfl_module_getdwarf.c only in its include paths and in
 * load_dw (the Dwarf's elfpath for dwp files, commit "libdw, libdwfl: Save
 * original path of ELF file"), not in find_symtab, find_aux_sym or
 * find_dynsym, which build the tables searched; backends/arm_init.c and
 * ppc64_init.c still install their symbol-value hooks (machine_ok below).
 * 0.189-0.191 are not listed: no build of them was compared here.
 */
static int dwfl188_version_matches(const char *v)
{
	return v && (!strcmp(v, "0.188") || !strcmp(v, "0.192"));
}

static const struct sl_lookup_rules dwfl188_rules = {
	.eligible = dwfl188_eligible,
	.bind_rank = dwfl188_bind_rank,
	.replaces = dwfl188_replaces,
	.select = dwfl188_select,
	.machine_ok = dwfl188_machine_ok,
	.version = "0.188 or 0.192",
	.version_matches = dwfl188_version_matches,
};

static enum sl_sym_kind dwfl188_sym_kind(const GElf_Sym *s)
{
	(void)s;
	return SL_SYM_SKIP;         /* libdwfl keeps no table: nothing to charge */
}

static int dwfl188_label_section_ok(const char *name)
{
	(void)name;
	return 0;
}

static uint64_t dwfl188_sym_cost(uint64_t namelen)
{
	(void)namelen;
	return 0;
}

const struct sl_tool_model sl_model_libdwfl188 = {
	.sym.name = "libdwfl-0.188",
	.tool = "libdwfl",
	.sym.sym_kind = dwfl188_sym_kind,
	.sym.label_section_ok = dwfl188_label_section_ok,
	.sym.sym_cost = dwfl188_sym_cost,
	.sym.lookup = &dwfl188_rules,
};
