/* SPDX-License-Identifier: MIT */
/*
 * index/names_build.c - build the name index of one ELF file (index/names.h,
 * doc/index-format.md) straight from its bytes: no libelf, so the pure-Go
 * reader (go/build.go) can build the very same file byte for byte.
 *
 * Format facts: ELF-64 Object File Format 1.5 and the gABI (headers, program
 * headers, section headers, symbol tables, notes; SHN_XINDEX / e_shnum 0
 * escapes in section 0); GNU symbol versioning (.gnu.version,
 * .gnu.version_d, .gnu.version_r: LSB Core "Symbol Versioning"); GNU
 * build-id and .gnu_debuglink (gdb manual "Separate Debug Files", whose
 * CRC-32 is the IEEE 802.3 one); the debug file search order of libbcc
 * (src/cc/bcc_elf.c foreach_sym_core); the uprobe offset of cilium/ebpf
 * (link/uprobe.go Executable.load).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elf.h>
#include "index/cache.h"
#include "index/format.h"
#include "index/names.h"
#include "util/elfimg.h"
#include "util/reason.h"
#include "util/util.h"

_Static_assert(SYMNAMES_MAX_LOADS == 16, "util/reason.h SL_R_NAMES_LOADS names the limit");

#define DEBUG_ROOT "/usr/lib/debug"
#define MAX_VERSIONS 0x8000u

struct vname {                  /* a version's name in .dynstr */
	const char *s;
	uint32_t len, ref;          /* ref: its string ref in the output */
	uint8_t def, need;          /* named by .gnu.version_d / .gnu.version_r */
};

struct build {
	struct sl_elfimg bin, dbg;
	int dbg_fd;
	char dbg_path[4096];
	struct stat dbg_st;
	struct sl_elfimg_symtab tabs[2];  /* .symtab, .dynsym */
	const unsigned char *versym;
	uint32_t nversym;
	struct vname *vers;
	uint32_t nvers;
	unsigned char bid[32];
	uint32_t bid_len;
	struct symnames_load loads[SYMNAMES_MAX_LOADS];
	uint32_t nloads, flags;
};

/* ---- the ELF image (util/elfimg.h) ------------------------------------------ */

/* The first SHT_SYMTAB or SHT_DYNSYM table: 1 found, 0 none, -EINVAL corrupt
 * (data outside the file, a size not a multiple of Elf64_Sym: Go's
 * debug/elf Symbols() fails on those too, and like it sh_entsize is not
 * looked at). */
static int read_table(const struct sl_elfimg *m, uint32_t type, struct sl_elfimg_symtab *t)
{
	Elf64_Shdr sh;

	memset(t, 0, sizeof(*t));
	if (!sl_elfimg_find_type(m, type, &sh))
		return 0;
	if (sl_elfimg_symtab(m, &sh, SL_ELFIMG_ANY_ENTSIZE, t) < 0 || t->n >= SYMNAMES_NONE) {
		memset(t, 0, sizeof(*t));
		return -EINVAL;
	}
	return 1;
}

/* ---- versions ---------------------------------------------------------------- */

static const char *str_at(const unsigned char *s, uint64_t sz, uint64_t off, uint32_t *len)
{
	const unsigned char *z;

	if (!s || off >= sz || !(z = memchr(s + off, 0, sz - off)))
		return NULL;
	*len = (uint32_t)(z - (s + off));
	return (const char *)s + off;
}

/* Name version index @ndx (the first name wins) if it fits; @def: from
 * .gnu.version_d, else .gnu.version_r. */
static void set_ver(struct build *b, uint32_t ndx, const unsigned char *str, uint64_t strsz, uint32_t name,
		    int def)
{
	uint32_t len;
	const char *s;

	if (ndx < 2 || ndx >= b->nvers || !(s = str_at(str, strsz, name, &len)))
		return;
	if (!b->vers[ndx].s) {
		b->vers[ndx].s = s;
		b->vers[ndx].len = len;
	}
	if (def)
		b->vers[ndx].def = 1;
	else
		b->vers[ndx].need = 1;
}

