#!/bin/sh
# Stage 1 of the appliance image: a Debian root file system made by debootstrap, packed as a tar.
#   build-base.sh SUITE OUT.tar [ARCH]   (as root; SUITE is trixie or bookworm; ARCH amd64 or arm64,
#                                         the latter through qemu-user with binfmt, see vmtest.py)
# It holds what a Raspberry Pi OS Lite image already has (systemd, udev, kmod, python3, a
# kernel), and nothing that hardware/install.sh installs: that is tested by running the script.
set -eu
suite="$1"
out="$2"
arch="${3:-amd64}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
work="$(mktemp -d "${out%/*}/.base-XXXXXX")"
trap 'rm -rf "$work"' EXIT
root="$work/root"
# Debian's linux-image stands in for the Pi's kernel; initramfs-tools boots it from a virtio disk.
debootstrap --variant=minbase --arch="$arch" \
    --include=systemd,systemd-sysv,udev,kmod,dbus,linux-image-"$arch",initramfs-tools,python3,procps,ca-certificates,less \
    "$suite" "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
    tail -20 "$work/debootstrap.log" >&2
    echo "build-base: debootstrap $suite failed (log above)" >&2
    exit 1
}
echo "shotclock-vm" >"$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 shotclock-vm\n' >"$root/etc/hosts"
printf '/dev/vda / ext4 rw,relatime 0 1\n' >"$root/etc/fstab"
chroot "$root" passwd -d root >/dev/null
chroot "$root" apt-get clean
tar -C "$root" --numeric-owner -cf "$out.tmp" .
mv "$out.tmp" "$out"
