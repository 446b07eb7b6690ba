#!/bin/sh
# robust_malformed.sh - malformed ELF files through libelf consumers, with
# and without libsymlazy.so (issue 4: never crash the host, never do worse
# than stock).
#
#  a) scripts/gen-malformed.py variants (hand-built ELF64/ELF32 x LE/BE, a
#     compiled PIE with .symtab/.dynsym, the same built with -gz, i.e.
#     SHF_COMPRESSED debug sections) through `eu-nm`, `eu-readelf -s` and
#     bcc's bcc_elf_foreach_sym (ctypes on libbcc.so.0): the shim (and
#     SYMLAZY_MMAP=0 for eu-nm, a 64M budget for bcc) must give stock's exit
#     code, stdout and stderr (minus at most one "symlazy:" line); a 1K
#     budget must not crash or hang where stock does not. Timeout 20 s/run.
#  b) perf: a recorded program whose build-id cache entry
#     (~/.debug/<path>/<build-id>/elf) is replaced by each --keep-note
#     variant (the original binary moved away, so perf must use the cache):
#     `perf report --stdio` and `perf script` stock vs shim (lazy auto):
#     identical stdout and exit code (the budget path is covered by (a)).
#  c) a file truncated while libelf has it open: stock libelf (ELF_C_READ)
#     reads with pread and fails or keeps its heap copies; under the shim's
#     ELF_C_READ_MMAP_PRIVATE mapping the pages past the new end would raise
#     SIGBUS: no crash is required; an output difference is shown as a SKIP
#     line (the mapping reads zeros there).
# Prints PASS:/FAIL:/SKIP: lines; exits 1 on failure. About 40 s.
set -u
. "$(dirname "$0")/../lib/common.sh"

unset_symlazy_env
[ -f "$SO" ] || { fail "robust_malformed: $SO missing (run make)"; exit 1; }
command -v cc >/dev/null 2>&1 || { skip "robust_malformed: no C compiler"; exit 0; }
test_tmpdir robust-malformed
export HOME=$T/home
mkdir -p "$HOME"

# ---- inputs ----------------------------------------------------------------
cat >"$T/prog.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int counter;
static __attribute__((noinline)) long lf(long x) { for (int i = 0; i < 3000; i++) x = x * 31 + i; return x; }
__attribute__((noinline)) long work_a(long x) { return lf(x) ^ (long)strlen("abc"); }
__attribute__((noinline)) long work_b(long x) { return work_a(x) + work_a(x + 1); }
__attribute__((weak)) long weak_fn(long x) { return x + counter; }
int main(int argc, char **argv)
{
	long s = 0, n = argc > 1 ? atol(argv[1]) : 4000;
	for (long i = 0; i < n; i++) s += work_b(i) + weak_fn(i);
	printf("%ld\n", s & 1);
	return 0;
}
EOF
cc -O1 -g -fno-omit-frame-pointer -Wl,--build-id -o "$T/prog" "$T/prog.c" || { fail "compile prog"; exit 1; }
cc -O1 -g -gz -fno-omit-frame-pointer -Wl,--build-id -o "$T/prog-gz" "$T/prog.c" 2>/dev/null ||
	{ skip "gcc -gz unsupported: no SHF_COMPRESSED base"; }
mkdir -p "$T/mal"
"$PY" "$ROOT/scripts/gen-malformed.py" --skip 'flip*' "$T/mal" >/dev/null || { fail "gen-malformed.py (hand-built)"; exit 1; }
"$PY" "$ROOT/scripts/gen-malformed.py" --base "$T/prog" --prefix prog- "$T/mal" >/dev/null ||
	{ fail "gen-malformed.py --base prog"; exit 1; }
[ -f "$T/prog-gz" ] && cp "$T/prog-gz" "$T/mal/proggz-valid" &&
	"$PY" "$ROOT/scripts/gen-malformed.py" --base "$T/prog-gz" --prefix proggz- \
		--only 'chdr-*,*compressed,entsize-0,huge-count,st-name-past-end,trunc-symtab,flipdata-0' "$T/mal" >/dev/null