/* Walk .gnu.version_d then .gnu.version_r of the runtime file. With @b->vers
 * NULL only find the largest index into @b->nvers. At most sh_info entries
 * (and 65536 Vernaux entries in all: the walk stays linear), each inside its
 * section. */
static void walk_versions(struct build *b)
{
	const struct sl_elfimg *m = &b->bin;
	Elf64_Shdr sh, ss;
	const unsigned char *d, *str;
	uint64_t o, strsz;
	uint32_t k, naux = 0;

	if (sl_elfimg_find_type(m, SHT_GNU_verdef, &sh) && (d = sl_elfimg_sec_data(m, &sh)) &&
	    sl_elfimg_shdr(m, sh.sh_link, &ss) == 0 && (str = sl_elfimg_sec_data(m, &ss))) {
		strsz = ss.sh_size;
		for (o = 0, k = 0; k < sh.sh_info && k < 65536 && o + sizeof(Elf64_Verdef) <= sh.sh_size; k++) {
			Elf64_Verdef vd;
			Elf64_Verdaux va;

			memcpy(&vd, d + o, sizeof(vd));
			if (vd.vd_cnt && o + vd.vd_aux + sizeof(va) <= sh.sh_size) {
				memcpy(&va, d + o + vd.vd_aux, sizeof(va));
				if (!b->vers)
					b->nvers = vd.vd_ndx >= b->nvers ? vd.vd_ndx + 1u : b->nvers;
				else
					set_ver(b, vd.vd_ndx, str, strsz, va.vda_name, 1);
			}
			if (!vd.vd_next)
				break;
			o += vd.vd_next;
		}
	}
	if (sl_elfimg_find_type(m, SHT_GNU_verneed, &sh) && (d = sl_elfimg_sec_data(m, &sh)) &&
	    sl_elfimg_shdr(m, sh.sh_link, &ss) == 0 && (str = sl_elfimg_sec_data(m, &ss))) {
		strsz = ss.sh_size;
		for (o = 0, k = 0; k < sh.sh_info && k < 65536 && o + sizeof(Elf64_Verneed) <= sh.sh_size; k++) {
			Elf64_Verneed vn;
			uint64_t a;
			uint32_t j;

			memcpy(&vn, d + o, sizeof(vn));
			for (a = o + vn.vn_aux, j = 0; j < vn.vn_cnt && naux < 65536 && a + sizeof(Elf64_Vernaux) <= sh.sh_size;
			     j++, naux++) {
				Elf64_Vernaux va;
				uint32_t ndx;

				memcpy(&va, d + a, sizeof(va));
				ndx = va.vna_other & 0x7fffu;
				if (!b->vers)
					b->nvers = ndx >= b->nvers ? ndx + 1u : b->nvers;
				else
					set_ver(b, ndx, str, strsz, va.vna_name, 0);
				if (!va.vna_next)
					break;
				a += va.vna_next;
			}
			if (!vn.vn_next)
				break;
			o += vn.vn_next;
		}
	}
}

static int read_versions(struct build *b)
{
	Elf64_Shdr sh;

	if (!b->tabs[1].syms || !sl_elfimg_find_type(&b->bin, SHT_GNU_versym, &sh) ||
	    !(b->versym = sl_elfimg_sec_data(&b->bin, &sh)))
		return 0;
	b->nversym = (uint32_t)(sh.sh_size / 2 < b->tabs[1].n ? sh.sh_size / 2 : b->tabs[1].n);
	b->flags |= SN_F_VERSIONS;
	b->nvers = 0;
	walk_versions(b);
	b->nvers = b->nvers > MAX_VERSIONS ? MAX_VERSIONS : b->nvers;
	if (!b->nvers)
		return 0;
	b->vers = calloc(b->nvers, sizeof(*b->vers));
	if (!b->vers)
		return -ENOMEM;
	walk_versions(b);
	return 0;
}

/* ---- the separate debug file --------------------------------------------------- */

