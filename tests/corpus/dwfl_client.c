/* SPDX-License-Identifier: MIT */
/*
 * dwfl_client - a libdwfl client that prints every output field of
 * dwfl_module_addrsym, dwfl_module_addrinfo and dwfl_module_addrname, so the
 * dwfl corpus (tests/integration/dwfl.sh) can compare stock libdw with the
 * shim field by field (eu-addr2line shows only the name and offset).
 *
 *   dwfl_client [-p PID] [--list [N]] [--scan] [FILE] [ADDR...]
 *
 * FILE is reported offline (dwfl_report_offline, as eu-addr2line -e does,
 * with the standard debuginfo search: .gnu_debuglink, build-id); -p PID
 * reports a live process (dwfl_linux_proc_report, as eu-stack -p). ADDRs are
 * hex; without any, they are read one a line from stdin.
 *   --list [N]  print, instead, the addresses worth asking about: for every
 *               symbol (dwfl_module_getsym_info) its value, value - 1,
 *               value + size / 2, value + size and value + size + 1, sorted
 *               and unique, at most N (default all) evenly spread;
 *   --scan      also print a checksum of a full dwfl_module_getsym_info
 *               scan from index 0 (the read-by-index path).
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *debuginfo_path;
static const Dwfl_Callbacks offline_cb = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};
static const Dwfl_Callbacks proc_cb = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

static Elf *seen[16];
static int nseen;

/* Elf pointers differ between runs: name them by first appearance. */
static int elf_id(Elf *e)
{
	if (!e)
		return -1;
	for (int i = 0; i < nseen; i++)
		if (seen[i] == e)
			return i;
	if (nseen < 16)
		seen[nseen++] = e;
	return nseen - 1;
}

static void print_sym(const GElf_Sym *s)
{
	printf(" name=%" PRIu32 " value=%#" PRIx64 " size=%" PRIu64 " info=%u other=%u shndx=%u", s->st_name,
	       s->st_value, s->st_size, s->st_info, s->st_other, s->st_shndx);
}

static void ask(Dwfl *dwfl, GElf_Addr a)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, a);
	GElf_Sym s1, s2;
	GElf_Word sh1 = 12345, sh2 = 12345;
	GElf_Off off = 777;
	Elf *elf = (Elf *)1;
	Dwarf_Addr bias = 999;
	const char *n;

	memset(&s1, 0xa5, sizeof(s1));
	memset(&s2, 0x5a, sizeof(s2));
	printf("%#" PRIx64 ":", a);
	if (!mod) {
		printf(" no module\n");
		return;
	}
	n = dwfl_module_addrsym(mod, a, &s1, &sh1);
	printf(" addrsym=%s shndx=%u", n ? n : "(null)", sh1);
	print_sym(&s1);
	n = dwfl_module_addrinfo(mod, a, &off, &s2, &sh2, &elf, &bias);
	printf(" | addrinfo=%s off=%#" PRIx64 " shndx=%u elf=%d bias=%#" PRIx64, n ? n : "(null)", off, sh2,
	       elf_id(elf), bias);
	print_sym(&s2);
	off = 777;
	n = dwfl_module_addrinfo(mod, a, &off, &s2, NULL, NULL, NULL);
	printf(" | addrinfo0=%s off=%#" PRIx64, n ? n : "(null)", off);
	n = dwfl_module_addrname(mod, a);
	printf(" | addrname=%s\n", n ? n : "(null)");
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct list_ctx {
	uint64_t *v;
	size_t n, cap;
	int scan;
};

static void add(struct list_ctx *c, uint64_t a)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 1024;
		c->v = realloc(c->v, c->cap * sizeof(*c->v));
		if (!c->v)
			exit(1);
	}
	c->v[c->n++] = a;
}

static int each_module(Dwfl_Module *mod, void **ud, const char *name, Dwarf_Addr start, void *arg)
{
	struct list_ctx *c = arg;
	int n = dwfl_module_getsymtab(mod);
	uint64_t sum = 0;

	(void)ud; (void)name; (void)start;
	for (int i = c->scan ? 0 : 1; i < n; i++) {
		GElf_Sym s;
		GElf_Addr v;
		GElf_Word sh;
		const char *nm = dwfl_module_getsym_info(mod, i, &s, &v, &sh, NULL, NULL);

		if (!nm)
			continue;
		if (c->scan) {
			sum = sum * 31 + v + s.st_size + s.st_info + sh;
			for (const char *p = nm; *p; p++)
				sum = sum * 131 + (unsigned char)*p;
			continue;
		}
		if (!nm[0] || s.st_shndx == SHN_UNDEF)
			continue;
		add(c, v);
		add(c, v - 1);
		add(c, v + s.st_size / 2);
		add(c, v + s.st_size);
		add(c, v + s.st_size + 1);
	}
	if (c->scan)
		printf("scan %s: %d symbols, checksum %#" PRIx64 "\n", name, n, sum);
	return DWARF_CB_OK;
}

int main(int argc, char **argv)
{
	Dwfl *dwfl;
	int i = 1, list = 0, scan = 0;
	long max = -1, pid = 0;

	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "-p") && i + 1 < argc) {
			pid = strtol(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--list")) {
			list = 1;
			if (i + 1 < argc && argv[i + 1][0] >= '0' && argv[i + 1][0] <= '9')
				max = strtol(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--scan")) {
			scan = 1;
		} else {
			fprintf(stderr, "usage: dwfl_client [-p PID] [--list [N]] [--scan] [FILE] [ADDR...]\n");
			return 2;
		}
	}
	dwfl = dwfl_begin(pid ? &proc_cb : &offline_cb);
	if (!dwfl)
		return 1;
	if (pid) {
		if (dwfl_linux_proc_report(dwfl, (pid_t)pid) != 0) {
			fprintf(stderr, "dwfl_linux_proc_report: %s\n", dwfl_errmsg(-1));
			return 1;
		}
	} else {
		if (i >= argc) {
			fprintf(stderr, "dwfl_client: no FILE\n");
			return 2;
		}
		if (!dwfl_report_offline(dwfl, "", argv[i], -1)) {
			fprintf(stderr, "dwfl_report_offline: %s\n", dwfl_errmsg(-1));
			return 1;
		}
		i++;
	}
	dwfl_report_end(dwfl, NULL, NULL);
	if (scan) {
		struct list_ctx c = { .scan = 1 };

		dwfl_getmodules(dwfl, each_module, &c, 0);
	}
	if (list) {
		struct list_ctx c = { .scan = 0 };
		size_t n = 0;

		dwfl_getmodules(dwfl, each_module, &c, 0);
		qsort(c.v, c.n, sizeof(*c.v), cmp_u64);
		for (size_t k = 0; k < c.n; k++)
			if (!k || c.v[k] != c.v[k - 1])
				c.v[n++] = c.v[k];
		for (size_t k = 0; k < n; k++)
			if (max < 0 || (size_t)max >= n || (k * (size_t)max) / n != ((k + 1) * (size_t)max) / n)
				printf("%#" PRIx64 "\n", c.v[k]);
		free(c.v);
		dwfl_end(dwfl);
		return 0;
	}
	if (i < argc) {
		for (; i < argc; i++)
			ask(dwfl, strtoull(argv[i], NULL, 16));
	} else {
		char line[128];

		while (fgets(line, sizeof(line), stdin))
			ask(dwfl, strtoull(line, NULL, 16));
	}
	dwfl_end(dwfl);
	return 0;
}
