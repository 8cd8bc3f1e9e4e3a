#!/bin/sh
# Stage 2 of the appliance image, in a throw-away copy of the base: what the VM needs from
# outside, fetched and built while the host has the package mirror.
#   build-extras.sh BASE.tar OUT_DIR "APT PACKAGES"
# OUT_DIR gets: gpio-sim.ko (built for the base's kernel), and debs/, a local apt repository
# holding the packages install.sh installs, with everything they need that the base lacks.
# python3-lgpio is not in Debian: a stand-in built here from PyPI's lgpio source plays the part
# of Raspberry Pi OS's package (same name, same place: /usr/lib/python3/dist-packages).
set -eu
base="$1"
out="$2"
packages="$3"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d "${out%/*}/.extras-XXXXXX")"
trap 'rm -rf "$work"' EXIT
root="$work/root"
mkdir -p "$root" "$work/out/debs"
tar -C "$root" -xf "$base"
in_root() { chroot "$root" env DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"; }
log="$work/extras.log"
fail() { tail -30 "$log" >&2; echo "build-extras: $*" >&2; exit 1; }

in_root apt-get update -qq >"$log" 2>&1 || fail "apt-get update failed"
# 1. The packages install.sh asks for, and what they pull in, as .deb files (from the pristine
#    base, so the closure is complete).
debian_packages="$(echo "$packages" | tr ' ' '\n' | grep -v '^python3-lgpio$' | tr '\n' ' ')"
# shellcheck disable=SC2086
in_root apt-get install -y -qq --download-only $debian_packages >>"$log" 2>&1 ||
    fail "cannot download: $debian_packages"
cp "$root"/var/cache/apt/archives/*.deb "$work/out/debs/"

# 2. Tools to build the kernel module and lgpio.
kver="$(ls "$root/lib/modules")"
in_root apt-get install -y -qq --no-install-recommends "linux-headers-$kver" "linux-source-${kver%%.*}.$(echo "$kver" | cut -d. -f2)" \
    gcc make xz-utils libc6-dev swig python3-dev python3-setuptools >>"$log" 2>&1 || fail "cannot install build tools"

# 3. gpio-sim.ko
mkdir -p "$root/tmp/gpio-sim"
cp "$here/gpio-sim/Kbuild" "$here/gpio-sim/build.sh" "$root/tmp/gpio-sim/"
in_root sh /tmp/gpio-sim/build.sh "$kver" /tmp/gpio-sim/out >>"$log" 2>&1 || fail "gpio-sim build failed"
cp "$root/tmp/gpio-sim/out/gpio-sim.ko" "$work/out/"

# 4. python3-lgpio stand-in: lgpio's sdist with PYPI=1 links its own C library in.
cp "$LGPIO_SDIST" "$root/tmp/lgpio.tar.gz"
in_root sh -c 'set -e; cd /tmp && tar -xzf lgpio.tar.gz && cd lgpio-* &&
    PYPI=1 python3 setup.py -q build_ext --inplace && python3 setup.py -q build_py' >>"$log" 2>&1 ||
    fail "lgpio build failed"
pkg="$work/python3-lgpio"
site="$pkg/usr/lib/python3/dist-packages"
mkdir -p "$site" "$pkg/DEBIAN"
src="$(ls -d "$root"/tmp/lgpio-*/)"
cp "$src"/_lgpio*.so "$site/"
cp "$src"/build/lib*/lgpio.py "$site/" 2>/dev/null || cp "$src/lgpio.py" "$site/"
version="$(basename "$src" | sed 's/lgpio-//')"
mkdir -p "$site/lgpio-$version.egg-info"
printf 'Metadata-Version: 2.1\nName: lgpio\nVersion: %s\n' "$version" >"$site/lgpio-$version.egg-info/PKG-INFO"
pyver="$(in_root python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
arch="$(in_root dpkg --print-architecture)"
cat >"$pkg/DEBIAN/control" <<CONTROL
Package: python3-lgpio
Version: $version-0shotclock1
Architecture: $arch
Maintainer: shotclock appliance test <nobody@localhost>
Depends: python3 (>= $pyver), python3 (<< ${pyver%.*}.$((${pyver#*.} + 1))), libc6
Description: lgpio for Python 3 (stand-in for Raspberry Pi OS's package, built from PyPI's source)
CONTROL
dpkg-deb --root-owner-group -b "$pkg" "$work/out/debs/python3-lgpio_${version}_${arch}.deb" >>"$log" 2>&1 ||
    fail "cannot pack python3-lgpio"
(cd "$work/out/debs" && dpkg-scanpackages . /dev/null >Packages 2>>"$log") || fail "dpkg-scanpackages failed"
echo "$kver" >"$work/out/kernel-version"
rm -rf "$out"
mv "$work/out" "$out"
