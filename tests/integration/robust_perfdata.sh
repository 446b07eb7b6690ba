#!/bin/sh
# robust_perfdata.sh - corrupt perf.data files through `perf script` with and
# without libsymlazy.so (issue 4). The shim pre-reads perf.data itself in
# lazy mode (perfdata/perfdata.c): whatever the file holds, perf must behave as
# without the shim - same stdout, same exit code, same stderr (perf's own
# errors included) - and the shim may add at most one "symlazy:" line.
#
# Variants of two small recordings (`perf record -g`, and `-z` compressed):
# truncated at the header, attrs, mid-data (with and without a matching data
# size), before the feature table; data/attrs sections past EOF or of absurd
# size; attr_size 0/7/2^20; record sizes 0, 4, 0xffff; unknown record types
# (retyped and inserted); sample pids garbage or rotated between the two
# processes with tids intact; feature-table offsets/sizes past EOF or pointing into
# the data; all feature bits set; huge callchain nr; an unterminated MMAP2
# file name; corrupt COMPRESSED payloads; seeded random bytes in the data;
# bad magic, pipe-mode and foreign-endian headers. Also a saved pipe-mode
# stream (`-o - > file`) and a `--threads` directory (DIR/data + data.N):
# cuts, record sizes 0/4/0xffff, retyped records (also as HEADER_ATTR,
# HEADER_BUILD_ID and COMPRESSED), broken HEADER_ATTR sizes, huge callchain
# nr, byte flips; for the directory also a DIR_FORMAT of version 2, a
# data.N that is a directory, an empty one and an extra garbage data.N.
# Modes: shim default (lazy auto) and SYMLAZY_LAZY=on. Timeout 3 s per run
# (runs take < 0.5 s; stock perf 6.1 itself hangs on a data section that ends
# inside a record). Where stock perf crashes or hangs, the shim run must crash
# or hang too (perf's undefined behaviour may pick another signal).
# Prints PASS:/FAIL:/SKIP: lines; exits 1 on failure. About 15 s.
set -u
. "$(dirname "$0")/../lib/common.sh"

unset_symlazy_env
[ -f "$SO" ] || { fail "robust_perfdata: $SO missing (run make)"; exit 1; }
command -v perf >/dev/null 2>&1 || { skip "robust_perfdata: perf not installed"; exit 0; }
command -v cc >/dev/null 2>&1 || { skip "robust_perfdata: no C compiler"; exit 0; }
test_tmpdir robust-perfdata
export HOME=$T/home
mkdir -p "$HOME"

cat >"$T/w.c" <<'EOF'
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
__attribute__((noinline)) static long leaf(long x) { for (int i = 0; i < 2000; i++) x = x * 31 + i; return x; }
__attribute__((noinline)) long mid(long x) { return leaf(x) ^ (long)strlen("abc"); }
/* a first phase in functions of its own: variants that damage only the
 * first half of the samples leave these symbols to those samples alone */
__attribute__((noinline)) static long leaf0(long x) { for (int i = 0; i < 2000; i++) x = x * 17 + i; return x; }
__attribute__((noinline)) long phase0(long x) { return leaf0(x) + 1; }
int main(int argc, char **argv)
{
	long s = 0, n = argc > 1 ? atol(argv[1]) : 3000;
	pid_t p = fork();
	for (long i = 0; i < n; i++) s += phase0(i);
	for (long i = 0; i < n; i++) s += mid(i);
	if (p > 0) waitpid(p, NULL, 0);
	return (int)(s & 1);
}
EOF
cc -O1 -fno-omit-frame-pointer -o "$T/w" "$T/w.c" || { fail "compile workload"; exit 1; }
# user-only samples: perf script then needs no kernel symbols (fast runs)
if ! perf record -q -g -c 400000 -e cpu-clock:u -o "$T/fp.data" -- "$T/w" 2000 >/dev/null 2>"$T/rec.err"; then
	skip "robust_perfdata: perf record does not work here: $(head -1 "$T/rec.err")"
	exit 0
fi
perf record -q -z -g -c 400000 -e cpu-clock:u -o "$T/z.data" -- "$T/w" 2000 >/dev/null 2>&1 ||
	skip "robust_perfdata: perf record -z failed (no zstd?)"
