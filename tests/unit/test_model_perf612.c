/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the perf 6.12 model (core/model/perf612.c): recognition,
 * argv rules (--debug-file, data-type profiling), the demangler (perf's own
 * functions or __cxa_demangle, names with parameters, types demangled),
 * costs, the rules carried as data, and the replay of perf 6.2+'s PLT
 * synthesis (index/symindex.c) on programs linked at test time: the .plt
 * header symbol, the truncated _init, .plt.got, .plt.sec, a .plt without
 * header and IFUNC names in a static executable.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/models.h"
#include "index/symindex.h"
#include "core/tool.h"

/* libstdc++ (linked into this test): what a distribution perf 6.12 calls */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define ARGV(...) ((char *const[]){ __VA_ARGS__ })
#define N(...) ((int)(sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(a, ...) perf612_parse_argv(N(__VA_ARGS__), ARGV(__VA_ARGS__), a)
#define PARSE61(a, ...) perf61_parse_argv(N(__VA_ARGS__), ARGV(__VA_ARGS__), a)
#define IMG(s) s, sizeof(s) - 1

static void test_recognition(void **state)
{
	(void)state;
	assert_true(perf612_image_matches(IMG("xx\0" "6.12.117\0yy")));
	assert_true(perf612_image_matches(IMG("\0" "6.12.0\0")));
	assert_false(perf612_image_matches(IMG("\0" "6.12.\0")));
	assert_false(perf612_image_matches(IMG("\0" "6.12.0-55.el10.x86_64\0")));   /* vendor suffix */
	assert_false(perf612_image_matches(IMG("\0" "6.1.187\0")));
	assert_false(perf612_image_matches(IMG("\0" "6.120.1\0")));
	assert_false(perf61_image_matches(IMG("\0" "6.12.117\0")));
	/* exactly one model must match */
	assert_ptr_equal(sl_model_for_image(SL_TOOL_PERF, IMG("a\0" "6.12.117\0b")), &sl_model_perf612);
	assert_ptr_equal(sl_model_for_image(SL_TOOL_PERF, IMG("a\0" "6.1.187\0b")), &sl_model_perf61);
	assert_null(sl_model_for_image(SL_TOOL_PERF, IMG("\0" "6.1.187\0" "6.12.117\0")));
	assert_null(sl_model_for_image(SL_TOOL_PERF, IMG("\0" "6.6.13\0")));
	assert_null(sl_model_for_image(SL_TOOL_OTHER, IMG("\0" "6.12.117\0")));
	{
		const struct sl_tool_model *const *ms;

		assert_int_equal(sl_models_for_tool(SL_TOOL_PERF, &ms), 3);
		assert_ptr_equal(ms[0], &sl_model_perf72);     /* newest first: LAZY=on default */
		assert_ptr_equal(ms[1], &sl_model_perf612);
	}
}

static void test_version_in_image(void **state)
{
	char v[32];

	(void)state;
	assert_true(sl_perf_version_in_image(IMG("GLIBC\0" "1.2.3\0" "6.6.13\0"), v, sizeof(v)));
	assert_string_equal(v, "6.6.13");
	assert_true(sl_perf_version_in_image(IMG("\0" "6.12.0-55.9.1.el10_0.x86_64\0"), v, sizeof(v)));
	assert_string_equal(v, "6.12.0-55.9.1.el10_0.x86_64");
	assert_false(sl_perf_version_in_image(IMG("\0" "6.12\0" "2.0.1\0"), v, sizeof(v)));
	assert_string_equal(v, "");
}

/* The version verdict kept in a cache dir (core/tool.c): written on the
 * first call (this test program holds no perf version: "-" and what
 * sl_perf_version_in_image found), believed on later calls (a planted
 * "perf-6.12" is taken as it is), rescanned and rewritten when damaged. */