cp "$T/prog" "$T/mal/prog-valid"
nfiles=$(ls "$T/mal" | grep -vc MANIFEST)
echo "inputs: $nfiles files in $T/mal (see MANIFEST)"

# ---- a) eu-nm, eu-readelf -s, bcc --------------------------------------------
cat >"$T/bcc_helper.py" <<'EOF'
# bcc_helper.py FILE...: for each file, in a forked child, bcc_elf_foreach_sym
# (no debug files, all symbol types); prints one line per file:
# "<file> <status> <nsyms> <hash>" (status: rc=N, sig=N, timeout).
import ctypes, hashlib, os, select, signal, sys
lib = ctypes.CDLL("libbcc.so.0")
CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_void_p)
class Opt(ctypes.Structure):
    _fields_ = [("use_debug_file", ctypes.c_int), ("check_debug_file_crc", ctypes.c_int),
                ("lazy_symbolize", ctypes.c_int), ("use_symbol_type", ctypes.c_uint32)]
lib.bcc_elf_foreach_sym.argtypes = [ctypes.c_char_p, CB, ctypes.c_void_p, ctypes.c_void_p]
for path in sys.argv[1:]:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        signal.alarm(20)
        h, n = hashlib.sha1(), [0]
        def cb(name, start, size, payload):
            h.update(b"%s %x %x\n" % (name, start, size)); n[0] += 1
            return 0
        c = CB(cb)
        rc = lib.bcc_elf_foreach_sym(path.encode(), c, ctypes.byref(Opt(0, 0, 0, 0xffffffff)), None)
        os.write(w, b"%d %d %s" % (rc, n[0], h.hexdigest().encode()))
        os._exit(0)
    os.close(w)
    data = b""
    while True:
        chunk = os.read(r, 4096)
        if not chunk:
            break
        data += chunk
    os.close(r)
    _, st = os.waitpid(pid, 0)
    if os.WIFSIGNALED(st):
        status = "sig=%d" % os.WTERMSIG(st)
        if os.WTERMSIG(st) == signal.SIGALRM:
            status = "timeout"
        print("%s %s - -" % (os.path.basename(path), status))
    else:
        rc, n, hx = data.decode().split()
        print("%s rc=%s %s %s" % (os.path.basename(path), rc, n, hx))
    sys.stdout.flush()
EOF
cat >"$T/driver.py" <<'EOF'
# driver.py SO DIR HAVE_BCC PY: run every tool over every file in its modes
import concurrent.futures, os, subprocess, sys
so, d, have_bcc, py = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4]
files = sorted(f for f in os.listdir(d) if f != "MANIFEST")
base = {k: v for k, v in os.environ.items() if not k.startswith("SYMLAZY_") and k != "LD_PRELOAD"}
base["SYMLAZY_CACHE_DIR"] = "off"
modes = {
    "stock": {},
    "shim": {"LD_PRELOAD": so},
    "budget64M": {"LD_PRELOAD": so, "SYMLAZY_MAX_BYTES": "64M"},
    "budget1K": {"LD_PRELOAD": so, "SYMLAZY_MAX_BYTES": "1K"},
    "nommap": {"LD_PRELOAD": so, "SYMLAZY_MMAP": "0"},
}
strict_modes = ("shim", "budget64M", "nommap")   # must equal stock; others: no crash/hang
tools = {   # tool: (argv, modes)
    "eu-nm": (["eu-nm"], ("stock", "shim", "budget1K", "nommap")),
    "eu-readelf-s": (["eu-readelf", "-s"], ("stock", "shim", "budget1K")),
}
if have_bcc:
    tools["bcc"] = (None, ("stock", "shim", "budget64M", "budget1K"))

def run(tool, mode, f):
    env = dict(base); env.update(modes[mode])
    try:
        p = subprocess.run(tools[tool][0] + [os.path.join(d, f)], env=env, capture_output=True, timeout=20)
        rc = p.returncode if p.returncode >= 0 else 128 - p.returncode
        return rc, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", b"", b""

