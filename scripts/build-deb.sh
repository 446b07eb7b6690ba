#!/bin/sh
# build-deb.sh - the Debian packages of this build into build/deb/ (`make deb`),
# made with dpkg-deb --build from the files `make` built:
#   libsymlazy_VERSION_ARCH.deb  build/libsymlazy.so as /usr/lib/MULTIARCH/
#                                libsymlazy.so (MULTIARCH: dpkg-architecture
#                                -qDEB_HOST_MULTIARCH), libsymlazy(7)
#   symlazy_VERSION_ARCH.deb     build/bin/symlazy as /usr/bin/symlazy,
#                                symlazy(1); depends on libsymlazy (= VERSION)
# each with what Debian policy asks of a binary package (policy 12.5, 12.7,
# 10.2): /usr/share/doc/PKG/copyright (machine-readable, from LICENSE),
# changelog.gz (a native package: no Debian revision) and the man pages compressed with gzip -9n, binaries
# stripped as dh_strip strips them, DEBIAN/md5sums, Depends from
# dpkg-shlibdeps, and for the library a trigger of ldconfig. Then lintian
# checks them when it is installed (scripts/install-deps.sh installs it as
# root); an error or warning fails the build.
# VERSION: `git describe --tags` without a leading "v" when the clone has a
# tag, else 0~gitYYYYMMDD.HASH of HEAD (commit date, 7-hex hash), as
# Debian's snapshot versions; SYMLAZY_DEB_VERSION replaces it.
# SYMLAZY_DEB_OUT replaces build/deb (tests/integration/container.sh).
# Prints the two .deb paths. Needs dpkg-dev (dpkg-architecture,
# dpkg-shlibdeps) and fakeroot or root.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$ROOT/build
OUT=${SYMLAZY_DEB_OUT:-$B/deb}
die() { echo "build-deb: $*" >&2; exit 1; }

for t in dpkg-deb dpkg-architecture dpkg-shlibdeps; do
	command -v "$t" >/dev/null 2>&1 || die "no $t (install dpkg-dev: sh scripts/install-deps.sh as root)"
done
[ -f "$B/libsymlazy.so" ] && [ -x "$B/bin/symlazy" ] || die "run make first"
ARCH=$(dpkg-architecture -qDEB_HOST_ARCH)
MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH)

if [ -n "${SYMLAZY_DEB_VERSION:-}" ]; then
	VERSION=$SYMLAZY_DEB_VERSION
elif v=$(git -C "$ROOT" describe --tags 2>/dev/null); then
	VERSION=${v#v}
else
	VERSION=0~git$(git -C "$ROOT" log -1 --format=%cd --date=format:%Y%m%d HEAD).$(git -C "$ROOT" rev-parse --short=7 HEAD) ||
		die "not a git clone: set SYMLAZY_DEB_VERSION"
fi
case $VERSION in [0-9]*) ;; *) die "bad version '$VERSION'" ;; esac
DATE=$(git -C "$ROOT" log -1 --format=%aD HEAD 2>/dev/null || date -R)
MAINT="symlazy authors <symlazy@users.noreply.github.com>"
HOMEPAGE="https://github.com/symlazy/symlazy"

rm -rf "$OUT"
mkdir -p "$OUT"
W=$(mktemp -d "$B/deb-work.XXXXXX")
trap 'rm -rf "$W"' EXIT

# doc PKG: copyright and changelog.gz of package PKG under $W/PKG
doc() {
	d=$W/$1/usr/share/doc/$1
	install -d -m 0755 "$d"
	{
		echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
		echo "Upstream-Name: symlazy"
		echo "Source: $HOMEPAGE"
		echo
		echo "Files: *"
		echo "Copyright: 2026 the symlazy authors"
		echo "License: Expat"
		echo
		echo "License: Expat"
		# LICENSE without its title and copyright lines, each line indented,
		# empty ones as " ."
		sed -n '/^Permission/,$p' "$ROOT/LICENSE" | sed 's/^$/./; s/^/ /'
	} >"$d/copyright"
	chmod 0644 "$d/copyright"
	{
		echo "$1 ($VERSION) unstable; urgency=medium"
		echo
		echo "  * Built from git $(git -C "$ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo '(no git)') by make deb."
		echo
		echo " -- $MAINT  $DATE"
	} | gzip -9n >"$d/changelog.gz"
	chmod 0644 "$d/changelog.gz"
}
# man PKG SRC SECTION
man() {
	install -d -m 0755 "$W/$1/usr/share/man/man$3"
	gzip -9n <"$2" >"$W/$1/usr/share/man/man$3/$(basename "$2").gz"
	chmod 0644 "$W/$1/usr/share/man/man$3/$(basename "$2").gz"
}
# shlibs FILE...: the Depends dpkg-shlibdeps computes (it wants a debian/control)
shlibs() {
	mkdir -p "$W/shl/debian"
	printf 'Source: symlazy\n\nPackage: symlazy\nArchitecture: any\n' >"$W/shl/debian/control"
	(cd "$W/shl" && dpkg-shlibdeps -O "$@" 2>/dev/null) | sed -n 's/^shlibs:Depends=//p'
}
# control PKG DEPENDS SECTION SUMMARY DESCRIPTION-BODY (lines " ...")
control() {
	install -d -m 0755 "$W/$1/DEBIAN"
	size=$(du -k -s --exclude=DEBIAN "$W/$1" | cut -f1)
	{
		echo "Package: $1"
		echo "Source: symlazy"
		echo "Version: $VERSION"
		echo "Architecture: $ARCH"
		echo "Maintainer: $MAINT"
		echo "Installed-Size: $size"
		echo "Depends: $2"
		echo "Section: $3"
		echo "Priority: optional"
		[ "$1" = libsymlazy ] && echo "Multi-Arch: same"
		echo "Homepage: $HOMEPAGE"
		echo "Description: $4"
		printf '%s\n' "$5"
	} >"$W/$1/DEBIAN/control"
	(cd "$W/$1" && find usr -type f | LC_ALL=C sort | xargs md5sum) >"$W/$1/DEBIAN/md5sums"
	chmod 0644 "$W/$1/DEBIAN/control" "$W/$1/DEBIAN/md5sums"
}
# strip as dh_strip does (shared libraries and executables)
strip_bin() { strip --remove-section=.comment --remove-section=.note "$@"; }

