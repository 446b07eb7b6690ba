/* SPDX-License-Identifier: MIT */
/*
 * fuzz_a2l - GNU addr2line's symbol-table answers (srcline/a2l.h) on
 * arbitrary bytes, two ways by the input's first 8 bytes:
 *   ELF bytes     a memfd read by path (/proc/self/fd/N): a2l_eligible, then
 *                 a2l_open without a cache dir, or (last input byte odd) in
 *                 a private cache dir under /tmp, where a second a2l_open
 *                 must map the file the first one wrote; what opens must
 *                 pass a2l_validate, and the queries (below) must stay in
 *                 bounds; then the file's identity is changed (ftruncate)
 *                 and a symbol line asked (lookup_symbol must not find it);
 *   "SYMLZA2D"    a DWARF table file (srcline/a2l_dwarf.h): checksum
 *                 recomputed, a2l_dw_validate (ELF inputs with .debug_info
 *                 reach the DWARF reader through a2l_open);
 *   "SYMLZA2L"    a table file: its checksum is recomputed (else nothing
 *                 gets past it), then a2l_validate; when it passes,
 *                 a2l_attach and the same queries.
 * Queries, each with with_addresses 0 and 1 (answers written into a heap
 * buffer of exactly the size a2l.h promises suffices, and again into a
 * 7-byte one: ASan sees any write past either): every section's first and
 * last address and one past it, "0", ",", "main", a 150-byte line, and up to
 * 16 lines of the input's last 512 bytes. Every complete answer ends in '\n'
 * and, with addresses, starts "0x" + 16 hex digits + '\n'.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include "fuzz_common.h"
#include "index/cache.h"
#include "index/format.h"
#include "srcline/a2l.h"
#include "srcline/a2l_dwarf.h"
#include "util/reason.h"


static void ask(struct a2l_table *t, const char *line, size_t len)
{
	size_t cap = a2l_answer_max(t);
	char *out = malloc(cap), small[7];

	FUZZ_CHECK(out != NULL);
	for (int wa = 0; wa < 2; wa++) {
		size_t n, fs = t->fstate ? (size_t)t->dh_nfuncs * 4 : 0;
		uint32_t *saved = fs ? malloc(fs) : NULL, c_sec = t->c_sec, c_func = t->c_func;

		/* answers depend on the state earlier queries left (the done:
		 * block's renaming, the one-entry cache): the same query is
		 * asked twice from the same state */
		if (saved)
			memcpy(saved, t->fstate, fs);
		t->need_real = 0;
		n = a2l_answer(t, line, len, wa, out, cap);
		if (saved) {
			memcpy(t->fstate, saved, fs);
			free(saved);
		}
		t->c_sec = c_sec;
		t->c_func = c_func;
		if (t->need_real) {     /* a DWARF query only binutils answers: nothing written */
			FUZZ_CHECK(n == 0 && t->dh);
			t->need_real = 0;
			continue;
		}
		FUZZ_CHECK(n > 0 && n <= cap);
		FUZZ_CHECK(out[n - 1] == '\n');
		if (wa) {
			FUZZ_CHECK(n >= 19 && out[0] == '0' && out[1] == 'x' && out[18] == '\n');
			for (int i = 2; i < 18; i++)
				FUZZ_CHECK((out[i] >= '0' && out[i] <= '9') || (out[i] >= 'a' && out[i] <= 'f'));
		}
		FUZZ_CHECK(a2l_answer(t, line, len, wa, small, sizeof(small)) == n);
		FUZZ_CHECK(!memcmp(small, out, n < sizeof(small) ? n : sizeof(small)));
	}
	free(out);
}

static void ask_str(struct a2l_table *t, const char *s)
{
	ask(t, s, strlen(s));
}

