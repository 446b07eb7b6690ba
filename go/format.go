// SPDX-License-Identifier: MIT

package symlazy

// The name index file, version 2: doc/index-format.md in the symlazy tree
// describes every byte; index/names.h is the C side. All integers are
// little-endian (the header's endian field proves the writer's order).

import (
	"encoding/binary"
	"errors"
)

const (
	formatVersion = 2
	hdrSize       = 672
	recSize       = 48
	slotSize      = 12
	addrSize      = 24
	maxLoads      = 16
	none          = 0xffffffff
	endianMark    = 0x0102030405060708
	magic         = "SYMLZNM\x00"
	fileSuffix    = ".names"

	fnvOffset = 0xcbf29ce484222325
	fnvPrime  = 0x100000001b3

	// header flags
	fSymtab   = 1
	fDynsym   = 2
	fDebug    = 4
	fVersions = 8

	// record flags
	sExec   = 1
	sHidden = 2
	sVerKey = 4
)

// Header field offsets (struct symnames_hdr).
const (
	hVersion   = 8
	hHdrSize   = 12
	hEndian    = 16
	hChecksum  = 24
	hFileSize  = 32
	hKey       = 40
	hDev       = 48
	hIno       = 56
	hSize      = 64
	hMtimeSec  = 72
	hMtimeNsec = 80
	hDbgDev    = 88
	hDbgIno    = 96
	hDbgSize   = 104
	hDbgMsec   = 112
	hDbgMnsec  = 120
	hFlags     = 128
	hNsyms     = 132
	hNslots    = 136
	hNbuckets  = 140
	hNaddrs    = 144
	hNloads    = 148
	hNsymtab   = 152
	hNdynsym   = 156
	hSymsOff   = 160
	hBucketOff = 168
	hSlotsOff  = 176
	hAddrsOff  = 184
	hStrOff    = 192
	hStrSize   = 200
	hDbgPath   = 208
	hBidLen    = 212
	hBid       = 216
	hEType     = 248
	hEMachine  = 250
	hNversions = 252
	hLoads     = 256
	hCtime     = 640 // st_ctim of the ELF file (sec, nsec)
	hDbgCtime  = 656 // the debug file's
)

// Record field offsets (struct symnames_sym).
const (
	rValue   = 0
	rSize    = 8
	rOffset  = 16
	rName    = 24
	rIndex   = 28
	rVersion = 32
	rShndx   = 36
	rTable   = 38
	rInfo    = 39
	rOther   = 40
	rFlags   = 41
	rVersym  = 42
)

var le = binary.LittleEndian

var errCorrupt = errors.New("symlazy: corrupt name index")

func u32(b []byte, off uint64) uint32 { return le.Uint32(b[off:]) }
func u64(b []byte, off uint64) uint64 { return le.Uint64(b[off:]) }

func align8(x uint64) uint64 { return (x + 7) &^ 7 }

func strBytes(n uint64) uint64 { return (4 + n + 1 + 3) &^ 3 }

func fnv1a(h uint64, p []byte) uint64 {
	for _, c := range p {
		h = (h ^ uint64(c)) * fnvPrime
	}
	return h
}

func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// hashName is index/names.c symnames_hash: word-wise FNV-1a over the
// little-endian 8-byte words, the tail and the length in one last word,
// splitmix64's finaliser.
func hashName(s string) uint64 {
	h := uint64(fnvOffset)
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		h = (h ^ w) * fnvPrime
	}
	var t uint64
	for k := 0; i+k < len(s); k++ {
		t |= uint64(s[i+k]) << (8 * k)
	}
	t ^= uint64(len(s)) << 56
	return mix64((h ^ t) * fnvPrime)
}

func hashBytes(b []byte) uint64 {
	h := uint64(fnvOffset)
	i := 0
	for ; i+8 <= len(b); i += 8 {
		h = (h ^ le.Uint64(b[i:])) * fnvPrime
	}
	var t uint64
	for k := 0; i+k < len(b); k++ {
		t |= uint64(b[i+k]) << (8 * k)
	}
	t ^= uint64(len(b)) << 56
	return mix64((h ^ t) * fnvPrime)
}

// checksum is index/symindex.c symindex_checksum: four lanes of word-wise
// FNV-1a over 32-byte blocks, folded with FNV-1a, then the tail bytes.
func checksum(p []byte) uint64 {
	h0, h1, h2, h3 := uint64(0xcbf29ce484222325), uint64(0x84222325cbf29ce4),
		uint64(0x9ce484222325cbf2), uint64(0x2325cbf29ce48422)
	i := 0
	for ; i+32 <= len(p); i += 32 {
		b := p[i : i+32 : i+32]
		h0 = (h0 ^ le.Uint64(b[0:])) * fnvPrime
		h1 = (h1 ^ le.Uint64(b[8:])) * fnvPrime
		h2 = (h2 ^ le.Uint64(b[16:])) * fnvPrime
		h3 = (h3 ^ le.Uint64(b[24:])) * fnvPrime
	}
	var hb [32]byte
	le.PutUint64(hb[0:], h0)
	le.PutUint64(hb[8:], h1)
	le.PutUint64(hb[16:], h2)
	le.PutUint64(hb[24:], h3)
	r := fnv1a(fnvOffset, hb[:])
	r ^= r >> 29
	return fnv1a(r, p[i:])
}