static void test_version_verdict_cached(void **state)
{
	char dir[] = "/tmp/symlazy-verdict.XXXXXX", path[256], buf[64], v[80] = "x";
	const struct sl_tool_model *any = NULL;
	FILE *f;
	int dfd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	assert_null(sl_model_for_self_cached(SL_TOOL_PERF, &any, v, sizeof(v), dfd));
	assert_ptr_equal(any, &sl_model_perf72);   /* the newest model */
	snprintf(buf, sizeof(buf), "ls %s/perf-*.model >/dev/null 2>&1", dir);
	assert_int_equal(system(buf), 0);
	snprintf(path, sizeof(path), "sh -c 'ls %s/perf-*.model'", dir);
	f = popen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(path, sizeof(path), f));
	pclose(f);
	path[strcspn(path, "\n")] = '\0';
	f = fopen(path, "r");
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_int_equal(buf[0], '-');                  /* no model matched */
	/* a planted verdict is believed: the executable is not scanned */
	f = fopen(path, "w");
	fputs("perf-6.12\n", f);
	fclose(f);
	assert_ptr_equal(sl_model_for_self_cached(SL_TOOL_PERF, NULL, v, sizeof(v), dfd), &sl_model_perf612);
	f = fopen(path, "w");
	fputs("-6.6.13\n", f);
	fclose(f);
	assert_null(sl_model_for_self_cached(SL_TOOL_PERF, NULL, v, sizeof(v), dfd));
	assert_string_equal(v, "6.6.13");               /* the message's version */
	/* damaged (an unknown model, no newline): rescanned and rewritten */
	f = fopen(path, "w");
	fputs("perf-9.9\n", f);
	fclose(f);
	assert_null(sl_model_for_self_cached(SL_TOOL_PERF, NULL, v, sizeof(v), dfd));
	f = fopen(path, "r");
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_int_equal(buf[0], '-');
	f = fopen(path, "w");
	fputs("perf-6.12", f);
	fclose(f);
	assert_null(sl_model_for_self_cached(SL_TOOL_PERF, NULL, v, sizeof(v), dfd));
	/* no cache dir: the plain scan */
	assert_null(sl_model_for_self_cached(SL_TOOL_PERF, NULL, v, sizeof(v), -1));
	close(dfd);
	snprintf(buf, sizeof(buf), "rm -rf %s", dir);
	assert_int_equal(system(buf), 0);
}

static void test_argv(void **state)
{
	struct sl_invocation a;

	(void)state;
	/* --debug-file takes the next word (perf.c handle_options, 6.12 only) */
	assert_int_equal(PARSE(&a, "perf", "--debug-file", "/tmp/d.log", "script", "-i", "x.data"), 1);
	assert_string_equal(a.input, "x.data");
	assert_int_equal(PARSE61(&a, "perf", "--debug-file", "/tmp/d.log", "script", "-i", "x.data"), 0);
	assert_int_equal(a.why.code, SL_R_NOT_SUBCMD);
	assert_int_equal(PARSE(&a, "perf", "--debug-file"), 0);
	/* the rest as 6.1 */
	assert_int_equal(PARSE(&a, "perf", "--no-pager", "--buildid-dir", "/b", "report", "--inp=z", "--stdio"), 1);
	assert_string_equal(a.input, "z");
	assert_string_equal(a.buildid_dir, "/b");
	assert_int_equal(PARSE(&a, "perf", "script", "-fi", "x"), 0);
	assert_int_equal(a.why.code, SL_R_GROUPED_OPT);
	assert_int_equal(PARSE(&a, "perf", "script", "-i", "-"), 0);
	assert_int_equal(a.why.code, SL_R_PIPE_INPUT);
	assert_int_equal(PARSE(&a, "perf", "script", "--no-demangle"), 1);
	assert_int_equal(a.demangle, SYMIDX_DEM_NONE);
	assert_int_equal(PARSE(&a, "perf", "--debug", "verbose=2", "script"), 1);
	assert_int_equal(a.demangle, SYMIDX_DEM_VERBOSE);
}