static void queries(struct a2l_table *t, const uint8_t *data, size_t size)
{
	char line[160];
	size_t tail = size < 512 ? size : 512, pos, nl;

	for (uint32_t i = 0; i < t->h->nsecs && i < 64; i++) {
		const struct a2l_sec *s = &t->secs[i];

		snprintf(line, sizeof(line), "%016llx\n", (unsigned long long)s->vma);
		ask_str(t, line);
		snprintf(line, sizeof(line), "%llx\n", (unsigned long long)(s->vma + s->size - 1));
		ask_str(t, line);
		snprintf(line, sizeof(line), "  %llx\n", (unsigned long long)(s->vma + s->size));
		ask_str(t, line);
	}
	ask_str(t, "0\n");
	ask_str(t, ",\n");
	ask_str(t, ", +0x10\n");
	ask_str(t, "main\n");
	memset(line, '7', 150);
	ask(t, line, 150);
	memset(line, 'x', 150);
	ask(t, line, 150);
	/* up to 16 lines of the tail, each cut to at most 99 bytes as fgets would */
	pos = size - tail;
	for (int k = 0; k < 16 && pos < size; k++) {
		const uint8_t *e = memchr(data + pos, '\n', size - pos);

		nl = e ? (size_t)(e - (data + pos)) + 1 : size - pos;
		ask(t, (const char *)data + pos, nl < A2L_LINE - 1 ? nl : A2L_LINE - 1);
		pos += nl;
	}
}

static void table_file(const uint8_t *data, size_t size)
{
	struct a2l_table t;
	uint8_t *buf = malloc(size);
	uint64_t c;

	if (!buf)
		return;
	memcpy(buf, data, size);
	c = symindex_checksum(buf + 32, size - 32);
	memcpy(buf + 24, &c, 8);
	if (a2l_validate(buf, size) == 0) {
		memset(&t, 0, sizeof(t));
		a2l_attach(&t, buf, size);      /* t.path "": symbol lines find nothing */
		queries(&t, data, size);
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct a2l_table t;
	char path[64];
	struct sl_why why;
	int fd, dirfd = -1, r;

	if (size > (1u << 20))
		return 0;
	if (size >= sizeof(struct a2l_hdr) && !memcmp(data, A2L_MAGIC, 8)) {
		table_file(data, size);
		return 0;
	}
	if (size >= sizeof(struct a2d_hdr) && !memcmp(data, A2D_MAGIC, 8)) {
		uint8_t *buf = malloc(size);
		uint64_t c;

		if (buf) {      /* a DWARF table file: validation alone */
			memcpy(buf, data, size);
			c = symindex_checksum(buf + 32, size - 32);
			memcpy(buf + 24, &c, 8);
			(void)a2l_dw_validate(buf, size);
			free(buf);
		}
		return 0;
	}
	fd = fuzz_memfd(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	(void)a2l_eligible(path, &why);
	if (size && (data[size - 1] & 1))
		dirfd = fuzz_cache_dir();
	r = a2l_open(path, dirfd, &t, &why);
	if (r == 0) {
		FUZZ_CHECK(a2l_validate(t.map, t.map_size) == 0);
		FUZZ_CHECK(!t.dh || a2l_dw_validate(t.dmap, t.dmap_size) == 0);
		FUZZ_CHECK(!t.from_cache);
		queries(&t, data, size);
		if (dirfd >= 0) {
			struct a2l_table t2;

			/* the file just written must be found and accepted */
			FUZZ_CHECK(a2l_open(path, dirfd, &t2, &why) == 0);
			FUZZ_CHECK(t2.from_cache && t2.map_size == t.map_size &&
				   !memcmp(t2.map, t.map, t.map_size));
			a2l_close(&t2);
		}
		/* another identity: lookup_symbol must give up, not read the file */
		if (ftruncate(fd, (off_t)size + 1) == 0)
			ask_str(&t, "main\n");
		a2l_close(&t);
	} else {
		FUZZ_CHECK(r < 0);
	}
	if (dirfd >= 0)
		fuzz_cache_clean();
	close(fd);
	return 0;
}