def run_bcc(mode):
    env = dict(base); env.update(modes[mode])
    p = subprocess.run([py, os.path.join(os.path.dirname(sys.argv[0]), "bcc_helper.py")] +
                       [os.path.join(d, f) for f in files], env=env, capture_output=True, timeout=900)
    got, out = {}, {}
    for line in p.stdout.decode().splitlines():
        name, status, n, hx = line.split()
        got[name] = status, n, hx
    for f in files:
        st, n, hx = got.get(f, ("missing", "-", "-"))
        rc = st if st in ("timeout", "missing") else (128 + int(st[4:]) if st.startswith("sig=") else int(st[3:]))
        out[f] = rc, ("%s %s" % (n, hx)).encode(), b""
    return out

res = {}
with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
    jobs = {}
    for m in tools.get("bcc", (None, ()))[1]:
        jobs[("bcc", m)] = ex.submit(run_bcc, m)
    for f in files:
        for t, (argv, ms) in tools.items():
            if argv:
                for m in ms:
                    jobs[(t, m, f)] = ex.submit(run, t, m, f)
    for k, v in jobs.items():
        if k[0] == "bcc":
            for f, r in v.result().items():
                res[("bcc", k[1], f)] = r
        else:
            res[k] = v.result()

def crashed(rc):
    return rc in ("timeout", "missing") or rc >= 128

def clean_err(err):
    lines = err.decode("latin-1").splitlines(True)
    ours = [l for l in lines if l.startswith("symlazy:")]
    return "".join(l for l in lines if not l.startswith("symlazy:")), len(ours)

ok_all = True
for t, (argv, ms) in tools.items():
    for m in ms:
        if m == "stock":
            continue
        bad = []
        for f in files:
            s, r = res[(t, "stock", f)], res[(t, m, f)]
            if crashed(r[0]) and not crashed(s[0]):
                bad.append("%s: %s with the shim, %s stock" % (f, "hang" if r[0] == "timeout" else "crash rc=%s" % r[0], s[0]))
            elif m in strict_modes:
                e1, n1 = clean_err(s[2]); e2, n2 = clean_err(r[2])
                if r[0] != s[0] or r[1] != s[1] or e1 != e2 or n2 > 1:
                    why = "rc %s vs %s" % (r[0], s[0]) if r[0] != s[0] else \
                          "stdout differs" if r[1] != s[1] else \
                          "%d symlazy: lines" % n2 if n2 > 1 else "stderr differs"
                    bad.append("%s: %s" % (f, why))
        if bad:
            ok_all = False
            print("FAIL: malformed-%s-%s: %d of %d files:" % (t, m, len(bad), len(files)))
            for b in bad[:12]:
                print("   ", b)
        else:
            what = "same exit code, stdout and stderr as stock" if m in strict_modes else "no crash or hang where stock has none"
            print("PASS: malformed-%s-%s: %d files, %s" % (t, m, len(files), what))
for t in tools:
    sc = [f for f in files if crashed(res[(t, "stock", f)][0])]
    if sc:
        print("NOTE: stock %s itself crashes/hangs on %d files (the shim must only match it): %s" %
              (t, len(sc), " ".join(sc[:8])))
sys.exit(0 if ok_all else 1)
EOF
have_bcc=0
if "$PY" -c 'import ctypes; ctypes.CDLL("libbcc.so.0")' 2>/dev/null; then
	have_bcc=1
else
	skip "malformed-bcc: libbcc.so.0 not loadable"
fi
if command -v eu-nm >/dev/null 2>&1 && command -v eu-readelf >/dev/null 2>&1; then
	start=$(date +%s)
	"$PY" "$T/driver.py" "$SO" "$T/mal" "$have_bcc" "$PY" || failed=1
	echo "(a) took $(( $(date +%s) - start ))s"
else
	skip "malformed: elfutils (eu-nm, eu-readelf) not installed"
fi

