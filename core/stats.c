/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include "core/a2lsess.h"
#include "core/stats.h"

void stats_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

int stats_write_json(FILE *f, const struct stats_totals *t, const struct scan_stats *list)
{
	const struct scan_stats *s;
	const struct text_stats *ts;
	uint64_t sc = 0, pa = 0, dr = 0, by = 0;
	int first = 1;

	for (s = list; s; s = s->next) {
		sc += s->scanned; pa += s->passed; dr += s->dropped; by += s->bytes;
	}
	fprintf(f, "{\"budget_bytes\":%llu,\"charged_bytes\":%llu,\"refused_bytes\":%llu,\"lazy\":",
		(unsigned long long)t->budget_bytes, (unsigned long long)t->charged_bytes,
		(unsigned long long)t->refused_bytes);
	stats_json_str(f, t->lazy);
	fprintf(f, ",\"lazy_reason\":");
	stats_json_str(f, t->lazy_reason);
	if (t->lazy_reason_code) {
		fprintf(f, ",\"lazy_reason_code\":");
		stats_json_str(f, t->lazy_reason_code);
	}
	fprintf(f, ",\"addr_dsos\":%llu,\"addrs\":%llu", (unsigned long long)t->addr_dsos,
		(unsigned long long)t->addrs);
	if (t->model) {
		fprintf(f, ",\"model\":");
		stats_json_str(f, t->model);
	}
	if (t->demangler) {
		fprintf(f, ",\"demangler\":");
		stats_json_str(f, t->demangler);
	}
	if (t->dwfl_lookups)
		fprintf(f, ",\"dwfl\":{\"lookups\":%llu,\"answered\":%llu,\"library\":%llu,\"built\":%llu,"
			"\"cached\":%llu,\"unmodelable\":%llu}", (unsigned long long)t->dwfl_lookups,
			(unsigned long long)t->dwfl_answered, (unsigned long long)t->dwfl_library,
			(unsigned long long)t->dwfl_built, (unsigned long long)t->dwfl_cached,
			(unsigned long long)t->dwfl_unmodelable);
	if (t->bcc_caches)
		fprintf(f, ",\"bcc\":{\"caches\":%llu,\"answered\":%llu,\"delegated\":%llu,"
			"\"indexes_built\":%llu,\"indexes_reused\":%llu}",
			(unsigned long long)t->bcc_caches, (unsigned long long)t->bcc_answered,
			(unsigned long long)t->bcc_delegated, (unsigned long long)t->bcc_built,
			(unsigned long long)t->bcc_reused);
	sl_a2l_stats_json(f, t->a2l);
	if (t->dbg_files || t->dbg_left)
		fprintf(f, ",\"dwarf_sections\":{\"files\":%llu,\"mapped\":%llu,\"bytes\":%llu,"
			"\"built\":%llu,\"left\":%llu}",
			(unsigned long long)t->dbg_files, (unsigned long long)t->dbg_sections,
			(unsigned long long)t->dbg_bytes, (unsigned long long)t->dbg_built,
			(unsigned long long)t->dbg_left);
	fprintf(f, ",\"totals\":{\"scanned\":%llu,\"passed\":%llu,\"dropped\":%llu,\"bytes\":%llu},\"dsos\":[",
		(unsigned long long)sc, (unsigned long long)pa, (unsigned long long)dr, (unsigned long long)by);
	for (s = list; s; s = s->next) {
		fprintf(f, "%s\n {\"path\":", first ? "" : ",");
		first = 0;
		stats_json_str(f, s->path);
		fprintf(f, ",\"build_id\":");
		stats_json_str(f, s->build_id);
		fprintf(f, ",\"table\":\"%s\",\"mode\":\"%s\",\"scanned\":%llu,\"passed\":%llu,\"dropped\":%llu,"
			"\"bytes\":%llu,\"mmap\":%s,\"reason\":", s->table, s->mode,
			(unsigned long long)s->scanned, (unsigned long long)s->passed,
			(unsigned long long)s->dropped, (unsigned long long)s->bytes, s->mmap ? "true" : "false");
		stats_json_str(f, s->reason);
		if (s->reason_code) {
			fprintf(f, ",\"reason_code\":");
			stats_json_str(f, s->reason_code);
		}
		fputc('}', f);
	}
	fprintf(f, "],\"kernel_addrs\":%llu,\"jit_dsos\":%llu,\"texts\":[", (unsigned long long)t->kernel_addrs,
		(unsigned long long)t->jit_dsos);
	for (first = 1, ts = t->texts; ts; ts = ts->next) {
		fprintf(f, "%s\n {\"path\":", first ? "" : ",");
		first = 0;
		stats_json_str(f, ts->path);
		fprintf(f, ",\"kind\":\"%s\",\"mode\":\"%s\",\"scanned\":%llu,\"symbols\":%llu,\"kept\":%llu,"
			"\"bytes\":%llu,\"kept_bytes\":%llu,\"opens\":%llu,\"reason\":", ts->kind, ts->mode,
			(unsigned long long)ts->scanned, (unsigned long long)ts->symbols,
			(unsigned long long)ts->kept, (unsigned long long)ts->bytes,
			(unsigned long long)ts->kept_bytes, (unsigned long long)ts->opens);
		stats_json_str(f, ts->reason);
		if (ts->reason_code) {
			fprintf(f, ",\"reason_code\":");
			stats_json_str(f, ts->reason_code);
		}
		fputc('}', f);
	}
	fprintf(f, "]}\n");
	return ferror(f) ? -EIO : 0;
}