/* CRC-32 of IEEE 802.3 (reflected 0xEDB88320), as gdb's gnu_debuglink_crc32. */
static uint32_t crc32_ieee(const unsigned char *p, size_t n)
{
	uint32_t t[256], c = 0xffffffffu;

	for (uint32_t i = 0; i < 256; i++) {
		uint32_t x = i;

		for (int k = 0; k < 8; k++)
			x = x & 1 ? 0xedb88320u ^ (x >> 1) : x >> 1;
		t[i] = x;
	}
	for (size_t i = 0; i < n; i++)
		c = t[(c ^ p[i]) & 0xff] ^ (c >> 8);
	return c ^ 0xffffffffu;
}

/* Try @cand as the debug file: an ELFCLASS64 LE file with an SHT_SYMTAB whose
 * build-id is @want_bid (when @want_bid_len) or whose CRC-32 is @crc (when
 * @check_crc). 1 with b->dbg* and tabs[0] set, else 0. */
static int try_debug(struct build *b, const char *cand, const unsigned char *want_bid, uint32_t want_bid_len,
		     int check_crc, uint32_t crc)
{
	int fd = open(cand, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	unsigned char bid[32];

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || sl_elfimg_open(&b->dbg, fd, (size_t)st.st_size) < 0)
		goto no;
	if (want_bid_len &&
	    (sl_elfimg_build_id(&b->dbg, bid, sizeof(bid)) != want_bid_len || memcmp(bid, want_bid, want_bid_len)))
		goto no;
	if (check_crc && crc32_ieee(b->dbg.p, b->dbg.size) != crc)
		goto no;
	if (read_table(&b->dbg, SHT_SYMTAB, &b->tabs[0]) != 1)
		goto no;
	b->dbg_fd = fd;
	b->dbg_st = st;
	snprintf(b->dbg_path, sizeof(b->dbg_path), "%s", cand);
	b->flags |= SN_F_DEBUG;
	return 1;
no:
	sl_elfimg_close(&b->dbg);
	memset(&b->tabs[0], 0, sizeof(b->tabs[0]));
	close(fd);
	return 0;
}

/* dirname(3) of @path into @out, as libbcc's dirname(strdup(binpath)). */
static void dir_of(const char *path, char *out, size_t n)
{
	size_t len = strlen(path);

	while (len > 1 && path[len - 1] == '/')
		len--;
	while (len && path[len - 1] != '/')
		len--;
	if (!len) {
		snprintf(out, n, ".");
		return;
	}
	while (len > 1 && path[len - 1] == '/')
		len--;
	snprintf(out, n, "%.*s", (int)len, path);
}

static int same_file(const char *a, const struct stat *bst)
{
	struct stat st;

	return stat(a, &st) == 0 && st.st_dev == bst->st_dev && st.st_ino == bst->st_ino;
}

/* libbcc's order: /usr/lib/debug/.build-id/xx/yyyy.debug, then the
 * .gnu_debuglink name in the binary's directory (unless that is the binary),
 * in its .debug/, and under /usr/lib/debug<dir>/. */
static void find_debug(struct build *b, const char *path, const struct stat *bst)
{
	char cand[4096 + 64], hex[65], dir[4096];
	Elf64_Shdr sh;
	const unsigned char *d;
	const char *link;
	uint32_t crc;

	if (b->bid_len >= 2) {
		for (uint32_t i = 0; i < b->bid_len; i++)
			snprintf(hex + 2 * i, 3, "%02x", b->bid[i]);
		snprintf(cand, sizeof(cand), DEBUG_ROOT "/.build-id/%c%c/%s.debug", hex[0], hex[1], hex + 2);
		if (try_debug(b, cand, b->bid, b->bid_len, 0, 0))
			return;
	}
	if (!sl_elfimg_find_name(&b->bin, ".gnu_debuglink", &sh) || !(d = sl_elfimg_sec_data(&b->bin, &sh)) ||
	    sh.sh_size <= 5 || !memchr(d, 0, sh.sh_size - 4))
		return;
	link = (const char *)d;
	if (!link[0] || strlen(link) > 1024)
		return;
	memcpy(&crc, d + sh.sh_size - 4, 4);
	dir_of(path, dir, sizeof(dir));
	snprintf(cand, sizeof(cand), "%s/%s", dir, link);
	if (!same_file(cand, bst) && try_debug(b, cand, NULL, 0, 1, crc))
		return;
	snprintf(cand, sizeof(cand), "%s/.debug/%s", dir, link);
	if (try_debug(b, cand, NULL, 0, 1, crc))
		return;
	snprintf(cand, sizeof(cand), DEBUG_ROOT "%s/%s", dir, link);
	try_debug(b, cand, NULL, 0, 1, crc);
}