# ---- b) perf with a malformed build-id cache entry ---------------------------
# perf_variants HOME LIST: run every variant named in LIST (files in
# $T/keep) as the cache entry of HOME's ~/.debug; appends to LIST.out lines
# "ok|bad|stockcrash|ub <detail>". Variants whose st_name points past the
# string table make perf 6.1 read past the table's buffer (elf_sym__name()
# has no bounds check): what it prints is whatever memory follows, which
# the shim's own allocations or mapping change, so there only "no crash
# where stock has none" is required.
perf_variants() {
	_home=$1 _list=$2
	_elf=$_home/.debug$T/prog/$bid/elf
	while read -r m; do
		cp "$T/keep/$m" "$_elf"
		# the same for a string table without a final NUL (cut, unterminated)
		# or a symbol table linked to .text: the last name runs off the end
		# (seen: 1 of 3 make check runs under load printed other bytes)
		case $m in *st-name-*|*strtab-unterminated|*strtab-cut|*link-text) ub=1 ;; *) ub=0 ;; esac
		for c in report script; do
			if [ $c = report ]; then set -- report --stdio; else set -- script; fi
			{ HOME=$_home timeout 20 perf "$@" -i "$T/p.data" 2>/dev/null; echo $? >"$_list.rc"; } |
				grep -av '^# (Tip: ' >"$_list.stock"
			rs=$(cat "$_list.rc")
			for mode in "SYMLAZY_LAZY=auto"; do
				env HOME="$_home" LD_PRELOAD="$SO" $mode timeout 20 perf "$@" -i "$T/p.data" >"$_list.raw" 2>"$_list.err"
				rc=$?
				grep -av '^# (Tip: ' "$_list.raw" >"$_list.shim"
				nl=$(grep -ac '^symlazy:' "$_list.err")
				if [ "$rs" -ge 128 ] && [ "$rc" -lt 128 ]; then
					echo "stockcrash $m perf $c [$mode]: stock rc $rs, shim rc $rc" >>"$_list.out"
				elif [ "$rc" -ge 128 ] && [ "$rs" -lt 128 ]; then
					echo "bad $m perf $c [$mode]: shim crashed rc $rc, stock rc $rs" >>"$_list.out"
				elif [ $ub = 1 ]; then
					echo "ub $m" >>"$_list.out"
				elif [ "$rc" -ne "$rs" ] || ! cmp -s "$_list.stock" "$_list.shim" || [ "$nl" -gt 1 ]; then
					echo "bad $m perf $c [$mode]: rc $rc vs stock $rs, $(diff -a "$_list.stock" "$_list.shim" | grep -ac '^[<>]') lines differ, $nl symlazy: lines; $(grep -am1 '^symlazy:' "$_list.err")" >>"$_list.out"
				else
					echo "ok $m $rs" >>"$_list.out"
				fi
			done
		done
	done <"$_list"
}

