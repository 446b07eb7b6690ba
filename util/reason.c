/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "util/reason.h"

static const struct { const char *name, *text; } table[SL_R__COUNT] = {
#define SL_R_ROW(code, name, text) [SL_R_##code] = { name, text },
	SL_REASONS(SL_R_ROW)
#undef SL_R_ROW
};

const char *sl_reason_name(enum sl_reason r)
{
	return (unsigned)r < SL_R__COUNT ? table[r].name : "?";
}

const char *sl_reason_text(enum sl_reason r)
{
	return (unsigned)r < SL_R__COUNT ? table[r].text : "";
}

static void why_vset(struct sl_why *w, enum sl_reason code, const char *fmt, va_list ap)
{
	int n;

	if (!w)
		return;
	w->code = code;
	w->detail[0] = '\0';
	if (!fmt)
		return;
	n = vsnprintf(w->detail, sizeof(w->detail), fmt, ap);
	if (n >= (int)sizeof(w->detail))
		memcpy(w->detail + sizeof(w->detail) - 4, "...", 4);
}

void sl_why_set(struct sl_why *w, enum sl_reason code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	why_vset(w, code, fmt, ap);
	va_end(ap);
}

int sl_whyf(struct sl_why *w, enum sl_reason code, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	why_vset(w, code, fmt, ap);
	va_end(ap);
	return r;
}

int sl_why_format(const struct sl_why *w, char *buf, size_t n)
{
	const char *t = sl_reason_text(w->code);

	if (strstr(t, "%s")) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		return snprintf(buf, n, t, w->detail);
#pragma GCC diagnostic pop
	}
	if (w->detail[0])
		return snprintf(buf, n, "%s%s%s", t, t[0] ? ": " : "", w->detail);
	return snprintf(buf, n, "%s", t);
}
