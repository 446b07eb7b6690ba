/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the perf 7.2 model (core/model/perf72.c): recognition
 * (7.2 vs 6.12 and 7.3 images), the argv rules (new options with an
 * argument, annotate --code-with-type, --symfs DIR,LAYOUT), the demangler
 * (dso__demangle_sym: Rust first, then __cxa_demangle; the names observed
 * with perf 7.2.13 in the research notes), costs, the rules carried as data,
 * and choose_best_symbol's NOTYPE rule in a replay of a library assembled
 * here (a local FUNC and a global NOTYPE label at one start).
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

/* libstdc++ (linked into this test): what Debian's perf 7.2 calls */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define ARGV(...) ((char *const[]){ __VA_ARGS__ })
#define N(...) ((int)(sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(a, ...) perf72_parse_argv(N(__VA_ARGS__), ARGV(__VA_ARGS__), a)
#define PARSE612(a, ...) perf612_parse_argv(N(__VA_ARGS__), ARGV(__VA_ARGS__), a)
#define IMG(s) s, sizeof(s) - 1

static void test_recognition(void **state)
{
	const struct sl_tool_model *const *ms;
	char v[64];

	(void)state;
	assert_true(perf72_image_matches(IMG("xx\0" "7.2.13\0yy")));
	assert_true(perf72_image_matches(IMG("\0" "7.2.0\0")));
	assert_false(perf72_image_matches(IMG("\0" "7.2.\0")));
	assert_false(perf72_image_matches(IMG("\0" "7.2.13-1\0")));      /* vendor suffix */
	assert_false(perf72_image_matches(IMG("\0" "7.20.1\0")));
	assert_false(perf72_image_matches(IMG("\0" "7.3.1\0")));
	assert_false(perf72_image_matches(IMG("\0" "6.12.117\0")));
	assert_false(perf612_image_matches(IMG("\0" "7.2.13\0")));
	assert_false(perf61_image_matches(IMG("\0" "7.2.13\0")));
	/* the model list picks it; exactly one model must match */
	assert_ptr_equal(sl_model_for_image(SL_TOOL_PERF, IMG("a\0" "7.2.13\0b")), &sl_model_perf72);
	assert_ptr_equal(sl_model_for_image(SL_TOOL_PERF, IMG("a\0" "6.12.117\0b")), &sl_model_perf612);
	assert_null(sl_model_for_image(SL_TOOL_PERF, IMG("a\0" "7.3.1\0b")));
	assert_null(sl_model_for_image(SL_TOOL_PERF, IMG("\0" "6.12.117\0" "7.2.13\0")));
	assert_true(sl_perf_version_in_image(IMG("GLIBC\0" "7.2.13\0"), v, sizeof(v)));
	assert_string_equal(v, "7.2.13");
	/* newest first: the LAZY=on default for versions no model mirrors */
	assert_int_equal(sl_models_for_tool(SL_TOOL_PERF, &ms), 3);
	assert_ptr_equal(ms[0], &sl_model_perf72);
	assert_ptr_equal(ms[1], &sl_model_perf612);
	/* messages list the versions from the models */
	assert_int_equal(sl_model_versions(SL_TOOL_PERF, v, sizeof(v)), (int)strlen("6.1.x, 6.12.x, 7.2.x"));
	assert_string_equal(v, "6.1.x, 6.12.x, 7.2.x");
	assert_int_equal(sl_model_versions(SL_TOOL_PERF, v, 9), (int)strlen("6.1.x, 6.12.x, 7.2.x"));
	assert_string_equal(v, "6.1.x, 6");
	assert_int_equal(sl_model_versions(SL_TOOL_OTHER, v, sizeof(v)), 0);
	assert_string_equal(v, "");
}

