#!/bin/sh
# fuzz/run.sh MODE HARNESS... - driver behind `make fuzz-seeds|fuzz|fuzz-replay`.
#
#   seeds   build/fuzz/corpus/<h>/ += fuzz/seeds/<h>/* (+ generated inputs:
#           malformed ELF variants of the seed ELFs for symindex)
#   fuzz    run each harness FUZZ_SECONDS (default 60) in libFuzzer fork mode,
#           or until FUZZ_EXECS executions (then FUZZ_SECONDS is a cap, default 6 h),
#           continuing after crashes; one summary line per harness:
#           "fuzz_<h>: <execs> execs, <n> crashes (<k> artifacts), corpus <c>"
#           crash inputs land in build/fuzz/artifacts/<h>/
#   replay  run each harness once over fuzz/seeds/<h>, build/fuzz/corpus/<h>
#           and tests/regress/<h>/ (must not crash), then FUZZ_SECONDS
#           (default 10) of fuzzing; tests/regress/<h>/known/* (open bugs)
#           are run one by one and reported as SKIP while they still crash.
#           Prints PASS:/FAIL:/SKIP: lines; exits 1 on any failure.
# Env: FUZZ_SECONDS, FUZZ_EXECS, FUZZ_JOBS (fork-mode jobs, default 2), FUZZ_KNOWN=1 (do not filter inputs that hit known open
# bugs, see fuzz/README.md), FUZZ_ARGS (extra libFuzzer flags).
set -u
cd "$(dirname "$0")/.." || exit 1
mode=$1
shift
B=build/fuzz
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Known open bugs are filtered by the harnesses unless FUZZ_KNOWN=1.
if [ "${FUZZ_KNOWN:-0}" = 1 ]; then export FUZZ_SKIP_KNOWN=0; else export FUZZ_SKIP_KNOWN=1; fi
failed=0

maxlen() {
	case $1 in
	perfdata|symindex|names|a2l|dbgsec|elfimg) echo 65536 ;;
	cache|addrs) echo 8192 ;;
	*) echo 4096 ;;
	esac
}

