/* SPDX-License-Identifier: MIT */
/*
 * session.c - the decisions of session.h, ported from the shim so that unit
 * tests and the `symlazy` command reach them. Order of a run:
 * sl_session_config (constructor) -> sl_session_setup (first libelf call) ->
 * per Elf sl_dso_init, per table sl_table_init, per gelf_getsym
 * sl_table_filter (which makes the DSO's plan at the start of its first
 * scan) -> sl_session_report (exit).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "index/cache.h"
#include "core/models.h"
#include "core/a2lsess.h"
#include "core/session.h"
#include "core/tool.h"
#include "perfdata/unwind.h"
#include "util/util.h"

/* ---- process ------------------------------------------------------------ */

static void why_to_totals(struct sl_session *s, const struct sl_why *w)
{
	s->lazy_why = *w;
	sl_why_format(w, s->totals.lazy_reason, sizeof(s->totals.lazy_reason));
	s->totals.lazy_reason_code = w->code == SL_R_NONE ? NULL : sl_reason_name(w->code);
}

static void set_lazy_why(struct sl_session *s, enum sl_reason code, const char *detail)
{
	struct sl_why w;

	if (detail)
		sl_why_set(&w, code, "%s", detail);
	else
		sl_why_set(&w, code, NULL);
	why_to_totals(s, &w);
}

int sl_session_config(struct sl_session *s, const char *(*get)(const char *name))
{
	ssize_t n;

	memset(s, 0, sizeof(*s));
	s->cache_dirfd = -1;
	s->dem_mode = SYMIDX_DEM_NOOPTS;
	s->model = &sl_model_perf61;
	s->stats_tail = &s->stats_head;
	pthread_mutex_init(&s->stats_lock, NULL);
	pthread_mutex_init(&s->cache_lock, NULL);
	s->text_stats_tail = &s->text_stats_head;       /* text sources' stats (core/textsess.c) */
	pthread_mutex_init(&s->text_lock, NULL);
	config_load(&s->cfg, get);
	s->getenv_fn = get;
	if (s->cfg.disabled)
		return 0;
	/* perf enters a container's mount namespace around symbol loads; the
	 * cache dir must be the one of the namespace we started in. */
	n = readlink("/proc/self/ns/mnt", s->start_mntns, sizeof(s->start_mntns) - 1);
	s->start_mntns[n > 0 ? n : 0] = '\0';
	/* launchers in front of the tool (env, time, sudo, sh) keep LD_PRELOAD
	 * so the tool still gets it: only the tool itself drops us, when it
	 * starts workloads (perf record, uftrace record/live, bpftrace -c) */
	s->tool = sl_tool_self();
	s->charge = sl_charge_model((enum sl_tool)s->tool, 0, NULL);
	pthread_mutex_init(&s->charged_lock, NULL);
	{
		/* every perf model launches workloads; the version is not known
		 * yet (the image is read at the first libelf call) */
		const struct sl_tool_model *const *ms;
		size_t nm = s->tool == SL_TOOL_PERF ? sl_models_for_tool(SL_TOOL_PERF, &ms) : 0, k;
		int launches = s->charge->launches_workloads;

		for (k = 0; k < nm; k++)
			launches |= ms[k]->launches_workloads;
		s->drop_preload = !s->cfg.inherit && s->tool != SL_TOOL_OTHER && s->tool != SL_TOOL_LISTER &&
				  launches;
	}
	return 1;
}

/* Is perf's subcommand (after perf 6.1's global options) one lazy mode
 * serves (core/model/perfsubcmds.c sl_perf_lazy_subcmd)? A cheap test
 * before the model is known; a miss only costs the version verdict's cache. */
static int lazy_subcommand(void)
{
	char **argv = NULL;
	int argc = 0, sub, r = 0;

	if (sl_cmdline_read("/proc/self/cmdline", &argc, &argv) < 0)
		return 0;
	sub = perf61_subcommand(argc, argv);
	if (sub >= 0)
		r = sl_perf_lazy_subcmd(argc, argv, sub);
	sl_cmdline_free(argv);
	return r;
}

/* Work out whether lazy mode applies and which perf.data files to read
 * (core/inputs.c: s->inputs). Returns 1, or 0 with @why set. */
static int lazy_target(struct sl_session *s, struct sl_why *why)
{
	struct sl_invocation inv;
	char **argv = NULL;
	int argc = 0, r;

	r = sl_cmdline_read("/proc/self/cmdline", &argc, &argv);
	if (r < 0) {
		sl_why_set(why, r == -ENODATA ? SL_R_EMPTY_CMDLINE : SL_R_NO_CMDLINE, NULL);
		return 0;
	}
	if (!s->model->parse_argv(argc, argv, &inv) || !s->model->text_output(&inv, isatty(1))) {
		*why = inv.why;
		sl_cmdline_free(argv);
		return 0;
	}
	s->dem_mode = inv.demangle;
	s->annotate = inv.annotate;
	if (inv.symfs)
		snprintf(s->symfs, sizeof(s->symfs), "%s", inv.symfs);
	if (inv.kallsyms)        /* perf reads this file instead of /proc/kallsyms */
		snprintf(s->kallsyms_arg, sizeof(s->kallsyms_arg), "%s", inv.kallsyms);
	r = sl_inputs_take(s, &inv, why);
	sl_cmdline_free(argv);
	return r;
}

