/* SPDX-License-Identifier: MIT */
/*
 * tool.h - which tool is running, what it was asked, and its environment:
 * the facts the core reads about the process it serves (/proc/self/exe,
 * /proc/self/cmdline, LD_PRELOAD), as pure functions where possible so unit
 * tests and the `symlazy` command call them with any input.
 */
#ifndef SYMLAZY_TOOL_H
#define SYMLAZY_TOOL_H

#include <stddef.h>

struct sl_tool_model;

/* Tools symlazy knows by executable name. */
enum sl_tool { SL_TOOL_OTHER = 0, SL_TOOL_PERF, SL_TOOL_BPFTRACE, SL_TOOL_UFTRACE,
	       SL_TOOL_LISTER };

/*
 * sl_tool_from_exe - the tool an executable path names, by its basename
 * exactly: "perf", or a versioned perf as distributions install it
 * ("perf_6.1" on Debian, where /usr/bin/perf is a wrapper script that execs
 * /usr/bin/perf_<version>; "perf-6.1"): "perf" followed by nothing or by
 * '_'/'-' and a version made of digits and dots. "perfetto", "perf.sh",
 * "perf-tool" are not perf. "bpftrace" -> SL_TOOL_BPFTRACE, "uftrace" ->
 * SL_TOOL_UFTRACE; the elfutils listers that print every symbol ("eu-nm",
 * "eu-readelf", "eu-objdump") -> SL_TOOL_LISTER. Exact basenames only.
 * NULL or "" -> SL_TOOL_OTHER.
 */
enum sl_tool sl_tool_from_exe(const char *path);

/* sl_tool_self - sl_tool_from_exe(readlink("/proc/self/exe")). Opens no file. */
enum sl_tool sl_tool_self(void);

/*
 * sl_model_for_image - the model of @tool whose version probe matches the
 * executable image (@img, @len bytes), or NULL (unknown version, or more
 * than one model matches).
 * sl_model_for_self - the same for /proc/self/exe (mapped read-only, then
 * unmapped). *@any_model (may be NULL) gets the tool's default model (to be
 * used under SYMLAZY_LAZY=on when the version is not known).
 */
const struct sl_tool_model *sl_model_for_image(enum sl_tool tool, const char *img, size_t len);
const struct sl_tool_model *sl_model_for_self(enum sl_tool tool, const struct sl_tool_model **any_model);
/* ... and, when no model matches, the version literal found in the image
 * (sl_perf_version_in_image; "" if none) into @version (@n bytes; may be
 * NULL; left as it is when a model matches). */
const struct sl_tool_model *sl_model_for_self_version(enum sl_tool tool,
						      const struct sl_tool_model **any_model,
						      char *version, size_t n);
/*
 * sl_model_for_self_cached - sl_model_for_self_version() with the verdict
 * kept in the cache dir @dirfd (-1: none, then it is that function):
 * "perf-<key>.model", the key made of /proc/self/exe's device, inode, size
 * and mtime and of the names of the models chosen among, holding the
 * model's name or "-<version literal>". Saves the scan of the whole
 * executable on every run but the first; a damaged or foreign file is
 * rescanned and rewritten.
 */
const struct sl_tool_model *sl_model_for_self_cached(enum sl_tool tool,
						     const struct sl_tool_model **any_model,
						     char *version, size_t n, int dirfd);
/* sl_models_for_tool - the models of @tool, newest first (*@models); count. */
size_t sl_models_for_tool(enum sl_tool tool, const struct sl_tool_model *const **models);
/* sl_model_versions - the versions the models of @tool mirror, oldest first
 * ("6.1.x, 6.12.x, 7.2.x"), into @buf (@n bytes, terminated when n > 0);
 * returns the length the whole list needs (snprintf's rule). For messages. */
int sl_model_versions(enum sl_tool tool, char *buf, size_t n);

/*
 * sl_charge_model - the model whose costs and budget rules apply to the
 * scans @tool makes itself (libbcc's scans get libbcc's model from the
 * shim): perf 6.1 (the session replaces it with the model of the perf
 * version it found, core/session.c), `perf probe` (subcommand after perf's
 * global options), bpftrace 0.17 or 0.23 (by the version literal of the
 * running executable; another version: other.c), uftrace 0.13, else the conservative
 * core/model/other.c. @argc/@argv may be 0/NULL (then perf's default).
 */
const struct sl_tool_model *sl_charge_model(enum sl_tool tool, int argc, char *const argv[]);

/*
 * sl_cmdline_read - read a NUL-separated command line (/proc/PID/cmdline
 * format) from @path, whole however long. *@argv gets a malloc'ed array of
 * *@argc pointers (+ a NULL) into one malloc'ed buffer that *@argv[-1]...:
 * free with sl_cmdline_free(). Returns 0, -errno (open/read), -ENODATA (empty).
 */
int sl_cmdline_read(const char *path, int *argc, char ***argv);
void sl_cmdline_free(char **argv);

/*
 * sl_preload_without_self - LD_PRELOAD value @lp with every entry that names
 * libsymlazy removed (separators ':' and blanks, as ld.so(8) takes them),
 * written to @out (@n bytes, at least strlen(@lp)+1). Returns 1 if something
 * was removed (then *@out == '\0' means: unset LD_PRELOAD), 0 if not.
 */
int sl_preload_without_self(const char *lp, char *out, size_t n);

#endif