/* ---- records ------------------------------------------------------------------- */

static uint32_t str_bytes(uint64_t len)
{
	return (uint32_t)((4 + len + 1 + 3) & ~3ull);
}

/* Store a string at *@at in @area; returns its ref. */
static uint32_t put_str(unsigned char *area, uint64_t *at, const char *a, uint32_t alen, const char *b2,
			uint32_t blen, const char *c, uint32_t clen)
{
	uint32_t ref = (uint32_t)*at, len = alen + blen + clen;
	unsigned char *p = area + *at;

	memcpy(p, &len, 4);
	memcpy(p + 4, a, alen);
	memcpy(p + 4 + alen, b2, blen);
	memcpy(p + 4 + alen + blen, c, clen);
	memset(p + 4 + len, 0, str_bytes(len) - 4 - len);
	*at += str_bytes(len);
	return ref;
}

struct symv {                   /* one symbol as the passes see it */
	Elf64_Sym s;
	const char *name;
	uint32_t len;
	const struct vname *ver;    /* versioned key, or NULL */
	uint32_t sep;               /* its "@" count: 2 = name@@VER, 1 = name@VER */
	uint16_t versym;
	int hidden, exec;
	uint64_t offset;
};

/* Symbol @i of table @t: 1 if it is a record (fills @v), else 0. */
static int symbol(const struct build *b, int t, uint32_t i, struct symv *v)
{
	const struct sl_elfimg_symtab *tb = &b->tabs[t];
	uint32_t k, type;

	sl_elfimg_sym(tb, i, &v->s);   /* i < tb->n */
	type = ELF64_ST_TYPE(v->s.st_info);
	if (type == STT_SECTION || type == STT_FILE ||
	    !(v->name = sl_elfimg_sym_name(tb, v->s.st_name, &v->len)) || !v->len)
		return 0;
	v->ver = NULL;
	v->versym = 0;
	v->hidden = 0;
	if (t == 1 && i < b->nversym) {
		uint16_t vs;
		uint32_t ndx;

		memcpy(&vs, b->versym + 2 * (size_t)i, 2);
		v->versym = vs;
		v->hidden = (vs & 0x8000u) != 0;
		ndx = vs & 0x7fffu;
		/* readelf's rendering (binutils get_symbol_version_string), which is
		 * also GNU ld's name in .symtab: a defined symbol of a version this
		 * file defines is name@@VER (name@VER when hidden); any other of a
		 * needed version (imports, copy relocations) name@VER */
		if (ndx >= 2 && ndx < b->nvers && b->vers[ndx].s && !memchr(v->name, '@', v->len)) {
			if (v->s.st_shndx != SHN_UNDEF && b->vers[ndx].def) {
				v->ver = &b->vers[ndx];
				v->sep = v->hidden ? 1 : 2;
			} else if (b->vers[ndx].need) {
				v->ver = &b->vers[ndx];
				v->sep = 1;
			}
		}
	}
	v->exec = 0;
	v->offset = v->s.st_value;
	for (k = 0; k < b->nloads; k++)
		if (b->loads[k].vaddr <= v->s.st_value && v->s.st_value - b->loads[k].vaddr < b->loads[k].memsz) {
			v->offset = v->s.st_value - b->loads[k].vaddr + b->loads[k].offset;
			v->exec = 1;
			break;
		}
	return 1;
}

static int in_addrs(const struct symv *v)
{
	uint32_t type = ELF64_ST_TYPE(v->s.st_info);

	return v->exec && v->s.st_shndx != SHN_UNDEF && (type == STT_FUNC || type == STT_GNU_IFUNC);
}

static uint32_t addr_rank(const struct symnames_sym *r)
{
	static const uint8_t bind_rank[16] = { 2, 0, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3 };

	return (ELF64_ST_TYPE(r->info) == STT_FUNC ? 0u : 1u) << 8 | bind_rank[ELF64_ST_BIND(r->info)];
}

