// SPDX-License-Identifier: MIT

package symlazy

// The index build, byte for byte what index/names_build.c writes: the ELF
// file is mapped and read in place, the index is written into a file mapping
// (or anonymous memory), so no Go heap grows with the symbol count.
// Format facts: the ELF-64 object file format and gABI (headers, sections,
// symbols, notes, the e_shnum / e_shstrndx escapes in section 0); GNU symbol
// versioning (.gnu.version, .gnu.version_d, .gnu.version_r); GNU build-id and
// .gnu_debuglink (its CRC-32 is IEEE 802.3, hash/crc32's); libbcc's debug
// file search (src/cc/bcc_elf.c); cilium/ebpf's uprobe offset
// (link/uprobe.go).

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"runtime/debug"
	"sort"
	"sync/atomic"
	"syscall"
)

const (
	debugRoot    = "/usr/lib/debug"
	maxVersions  = 0x8000
	ehSize       = 64
	phSize       = 56
	shSize       = 64
	symSize      = 24
	ntGNUBuildID = 3               // NT_GNU_BUILD_ID
	sttGNUIFunc  = elf.SymType(10) // STT_GNU_IFUNC (not named by debug/elf)
)

var (
	errNotELF    = errors.New("not an ELF file")
	errClass     = errors.New("not a 64-bit little-endian ELF file")
	errType      = errors.New("not an executable or shared object")
	errPhdrs     = errors.New("program headers outside the file")
	errTable     = errors.New("symbol table outside the file or of a bad size")
	errTooBig    = errors.New("more than 2^32 symbols or string bytes")
	errManyLoads = fmt.Errorf("more than %d executable PT_LOADs", maxLoads)
)

type img struct {
	p                []byte
	etype, emachine  uint16
	phoff, shoff     uint64
	phentsize, phnum uint64
	shentsize        uint64
	shnum, shstrndx  uint64
}

type shdr struct {
	name, typ    uint32
	offset, size uint64
	link, info   uint32
}

type tab struct {
	syms []byte
	n    uint32
	str  []byte
}

func inFile(m *img, off, n uint64) bool {
	return off <= uint64(len(m.p)) && n <= uint64(len(m.p))-off
}

func (m *img) sh(i uint64) (shdr, bool) {
	off := m.shoff + i*m.shentsize
	if i >= m.shnum || !inFile(m, off, shSize) {
		return shdr{}, false
	}
	b := m.p[off : off+shSize]
	return shdr{le.Uint32(b), le.Uint32(b[4:]), le.Uint64(b[24:]), le.Uint64(b[32:]),
		le.Uint32(b[40:]), le.Uint32(b[44:])}, true
}

func mapFile(fd int, size int64) ([]byte, error) {
	if size <= 0 || uint64(size) > uint64(^uint(0)>>1) {
		return nil, errNotELF
	}
	return syscall.Mmap(fd, 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE)
}

// openImg reads the headers of a mapped ELF file with the checks of util/elfimg.c
// sl_elfimg_open (what index/names_build.c reads through): EI_VERSION EV_CURRENT,
// e_shentsize exactly 64, the gABI e_shnum 0 / SHN_XINDEX escapes in section 0.
func openImg(p []byte) (*img, error) {
	if len(p) < 16 || string(p[:4]) != "\x7fELF" {
		return nil, errNotELF
	}
	if p[4] != 2 || p[5] != 1 {
		return nil, errClass
	}
	if p[6] != 1 || len(p) < ehSize {
		return nil, errNotELF
	}
	m := &img{p: p, etype: le.Uint16(p[16:]), emachine: le.Uint16(p[18:]), phoff: le.Uint64(p[32:]),
		shoff: le.Uint64(p[40:]), phentsize: uint64(le.Uint16(p[54:])), phnum: uint64(le.Uint16(p[56:])),
		shentsize: uint64(le.Uint16(p[58:])), shnum: uint64(le.Uint16(p[60:])),
		shstrndx: uint64(le.Uint16(p[62:]))}
	if m.shoff == 0 {
		m.shnum = 0
		return m, nil
	}
	if m.shentsize != shSize {
		return nil, errNotELF
	}
	eshnum := m.shnum
	if m.shnum == 0 {
		m.shnum = 1
	}
	s0, ok := m.sh(0)
	if !ok {
		return nil, errNotELF
	}
	if eshnum == 0 {
		m.shnum = le.Uint64(p[m.shoff+32:])
	}
	if m.shstrndx == uint64(elf.SHN_XINDEX) {
		m.shstrndx = uint64(s0.link)
	}
	if m.shnum > uint64(len(p))/shSize || !inFile(m, m.shoff, m.shnum*m.shentsize) {
		return nil, errNotELF
	}
	return m, nil
}