static void test_argv(void **state)
{
	struct sl_invocation a;

	(void)state;
	/* global options as 6.12 */
	assert_int_equal(PARSE(&a, "perf", "--debug-file", "/tmp/d.log", "script", "-i", "x.data"), 1);
	assert_string_equal(a.input, "x.data");
	assert_int_equal(PARSE(&a, "perf", "--no-pager", "--buildid-dir", "/b", "report", "--inp=z", "--stdio"), 1);
	assert_string_equal(a.input, "z");
	assert_string_equal(a.buildid_dir, "/b");
	/* new options take the next word: it is no option of ours */
	assert_int_equal(PARSE(&a, "perf", "script", "--unwind-style", "libdw", "-i", "u.data"), 1);
	assert_string_equal(a.input, "u.data");
	assert_int_equal(PARSE(&a, "perf", "script", "--unwind-style", "--no-demangle"), 1);
	assert_int_equal(a.demangle, SYMIDX_DEM_NOOPTS);
	assert_int_equal(PARSE612(&a, "perf", "script", "--unwind-style", "--no-demangle"), 1);
	assert_int_equal(a.demangle, SYMIDX_DEM_NONE);
	assert_int_equal(PARSE(&a, "perf", "script", "--unwind-style=libdw", "--no-demangle"), 1);
	assert_int_equal(a.demangle, SYMIDX_DEM_NONE);
	assert_int_equal(PARSE(&a, "perf", "report", "--addr2line-style", "-i", "--parallelism", "-i", "--stdio",
			       "-i", "r.data"), 1);
	assert_string_equal(a.input, "r.data");
	assert_int_equal(sl_model_perf72.text_output(&a, 0), 1);
	/* the rest as 6.12 */
	assert_int_equal(PARSE(&a, "perf", "script", "-fi", "x"), 0);
	assert_int_equal(a.why.code, SL_R_GROUPED_OPT);
	assert_int_equal(PARSE(&a, "perf", "script", "-i", "-"), 0);
	assert_int_equal(a.why.code, SL_R_PIPE_INPUT);
	assert_int_equal(PARSE(&a, "perf", "--debug", "verbose=2", "script"), 1);
	assert_int_equal(a.demangle, SYMIDX_DEM_VERBOSE);
}

static void test_code_with_type(void **state)
{
	struct sl_invocation a;

	(void)state;
	assert_int_equal(PARSE(&a, "perf", "annotate", "--stdio", "--code-with-type"), 1);
	assert_int_equal(sl_model_perf72.text_output(&a, 0), 0);
	assert_int_equal(a.why.code, SL_R_DATA_TYPE);
	assert_int_equal(PARSE(&a, "perf", "annotate", "--stdio", "--code-w"), 1);   /* abbreviated */
	assert_int_equal(sl_model_perf72.text_output(&a, 0), 0);
	assert_int_equal(PARSE(&a, "perf", "annotate", "--stdio", "--code-with-type", "--no-code-with-type"), 1);
	assert_int_equal(sl_model_perf72.text_output(&a, 0), 1);
	assert_int_equal(PARSE(&a, "perf", "annotate", "--stdio", "--data-type"), 1);
	assert_int_equal(sl_model_perf72.text_output(&a, 0), 0);
	assert_int_equal(PARSE(&a, "perf", "report", "--stdio", "--sort", "dso,typeoff"), 1);
	assert_int_equal(sl_model_perf72.text_output(&a, 0), 0);
	assert_int_equal(PARSE(&a, "perf", "annotate", "--stdio"), 1);
	assert_int_equal(sl_model_perf72.text_output(&a, 0), 1);
	/* 6.12 has no such option (its annotate is eager for another reason:
	 * core/model/perf612.c perf612_text_output) */
	assert_int_equal(PARSE612(&a, "perf", "annotate", "--stdio", "--code-with-type"), 1);
	assert_int_equal(perf612_text_output(&a, 0), 0);
	assert_int_equal(a.why.code, SL_R_ANNOTATE_612);
}

static void test_symfs_layout(void **state)
{
	struct sl_invocation a;
	char buf[256];

	(void)state;
	assert_int_equal(PARSE(&a, "perf", "script", "--symfs", "/srv/root"), 1);
	assert_string_equal(a.symfs, "/srv/root");
	assert_int_equal(PARSE(&a, "perf", "script", "--symfs", "/srv/root,flat"), 0);
	assert_int_equal(a.why.code, SL_R_SYMFS_LAYOUT);
	sl_why_format(&a.why, buf, sizeof(buf));
	assert_non_null(strstr(buf, "/srv/root,flat"));
	assert_int_equal(PARSE(&a, "perf", "report", "--symfs=/r,hierarchy", "--stdio"), 0);
	assert_int_equal(a.why.code, SL_R_SYMFS_LAYOUT);
	assert_null(a.input);
	/* 6.12: the comma is part of the directory */
	assert_int_equal(PARSE612(&a, "perf", "script", "--symfs", "/srv/root,flat"), 1);
	assert_string_equal(a.symfs, "/srv/root,flat");
}

static const struct perf612_demangler cxa_only = { .cxa = __cxa_demangle, .what = "__cxa_demangle" };

