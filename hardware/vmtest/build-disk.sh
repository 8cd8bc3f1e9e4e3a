#!/bin/sh
# Stage 3: the disk the VM boots, made anew for each run from the cached stages.
#   build-disk.sh BASE.tar EXTRAS_DIR WHEELS_DIR SOURCE_TREE.tar OUT_DIR BUNDLE.tar.gz [OVERLAY_DEBS]
# OUT_DIR gets disk.img (ext4, the whole root), vmlinuz and initrd.img. Offline in the guest:
# apt reads the local repository, pip the wheel folder (no network at test time).
set -eu
base="$1"
extras="$2"
wheels="$3"
source_tar="$4"
out="$5"
bundle="$6"
overlay_debs="${7:-}"  # the read-only-root run: overlayroot's packages (build-overlay.sh)
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d "$out/.disk-XXXXXX")"
trap 'rm -rf "$work"' EXIT
root="$work/root"
mkdir -p "$root"
tar -C "$root" -xf "$base"
kver="$(cat "$extras/kernel-version")"

# The simulated GPIO chip's kernel module.
install -D -m 0644 "$extras/gpio-sim.ko" "$root/lib/modules/$kver/extra/gpio-sim.ko"
# The host's depmod writes the same files (under qemu-user, the arm64 image's own takes 37 s).
if command -v depmod >/dev/null || [ -x /usr/sbin/depmod ]; then
    PATH="$PATH:/usr/sbin" depmod -b "$root" "$kver"
else
    chroot "$root" depmod "$kver"
fi

# Offline package sources, as a mirror on a stick would be.
mkdir -p "$root/srv/offline"
cp -r "$extras/debs" "$root/srv/offline/debs"
cp -r "$wheels" "$root/srv/offline/wheels"
rm -f "$root"/etc/apt/sources.list.d/*
echo "deb [trusted=yes] file:/srv/offline/debs ./" >"$root/etc/apt/sources.list"
if [ -n "$overlay_debs" ]; then
    cp -r "$overlay_debs" "$root/srv/offline/overlayroot"
    echo "deb [trusted=yes] file:/srv/offline/overlayroot ./" >>"$root/etc/apt/sources.list"
fi
printf '[global]\nno-index = true\nfind-links = /srv/offline/wheels\n' >"$root/etc/pip.conf"

# The offline bundle ('./dev bundle --sign'), unpacked as on a Pi: the first install comes from it, checked
# against the public key beside it (as a venue has the project's key).
tar -C "$root/srv/offline" -xzf "$bundle"
install -m 0644 "$(dirname "$bundle")/release.pub" "$root/srv/offline/release.pub"

# The checkout a user would have cloned. Its version is made newer than the bundle's, so re-running
# install.sh from it is an update to a new version (and --rollback has a version to return to).
mkdir -p "$root/root/shotclock"
tar -C "$root/root/shotclock" -xf "$source_tar"
sed -i 's/^__version__ = "\([^"]*\)"/__version__ = "\1+update"/' "$root/root/shotclock/shotclock/__init__.py"
grep -q '^__version__ = "[^"]*+update"' "$root/root/shotclock/shotclock/__init__.py" ||
    { echo "build-disk: cannot mark the checkout's version" >&2; exit 1; }

# The test's own parts: the simulated buttons, the guest side of the checks, the 9p share.
install -D -m 0755 "$here/guest/gpio-sim-table.sh" "$root/usr/local/lib/shotclock-vmtest/gpio-sim-table.sh"
install -D -m 0755 "$here/guest/run-phase.sh" "$root/usr/local/lib/shotclock-vmtest/run-phase.sh"
install -D -m 0644 "$here/guest/checks.py" "$root/usr/local/lib/shotclock-vmtest/checks.py"
install -D -m 0644 "$here/guest/readonly.py" "$root/usr/local/lib/shotclock-vmtest/readonly.py"
install -m 0644 "$here/guest/gpio-sim-table.service" "$here/guest/shotclock-vmtest.service" "$root/etc/systemd/system/"
mkdir -p "$root/etc/systemd/system/multi-user.target.wants" "$root/mnt/vmtest"
ln -sf ../gpio-sim-table.service "$root/etc/systemd/system/multi-user.target.wants/gpio-sim-table.service"
ln -sf ../shotclock-vmtest.service "$root/etc/systemd/system/multi-user.target.wants/shotclock-vmtest.service"
# The 9p share is mounted by shotclock-vmtest.service itself (see there why not in /etc/fstab).
# The table's configuration, set before the install as an installer may: a generic board
# (the gpio-sim chip), short clocks so the checks run quickly.
install -D -m 0644 "$here/guest/config.toml" "$root/etc/shotclock/config.toml"
# Software emulation on a busy host can stall the whole guest for seconds (QEMU's threads wait for a
# core while the guest's clock runs on): a drop-in gives the watchdog 30 s here instead of the unit's
# 10 s, so a stall is not taken for a hung loop. The SIGSTOP check still proves the watchdog restarts it.
# A start (Python, pygame, Mesa's llvmpipe, emulated) took 81 s under a load of 28: 300 s for it here.
mkdir -p "$root/etc/systemd/system/shotclock.service.d"
cat >"$root/etc/systemd/system/shotclock.service.d/vmtest-emulation.conf" <<'CONF'
[Service]
WatchdogSec=30
TimeoutStartSec=300
CONF
# No getty on the serial console: the console log is the boot's record.
ln -sf /dev/null "$root/etc/systemd/system/serial-getty@ttyS0.service"
ln -sf /dev/null "$root/etc/systemd/system/serial-getty@ttyAMA0.service"  # arm64's console

cp "$root/boot/vmlinuz-$kver" "$work/vmlinuz"
cp "$root/boot/initrd.img-$kver" "$work/initrd.img"
mkfs.ext4 -q -F -L shotclock -d "$root" "$work/disk.img" 3G
mv "$work/disk.img" "$work/vmlinuz" "$work/initrd.img" "$out/"
