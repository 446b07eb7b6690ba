// SPDX-License-Identifier: MIT

// Command benchoffsets measures the eBPF-agent pattern of resolving uprobe
// offsets by name in large binaries (scripts/bench-go.sh runs it):
//
//	benchoffsets [-names 50] [-missing 10] [-markdown] FILE...
//
// Per FILE, 50 function names (spread over the sorted names cilium would
// find) and 10 missing ones are resolved in fresh child processes:
//
//	debug/elf  as cilium/ebpf's link.Executable: Symbols() + DynamicSymbols()
//	           into a map name -> address that is kept (internal/elfref);
//	symlazy    symlazy.Open (its name index, from a cache directory the run
//	           starts empty: a cold open that builds it, then a warm one).
//
// Each child prints the Go heap it keeps (runtime.MemStats.HeapInuse after
// GC, minus the same before opening), VmRSS and RssAnon (/proc/self/status:
// the index's pages a lookup touches are file pages, shared and reclaimable),
// the open time, lookups per second (GOMAXPROCS=1) and the offsets, which
// must be identical between the two (exit status 1 otherwise).
package main

import (
	"bufio"
	"debug/elf"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	symlazy "symlazy/go"
	"symlazy/go/internal/elfref"
)

type result struct {
	Heap    uint64   `json:"heap"`    // bytes of Go heap kept (HeapInuse: whole 8 KiB spans)
	RSS     uint64   `json:"rss"`     // VmRSS, KiB
	Anon    uint64   `json:"anon"`    // RssAnon, KiB
	OpenMs  float64  `json:"open_ms"` // time to open (and resolve the names)
	Rate    float64  `json:"rate"`    // lookups per second
	Offsets []string `json:"offsets"` // per name: hex offset or "-"
	Err     string   `json:"err,omitempty"`
}

func status() (rss, anon uint64) {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == "VmRSS:" {
			rss, _ = strconv.ParseUint(f[1], 10, 64)
		} else if len(f) >= 2 && f[0] == "RssAnon:" {
			anon, _ = strconv.ParseUint(f[1], 10, 64)
		}
	}
	return
}

func heapInuse() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// rate calls f on every name for about 300 ms: lookups per second.
func rate(names []string, f func(string)) float64 {
	n, start := 0, time.Now()
	for time.Since(start) < 300*time.Millisecond {
		for _, s := range names {
			f(s)
		}
		n += len(names)
	}
	return float64(n) / time.Since(start).Seconds()
}

func child(mode, file, namesFile string) {
	b, err := os.ReadFile(namesFile)
	if err != nil {
		fail(err)
	}
	names := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	r := result{Offsets: make([]string, len(names))}
	before := heapInuse()
	start := time.Now()
	var keep interface{}
	switch mode {
	case "elf":
		t, err := elfref.Load(file, "", nil)
		if err != nil {
			fail(err)
		}
		for i, n := range names {
			r.Offsets[i] = "-"
			if off, ok := t.Offset(n); ok {
				r.Offsets[i] = fmt.Sprintf("%x", off)
			}
		}
		r.OpenMs = float64(time.Since(start).Microseconds()) / 1e3
		keep = t
		r.Rate = rate(names, func(s string) { t.Offset(s) })
	case "symlazy":
		x, err := symlazy.Open(file)
		if err != nil {
			fail(err)
		}
		for i, n := range names {
			r.Offsets[i] = "-"
			if s, ok := x.Lookup(n); ok && s.Type == elf.STT_FUNC {
				r.Offsets[i] = fmt.Sprintf("%x", s.Offset)
			}
		}
		r.OpenMs = float64(time.Since(start).Microseconds()) / 1e3
		keep = x
		r.Rate = rate(names, func(s string) { x.Lookup(s) })
	}
	after := heapInuse()
	if after > before {
		r.Heap = after - before
	}
	r.RSS, r.Anon = status()
	runtime.KeepAlive(keep)
	json.NewEncoder(os.Stdout).Encode(&r)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchoffsets:", err)
	os.Exit(1)
}