func (m *img) data(s shdr) []byte {
	if s.typ == uint32(elf.SHT_NOBITS) || !inFile(m, s.offset, s.size) {
		return nil
	}
	return m.p[s.offset : s.offset+s.size]
}

func cstr(b []byte, off uint64) ([]byte, bool) {
	if off >= uint64(len(b)) {
		return nil, false
	}
	for i := off; i < uint64(len(b)); i++ {
		if b[i] == 0 {
			return b[off:i], true
		}
	}
	return nil, false
}

func (m *img) secName(s shdr) ([]byte, bool) {
	ss, ok := m.sh(m.shstrndx)
	if !ok {
		return nil, false
	}
	d := m.data(ss)
	if d == nil {
		return nil, false
	}
	return cstr(d, uint64(s.name))
}

func (m *img) findType(t elf.SectionType) (shdr, bool) {
	for i := uint64(1); i < m.shnum; i++ {
		if s, ok := m.sh(i); ok && s.typ == uint32(t) {
			return s, true
		}
	}
	return shdr{}, false
}

func (m *img) findName(want string) (shdr, bool) {
	for i := uint64(1); i < m.shnum; i++ {
		if s, ok := m.sh(i); ok {
			if n, ok := m.secName(s); ok && string(n) == want {
				return s, true
			}
		}
	}
	return shdr{}, false
}

// readTable: 1 found, 0 none, errTable corrupt.
func (m *img) readTable(t elf.SectionType) (tab, int, error) {
	s, ok := m.findType(t)
	if !ok {
		return tab{}, 0, nil
	}
	d := m.data(s)
	if d == nil || s.size%symSize != 0 || s.size/symSize >= none {
		return tab{}, 0, errTable
	}
	tb := tab{syms: d, n: uint32(s.size / symSize)}
	if ss, ok := m.sh(uint64(s.link)); ok {
		tb.str = m.data(ss)
	}
	return tb, 1, nil
}

func (m *img) buildID() []byte {
	for i := uint64(1); i < m.shnum; i++ {
		s, ok := m.sh(i)
		if !ok || s.typ != uint32(elf.SHT_NOTE) {
			continue
		}
		d := m.data(s)
		if d == nil {
			continue
		}
		for o := uint64(0); o+12 <= s.size; {
			namesz, descsz, typ := uint64(le.Uint32(d[o:])), uint64(le.Uint32(d[o+4:])), le.Uint32(d[o+8:])
			name := o + 12
			desc := name + (namesz+3)&^3
			next := desc + (descsz+3)&^3
			if next > s.size || desc+descsz > s.size {
				break
			}
			if typ == ntGNUBuildID && namesz == 4 && string(d[name:name+4]) == "GNU\x00" &&
				descsz != 0 && descsz <= 32 {
				return d[desc : desc+descsz]
			}
			o = next
		}
	}
	return nil
}

type load struct{ vaddr, memsz, offset uint64 }