static void test_data_type_eager(void **state)
{
	struct sl_invocation a;

	(void)state;
	assert_int_equal(PARSE(&a, "perf", "annotate", "--stdio", "--data-type"), 1);
	assert_int_equal(perf612_text_output(&a, 0), 0);
	assert_int_equal(a.why.code, SL_R_DATA_TYPE);
	assert_int_equal(PARSE(&a, "perf", "annotate", "--stdio", "--data-type=struct foo"), 1);
	assert_int_equal(perf612_text_output(&a, 0), 0);
	assert_int_equal(PARSE(&a, "perf", "annotate", "--stdio", "--type-stat"), 1);
	assert_int_equal(perf612_text_output(&a, 0), 0);
	assert_int_equal(PARSE(&a, "perf", "report", "--stdio", "--sort", "dso,type"), 1);
	assert_int_equal(perf612_text_output(&a, 0), 0);
	assert_int_equal(PARSE(&a, "perf", "report", "--stdio", "-stypeoff"), 1);
	assert_int_equal(perf612_text_output(&a, 0), 0);
	assert_int_equal(PARSE(&a, "perf", "report", "--stdio", "--fields=overhead,typecln"), 1);
	assert_int_equal(perf612_text_output(&a, 0), 0);
	/* other sort keys, and perf 6.1 (no such options there), stay lazy */
	assert_int_equal(PARSE(&a, "perf", "report", "--stdio", "--sort", "sym,symoff,dso"), 1);
	assert_int_equal(perf612_text_output(&a, 0), 1);
	assert_int_equal(PARSE61(&a, "perf", "report", "--stdio", "--sort", "type"), 1);
	assert_int_equal(sl_perf_text_output(&a, 0), 1);
	/* interactive outputs as in 6.1 */
	assert_int_equal(PARSE(&a, "perf", "report"), 1);
	assert_int_equal(perf612_text_output(&a, 1), 0);
	assert_int_equal(a.why.code, SL_R_REPORT_TUI);
	assert_int_equal(PARSE(&a, "perf", "annotate", "--stdio2"), 1);
	assert_int_equal(perf612_text_output(&a, 0), 0);
	assert_int_equal(a.why.code, SL_R_INTERACTIVE);
	/* perf 6.12 annotate --stdio: eager (its jump__parse map reference bug);
	 * 6.1 annotate --stdio and 6.12 report --stdio stay lazy */
	assert_int_equal(PARSE(&a, "perf", "annotate", "--stdio", "main"), 1);
	assert_int_equal(perf612_text_output(&a, 0), 0);
	assert_int_equal(a.why.code, SL_R_ANNOTATE_612);
	assert_int_equal(PARSE61(&a, "perf", "annotate", "--stdio", "main"), 1);
	assert_int_equal(sl_perf_text_output(&a, 0), 1);
	assert_int_equal(PARSE(&a, "perf", "report", "--stdio"), 1);
	assert_int_equal(perf612_text_output(&a, 0), 1);
}

static const struct perf612_demangler cxa_only = { .cxa = __cxa_demangle, .what = "__cxa_demangle" };