/* Read SYMLAZY_ADDRS into the address sets. 1 on success. */
static int use_addrs_file(struct sl_session *s)
{
	char err[256] = "";
	int r = addrs_read(s->cfg.addrs_path, &s->addrs, err, sizeof(err));

	if (r < 0) {
		sl_warnx("symlazy: cannot use SYMLAZY_ADDRS=%s: %s; loading all symbols",
			 s->cfg.addrs_path, err[0] ? err : strerror(-r));
		set_lazy_why(s, SL_R_BAD_ADDRS, NULL);
		return 0;
	}
	return 1;
}

/*
 * Where the address sets come from: perf script/report/annotate reading a
 * file use that perf.data (a SYMLAZY_ADDRS left in the environment never
 * overrides it); SYMLAZY_ADDRS serves every other case, including perf with
 * SYMLAZY_LAZY=off.
 */
static void setup_lazy(struct sl_session *s)
{
	char err[256] = "", version[80] = "";
	const char *input = NULL;
	const struct sl_tool_model *m = NULL, *any = NULL;
	struct sl_why why;
	int r;

	s->totals.lazy = "off";
	if (s->is_perf) {
		/* the version first: its model reads the argv and prices symbols
		 * (the budget applies with lazy mode off too) */
		/* the verdict is kept in the cache dir (else the whole
		 * executable is scanned), unless lazy mode is off or the
		 * subcommand is not one it serves (perf record, perf top...):
		 * then the run neither creates nor uses the dir */
		m = sl_model_for_self_cached(SL_TOOL_PERF, &any, version, sizeof(version),
					     s->cfg.lazy != LAZY_OFF && lazy_subcommand() ?
					     sl_session_cache_quiet(s) : -1);
		s->model = m ? m : any ? any : s->model;
		s->model_matched = m != NULL;
		/* perf's own scans cost what this version's model says (6.12
		 * stores demangled names); perf probe has its own model */
		if (s->charge != &sl_model_perf61_probe)
			s->charge = s->model;
		/* symbol__annotation_init: perf diff's symbols carry struct
		 * annotation (symbol_conf.priv_size); only what they cost changes */
		s->sym_priv = sl_inputs_sym_priv(s->model);
	}
	if (s->cfg.lazy == LAZY_OFF) {
		set_lazy_why(s, SL_R_LAZY_OFF, NULL);
		goto addrs_file;
	}
	if (!s->is_perf) {
		set_lazy_why(s, SL_R_NOT_PERF, NULL);
		goto addrs_file;
	}
	{
		if (!lazy_target(s, &why)) {
			why_to_totals(s, &why);
			goto addrs_file;
		}
		if (!m && s->cfg.lazy == LAZY_AUTO) {
			char vers[96];

			sl_model_versions(SL_TOOL_PERF, vers, sizeof(vers));
			sl_warnx("symlazy: this perf (%s) is not a version whose symbol loading lazy mode mirrors "
				 "(perf %s); loading all symbols (SYMLAZY_LAZY=on overrides)",
				 version[0] ? version : "version unknown", vers);
			set_lazy_why(s, SL_R_PERF_VERSION, version[0] ? version : "unknown");
			return;
		}
		if (s->model->lookup_space != SL_LOOKUP_FILE_OFFSET) {
			set_lazy_why(s, SL_R_LOOKUP_SPACE, NULL);
			return;
		}
	}
	/* DWARF samples: libunwind replay where it is perf's, else the scan
	 * (perfdata/unwind.h); with --symfs perf reads other files than the
	 * recorded paths, and a perf that unwinds with libdw (7.x) follows other
	 * rules than the replay's, so only the scan is used there (and with
	 * SYMLAZY_UNWIND=scan) */
	r = sl_inputs_read(s, s->symfs[0] || s->cfg.unwind_scan || s->model->unwinder == SL_UNWIND_LIBDW
			   ? PD_UNWIND_SCAN : PD_UNWIND_HYBRID, err, sizeof(err), &input);
	if (r < 0) {
		if (!(r == -ENOTSUP && (s->addrs.flags & PD_F_PIPE)))   /* a saved pipe stream is not an error */
			sl_warnx("symlazy: cannot pre-read %s (%s); loading all symbols", input,
				 err[0] ? err : strerror(-r));
		set_lazy_why(s, SL_R_PERFDATA_BAD, err[0] ? err : strerror(-r));
		return;
	}
	/* DWARF callchains stay lazy: perfdata_read adds what perf can unwind
	 * to (perfdata/unwind.c); DSOs it cannot bound carry pd_dso.unsure */
	if (s->addrs.flags & PD_F_LBR_CALLSTACK) {
		struct pd_kernel k = s->addrs.kern;

		set_lazy_why(s, SL_R_LBR_CALLSTACK, NULL);
		/* kernel callchains and sample IPs need no unwinding:
		 * kallsyms stays lazy */
		memset(&s->addrs.kern, 0, sizeof(s->addrs.kern));
		perfdata_free(&s->addrs);
		s->addrs.kern = k;
		s->text_lazy = 1;
		s->totals.kernel_addrs = k.nr_addrs;
		return;
	}
	/* kernel (1) and JIT (2) addresses known; frames perf unwinds
	 * from DWARF stack dumps may run through JIT code the collector does not
	 * follow, so with DWARF samples perf maps are served whole */
	s->text_lazy = (s->addrs.flags & PD_F_DWARF_UNWIND) ? 1 : 3;
	s->totals.kernel_addrs = s->addrs.kern.nr_addrs;
	s->totals.jit_dsos = s->addrs.nr_jit;
	goto on;
addrs_file:
	if (!s->cfg.addrs_path[0])
		return;
	/* tools that print every symbol they see (or find symbols by name:
	 * perf probe) stay eager: a keep-set for some addresses would change
	 * their output */
	if (s->tool == SL_TOOL_LISTER || s->tool == SL_TOOL_UFTRACE || s->charge == &sl_model_perf61_probe) {
		char exe[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		const char *b;

		exe[n > 0 ? n : 0] = '\0';
		b = strrchr(exe, '/');
		set_lazy_why(s, SL_R_LISTER, s->charge == &sl_model_perf61_probe ? "perf probe" : b ? b + 1 : exe);
		return;
	}
	if (!use_addrs_file(s))
		return;
	set_lazy_why(s, SL_R_NONE, NULL);
on:
	s->lazy_on = 1;
	s->totals.lazy = "on";
	s->totals.addr_dsos = s->addrs.nr_dsos;
	for (size_t i = 0; i < s->addrs.nr_dsos; i++)
		s->totals.addrs += s->addrs.dsos[i].nr_addrs;
	(void)sl_session_cache_fd(s);  /* set-up runs before any other call */
}

void sl_session_setup(struct sl_session *s, const struct elf_ops *ops)
{
	s->ops = ops;
	if (s->cfg.error[0])
		sl_warnx("%s", s->cfg.error);
	budget_init(&s->budget, s->cfg.max_bytes);
	s->totals.budget_bytes = s->cfg.max_bytes;
	s->is_perf = s->tool == SL_TOOL_PERF;
	{
		char **argv = NULL;
		int argc = 0;

		if (sl_cmdline_read("/proc/self/cmdline", &argc, &argv) == 0) {
			s->charge = sl_charge_model((enum sl_tool)s->tool, argc, argv);
			sl_cmdline_free(argv);
		}
	}
	sl_bcc_registry_init(&s->bcc, ops, s->getenv_fn);
	setup_lazy(s);
	sl_a2l_prepare(s);      /* before perf forks an addr2line (core/a2lsess.h) */
}

int sl_session_addrs_inside(struct sl_session *s, const struct pd_dso *dso,
			    const struct symidx_layout *lay, const char *path)
{
	size_t k = (size_t)(dso - s->addrs.dsos), inside = 0;
	char hex[41];

	for (size_t i = 0; i < dso->nr_addrs && !inside; i++)
		for (unsigned l = 0; l < lay->nloads; l++)
			if (dso->addrs[i] >= lay->loads[l].offset &&
			    dso->addrs[i] < lay->loads[l].offset + lay->loads[l].size)
				inside++;
	if (inside)
		return 1;
	if (!s->addrs_warned)
		s->addrs_warned = calloc(s->addrs.nr_dsos + 1, 1);
	if (s->addrs_warned && !s->addrs_warned[k]) {
		s->addrs_warned[k] = 1;
		sl_warnx("symlazy: none of the %zu SYMLAZY_ADDRS addresses of build-id %s is a file offset "
			 "inside %s (virtual addresses?); loading all its symbols",
			 dso->nr_addrs, build_id_hex(dso->build_id, dso->build_id_size, hex), path);
	}
	return 0;
}

Elf_Cmd sl_session_begin_cmd(const struct sl_session *s, int fd, Elf_Cmd cmd, Elf *ref, int *upgraded)
{
	struct stat st;
	char link[64], path[32];
	ssize_t n;

	*upgraded = 0;
	if (cmd != ELF_C_READ || ref || !s->cfg.mmap || fd < 0)
		return cmd;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 64)
		return cmd;
	if (major(st.st_dev) == 0 && st.st_size > (1LL << 40))
		return cmd;         /* /proc/kcore and friends */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		if (!strncmp(link, "/proc/", 6))
			return cmd;
	}
	*upgraded = 1;
	return ELF_C_READ_MMAP_PRIVATE;
}