type builder struct {
	bin, dbg *img
	dbgMap   []byte
	dbgPath  string
	dbgStat  syscall.Stat_t
	tabs     [2]tab
	versym   []byte
	nversym  uint32
	vers     [][]byte // version index -> name (nil: none)
	verDef   []bool   // named by .gnu.version_d
	verNeed  []bool   // named by .gnu.version_r
	verRef   []uint32
	out      *output // the index being written (removed if the build faults)
	bid      []byte
	loads    []load
	flags    uint32
}

func (b *builder) walkVersions(count bool) {
	m := b.bin
	max := uint32(0)
	note := func(ndx uint32, str []byte, name uint32, def bool) {
		if count {
			if ndx+1 > max {
				max = ndx + 1
			}
			return
		}
		if ndx < 2 || ndx >= uint32(len(b.vers)) {
			return
		}
		s, ok := cstr(str, uint64(name))
		if !ok {
			return
		}
		if b.vers[ndx] == nil {
			b.vers[ndx] = s
		}
		if def {
			b.verDef[ndx] = true
		} else {
			b.verNeed[ndx] = true
		}
	}
	if s, ok := m.findType(elf.SHT_GNU_VERDEF); ok {
		d := m.data(s)
		ss, ok2 := m.sh(uint64(s.link))
		var str []byte
		if ok2 {
			str = m.data(ss)
		}
		if d != nil && str != nil {
			for o, k := uint64(0), uint32(0); k < s.info && k < 65536 && o+20 <= s.size; k++ {
				ndx, cnt := uint32(le.Uint16(d[o+4:])), le.Uint16(d[o+6:])
				aux, next := uint64(le.Uint32(d[o+12:])), le.Uint32(d[o+16:])
				if cnt != 0 && o+aux+8 <= s.size {
					note(ndx, str, le.Uint32(d[o+aux:]), true)
				}
				if next == 0 {
					break
				}
				o += uint64(next)
			}
		}
	}
	if s, ok := m.findType(elf.SHT_GNU_VERNEED); ok {
		d := m.data(s)
		ss, ok2 := m.sh(uint64(s.link))
		var str []byte
		if ok2 {
			str = m.data(ss)
		}
		if d != nil && str != nil {
			naux := 0 // Vernaux entries in all: the walk stays linear
			for o, k := uint64(0), uint32(0); k < s.info && k < 65536 && o+16 <= s.size; k++ {
				cnt, aux, next := uint32(le.Uint16(d[o+2:])), uint64(le.Uint32(d[o+8:])), le.Uint32(d[o+12:])
				for a, j := o+aux, uint32(0); j < cnt && naux < 65536 && a+16 <= s.size; j, naux = j+1, naux+1 {
					ndx := uint32(le.Uint16(d[a+6:])) & 0x7fff
					note(ndx, str, le.Uint32(d[a+8:]), false)
					vn := le.Uint32(d[a+12:])
					if vn == 0 {
						break
					}
					a += uint64(vn)
				}
				if next == 0 {
					break
				}
				o += uint64(next)
			}
		}
	}
	if count {
		if max > maxVersions {
			max = maxVersions
		}
		b.vers = make([][]byte, max)
		b.verDef = make([]bool, max)
		b.verNeed = make([]bool, max)
	}
}

func (b *builder) readVersions() {
	if b.tabs[1].syms == nil {
		return
	}
	s, ok := b.bin.findType(elf.SHT_GNU_VERSYM)
	if !ok {
		return
	}
	if b.versym = b.bin.data(s); b.versym == nil {
		return
	}
	b.nversym = b.tabs[1].n
	if s.size/2 < uint64(b.nversym) {
		b.nversym = uint32(s.size / 2)
	}
	b.flags |= fVersions
	b.walkVersions(true)
	if len(b.vers) == 0 {
		b.vers = nil
		return
	}
	b.walkVersions(false)
	b.verRef = make([]uint32, len(b.vers))
}

