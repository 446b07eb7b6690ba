#!/bin/sh
# Install the Debian packages symlazy needs to build and test, when missing.
# Root only; otherwise just report what is missing.
PKGS="build-essential libiberty-dev libelf-dev libdw-dev libunwind-dev uthash-dev libcmocka-dev libzstd-dev pkg-config linux-perf elfutils bpfcc-tools python3-bpfcc bpftrace uftrace python3 binutils clang libclang-rt-14-dev musl-tools hotspot"
# perf 6.12 for tests/integration/perf612.sh (scripts/build-perf612.sh builds
# it from the source package; optional: not every archive has it)
# debootstrap (scripts/build-root.sh: Debian 13 / sid roots) and debuginfod
# (perf72.sh: a local debuginfod server) are optional like perf 6.12
PKGS_PERF612="debootstrap debuginfod linux-source-6.12 libdw-dev libslang2-dev libperl-dev python3-dev libcap-dev libnuma-dev libbabeltrace-dev systemtap-sdt-dev libtraceevent-dev flex bison xz-utils"
# Go for the pure-Go package at go/ (tests/integration/offsets.sh runs its
# tests, scripts/bench-go.sh its benchmark; optional: they skip without it)
PKGS_GO="golang-go"
# make deb (scripts/build-deb.sh: dpkg-deb, dpkg-shlibdeps, lintian; fakeroot
# when not root); optional: tests/integration/container.sh skips its package
# cases without them
PKGS_DEB="dpkg-dev lintian fakeroot"
missing="" missing612="" missinggo="" missingdeb=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
for p in $PKGS_PERF612; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing612="$missing612 $p"
done
for p in $PKGS_GO; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missinggo="$missinggo $p"
done
for p in $PKGS_DEB; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missingdeb="$missingdeb $p"
done
[ -z "$missing$missing612$missinggo$missingdeb" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	[ -n "$missing" ] && echo "symlazy: missing Debian packages:$missing (run as root to install them)" >&2
	[ -n "$missing612" ] &&
		echo "symlazy: missing for the perf 6.12 tests:$missing612 (run as root to install them)" >&2
	[ -n "$missinggo" ] &&
		echo "symlazy: missing for the Go package tests:$missinggo (run as root to install them)" >&2
	[ -n "$missingdeb" ] &&
		echo "symlazy: missing for make deb:$missingdeb (run as root to install them)" >&2
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null 2>&1 || true
rc=0
if [ -n "$missing" ]; then
	echo "symlazy: installing$missing" >&2
	apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1 || \
		apt-get install -y $missing || rc=$?
fi
if [ -n "$missing612" ]; then
	echo "symlazy: installing (perf 6.12 tests)$missing612" >&2
	apt-get install -y -qq --no-install-recommends $missing612 >/dev/null 2>&1 ||
		echo "symlazy: could not install$missing612; tests/integration/perf612.sh will skip" >&2
fi
if [ -n "$missinggo" ]; then
	echo "symlazy: installing (Go package tests)$missinggo" >&2
	apt-get install -y -qq --no-install-recommends $missinggo >/dev/null 2>&1 ||
		echo "symlazy: could not install$missinggo; the Go parts of tests/integration/offsets.sh will skip" >&2
fi
if [ -n "$missingdeb" ]; then
	echo "symlazy: installing (make deb)$missingdeb" >&2
	apt-get install -y -qq --no-install-recommends $missingdeb >/dev/null 2>&1 ||
		echo "symlazy: could not install$missingdeb; make deb and the package cases of tests/integration/container.sh will fail or skip" >&2
fi
exit $rc
