#!/bin/sh
# Stage 2b of the appliance image, for the read-only-root run only (vmtest.py --read-only): Debian's
# overlayroot package, which Raspberry Pi OS's overlay file system option installs (raspi-config
# nonint do_overlayfs 0 runs 'apt-get install overlayroot'), with what it needs that the base lacks,
# and e2fsprogs and busybox, as a local apt repository, so the VM installs them offline as the other packages.
#   build-overlay.sh BASE.tar OUT_DIR
set -eu
base="$1"
out="$2"
work="$(mktemp -d "${out%/*}/.overlay-XXXXXX")"
trap 'rm -rf "$work"' EXIT
root="$work/root"
mkdir -p "$root" "$work/out"
tar -C "$root" -xf "$base"
log="$work/overlay.log"
fail() { tail -30 "$log" >&2; echo "build-overlay: $*" >&2; exit 1; }
in_root() { chroot "$root" env DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"; }
in_root apt-get update -qq >"$log" 2>&1 || fail "apt-get update failed"
# e2fsprogs and busybox too: Raspberry Pi OS has them, the minimal base not (install.sh --data-partition runs
# mkfs.ext4; overlayroot's hook copies mke2fs into the initramfs, and its script there needs busybox's grep).
in_root apt-get install -y -qq --download-only overlayroot e2fsprogs busybox >>"$log" 2>&1 || fail "cannot download overlayroot"
cp "$root"/var/cache/apt/archives/*.deb "$work/out/"
(cd "$work/out" && dpkg-scanpackages . /dev/null >Packages 2>>"$log") || fail "dpkg-scanpackages failed"
rm -rf "$out"
mv "$work/out" "$out"