static int addr_cmp(const void *pa, const void *pb)
{
	const struct symnames_addr *a = pa, *b = pb;
	int c;

	if ((c = SL_CMP(a->start, b->start)) || (c = SL_CMP(a->pad, b->pad)))
		return c;
	return SL_CMP(a->rec, b->rec);
}

static uint64_t align8(uint64_t x)
{
	return (x + 7) & ~7ull;
}

static int write_index(struct build *b, const struct stat *st, int dirfd, struct symnames *out,
		       struct sl_why *why)
{
	uint64_t nsyms = 0, nslots = 0, naddrs = 0, strs = 0, size, at, pmax = 0;
	uint32_t nb = 1, t, i, r, vi;
	struct symnames_hdr *h;
	struct symnames_sym *syms;
	struct symnames_slot *slots;
	struct symnames_addr *addrs;
	uint32_t *buckets;
	unsigned char *map, *area;
	struct symv v;
	char tmp[64], name[64];
	int fd, ret;

	/* pass 1: sizes */
	if (b->flags & SN_F_DEBUG)
		strs += str_bytes(strlen(b->dbg_path));
	for (vi = 2; vi < b->nvers; vi++)
		if (b->vers[vi].s)
			strs += str_bytes(b->vers[vi].len);
	for (t = 0; t < 2; t++)
		for (i = 1; i < b->tabs[t].n; i++) {
			if (!symbol(b, t, i, &v))
				continue;
			nsyms++;
			nslots += 1 + !!v.ver;
			naddrs += in_addrs(&v);
			strs += str_bytes(v.len);
			if (v.ver)
				strs += str_bytes((uint64_t)v.len + v.sep + v.ver->len);
		}
	if (nsyms >= SYMNAMES_NONE || nslots >= SYMNAMES_NONE || strs > UINT32_MAX - 8)
		return sl_whyf(why, SL_R_TOO_BIG, -EFBIG, "symbols or string bytes");
	while (nb < nslots)
		nb <<= 1;
	size = align8(sizeof(*h) + nsyms * sizeof(*syms));
	size = align8(size + ((uint64_t)nb + 1) * 4);
	size = align8(size + nslots * sizeof(*slots));
	size += naddrs * sizeof(*addrs) + strs;

