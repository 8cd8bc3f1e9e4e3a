#!/bin/bash
# Set up a fresh Raspberry Pi OS (Bookworm, Pi 3-5) as a shotclock table device, in one command:
#
#   sudo hardware/install.sh            # from a checkout of shotclock on the Pi
#   DRY_RUN=1 hardware/install.sh       # print what it would do, change nothing
#
# It creates the 'shotclock' user, a virtual environment with the 'pi' extra (lgpio) in
# /opt/shotclock, the config file /etc/shotclock/config.toml (kept if it exists), the systemd
# service, turns console blanking off, starts the service and runs the self-test.
set -euo pipefail

SRC="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX=/opt/shotclock
CONFIG_DIR=/etc/shotclock
UNIT=/etc/systemd/system/shotclock.service
USER_NAME=shotclock
GROUPS_WANTED=(gpio video input audio render)
DRY_RUN="${DRY_RUN:-}"

say() { echo "install: $*"; }
run() {
    if [ -n "$DRY_RUN" ]; then echo "+ $*"; else "$@"; fi
}

if [ -z "$DRY_RUN" ] && [ "$(id -u)" != 0 ]; then
    echo "install: run as root: sudo $0" >&2
    exit 1
fi

say "system packages (venv support, ALSA utilities; lgpio and pygame-ce come as wheels)"
run apt-get update -qq
run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv alsa-utils

say "user $USER_NAME in the groups that exist of: ${GROUPS_WANTED[*]}"
existing=()
for g in "${GROUPS_WANTED[@]}"; do getent group "$g" >/dev/null && existing+=("$g"); done
if ! id "$USER_NAME" >/dev/null 2>&1; then
    run useradd --system --home-dir /var/lib/shotclock --no-create-home --shell /usr/sbin/nologin "$USER_NAME"
fi
if [ ${#existing[@]} -gt 0 ]; then
    run usermod -a -G "$(IFS=,; echo "${existing[*]}")" "$USER_NAME"
fi

say "virtual environment in $PREFIX/venv with the 'pi' extra"
run mkdir -p "$PREFIX"
run python3 -m venv "$PREFIX/venv"
run "$PREFIX/venv/bin/pip" install -q --upgrade pip
run "$PREFIX/venv/bin/pip" install -q "$SRC[pi]"
run install -m 0644 "$SRC/README.md" "$PREFIX/README.md"

say "configuration in $CONFIG_DIR/config.toml"
run mkdir -p "$CONFIG_DIR"
if [ -e "$CONFIG_DIR/config.toml" ]; then
    say "keeping the existing $CONFIG_DIR/config.toml"
else
    run install -m 0644 "$SRC/hardware/config.example.toml" "$CONFIG_DIR/config.toml"
fi
run "$PREFIX/venv/bin/shotclock" config --check "$CONFIG_DIR/config.toml"

say "console blanking off (the clock must stay visible)"
CMDLINE=/boot/firmware/cmdline.txt
[ -e "$CMDLINE" ] || CMDLINE=/boot/cmdline.txt
if [ -e "$CMDLINE" ] && ! grep -q "consoleblank=0" "$CMDLINE"; then
    run sed -i '1 s/$/ consoleblank=0/' "$CMDLINE"
    say "takes effect after the next reboot"
fi

say "systemd service"
run install -m 0644 "$SRC/hardware/shotclock.service" "$UNIT"
run systemctl daemon-reload
run systemctl enable --now shotclock.service

say "self-test"
run "$PREFIX/venv/bin/shotclock" selftest --config "$CONFIG_DIR/config.toml" || \
    say "the self-test found a problem: see above, and 'journalctl -u shotclock'"
say "done. Logs: journalctl -u shotclock -f"
