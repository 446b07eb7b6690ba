/* SPDX-License-Identifier: MIT */
/*
 * perfdata/stream.c - the perf.data record iterator's walk (perfdata/record.h):
 * a read window over the file, zstd COMPRESSED payloads as one stream per
 * file, HEADER_BUILD_ID feature entries, a directory's data.N files in
 * order, open and close. Decoding of each record: perfdata/record.c. Format
 * sources: the list at the top of perfdata/record.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "perfdata/htab.h"
#include "perfdata/record.h"
#include "util/util.h"
#include "util/zstd_dl.h"
#include "perfdata/reader.h"

/*
 * Make [pos, pos+n) available and return a pointer to it, reading at most
 * up to @limit (exclusive). Returns NULL with *rc set: -EINVAL (range
 * passes @limit, the end of file or the window) or -errno from pread.
 */
const unsigned char *pd_win_get(struct pd_win *w, uint64_t pos, size_t n,
				    uint64_t limit, int *rc)
{
	size_t want, got = 0;

	if (limit > w->fsize)
		limit = w->fsize;
	if (pos > limit || n > limit - pos || n > w->cap) {
		*rc = -EINVAL;
		return NULL;
	}
	if (pos >= w->off && pos + n <= w->off + w->len)
		return w->buf + (pos - w->off);
	want = limit - pos < w->cap ? (size_t)(limit - pos) : w->cap;
	while (got < want) {
		ssize_t r = pread(w->fd, w->buf + got, want - got, (off_t)(pos + got));

		if (r < 0) {
			if (errno == EINTR)
				continue;
			*rc = -errno;
			w->len = 0;
			return NULL;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	w->off = pos;
	w->len = got;
	if (got < n) {
		*rc = -EINVAL;
		return NULL;
	}
	return w->buf;
}

/* Point the window at @fd of @fsize bytes; a small file needs no full-size
 * buffer (no request can exceed the file size). */
static int win_reset(struct pd_win *w, int fd, uint64_t fsize)
{
	size_t cap = fsize < PD_WINDOW ? (size_t)fsize + 1 : PD_WINDOW;

	if (cap > w->cap) {
		unsigned char *b = realloc(w->buf, cap);

		if (!b)
			return -ENOMEM;
		w->buf = b;
		w->cap = cap;
	}
	w->fd = fd;
	w->fsize = fsize;
	w->off = 0;
	w->len = 0;
	return 0;
}

/* ---------------------------------------------------------------- zstd */

/* Begin decompressing the COMPRESSED record just yielded (@p, @size). */
static int z_begin(struct pd_reader *r, const unsigned char *p, size_t size, uint64_t off)
{
	if (!r->zds) {
		if (!(r->zl = zstd_dl_load())) {
			pd_seterr(r, "COMPRESSED records but libzstd.so.1 cannot be loaded");
			return -ENOTSUP;
		}
		r->zds = r->zl->createDStream();
		r->dbuf = malloc(PD_DBUF);
		if (!r->zds || !r->dbuf)
			return -ENOMEM;
	}
	if (!r->zinit) {
		r->zl->initDStream(r->zds);
		r->zinit = 1;
	}
	if (rd32(p) == PD_REC_COMPRESSED2) {
		r->zin.src = p + 16;
		r->zin.size = (size_t)rd64(p + 8);
	} else {
		r->zin.src = p + 8;
		r->zin.size = size - 8;
	}
	r->zin.pos = 0;
	r->zactive = 1;
	r->zfinal = 0;
	r->zoff = off;
	return 0;
}

/*
 * The next complete record of the stream into @rec: 1, or 0 once the
 * payload is used up and zstd has no output pending (a partial record
 * waits for the next payload), or -errno.
 */
static int z_next(struct pd_reader *r, struct pd_record *rec)
{
	for (;;) {
		size_t avail = r->dlen - r->dpos;

		if (r->dskip) {
			size_t take = avail < r->dskip ? avail : (size_t)r->dskip;

			r->dpos += take;
			r->dskip -= take;
			avail -= take;
		}
		if (!r->dskip && avail >= 8) {
			uint16_t sz = rd16(r->dbuf + r->dpos + 6);
			int rc;

			if (sz < 8) {
				pd_seterr(r, "record with size %u < 8 in compressed stream (COMPRESSED record at offset %#" PRIx64 ")",
				       sz, r->zoff);
				return -EINVAL;
			}
			if (avail >= sz) {
				rec->file = r->file;
				rec->offset = r->zoff;
				rec->in_compressed = 1;
				rec->in_feature = 0;
				if ((rc = pd_decode(r, r->dbuf + r->dpos, sz, rec)) < 0)
					return rc;
				r->dpos += sz;
				r->dskip = rec->payload;
				return 1;
			}
		}
		if (r->zfinal) {
			r->zactive = 0;
			return 0;
		}
		/* keep the incomplete tail, decompress more after it */
		if (r->dpos) {
			memmove(r->dbuf, r->dbuf + r->dpos, r->dlen - r->dpos);
			r->dlen -= r->dpos;
			r->dpos = 0;
		}
		{
			ZSTD_outBuffer ob = { r->dbuf + r->dlen, PD_DBUF - r->dlen, 0 };
			size_t z = r->zl->decompressStream(r->zds, &ob, &r->zin);

			if (r->zl->isError(z)) {
				pd_seterr(r, "zstd error in COMPRESSED record at offset %#" PRIx64 ": %s",
				       r->zoff, r->zl->getErrorName(z));
				return -EINVAL;
			}
			r->dlen += ob.pos;
			r->decompressed += ob.pos;
			/* done when all input is consumed and zstd had room to
			 * spare (a full output buffer may mean more is pending) */
			if (r->zin.pos == r->zin.size && (ob.pos < ob.size || ob.pos == 0))
				r->zfinal = 1;
		}
	}
}

/* End of one file's stream: nothing may be left half-way. */
static int z_end_file(struct pd_reader *r)
{
	if (r->dlen - r->dpos || r->dskip) {
		pd_seterr(r, "compressed stream ends inside a record (%zu bytes left)", r->dlen - r->dpos);
		return -EINVAL;
	}
	r->dlen = r->dpos = 0;
	r->zinit = 0;		/* the next file's payloads are a new stream */
	return 0;
}

/* ------------------------------------------------------------ features */

/*
 * Locate feature @bit: the feature table follows the data section, one
 * perf_file_section {u64 offset, size} per set bit of adds_features, in bit
 * order. 1 with the section in *@off and *@size, 0 if absent or the table is unreadable
 * (perf would fail on its own), <0 on read errors.
 */
static int feat_section(struct pd_reader *r, const unsigned char *bits, uint64_t tab,
			unsigned bit, uint64_t *off, uint64_t *size)
{
	const unsigned char *e;
	unsigned b, idx = 0;
	int rc = 0;

	if (!(bits[bit / 8] & (1u << (bit % 8))))
		return 0;
	for (b = 0; b < bit; b++)
		if (bits[b / 8] & (1u << (b % 8)))
			idx++;
	e = pd_win_get(&r->win, tab + 16 * (uint64_t)idx, 16, UINT64_MAX, &rc);
	if (!e)
		return rc == -EINVAL ? 0 : rc;
	*off = rd64(e);
	*size = rd64(e + 8);
	return 1;
}

/* The next HEADER_BUILD_ID feature entry. Malformed sections end the list
 * silently (perf falls back to reading build-ids from the files). */
static int feat_next(struct pd_reader *r, struct pd_record *rec)
{
	while (r->feat_end - r->feat_pos >= 36) {
		const unsigned char *e;
		uint16_t sz;
		int rc = 0;

		e = pd_win_get(&r->win, r->feat_pos, 8, r->feat_end, &rc);
		if (!e)
			return rc == -EINVAL ? 0 : rc;
		sz = rd16(e + 6);
		if (sz < 36 || sz > r->feat_end - r->feat_pos)
			return 0;
		e = pd_win_get(&r->win, r->feat_pos, sz, r->feat_end, &rc);
		if (!e)
			return rc == -EINVAL ? 0 : rc;
		rec->file = 0;
		rec->offset = r->feat_pos;
		rec->in_compressed = 0;
		rec->in_feature = 1;
		r->feat_pos += sz;
		memset(&rec->sid, 0, sizeof(rec->sid));
		rec->type = PD_REC_HEADER_BUILD_ID;	/* entries carry type 0 */
		rec->misc = rd16(e + 4);
		rec->size = sz;
		rec->bytes = e;
		rec->payload = 0;
		pd_fill_build_id(rec, e, sz);
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------ the walk */

/* Open the next non-empty data.N file as the current section; 0 at the end. */
static int next_file(struct pd_reader *r)
{
	int rc;

	while (r->file + 1 < r->nr_names) {
		int fd;
		struct stat st;

		r->file++;
		if (!r->sizes[r->file])
			continue;	/* perf makes no reader for an empty file */
		fd = openat(r->dirfd, strrchr(r->names[r->file], '/') + 1,
			    O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			rc = fd < 0 ? -errno : -EINVAL;
			pd_seterr(r, "%s: %s", r->names[r->file], fd < 0 ? strerror(errno) : "not a regular file");
			if (fd >= 0)
				close(fd);
			return rc;
		}
		close(r->win.fd);
		if ((rc = win_reset(&r->win, fd, (uint64_t)st.st_size)) < 0) {
			close(fd);
			r->win.fd = -1;
			return rc;
		}
#ifdef POSIX_FADV_SEQUENTIAL
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
		r->pos = 0;
		r->end = (uint64_t)st.st_size;
		return 1;
	}
	return 0;
}

/* "the data section" (file mode), else "the end of <file>" */
static const char *sect_name(struct pd_reader *r)
{
	const char *n;

	if (r->mode == PD_MODE_FILE || (r->mode == PD_MODE_DIR && r->file == 0))
		return "the data section";
	n = strrchr(r->names[r->file], '/');
	snprintf(r->where, sizeof(r->where), "the end of %.100s", r->mode == PD_MODE_DIR && n ? n + 1 : "the file");
	return r->where;
}

static int next_record(struct pd_reader *r, struct pd_record *rec)
{
	int rc = 0;

	for (;;) {
		const unsigned char *p;
		uint16_t size;

		if (r->phase == PH_FEATURE) {
			if ((rc = feat_next(r, rec)) != 0)
				return rc;
			r->phase = PH_DATA;
		}
		if (r->phase == PH_END)
			return 0;
		if (r->zactive) {
			if ((rc = z_next(r, rec)) != 0)
				return rc;
		}
		if (r->pos >= r->end) {
			if (r->zinit && (rc = z_end_file(r)) < 0)
				return rc;
			if (r->mode == PD_MODE_DIR && (rc = next_file(r)) != 0) {
				if (rc < 0)
					return rc;
				continue;
			}
			r->phase = PH_END;
			return 0;
		}
		if (r->end - r->pos < 8) {
			pd_seterr(r, "record header at offset %#" PRIx64 " runs past %s", r->pos, sect_name(r));
			return -EINVAL;
		}
		p = pd_win_get(&r->win, r->pos, 8, r->end, &rc);
		if (!p)
			goto io;
		size = rd16(p + 6);
		if (size < 8) {
			pd_seterr(r, "record at offset %#" PRIx64 " has size %u < 8", r->pos, size);
			return -EINVAL;
		}
		if (size > r->end - r->pos) {
			pd_seterr(r, "record at offset %#" PRIx64 " (type %u, size %u) runs past %s",
			       r->pos, rd32(p), size, sect_name(r));
			return -EINVAL;
		}
		p = pd_win_get(&r->win, r->pos, size, r->end, &rc);
		if (!p)
			goto io;
		rec->file = r->file;
		rec->offset = r->pos;
		rec->in_compressed = 0;
		rec->in_feature = 0;
		if ((rc = pd_decode(r, p, size, rec)) < 0)
			return rc;
		r->pos += size;
		if (rec->payload) {
			if (rec->payload > r->end - r->pos) {
				pd_seterr(r, "%s payload at offset %#" PRIx64 " runs past %s",
				       rec->type == PD_REC_AUXTRACE ? "AUXTRACE" : "TRACING_DATA",
				       r->pos, sect_name(r));
				return -EINVAL;
			}
			r->pos += rec->payload;
		}
		if (rec->type == PD_REC_COMPRESSED || rec->type == PD_REC_COMPRESSED2) {
			/* p stays valid: the window is not read until the
			 * payload is used up */
			if ((rc = z_begin(r, p, size, rec->offset)) < 0)
				return rc;
		}
		return 1;
	}
io:
	if (rc == -EINVAL)
		pd_seterr(r, "file ends inside the record at offset %#" PRIx64, r->pos);
	else
		pd_seterr(r, "read error at offset %#" PRIx64 ": %s", r->pos, strerror(-rc));
	return rc;
}

int pd_next(struct pd_reader *r, struct pd_record *rec)
{
	int rc;

	if (r->failed)
		return r->failed;
	rc = next_record(r, rec);
	if (rc < 0) {
		if (rc == -ENOMEM && r->err && r->errsz)
			pd_seterr(r, "out of memory");
		r->failed = rc;
	}
	return rc;
}

/* ---------------------------------------------------------------- open */

static int cmp_name(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* DIR/data.N regular files (util/data.c perf_data__open_dir), sorted. */
static int list_dir(struct pd_reader *r, const char *dir)
{
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, alloc = 0, i;
	int fd, rc = 0;

	fd = dup(r->dirfd);
	if (fd < 0 || !(d = fdopendir(fd))) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		pd_seterr(r, "%s: %s", dir, strerror(-rc));
		return rc;
	}
	rewinddir(d);
	while ((de = readdir(d)) != NULL) {
		struct stat st;

		if (strncmp(de->d_name, "data.", 5) ||
		    fstatat(r->dirfd, de->d_name, &st, 0) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (n >= PD_MAX_FILES) {
			pd_seterr(r, "%s: more than %u data.* files", dir, PD_MAX_FILES);
			rc = -EINVAL;
			break;
		}
		if (pd_grow((void **)&names, &alloc, n + 1, sizeof(*names)) < 0 ||
		    !(names[n] = strdup(de->d_name))) {
			rc = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (!rc) {
		char **nn;
		uint64_t *ns;

		qsort(names, n, sizeof(*names), cmp_name);
		nn = realloc(r->names, (1 + n) * sizeof(*nn));
		if (nn)
			r->names = nn;
		ns = realloc(r->sizes, (1 + n) * sizeof(*ns));
		if (ns)
			r->sizes = ns;
		if (!nn || !ns)
			rc = -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct stat st;
		size_t len = strlen(dir) + strlen(names[i]) + 2;

		if (!rc && !(r->names[1 + i] = malloc(len)))
			rc = -ENOMEM;
		if (!rc) {
			snprintf(r->names[1 + i], len, "%s/%s", dir, names[i]);
			r->sizes[1 + i] = fstatat(r->dirfd, names[i], &st, 0) == 0 ?
					  (uint64_t)st.st_size : 0;
			r->data_bytes += r->sizes[1 + i];
			r->nr_names = 2 + i;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

static int open_header(struct pd_reader *r, const char *path, enum pd_unsupported *why)
{
	const unsigned char *h;
	uint64_t magic, hsize, attr_size, a_off, a_size, d_off, d_size, off = 0, size = 0;
	unsigned char feat[32];
	int rc = 0;

	h = pd_win_get(&r->win, 0, PD_PIPE_HDR_SIZE, UINT64_MAX, &rc);
	if (!h) {
		pd_seterr(r, "%s: too short for a perf.data header", path);
		return rc;
	}
	magic = rd64(h);
	hsize = rd64(h + 8);
	if (magic == PD_MAGIC_SWAPPED) {
		pd_seterr(r, "%s: foreign-endian perf.data is not supported", path);
		*why = PD_UNSUP_FOREIGN_ENDIAN;
		return -ENOTSUP;
	}
	if (magic != PD_MAGIC) {
		pd_seterr(r, "%s: %s", path, magic == PD_MAGIC_V1 ?
		       "old PERFFILE (v1) format is not supported" : "not a perf.data file (bad magic)");
		return -EINVAL;
	}
	if (hsize == PD_PIPE_HDR_SIZE) {
		/* a saved pipe stream: records from offset 16 to the end */
		r->mode = PD_MODE_PIPE;
		r->pos = PD_PIPE_HDR_SIZE;
		r->end = r->win.fsize;
		r->data_bytes = r->win.fsize - PD_PIPE_HDR_SIZE;
		r->phase = PH_DATA;
		return 0;
	}
	if (hsize < PD_FILE_HDR_SIZE) {
		pd_seterr(r, "%s: bad header size %" PRIu64, path, hsize);
		return -EINVAL;
	}
	h = pd_win_get(&r->win, 0, PD_FILE_HDR_SIZE, UINT64_MAX, &rc);
	if (!h) {
		pd_seterr(r, "%s: truncated file header", path);
		return rc;
	}
	/* perf_file_header: magic, size, attr_size, attrs{off,size},
	 * data{off,size}, event_types{off,size}, adds_features[4] */
	attr_size = rd64(h + 16);
	a_off = rd64(h + 24);
	a_size = rd64(h + 32);
	d_off = rd64(h + 40);
	d_size = rd64(h + 48);
	memcpy(feat, h + 72, sizeof(feat));
	if (a_size > r->win.fsize || a_off > r->win.fsize - a_size) {
		pd_seterr(r, "%s: attrs section past end of file", path);
		return -EINVAL;
	}
	if (d_size > r->win.fsize || d_off > r->win.fsize - d_size) {
		pd_seterr(r, "%s: data section [%#" PRIx64 ", +%#" PRIx64 ") past end of file (%" PRIu64 " bytes): truncated?",
		       path, d_off, d_size, r->win.fsize);
		return -EINVAL;
	}
	if ((rc = pd_read_attrs(r, attr_size, a_off, a_size)) < 0) {
		if (rc == -ENOTSUP)
			*why = PD_UNSUP_LAYOUT;
		return rc;
	}
	r->pos = d_off;
	r->end = d_off + d_size;
	r->data_bytes = d_size;
	r->phase = PH_FEATURE;
	rc = feat_section(r, feat, r->end, PD_FEAT_BUILD_ID, &off, &size);
	if (rc < 0)
		return rc;
	if (rc > 0 && off + size >= off && off + size <= r->win.fsize) {
		r->feat_pos = off;
		r->feat_end = off + size;
	}
	if (r->mode == PD_MODE_DIR) {
		const unsigned char *v;

		rc = feat_section(r, feat, r->end, PD_FEAT_DIR_FORMAT, &off, &size);
		if (rc < 0)
			return rc;
		if (rc == 0)	/* PERF_DIR_SINGLE_FILE: only DIR/data */
			return 0;
		v = size >= 8 ? pd_win_get(&r->win, off, 8, UINT64_MAX, &rc) : NULL;
		if (!v || rd64(v) != PD_DIR_VERSION) {
			pd_seterr(r, "%s: unsupported or unreadable DIR_FORMAT feature", path);
			return -EINVAL;
		}
		return list_dir(r, r->dir);
	}
	return 0;
}

int pd_open(struct pd_reader **rp, const char *path, enum pd_unsupported *why,
	    char *err, size_t errsz)
{
	struct pd_reader *r;
	struct stat st;
	enum pd_unsupported dummy;
	int fd, rc;

	*rp = NULL;
	if (!why)
		why = &dummy;
	*why = PD_UNSUP_NONE;
	if (err && errsz)
		err[0] = '\0';
	r = calloc(1, sizeof(*r));
	if (!r) {
		if (err && errsz)
			snprintf(err, errsz, "out of memory");
		return -ENOMEM;
	}
	r->err = err;
	r->errsz = errsz;
	r->dirfd = -1;
	r->win.fd = -1;
	r->mode = PD_MODE_FILE;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0) {
		rc = -errno;
		pd_seterr(r, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		/* perf record --threads: DIR/data holds the header */
		r->mode = PD_MODE_DIR;
		r->dirfd = fd;
		r->dir = strdup(path);
		fd = openat(r->dirfd, "data", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (!r->dir || fd < 0 || fstat(fd, &st) < 0) {
			rc = !r->dir ? -ENOMEM : -errno;
			pd_seterr(r, "%s/data: %s", path, strerror(-rc));
			if (fd >= 0)
				close(fd);
			goto fail;
		}
	}
	if (!S_ISREG(st.st_mode)) {
		pd_seterr(r, "%s: not a regular file (pipe-mode data is not supported)", path);
		*why = PD_UNSUP_NOT_FILE;
		close(fd);
		rc = -ENOTSUP;
		goto fail;
	}
	r->names = calloc(1, sizeof(*r->names));
	r->sizes = calloc(1, sizeof(*r->sizes));
	if (!r->names || !r->sizes) {
		close(fd);
		rc = -ENOMEM;
		goto fail;
	}
	r->nr_names = 1;
	if (r->mode == PD_MODE_DIR) {
		size_t len = strlen(path) + sizeof("/data");

		if ((r->names[0] = malloc(len)) != NULL)
			snprintf(r->names[0], len, "%s/data", path);
	} else {
		r->names[0] = strdup(path);
	}
	r->sizes[0] = (uint64_t)st.st_size;
	if (!r->names[0] || (rc = win_reset(&r->win, fd, (uint64_t)st.st_size)) < 0) {
		close(fd);
		rc = -ENOMEM;
		goto fail;
	}
#ifdef POSIX_FADV_SEQUENTIAL
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	if ((rc = open_header(r, r->names[0], why)) < 0)
		goto fail;
	*rp = r;
	return 0;
fail:
	if (rc == -ENOMEM && err && errsz && !err[0])
		snprintf(err, errsz, "out of memory");
	pd_close(r);
	return rc;
}

void pd_close(struct pd_reader *r)
{
	size_t i;

	if (!r)
		return;
	if (r->win.fd >= 0)
		close(r->win.fd);
	if (r->dirfd >= 0)
		close(r->dirfd);
	free(r->win.buf);
	free(r->attrs);
	free(r->ids);
	pd_htab_free(&r->id_tab);
	for (i = 0; i < r->nr_names; i++)
		free(r->names[i]);
	free(r->names);
	free(r->sizes);
	free(r->dir);
	if (r->zds)
		r->zl->freeDStream(r->zds);
	free(r->dbuf);
	free(r);
}

enum pd_mode pd_mode(const struct pd_reader *r)
{
	return r->mode;
}

const struct pd_attr *pd_attrs(const struct pd_reader *r, size_t *nr)
{
	*nr = r->nr_attrs;
	return r->attrs;
}

const char *pd_file_name(const struct pd_reader *r, unsigned n)
{
	return n < r->nr_names ? r->names[n] : NULL;
}

uint64_t pd_data_bytes(const struct pd_reader *r)
{
	return r->data_bytes;
}

uint64_t pd_decompressed_bytes(const struct pd_reader *r)
{
	return r->decompressed;
}

int pd_probe(const char *path)
{
	struct stat st;
	unsigned char h[PD_PIPE_HDR_SIZE];
	int saved = errno, fd, dfd, ok = 0;

	if (stat(path, &st) < 0) {
		ok = 0;
	} else if (S_ISREG(st.st_mode)) {
		ok = PD_MODE_FILE;
	} else if (S_ISDIR(st.st_mode) &&
		   (dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		fd = openat(dfd, "data", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    pread(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h) && rd64(h) == PD_MAGIC &&
		    rd64(h + 8) >= PD_FILE_HDR_SIZE)
			ok = PD_MODE_DIR;
		if (fd >= 0)
			close(fd);
		close(dfd);
	}
	errno = saved;
	return ok;
}