	fd = sl_cache_backing(dirfd, (size_t)size, SYMNAMES_SUFFIX, "symlazy-names", tmp, sizeof(tmp));
	if (fd < 0)
		return sl_whyf(why, SL_R_NAMES_FILE, fd, "%s", strerror(-fd));
	map = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		ret = sl_whyf(why, SL_R_NAMES_FILE, -errno, "%s", strerror(errno));
		goto out_fd;
	}
	memset(map, 0, sizeof(*h));
	h = (void *)map;
	memcpy(h->magic, SYMNAMES_MAGIC, 8);
	h->version = SYMNAMES_VERSION;
	h->hdr_size = sizeof(*h);
	h->endian = SYMNAMES_ENDIAN;
	h->file_size = size;
	SL_FILE_IDENT_SET(h, st);
	h->key = symnames_key(h->dev, h->ino, h->size, h->mtime_sec, h->mtime_nsec, h->ctime_sec, h->ctime_nsec);
	if (b->flags & SN_F_DEBUG) {
		h->dbg_dev = (uint64_t)b->dbg_st.st_dev;
		h->dbg_ino = (uint64_t)b->dbg_st.st_ino;
		h->dbg_size = (uint64_t)b->dbg_st.st_size;
		h->dbg_mtime_sec = b->dbg_st.st_mtim.tv_sec;
		h->dbg_mtime_nsec = b->dbg_st.st_mtim.tv_nsec;
		h->dbg_ctime_sec = b->dbg_st.st_ctim.tv_sec;
		h->dbg_ctime_nsec = b->dbg_st.st_ctim.tv_nsec;
	}
	h->flags = b->flags;
	h->nsyms = (uint32_t)nsyms;
	h->nslots = (uint32_t)nslots;
	h->nbuckets = nb;
	h->naddrs = (uint32_t)naddrs;
	h->nloads = b->nloads;
	h->nsymtab = (uint32_t)b->tabs[0].n;
	h->ndynsym = (uint32_t)b->tabs[1].n;
	h->syms_off = sizeof(*h);
	h->buckets_off = align8(h->syms_off + nsyms * sizeof(*syms));
	h->slots_off = align8(h->buckets_off + ((uint64_t)nb + 1) * 4);
	h->addrs_off = align8(h->slots_off + nslots * sizeof(*slots));
	h->strings_off = h->addrs_off + naddrs * sizeof(*addrs);
	h->strings_size = strs;
	h->build_id_len = b->bid_len;
	memcpy(h->build_id, b->bid, b->bid_len);
	h->e_type = b->bin.eh.e_type;
	h->e_machine = b->bin.eh.e_machine;
	memcpy(h->loads, b->loads, sizeof(b->loads[0]) * b->nloads);
	syms = (void *)(map + h->syms_off);
	buckets = (void *)(map + h->buckets_off);
	slots = (void *)(map + h->slots_off);
	addrs = (void *)(map + h->addrs_off);
	area = map + h->strings_off;

	/* pass 2: strings and records; keys counted per bucket */
	at = 0;
	h->dbg_path = SYMNAMES_NONE;
	if (b->flags & SN_F_DEBUG)
		h->dbg_path = put_str(area, &at, b->dbg_path, (uint32_t)strlen(b->dbg_path), "", 0, "", 0);
	for (vi = 2; vi < b->nvers; vi++)
		if (b->vers[vi].s) {
			b->vers[vi].ref = put_str(area, &at, b->vers[vi].s, b->vers[vi].len, "", 0, "", 0);
			h->nversions++;
		}
	r = 0;
	for (t = 0; t < 2; t++)
		for (i = 1; i < b->tabs[t].n; i++) {
			struct symnames_sym *o = &syms[r];

			if (!symbol(b, t, i, &v))
				continue;
			o->value = v.s.st_value;
			o->size = v.s.st_size;
			o->offset = v.offset;
			o->index = i;
			o->shndx = v.s.st_shndx;
			o->table = (uint8_t)t;
			o->info = v.s.st_info;
			o->other = v.s.st_other;
			o->versym = v.versym;
			o->flags = (uint8_t)((v.exec ? SN_S_EXEC : 0) | (v.hidden ? SN_S_HIDDEN : 0) |
					     (v.ver ? SN_S_VERKEY : 0));
			vi = v.versym & 0x7fffu;
			o->version = t == 1 && vi >= 2 && vi < b->nvers && b->vers[vi].s ? b->vers[vi].ref : SYMNAMES_NONE;
			o->name = put_str(area, &at, v.name, v.len, "", 0, "", 0);
			buckets[(symnames_hash(v.name, v.len) & (nb - 1)) + 1]++;
			if (v.ver) {
				uint32_t kref = put_str(area, &at, v.name, v.len, "@@", v.sep, v.ver->s, v.ver->len);

				buckets[(symnames_hash((const char *)area + kref + 4, v.len + v.sep + v.ver->len) &
					 (nb - 1)) + 1]++;
			}
			r++;
		}
	/* pass 3: keys into their buckets (stable: record order), address order */
	for (i = 0; i < nb; i++)
		buckets[i + 1] += buckets[i];
	naddrs = 0;
	for (r = 0; r < nsyms; r++) {
		const struct symnames_sym *o = &syms[r];
		uint32_t ref = o->name, n = (o->flags & SN_S_VERKEY) ? 2 : 1;

		for (uint32_t k = 0; k < n; k++) {
			uint32_t len;
			uint64_t hh;

			memcpy(&len, area + ref, 4);
			hh = symnames_hash((const char *)area + ref + 4, len);
			slots[buckets[hh & (nb - 1)]++] = (struct symnames_slot){ (uint32_t)(hh >> 32), r, ref };
			ref += str_bytes(len);
		}
		if ((o->flags & SN_S_EXEC) && o->shndx != SHN_UNDEF &&
		    (ELF64_ST_TYPE(o->info) == STT_FUNC || ELF64_ST_TYPE(o->info) == STT_GNU_IFUNC))
			addrs[naddrs++] = (struct symnames_addr){ o->offset, 0, r, addr_rank(o) };
	}
	for (i = nb; i > 0; i--)
		buckets[i] = buckets[i - 1];
	buckets[0] = 0;
	qsort(addrs, (size_t)naddrs, sizeof(*addrs), addr_cmp);
	for (i = 0; i < naddrs; i++) {
		uint64_t sz = syms[addrs[i].rec].size, end = addrs[i].start + (sz ? sz : 1);

		end = end < addrs[i].start ? UINT64_MAX : end;
		pmax = end > pmax ? end : pmax;
		addrs[i].pmax = pmax;
		addrs[i].pad = 0;
	}
	h->checksum = symindex_checksum(map + 32, (size_t)size - 32);
	mprotect(map, (size_t)size, PROT_READ);
	if (tmp[0]) {
		symnames_file_name(h->key, name, sizeof(name));
		if (renameat(dirfd, tmp, dirfd, name) < 0)
			unlinkat(dirfd, tmp, 0);
	}
	madvise(map, (size_t)size, MADV_DONTNEED);
	symnames_attach(out, map, (size_t)size);
	close(fd);
	return 0;
