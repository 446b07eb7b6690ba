/* SPDX-License-Identifier: MIT */
/*
 * a2lsess.h - perf's addr2line children. perf 6.1 and 6.12 built
 * without libbfd (Debian's) resolve inline frames and source lines by forking
 * one long-running `addr2line -e DSO -i -f` per DSO (6.12: `-a -i -f`) and
 * asking it one address at a time (tools/perf/util/srcline.c addr2line();
 * tools/lib/subcmd/run-command.c start_command: fork, dup2 the pipes onto
 * stdin/stdout, stderr to /dev/null, execvp). The shim's execvp asks
 * sl_session_a2l_exec: where the answers of GNU addr2line can be computed
 * exactly from the symbol table alone (srcline/a2l.h: the DSO and every
 * debug file binutils would look for carry no debug information), the
 * forked child serves the same protocol itself, without exec, from a
 * mapped, address-sorted table in the cache directory, and exits; otherwise
 * the real addr2line runs. Under SYMLAZY_MAX_BYTES an addr2line that would
 * read debug information (memory symlazy cannot bound) is not run: the child
 * answers "no information" to every query, as binutils does for an address
 * it knows nothing about, and perf prints what it prints without inline
 * frames (one stderr line at exit says so).
 *
 * What the children did reaches the parent's stats (the "a2l" object,
 * doc/design.md "Stats") through one page shared with them, created before
 * the first fork (sl_a2l_prepare).
 */
#ifndef SYMLAZY_A2LSESS_H
#define SYMLAZY_A2LSESS_H

#include <stdint.h>
#include <stdio.h>

struct sl_session;

#define SL_A2L_MAX_DSOS 64     /* listed in the stats; "omitted" counts the rest */

enum sl_a2l_mode { SL_A2L_M_SERVED = 1, SL_A2L_M_EXEC, SL_A2L_M_NOINFO };

struct sl_a2l_entry {
	uint32_t ready;                 /* 1 once the fields below are written */
	uint16_t mode;                  /* enum sl_a2l_mode */
	uint16_t reason;                /* enum sl_reason (SL_R_NONE when served) */
	char path[256];                 /* the DSO perf named (argv[2]), cut at 255 bytes */
	char detail[384];               /* the reason's detail, cut at 383 bytes */
	uint32_t dwarf;                 /* served: 1 from the DWARF table (srcline/a2l_dwarf.h) */
	_Atomic uint32_t handed_over;   /* served: 1 once handed over to binutils mid-session */
	_Atomic uint64_t answered;      /* served: queries answered in-process (set at EOF/hand-over) */
};

struct sl_a2l_shared {
	_Atomic uint32_t n;             /* entries claimed (may exceed SL_A2L_MAX_DSOS) */
	uint32_t pad;
	_Atomic uint64_t served, exec, noinfo;      /* children by mode */
	struct sl_a2l_entry e[SL_A2L_MAX_DSOS];
};

/*
 * sl_a2l_prepare - in perf (a recognised 6.1 or 6.12 whose model has an
 * addr2line rule), map the shared page the children report into. Called at
 * setup, before perf forks anything; a failure only loses the stats.
 */
void sl_a2l_prepare(struct sl_session *s);

/*
 * sl_session_a2l_exec - the shim's execvp(@file, @argv) in a forked child of
 * perf. Returns -1 when the real execvp must run (anything but perf's own
 * addr2line command line, an addr2line that is not GNU binutils 2.40, a DSO
 * whose debug information binutils would read, a table that cannot be built).
 * Otherwise it serves perf's queries on stdin/stdout until EOF and _exit()s:
 * it never returns. errno is preserved when it returns.
 */
int sl_session_a2l_exec(struct sl_session *s, const char *file, char *const argv[]);

/* sl_a2l_stats_json - the "a2l" member (leading comma included) for the
 * stats of a run whose children reported into @a; nothing if @a is NULL or
 * no child started. */
void sl_a2l_stats_json(FILE *f, const struct sl_a2l_shared *a);

/* sl_a2l_report - at exit: one stderr line when the budget kept addr2line
 * from running for some DSO. */
void sl_a2l_report(const struct sl_a2l_shared *a);

#endif
