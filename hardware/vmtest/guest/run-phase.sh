#!/bin/sh
# This boot's phase, from the kernel command line (shotclock.vmtest=install|check); results go to
# the 9p share /mnt/vmtest, then the VM powers off.
out=/mnt/vmtest
phase="$(sed -n 's/.*shotclock\.vmtest=\([a-z]*\).*/\1/p' /proc/cmdline)"
echo "vmtest: phase '$phase'"
case "$phase" in
    install)
        start="$(cut -d' ' -f1 /proc/uptime)"
        # From the offline bundle, with pip's own configuration off: the bundle alone must do.
        cd /srv/offline/shotclock-*/ && PIP_CONFIG_FILE=/dev/null sh hardware/install.sh >"$out/install.log" 2>&1
        echo $? >"$out/install.rc"
        echo "$start $(cut -d' ' -f1 /proc/uptime)" >"$out/install.uptime"
        ;;
    check)
        python3 /usr/local/lib/shotclock-vmtest/checks.py "$out" >"$out/checks.log" 2>&1
        echo $? >"$out/checks.rc"
        ;;
    *) echo "vmtest: no phase on the kernel command line" ;;
esac
journalctl -b --no-pager -o short-monotonic >"$out/journal-$phase.txt" 2>&1
sync
systemctl poweroff
