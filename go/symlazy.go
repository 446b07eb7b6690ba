// SPDX-License-Identifier: MIT

// Package symlazy answers symbol questions about an ELF file from symlazy's
// name index: the file offset a uprobe attaches to for a function name, as
// cilium/ebpf's link.Executable and bcc compute it, without loading the
// symbol table into the Go heap.
//
// An agent that resolves the uprobe targets of a binary with debug/elf keeps
// every symbol of the binary in a map (tens of MiB for a large C++ or Rust
// binary); an Index maps one file from symlazy's cache directory (shared by
// every process and by the symlazy command) and keeps a few hundred bytes of
// Go heap per open binary. Lookups are O(1) and do not allocate.
//
// The index is the one `symlazy index --names FILE` and `symlazy offsets`
// build (doc/index-format.md, version 1); its cache directory is
// $SYMLAZY_CACHE_DIR ("off": none), else $XDG_CACHE_HOME/symlazy, else
// $HOME/.cache/symlazy. Only ELFCLASS64 little-endian files are read.
//
// Standard library only, no cgo; Linux.
package symlazy

import (
	"debug/elf"
	"errors"
	"fmt"
	"sort"
	"syscall"
)

// Table says which symbol table a symbol comes from.
type Table uint8

const (
	SymTab Table = 0 // .symtab (the file's own, or its separate debug file's)
	DynSym Table = 1 // .dynsym
)

func (t Table) String() string {
	if t == DynSym {
		return ".dynsym"
	}
	return ".symtab"
}

// Symbol is one ELF symbol as nm and readelf -s show it, with its uprobe
// offset.
type Symbol struct {
	Name   string // the name asked for (Lookup) or the symbol's name (Symbolize)
	Value  uint64 // st_value
	Size   uint64 // st_size, bytes
	Offset uint64 // st_value - p_vaddr + p_offset of the first executable PT_LOAD holding st_value, else st_value

	Type    elf.SymType      // STT_FUNC, STT_GNU_IFUNC, STT_OBJECT, ...
	Bind    elf.SymBind      // STB_GLOBAL, STB_WEAK, STB_LOCAL, ...
	Section elf.SectionIndex // st_shndx; SHN_UNDEF: an imported symbol
	Table   Table            // SymTab or DynSym
	Index   uint32           // index in that table
	Version string           // .dynsym: the GNU version name ("" if none)
	Hidden  bool             // .dynsym: the version is hidden (name@VER, not name@@VER)
}

// Index is the mapped name index of one ELF file. Its methods may be called
// from any number of goroutines at once, but not while Close runs; after
// Close, Lookup and Symbolize find nothing.
type Index struct {
	data     []byte
	syms     []byte
	buckets  []byte
	slots    []byte
	addrs    []byte
	str      []byte
	nbuckets uint32
	verRefs  []uint32 // string refs of the version names, ascending
	verNames []string
	cached   bool
}

