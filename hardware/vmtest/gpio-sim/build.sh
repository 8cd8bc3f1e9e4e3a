#!/bin/sh
# Build gpio-sim.ko for kernel KVER from Debian's linux-source package (run inside a chroot of the
# image's Debian release, with linux-headers-KVER, linux-source-X.Y, gcc and make installed).
#   build.sh KVER OUT_DIR
set -eu
kver="$1"
out="$2"
here="$(cd "$(dirname "$0")" && pwd)"
tarball="$(ls /usr/src/linux-source-*.tar.xz | head -n 1)"
src="$(basename "$tarball" .tar.xz)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tar -C "$work" -xJf "$tarball" "$src/drivers/gpio/gpio-sim.c" "$src/kernel/irq/irq_sim.c"
cp "$work/$src/drivers/gpio/gpio-sim.c" "$work/gpio_sim_main.c"
# Older kernels' gpio-sim.c (6.1, bookworm) includes gpiolib's private header from its own folder.
if grep -q '#include "gpiolib.h"' "$work/gpio_sim_main.c"; then
    tar -C "$work" -xJf "$tarball" "$src/drivers/gpio/gpiolib.h"
    cp "$work/$src/drivers/gpio/gpiolib.h" "$work/gpiolib.h"
fi
# irq_to_desc() is not exported to modules; generic_handle_irq() runs the same handler
# (handle_simple_irq, set when the interrupt is mapped) and is exported.
sed 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' \
    "$work/$src/kernel/irq/irq_sim.c" >"$work/irq_sim.c"
grep -q 'generic_handle_irq(irqnum);' "$work/irq_sim.c" || {
    echo "gpio-sim: irq_sim.c changed upstream; the irq_to_desc fix no longer applies" >&2
    exit 1
}
cp "$here/Kbuild" "$work/Kbuild"
make -s -C "/lib/modules/$kver/build" M="$work" modules >"$work/build.log" 2>&1 || {
    tail -30 "$work/build.log" >&2
    exit 1
}
mkdir -p "$out"
cp "$work/gpio-sim.ko" "$out/gpio-sim.ko"