/* perf72_demangle(@raw) is @want (NULL: the raw name), certain */
static void expect72(const char *raw, const char *want)
{
	int unc = 0;
	char *d = perf72_demangle(raw, SYMIDX_DEM_NOOPTS, &unc);

	if (unc)
		fail_msg("%s: uncertain", raw);
	if (!want && d)
		fail_msg("%s: got '%s', want the raw name", raw, d);
	if (want && (!d || strcmp(d, want)))
		fail_msg("%s: got '%s', want '%s'", raw, d ? d : "(raw)", want);
	free(d);
}

static void expect72_uncertain(const char *raw)
{
	int unc = 0;

	free(perf72_demangle(raw, SYMIDX_DEM_NOOPTS, &unc));
	if (!unc)
		fail_msg("%s: not marked uncertain", raw);
}

/* perf612_demangle(@raw): @want (NULL: raw) */
static void expect612(const char *raw, const char *want)
{
	int unc = 0;
	char *d = perf612_demangle(raw, SYMIDX_DEM_NOOPTS, &unc);

	if (!want)
		assert_null(d);
	else
		assert_string_equal(d, want);
	free(d);
}

/* The table of section 4 of the notes: names stored by perf 6.12.118 and
 * perf 7.2.13 (Debian), observed with perf report --stdio --sort sym. */
static void test_demangle_observed(void **state)
{
	(void)state;
	perf612_demangler_set(&cxa_only);
	expect612("_ZN12_GLOBAL__N_13fooE", "(anonymous namespace)::foo");
	expect72("_ZN12_GLOBAL__N_13fooE", "_GLOBAL__N_1::foo");
	expect612("_ZN3foo3barE.lto_priv.0", NULL);
	expect72("_ZN3foo3barE.lto_priv.0", "foo::bar.lto_priv.0");
	expect612("_ZN3foo4hdefE", "foo::hdef");
	expect72("_ZN3foo4hdefE", "foo");
	expect612("_RNvCs1234_7mycrate4main", NULL);
	expect72("_RNvCs1234_7mycrate4main", "mycrate::main");
	expect72("_ZN4core3ptr13drop_in_place17h0123456789abcdefE", "core::ptr::drop_in_place");
	expect612("_ZN4core3ptr13drop_in_place17h0123456789abcdefE.llvm.1234ABCD", NULL);
	expect72("_ZN4core3ptr13drop_in_place17h0123456789abcdefE.llvm.1234ABCD", "core::ptr::drop_in_place");
	perf612_demangler_set(NULL);
}