static void stats_append(struct sl_session *s, struct scan_stats *st)
{
	if (!st)
		return;
	pthread_mutex_lock(&s->stats_lock);
	*s->stats_tail = st;
	s->stats_tail = &st->next;
	pthread_mutex_unlock(&s->stats_lock);
}

void sl_session_report(struct sl_session *s)
{
	FILE *f;

	if (s->is_perf && s->model) {
		s->totals.model = s->model->sym.name;
		if (s->lazy_on && s->model->sym.demangler_name)
			s->totals.demangler = s->model->sym.demangler_name();
	}
	s->totals.charged_bytes = atomic_load(&s->budget.used);
	s->totals.refused_bytes = atomic_load(&s->budget.refused);
	pthread_mutex_lock(&s->text_lock);       /* core/textsess.c appends under it */
	s->totals.texts = s->text_stats_head;
	pthread_mutex_unlock(&s->text_lock);
	s->totals.a2l = s->a2l;
	s->totals.bcc_answered = atomic_load(&s->bcc_answered);
	s->totals.bcc_delegated = atomic_load(&s->bcc_delegated);
	s->totals.bcc_caches = atomic_load(&s->bcc_caches);
	pthread_mutex_lock(&s->bcc.lock);
	s->totals.bcc_built = s->bcc.built;
	s->totals.bcc_reused = s->bcc.reused;
	pthread_mutex_unlock(&s->bcc.lock);
	pthread_mutex_lock(&s->stats_lock);
	if (s->cfg.stats == STATS_FILE) {
		f = fopen(s->cfg.stats_path, "we");
		if (!f) {
			sl_warnx("symlazy: cannot write stats to %s: %s", s->cfg.stats_path, strerror(errno));
		} else {
			int r = stats_write_json(f, &s->totals, s->stats_head);

			if (fclose(f) != 0 || r < 0)
				sl_warnx("symlazy: cannot write stats to %s: %s", s->cfg.stats_path,
					 strerror(errno ? errno : EIO));
		}
	} else if (s->cfg.stats == STATS_STDERR) {
		fflush(stderr);
		fputs("symlazy stats: ", stderr);
		stats_write_json(stderr, &s->totals, s->stats_head);
		fflush(stderr);
	}
	pthread_mutex_unlock(&s->stats_lock);
}