// tryDebug: names_build.c try_debug.
func (b *builder) tryDebug(cand string, wantBid []byte, checkCRC bool, crc uint32) bool {
	fd, err := syscall.Open(cand, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return false
	}
	p, err := mapFile(fd, st.Size)
	if err != nil {
		return false
	}
	m, err := openImg(p)
	ok := err == nil
	if ok && wantBid != nil {
		bid := m.buildID()
		ok = string(bid) == string(wantBid)
	}
	if ok && checkCRC {
		ok = crc32.ChecksumIEEE(p) == crc
	}
	var t tab
	if ok {
		var found int
		t, found, err = m.readTable(elf.SHT_SYMTAB)
		ok = err == nil && found == 1
	}
	if !ok {
		syscall.Munmap(p)
		return false
	}
	b.dbg, b.dbgMap, b.dbgStat, b.tabs[0] = m, p, st, t
	b.dbgPath = cand
	if len(b.dbgPath) > 4095 {
		b.dbgPath = b.dbgPath[:4095]
	}
	b.flags |= fDebug
	return true
}

// dirOf: dirname(3) as libbcc calls it.
func dirOf(path string) string {
	n := len(path)
	for n > 1 && path[n-1] == '/' {
		n--
	}
	for n > 0 && path[n-1] != '/' {
		n--
	}
	if n == 0 {
		return "."
	}
	for n > 1 && path[n-1] == '/' {
		n--
	}
	return path[:n]
}

func (b *builder) findDebug(path string, bst *syscall.Stat_t) {
	if len(b.bid) >= 2 {
		hex := fmt.Sprintf("%x", b.bid)
		if b.tryDebug(debugRoot+"/.build-id/"+hex[:2]+"/"+hex[2:]+".debug", b.bid, false, 0) {
			return
		}
	}
	s, ok := b.bin.findName(".gnu_debuglink")
	if !ok {
		return
	}
	d := b.bin.data(s)
	if d == nil || s.size <= 5 {
		return
	}
	link, ok := cstr(d[:s.size-4], 0)
	if !ok || len(link) == 0 || len(link) > 1024 {
		return
	}
	crc := le.Uint32(d[s.size-4:])
	dir := dirOf(path)
	cand := dir + "/" + string(link)
	var st syscall.Stat_t
	same := syscall.Stat(cand, &st) == nil && st.Dev == bst.Dev && st.Ino == bst.Ino
	if !same && b.tryDebug(cand, nil, true, crc) {
		return
	}
	if b.tryDebug(dir+"/.debug/"+string(link), nil, true, crc) {
		return
	}
	b.tryDebug(debugRoot+dir+"/"+string(link), nil, true, crc)
}

type symv struct {
	name          []byte
	ver           []byte
	sep           int // "@" count of the versioned key
	verIdx        uint32
	info, other   uint8
	shndx, versym uint16
	value, size   uint64
	offset        uint64
	hidden, exec  bool
}

// symbol: names_build.c symbol().
func (b *builder) symbol(t int, i uint32, v *symv) bool {
	tb := &b.tabs[t]
	s := tb.syms[uint64(i)*symSize : uint64(i+1)*symSize]
	v.info, v.other, v.shndx = s[4], s[5], le.Uint16(s[6:])
	v.value, v.size = le.Uint64(s[8:]), le.Uint64(s[16:])
	typ := elf.SymType(v.info & 15)
	if typ == elf.STT_SECTION || typ == elf.STT_FILE {
		return false
	}
	name, ok := cstr(tb.str, uint64(le.Uint32(s)))
	if !ok || len(name) == 0 {
		return false
	}
	v.name, v.ver, v.sep, v.versym, v.hidden, v.verIdx = name, nil, 0, 0, false, 0
	if t == 1 && i < b.nversym {
		vs := le.Uint16(b.versym[2*uint64(i):])
		v.versym = vs
		v.hidden = vs&0x8000 != 0
		ndx := uint32(vs & 0x7fff)
		v.verIdx = ndx
		// readelf's rendering, GNU ld's .symtab name (names_build.c symbol())
		if ndx >= 2 && ndx < uint32(len(b.vers)) && b.vers[ndx] != nil && bytes.IndexByte(name, '@') < 0 {
			if v.shndx != uint16(elf.SHN_UNDEF) && b.verDef[ndx] {
				v.ver, v.sep = b.vers[ndx], 2
				if v.hidden {
					v.sep = 1
				}
			} else if b.verNeed[ndx] {
				v.ver, v.sep = b.vers[ndx], 1
			}
		}
	}
	v.exec, v.offset = false, v.value
	for _, l := range b.loads {
		if l.vaddr <= v.value && v.value-l.vaddr < l.memsz {
			v.offset, v.exec = v.value-l.vaddr+l.offset, true
			break
		}
	}
	return true
}