func run(self, mode, file, names, cache string) result {
	cmd := exec.Command(self, "-child", mode, file, names)
	// one core: lookups/s per core; the default GC target
	cmd.Env = append(os.Environ(), "SYMLAZY_CACHE_DIR="+cache, "GOGC=100", "GOMAXPROCS=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	var r result
	if err == nil {
		err = json.Unmarshal(out, &r)
	}
	if err != nil {
		r.Err = err.Error()
	}
	return r
}

// pick: @n function names spread over the sorted names cilium finds, and
// @miss names that are not there.
func pick(file string, n, miss int) ([]string, int, error) {
	var all []string
	t, err := elfref.Load(file, "", &all)
	if err != nil {
		return nil, 0, err
	}
	var fn []string
	for name := range t {
		if _, ok := t.Offset(name); ok {
			fn = append(fn, name)
		}
	}
	sort.Strings(fn)
	var out []string
	for i := 0; i < n && len(fn) > 0; i++ {
		out = append(out, fn[i*len(fn)/n])
	}
	for i := 0; i < miss && len(fn) > 0; i++ {
		out = append(out, fn[(2*i+1)*len(fn)/(2*miss)]+".symlazy_missing")
	}
	return out, len(all), nil
}

func main() {
	childMode := flag.String("child", "", "internal: run one measurement (elf or symlazy)")
	nNames := flag.Int("names", 50, "function names to resolve per binary")
	nMiss := flag.Int("missing", 10, "missing names to resolve per binary")
	markdown := flag.Bool("markdown", false, "print a Markdown table")
	cacheDir := flag.String("cache", "", "cache directory to use (emptied first; default: a temporary one)")
	flag.Parse()
	if *childMode != "" {
		if flag.NArg() != 2 {
			fail(fmt.Errorf("-child MODE FILE NAMESFILE"))
		}
		child(*childMode, flag.Arg(0), flag.Arg(1))
		return
	}
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: benchoffsets [-names N] [-missing N] [-markdown] [-cache DIR] FILE...")
		os.Exit(2)
	}
	self, err := os.Executable()
	if err != nil {
		fail(err)
	}
	tmp, err := os.MkdirTemp("", "benchoffsets")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)
	cache := *cacheDir
	if cache == "" {
		cache = filepath.Join(tmp, "cache")
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	if *markdown {
		fmt.Fprintln(w, "| binary | symbols | debug/elf: Go heap MiB | RSS (anon) MiB | symlazy: Go heap KiB | RSS (anon) MiB | lookups/s | open ms: debug/elf, symlazy cold, warm | offsets |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---|")
	} else {
		fmt.Fprintf(w, "%-24s %8s | %9s %14s | %9s %14s %10s | %6s %6s %6s | %s\n", "binary", "symbols",
			"elf heap", "RSS (anon)", "sl heap", "RSS (anon)", "lookups/s", "elf", "cold", "warm", "offsets")
		fmt.Fprintf(w, "%-24s %8s | %9s %14s | %9s %14s %10s | %20s |\n", "", "", "MiB", "MiB", "KiB", "MiB", "per core", "open ms")
	}
	bad := 0
	for _, file := range flag.Args() {
		os.RemoveAll(cache)
		names, nsyms, err := pick(file, *nNames, *nMiss)
		if err != nil {
			fmt.Fprintf(os.Stderr, "benchoffsets: %s: %v\n", file, err)
			bad++
			continue
		}
		nf := filepath.Join(tmp, "names")
		if err := os.WriteFile(nf, []byte(strings.Join(names, "\n")+"\n"), 0600); err != nil {
			fail(err)
		}
		e := run(self, "elf", file, nf, cache)
		cold := run(self, "symlazy", file, nf, cache)
		warm := run(self, "symlazy", file, nf, cache)
		same := "identical"
		found := 0
		if e.Err != "" || cold.Err != "" || warm.Err != "" || len(e.Offsets) != len(names) {
			same = "ERROR " + e.Err + cold.Err + warm.Err
			bad++
		} else {
			for i := range names {
				if e.Offsets[i] != cold.Offsets[i] || e.Offsets[i] != warm.Offsets[i] {
					same = fmt.Sprintf("DIFFER at %s: %s vs %s", names[i], e.Offsets[i], warm.Offsets[i])
					bad++
					break
				}
				if e.Offsets[i] != "-" {
					found++
				}
			}
		}
		if same == "identical" {
			same = fmt.Sprintf("identical (%d found, %d missing)", found, len(names)-found)
		}
		name := filepath.Base(file)
		if strings.HasPrefix(name, "librustc_driver-") {
			name = "librustc_driver"
		} else if strings.HasPrefix(name, "libLLVM") {
			name = "libLLVM"
		} else if strings.HasPrefix(file, "/") && strings.Contains(file, "fix500k") {
			name = "fixture 500k"
		}
		if len(name) > 24 {
			name = name[:21] + "..."
		}
		rss := func(r result) string {
			return fmt.Sprintf("%.1f (%.1f)", float64(r.RSS)/1024, float64(r.Anon)/1024)
		}
		if *markdown {
			fmt.Fprintf(w, "| %s | %d | %.1f | %s | %.0f | %s | %.1fM | %.0f, %.0f, %.1f | %s |\n", name, nsyms,
				float64(e.Heap)/(1<<20), rss(e), float64(warm.Heap)/1024, rss(warm),
				warm.Rate/1e6, e.OpenMs, cold.OpenMs, warm.OpenMs, same)
		} else {
			fmt.Fprintf(w, "%-24s %8d | %9.1f %14s | %9.0f %14s %9.1fM | %6.0f %6.0f %6.1f | %s\n", name, nsyms,
				float64(e.Heap)/(1<<20), rss(e), float64(warm.Heap)/1024, rss(warm),
				warm.Rate/1e6, e.OpenMs, cold.OpenMs, warm.OpenMs, same)
		}
		w.Flush()
	}
	if bad > 0 {
		w.Flush()
		os.Exit(1)
	}
}
