/* SPDX-License-Identifier: MIT */
/*
 * wrappers_exec.c - the interposed execvp. perf's forked children
 * reach it from tools/lib/subcmd/run-command.c start_command; it asks
 * state.c (shim_a2l_exec: perf's addr2line child may be served in-process,
 * core/a2lsess.h) and otherwise forwards with the caller's arguments.
 */
#include <errno.h>
#include <unistd.h>
#include "shim.h"

SYMLAZY_EXPORT int execvp(const char *file, char *const argv[])
{
	shim_resolve_libc();
	shim_a2l_exec(file, argv);      /* returns only when not served */
	if (!real_c.execvp) {
		errno = ENOSYS;
		return -1;
	}
	return real_c.execvp(file, argv);
}