seeds() {
	h=$1
	mkdir -p "$B/corpus/$h"
	[ -d "fuzz/seeds/$h" ] && cp -p fuzz/seeds/"$h"/* "$B/corpus/$h/" 2>/dev/null
	case $h in
	symindex)
		if [ ! -f "$B/corpus/$h/.malformed-done" ]; then
			for base in fuzz/seeds/symcore/*; do
				"$PY" scripts/gen-malformed.py --base "$base" --prefix "$(basename "$base")-" \
					"$B/corpus/$h" >/dev/null 2>&1
			done
			"$PY" scripts/gen-malformed.py "$B/corpus/$h" >/dev/null 2>&1
			rm -f "$B/corpus/$h/MANIFEST"
			: >"$B/corpus/$h/.malformed-done"
		fi ;;
	names)
		# the symindex seeds' ELF files and the name indexes of two of them
		cp -p fuzz/seeds/symindex/* "$B/corpus/$h/" 2>/dev/null
		if [ ! -f "$B/corpus/$h/.index-done" ] && [ -x build/bin/symlazy ]; then
			d=$(mktemp -d /tmp/symlazy-fuzz-names.XXXXXX)
			for f in $(ls fuzz/seeds/symindex/* 2>/dev/null | head -2); do
				SYMLAZY_CACHE_DIR=$d build/bin/symlazy index --names "$f" >/dev/null 2>&1
			done
			for f in "$d"/*.names; do [ -f "$f" ] && cp "$f" "$B/corpus/$h/index-$(basename "$f")"; done
			rm -rf "$d"
			: >"$B/corpus/$h/.index-done"
		fi ;;
	a2l)
		# the tables a2l-serve writes for the seed ELF files (SYMLZA2L inputs)
		if [ ! -f "$B/corpus/$h/.table-done" ] && [ -x build/bin/a2l-serve ]; then
			d=$(mktemp -d /tmp/symlazy-fuzz-a2l.XXXXXX)
			for f in fuzz/seeds/a2l/*.so; do
				[ -f "$f" ] || continue
				printf '0\n,\n' | build/bin/a2l-serve -C "$d" "$f" >/dev/null 2>&1
				for t in "$d"/*.a2l; do
					[ -f "$t" ] && mv "$t" "$B/corpus/$h/table-$(basename "$f").a2l"
				done
			done
			rm -rf "$d"
			: >"$B/corpus/$h/.table-done"
		fi ;;
	cache)
		# the good cache file of the embedded ELF, and small patches of it
		if [ ! -f "$B/corpus/$h/good-mode0" ]; then
			e=$(mktemp -d /tmp/symlazy-fuzz-empty.XXXXXX)
			FUZZ_CACHE_SEED_DIR=$B/corpus/$h "$B/fuzz_$h" -runs=0 "$e" >/dev/null 2>&1
			rmdir "$e"
		fi ;;
	esac
}

# Remove the cache dirs fuzz_cache jobs left behind (their pid is gone), and
# the work dirs of fork-mode parents stopped at FUZZ_EXECS (libFuzzer removes
# them only when it ends by itself).
tidy() {
	for d in /dev/shm/symlazy-fuzz-cache-* /tmp/symlazy-fuzz-cache-*; do
		[ -d "$d" ] || continue
		kill -0 "${d##*-}" 2>/dev/null || rm -rf "$d"
	done
	for d in /tmp/libFuzzerTemp.FuzzWithFork*.dir; do
		[ -d "$d" ] || continue
		p=${d#/tmp/libFuzzerTemp.FuzzWithFork}
		p=${p%.dir}
		case $p in *[!0-9]*|'') continue ;; esac
		kill -0 "$p" 2>/dev/null || rm -rf "$d"
	done
}

# summary H LOG: the last fork-mode status line
summary() {
	h=$1 log=$2
	line=$(grep -E '^#[0-9]+: ' "$log" | tail -1)
	execs=$(printf '%s\n' "$line" | sed -n 's/^#\([0-9]*\):.*/\1/p')
	crashes=$(printf '%s\n' "$line" | sed -n 's/.*oom\/timeout\/crash: \([0-9]*\)\/\([0-9]*\)\/\([0-9]*\).*/\3/p')
	touts=$(printf '%s\n' "$line" | sed -n 's/.*oom\/timeout\/crash: \([0-9]*\)\/\([0-9]*\)\/\([0-9]*\).*/\1 oom, \2 timeouts/p')
	corp=$(printf '%s\n' "$line" | sed -n 's/.*corp: \([0-9]*\).*/\1/p')
	cov=$(printf '%s\n' "$line" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	arts=$(ls "$B/artifacts/$h" 2>/dev/null | grep -c '^crash-')
	echo "fuzz_$h: ${execs:-?} execs, ${crashes:-?} crashes ($arts crash artifacts), ${touts:-? oom, ? timeouts}, corpus ${corp:-?}, cov ${cov:-?}"
}

case $mode in
seeds)
	for h; do seeds "$h"; done
	;;
fuzz)
	# FUZZ_EXECS=N: stop each harness once its fork-mode status line counts
	# N executions (FUZZ_SECONDS, default then 6 h, stays the cap)
	target=${FUZZ_EXECS:-0}
	case $target in
	''|*[!0-9]*) echo "run.sh: FUZZ_EXECS must be a whole number of executions, not '$target'" >&2; exit 2 ;;
	esac
	case ${FUZZ_SECONDS:-1} in
	*[!0-9]*) echo "run.sh: FUZZ_SECONDS must be a whole number of seconds, not '$FUZZ_SECONDS'" >&2; exit 2 ;;
	esac
	if [ "$target" -gt 0 ]; then secs=${FUZZ_SECONDS:-21600}; else secs=${FUZZ_SECONDS:-60}; fi
	for h; do
		mkdir -p "$B/artifacts/$h" "$B/logs"
		log=$B/logs/$h.log
		start=$(date +%s)
		# own session: the fork-mode jobs are stopped with their parent
		setsid "$B/fuzz_$h" -fork="${FUZZ_JOBS:-2}" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
			-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len="$(maxlen "$h")" \
			-artifact_prefix="$B/artifacts/$h/" ${FUZZ_ARGS:-} "$B/corpus/$h" >"$log" 2>&1 &
		pid=$!
		if [ "$target" -gt 0 ]; then
			while kill -0 "$pid" 2>/dev/null; do
				sleep 5
				last=$(grep -E '^#[0-9]+: ' "$log" | tail -1)
				n=$(printf '%s\n' "$last" | sed -n 's/^#\([0-9]*\):.*/\1/p')
				if [ "${n:-0}" -ge "$target" ]; then
					# the jobs we interrupt count as crashes in the
					# next status line: report the line before the stop
					kill -INT "-$pid" 2>/dev/null
					sleep 2
					kill -KILL "-$pid" 2>/dev/null
					wait "$pid" 2>/dev/null
					echo "INFO: run.sh stopped the run at FUZZ_EXECS=$target; status before the stop:" >>"$log"
					printf '%s\n' "$last" >>"$log"
					break
				fi
			done
		fi
		wait "$pid" 2>/dev/null
		tidy
		echo "$(summary "$h" "$log") in $(( $(date +%s) - start ))s"
	done
	;;