/* dso__demangle_sym's rules beyond the table */
static void test_demangle_rules(void **state)
{
	int unc = 0;

	(void)state;
	perf612_demangler_set(&cxa_only);
	/* legacy forms and prefixes */
	expect72("ZN3foo3barE", "foo::bar");
	expect72("__ZN3foo3barE", "foo::bar");
	expect72("_ZNE", "");
	expect72("_ZN1hE", "");                                    /* the only element is a "hash" */
	expect72("_ZN3foo4hABCE", "foo");                          /* upper-case hex too */
	expect72("_ZN3foo5hxyz0E", "foo::hxyz0");
	expect72("_ZN4hdef3fooE", "hdef::foo");                    /* only the last element */
	/* escapes, "_$" and ".." */
	expect72("_ZN10_$LT$T$GT$3fooE", "<T>::foo");
	expect72("_ZN4core3fmt49_$LT$impl$u20$core..fmt..Debug$u20$for$u20$u8$GT$3fmt17h0123456789abcdefE",
		 "core::fmt::<impl core::fmt::Debug for u8>::fmt");
	expect72("_ZN3foo24a$SP$$BP$$RF$$LP$$RP$$C$E", "foo::a@*&(),");
	expect72("_ZN3foo10a$u1f600$bE", "foo::a\xf0\x9f\x98\x80" "b");
	expect72("_ZN3foo8a$XX$b.cE", "foo::a$XX$b.c");            /* unknown escape: the rest raw */
	expect72("_ZN3foo7a$u41$bE", "foo::aAb");
	expect72("_ZN3foo7a$u4A$bE", "foo::a$u4A$b");              /* upper-case hex is no escape */
	expect72("_ZN3foo6a$u0$bE", "foo::a$u0$b");                /* a control character */
	expect72("_ZN3foo5a.b.cE", "foo::a.b.c");
	expect72("_ZN3foo6a..b.cE", "foo::a::b.c");
	/* suffixes: '.' and printable, else no Rust name (C++ comes next) */
	expect72("_ZN3foo3barE.cold", "foo::bar.cold");
	expect72("_ZN3foo3barE.llvm.abc", "foo::bar.llvm.abc");    /* lower case: not cut */
	expect72("_ZN3foo3barEv", "foo::bar()");                   /* __cxa_demangle */
	expect72("_ZNK3foo3barEv", "foo::bar() const");
	expect72("_ZN3foo3barEv.cold", "foo::bar() [clone .cold]");
	expect72("_ZN3fooC2Ev", "foo::foo()");
	expect72("main", NULL);
	expect72("f", "float");                                    /* types, as 6.12 */
	expect72("_ZN3foo", NULL);                                 /* no 'E' */
	expect72("_ZN3fooE\xc3\xa9", NULL);                        /* not ASCII */
	/* v0 paths the model prints */
	expect72("_RNvNtCs1234_7mycrate3sub4main", "mycrate::sub::main");
	expect72("RNvCs1234_7mycrate4main", "mycrate::main");
	expect72("__RNvCs1234_7mycrate4main", "mycrate::main");
	expect72("_RNCNvCs1234_7mycrate4main0B3_", "mycrate::main::{closure#0}");
	expect72("_RNCNvCs1234_7mycrate4mains_0_", "mycrate::main::{closure#1}");
	expect72("_RNSNvCs1_3foo3bar6vtable", "foo::bar::{shim:vtable#0}");
	expect72("_RNvCs1234_7mycrate4main.llvm.00AB", "mycrate::main");
	expect72("_RNvCs1234_7mycrate4main.cold", "mycrate::main.cold");
	expect72("RSA_free", NULL);                                /* not v0: 'S' is no path tag */
	expect72("_RNvCs1234_7mycrate", NULL);                     /* cut short */
	/* what the model does not print: uncertain */
	expect72_uncertain("_RINvCs1_3foo3barpE");                 /* generic arguments */
	expect72_uncertain("_RNvMs_Cs1_3fooNtB2_3Bar3new");        /* an impl path */
	expect72_uncertain("_RNvCs1_3foou6bcd_ef");                /* punycode */
	expect72("_RNvCs1_3foou7bcd_ef3bar", NULL);                 /* "bar" after the path: no suffix */
	expect72_uncertain("camlStdlib__list_iter_123");           /* OCaml */
	expect72_uncertain("Lfoo;bar()V");                         /* Java */
	/* modes */
	assert_null(perf72_demangle("_ZN3foo3barE", SYMIDX_DEM_NONE, &unc));
	assert_int_equal(unc, 0);
	assert_null(perf72_demangle("_ZN3foo3barE", SYMIDX_DEM_UNKNOWN, &unc));
	assert_int_equal(unc, 1);
	unc = 0;
	{
		char *d = perf72_demangle("_ZN5MixerImLi7EE5churnEv", SYMIDX_DEM_VERBOSE, &unc);

		assert_string_equal(d, "Mixer<unsigned long, 7>::churn()");
		free(d);
	}
	/* the budget charges the longer of the raw and the stored name */
	assert_int_equal(sl_model_cost(&sl_model_perf72.sym, "_ZN3foo4hdefE", 13, SYMIDX_DEM_NOOPTS), 64 + 13 + 1);
	assert_int_equal(sl_model_cost(&sl_model_perf72.sym, "f", 1, SYMIDX_DEM_NOOPTS), 64 + 5 + 1);
	assert_int_equal(sl_model_cost(&sl_model_perf72.sym, "_ZN5MixerImLi7EE5churnEv", 24, SYMIDX_DEM_NOOPTS), 64 + 32 + 1);
	assert_int_equal(sl_model_cost(&sl_model_perf72.sym, "f", 1, SYMIDX_DEM_NONE), 64 + 1 + 1);
	perf612_demangler_set(NULL);
}

static void test_no_demangler(void **state)
{
	static const struct perf612_demangler none = { .why = "this perf demangles with libLLVM" };
	char why[128] = "";
	int unc = 0;
	char *d;

	(void)state;
	perf612_demangler_set(&none);
	assert_int_equal(sl_model_perf72.sym.demangler_ready(why, sizeof(why)), 0);
	assert_null(perf72_demangle("_ZN1a1bEv", SYMIDX_DEM_NOOPTS, &unc));
	assert_int_equal(unc, 1);
	/* Rust names need no C++ demangler */
	unc = 0;
	d = perf72_demangle("_ZN1a1bE", SYMIDX_DEM_NOOPTS, &unc);
	assert_string_equal(d, "a::b");
	assert_int_equal(unc, 0);
	free(d);
	perf612_demangler_set(NULL);
	/* in this test program the lookup finds libstdc++'s */
	assert_int_equal(sl_model_perf72.sym.demangler_ready(why, sizeof(why)), 1);
}

