/* SPDX-License-Identifier: MIT */
/*
 * perfdata/kernel.c - kernel maps, kernel addresses and JIT maps of a perf.data
 * (perfdata/kernel.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/perf_event.h>

#include "perfdata/kernel.h"
#include "util/util.h"

#define KMMAP_NAME "[kernel.kallsyms]"
#define ENTRY_TRAMPOLINE_NAME "__entry_SYSCALL_64_trampoline"

static int grow(void **p, size_t *alloc, size_t need, size_t sz)
{
	return sl_grow(p, alloc, need, sz, 1024);
}

int pd_kernel_addr(struct pd_kernel *k, uint64_t ip)
{
	if (k->nr_addrs && k->addrs[k->nr_addrs - 1] == ip)
		return 0;
	if (k->nr_addrs == k->alloc_addrs && k->nr_addrs >= 65536) {
		/* compact before growing: memory follows distinct addresses */
		k->nr_addrs = sl_sort_unique_u64(k->addrs, k->nr_addrs);
		if (k->nr_addrs < k->alloc_addrs / 2)
			goto add;
	}
	if (grow((void **)&k->addrs, &k->alloc_addrs, k->nr_addrs + 1, sizeof(*k->addrs)) < 0)
		return -ENOMEM;
add:
	k->addrs[k->nr_addrs++] = ip;
	return 0;
}

static void cstr(char *out, size_t n, const char *p, size_t max)
{
	size_t l = strnlen(p, max);

	if (l >= n)
		l = n - 1;
	memcpy(out, p, l);
	out[l] = '\0';
}

int pd_kernel_mmap(struct pd_kernel *k, uint16_t misc, const struct pd_mmap *mm)
{
	char name[4096];
	unsigned cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	uint64_t start = mm->start, end = mm->start + mm->len;
	int is_kernel;

	if (cpumode != PERF_RECORD_MISC_KERNEL)
		return 0;                        /* guest kernels: another machine */
	cstr(name, sizeof(name), mm->filename, mm->filename_max);
	/* memcmp(xm->name, mmap_name, strlen(mmap_name) - 1) */
	is_kernel = !strncmp(name, KMMAP_NAME, sizeof(KMMAP_NAME) - 2);
	if (name[0] == '/' || (!is_kernel && name[0] == '[')) {
		struct pd_kmod *m;
		size_t alloc = k->nr_mods;

		if (grow((void **)&k->mods, &alloc, k->nr_mods + 1, sizeof(*k->mods)) < 0)
			return -ENOMEM;
		m = &k->mods[k->nr_mods];
		memset(m, 0, sizeof(*m));
		if (pd_module_name(name, m->name, sizeof(m->name)) < 0)
			cstr(m->name, sizeof(m->name), strrchr(name, '/') ? strrchr(name, '/') + 1 : name,
			     sizeof(name));
		m->start = start;
		m->end = end;
		/* one map per name: a later MMAP of the module replaces it */
		for (size_t i = 0; i < k->nr_mods; i++)
			if (!strcmp(k->mods[i].name, m->name)) {
				k->mods[i] = *m;
				return 0;
			}
		k->nr_mods++;
		return 0;
	}
	if (is_kernel) {
		k->have_kmmap = 1;
		k->kstart = start;
		k->kend = start == 0 && end == 0 ? UINT64_MAX : end;
		k->kpgoff = mm->pgoff;
		k->ref_name[0] = '\0';
		if (mm->pgoff)
			cstr(k->ref_name, sizeof(k->ref_name), name + sizeof(KMMAP_NAME) - 1,
			     sizeof(name) - sizeof(KMMAP_NAME));
		return 0;
	}
	if (!strcmp(name, ENTRY_TRAMPOLINE_NAME)) {
		size_t alloc = k->nr_extra;

		if (grow((void **)&k->extra, &alloc, k->nr_extra + 1, sizeof(*k->extra)) < 0)
			return -ENOMEM;
		k->extra[k->nr_extra].start = start;
		k->extra[k->nr_extra].end = end;
		k->extra[k->nr_extra].pgoff = mm->pgoff;
		k->nr_extra++;
	}
	return 0;
}

int pd_jit_path(uint16_t misc, const struct pd_mmap *mm, const char *f, char *out, size_t n)
{
	uint32_t prot, flags;
	int anon, no_dso;

	if (mm->is_mmap2) {
		prot = mm->prot;
		flags = mm->flags;
	} else {
		prot = (misc & PERF_RECORD_MISC_MMAP_DATA) ? 0 : PROT_EXEC;
		flags = 0;
	}
	anon = !strcmp(f, "//anon") || !strncmp(f, "/dev/zero", 9) ||
	       !strncmp(f, "/anon_hugepage", 14) || (flags & MAP_HUGETLB);
	no_dso = !strncmp(f, "[stack", 6) || !strncmp(f, "/SYSV", 5) || !strcmp(f, "[heap]");
	/* thread__new: nsinfo__new(pid) is NULL for pid 0 */
	if (!(anon || no_dso) || !(prot & PROT_EXEC) || mm->pid == 0 || mm->pid == -1)
		return 0;
	snprintf(out, n, "/tmp/perf-%d.map", (int)mm->pid);
	return 1;
}

int pd_kernel_finish(struct pd_kernel *k)
{
	k->nr_addrs = sl_sort_unique_u64(k->addrs, k->nr_addrs);
	return 0;
}

void pd_kernel_free(struct pd_kernel *k)
{
	free(k->mods);
	free(k->extra);
	free(k->addrs);
	memset(k, 0, sizeof(*k));
}

int pd_module_name(const char *path, char *out, size_t n)
{
	const char *name = strrchr(path, '/'), *ext;
	size_t len;
	char *p;

	name = name ? name + 1 : path;
	if (name[0] == '[') {
		if (!strncmp(name, "[kernel.kallsyms]", 17) || !strncmp(name, "[guest.kernel.kallsyms", 22) ||
		    !strncmp(name, "[vdso]", 6) || !strncmp(name, "[vdso32]", 8) ||
		    !strncmp(name, "[vdsox32]", 9) || !strncmp(name, "[vsyscall]", 10))
			return -1;
		if (strlen(name) + 1 > n)
			return -1;
		strcpy(out, name);
	} else {
		ext = strrchr(name, '.');
		if (!ext)
			return -1;
		/* compressed: .ko.gz / .ko.xz / .ko.zst (is_supported_compression) */
		if (!strcmp(ext, ".gz") || !strcmp(ext, ".xz") || !strcmp(ext, ".zst")) {
			if ((size_t)(ext - name) < 3)
				return -1;
			ext -= 3;
		}
		if (ext <= name || strncmp(ext, ".ko", 3))
			return -1;
		len = (size_t)(ext - name);
		if (len + 3 > n)
			return -1;
		out[0] = '[';
		memcpy(out + 1, name, len);
		out[len + 1] = ']';
		out[len + 2] = '\0';
	}
	for (p = out; *p; p++)
		if (*p == '-')
			*p = '_';
	return 0;
}