out_fd:
	sl_cache_backing_drop(dirfd, fd, tmp);
	return ret;
}

int symnames_build(const char *path, int fd, const struct stat *st, int dirfd, struct symnames *out,
		   struct sl_why *why)
{
	struct build *b = calloc(1, sizeof(*b));
	Elf64_Phdr ph;
	int r;

	if (!b)
		return sl_whyf(why, SL_R_NOMEM, -ENOMEM, NULL);
	b->dbg_fd = -1;
	r = sl_elfimg_open(&b->bin, fd, (size_t)st->st_size);
	if (r < 0) {
		if (r == -ENOTSUP || r == -EINVAL)
			sl_why_set(why, r == -ENOTSUP ? SL_R_NAMES_ELF_KIND : SL_R_NOT_ELF, "%s", path);
		else
			sl_why_set(why, SL_R_OPEN_FAILED, "%s: %s", path, strerror(-r));
		goto out;
	}
	if (b->bin.eh.e_type != ET_EXEC && b->bin.eh.e_type != ET_DYN) {
		r = sl_whyf(why, SL_R_NAMES_NOT_EXEC, -EINVAL, "%s", path);
		goto out;
	}
	if (sl_elfimg_phdrs(&b->bin) < 0) {
		r = sl_whyf(why, SL_R_NAMES_PHDRS, -EINVAL, "%s", path);
		goto out;
	}
	for (uint32_t i = 0; sl_elfimg_phdr(&b->bin, i, &ph) == 0; i++) {
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (b->nloads == SYMNAMES_MAX_LOADS) {
			r = sl_whyf(why, SL_R_NAMES_LOADS, -ENOTSUP, "%s", path);
			goto out;
		}
		b->loads[b->nloads++] = (struct symnames_load){ ph.p_vaddr, ph.p_memsz, ph.p_offset };
	}
	b->bid_len = sl_elfimg_build_id(&b->bin, b->bid, sizeof(b->bid));
	r = read_table(&b->bin, SHT_SYMTAB, &b->tabs[0]);
	if (r == 0)
		find_debug(b, path, st);
	if (r >= 0)
		r = read_table(&b->bin, SHT_DYNSYM, &b->tabs[1]);
	if (r < 0) {
		r = sl_whyf(why, SL_R_NAMES_SYMTAB, -EINVAL, "%s", path);
		goto out;
	}
	b->flags |= (b->tabs[0].syms ? SN_F_SYMTAB : 0) | (b->tabs[1].syms ? SN_F_DYNSYM : 0);
	r = read_versions(b);
	if (r < 0) {
		sl_why_set(why, SL_R_NOMEM, NULL);
		goto out;
	}
	r = write_index(b, st, dirfd, out, why);
out:
	sl_elfimg_close(&b->bin);
	sl_elfimg_close(&b->dbg);
	if (b->dbg_fd >= 0)
		close(b->dbg_fd);
	free(b->vers);
	free(b);
	return r;
}