static void test_rules_as_data(void **state)
{
	const struct sl_tool_model *m = &sl_model_perf72, *o = &sl_model_perf612;

	(void)state;
	assert_string_equal(m->versions, "7.2.x");
	assert_int_equal(m->sym.demangler, SL_DEMANGLER_PERF_RUST_CXX);
	assert_int_equal(m->sym.fixup.notype_loses, 1);
	assert_int_equal(o->sym.fixup.notype_loses, 0);
	assert_int_equal(sl_model_perf61.sym.fixup.notype_loses, 0);
	assert_int_equal(m->unwinder, SL_UNWIND_LIBDW);
	assert_int_equal(o->unwinder, SL_UNWIND_LIBUNWIND);
	assert_int_equal(m->kallsyms_rules, SL_KS_DROP_LOCAL_LABELS);
	assert_int_equal(o->kallsyms_rules, 0);
	assert_int_equal(m->reads_gnu_debugdata, 1);
	assert_int_equal(o->reads_gnu_debugdata, 0);
	/* SAME as 6.12 */
	assert_ptr_equal(m->sym.sym_kind, o->sym.sym_kind);
	assert_ptr_equal(m->sym.label_section_ok, o->sym.label_section_ok);
	assert_ptr_equal(m->sym.choose_by_name, o->sym.choose_by_name);
	assert_int_equal(m->sym.choose_by_summary, 1);
	assert_int_equal(m->sym.plt, SL_PLT_V62);
	assert_int_equal(m->sym.fixup.dup_marks_ifunc_alias, 1);
	assert_int_equal(m->sym.fixup.abort_annotate_full, 1);
	assert_int_equal(sl_model_last_page(&m->sym), 4096);
	assert_int_equal(m->lookup_space, SL_LOOKUP_FILE_OFFSET);
	assert_int_equal(m->budget_rules, o->budget_rules);
	assert_int_equal(m->argv_rules->data_type_options, 1);
	assert_int_equal(m->argv_rules->code_with_type, 1);
	assert_int_equal(o->argv_rules->code_with_type, 0);
	assert_int_equal(m->launches_workloads, 1);
}

/* ---- choose_best_symbol's NOTYPE rule in a replay ------------------------- */

static char dir[64];
static const struct elf_ops *ops;

/*
 * Pairs at one start, equal sizes: a local FUNC and a global NOTYPE label
 * (zfunc / aaaa_label: the pair the notes observed), a weak FUNC and a
 * global NOTYPE label, a global OBJECT-less pair of FUNCs (names decide),
 * and a NOTYPE label against a zero-size FUNC (length first).
 */
static const char *lib_s =
	"\t.text\n"
	"\t.type zfunc,@function\n"
	"zfunc:\n"
	"\t.globl aaaa_label\n"
	"aaaa_label:\n"
	"\t.fill 15,1,0x90\n"
	"\t.size zfunc,15\n"
	"\t.size aaaa_label,15\n"
	"\t.weak wfunc\n"
	"\t.type wfunc,@function\n"
	"wfunc:\n"
	"\t.globl bbbb_label\n"
	"bbbb_label:\n"
	"\t.fill 16,1,0x90\n"
	"\t.size wfunc,16\n"
	"\t.size bbbb_label,16\n"
	"\t.globl cc_long_name\n"
	"\t.type cc_long_name,@function\n"
	"cc_long_name:\n"
	"\t.globl cc\n"
	"\t.type cc,@function\n"
	"cc:\n"
	"\t.fill 16,1,0x90\n"
	"\t.size cc_long_name,16\n"
	"\t.size cc,16\n"
	"\t.type zero,@function\n"
	"zero:\n"
	"\t.globl dddd_label\n"
	"dddd_label:\n"
	"\t.fill 16,1,0x90\n"
	"\t.size dddd_label,16\n"
	"\t.section .note.GNU-stack,\"\",@progbits\n";