perf_case() {
	if ! perf record -q -g -o "$T/p.data" -- "$T/prog" 3000 >/dev/null 2>"$T/rec.err"; then
		skip "malformed-perf: perf record does not work here: $(head -1 "$T/rec.err")"
		return
	fi
	bid=$(perf buildid-list -i "$T/p.data" 2>/dev/null | awk -v p="$T/prog" '$2 == p {print $1}')
	elf=$HOME/.debug$T/prog/$bid/elf
	if [ -z "$bid" ] || [ ! -f "$elf" ]; then
		skip "malformed-perf: no build-id cache entry for $T/prog ($elf)"
		return
	fi
	mv "$T/prog" "$T/prog.moved"        # perf can only use the cache entry now
	mkdir -p "$T/keep"
	"$PY" "$ROOT/scripts/gen-malformed.py" --keep-note --skip 'flipdata-[1-9]' --base "$elf" --prefix perf- "$T/keep" >/dev/null
	rm -f "$T/keep/MANIFEST"
	cp "$elf" "$T/keep/perf-valid"
	# two HOMEs (two copies of ~/.debug), half of the variants each, in parallel
	cp -a "$HOME" "$T/home2"
	ls "$T/keep" | awk 'NR % 2 == 1' >"$T/list1"
	ls "$T/keep" | awk 'NR % 2 == 0' >"$T/list2"
	perf_variants "$HOME" "$T/list1" &
	perf_variants "$T/home2" "$T/list2"
	wait
	cp "$T/keep/perf-valid" "$elf"
	mv "$T/prog.moved" "$T/prog"
	cat "$T/list1.out" "$T/list2.out" >"$T/perf.out"
	n=$(grep -c . "$T/perf.out")
	bad=$(grep -c '^bad' "$T/perf.out")
	sc=$(grep -c '^stockcrash' "$T/perf.out")
	ub=$(grep -c '^ub' "$T/perf.out")
	both=$(grep -c '^ok .* 1[2-9][0-9]$' "$T/perf.out")
	[ "$sc" -gt 0 ] && echo "NOTE: stock perf crashes on $sc runs where the shim does not: $(grep '^stockcrash' "$T/perf.out" | head -3 | tr '\n' ';')"
	[ "$both" -gt 0 ] && echo "NOTE: stock perf crashes on $both runs, with the same signal under the shim: $(grep '^ok .* 1[2-9][0-9]$' "$T/perf.out" | cut -d' ' -f2 | sort -u | tr '\n' ' ')"
	[ "$ub" -gt 0 ] && echo "NOTE: $ub runs of variants whose names run past the string table only checked for crashes (perf reads past the table)"
	if [ "$bad" -eq 0 ]; then
		pass "malformed-perf: $(ls "$T/keep" | grep -c .) build-id cache variants: perf report and perf script (shim defaults: lazy auto): $((n - sc - ub)) runs identical to stock (exit code, stdout, <= 1 symlazy: line), no crash where stock has none"
	else
		fail "malformed-perf: $bad of $n runs differ from stock:"
		grep '^bad' "$T/perf.out" | head -12 | sed 's/^bad /    /'
	fi
}
if command -v perf >/dev/null 2>&1; then
	start=$(date +%s)
	perf_case
	echo "(b) took $(( $(date +%s) - start ))s"
else
	skip "malformed-perf: perf not installed"
fi

# ---- c) a file truncated while libelf has it open ----------------------------
cat >"$T/mapped.c" <<'EOF'
/* mapped FILE WHEN: elf_begin(ELF_C_READ) on FILE, then truncate it to 4 KiB
 * before (WHEN=before) or after (after) elf_getdata of its symbol tables,
 * then read every symbol. Prints what libelf reported. */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int fd = open(argv[1], O_RDONLY), after = !strcmp(argv[2], "after"), named = 0;
	Elf *e;
	Elf_Scn *scn = NULL;
	Elf_Data *d[4];
	GElf_Shdr sh[4];
	int n = 0;

	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e) { printf("elf_begin: %s\n", elf_errmsg(-1)); return 0; }
	while ((scn = elf_nextscn(e, scn)) && n < 4) {
		if (!gelf_getshdr(scn, &sh[n]) || (sh[n].sh_type != SHT_SYMTAB && sh[n].sh_type != SHT_DYNSYM))
			continue;
		if (after && !(d[n] = elf_getdata(scn, NULL))) { printf("elf_getdata: %s\n", elf_errmsg(-1)); continue; }
		if (!after) d[n] = (Elf_Data *)scn;
		n++;
	}
	if (truncate(argv[1], 4096) < 0) { perror("truncate"); return 2; }
	for (int i = 0; i < n; i++) {
		Elf_Data *data = after ? d[i] : elf_getdata((Elf_Scn *)d[i], NULL);
		GElf_Sym s;
		if (!data) { printf("table %d: elf_getdata: %s\n", i, elf_errmsg(-1)); continue; }
		for (size_t k = 0; k < sh[i].sh_size / sh[i].sh_entsize; k++)
			if (gelf_getsym(data, (int)k, &s) && s.st_name)
				named++;
	}
	printf("read %d named symbols\n", named);
	elf_end(e);
	return 0;
}
EOF
if cc -O1 -o "$T/mapped" "$T/mapped.c" -lelf 2>"$T/cc.err"; then
	big=/usr/lib/x86_64-linux-gnu/libstdc++.so.6
	[ -f "$big" ] || big=$T/prog
	for when in before after; do
		for mode in stock shim nommap; do
			cp "$big" "$T/victim.so"
			case $mode in
			stock) "$T/mapped" "$T/victim.so" $when >"$T/m.$mode" 2>"$T/e.$mode" ;;
			shim) LD_PRELOAD=$SO "$T/mapped" "$T/victim.so" $when >"$T/m.$mode" 2>"$T/e.$mode" ;;
			nommap) LD_PRELOAD=$SO SYMLAZY_MMAP=0 "$T/mapped" "$T/victim.so" $when >"$T/m.$mode" 2>"$T/e.$mode" ;;
			esac
			echo $? >"$T/rc.$mode"
		done
		rs=$(cat "$T/rc.stock") r1=$(cat "$T/rc.shim")
		desc="truncated $when elf_getdata: stock rc $rs ($(tail -1 "$T/m.stock")), shim rc $r1 ($(tail -1 "$T/m.shim"); stderr: $(head -c 160 "$T/e.shim")), SYMLAZY_MMAP=0 rc $(cat "$T/rc.nommap") ($(tail -1 "$T/m.nommap"))"
		if [ "$(cat "$T/rc.nommap")" != "$rs" ] || ! cmp -s "$T/m.nommap" "$T/m.stock"; then
			fail "truncated-while-mapped ($when): SYMLAZY_MMAP=0 must behave as stock: $desc"
		elif [ "$r1" -ge 128 ] && [ "$rs" -lt 128 ]; then
			# (found here; fixed in 97bbaf1: zero page over the faulting page, one line)
			fail "truncated-while-mapped ($when): the shim's ELF_C_READ->ELF_C_READ_MMAP_PRIVATE upgrade crashes the host (SIGBUS) where stock does not: $desc"
		elif [ "$r1" != "$rs" ] || [ "$(grep -c '^symlazy:' "$T/e.shim")" -gt 1 ]; then
			fail "truncated-while-mapped ($when): $desc"
		else
			pass "truncated-while-mapped ($when): no crash (rc $r1 as stock), at most one symlazy: line"
			if cmp -s "$T/m.shim" "$T/m.stock"; then
				pass "truncated-while-mapped-output ($when): same symbols as stock: $desc"
			else
				# informational: visible in the summary, not a failure
				skip "truncated-while-mapped-output ($when): differs from stock (the mapping reads the truncated part as zeros where stock had heap copies or failed): $desc; first differing lines (< stock, > shim): $(diff "$T/m.stock" "$T/m.shim" | grep '^[<>]' | head -2 | tr '\n' ';')"
			fi
		fi
	done