// cacheKey is index/names.c symnames_key: FNV-1a over eight little-endian
// u64 words.
func cacheKey(dev, ino, size uint64, msec, mnsec, csec, cnsec int64) uint64 {
	var b [64]byte
	le.PutUint64(b[0:], formatVersion)
	le.PutUint64(b[8:], dev)
	le.PutUint64(b[16:], ino)
	le.PutUint64(b[24:], size)
	le.PutUint64(b[32:], uint64(msec))
	le.PutUint64(b[40:], uint64(mnsec))
	le.PutUint64(b[48:], uint64(csec))
	le.PutUint64(b[56:], uint64(cnsec))
	return fnv1a(fnvOffset, b[:])
}

// refOK: a string ref inside the area: 4-aligned, length, bytes and NUL in bounds.
func refOK(str []byte, ref uint32) bool {
	n := uint64(len(str))
	r := uint64(ref)
	if r%4 != 0 || r+4 > n {
		return false
	}
	l := uint64(le.Uint32(str[r:]))
	return r+4+l+1 <= n && str[r+4+l] == 0
}

func nextRef(str []byte, ref uint32) uint32 {
	return ref + uint32((4+uint64(le.Uint32(str[ref:]))+1+3)&^3)
}

// validate is index/names.c symnames_validate: 0 when every part is in
// bounds, the checksum matches and every index and string ref is valid.
func validate(d []byte) error {
	n := uint64(len(d))
	if n < hdrSize || string(d[:8]) != magic || u32(d, hVersion) != formatVersion ||
		u32(d, hHdrSize) != hdrSize || u64(d, hEndian) != endianMark || u64(d, hFileSize) != n {
		return errCorrupt
	}
	nsyms, nslots, nb := uint64(u32(d, hNsyms)), uint64(u32(d, hNslots)), uint64(u32(d, hNbuckets))
	naddrs := uint64(u32(d, hNaddrs))
	flags := u32(d, hFlags)
	if nb == 0 || nb&(nb-1) != 0 || u32(d, hNloads) > maxLoads || u32(d, hBidLen) > 32 || flags > 15 ||
		naddrs > nsyms {
		return errCorrupt
	}
	off := uint64(hdrSize)
	if u64(d, hSymsOff) != off {
		return errCorrupt
	}
	off = align8(off + nsyms*recSize)
	if u64(d, hBucketOff) != off {
		return errCorrupt
	}
	off = align8(off + (nb+1)*4)
	if u64(d, hSlotsOff) != off {
		return errCorrupt
	}
	off = align8(off + nslots*slotSize)
	if u64(d, hAddrsOff) != off {
		return errCorrupt
	}
	off += naddrs * addrSize
	strSize := u64(d, hStrSize)
	if u64(d, hStrOff) != off || strSize > 0xffffffff || off+strSize != n {
		return errCorrupt
	}
	if checksum(d[32:]) != u64(d, hChecksum) {
		return errCorrupt
	}
	syms := d[hdrSize : hdrSize+nsyms*recSize]
	bk := d[u64(d, hBucketOff) : u64(d, hBucketOff)+(nb+1)*4]
	slots := d[u64(d, hSlotsOff) : u64(d, hSlotsOff)+nslots*slotSize]
	addrs := d[u64(d, hAddrsOff) : u64(d, hAddrsOff)+naddrs*addrSize]
	str := d[off:]
	dbg := u32(d, hDbgPath)
	if flags&fDebug != 0 {
		if !refOK(str, dbg) {
			return errCorrupt
		}
	} else if dbg != none {
		return errCorrupt
	}
	ref := uint32(0)
	if dbg != none {
		ref = nextRef(str, dbg)
	}
	for i := uint32(0); i < u32(d, hNversions); i++ {
		if !refOK(str, ref) {
			return errCorrupt
		}
		ref = nextRef(str, ref)
	}
	nsymtab, ndynsym := u32(d, hNsymtab), u32(d, hNdynsym)
	for i := uint64(0); i < nsyms; i++ {
		r := syms[i*recSize : (i+1)*recSize]
		tab, idx, ver := r[rTable], le.Uint32(r[rIndex:]), le.Uint32(r[rVersion:])
		lim := nsymtab
		if tab == 1 {
			lim = ndynsym
		}
		if !refOK(str, le.Uint32(r[rName:])) || tab > 1 || idx >= lim || r[rFlags] > 7 ||
			(ver != none && !refOK(str, ver)) {
			return errCorrupt
		}
	}
	if le.Uint32(bk) != 0 || uint64(le.Uint32(bk[nb*4:])) != nslots {
		return errCorrupt
	}
	for i := uint64(0); i < nb; i++ {
		if le.Uint32(bk[i*4:]) > le.Uint32(bk[i*4+4:]) {
			return errCorrupt
		}
	}
	for i := uint64(0); i < nslots; i++ {
		s := slots[i*slotSize:]
		if uint64(le.Uint32(s[4:])) >= nsyms || !refOK(str, le.Uint32(s[8:])) {
			return errCorrupt
		}
	}
	var pmax, prev uint64
	for i := uint64(0); i < naddrs; i++ {
		a := addrs[i*addrSize:]
		start, rec := le.Uint64(a), uint64(le.Uint32(a[16:]))
		if rec >= nsyms || start != le.Uint64(syms[rec*recSize+rOffset:]) || (i > 0 && start < prev) {
			return errCorrupt
		}
		sz := le.Uint64(syms[rec*recSize+rSize:])
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
		if le.Uint64(a[8:]) != pmax {
			return errCorrupt
		}
		prev = start
	}
	return nil
}