static void test_demangle_cxa(void **state)
{
	int unc = 0;
	char *d;

	(void)state;
	perf612_demangler_set(&cxa_only);
	/* parameters whatever -v says (__cxa_demangle has no flags) */
	d = perf612_demangle("_ZN5MixerImLi7EE5churnEv", SYMIDX_DEM_NOOPTS, &unc);
	assert_string_equal(d, "Mixer<unsigned long, 7>::churn()");
	free(d);
	d = perf612_demangle("_ZN5MixerImLi7EE5churnEv", SYMIDX_DEM_VERBOSE, &unc);
	assert_string_equal(d, "Mixer<unsigned long, 7>::churn()");
	free(d);
	/* types are demangled too: a C function "f" is stored as "float" */
	d = perf612_demangle("f", SYMIDX_DEM_NOOPTS, &unc);
	assert_string_equal(d, "float");
	free(d);
	assert_null(perf612_demangle("main", SYMIDX_DEM_NOOPTS, &unc));
	assert_int_equal(unc, 0);
	assert_null(perf612_demangle("_ZN5MixerImLi7EE5churnEv", SYMIDX_DEM_NONE, &unc));
	assert_int_equal(unc, 0);
	/* Rust legacy hash and OCaml/Java names: perf post-processes, not mirrored */
	d = perf612_demangle("_ZN4core3fmt5write17h0123456789abcdefE", SYMIDX_DEM_NOOPTS, &unc);
	free(d);
	assert_int_equal(unc, 1);
	unc = 0;
	assert_null(perf612_demangle("camlStdlib__list_iter_123", SYMIDX_DEM_NOOPTS, &unc));
	assert_int_equal(unc, 1);
	unc = 0;
	assert_null(perf612_demangle(NULL == NULL ? "" : "", SYMIDX_DEM_UNKNOWN, &unc));
	assert_int_equal(unc, 1);
	/* the budget charges the longer, stored name */
	assert_int_equal(sl_model_cost(&sl_model_perf612.sym, "f", 1, SYMIDX_DEM_NOOPTS), 64 + 5 + 1);
	assert_int_equal(sl_model_cost(&sl_model_perf612.sym, "f", 1, SYMIDX_DEM_NONE), 64 + 1 + 1);
	assert_int_equal(sl_model_cost(&sl_model_perf612.sym, "_ZN5MixerImLi7EE5churnEv", 24, SYMIDX_DEM_NOOPTS), 64 + 32 + 1);
	assert_int_equal(sl_model_cost(&sl_model_perf612.sym, "_ZN1a1bEv", 9, SYMIDX_DEM_NOOPTS), 64 + 9 + 1);  /* "a::b()" */
	perf612_demangler_set(NULL);
}

/* stand-ins for perf's exported demanglers: record how they were called */
static int cxx_calls, cxx_params, rust_calls;
static char *fake_cxx(const char *s, bool params, bool mod)
{
	cxx_calls++;
	cxx_params = params && mod;
	return strncmp(s, "_Z", 2) ? NULL : strdup("cxx::name::h0123456789abcdef");
}
static char *fake_ocaml(const char *s) { return strncmp(s, "caml", 4) ? NULL : strdup("ocaml.name"); }
static char *fake_java(const char *s, int flags) { return flags == 1 && strchr(s, ')') ? strdup("java.name") : NULL; }
static bool fake_rust_is(const char *s) { return strstr(s, "::h") != NULL; }
static void fake_rust(char *s) { rust_calls++; *strstr(s, "::h") = '\0'; }

static void test_demangle_perf_own(void **state)
{
	static const struct perf612_demangler own = {
		.cxx = fake_cxx, .ocaml = fake_ocaml, .java = fake_java,
		.rust_is_mangled = fake_rust_is, .rust_demangle = fake_rust, .what = "perf's cxx_demangle_sym",
	};
	int unc = 0;
	char *d;

	(void)state;
	perf612_demangler_set(&own);
	/* demangle_sym's order: cxx, then ocaml, then java(NORET); rust in place */
	d = perf612_demangle("_Zx", SYMIDX_DEM_VERBOSE, &unc);
	assert_string_equal(d, "cxx::name");
	assert_int_equal(cxx_params, 1);
	assert_int_equal(rust_calls, 1);
	free(d);
	d = perf612_demangle("_Zx", SYMIDX_DEM_NOOPTS, &unc);
	assert_int_equal(cxx_params, 0);
	free(d);
	d = perf612_demangle("camlfoo", SYMIDX_DEM_NOOPTS, &unc);
	assert_string_equal(d, "ocaml.name");
	free(d);
	d = perf612_demangle("Lfoo;bar()V", SYMIDX_DEM_NOOPTS, &unc);
	assert_string_equal(d, "java.name");
	free(d);
	assert_null(perf612_demangle("plain", SYMIDX_DEM_NOOPTS, &unc));
	assert_int_equal(unc, 0);     /* perf's own functions: never uncertain */
	assert_int_equal(perf612_demangler_ready(NULL, 0), 1);
	perf612_demangler_set(NULL);
}

