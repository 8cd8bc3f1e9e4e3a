#!/bin/sh
# This boot's phase, from the kernel command line (shotclock.vmtest=install|check|readonly|afterreset|afterfloor);
# results go to the 9p share /mnt/vmtest, then the VM powers off (the readonly and afterreset phases instead ask
# the host for a hard reset and wait for it).
out=/mnt/vmtest
phase="$(sed -n 's/.*shotclock\.vmtest=\([a-z]*\).*/\1/p' /proc/cmdline)"
data="$(sed -n 's/.*shotclock\.data=\([^ ]*\).*/\1/p' /proc/cmdline)"
echo "vmtest: phase '$phase'"
case "$phase" in
    install)
        start="$(cut -d' ' -f1 /proc/uptime)"
        # Raspberry Pi OS has e2fsprogs (mkfs.ext4, for --data-partition) and busybox (the initramfs's grep,
        # which overlayroot's script needs); the minimal Debian base has neither.
        if [ -n "$data" ]; then
            { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq e2fsprogs busybox; } \
                >"$out/e2fsprogs.log" 2>&1
        fi
        # From the offline bundle, with pip's own configuration off: the bundle alone must do. The
        # read-only-root run gives the log its own partition (shotclock.data=DEVICE).
        # The bundle is signed: install.sh checks it against the project's public key and keeps the key.
        # It waits for READY after the restart: up to 600 s here (an emulated start under load).
        cd /srv/offline/shotclock-*/ && PIP_CONFIG_FILE=/dev/null SHOTCLOCK_READY_TIMEOUT=600 sh hardware/install.sh \
            --key /srv/offline/release.pub ${data:+--data-partition "$data"} >"$out/install.log" 2>&1
        echo $? >"$out/install.rc"
        echo "$start $(cut -d' ' -f1 /proc/uptime)" >"$out/install.uptime"
        if [ -f "$out/shotclock-firstboot.toml" ]; then
            # The read-only run's floor network: the table provisioned as a venue does it ('shotclock provision'
            # on the host, the file on the boot partition, taken by the first-boot unit), before the root turns
            # read-only; and an address on QEMU's user network (the host, and its broker, is 10.0.2.2).
            mkdir -p /boot/firmware /etc/systemd/network
            cp "$out/shotclock-firstboot.toml" /boot/firmware/ &&
                systemctl start shotclock-firstboot.service >"$out/firstboot.log" 2>&1 &&
                printf '[Match]\nName=en*\n\n[Network]\nAddress=10.0.2.15/24\n' >/etc/systemd/network/10-vmtest.network &&
                systemctl enable systemd-networkd.service >>"$out/firstboot.log" 2>&1
            echo $? >"$out/firstboot.rc"
            cat /etc/shotclock/config.toml >>"$out/firstboot.log" 2>&1
        fi
        if [ -n "$data" ]; then
            # Raspberry Pi OS's overlay file system, as 'raspi-config nonint do_overlayfs 0' sets it up:
            # it installs overlayroot (whose hook rebuilds the initramfs) and puts 'overlayroot=tmpfs' on the
            # kernel command line (cmdline.txt; here the host's -append, with the initramfs handed out).
            start="$(cut -d' ' -f1 /proc/uptime)"
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq overlayroot >"$out/overlayroot.log" 2>&1 &&
                cp "/boot/initrd.img-$(uname -r)" "$out/initrd-overlay.img"
            echo $? >"$out/overlayroot.rc"
            echo "$start $(cut -d' ' -f1 /proc/uptime)" >"$out/overlayroot.uptime"
        fi
        ;;
    check)
        python3 /usr/local/lib/shotclock-vmtest/checks.py "$out" >"$out/checks.log" 2>&1
        echo $? >"$out/checks.rc"
        ;;
    readonly|afterreset|afterfloor)
        python3 /usr/local/lib/shotclock-vmtest/readonly.py "$out" "$phase" >"$out/checks-$phase.log" 2>&1
        echo $? >"$out/checks-$phase.rc"
        ;;
    *) echo "vmtest: no phase on the kernel command line" ;;
esac
journalctl -b --no-pager -o short-monotonic >"$out/journal-$phase.txt" 2>&1
sync
systemctl poweroff
