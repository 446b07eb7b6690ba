/* fixtime.c - LD_PRELOAD'ed into BOTH the stock and the shim perf runs of
 * corpus.sh. perf seeds random() with time(NULL) (perf.c main) and
 * `perf report --stdio` prints a random "# (Tip: ...)" line, so without a
 * fixed time the two outputs could differ by that line alone. With a fixed
 * time the Tip is deterministic, so the outputs are compared unfiltered (and
 * a shim that consumed perf's random() stream would show up as a diff). */
#include <time.h>

time_t time(time_t *t)
{
	if (t)
		*t = 1700000000;
	return 1700000000;
}