static void test_no_demangler(void **state)
{
	static const struct perf612_demangler none = { .why = "this perf demangles with libLLVM" };
	char why[128] = "";
	int unc = 0;

	(void)state;
	perf612_demangler_set(&none);
	assert_int_equal(perf612_demangler_ready(why, sizeof(why)), 0);
	assert_string_equal(why, "this perf demangles with libLLVM");
	assert_null(perf612_demangle("_ZN1a1bEv", SYMIDX_DEM_NOOPTS, &unc));
	assert_int_equal(unc, 1);
	perf612_demangler_set(NULL);
	/* in this test program (no perf exports) the lookup finds libstdc++'s */
	assert_int_equal(perf612_demangler_ready(why, sizeof(why)), 1);
	assert_string_equal(perf612_demangler_get()->what, "__cxa_demangle");
}

static void test_rules_as_data(void **state)
{
	const struct sl_tool_model *m = &sl_model_perf612, *o = &sl_model_perf61;

	(void)state;
	assert_int_equal(m->sym.plt, SL_PLT_V62);
	assert_int_equal(o->sym.plt, SL_PLT_V61);
	assert_int_equal(m->sym.demangler, SL_DEMANGLER_PERF_CXX);
	assert_int_equal(o->sym.demangler, SL_DEMANGLER_LIBIBERTY);
	assert_int_equal(m->sym.fixup.dup_marks_ifunc_alias, 1);
	assert_int_equal(o->sym.fixup.dup_marks_ifunc_alias, 0);
	assert_int_equal(sl_model_last_page(&m->sym), 4096);
	assert_int_equal(m->lookup_space, SL_LOOKUP_FILE_OFFSET);
	assert_non_null(m->argv_rules);
	assert_int_equal(m->argv_rules->data_type_options, 1);
	assert_int_equal(o->argv_rules->data_type_options, 0);
	/* unchanged rules are 6.1's functions */
	assert_ptr_equal(m->sym.sym_kind, o->sym.sym_kind);
	assert_ptr_equal(m->sym.choose_by_name, o->sym.choose_by_name);
	assert_string_equal(m->versions, "6.12.x");
	assert_int_equal(m->sym.fixup.notype_loses, 0);     /* 7.x's rule */
	assert_int_equal(m->argv_rules->sub_with_arg, NULL);
	assert_int_equal(sl_model_cost(&o->sym, "f", 1, SYMIDX_DEM_NOOPTS), 64 + 2);
}

/* ---- PLT synthesis of 6.2+ on programs linked here ------------------------ */

static char dir[64];
static const struct elf_ops *ops;

struct prog {
	int fd;
	Elf *elf;
	struct symidx_layout lay;
	struct symidx_src src;
	struct symidx idx;
	unsigned char bid[20];
};

static const char *prog_c =
	"#include <string.h>\n#include <stdlib.h>\n"
	"static const char *volatile s = \"abc\";\n"
	"int main(int argc, char **argv) { unsigned long x = 0;\n"
	"  for (int i = 0; i < argc; i++) x += strlen(s) + (unsigned long)atoi(argv[i]);\n"
	"  return (int)x; }\n";

static int build(const char *name, const char *flags)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "cc -O1 -fno-builtin -Wl,--build-id %s -o %s/%s %s/p.c 2>/dev/null", flags, dir,
		 name, dir);
	return system(cmd) == 0;
}

