// SPDX-License-Identifier: MIT

package symlazy

import (
	"fmt"
	"os"
	"strings"
	"syscall"
)

// cacheDir is the directory core/config.c picks: $SYMLAZY_CACHE_DIR ("off":
// none), else $XDG_CACHE_HOME/symlazy, else $HOME/.cache/symlazy (absolute
// values only). "" means no cache.
func cacheDir() string {
	if v := os.Getenv("SYMLAZY_CACHE_DIR"); v != "" {
		if v == "off" {
			return ""
		}
		return v
	}
	if v := os.Getenv("XDG_CACHE_HOME"); strings.HasPrefix(v, "/") {
		return v + "/symlazy"
	}
	if v := os.Getenv("HOME"); strings.HasPrefix(v, "/") {
		return v + "/.cache/symlazy"
	}
	return ""
}

// openCacheDir is index/cache.c sl_cache_dir_open: create it (and its
// parent) 0700 if missing; it must be a real directory owned by the
// effective uid, not group- or world-writable, and writable. Returns an
// O_DIRECTORY fd or -1.
func openCacheDir(dir string) int {
	if dir == "" {
		return -1
	}
	if i := strings.LastIndexByte(dir, '/'); i > 0 {
		_ = syscall.Mkdir(dir[:i], 0700)
	}
	if err := syscall.Mkdir(dir, 0700); err != nil && err != syscall.EEXIST {
		return -1
	}
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Uid != uint32(os.Geteuid()) || st.Mode&0o022 != 0 ||
		st.Mode&0o200 == 0 {
		syscall.Close(fd)
		return -1
	}
	return fd
}

func cacheName(key uint64) string {
	return fmt.Sprintf("%016x%s", key, fileSuffix)
}

// identity is what the index records of a file: st_dev, st_ino, st_size,
// st_mtim (seconds, nanoseconds), st_ctim (seconds, nanoseconds).
func identity(st *syscall.Stat_t) [7]uint64 {
	return [7]uint64{uint64(st.Dev), uint64(st.Ino), uint64(st.Size), uint64(int64(st.Mtim.Sec)),
		uint64(int64(st.Mtim.Nsec)), uint64(int64(st.Ctim.Sec)), uint64(int64(st.Ctim.Nsec))}
}

func identityKey(id [7]uint64) uint64 {
	return cacheKey(id[0], id[1], id[2], int64(id[3]), int64(id[4]), int64(id[5]), int64(id[6]))
}

// putIdentity writes @id into the header @h: five words at @at (dev ... mtime),
// the change time at @cat.
func putIdentity(h []byte, id [7]uint64, at, cat int) {
	for i := 0; i < 5; i++ {
		le.PutUint64(h[at+8*i:], id[i])
	}
	le.PutUint64(h[cat:], id[5])
	le.PutUint64(h[cat+8:], id[6])
}

func sameIdentity(st *syscall.Stat_t, d []byte, at, cat uint64) bool {
	id := identity(st)
	for i := uint64(0); i < 5; i++ {
		if id[i] != u64(d, at+8*i) {
			return false
		}
	}
	return id[5] == u64(d, cat) && id[6] == u64(d, cat+8)
}

// mapCached maps the cache file of the ELF file with identity @st when it is
// valid and still describes that file (and the debug file it names).
func mapCached(dirfd int, st *syscall.Stat_t) []byte {
	name := cacheName(identityKey(identity(st)))
	fd, err := syscall.Openat(dirfd, name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	defer syscall.Close(fd)
	var cs syscall.Stat_t
	if syscall.Fstat(fd, &cs) != nil || cs.Mode&syscall.S_IFMT != syscall.S_IFREG ||
		cs.Uid != uint32(os.Geteuid()) || cs.Size < hdrSize || uint64(cs.Size) > uint64(^uint(0)>>1) {
		return nil
	}
	d, err := syscall.Mmap(fd, 0, int(cs.Size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil
	}
	if validate(d) != nil || !sameIdentity(st, d, hDev, hCtime) {
		syscall.Munmap(d)
		return nil
	}
	if u32(d, hFlags)&fDebug != 0 {
		str := d[u64(d, hStrOff):]
		ref := u32(d, hDbgPath)
		path := string(str[ref+4 : ref+4+le.Uint32(str[ref:])])
		var ds syscall.Stat_t
		if syscall.Stat(path, &ds) != nil || !sameIdentity(&ds, d, hDbgDev, hDbgCtime) {
			syscall.Munmap(d)
			return nil
		}
	}
	return d
}