perf record -q -g -c 400000 -e cpu-clock:u -o - -- "$T/w" 2000 >"$T/pipe.data" 2>/dev/null ||
	{ rm -f "$T/pipe.data"; skip "robust_perfdata: perf record -o - failed"; }
perf record -q -g -c 400000 -e cpu-clock:u --threads -o "$T/thr.data" -- "$T/w" 2000 >/dev/null 2>&1 ||
	{ rm -rf "$T/thr.data"; skip "robust_perfdata: perf record --threads failed"; }

cat >"$T/corrupt.py" <<'EOF'
# corrupt.py IN PREFIX OUTDIR [data]: write corrupt variants of perf.data IN
# ("data": only those of the data section and feature table).
# Layout (tools/perf/Documentation/perf.data-file-format.txt): header
# {magic, size, attr_size, attrs{off,size}, data{off,size}, event_types{off,
# size}, adds_features[4]} (104 bytes), then attrs, data, and after the data
# one {off,size} per set feature bit.
import os, random, struct, sys
src, prefix, out = sys.argv[1], sys.argv[2], sys.argv[3]
b = open(src, "rb").read()
magic, hsize, attr_size, a_off, a_size, d_off, d_size = struct.unpack_from("<QQQQQQQ", b, 0)
feat = struct.unpack_from("<4Q", b, 72)
nfeat = sum(bin(x).count("1") for x in feat)
ftab = d_off + d_size
made = []

header_level = ("trunc-header", "trunc-attrs", "data-off-", "attrs-", "attr-size", "header-size",
                "magic-", "pipe-header", "flip-", "feat-off-past", "feat-size-huge", "feat-no-bits", "type-0",
                "type-ffffffff", "rec-size-4")

def put(name, data):
    if len(sys.argv) > 4 and sys.argv[4] == "data" and name.startswith(header_level):
        return
    with open(os.path.join(out, prefix + name), "wb") as f:
        f.write(data)
    made.append(name)

def hdr(data, **kw):
    data = bytearray(data)
    pos = {"magic": 0, "size": 8, "attr_size": 16, "a_off": 24, "a_size": 32, "d_off": 40, "d_size": 48}
    for k, v in kw.items():
        struct.pack_into("<Q", data, pos[k], v & 0xFFFFFFFFFFFFFFFF)
    return bytes(data)

def records(data=b):
    """(offset, type, misc, size) of the records in the data section."""
    r, p = [], d_off
    while p + 8 <= d_off + d_size:
        t, misc, sz = struct.unpack_from("<IHH", data, p)
        if sz < 8:
            break
        r.append((p, t, misc, sz))
        p += sz
    return r