static int setup(void **state)
{
	char path[96];
	FILE *f;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/symlazy-ut612-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/p.c", dir);
	f = fopen(path, "w");
	fputs(prog_c, f);
	fclose(f);
	ops = elfops_direct();
	if (!build("pie", "-Wl,-z,lazy") || !build("ibt", "-fcf-protection=full -Wl,-z,ibtplt"))
		return -1;
	build("static", "-static");     /* optional: needs libc.a */
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static int prog_open(struct prog *p, const char *name, const struct sl_tool_model *m)
{
	char path[96];
	int r;

	memset(p, 0, sizeof(*p));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	p->fd = open(path, O_RDONLY);
	if (p->fd < 0)
		return 0;
	p->elf = ops->elf_begin(p->fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(p->elf);
	assert_int_equal(symindex_layout(ops, p->elf, 0, &p->lay), 0);
	r = elf_read_build_id(ops, p->elf, p->bid, sizeof(p->bid));
	assert_true(r > 0);
	symindex_src_init(&p->src, ops, p->elf, &p->lay, p->bid, (size_t)r, NULL, -1, SYMIDX_DEM_NONE, &m->sym);
	assert_int_equal(symindex_open(&p->src, &p->idx), 0);
	return 1;
}

static void prog_close(struct prog *p)
{
	symindex_close(&p->idx);
	ops->elf_end(p->elf);
	close(p->fd);
}

static uint64_t sec_off(Elf *elf, const char *name, uint64_t *size)
{
	size_t shstrndx = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	ops->elf_getshdrstrndx(elf, &shstrndx);
	while ((scn = ops->elf_nextscn(elf, scn)) != NULL) {
		const char *n;

		ops->gelf_getshdr(scn, &sh);
		n = ops->elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name)) {
			if (size)
				*size = sh.sh_size;
			return sh.sh_offset;
		}
	}
	fail_msg("no section %s", name);
	return 0;
}

static void answers(struct prog *p, const uint64_t *a, size_t n, struct symidx_answer *out)
{
	assert_int_equal(symindex_replay(&p->idx, &p->src, &p->lay, a, n, out), 0);
}

static void test_plt62_lazy_pie(void **state)
{
	struct prog p, q;
	struct symidx_answer x[4], y[4];
	uint64_t plt, pltsz, init;

	(void)state;
	assert_true(prog_open(&p, "pie", &sl_model_perf612));
	plt = sec_off(p.elf, ".plt", &pltsz);
	init = sec_off(p.elf, ".init", NULL);
	assert_int_equal(p.lay.p2.ok, 1);
	assert_int_equal(p.lay.p2.ent, 16);
	assert_int_equal(p.lay.p2.hdr, 16);
	assert_int_equal(p.lay.p2.rel_ok, 1);
	assert_int_equal(p.lay.p2.nrel, p.lay.nplt_rel);
	assert_int_equal(p.lay.p2.sec, 0);
	{
		uint64_t a[4] = { init, plt, plt + 16, plt + 40 };

		answers(&p, a, 4, x);
	}
	/* _init (zero size, stretched to the next symbol) is cut at .plt */
	assert_int_equal(x[0].kind, SYMIDX_ANS_SYM);
	assert_int_equal(x[0].end, plt);
	/* the header is ".plt", entries follow it */
	assert_int_equal(x[1].kind, SYMIDX_ANS_PLT_HDR);
	assert_int_equal(x[1].end, plt + 16);
	assert_int_equal(x[2].kind, SYMIDX_ANS_PLT);
	assert_int_equal(x[2].index, 0);
	assert_int_equal(x[3].kind, SYMIDX_ANS_PLT);
	assert_int_equal(x[3].index, 1);
	assert_int_equal(x[3].start, plt + 32);
	/* perf 6.1: the stretched _init covers .plt and answers for its entries
	 * too (it sits above them in the tree): "_init+0x30" */
	assert_true(prog_open(&q, "pie", &sl_model_perf61));
	{
		uint64_t a[4] = { init, plt, plt + 16, plt + 40 };

		answers(&q, a, 4, y);
	}
	assert_int_equal(y[0].kind, SYMIDX_ANS_SYM);
	assert_true(y[0].end > plt);
	for (int k = 1; k < 4; k++) {
		assert_int_equal(y[k].kind, SYMIDX_ANS_SYM);
		assert_int_equal(y[k].index, y[0].index);
	}
	prog_close(&q);
	/* the plan stays lazy for PLT addresses and keeps little */
	{
		uint64_t a[3] = { init, plt, plt + 20 };
		uint8_t ks[512] = { 0 }, kd[512] = { 0 };
		uint32_t groups = 0;
		struct sl_why why;

		assert_true(p.idx.nsymtab < sizeof(ks) * 8);
		assert_int_equal(symindex_plan(&p.idx, &p.lay, &p.src, a, 3, ks, kd, &groups, &why), 0);
		assert_true(groups >= 1 && groups < p.idx.ngroups / 2);
	}
	prog_close(&p);
}