/* ---- DSO ---------------------------------------------------------------- */

void sl_dso_init(struct sl_dso *d, Elf *elf, int fd, int mmapped)
{
	char path[32];
	ssize_t n;

	memset(d, 0, sizeof(*d));
	d->elf = elf;
	d->mmapped = mmapped;
	d->tid = gettid();
	if (fd >= 0) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, d->path, sizeof(d->path) - 1);
		if (n > 0)
			d->path[n] = '\0';
		d->have_st = fstat(fd, &d->st) == 0;
	}
}

void sl_dso_free(struct sl_dso *d)
{
	free(d->keep[0]);
	free(d->keep[1]);
	d->keep[0] = d->keep[1] = NULL;
}

int sl_dso_build_id(const struct sl_session *s, struct sl_dso *d)
{
	if (d->bid_state == 0) {
		int r = elf_read_build_id(s->ops, d->elf, d->bid, sizeof(d->bid));

		d->bid_state = r > 0 ? 1 : -1;
		d->bid_len = r > 0 ? r : 0;
	}
	return d->bid_state > 0;
}

/* Size of the file behind a DSO, 0 if unknown. */
static uint64_t dso_size(const struct sl_dso *d)
{
	return d->have_st && d->st.st_size > 0 ? (uint64_t)d->st.st_size : 0;
}

/* The recorded file of @dso, if it has @d's build-id: its Elf (end it and
 * close *@fd), *@size its size (0: unknown); else NULL. */
