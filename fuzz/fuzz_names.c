/* SPDX-License-Identifier: MIT */
/*
 * fuzz_names - the name index (index/names_build.c, index/names.c) on
 * arbitrary bytes, two ways by the input's first 8 bytes:
 *   ELF bytes     symnames_build from a memfd (no cache dir); what it builds
 *                 must pass symnames_validate; every record's name looks up
 *                 to a record with that key, every address entry's start
 *                 symbolizes to a function holding it, and up to 8 names and
 *                 8 offsets taken from the input's last 64 bytes are asked;
 *   "SYMLZNM\0"   an index file: its checksum is recomputed (else nothing
 *                 gets past it), then symnames_validate; when it passes,
 *                 the same queries run on it, which must stay in bounds.
 */
#include <errno.h>
#include <sys/stat.h>
#include "fuzz_common.h"
#include "index/format.h"
#include "index/names.h"
#include "util/reason.h"

static void queries(const struct symnames *n, const uint8_t *data, size_t size)
{
	const struct symnames_hdr *h = n->h;
	uint32_t i, key;

	for (i = 0; i < h->nsyms && i < 4096; i++) {
		size_t len;
		const char *s = symnames_str(n, n->syms[i].name, &len);
		uint32_t r = symnames_lookup(n, s, len, &key);

		if (r != SYMNAMES_NONE) {
			size_t kl;
			const char *k = symnames_str(n, key, &kl);

			FUZZ_CHECK(r < h->nsyms && kl == len && !memcmp(k, s, len));
		}
	}
	for (i = 0; i < h->naddrs && i < 4096; i++) {
		uint32_t r = symnames_symbolize(n, n->addrs[i].start);

		FUZZ_CHECK(r != SYMNAMES_NONE && r < h->nsyms);
		FUZZ_CHECK(n->syms[r].offset <= n->addrs[i].start);
	}
	if (size >= 64) {
		const uint8_t *t = data + size - 64;

		for (i = 0; i < 8; i++) {
			uint64_t off;

			memcpy(&off, t + 8 * i, 8);
			(void)symnames_symbolize(n, off);
			(void)symnames_lookup(n, (const char *)t + 8 * i, (t[i] & 7) + 1, NULL);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symnames n;
	struct stat st;
	char path[64];
	struct sl_why why;
	int fd;

	if (size > (1u << 20))
		return 0;
	if (size >= sizeof(struct symnames_hdr) && !memcmp(data, SYMNAMES_MAGIC, 8)) {
		uint8_t *buf = malloc(size);
		uint64_t c;

		if (!buf)
			return 0;
		memcpy(buf, data, size);
		c = symindex_checksum(buf + 32, size - 32);
		memcpy(buf + 24, &c, 8);
		if (symnames_validate(buf, size) == 0) {
			symnames_attach(&n, buf, size);
			queries(&n, data, size);
		}
		free(buf);
		return 0;
	}
	fd = fuzz_memfd(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && symnames_build(path, fd, &st, -1, &n, &why) == 0) {
		FUZZ_CHECK(symnames_validate(n.map, n.map_size) == 0);
		queries(&n, data, size);
		symnames_close(&n);
	}
	close(fd);
	return 0;
}