static void test_plt62_ibt(void **state)
{
	struct prog p;
	struct symidx_answer x[3];
	uint64_t plt, pltsz, sec, got;

	(void)state;
	assert_true(prog_open(&p, "ibt", &sl_model_perf612));
	plt = sec_off(p.elf, ".plt", &pltsz);
	sec = sec_off(p.elf, ".plt.sec", NULL);
	got = sec_off(p.elf, ".plt.got", NULL);
	assert_int_equal(p.lay.p2.sec, 1);
	assert_int_equal(p.lay.p2.sec_off, sec);
	assert_true(p.lay.p2.ngot >= 1);
	{
		uint64_t a[3] = { plt + pltsz - 1, sec + 17, got };

		answers(&p, a, 3, x);
	}
	/* with .plt.sec the ".plt" symbol spans all of .plt; entries live in .plt.sec */
	assert_int_equal(x[0].kind, SYMIDX_ANS_PLT_HDR);
	assert_int_equal(x[0].end, plt + pltsz);
	assert_int_equal(x[1].kind, SYMIDX_ANS_PLT);
	assert_int_equal(x[1].index, 1);
	assert_int_equal(x[2].kind, SYMIDX_ANS_PLT_GOT);
	assert_int_equal(x[2].index, 0);
	prog_close(&p);
}

static void test_plt62_static_ifunc_names(void **state)
{
	struct prog p;
	struct symidx_answer x[2];
	uint64_t plt, pltsz;

	(void)state;
	if (!prog_open(&p, "static", &sl_model_perf612)) {
		skip();     /* no libc.a */
		return;
	}
	plt = sec_off(p.elf, ".plt", &pltsz);
	/* IRELATIVE entries only: nrel * entry == size, so no header */
	assert_int_equal(p.lay.p2.rel_ok, 1);
	assert_int_equal((uint64_t)p.lay.p2.nrel * p.lay.p2.ent, pltsz);
	assert_true(p.lay.p2.nifunc >= 1);
	assert_int_equal(p.lay.p2.ifunc_unknown, 0);
	{
		uint64_t a[2] = { plt, plt + p.lay.p2.ifunc_k[0] * p.lay.p2.ent + 3 };

		answers(&p, a, 2, x);
	}
	assert_int_equal(x[0].kind, SYMIDX_ANS_PLT);
	assert_int_equal(x[0].start, plt);
	/* the entry is named after the IFUNC symbol at its addend (get_ifunc_name) */
	assert_int_equal(x[1].kind, SYMIDX_ANS_PLT);
	assert_int_equal(x[1].named_from, 1);
	assert_int_equal(x[1].name_table, 0);
	{
		GElf_Sym s;

		assert_non_null(ops->gelf_getsym(p.src.symtab, (int)x[1].name_index, &s));
		assert_true(GELF_ST_TYPE(s.st_info) == STT_GNU_IFUNC || GELF_ST_TYPE(s.st_info) == STT_FUNC);
	}
	prog_close(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recognition),
		cmocka_unit_test(test_version_in_image),
		cmocka_unit_test(test_version_verdict_cached),
		cmocka_unit_test(test_argv),
		cmocka_unit_test(test_data_type_eager),
		cmocka_unit_test(test_demangle_cxa),
		cmocka_unit_test(test_demangle_perf_own),
		cmocka_unit_test(test_no_demangler),
		cmocka_unit_test(test_rules_as_data),
		cmocka_unit_test(test_plt62_lazy_pie),
		cmocka_unit_test(test_plt62_ibt),
		cmocka_unit_test(test_plt62_static_ifunc_names),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
