#!/bin/sh
# Install the Debian packages symlazy needs to build and test, when missing.
# Root only; otherwise just report what is missing.
PKGS="build-essential libiberty-dev libelf-dev libunwind-dev uthash-dev libcmocka-dev libzstd-dev pkg-config linux-perf elfutils bpfcc-tools python3-bpfcc bpftrace uftrace python3 binutils clang libclang-rt-14-dev musl-tools"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "symlazy: missing Debian packages:$missing (run as root to install them)" >&2
	exit 0
fi
echo "symlazy: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null 2>&1 || true
apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1 || \
	apt-get install -y $missing
