// SPDX-License-Identifier: MIT

package symlazy

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"symlazy/go/internal/elfref"
)

// goBinary is testdata/hello built with symbols (TestMain).
var goBinary, goBinaryErr string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "symlazy-go-test")
	if err == nil {
		goBinary = filepath.Join(dir, "hello")
		gotool := filepath.Join(runtime.GOROOT(), "bin", "go")
		if out, err := exec.Command(gotool, "build", "-o", goBinary, "./testdata/hello").CombinedOutput(); err != nil {
			goBinary, goBinaryErr = "", fmt.Sprintf("go build ./testdata/hello: %v: %s", err, out)
		}
	} else {
		goBinaryErr = err.Error()
	}
	rc := m.Run()
	if dir != "" {
		os.RemoveAll(dir)
	}
	os.Exit(rc)
}

// The files checked: $SYMLAZY_TEST_BINS (colon-separated; "FILE=DEBUG"
// names the separate debug file the reference should read .symtab from)
// and testdata/hello built with symbols (a Go binary); without the
// variable, that Go binary and libc with its build-id debug file
// when libc6-dbg is installed.
type target struct{ path, debug string }

func targets(t *testing.T) []target {
	var out []target
	if env := os.Getenv("SYMLAZY_TEST_BINS"); env != "" {
		for _, f := range strings.Split(env, ":") {
			if f == "" {
				continue
			}
			p, d, _ := strings.Cut(f, "=")
			out = append(out, target{p, d})
		}
		if goBinary != "" {
			out = append(out, target{goBinary, ""})
		}
		return out
	}
	if goBinary == "" {
		t.Skip("no Go binary to index: " + goBinaryErr)
	}
	out = append(out, target{goBinary, ""})
	if d := buildIDDebug("/lib/x86_64-linux-gnu/libc.so.6"); d != "" {
		out = append(out, target{"/lib/x86_64-linux-gnu/libc.so.6", d})
	}
	return out
}