# libsymlazy
L=$W/libsymlazy
install -d -m 0755 "$L/usr/lib/$MA"
install -m 0644 "$B/libsymlazy.so" "$L/usr/lib/$MA/libsymlazy.so"
strip_bin --strip-unneeded "$L/usr/lib/$MA/libsymlazy.so"
doc libsymlazy
man libsymlazy "$ROOT/doc/libsymlazy.7" 7
# libsymlazy.so is a preload module (LD_PRELOAD, dlopen), never a link-time
# dependency: its SONAME carries no ABI version, and users name the file
# libsymlazy.so. Lintian's tag for that, overridden with the reason:
install -d -m 0755 "$L/usr/share/lintian/overrides"
{
	echo "# a preload module (LD_PRELOAD=/usr/lib/$MA/libsymlazy.so), never linked against"
	echo "libsymlazy: shared-library-lacks-version *usr/lib/$MA/libsymlazy.so*"
} >"$L/usr/share/lintian/overrides/libsymlazy"
chmod 0644 "$L/usr/share/lintian/overrides/libsymlazy"
dep=$(shlibs "$L/usr/lib/$MA/libsymlazy.so")
control libsymlazy "$dep" libs "preloadable library bounding symbol loading in profilers" \
" libsymlazy.so is preloaded (LD_PRELOAD) into perf, bcc tools, bpftrace and
 elfutils' libdwfl users (eu-addr2line, eu-stack). It interposes the libelf,
 libdw and libbcc calls they make to load symbol tables and bounds the memory
 and time that costs; in lazy mode the tools' output is byte-identical to a
 run without it. See libsymlazy(7)."
echo "activate-noawait ldconfig" >"$L/DEBIAN/triggers"
chmod 0644 "$L/DEBIAN/triggers"

# symlazy
S=$W/symlazy
install -d -m 0755 "$S/usr/bin"
install -m 0755 "$B/bin/symlazy" "$S/usr/bin/symlazy"
strip_bin "$S/usr/bin/symlazy"
doc symlazy
man symlazy "$ROOT/doc/symlazy.1" 1
dep=$(shlibs "$S/usr/bin/symlazy")
control symlazy "libsymlazy (= $VERSION)${dep:+, $dep}" devel \
"command for libsymlazy: run, doctor, lookup, index, stats" \
" symlazy runs a tool under libsymlazy.so and summarises the memory and symbols
 it kept (symlazy run), checks that the library, libelf and the tools on this
 machine fit together (symlazy doctor), and answers symbol lookups from the
 library's index cache. See symlazy(1)."

for p in libsymlazy symlazy; do
	f=$OUT/${p}_${VERSION}_$ARCH.deb
	if [ "$(id -u)" = 0 ]; then
		dpkg-deb --root-owner-group --build "$W/$p" "$f" >/dev/null
	else
		fakeroot dpkg-deb --build "$W/$p" "$f" >/dev/null
	fi
	echo "$f"
done
if command -v lintian >/dev/null 2>&1; then
	# errors and warnings fail; lintian's own exit status is 2 on errors
	if ! lintian --fail-on error,warning "$OUT"/*.deb >"$W/lintian.log" 2>&1; then
		grep -v "root privileges" "$W/lintian.log" >&2
		die "lintian found errors or warnings (above)"
	fi
	grep -v -e "^N:" -e "root privileges" "$W/lintian.log" >&2 || :
else
	echo "build-deb: lintian not installed: the packages were not checked" >&2
fi
