/* SPDX-License-Identifier: MIT */
/*
 * bccsym - resolve addresses of a process with libbcc's symcache, through
 * the PLT as bpftrace does (bcc 0.26 src/cc/bcc_syms.h), one line per address:
 *   <pid>\t<addr>\t<rc>\t<name>\t<demangle_name>\t<module>\t<offset>
 * (tab-separated: demangled names hold spaces)
 * Build: cc -o bccsym bccsym.c /usr/lib/x86_64-linux-gnu/libbcc_bpf.so.0
 *
 *   bccsym [-e] [-n] [-l LAZY] [-t TYPES] [-d DEBUG] PID [PID...] < addrs
 *   -e        a new cache for every address (bpftrace 0.17 with ASLR on)
 *   -n        bcc_symcache_resolve_no_demangle
 *   -l LAZY   lazy_symbolize (default 1), -t TYPES use_symbol_type (hex,
 *             default FUNC|IFUNC), -d 0 use_debug_file=0
 * Each input line is "<hex addr>" (every PID) or "<pid> <hex addr>".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct bcc_symbol {
	const char *name, *demangle_name, *module;
	uint64_t offset;
};
struct bcc_symbol_option {
	int use_debug_file, check_debug_file_crc, lazy_symbolize;
	uint32_t use_symbol_type;
};
void *bcc_symcache_new(int pid, struct bcc_symbol_option *option);
void bcc_free_symcache(void *symcache, int pid);
int bcc_symcache_resolve(void *symcache, uint64_t addr, struct bcc_symbol *sym);
int bcc_symcache_resolve_no_demangle(void *symcache, uint64_t addr, struct bcc_symbol *sym);

#define S(x) ((x) ? (x) : "(null)")

int main(int argc, char **argv)
{
	struct bcc_symbol_option o = { 1, 1, 1, (1u << 2) | (1u << 10) };
	int each = 0, nodem = 0, c, npid = 0, pids[64];
	void *caches[64] = { 0 };
	char line[256];

	while ((c = getopt(argc, argv, "enl:t:d:")) != -1) {
		switch (c) {
		case 'e': each = 1; break;
		case 'n': nodem = 1; break;
		case 'l': o.lazy_symbolize = atoi(optarg); break;
		case 't': o.use_symbol_type = (uint32_t)strtoul(optarg, NULL, 16); break;
		case 'd': o.use_debug_file = atoi(optarg); break;
		default: return 2;
		}
	}
	for (; optind < argc && npid < 64; optind++)
		pids[npid++] = atoi(argv[optind]);
	if (!npid)
		return 2;
	while (fgets(line, sizeof(line), stdin)) {
		unsigned long long a, b;
		int n = sscanf(line, "%llx %llx", &a, &b), lo = 0, hi = npid;

		if (n < 1)
			continue;
		if (n == 2) {           /* "<pid> <addr>" */
			for (lo = 0; lo < npid && pids[lo] != (int)strtol(line, NULL, 10); lo++)
				;
			if (lo == npid)
				continue;
			hi = lo + 1;
			a = b;
		}
		for (int i = lo; i < hi; i++) {
			struct bcc_symbol s;
			int rc;

			if (!caches[i] || each) {
				if (caches[i])
					bcc_free_symcache(caches[i], pids[i]);
				caches[i] = bcc_symcache_new(pids[i], &o);
			}
			memset(&s, 0x5a, sizeof(s));
			rc = nodem ? bcc_symcache_resolve_no_demangle(caches[i], a, &s) :
				     bcc_symcache_resolve(caches[i], a, &s);
			if (rc == 0)
				printf("%d\t%llx\t%d\t%s\t%s\t%s\t%llu\n", pids[i], a, rc, S(s.name),
				       nodem ? "-" : S(s.demangle_name), S(s.module),
				       (unsigned long long)s.offset);
			else    /* bcc leaves name unset on failure: print module/offset */
				printf("%d\t%llx\t%d\t%s\t%llu\n", pids[i], a, rc, S(s.module),
				       (unsigned long long)s.offset);
		}
	}
	for (int i = 0; i < npid; i++)
		if (caches[i])
			bcc_free_symcache(caches[i], pids[i]);
	return 0;
}