static int setup(void **state)
{
	char cmd[256], path[96];
	FILE *f;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/symlazy-ut72-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/t.s", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(lib_s, f);
	fclose(f);
	ops = elfops_direct();
	snprintf(cmd, sizeof(cmd), "cc -shared -Wl,--build-id -o %s/libt.so %s/t.s", dir, dir);
	return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

struct prog {
	int fd;
	Elf *elf;
	struct symidx_layout lay;
	struct symidx_src src;
	struct symidx idx;
	unsigned char bid[20];
};

static void prog_open(struct prog *p, const struct sl_tool_model *m)
{
	char path[96];
	int r;

	memset(p, 0, sizeof(*p));
	snprintf(path, sizeof(path), "%s/libt.so", dir);
	p->fd = open(path, O_RDONLY);
	assert_true(p->fd >= 0);
	p->elf = ops->elf_begin(p->fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(p->elf);
	assert_int_equal(symindex_layout(ops, p->elf, 0, &p->lay), 0);
	r = elf_read_build_id(ops, p->elf, p->bid, sizeof(p->bid));
	assert_true(r > 0);
	symindex_src_init(&p->src, ops, p->elf, &p->lay, p->bid, (size_t)r, NULL, -1, SYMIDX_DEM_NOOPTS, &m->sym);
	assert_int_equal(symindex_open(&p->src, &p->idx), 0);
}

static void prog_close(struct prog *p)
{
	symindex_close(&p->idx);
	ops->elf_end(p->elf);
	close(p->fd);
}

/* The file offset of .symtab symbol @name (perf's symbol start). */
static uint64_t sym_off(struct prog *p, const char *name)
{
	GElf_Sym s;

	for (uint32_t i = 0; i < p->src.nsymtab; i++) {
		const char *n;
		GElf_Shdr sh;

		if (!ops->gelf_getsym(p->src.symtab, (int)i, &s))
			continue;
		n = (const char *)p->src.symtab_str->d_buf + s.st_name;
		if (strcmp(n, name))
			continue;
		assert_non_null(ops->gelf_getshdr(ops->elf_getscn(p->elf, s.st_shndx), &sh));
		return s.st_value - (sh.sh_addr - sh.sh_offset);
	}
	fail_msg("no symbol %s", name);
	return 0;
}

/* The name of the symbol perf answers @off with. */
static const char *answer_name(struct prog *p, uint64_t off)
{
	struct symidx_answer x;
	GElf_Sym s;
	Elf_Data *tab, *str;

	assert_int_equal(symindex_replay(&p->idx, &p->src, &p->lay, &off, 1, &x), 0);
	assert_int_equal(x.kind, SYMIDX_ANS_SYM);
	tab = x.table ? p->src.dynsym : p->src.symtab;
	str = x.table ? p->src.dynsym_str : p->src.symtab_str;
	assert_non_null(ops->gelf_getsym(tab, (int)x.index, &s));
	return (const char *)str->d_buf + s.st_name;
}

static void test_notype_choice(void **state)
{
	struct prog p, q;
	uint64_t z, w, c, d;

	(void)state;
	prog_open(&p, &sl_model_perf72);
	prog_open(&q, &sl_model_perf612);
	z = sym_off(&p, "zfunc");
	w = sym_off(&p, "wfunc");
	c = sym_off(&p, "cc");
	d = sym_off(&p, "dddd_label");
	assert_int_equal(sym_off(&p, "aaaa_label"), z);
	/* 7.2: the FUNC survives (type rule before binding and names) */
	assert_string_equal(answer_name(&p, z), "zfunc");
	assert_string_equal(answer_name(&p, z + 7), "zfunc");
	assert_string_equal(answer_name(&p, w), "wfunc");
	/* 6.12: the global label (binding rule) */
	assert_string_equal(answer_name(&q, z), "aaaa_label");
	assert_string_equal(answer_name(&q, w), "bbbb_label");
	/* two FUNCs: the name rule, alike in both */
	assert_string_equal(answer_name(&p, c), "cc_long_name");
	assert_string_equal(answer_name(&q, c), "cc_long_name");
	/* the length rule comes first: the sized label beats the zero-size FUNC */
	assert_string_equal(answer_name(&p, d + 3), "dddd_label");
	assert_string_equal(answer_name(&q, d + 3), "dddd_label");
	prog_close(&q);
	prog_close(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recognition),
		cmocka_unit_test(test_argv),
		cmocka_unit_test(test_code_with_type),
		cmocka_unit_test(test_symfs_layout),
		cmocka_unit_test(test_demangle_observed),
		cmocka_unit_test(test_demangle_rules),
		cmocka_unit_test(test_no_demangler),
		cmocka_unit_test(test_rules_as_data),
		cmocka_unit_test(test_notype_choice),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
