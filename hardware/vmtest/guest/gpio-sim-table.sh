#!/bin/sh
# The table's buttons on a simulated GPIO chip: gpio-sim with 28 lines, so BCM-style pin numbers
# 0-27 are line offsets. A test presses a button by writing "pull-down" to the line's sysfs
# 'pull' attribute (the button pulls the pin to ground) and releases it with "pull-up".
set -eu
modprobe gpio-sim
cfg=/sys/kernel/config/gpio-sim/table
mkdir -p "$cfg/bank0"
echo 28 >"$cfg/bank0/num_lines"
echo 1 >"$cfg/live"
udevadm settle
chip="$(cat "$cfg/bank0/chip_name")"
echo "/sys/devices/platform/$(cat "$cfg/dev_name")/$chip" >/run/gpio-sim-table
echo "gpio-sim-table: $chip ready ($(ls -l "/dev/$chip"))"