var tmpSeq uint64

// output: where the index is written.
type output struct {
	d     []byte
	fd    int
	dirfd int
	tmp   string
	anon  bool // anonymous memory: never MADV_DONTNEED (that would zero it)
}

func newOutput(dirfd int, size uint64) (*output, error) {
	if size > uint64(^uint(0)>>1) {
		return nil, errTooBig
	}
	o := &output{fd: -1, dirfd: dirfd}
	if dirfd >= 0 {
		o.tmp = fmt.Sprintf(".tmp-%d-%d%s", os.Getpid(), atomic.AddUint64(&tmpSeq, 1)-1, fileSuffix)
		fd, err := syscall.Openat(dirfd, o.tmp, syscall.O_RDWR|syscall.O_CREAT|syscall.O_EXCL|
			syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0600)
		if err == nil {
			if syscall.Fallocate(fd, 0, 0, int64(size)) == nil {
				if d, err := syscall.Mmap(fd, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE,
					syscall.MAP_SHARED); err == nil {
					o.d, o.fd = d, fd
					return o, nil
				}
			}
			syscall.Close(fd)
			syscall.Unlinkat(dirfd, o.tmp)
		}
		o.tmp = ""
	}
	d, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, err
	}
	o.d, o.anon = d, true
	return o, nil
}

func (o *output) fail() {
	syscall.Munmap(o.d)
	if o.fd >= 0 {
		syscall.Close(o.fd)
		syscall.Unlinkat(o.dirfd, o.tmp)
	}
}

func (o *output) commit(key uint64) {
	_ = syscall.Mprotect(o.d, syscall.PROT_READ)
	if o.fd >= 0 {
		if syscall.Renameat(o.dirfd, o.tmp, o.dirfd, cacheName(key)) != nil {
			syscall.Unlinkat(o.dirfd, o.tmp)
		}
		syscall.Close(o.fd)
	}
}

func putStr(area []byte, at *uint64, parts ...[]byte) uint32 {
	ref := *at
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	le.PutUint32(area[ref:], uint32(n))
	w := ref + 4
	for _, p := range parts {
		w += uint64(copy(area[w:], p))
	}
	end := ref + strBytes(uint64(n))
	for ; w < end; w++ {
		area[w] = 0
	}
	*at = end
	return uint32(ref)
}

var bindRank = [16]uint32{2, 0, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}

// addrSort orders address entries by (start, rank, record) as qsort with
// names_build.c addr_cmp does: a total order, so any sort gives these bytes.
type addrSort []byte

func (a addrSort) Len() int { return len(a) / addrSize }
func (a addrSort) Less(i, j int) bool {
	x, y := a[i*addrSize:], a[j*addrSize:]
	if sx, sy := le.Uint64(x), le.Uint64(y); sx != sy {
		return sx < sy
	}
	if px, py := le.Uint32(x[20:]), le.Uint32(y[20:]); px != py {
		return px < py
	}
	return le.Uint32(x[16:]) < le.Uint32(y[16:])
}
func (a addrSort) Swap(i, j int) {
	var t [addrSize]byte
	x, y := a[i*addrSize:(i+1)*addrSize], a[j*addrSize:(j+1)*addrSize]
	copy(t[:], x)
	copy(x, y)
	copy(y, t[:])
}