recs = records()
put("trunc-header", b[:50])
put("trunc-attrs", b[:a_off + a_size // 2])
put("trunc-data-mid", b[:d_off + d_size // 2])
# cut inside a record, data size matching the cut
mid = recs[len(recs) // 2][0] + 5 if recs else d_off + 5
put("trunc-data-fixed", hdr(b[:mid], d_size=mid - d_off))
put("trunc-features", b[:ftab])
put("trunc-last-byte", b[:-1])
put("data-size-huge", hdr(b, d_size=1 << 62))
put("data-size-plus", hdr(b, d_size=d_size + 24))
put("data-off-past-eof", hdr(b, d_off=len(b) + 4096))
put("data-off-into-header", hdr(b, d_off=8))
put("attrs-past-eof", hdr(b, a_off=len(b) + 8))
put("attrs-size-odd", hdr(b, a_size=a_size + 5))
put("attr-size-0", hdr(b, attr_size=0))
put("attr-size-7", hdr(b, attr_size=7))
put("attr-size-1M", hdr(b, attr_size=1 << 20))
put("header-size-200", hdr(b, size=200))
put("magic-bad", hdr(b, magic=0x1122334455667788))
put("magic-v1", b"PERFFILE" + b[8:])
put("magic-swapped", struct.pack(">Q", magic) + b[8:])
put("pipe-header", hdr(b, size=16))
for name, size in (("rec-size-0", 0), ("rec-size-4", 4), ("rec-size-ffff", 0xFFFF)):
    if recs:
        x = bytearray(b)
        p = recs[min(3, len(recs) - 1)][0]
        struct.pack_into("<H", x, p + 6, size)
        put(name, bytes(x))
for name, t in (("type-200", 200), ("type-0", 0), ("type-65", 65), ("type-ffffffff", 0xFFFFFFFF), ("type-83", 83)):
    x = bytearray(b)
    for p, _, _, _ in recs[1::3]:
        struct.pack_into("<I", x, p, t)
    put(name, bytes(x))
# insert an unknown record (type 300, 24 bytes) before the first record
ins = struct.pack("<IHH", 300, 0, 24) + b"\xAB" * 16
x = bytearray(b[:d_off] + ins + b[d_off:ftab])
tab = bytearray(b[ftab:])
for i in range(nfeat):
    o, = struct.unpack_from("<Q", tab, 16 * i)
    if o >= ftab:
        struct.pack_into("<Q", tab, 16 * i, o + len(ins))
put("insert-unknown", hdr(bytes(x + tab), d_size=d_size + len(ins)))
# feature table
if nfeat and len(b) >= ftab + 16 * nfeat:
    for name, fo, fs in (("feat-off-past-eof", len(b) + 100, None), ("feat-off-huge", 1 << 60, None),
                         ("feat-size-huge", None, 1 << 60), ("feat-into-data", d_off, 64),
                         ("feat-size-0", None, 0)):
        x = bytearray(b)
        for i in range(nfeat):
            o, s = struct.unpack_from("<QQ", x, ftab + 16 * i)
            struct.pack_into("<QQ", x, ftab + 16 * i, o if fo is None else fo, s if fs is None else fs)
        put(name, bytes(x))
    # only the HEADER_BUILD_ID entry (bit 2) broken: it is the first set bit >= 2
    idx = sum(1 for bit in range(2) if feat[0] >> bit & 1)
    if feat[0] >> 2 & 1:
        x = bytearray(b)
        o, s = struct.unpack_from("<QQ", x, ftab + 16 * idx)
        struct.pack_into("<QQ", x, ftab + 16 * idx, o + 3, s + 1000)
        put("feat-buildid-skewed", bytes(x))
        x = bytearray(b)
        for k in range(o, min(o + s, len(x)), 7):
            x[k] ^= 0x5A
        put("feat-buildid-garbage", bytes(x))
x = bytearray(b)
struct.pack_into("<4Q", x, 72, *([0xFFFFFFFFFFFFFFFF] * 4))
put("feat-all-bits", bytes(x))
x = bytearray(b)
struct.pack_into("<4Q", x, 72, 0, 0, 0, 0)
put("feat-no-bits", bytes(x))
# record-level corruption
samples = [r for r in recs if r[1] == 9]
if samples:
    x = bytearray(b)
    for p, _, _, sz in samples[::2]:
        # callchain nr sits after ip, tid, time, period... for -g: set the
        # first u64 after the fixed part to a huge value wherever it lands
        if sz >= 48:
            struct.pack_into("<Q", x, p + 40, 1 << 40)
    put("sample-nr-huge", bytes(x))
    x = bytearray(b)
    for p, _, _, sz in samples[::3]:
        for k in range(p + 8, p + sz):
            x[k] = 0xFF
    put("sample-all-ff", bytes(x))
    # pid fields wrong, tids intact: perf finds threads by tid
    stype, = struct.unpack_from("<Q", b, a_off + 24)
    if stype & 2:    # PERF_SAMPLE_TID, after IDENTIFIER (1 << 16) and IP (1 << 0)
        tpos = 8 + 8 * bool(stype & (1 << 16)) + 8 * bool(stype & 1)
        pids = sorted({struct.unpack_from("<I", b, p + tpos)[0] for p, _, _, _ in samples})
        x = bytearray(b)
        for k, (p, _, _, _) in enumerate(samples):
            struct.pack_into("<I", x, p + tpos, 0x3fff0000 + k)
        put("sample-pid-garbage", bytes(x))
        x = bytearray(b)
        for k, (p, _, _, _) in enumerate(samples[:len(samples) // 2]):
            struct.pack_into("<I", x, p + tpos, 0x3fff0000 + k)
        put("sample-pid-garbage-half", bytes(x))
        if len(pids) >= 2:
            x = bytearray(b)
            for p, _, _, _ in samples:
                v, = struct.unpack_from("<I", b, p + tpos)
                struct.pack_into("<I", x, p + tpos, pids[(pids.index(v) + 1) % len(pids)])
            put("sample-pid-rotated", bytes(x))
mm = [r for r in recs if r[1] in (1, 10)]
if mm:
    x = bytearray(b)
    for p, t, _, sz in mm:
        for k in range(p + (72 if t == 10 else 40), p + sz):
            x[k] = ord("A")
    put("mmap-name-unterminated", bytes(x))
    x = bytearray(b)
    for p, t, _, sz in mm:
        struct.pack_into("<QQQ", x, p + 16, 0xFFFFFFFFFFFFF000, 1 << 63, 1 << 62)
    put("mmap-range-huge", bytes(x))
comp = [r for r in recs if r[1] in (81, 83)]
if comp:
    x = bytearray(b)
    for p, _, _, sz in comp[:2]:
        for k in range(p + 8 + sz // 3, p + sz, 5):
            x[k] ^= 0xA5
    put("compressed-garbage", bytes(x))
    x = bytearray(b)
    p, _, _, sz = comp[0]
    x[p + 8:p + 12] = b"\x00\x00\x00\x00"   # break the zstd frame magic
    put("compressed-bad-magic", bytes(x))
    x = bytearray(b)
    for p, _, _, sz in comp:
        struct.pack_into("<I", x, p, 81 if x[p] == 83 else 83)
    put("compressed-retyped", bytes(x))
rnd = random.Random(1)
for s in range(5):
    x = bytearray(b)
    for _ in range(12):
        k = rnd.randrange(d_off, ftab)
        x[k] = rnd.randrange(256)
    put("flip-%d" % s, bytes(x))
print(" ".join(made))
EOF
cat >"$T/corrupt_stream.py" <<'EOF'
# corrupt_stream.py pipe|dir SRC PREFIX OUTDIR: variants of a saved pipe-mode
# stream (records from offset 16 to the end) or of a --threads directory
# (records of the largest DIR/data.N; DIR/data's DIR_FORMAT feature).
import os, random, shutil, struct, sys
kind, src, prefix, out = sys.argv[1:5]
made = []

def records(b, p):
    r = []
    while p + 8 <= len(b):
        t, misc, sz = struct.unpack_from("<IHH", b, p)
        if sz < 8:
            break
        r.append((p, t, misc, sz))
        p += sz + (struct.unpack_from("<I", b, p + 8)[0] if t == 66 and sz >= 12 else 0)
    return r

def stream_variants(b, start):
    recs = records(b, start)
    v = [("cut-mid-record", b[:recs[len(recs) // 2][0] + 5]), ("cut-last-byte", b[:-1])]
    for name, size in (("rec-size-0", 0), ("rec-size-4", 4), ("rec-size-ffff", 0xFFFF)):
        x = bytearray(b)
        struct.pack_into("<H", x, recs[len(recs) // 3][0] + 6, size)
        v.append((name, bytes(x)))
    for name, t in (("type-200", 200), ("type-0", 0), ("type-64", 64), ("type-81", 81), ("type-67", 67)):
        x = bytearray(b)
        for p, _, _, _ in recs[2::5]:
            struct.pack_into("<I", x, p, t)
        v.append((name, bytes(x)))
    x = bytearray(b)
    for p, t, _, sz in recs:
        if t == 9 and sz >= 48:
            struct.pack_into("<Q", x, p + 40, 1 << 40)
    v.append(("sample-nr-huge", bytes(x)))
    rnd = random.Random(3)
    for s in range(3):
        x = bytearray(b)
        for _ in range(12):
            k = rnd.randrange(start, len(b))
            x[k] = rnd.randrange(256)
        v.append(("flip-%d" % s, bytes(x)))
    return v, recs

if kind == "pipe":
    b = open(src, "rb").read()
    v, recs = stream_variants(b, 16)
    attrs = [r for r in recs if r[1] == 64]
    for name, asz in (("attr-size-0", 0), ("attr-size-4096", 4096), ("attr-size-72", 72)):
        if attrs:
            x = bytearray(b)
            struct.pack_into("<I", x, attrs[0][0] + 12, asz)
            v.append((name, bytes(x)))
    if attrs:   # no HEADER_ATTR: samples come before any attr
        x = bytearray(b)
        struct.pack_into("<I", x, attrs[0][0], 200)
        v.append(("attr-retyped", bytes(x)))
    for name, data in v:
        open(os.path.join(out, prefix + name), "wb").write(data)
        made.append(name)
else:
    files = sorted((f for f in os.listdir(src) if f.startswith("data.")),
                   key=lambda f: os.path.getsize(os.path.join(src, f)))
    big = files[-1]
    b = open(os.path.join(src, big), "rb").read()
    v, _ = stream_variants(b, 0)

    def copy(name):
        d = os.path.join(out, prefix + name)
        shutil.copytree(src, d)
        made.append(name)
        return d
    for name, data in v:
        open(os.path.join(copy(name), big), "wb").write(data)
    h = open(os.path.join(src, "data"), "rb").read()
    d_off, d_size = struct.unpack_from("<QQ", h, 40)
    feat = struct.unpack_from("<4Q", h, 72)
    if feat[0] >> 24 & 1:
        idx = sum(1 for bit in range(24) if feat[bit // 64] >> (bit % 64) & 1)
        o, = struct.unpack_from("<Q", h, d_off + d_size + 16 * idx)
        x = bytearray(h)
        struct.pack_into("<Q", x, o, 2)
        open(os.path.join(copy("dir-version-2"), "data"), "wb").write(x)
    d = copy("data-n-is-dir")
    os.remove(os.path.join(d, big))
    os.mkdir(os.path.join(d, big))
    d = copy("data-n-empty")
    open(os.path.join(d, big), "wb").close()
    d = copy("extra-garbage")
    open(os.path.join(d, "data.99"), "wb").write(bytes(random.Random(4).randrange(256) for _ in range(4000)))
print(" ".join(made))
EOF
mkdir -p "$T/v"
for base in fp z; do
	[ -f "$T/$base.data" ] || continue
	# the -z recording: only variants of its records (the header-level ones
	# are the same as for the plain recording)
	"$PY" "$T/corrupt.py" "$T/$base.data" "$base-" "$T/v" $([ $base = z ] && echo data) >/dev/null ||
		fail "corrupt.py $base"
	cp "$T/$base.data" "$T/v/$base-valid"
done
if [ -f "$T/pipe.data" ]; then
	"$PY" "$T/corrupt_stream.py" pipe "$T/pipe.data" pipe- "$T/v" >/dev/null || fail "corrupt_stream.py pipe"
	cp "$T/pipe.data" "$T/v/pipe-valid"
fi
if [ -d "$T/thr.data" ]; then
	"$PY" "$T/corrupt_stream.py" dir "$T/thr.data" thr- "$T/v" >/dev/null || fail "corrupt_stream.py dir"
	cp -r "$T/thr.data" "$T/v/thr-valid"
fi
ls "$T/v" >"$T/all"
n=$(grep -c . "$T/all")
echo "inputs: $n perf.data variants (files, pipe-mode streams, --threads directories)"

# dead RC: killed by a signal or by timeout
dead() { [ "$1" -eq 124 ] || { [ "$1" -gt 128 ] && [ "$1" -lt 192 ]; }; }

# check LIST: appends "ok|bad <detail>" lines to LIST.out
check() {
	_l=$1
	while read -r v; do
		f=$T/v/$v
		timeout 3 perf script -i "$f" >"$_l.o0" 2>"$_l.e0"
		r0=$?
		for mode in "SYMLAZY_LAZY=auto" "SYMLAZY_LAZY=on SYMLAZY_CACHE_DIR=$T/cache"; do
			# stock died: one shim run shows whether it dies as well
			dead $r0 && [ "$mode" != "SYMLAZY_LAZY=auto" ] && continue
			env LD_PRELOAD="$SO" $mode timeout 3 perf script -i "$f" >"$_l.o1" 2>"$_l.e1"
			r1=$?
			grep -av '^symlazy:' "$_l.e1" >"$_l.e1p"
			ns=$(grep -ac '^symlazy:' "$_l.e1")
			why=
			if dead $r0 && dead $r1; then
				echo "ok $v $r0 $ns both-died $r1" >>"$_l.out"
				continue
			fi
			[ $r1 -ne $r0 ] && why="exit $r1 vs stock $r0"
			[ -z "$why" ] && ! cmp -s "$_l.o0" "$_l.o1" && why="stdout differs ($(diff -a "$_l.o0" "$_l.o1" | grep -ac '^[<>]') lines)"
			[ -z "$why" ] && ! cmp -s "$_l.e0" "$_l.e1p" && why="perf's stderr differs: $(diff -a "$_l.e0" "$_l.e1p" | grep -a '^[<>]' | head -2 | tr '\n' ' ')"
			[ -z "$why" ] && [ "$ns" -gt 1 ] && why="$ns symlazy: lines"
			if [ -n "$why" ]; then
				echo "bad $v [$mode]: $why; $(grep -am1 '^symlazy:' "$_l.e1")" >>"$_l.out"
			else
				echo "ok $v $r0 $ns $(grep -am1 '^symlazy:' "$_l.e1" | cut -c1-150)" >>"$_l.out"
			fi
		done
	done <"$_l"
}
awk 'NR % 2 == 1' "$T/all" >"$T/l1"
awk 'NR % 2 == 0' "$T/all" >"$T/l2"
start=$(date +%s)
check "$T/l1" &
check "$T/l2"
wait
cat "$T/l1.out" "$T/l2.out" >"$T/res"
runs=$(grep -c . "$T/res")
bad=$(grep -c '^bad' "$T/res")
warned=$(awk '$1 == "ok" && $4 > 0' "$T/res" | wc -l)
errs=$(awk '$1 == "ok" && $3 != 0' "$T/res" | wc -l)
crash=$(awk '$1 == "ok" && ($3 == 124 || ($3 > 128 && $3 < 192))' "$T/res" | cut -d' ' -f2 | sort -u | tr '\n' ' ')
[ -n "$crash" ] && echo "NOTE: stock perf script itself crashes or hangs (so does it under the shim) on: $crash"
diffsig=$(awk '$1 == "ok" && $5 == "both-died" && $3 != $6 {print $2 " (stock " $3 ", shim " $6 ")"}' "$T/res" | sort -u | tr '\n' ' ')
[ -n "$diffsig" ] && echo "NOTE: perf died by another signal under the shim (heap layout): $diffsig"
echo "symlazy: lines seen (one per run at most), e.g.:"
awk '$1 == "ok" && $4 > 0 && $5 != "both-died"' "$T/res" | cut -d' ' -f5- | sed 's/pre-read [^ ]* /pre-read FILE /' | sort | uniq -c | sort -rn | head -5
# the shim really pre-read perf.data (lazy on) for the intact recordings
for base in fp z pipe thr; do
	[ -e "$T/v/$base-valid" ] || continue
	LD_PRELOAD="$SO" SYMLAZY_STATS="$T/$base.json" perf script -i "$T/v/$base-valid" >/dev/null 2>&1
	if grep -q '"lazy":"on"' "$T/$base.json" 2>/dev/null; then
		pass "robust-perfdata: the shim reads the intact $base recording in lazy mode ($(grep -o '"addr_dsos":[0-9]*,"addrs":[0-9]*' "$T/$base.json"))"
	else
		fail "robust-perfdata: lazy mode not on for the intact $base recording: $(head -c 300 "$T/$base.json" 2>/dev/null)"
	fi
done
if [ "$bad" -eq 0 ]; then
	pass "robust-perfdata: $n variants x 2 shim modes: $runs perf script runs: same stdout, stderr and exit code as stock ($errs runs where perf itself fails, $warned with one symlazy: line) ($(( $(date +%s) - start ))s)"
else
	fail "robust-perfdata: $bad of $runs runs differ from stock perf:"
	grep '^bad' "$T/res" | head -15 | sed 's/^bad /    /'
fi
exit $failed