else
	skip "truncated-while-mapped: cannot compile against libelf: $(head -1 "$T/cc.err")"
fi
# ---- SYMLAZY_ADDRS that is not a small text file: one line, stock behaviour -------
# (found by a review: /dev/zero grew without bound, a FIFO blocked, a 3 GiB
# all-NUL file took 46 s and 3 GiB)
if command -v eu-addr2line >/dev/null 2>&1; then
	printf 'int f(void){return 1;}\n' >"$T/af.c"
	cc -shared -fPIC -o "$T/af.so" "$T/af.c" 2>/dev/null
	eu-addr2line -f -e "$T/af.so" 0x1100 >"$T/af.stock" 2>&1
	truncate -s 300M "$T/big.addrs"; truncate -s 4K "$T/nul.addrs"; mkfifo "$T/fifo.addrs"
	for a in /dev/zero "$T/big.addrs" "$T/nul.addrs" "$T/fifo.addrs"; do
		timeout 20 env SYMLAZY_ADDRS="$a" LD_PRELOAD="$SO" eu-addr2line -f -e "$T/af.so" 0x1100 \
			>"$T/af.shim" 2>"$T/af.err"
		rc=$?
		n=$(grep -c '^symlazy: cannot use SYMLAZY_ADDRS' "$T/af.err")
		if [ $rc = 0 ] && [ "$n" = 1 ] && cmp -s "$T/af.stock" "$T/af.shim"; then
			pass "addrs-not-text $(basename "$a"): one stderr line ($(cut -c1-90 "$T/af.err")), output as stock"
		else
			fail "addrs-not-text $(basename "$a"): rc=$rc lines=$n $(head -c 200 "$T/af.err")"
		fi
	done
else
	skip "addrs-not-text: no eu-addr2line"
fi
exit $failed
