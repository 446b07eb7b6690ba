/* SPDX-License-Identifier: MIT */
/*
 * core/inputs.c - the perf.data files a perf run reads and the pre-pass over
 * them. perf script/report/annotate and perf data convert read
 * one; perf diff reads every file data_init names, each in its own session
 * (own maps and DSOs, each DSO's symbols loaded once per session), so the
 * addresses shown per DSO are the union over the files: a keep-set that
 * answers each of them as the full table does answers every session.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/models.h"
#include "core/session.h"
#include "perfdata/unwind.h"
#include "core/tool.h"

unsigned sl_inputs_sym_priv(const struct sl_tool_model *m)
{
	char **argv = NULL;
	int argc = 0, sub;
	unsigned r = 0;

	if (sl_cmdline_read("/proc/self/cmdline", &argc, &argv) < 0)
		return 0;
	sub = perf61_subcommand(argc, argv);
	if (sub >= 0 && !strcmp(argv[sub], "diff"))
		r = m->annotation_priv;
	sl_cmdline_free(argv);
	return r;
}

void sl_inputs_free(struct sl_session *s)
{
	for (int i = 0; i < s->nr_inputs; i++)
		free(s->inputs[i]);
	s->nr_inputs = 0;
}

int sl_inputs_take(struct sl_session *s, const struct sl_invocation *inv, struct sl_why *why)
{
	struct stat st;
	int i;

	sl_inputs_free(s);
	for (i = 0; i < inv->nr_inputs; i++) {
		const char *p = inv->inputs[i];

		/* no -i: perf reads stdin when it is a FIFO (perf_data check_pipe) */
		if (inv->default_input && fstat(0, &st) == 0 && S_ISFIFO(st.st_mode)) {
			sl_why_set(why, SL_R_PIPE_INPUT, NULL);
			goto fail;
		}
		/* a file, or a perf record --threads directory */
		if (!perfdata_input_ok(p) || strlen(p) >= PATH_MAX) {
			sl_why_set(why, SL_R_NOT_REGULAR, "%s", p);
			goto fail;
		}
		s->inputs[i] = strdup(p);
		if (!s->inputs[i]) {
			sl_why_set(why, SL_R_NOMEM, NULL);
			goto fail;
		}
		s->nr_inputs = i + 1;
	}
	return s->nr_inputs > 0;
fail:
	sl_inputs_free(s);
	return 0;
}

int sl_inputs_read(struct sl_session *s, int unwind_mode, char *err, size_t errsz, const char **failed)
{
	int i, r, differs = 0;

	memset(&s->addrs, 0, sizeof(s->addrs));
	for (i = 0; i < s->nr_inputs; i++) {
		struct pd_result one;

		*failed = s->inputs[i];
		r = perfdata_read_unwind(s->inputs[i], s->ops, unwind_mode, i ? &one : &s->addrs, err, errsz);
		if (r < 0) {
			if (i) {
				s->addrs.flags |= one.flags & PD_F_PIPE;
				one.flags = 0;
			}
			goto fail;
		}
		if (i && (r = perfdata_merge(&s->addrs, &one, &differs)) < 0) {
			perfdata_free(&one);
			snprintf(err, errsz, "%s", strerror(-r));
			goto fail;
		}
	}
	/* kallsyms is filtered once for the process with one set of kernel
	 * facts; sessions that map the kernel differently get it whole */
	if (differs)
		sl_why_set(&s->kernel_why, SL_R_KS_INPUTS_DIFFER, NULL);
	return 0;
fail:
	if (i) {
		unsigned keep = s->addrs.flags & PD_F_PIPE;

		perfdata_free(&s->addrs);
		s->addrs.flags = keep;
	}
	return r;
}