func buildIDDebug(path string) string {
	fd, err := syscall.Open(path, syscall.O_RDONLY, 0)
	if err != nil {
		return ""
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil {
		return ""
	}
	p, err := mapFile(fd, st.Size)
	if err != nil {
		return ""
	}
	defer syscall.Munmap(p)
	m, err := openImg(p)
	if err != nil {
		return ""
	}
	bid := m.buildID()
	if len(bid) < 2 {
		return ""
	}
	h := fmt.Sprintf("%x", bid)
	d := debugRoot + "/.build-id/" + h[:2] + "/" + h[2:] + ".debug"
	if _, err := os.Stat(d); err != nil {
		return ""
	}
	return d
}

// missing: names that are not symbols, close to ones that are.
// goTarget: the Go binary, for the tests that look up its main.main.
func goTarget(t *testing.T) string {
	if goBinary == "" {
		t.Skip("no Go binary to index: " + goBinaryErr)
	}
	return goBinary
}

func missing(names []string, set map[string]bool) []string {
	var out []string
	for i, n := range names {
		if i%97 != 0 || n == "" {
			continue
		}
		for _, m := range []string{n + "_", "_" + n, n[:len(n)-1], strings.ToUpper(n), n + "@@NOVER"} {
			if m != "" && !set[m] {
				out = append(out, m)
			}
		}
	}
	return append(out, "", "symlazy_no_such_symbol", strings.Repeat("x", 300))
}

// TestOffsetsAsDebugElf: for every symbol name of each target (and names
// that are not there), Lookup answers what cilium/ebpf computes with
// debug/elf: found exactly when cilium finds a function, with its offset
// and size.
func TestOffsetsAsDebugElf(t *testing.T) {
	for _, tg := range targets(t) {
		tg := tg
		t.Run(filepath.Base(tg.path), func(t *testing.T) {
			t.Setenv("SYMLAZY_CACHE_DIR", t.TempDir())
			var names []string
			ref, err := elfref.Load(tg.path, tg.debug, &names)
			if err != nil {
				t.Fatal(err)
			}
			set := map[string]bool{}
			for _, n := range names {
				set[n] = true
			}
			all := append(names, missing(names, set)...)
			x, err := Open(tg.path)
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			nfound, nbad := 0, 0
			for _, n := range all {
				want, wok := ref.Offset(n)
				s, ok := x.Lookup(n)
				got := ok && s.Type == elf.STT_FUNC
				if got != wok || (wok && (s.Offset != want || s.Size != ref[n].Size || s.Name != n)) {
					if nbad++; nbad < 10 {
						t.Errorf("%q: debug/elf %v 0x%x, symlazy %v %v 0x%x size %d", n, wok, want, ok,
							s.Type, s.Offset, s.Size)
					}
				}
				if wok {
					nfound++
				}
			}
			t.Logf("%s: %d names (%d functions found), %d differ", tg.path, len(all), nfound, nbad)
			if nfound == 0 {
				t.Errorf("no function found")
			}
		})
	}
}

// TestSymbolize: each function's own offset and its last byte symbolize to
// a function starting at the same offset.
func TestSymbolize(t *testing.T) {
	tg := target{goTarget(t), ""}
	t.Setenv("SYMLAZY_CACHE_DIR", t.TempDir())
	ref, err := elfref.Load(tg.path, tg.debug, nil)
	if err != nil {
		t.Fatal(err)
	}
	x, err := Open(tg.path)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	f, err := elf.Open(tg.path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	inText := func(v uint64) bool {
		for _, p := range f.Progs {
			if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 && p.Vaddr <= v && v < p.Vaddr+p.Memsz {
				return true
			}
		}
		return false
	}
	n := 0
	for name := range ref {
		s, ok := x.Lookup(name)
		if !ok || s.Type != elf.STT_FUNC || s.Section == elf.SHN_UNDEF || !inText(s.Value) {
			continue
		}
		got, ok := x.Symbolize(s.Offset)
		if !ok || got.Offset != s.Offset {
			t.Errorf("Symbolize(0x%x) of %s: %v %+v", s.Offset, name, ok, got)
		}
		if s.Size > 1 {
			if got, ok := x.Symbolize(s.Offset + s.Size - 1); !ok || got.Offset > s.Offset+s.Size-1 ||
				s.Offset+s.Size-1-got.Offset >= max(got.Size, 1) {
				t.Errorf("Symbolize(0x%x) (end of %s): %v %+v", s.Offset+s.Size-1, name, ok, got)
			}
		}
		if n++; n > 2000 {
			break
		}
	}
	if _, ok := x.Symbolize(^uint64(0)); ok {
		t.Errorf("Symbolize(max) found a symbol")
	}
	x.Close()
	if _, ok := x.Lookup("main.main"); ok {
		t.Errorf("Lookup after Close found a symbol")
	}
	if _, ok := x.Symbolize(0x1000); ok {
		t.Errorf("Symbolize after Close found a symbol")
	}
	if err := x.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func max(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}

func cacheFiles(t *testing.T, dir string) []string {
	m, err := filepath.Glob(filepath.Join(dir, "*"+fileSuffix))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestBuildMatchesC: the index Open builds is byte for byte the one
// `symlazy index --names` writes ($SYMLAZY_BIN), and each maps the other's.
func TestBuildMatchesC(t *testing.T) {
	bin := os.Getenv("SYMLAZY_BIN")
	if bin == "" {
		t.Skip("SYMLAZY_BIN (the symlazy command) not set")
	}
	for _, tg := range targets(t) {
		tg := tg
		t.Run(filepath.Base(tg.path), func(t *testing.T) {
			cdir, gdir := t.TempDir(), t.TempDir()
			var st0 syscall.Stat_t
			if err := syscall.Stat(tg.path, &st0); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "index", "--names", tg.path)
			cmd.Env = append(os.Environ(), "SYMLAZY_CACHE_DIR="+cdir)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v: %s", bin, err, out)
			}
			t.Setenv("SYMLAZY_CACHE_DIR", gdir)
			x, err := Open(tg.path)
			if err != nil {
				t.Fatal(err)
			}
			if x.cached {
				t.Errorf("Open found a cache file in an empty directory")
			}
			x.Close()
			cf, gf := cacheFiles(t, cdir), cacheFiles(t, gdir)
			if len(cf) != 1 || len(gf) != 1 || filepath.Base(cf[0]) != filepath.Base(gf[0]) {
				t.Fatalf("cache files: C %v, Go %v", cf, gf)
			}
			c, _ := os.ReadFile(cf[0])
			g, _ := os.ReadFile(gf[0])
			if !bytes.Equal(c, g) {
				i := 0
				for i < len(c) && i < len(g) && c[i] == g[i] {
					i++
				}
				t.Fatalf("C and Go indexes differ at byte %d (sizes %d, %d)", i, len(c), len(g))
			}
			t.Setenv("SYMLAZY_CACHE_DIR", cdir)
			x, err = Open(tg.path)
			var st1 syscall.Stat_t
			if err == nil && !x.cached && syscall.Stat(tg.path, &st1) == nil && identity(&st1) != identity(&st0) {
				// another process changed the file meanwhile (perf record
				// hard-links a binary it records into ~/.debug: st_ctim
				// moves): a new index is right, nothing to compare
				t.Logf("%s changed during the test (%v -> %v): not compared", tg.path, identity(&st0),
					identity(&st1))
			} else if err != nil || !x.cached {
				t.Fatalf("Go does not map the C index: %v", err)
			}
			x.Close()
		})
	}
}

// TestCorruptCache: a cache file with any byte changed, cut short or
// replaced by junk is not trusted: Open rebuilds it and answers the same.
func TestCorruptCache(t *testing.T) {
	tg := target{goTarget(t), ""}
	dir := t.TempDir()
	t.Setenv("SYMLAZY_CACHE_DIR", dir)
	x, err := Open(tg.path)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := x.Lookup("main.main")
	x.Close()
	f := cacheFiles(t, dir)[0]
	good, _ := os.ReadFile(f)
	cases := map[string][]byte{"empty": {}, "short": good[:len(good)/2], "junk": bytes.Repeat([]byte{0xff}, len(good))}
	for _, at := range []int{0, 8, 24, 40, 48, 128, 140, 200, hdrSize + 1, len(good) / 3, len(good) / 2, len(good) - 1} {
		b := append([]byte(nil), good...)
		b[at] ^= 0x40
		cases[fmt.Sprintf("flip@%d", at)] = b
	}
	for name, b := range cases {
		if err := os.WriteFile(f, b, 0600); err != nil {
			t.Fatal(err)
		}
		x, err := Open(tg.path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if x.cached {
			t.Errorf("%s: a corrupt cache file was mapped", name)
		}
		if got, ok := x.Lookup("main.main"); !ok || got != want {
			t.Errorf("%s: main.main = %+v %v, want %+v", name, got, ok, want)
		}
		x.Close()
	}
	x, _ = Open(tg.path)
	if !x.cached {
		t.Errorf("the rebuilt cache file is not mapped")
	}
	x.Close()
	// a file whose change time moved (rewritten in place, size and mtime
	// restored; here a chmod to the same mode) gets a new index
	fi, err := os.Stat(tg.path)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // file times tick per jiffy
	if err := os.Chmod(tg.path, fi.Mode()); err != nil {
		t.Fatal(err)
	}
	x, _ = Open(tg.path)
	if x.cached {
		t.Errorf("a file with another st_ctim was answered from its old index")
	}
	x.Close()
}

// TestNoCacheDir: SYMLAZY_CACHE_DIR=off builds into anonymous memory.
func TestNoCacheDir(t *testing.T) {
	tg := target{goTarget(t), ""}
	t.Setenv("SYMLAZY_CACHE_DIR", "off")
	x, err := Open(tg.path)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if s, ok := x.Lookup("main.main"); !ok || s.Type != elf.STT_FUNC || s.Offset == 0 {
		t.Errorf("main.main: %+v %v", s, ok)
	}
}

func TestErrors(t *testing.T) {
	t.Setenv("SYMLAZY_CACHE_DIR", t.TempDir())
	for _, p := range []string{"/nonexistent", "/etc/passwd", "/", "/dev/null"} {
		if x, err := Open(p); err == nil {
			x.Close()
			t.Errorf("Open(%s) succeeded", p)
		}
	}
}

// TestLookupAllocs: Lookup allocates nothing.
func TestLookupAllocs(t *testing.T) {
	tg := target{goTarget(t), ""}
	t.Setenv("SYMLAZY_CACHE_DIR", t.TempDir())
	x, err := Open(tg.path)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if n := testing.AllocsPerRun(1000, func() {
		x.Lookup("main.main")
		x.Lookup("runtime.mallocgc")
		x.Lookup("no.such.symbol")
	}); n != 0 {
		t.Errorf("Lookup allocates %v times", n)
	}
}

func heapInuse() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestHeapPerOpen: an open Index keeps at most 64 KiB of Go heap.
func TestHeapPerOpen(t *testing.T) {
	ts := targets(t)
	t.Setenv("SYMLAZY_CACHE_DIR", t.TempDir())
	for _, tg := range ts { // build the cache files first
		x, err := Open(tg.path)
		if err != nil {
			t.Fatal(err)
		}
		x.Close()
	}
	const rounds = 4
	before := heapInuse()
	var keep []*Index
	for i := 0; i < rounds; i++ {
		for _, tg := range ts {
			x, err := Open(tg.path)
			if err != nil {
				t.Fatal(err)
			}
			x.Lookup("main.main")
			keep = append(keep, x)
		}
	}
	after := heapInuse()
	per := int64(after-before) / int64(len(keep))
	t.Logf("Go heap per open index: %d bytes (%d open)", per, len(keep))
	if per > 64<<10 {
		t.Errorf("Go heap per open index %d bytes > 64 KiB", per)
	}
	for _, x := range keep {
		x.Close()
	}
}

// TestLookupRate: >= 1M lookups/s on one core (a warm index; half the
// names missing). Skipped under -short.
func TestLookupRate(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	tg := targets(t)[0]
	t.Setenv("SYMLAZY_CACHE_DIR", t.TempDir())
	ref, err := elfref.Load(tg.path, tg.debug, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range ref {
		names = append(names, n, n+"_missing")
		if len(names) >= 120 {
			break
		}
	}
	sort.Strings(names)
	x, err := Open(tg.path)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	best := 0.0
	for round := 0; round < 5; round++ {
		n, start := 0, time.Now()
		for time.Since(start) < 50*time.Millisecond {
			for _, s := range names {
				x.Lookup(s)
			}
			n += len(names)
		}
		if r := float64(n) / time.Since(start).Seconds(); r > best {
			best = r
		}
	}
	t.Logf("%.2fM lookups/s", best/1e6)
	if best < 1e6 {
		t.Errorf("%.2fM lookups/s < 1M", best/1e6)
	}
}

func BenchmarkLookup(b *testing.B) {
	if goBinary == "" {
		b.Skip(goBinaryErr)
	}
	b.Setenv("SYMLAZY_CACHE_DIR", b.TempDir())
	x, err := Open(goBinary)
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	names := []string{"main.main", "runtime.mallocgc", "main.greet", "no.such.symbol"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x.Lookup(names[i&3])
	}
}

// TestFormatConstants: the hash and key are part of the format
// (doc/index-format.md; tests/unit/test_names.c checks the same values).
func TestFormatConstants(t *testing.T) {
	for _, c := range []struct {
		s    string
		want uint64
	}{{"", 0x25fc6dd36ce04b20}, {"main", 0xa1db61d39748f690}, {"pthread_create@@GLIBC_2.34", 0x201b0cc5856cafb5}} {
		if h := hashName(c.s); h != c.want || hashBytes([]byte(c.s)) != c.want {
			t.Errorf("hash(%q) = %#x, want %#x", c.s, h, c.want)
		}
	}
	if k := cacheKey(1, 2, 3, 4, 5, 6, 7); k != 0x63bda1f58dc34027 {
		t.Errorf("key = %#x", k)
	}
}

// TestFileCutWhileBuilding: a file cut short after Open took its size (a
// binary overwritten in place) makes the build fail with an error instead
// of killing the process with SIGBUS.
func TestFileCutWhileBuilding(t *testing.T) {
	data, err := os.ReadFile(goTarget(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "cut")
	if err := os.WriteFile(f, data, 0o755); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Open(f, syscall.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(f, 4096); err != nil {
		t.Fatal(err)
	}
	cache := openCacheDir(filepath.Join(dir, "cache"))
	defer syscall.Close(cache)
	o, err := build(f, fd, &st, cache)
	if err == nil {
		o.fail()
		t.Fatal("build of a cut file succeeded")
	}
	t.Log(err)
	if left, _ := filepath.Glob(filepath.Join(dir, "cache", "*")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestMalformed: every file of $SYMLAZY_MALFORMED_DIR (scripts/gen-malformed.py
// output: truncated, overlapping, out-of-range ELF structures) is refused by
// both builders or built into the same bytes by both (the C one is
// $SYMLAZY_BIN); no panic, and what Go builds validates.
func TestMalformed(t *testing.T) {
	dir := os.Getenv("SYMLAZY_MALFORMED_DIR")
	if dir == "" {
		t.Skip("SYMLAZY_MALFORMED_DIR not set")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	bin := os.Getenv("SYMLAZY_BIN")
	built, refused := 0, 0
	for _, f := range files {
		cdir, gdir := t.TempDir(), t.TempDir()
		t.Setenv("SYMLAZY_CACHE_DIR", gdir)
		x, gerr := Open(f)
		if gerr == nil {
			if err := validate(x.data); err != nil {
				t.Errorf("%s: Go built an invalid index", f)
			}
			x.Close()
			built++
		} else {
			refused++
		}
		if bin == "" {
			continue
		}
		cmd := exec.Command(bin, "index", "--names", f)
		cmd.Env = append(os.Environ(), "SYMLAZY_CACHE_DIR="+cdir)
		cerr := cmd.Run()
		if (cerr == nil) != (gerr == nil) {
			t.Errorf("%s: C %v, Go %v", f, cerr, gerr)
			continue
		}
		if gerr == nil {
			cf, gf := cacheFiles(t, cdir), cacheFiles(t, gdir)
			if len(cf) != 1 || len(gf) != 1 {
				t.Errorf("%s: cache files C %v Go %v", f, cf, gf)
				continue
			}
			c, _ := os.ReadFile(cf[0])
			g, _ := os.ReadFile(gf[0])
			if !bytes.Equal(c, g) {
				t.Errorf("%s: C and Go indexes differ", f)
			}
		}
	}
	t.Logf("%d files: %d built, %d refused", len(files), built, refused)
}

// FuzzBuild: the Go builder on arbitrary bytes never panics, and what it
// builds validates and answers every record's name.
func FuzzBuild(f *testing.F) {
	for _, s := range []string{"../fuzz/seeds/symindex/small.so", "../fuzz/seeds/symindex/hello"} {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "in")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		fd, err := syscall.Open(p, syscall.O_RDONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer syscall.Close(fd)
		var st syscall.Stat_t
		syscall.Fstat(fd, &st)
		o, err := build(p, fd, &st, -1)
		if err != nil {
			return
		}
		if err := validate(o.d); err != nil {
			t.Fatalf("built an invalid index: %v", err)
		}
		x := attach(o.d, false)
		// at most 256 names: a name many symbols share makes each lookup walk them all
		for i := uint32(0); i < u32(o.d, hNsyms) && i < 256; i++ {
			name := string(x.strAt(le.Uint32(x.syms[uint64(i)*recSize+rName:])))
			x.Lookup(name)
		}
		x.Symbolize(0)
		x.Close()
	})
}