func (b *builder) write(st *syscall.Stat_t, dirfd int) (*output, error) {
	var nsyms, nslots, naddrs, strs uint64
	var v symv
	if b.flags&fDebug != 0 {
		strs += strBytes(uint64(len(b.dbgPath)))
	}
	for vi := 2; vi < len(b.vers); vi++ {
		if b.vers[vi] != nil {
			strs += strBytes(uint64(len(b.vers[vi])))
		}
	}
	for t := 0; t < 2; t++ {
		for i := uint32(1); i < b.tabs[t].n; i++ {
			if !b.symbol(t, i, &v) {
				continue
			}
			nsyms++
			nslots++
			strs += strBytes(uint64(len(v.name)))
			if v.ver != nil {
				nslots++
				strs += strBytes(uint64(len(v.name)) + uint64(v.sep) + uint64(len(v.ver)))
			}
			typ := elf.SymType(v.info & 15)
			if v.exec && v.shndx != uint16(elf.SHN_UNDEF) && (typ == elf.STT_FUNC || typ == sttGNUIFunc) {
				naddrs++
			}
		}
	}
	if nsyms >= none || nslots >= none || strs > 0xffffffff-8 {
		return nil, errTooBig
	}
	nb := uint64(1)
	for nb < nslots {
		nb <<= 1
	}
	symsOff := uint64(hdrSize)
	bOff := align8(symsOff + nsyms*recSize)
	sOff := align8(bOff + (nb+1)*4)
	aOff := align8(sOff + nslots*slotSize)
	strOff := aOff + naddrs*addrSize
	size := strOff + strs
	o, err := newOutput(dirfd, size)
	if err != nil {
		return nil, err
	}
	b.out = o
	d := o.d
	h := d[:hdrSize]
	for i := range h {
		h[i] = 0
	}
	copy(h, magic)
	le.PutUint32(h[hVersion:], formatVersion)
	le.PutUint32(h[hHdrSize:], hdrSize)
	le.PutUint64(h[hEndian:], endianMark)
	le.PutUint64(h[hFileSize:], size)
	id := identity(st)
	putIdentity(h, id, hDev, hCtime)
	key := identityKey(id)
	le.PutUint64(h[hKey:], key)
	if b.flags&fDebug != 0 {
		putIdentity(h, identity(&b.dbgStat), hDbgDev, hDbgCtime)
	}
	le.PutUint32(h[hFlags:], b.flags)
	le.PutUint32(h[hNsyms:], uint32(nsyms))
	le.PutUint32(h[hNslots:], uint32(nslots))
	le.PutUint32(h[hNbuckets:], uint32(nb))
	le.PutUint32(h[hNaddrs:], uint32(naddrs))
	le.PutUint32(h[hNloads:], uint32(len(b.loads)))
	le.PutUint32(h[hNsymtab:], b.tabs[0].n)
	le.PutUint32(h[hNdynsym:], b.tabs[1].n)
	le.PutUint64(h[hSymsOff:], symsOff)
	le.PutUint64(h[hBucketOff:], bOff)
	le.PutUint64(h[hSlotsOff:], sOff)
	le.PutUint64(h[hAddrsOff:], aOff)
	le.PutUint64(h[hStrOff:], strOff)
	le.PutUint64(h[hStrSize:], strs)
	le.PutUint32(h[hBidLen:], uint32(len(b.bid)))
	copy(h[hBid:], b.bid)
	le.PutUint16(h[hEType:], b.bin.etype)
	le.PutUint16(h[hEMachine:], b.bin.emachine)
	for i, l := range b.loads {
		le.PutUint64(h[hLoads+24*i:], l.vaddr)
		le.PutUint64(h[hLoads+24*i+8:], l.memsz)
		le.PutUint64(h[hLoads+24*i+16:], l.offset)
	}
	syms := d[symsOff:bOff]
	bk := d[bOff:sOff]
	slots := d[sOff:aOff]
	addrs := d[aOff:strOff]
	area := d[strOff:]
	// the file is new (zeros), anonymous memory too: padding stays 0

	var at uint64
	le.PutUint32(h[hDbgPath:], none)
	if b.flags&fDebug != 0 {
		le.PutUint32(h[hDbgPath:], putStr(area, &at, []byte(b.dbgPath)))
	}
	nvers := uint32(0)
	for vi := 2; vi < len(b.vers); vi++ {
		if b.vers[vi] != nil {
			b.verRef[vi] = putStr(area, &at, b.vers[vi])
			nvers++
		}
	}
	le.PutUint32(h[hNversions:], nvers)
	mask := nb - 1
	r := uint64(0)
	at2 := []byte("@@")
	for t := 0; t < 2; t++ {
		for i := uint32(1); i < b.tabs[t].n; i++ {
			if !b.symbol(t, i, &v) {
				continue
			}
			rec := syms[r*recSize : (r+1)*recSize]
			le.PutUint64(rec[rValue:], v.value)
			le.PutUint64(rec[rSize:], v.size)
			le.PutUint64(rec[rOffset:], v.offset)
			le.PutUint32(rec[rIndex:], i)
			le.PutUint16(rec[rShndx:], v.shndx)
			rec[rTable] = uint8(t)
			rec[rInfo] = v.info
			rec[rOther] = v.other
			le.PutUint16(rec[rVersym:], v.versym)
			var fl uint8
			if v.exec {
				fl |= sExec
			}
			if v.hidden {
				fl |= sHidden
			}
			if v.ver != nil {
				fl |= sVerKey
			}
			rec[rFlags] = fl
			verRef := uint32(none)
			if t == 1 && v.verIdx >= 2 && v.verIdx < uint32(len(b.vers)) && b.vers[v.verIdx] != nil {
				verRef = b.verRef[v.verIdx]
			}
			le.PutUint32(rec[rVersion:], verRef)
			le.PutUint32(rec[rName:], putStr(area, &at, v.name))
			hb := bk[((hashBytes(v.name)&mask)+1)*4:]
			le.PutUint32(hb, le.Uint32(hb)+1)
			if v.ver != nil {
				kref := putStr(area, &at, v.name, at2[:v.sep], v.ver)
				kl := uint64(le.Uint32(area[kref:]))
				hb := bk[((hashBytes(area[uint64(kref)+4:uint64(kref)+4+kl])&mask)+1)*4:]
				le.PutUint32(hb, le.Uint32(hb)+1)
			}
			r++
		}
	}
	for i := uint64(0); i < nb; i++ {
		le.PutUint32(bk[(i+1)*4:], le.Uint32(bk[(i+1)*4:])+le.Uint32(bk[i*4:]))
	}
	na := uint64(0)
	for r = 0; r < nsyms; r++ {
		rec := syms[r*recSize : (r+1)*recSize]
		ref := le.Uint32(rec[rName:])
		n := 1
		if rec[rFlags]&sVerKey != 0 {
			n = 2
		}
		for k := 0; k < n; k++ {
			l := uint64(le.Uint32(area[ref:]))
			hh := hashBytes(area[uint64(ref)+4 : uint64(ref)+4+l])
			bp := bk[(hh&mask)*4:]
			pos := uint64(le.Uint32(bp))
			le.PutUint32(bp, uint32(pos+1))
			s := slots[pos*slotSize:]
			le.PutUint32(s, uint32(hh>>32))
			le.PutUint32(s[4:], uint32(r))
			le.PutUint32(s[8:], ref)
			ref += uint32(strBytes(l))
		}
		typ := elf.SymType(rec[rInfo] & 15)
		if rec[rFlags]&sExec != 0 && le.Uint16(rec[rShndx:]) != uint16(elf.SHN_UNDEF) &&
			(typ == elf.STT_FUNC || typ == sttGNUIFunc) {
			a := addrs[na*addrSize:]
			le.PutUint64(a, le.Uint64(rec[rOffset:]))
			le.PutUint32(a[16:], uint32(r))
			rank := bindRank[rec[rInfo]>>4]
			if typ != elf.STT_FUNC {
				rank |= 1 << 8
			}
			le.PutUint32(a[20:], rank)
			na++
		}
	}
	for i := nb; i > 0; i-- {
		le.PutUint32(bk[i*4:], le.Uint32(bk[(i-1)*4:]))
	}
	le.PutUint32(bk, 0)
	sort.Sort(addrSort(addrs))
	var pmax uint64
	for i := uint64(0); i < naddrs; i++ {
		a := addrs[i*addrSize:]
		start := le.Uint64(a)
		sz := le.Uint64(syms[uint64(le.Uint32(a[16:]))*recSize+rSize:])
		if sz == 0 {
			sz = 1
		}
		end := start + sz
		if end < start {
			end = ^uint64(0)
		}
		if end > pmax {
			pmax = end
		}
		le.PutUint64(a[8:], pmax)
		le.PutUint32(a[20:], 0)
	}
	le.PutUint64(h[hChecksum:], checksum(d[32:]))
	o.commit(key)
	return o, nil
}