// Open returns the index of the ELF executable or shared object at path.
//
// It maps the index file from the cache directory when one is there and
// still describes the file (same device, inode, size and modification time,
// same debug file). Otherwise it reads the ELF file directly — mapped, not
// read into the Go heap, and with no per-symbol map: the index is written
// into a new file of the cache directory (renamed into place when complete,
// so the next Open and the symlazy command find it) or, without a usable
// cache directory, into anonymous memory. It never runs a program.
//
// A file without .symtab takes it from its separate debug file, searched as
// libbcc does (/usr/lib/debug/.build-id/xx/yyyy.debug, then .gnu_debuglink
// beside the file, in its .debug/ and under /usr/lib/debug).
func Open(path string) (*Index, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, &errPath{path, err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &errPath{path, err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, &errPath{path, errors.New("not a regular file")}
	}
	dirfd := openCacheDir(cacheDir())
	if dirfd >= 0 {
		defer syscall.Close(dirfd)
		if d := mapCached(dirfd, &st); d != nil {
			x := attach(d, true)
			x.cached = true
			return x, nil
		}
	}
	o, err := build(path, fd, &st, dirfd)
	if err != nil {
		return nil, &errPath{path, err}
	}
	return attach(o.d, !o.anon), nil
}

type errPath struct {
	path string
	err  error
}

func (e *errPath) Error() string { return fmt.Sprintf("symlazy: %s: %v", e.path, e.err) }
func (e *errPath) Unwrap() error { return e.err }

// attach slices the parts of a validated mapping and, for a file mapping
// (@drop), drops its pages from the process's resident set: they stay in
// the page cache, and queries touch a few pages each.
func attach(d []byte, drop bool) *Index {
	strOff := u64(d, hStrOff)
	x := &Index{
		data:     d,
		syms:     d[hdrSize:u64(d, hBucketOff)],
		buckets:  d[u64(d, hBucketOff):u64(d, hSlotsOff)],
		slots:    d[u64(d, hSlotsOff):u64(d, hAddrsOff)],
		addrs:    d[u64(d, hAddrsOff):strOff],
		str:      d[strOff:],
		nbuckets: u32(d, hNbuckets),
	}
	ref := uint32(0)
	if dbg := u32(d, hDbgPath); dbg != none {
		ref = nextRef(x.str, dbg)
	}
	if n := u32(d, hNversions); n <= 4096 {
		x.verRefs = make([]uint32, n)
		x.verNames = make([]string, n)
		for i := range x.verRefs {
			x.verRefs[i] = ref
			x.verNames[i] = string(x.strAt(ref))
			ref = nextRef(x.str, ref)
		}
	}
	if drop {
		_ = syscall.Madvise(d, syscall.MADV_DONTNEED)
	}
	return x
}

func (x *Index) strAt(ref uint32) []byte {
	n := le.Uint32(x.str[ref:])
	return x.str[ref+4 : ref+4+n]
}

func (x *Index) version(ref uint32) string {
	if ref == none {
		return ""
	}
	lo, hi := 0, len(x.verRefs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if x.verRefs[m] < ref {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(x.verRefs) && x.verRefs[lo] == ref {
		return x.verNames[lo]
	}
	return string(x.strAt(ref))
}

func (x *Index) symbol(rec uint32, name string) Symbol {
	r := x.syms[uint64(rec)*recSize : uint64(rec+1)*recSize]
	info := r[rInfo]
	return Symbol{
		Name:    name,
		Value:   le.Uint64(r[rValue:]),
		Size:    le.Uint64(r[rSize:]),
		Offset:  le.Uint64(r[rOffset:]),
		Type:    elf.SymType(info & 15),
		Bind:    elf.SymBind(info >> 4),
		Section: elf.SectionIndex(le.Uint16(r[rShndx:])),
		Table:   Table(r[rTable]),
		Index:   le.Uint32(r[rIndex:]),
		Version: x.version(le.Uint32(r[rVersion:])),
		Hidden:  r[rFlags]&sHidden != 0,
	}
}

// Lookup returns the symbol named name (the raw, mangled name; "name@@VER"
// or "name@VER" also match a versioned .dynsym symbol), the way
// cilium/ebpf's link.Executable resolves a uprobe target: of the STT_FUNC
// symbols with that name, the last one of .symtab then .dynsym; an imported
// function (offset 0) is not found. When no STT_FUNC symbol has the name,
// the last defined symbol of another type answers (check Type before
// attaching a uprobe to it; cilium would report it missing). O(1), no
// allocation.
func (x *Index) Lookup(name string) (Symbol, bool) {
	if x.data == nil { // closed
		return Symbol{}, false
	}
	h := hashName(name)
	tag := uint32(h >> 32)
	b := uint64(uint32(h) & (x.nbuckets - 1))
	lo, hi := uint64(le.Uint32(x.buckets[b*4:])), uint64(le.Uint32(x.buckets[b*4+4:]))
	fn, other := uint32(none), uint32(none)
	for i := lo; i < hi; i++ {
		s := x.slots[i*slotSize : i*slotSize+slotSize]
		if le.Uint32(s) != tag {
			continue
		}
		key := uint64(le.Uint32(s[8:]))
		klen := uint64(le.Uint32(x.str[key:]))
		if klen != uint64(len(name)) || string(x.str[key+4:key+4+klen]) != name {
			continue
		}
		rec := le.Uint32(s[4:])
		r := x.syms[uint64(rec)*recSize:]
		if elf.SymType(r[rInfo]&15) == elf.STT_FUNC {
			fn = rec
		} else if le.Uint16(r[rShndx:]) != uint16(elf.SHN_UNDEF) {
			other = rec
		}
	}
	if fn != none {
		if le.Uint64(x.syms[uint64(fn)*recSize+rOffset:]) == 0 {
			return Symbol{}, false
		}
		return x.symbol(fn, name), true
	}
	if other != none {
		return x.symbol(other, name), true
	}
	return Symbol{}, false
}

// Symbolize returns the function (STT_FUNC or STT_GNU_IFUNC symbol in an
// executable PT_LOAD) whose [Offset, Offset+max(Size,1)) holds the file
// offset off: the innermost one; among equal starts STT_FUNC first, then
// GLOBAL, WEAK, LOCAL, then .symtab before .dynsym. off - Symbol.Offset is
// the offset inside it. O(log n); allocates the name.
func (x *Index) Symbolize(off uint64) (Symbol, bool) {
	n := len(x.addrs) / addrSize // 0 once closed
	start := func(i int) uint64 { return le.Uint64(x.addrs[i*addrSize:]) }
	lo := sort.Search(n, func(i int) bool { return start(i) > off })
	holds := func(i int) bool {
		rec := uint64(le.Uint32(x.addrs[i*addrSize+16:]))
		sz := le.Uint64(x.syms[rec*recSize+rSize:])
		if sz == 0 {
			sz = 1
		}
		return off-start(i) < sz
	}
	for j := lo - 1; j >= 0 && le.Uint64(x.addrs[j*addrSize+8:]) > off; j-- {
		if !holds(j) {
			continue
		}
		k := j
		for k > 0 && start(k-1) == start(j) {
			k--
		}
		for ; k <= j; k++ {
			if holds(k) {
				rec := le.Uint32(x.addrs[k*addrSize+16:])
				name := string(x.strAt(le.Uint32(x.syms[uint64(rec)*recSize+rName:])))
				return x.symbol(rec, name), true
			}
		}
	}
	return Symbol{}, false
}

// Close unmaps the index. It is safe to call more than once.
func (x *Index) Close() error {
	if x.data == nil {
		return nil
	}
	err := syscall.Munmap(x.data)
	*x = Index{}
	return err
}
