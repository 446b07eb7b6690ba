/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "core/config.h"

int config_parse_size(const char *s, uint64_t *out)
{
	uint64_t v = 0, mult = 1;
	const char *p = s;

	if (!s || !*s)
		return -EINVAL;
	while (*p == ' ')
		p++;
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	while (isdigit((unsigned char)*p)) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
		p++;
	}
	switch (toupper((unsigned char)*p)) {
	case 'K': mult = 1ull << 10; p++; break;
	case 'M': mult = 1ull << 20; p++; break;
	case 'G': mult = 1ull << 30; p++; break;
	case 'T': mult = 1ull << 40; p++; break;
	default: break;
	}
	if (mult > 1 && toupper((unsigned char)*p) == 'I')
		p++;
	if (toupper((unsigned char)*p) == 'B')
		p++;
	while (*p == ' ')
		p++;
	if (*p)
		return -EINVAL;
	if (v && mult > 1 && v > (UINT64_MAX >> 1) / mult)
		return -ERANGE;
	if (v * mult > (UINT64_MAX >> 1))
		return -ERANGE;
	*out = v * mult;
	return 0;
}

/* Remember the first bad value: "symlazy: <what> <name>=<val> (<hint>)". */
static void set_error(struct symlazy_config *cfg, const char *what, const char *name, const char *val,
		      const char *hint)
{
	if (!cfg->error[0])
		snprintf(cfg->error, sizeof(cfg->error), "symlazy: %s %s=%s (%s)", what, name, val, hint);
}

static int parse_bool(struct symlazy_config *cfg, const char *(*get)(const char *), const char *name, int def)
{
	const char *v = get(name);

	if (!v || !*v)
		return def;
	if (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "on") || !strcasecmp(v, "true"))
		return 1;
	if (!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "off") || !strcasecmp(v, "false"))
		return 0;
	set_error(cfg, "ignoring", name, v, "expected 1/0, yes/no, on/off or true/false");
	return def;
}

static void copy_path(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src);
}

void config_load(struct symlazy_config *cfg, const char *(*get)(const char *name))
{
	const char *v;

	memset(cfg, 0, sizeof(*cfg));
	cfg->disabled = parse_bool(cfg, get, "SYMLAZY_DISABLE", 0);
	cfg->mmap = parse_bool(cfg, get, "SYMLAZY_MMAP", 1);
	cfg->hide_all = parse_bool(cfg, get, "SYMLAZY_HIDE_ALL", 0);
	cfg->inherit = parse_bool(cfg, get, "SYMLAZY_INHERIT", 0);
	cfg->verbose = parse_bool(cfg, get, "SYMLAZY_VERBOSE", 0);
	cfg->dwfl = parse_bool(cfg, get, "SYMLAZY_DWFL", 1);
	cfg->bcc_index = parse_bool(cfg, get, "SYMLAZY_BCC", 1);
	cfg->dwarf_map = parse_bool(cfg, get, "SYMLAZY_DWARF_MAP", 1);
	cfg->dwarf_abbrev = parse_bool(cfg, get, "SYMLAZY_DWARF_ABBREV", 1);

	v = get("SYMLAZY_MAX_BYTES");
	if (v && *v && config_parse_size(v, &cfg->max_bytes) < 0) {
		cfg->max_bytes = 0;
		set_error(cfg, "invalid", "SYMLAZY_MAX_BYTES", v,
			  "expected <n>[K|M|G|T][B|iB], e.g. 64M; running without a budget");
	}

	v = get("SYMLAZY_STATS");
	if (v && *v && strcmp(v, "0")) {
		if (!strcmp(v, "1") || !strcasecmp(v, "stderr")) {
			cfg->stats = STATS_STDERR;
		} else {
			cfg->stats = STATS_FILE;
			copy_path(cfg->stats_path, sizeof(cfg->stats_path), v);
		}
	}

	v = get("SYMLAZY_LAZY");
	cfg->lazy = LAZY_AUTO;
	if (v && *v) {
		if (!strcasecmp(v, "auto"))
			cfg->lazy = LAZY_AUTO;
		else if (!strcasecmp(v, "on") || !strcmp(v, "1"))
			cfg->lazy = LAZY_ON;
		else if (!strcasecmp(v, "off") || !strcmp(v, "0"))
			cfg->lazy = LAZY_OFF;
		else
			set_error(cfg, "invalid", "SYMLAZY_LAZY", v, "expected auto, on or off; using auto");
	}

	v = get("SYMLAZY_UNWIND");
	if (v && *v) {
		if (!strcmp(v, "scan"))
			cfg->unwind_scan = 1;
		else if (strcmp(v, "hybrid"))
			set_error(cfg, "invalid", "SYMLAZY_UNWIND", v, "expected hybrid or scan; using hybrid");
	}
	v = get("SYMLAZY_ADDRS");
	if (v && *v)
		copy_path(cfg->addrs_path, sizeof(cfg->addrs_path), v);

	v = get("SYMLAZY_CACHE_DIR");
	if (v && *v) {
		if (strcmp(v, "off"))
			copy_path(cfg->cache_dir, sizeof(cfg->cache_dir), v);
	} else if ((v = get("XDG_CACHE_HOME")) && *v == '/') {
		snprintf(cfg->cache_dir, sizeof(cfg->cache_dir), "%s/symlazy", v);
	} else if ((v = get("HOME")) && *v == '/') {
		snprintf(cfg->cache_dir, sizeof(cfg->cache_dir), "%s/.cache/symlazy", v);
	}
}