static Elf *open_same_build_id(struct sl_session *s, const struct sl_dso *d, const struct pd_dso *dso,
			       int *fd, uint64_t *size)
{
	const struct elf_ops *ops = s->ops;
	unsigned char bid[20];
	struct stat st;
	Elf *elf;
	int r;

	if (!dso || !dso->path || (*fd = open(dso->path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	elf = ops->elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (elf) {
		r = elf_read_build_id(ops, elf, bid, sizeof(bid));
		if (r == d->bid_len && !memcmp(bid, d->bid, (size_t)r)) {
			*size = fstat(*fd, &st) == 0 && st.st_size > 0 ? (uint64_t)st.st_size : 0;
			return elf;
		}
		ops->elf_end(elf);
	}
	close(*fd);
	return NULL;
}

static int runtime_layout(struct sl_session *s, struct sl_dso *self, const struct pd_dso *dso,
			  sl_sibling_fn sib, void *ctx, struct symidx_layout *lay)
{
	const struct elf_ops *ops = s->ops;
	uint64_t size;
	Elf *elf;
	int fd, found;

	if (sl_elf_runtime_layout(ops, self->elf, dso_size(self), lay))
		return 1;
	/* perf's runtime_ss is alive beside the debug file: same build-id */
	if (sib && sib(ctx, self, lay))
		return 1;
	elf = open_same_build_id(s, self, dso, &fd, &size);
	if (!elf)
		return 0;
	found = sl_elf_runtime_layout(ops, elf, size, lay);
	ops->elf_end(elf);
	close(fd);
	return found;
}

/* Does @d, or the recorded file of @dso with @d's build-id, have a
 * .gnu_debugdata section? perf 7.x scans the decompressed section from a
 * temporary file ("/tmp/perf.gnu_debugdata.elf.XXXXXX", util/symbol-elf.c
 * read_gnu_debugdata) that keeps the binary's build-id, then the binary's
 * .dynsym: both scans are of that DSO. */
static int has_gnu_debugdata(struct sl_session *s, const struct sl_dso *d, const struct pd_dso *dso)
{
	uint64_t size;
	Elf *elf;
	int fd, found;

	if (sl_elf_section(s->ops, d->elf, ".gnu_debugdata", NULL, NULL) == 1)
		return 1;
	if (d->bid_len <= 0 || !(elf = open_same_build_id(s, d, dso, &fd, &size)))
		return 0;
	found = sl_elf_section(s->ops, elf, ".gnu_debugdata", NULL, NULL) == 1;
	s->ops->elf_end(elf);
	close(fd);
	return found;
}

const struct pd_dso *sl_dso_match_file(const struct pd_result *res, const char *symfs,
				       const struct sl_dso *d, struct sl_why *why)
{
	const struct pd_dso *other = NULL;
	char want[PATH_MAX * 2], real[PATH_MAX];
	size_t i;

	if (!d->have_st || !d->path[0]) {
		sl_why_set(why, SL_R_NO_BUILD_ID, "and no file identity");
		return NULL;
	}
	for (i = 0; i < res->nr_dsos; i++) {
		const struct pd_dso *p = &res->dsos[i];

		if (p->build_id_size || !p->path)
			continue;
		snprintf(want, sizeof(want), "%s%s", symfs ? symfs : "", p->path);
		if (!realpath(want, real) || strcmp(real, d->path))
			continue;
		if (p->have_ino && p->ino == (uint64_t)d->st.st_ino && p->maj == major(d->st.st_dev) &&
		    p->min == minor(d->st.st_dev))
			return p;
		other = p;
	}
	if (!other)
		sl_why_set(why, SL_R_NO_BUILD_ID, NULL);
	else if (!other->have_ino)
		sl_why_set(why, SL_R_NO_INODE, "%s has no inode", other->path);
	else
		sl_why_set(why, SL_R_NO_IDENTITY, "%s is not the file recorded (device/inode differ)", other->path);
	return NULL;
}

/*
 * Under a budget, a lazy keep-set is charged whole, once, when it is made:
 * the symbols of a kept group only answer as perf's full load does all
 * together (same-start aliases: symbols__fixup_duplicate's choice; the
 * symbol an aborted pass stops at), so a budget that ran out in the middle
 * of the set would make perf print another alias or let a pass run on. If
 * the whole set does not fit, the DSO shows perf no symbol at all (every
 * address of it unknown: what a budget may cost, never a wrong name).
 * Cost per symbol: the tool's model (sl_model_cost), as for eager scans.
 */
static void charge_keep_set(struct sl_session *s, struct sl_dso *d, const struct symidx_src *src)
{
	const struct sl_tool_model *m = s->charge ? s->charge : s->model;
	uint64_t cost = 0;
	unsigned t;
	uint32_t i;

	for (t = 0; t < 2; t++) {
		Elf_Data *tab = t ? src->dynsym : src->symtab, *str = t ? src->dynsym_str : src->symtab_str;

		for (i = 0; tab && i < d->nkeep[t]; i++) {
			GElf_Sym sym;
			const char *p = "";
			size_t n = 0;

			if (!BIT_TEST(d->keep[t], i) || !s->ops->gelf_getsym(tab, (int)i, &sym))
				continue;
			if (str && str->d_buf && sym.st_name < str->d_size) {
				p = (const char *)str->d_buf + sym.st_name;
				n = strnlen(p, str->d_size - sym.st_name);
			}
			cost += sl_model_cost(&m->sym, p, n, s->dem_mode) + s->sym_priv;
		}
	}
	if (budget_try_charge(&s->budget, cost)) {
		d->lazy_charged = 1;
		return;
	}
	memset(d->keep[0], 0, d->nkeep[0] / 8 + 1);
	memset(d->keep[1], 0, d->nkeep[1] / 8 + 1);
	d->lazy_charged = 1;            /* nothing kept, nothing charged */
	if (!atomic_exchange(&s->budget_warned, 1))
		sl_warnx("symlazy: symbol budget of %llu bytes (SYMLAZY_MAX_BYTES) exhausted while loading %s; "
			 "its symbols are not shown (unknown)",
			 (unsigned long long)s->cfg.max_bytes, d->path);
}

void sl_dso_plan(struct sl_session *s, struct sl_dso *d, sl_sibling_fn sib, void *ctx)
{
	const struct pd_dso *dso;
	struct symidx_layout lay;
	struct symidx_src src;
	struct symidx idx;
	struct sl_file_id id = { 0 };
	int r;

	d->plan_state = 1;
	d->plan_mode = SL_EAGER;
	if (!sl_dso_build_id(s, d)) {
		dso = sl_dso_match_file(&s->addrs, s->symfs, d, &d->why);
		if (!dso)
			return;
	} else {
		dso = perfdata_find_build_id(&s->addrs, d->bid, (size_t)d->bid_len);
		if (!dso) {
			sl_why_set(&d->why, SL_R_NO_SAMPLES, NULL);
			return;
		}
	}
	if (dso->unsure) {
		sl_why_set(&d->why, pd_unsure_reason(dso->unsure), NULL);
		return;
	}
	if (!runtime_layout(s, d, dso, sib, ctx, &lay)) {
		sl_why_set(&d->why, SL_R_NO_RUNTIME_ELF, NULL);
		return;
	}
	/* perf 7.x: a DSO with MiniDebugInfo gets its symbols from the
	 * decompressed .gnu_debugdata, then a second .dynsym pass
	 * (util/symbol.c dso__load, DSO_BINARY_TYPE__GNU_DEBUGDATA): a pass list
	 * the index does not replay */
	if (s->model->reads_gnu_debugdata && has_gnu_debugdata(s, d, dso)) {
		sl_why_set(&d->why, SL_R_GNU_DEBUGDATA, NULL);
		return;
	}
	if (!s->is_perf && !sl_session_addrs_inside(s, dso, &lay, d->path)) {
		sl_why_set(&d->why, SL_R_ADDRS_OUTSIDE, "%s", d->path);
		return;
	}
	if (d->have_st)
		sl_file_id_from_stat(&id, &d->st);
	symindex_src_init(&src, s->ops, d->elf, &lay, d->bid, (size_t)d->bid_len, &id,
			  s->cache_dirfd, s->dem_mode, &s->model->sym);
	r = symindex_open(&src, &idx);
	if (r < 0) {
		sl_why_set(&d->why, SL_R_INDEX_FAILED, "%s", strerror(-r));
		return;
	}
	d->keep[0] = calloc(src.nsymtab / 8 + 1, 1);
	d->keep[1] = calloc(src.ndynsym / 8 + 1, 1);
	d->nkeep[0] = src.nsymtab;
	d->nkeep[1] = src.ndynsym;
	if (!d->keep[0] || !d->keep[1]) {
		sl_why_set(&d->why, SL_R_NOMEM, NULL);
		goto out;
	}
	if (idx.abort_pass && s->annotate && s->model->sym.fixup.abort_annotate_full) {
		/* the model's rule (model.h; corpus abort-alias) */
		sl_why_set(&d->why, SL_R_ANNOTATE_ABORT, "%s",
			   idx.abort_pass == SYMIDX_ABORT_SYMTAB ? ".symtab" : ".dynsym");
		goto out;
	}
	r = symindex_plan(&idx, &lay, &src, dso->addrs, dso->nr_addrs, d->keep[0], d->keep[1],
			  &d->kept_groups, &d->why);       /* 1 or -errno: d->why says why */
	if (r == 0) {
		d->plan_mode = SL_LAZY;
		if (s->cfg.max_bytes)
			charge_keep_set(s, d, &src);
	}
out:
	symindex_close(&idx);
	if (d->plan_mode != SL_LAZY)
		sl_dso_free(d);
}

/* ---- table -------------------------------------------------------------- */

int sl_table_init(struct sl_table *t, Elf_Data *data, const GElf_Shdr *sh)
{
	memset(t, 0, sizeof(*t));
	if (sh->sh_type != SHT_SYMTAB && sh->sh_type != SHT_DYNSYM)
		return -EINVAL;
	if (!sh->sh_entsize || sh->sh_size / sh->sh_entsize > 0x7fffffff)
		return -EINVAL;
	t->data = data;
	t->table = sh->sh_type == SHT_DYNSYM;
	t->nsyms = (uint32_t)(sh->sh_size / sh->sh_entsize);
	t->link = sh->sh_link;
	return 0;
}

void sl_table_forget(struct sl_session *s, struct sl_table *t)
{
	stats_append(s, t->st);
	t->st = NULL;
	budget_plan_free(&t->bp);
}

static size_t name_len(const struct sl_table *t, const GElf_Sym *sym)
{
	const char *p;

	if (!t->strtab || !t->strtab->d_buf || sym->st_name >= t->strtab->d_size)
		return 0;
	p = (const char *)t->strtab->d_buf + sym->st_name;
	return strnlen(p, t->strtab->d_size - sym->st_name);
}

/* What one kept symbol costs the scan's tool (model.h sl_model_cost with
 * t->charge): the name is passed only when it is NUL-terminated inside the
 * string table. */
static uint64_t sym_cost(const struct sl_session *s, const struct sl_table *t, const GElf_Sym *sym)
{
	size_t n = name_len(t, sym);
	const char *p = NULL;

	if (n && sym->st_name + n < t->strtab->d_size)
		p = (const char *)t->strtab->d_buf + sym->st_name;
	return sl_model_cost(&t->charge->sym, p, n, s->dem_mode) + s->sym_priv;
}

static void budget_warn(struct sl_session *s, const struct sl_table *t)
{
	const struct sl_tool_model *m = t->charge ? t->charge : s->charge;

	if (atomic_exchange(&s->budget_warned, 1))
		return;
	sl_warnx("symlazy: symbol budget of %llu bytes (SYMLAZY_MAX_BYTES) exhausted while loading %s; "
		 "symbols it could not keep (%s's cost: %s) %s; raise SYMLAZY_MAX_BYTES to keep more",
		 (unsigned long long)s->cfg.max_bytes, t->st && t->st->path[0] ? t->st->path : "a DSO",
		 m->tool, m->sym.name, m->unknown_shows ? m->unknown_shows : "show as [unknown]");
}

struct bp_ctx {
	struct sl_session *s;
	struct sl_table *t;
};

static int bp_get(void *ctx, uint32_t idx, struct bp_sym *out)
{
	const struct bp_ctx *c = ctx;
	GElf_Sym sym;

	if (!c->s->ops->gelf_getsym(c->t->data, (int)idx, &sym))
		return -1;
	out->value = sym.st_value;
	out->size = sym.st_size;
	out->name = NULL;
	if (c->t->strtab && c->t->strtab->d_buf && sym.st_name < c->t->strtab->d_size &&
	    memchr((const char *)c->t->strtab->d_buf + sym.st_name, '\0', c->t->strtab->d_size - sym.st_name))
		out->name = (const char *)c->t->strtab->d_buf + sym.st_name;
	out->candidate = sl_model_keeps_types(&c->t->charge->sym, &sym, c->t->types);
	out->cost = out->candidate ? sym_cost(c->s, c->t, &sym) : 0;
	return 0;
}

static int plan_copy(struct budget_plan *dst, const struct budget_plan *src, uint32_t nsyms)
{
	*dst = *src;
	dst->over = NULL;
	dst->drop = NULL;
	if (src->nover) {
		dst->over = malloc(src->nover * sizeof(*dst->over));
		if (!dst->over)
			return -ENOMEM;
		memcpy(dst->over, src->over, src->nover * sizeof(*dst->over));
	}
	if (src->drop) {
		dst->drop = malloc((size_t)nsyms / 8 + 1);
		if (!dst->drop) {
			free(dst->over);
			dst->over = NULL;
			return -ENOMEM;
		}
		memcpy(dst->drop, src->drop, (size_t)nsyms / 8 + 1);
	}
	return 0;
}

/*
 * SL_BUDGET: charge the whole table now with the tool's rules (budgetplan.h).
 * A file is charged once per process: a tool that loads the same file again
 * (bcc's ProcSyms for another PID of the same binary, bpftrace's per-address
 * caches, perf top's reloads) gets the same symbols without a second charge,
 * so the budget bounds the symbols of distinct files, and a tool that holds
 * one copy per PID can hold up to one copy per PID of those (doc/budget.md).
 */
static void plan_budget(struct sl_session *s, struct sl_table *t, const struct sl_dso *d)
{
	struct bp_ctx c = { s, t };
	struct sl_file_id id = { 0 };
	struct sl_charged *ch = NULL;
	int again = 0;

	budget_plan_free(&t->bp);
	if (d && d->have_st)
		sl_file_id_from_stat(&id, &d->st);
	if (id.valid) {
		pthread_mutex_lock(&s->charged_lock);
		for (ch = s->charged; ch; ch = ch->next) {
			if (ch->table == t->table && ch->shndx == t->shndx && ch->nsyms == t->nsyms &&
			    ch->model == t->charge && ch->types == t->types &&
			    ch->id.dev == id.dev && ch->id.ino == id.ino && ch->id.size == id.size &&
			    ch->id.mtime_sec == id.mtime_sec && ch->id.mtime_nsec == id.mtime_nsec)
				break;
		}
		if (ch && plan_copy(&t->bp, &ch->plan, t->nsyms) == 0) {
			t->bp.charged = 0;
			again = 1;
		}
		pthread_mutex_unlock(&s->charged_lock);
	}
	if (!again) {
		budget_plan_rules(&s->budget, t->nsyms, bp_get, &c, t->charge->budget_rules, &t->bp);
		if (id.valid && (ch = calloc(1, sizeof(*ch))) != NULL) {
			ch->id = id;
			ch->table = t->table;
			ch->shndx = t->shndx;
			ch->nsyms = t->nsyms;
			ch->model = t->charge;
			ch->types = t->types;
			if (plan_copy(&ch->plan, &t->bp, t->nsyms) == 0) {
				pthread_mutex_lock(&s->charged_lock);
				ch->next = s->charged;
				s->charged = ch;
				pthread_mutex_unlock(&s->charged_lock);
			} else {
				free(ch);
			}
		}
	}
	t->bp_cursor = 0;
	if (t->st) {
		t->st->passed += t->bp.passed;
		t->st->dropped += t->bp.dropped;
		t->st->bytes += t->bp.charged;
		if (again)
			snprintf(t->st->reason, sizeof(t->st->reason), "charged once per process: same file loaded again");
	}
	if (t->bp.dropped)
		budget_warn(s, t);
}

static void set_stats_why(struct scan_stats *st, const struct sl_why *w)
{
	sl_why_format(w, st->reason, sizeof(st->reason));
	st->reason_code = w->code == SL_R_NONE ? NULL : sl_reason_name(w->code);
}

/* Start of a scan (idx 1 reached): pick the mode for it. */
static void begin_scan(struct sl_session *s, struct sl_table *t, struct sl_dso *d, int site_in_tool,
		       sl_sibling_fn sib, void *ctx, const struct sl_scan_ctx *sctx)
{
	const struct elf_ops *ops = s->ops;
	struct scan_stats *st = calloc(1, sizeof(*st));
	int filterable = !s->is_perf || site_in_tool;
	struct sl_why w;

	t->mode = SL_EAGER;
	t->st = st;
	t->charge = sctx && sctx->model ? sctx->model : s->charge;
	t->types = sctx ? sctx->types : 0;
	t->keep = NULL;
	if (st) {
		st->table = t->table ? "dynsym" : "symtab";
		st->mode = "eager";
		if (d) {
			snprintf(st->path, sizeof(st->path), "%s", d->path);
			st->mmap = d->mmapped;
		}
	}
	if (!d)
		return;
	if (!filterable || sl_elf_is_kernel(ops, d->elf)) {
		t->mode = SL_PASS;
		if (st) {
			st->mode = "passthrough";
			GElf_Ehdr eh;

			/* eager with the reason; perf's ELF kernel path
			 * (symbol-elf.c: the ref_reloc_sym pre-scan, per-section kernel
			 * maps in dso__process_kernel_symbol, .ko section relocation)
			 * is not mirrored */
			if (!filterable)
				sl_why_set(&w, SL_R_FOREIGN_SCAN, NULL);
			else if (ops->gelf_getehdr(d->elf, &eh) && eh.e_type == ET_REL)
				sl_why_set(&w, SL_R_KERNEL, "module (.ko): perf relocates its symbols per section (not mirrored)");
			else
				sl_why_set(&w, SL_R_KERNEL, "vmlinux: perf's kernel ELF rules (ref_reloc_sym, section maps) are not mirrored");
			set_stats_why(st, &w);
		}
		return;
	}
	if (sl_dso_build_id(s, d) && st)
		build_id_hex(d->bid, (size_t)d->bid_len, st->build_id);
	{
		/* the string table, to charge names: the same Elf_Data libelf gives
		 * the tool (libelf caches it per section), bounds-checked so no
		 * libelf call fails and changes elf_errno() */
		size_t shnum = 0;
		Elf_Scn *scn;

		if (ops->elf_getshdrnum(t->elf, &shnum) == 0 && t->link && t->link < shnum &&
		    (scn = ops->elf_getscn(t->elf, t->link)) != NULL)
			t->strtab = ops->elf_getdata(scn, NULL);
	}
	if (s->cfg.hide_all) {
		t->mode = SL_HIDE;
		if (st)
			st->mode = "hidden";
		return;
	}
	if (sctx && sctx->bcc) {
		/* libbcc's scan: its own plan (bccplan.c) or eager; perf's lazy
		 * plan models perf's lookup, not bcc's */
		struct sl_file_id id = { 0 };

		if (sctx->plan && d->have_st) {
			sl_file_id_from_stat(&id, &d->st);
			t->keep = sl_bcc_plan_keep(sctx->plan, &id, t->shndx);
		}
		if (t->keep) {
			t->mode = SL_PLANNED;
			if (st) {
				st->mode = sctx->plan->lazy ? "lazy" : "budget";
				if (sctx->plan->reused)
					snprintf(st->reason, sizeof(st->reason),
						 "charged once per process: same file loaded again");
			}
			return;
		}
		if (st && s->lazy_on) {
			sl_why_set(&w, SL_R_BCC_SCAN, NULL);
			set_stats_why(st, &w);
		}
	} else if (s->lazy_on) {
		if (!d->plan_state)
			sl_dso_plan(s, d, sib, ctx);
		if (d->plan_mode == SL_LAZY) {
			t->mode = SL_LAZY;
			if (st)
				st->mode = "lazy";
		} else if (st) {
			set_stats_why(st, &d->why);
		}
	} else if (st) {
		set_stats_why(st, &s->lazy_why);
	}
	if (t->mode == SL_EAGER && s->cfg.max_bytes) {
		t->mode = SL_BUDGET;
		if (st)
			st->mode = "budget";
	}
	if (t->mode == SL_BUDGET)
		plan_budget(s, t, d);
}

static void end_scan(struct sl_session *s, struct sl_table *t)
{
	stats_append(s, t->st);
	t->st = NULL;
}

static void null_sym(GElf_Sym *dst, Elf32_Word *xshndx)
{
	memset(dst, 0, sizeof(*dst));
	if (xshndx)
		*xshndx = 0;
}

void sl_table_filter(struct sl_session *s, struct sl_table *t, struct sl_dso *d, int ndx,
		     GElf_Sym *dst, Elf32_Word *xshndx, uintptr_t site, int site_in_tool,
		     sl_sibling_fn sib, void *ctx)
{
	sl_table_filter_ctx(s, t, d, ndx, dst, xshndx, site, site_in_tool, sib, ctx, NULL);
}

/* Would the scan's tool keep @sym (and so: is it charged / planned)? */
static int keeps(const struct sl_table *t, const GElf_Sym *sym)
{
	return sl_model_keeps_types(&t->charge->sym, sym, t->types);
}

void sl_table_filter_ctx(struct sl_session *s, struct sl_table *t, struct sl_dso *d, int ndx,
			 GElf_Sym *dst, Elf32_Word *xshndx, uintptr_t site, int site_in_tool,
			 sl_sibling_fn sib, void *ctx, const struct sl_scan_ctx *sctx)
{
	enum scan_verdict v;

	if (ndx < 0)
		return;
	v = scan_step(&t->scan, (uint64_t)ndx, t->nsyms, site, s->is_perf);
	if (v == SCAN_START) {
		if (t->st)
			end_scan(s, t);
		return;
	}
	if (v != SCAN_NEXT)
		return;
	if (ndx == 1)
		begin_scan(s, t, d, site_in_tool, sib, ctx, sctx);
	if (!t->charge)
		t->charge = s->charge;
	if (t->st)
		t->st->scanned++;
	switch (t->mode) {
	case SL_PASS:
		break;
	case SL_HIDE:
		if (keeps(t, dst) && t->st)
			t->st->dropped++;
		null_sym(dst, xshndx);
		break;
	case SL_PLANNED:
		if (!keeps(t, dst))
			break;
		if ((uint32_t)ndx < t->keep->nsyms && BIT_TEST(t->keep->keep, (uint32_t)ndx)) {
			if (t->st)
				t->st->passed++;
		} else {
			if (t->st)
				t->st->dropped++;
			null_sym(dst, xshndx);
		}
		break;
	case SL_BUDGET:
		if (budget_plan_dropped(&t->bp, (uint32_t)ndx)) {
			if (keeps(t, dst))
				null_sym(dst, xshndx);
			break;
		}
		while (t->bp_cursor < t->bp.nover && t->bp.over[t->bp_cursor].idx < (uint32_t)ndx)
			t->bp_cursor++;
		if (t->bp_cursor < t->bp.nover && t->bp.over[t->bp_cursor].idx == (uint32_t)ndx)
			dst->st_size = t->bp.over[t->bp_cursor].size;
		break;
	case SL_LAZY: {
		int keep = d && d->keep[t->table] && (uint32_t)ndx < d->nkeep[t->table] &&
			   BIT_TEST(d->keep[t->table], (uint32_t)ndx);

		if (!keep) {
			if (keeps(t, dst) && t->st)
				t->st->dropped++;
			null_sym(dst, xshndx);
			break;
		}
		if (d->lazy_charged) {  /* charged whole when planned */
			if (keeps(t, dst) && t->st) {
				t->st->passed++;
				t->st->bytes += sym_cost(s, t, dst);
			}
			break;
		}
	}
		/* kept symbols are charged like eager ones */
		__attribute__((fallthrough));
	case SL_EAGER:
		/* no budget and nobody reading the counters: nothing to do */
		if ((!s->cfg.max_bytes && s->cfg.stats == STATS_OFF) || !keeps(t, dst))
			break;
		{
			uint64_t cost = sym_cost(s, t, dst);

			if (budget_try_charge(&s->budget, cost)) {
				if (t->st) {
					t->st->passed++;
					t->st->bytes += cost;
				}
			} else {
				budget_warn(s, t);
				if (t->st)
					t->st->dropped++;
				null_sym(dst, xshndx);
			}
		}
		break;
	}
	if ((uint64_t)ndx + 1 >= t->nsyms)
		end_scan(s, t);
}

int sl_table_watching(const struct sl_session *s, const struct sl_table *t)
{
	if (!t->scan.active || t->scan.expected >= t->nsyms)
		return 0;
	if (t->scan.expected < 2)
		return 1;               /* the mode is chosen at index 1 */
	return !((t->mode == SL_EAGER || t->mode == SL_PASS) && !s->cfg.max_bytes &&
		 s->cfg.stats == STATS_OFF);
}