replay)
	secs=${FUZZ_SECONDS:-10}
	for h; do
		mkdir -p "$B/logs" "$B/replay-artifacts/$h"
		log=$B/logs/replay-$h.log
		n=0
		# 1. every stored input once (regression inputs listed one by one)
		set --
		for f in tests/regress/"$h"/*; do
			[ -f "$f" ] && set -- "$@" "$f" && n=$((n + 1))
		done
		if [ $# -gt 0 ] && ! "$B/fuzz_$h" -artifact_prefix="$B/replay-artifacts/$h/" "$@" >"$log.regress" 2>&1; then
			echo "FAIL: fuzz_$h regression inputs crash again (tests/regress/$h; log $log.regress)"
			grep -E 'ERROR|SUMMARY|invariant|Running' "$log.regress" | head -6
			failed=1
		elif [ $# -gt 0 ]; then
			echo "PASS: fuzz_$h: $n regression inputs from tests/regress/$h"
		fi
		for f in tests/regress/"$h"/known/*; do
			[ -f "$f" ] || continue
			if FUZZ_SKIP_KNOWN=0 "$B/fuzz_$h" "$f" >"$log.known" 2>&1; then
				echo "PASS: fuzz_$h known bug input $(basename "$f") no longer crashes (fixed? move it up to tests/regress/$h)"
			else
				echo "SKIP: fuzz_$h known open bug still reproduces: $f ($(grep -m1 -E 'SUMMARY|invariant' "$log.known"))"
			fi
		done
		ncorp=$(ls "$B/corpus/$h" 2>/dev/null | wc -l)
		if "$B/fuzz_$h" -runs=0 -max_len="$(maxlen "$h")" -artifact_prefix="$B/replay-artifacts/$h/" \
			"$B/corpus/$h" >"$log.corpus" 2>&1; then
			echo "PASS: fuzz_$h: corpus of $ncorp inputs replays without a crash"
		else
			echo "FAIL: fuzz_$h: corpus input crashes (log $log.corpus)"
			grep -E 'ERROR|SUMMARY|invariant' "$log.corpus" | head -6
			failed=1
		fi
		# 2. a short fuzzing run from that corpus (new inputs stay in build/)
		if "$B/fuzz_$h" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len="$(maxlen "$h")" \
			-artifact_prefix="$B/replay-artifacts/$h/" ${FUZZ_ARGS:-} "$B/corpus/$h" >"$log" 2>&1; then
			execs=$(grep -E '^(#[0-9]+|Done [0-9]+ runs)' "$log" | tail -1 | sed -n 's/^#\([0-9]*\).*/\1/p; s/^Done \([0-9]*\) runs.*/\1/p')
			echo "PASS: fuzz_$h: ${secs}s of fuzzing, ${execs:-?} execs, no crash"
		else
			echo "FAIL: fuzz_$h: crash within ${secs}s of fuzzing (inputs in $B/replay-artifacts/$h/, log $log)"
			grep -E 'ERROR|SUMMARY|invariant' "$log" | head -6
			failed=1
		fi
		tidy
	done
	;;
*)
	echo "usage: $0 seeds|fuzz|replay HARNESS..." >&2
	exit 2
	;;
esac
exit $failed