// build is names_build.c symnames_build. A file cut short while it is
// mapped (a binary overwritten in place) faults on read: with
// SetPanicOnFault that is an error for this Open, not a crash of the agent.
func build(path string, fd int, st *syscall.Stat_t, dirfd int) (out *output, err error) {
	p, err := mapFile(fd, st.Size)
	if err != nil {
		return nil, errNotELF
	}
	defer syscall.Munmap(p)
	b := &builder{}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if b.out != nil && (out == nil || err != nil) {
				b.out.fail()
			}
			out, err = nil, fmt.Errorf("the file changed while it was read (%v)", r)
		}
	}()
	m, err := openImg(p)
	if err != nil {
		return nil, err
	}
	b.bin = m
	if m.etype != uint16(elf.ET_EXEC) && m.etype != uint16(elf.ET_DYN) {
		return nil, errType
	}
	// util/elfimg.c sl_elfimg_phdrs: e_phentsize exactly 56, e_phoff non-zero
	if m.phnum != 0 && (m.phentsize != phSize || m.phoff == 0 || !inFile(m, m.phoff, m.phnum*m.phentsize)) {
		return nil, errPhdrs
	}
	defer func() {
		if b.dbgMap != nil {
			syscall.Munmap(b.dbgMap)
		}
	}()
	for i := uint64(0); i < m.phnum; i++ {
		ph := p[m.phoff+i*m.phentsize:]
		if elf.ProgType(le.Uint32(ph)) != elf.PT_LOAD || elf.ProgFlag(le.Uint32(ph[4:]))&elf.PF_X == 0 {
			continue
		}
		if len(b.loads) == maxLoads {
			return nil, errManyLoads
		}
		b.loads = append(b.loads, load{le.Uint64(ph[16:]), le.Uint64(ph[40:]), le.Uint64(ph[8:])})
	}
	b.bid = m.buildID()
	var found int
	b.tabs[0], found, err = m.readTable(elf.SHT_SYMTAB)
	if err == nil && found == 0 {
		b.findDebug(path, st)
	}
	if err == nil {
		b.tabs[1], _, err = m.readTable(elf.SHT_DYNSYM)
	}
	if err != nil {
		return nil, err
	}
	if b.tabs[0].syms != nil {
		b.flags |= fSymtab
	}
	if b.tabs[1].syms != nil {
		b.flags |= fDynsym
	}
	b.readVersions()
	return b.write(st, dirfd)
}
