#!/bin/sh
# Set up Raspberry Pi OS (trixie or bookworm, Pi 3-5) as a shotclock table device, in one command:
#
#   sudo sh hardware/install.sh               # install, or update in place and restart
#   sudo sh hardware/install.sh --uninstall   # remove the service and /opt/shotclock; keep the
#                                             # decision log (/var/lib/shotclock) and the config
#   sudo sh hardware/install.sh --uninstall --purge   # ... and the log, the config and the user
#   DRY_RUN=1 sh hardware/install.sh          # print what it would do, change nothing
#
# It installs lgpio from the system (python3-lgpio: Raspberry Pi OS builds it for its Python)
# into a virtual environment that sees the system's packages, installs shotclock there, creates
# the 'shotclock' user and /etc/shotclock/config.toml (kept if it exists), runs the self-test
# on the idle hardware, then (re)starts the systemd service.
set -eu

SRC="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX=/opt/shotclock
VENV="$PREFIX/venv"
CONFIG_DIR=/etc/shotclock
STATE_DIR=/var/lib/shotclock
UNIT=/etc/systemd/system/shotclock.service
GPIO_RULE=/etc/udev/rules.d/60-shotclock-gpio.rules
USER_NAME=shotclock
# python3-lgpio: the GPIO backend (Raspberry Pi OS's package; PyPI has no working wheel for
# Python 3.13). SDL's kmsdrm driver loads libdrm, libgbm and EGL/GLES with a Mesa driver at run
# time (pygame-ce's wheel does not bundle them; a Lite image may lack some); without
# libopengl0 its renderer shows a black screen.
APT_PACKAGES="python3-venv python3-lgpio alsa-utils libdrm2 libgbm1 libegl1 libgles2 libopengl0 libgl1-mesa-dri"
GROUPS_WANTED="gpio video input audio render"
DRY_RUN="${DRY_RUN:-}"

say() { echo "install: $*"; }
die() { echo "install: $*" >&2; exit 1; }
run() {
    if [ -n "$DRY_RUN" ]; then echo "+ $*"; else "$@"; fi
}

uninstall=""
purge=""
for arg in "$@"; do
    case "$arg" in
        --uninstall) uninstall=1 ;;
        --purge) purge=1 ;;
        -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install: unknown option '$arg' (use --uninstall, --purge or --help)" >&2; exit 2 ;;
    esac
done
if [ -n "$purge" ] && [ -z "$uninstall" ]; then
    echo "install: --purge goes with --uninstall" >&2
    exit 2
fi
if [ -z "$DRY_RUN" ] && [ "$(id -u)" != 0 ]; then
    die "run as root: sudo sh $0 $*"
fi

if [ -n "$uninstall" ]; then
    say "stopping and removing the service"
    if [ -e "$UNIT" ]; then
        run systemctl disable --now shotclock.service || true
        run rm -f "$UNIT"
        run systemctl daemon-reload
    fi
    run rm -rf "$PREFIX"
    run rm -f "$GPIO_RULE"
    if [ "$(readlink /usr/local/bin/shotclock 2>/dev/null)" = "$VENV/bin/shotclock" ]; then
        run rm -f /usr/local/bin/shotclock
    fi
    if [ -n "$purge" ]; then
        say "removing the decision log, the configuration and the user"
        run rm -rf "$STATE_DIR" "$CONFIG_DIR"
        if id "$USER_NAME" >/dev/null 2>&1; then run userdel "$USER_NAME"; fi
    else
        say "kept the decision log in $STATE_DIR and the configuration in $CONFIG_DIR (--purge removes them)"
    fi
    say "uninstalled"
    exit 0
fi

say "system packages: $APT_PACKAGES"
run apt-get update -qq
if [ -z "$DRY_RUN" ] && ! apt-cache show python3-lgpio >/dev/null 2>&1; then
    die "python3-lgpio is not in this system's package sources. Raspberry Pi OS has it; on another \
Debian board see 'Other Linux boards' in hardware/README.md"
fi
# shellcheck disable=SC2086  # the list is meant to split
run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $APT_PACKAGES

say "user $USER_NAME in the groups that exist of: $GROUPS_WANTED"
if ! getent group gpio >/dev/null; then
    # Raspberry Pi OS has a gpio group and a udev rule for /dev/gpiochip*; other systems leave
    # the chips to root. Give them the same rule.
    say "no gpio group here: creating it, with a udev rule for /dev/gpiochip*"
    run groupadd --system gpio
    if [ -n "$DRY_RUN" ]; then
        echo "+ write $GPIO_RULE"
    else
        echo 'SUBSYSTEM=="gpio", KERNEL=="gpiochip*", GROUP="gpio", MODE="0660"' >"$GPIO_RULE"
        udevadm control --reload-rules 2>/dev/null || true
        udevadm trigger --subsystem-match=gpio 2>/dev/null || true
    fi
fi
existing=""
for g in $GROUPS_WANTED; do
    if getent group "$g" >/dev/null; then existing="${existing:+$existing,}$g"; fi
done
if ! id "$USER_NAME" >/dev/null 2>&1; then
    run useradd --system --home-dir "$STATE_DIR" --no-create-home --shell /usr/sbin/nologin "$USER_NAME"
fi
if [ -n "$existing" ]; then
    run usermod -a -G "$existing" "$USER_NAME"
fi

say "virtual environment in $VENV (seeing the system's lgpio)"
run mkdir -p "$PREFIX"
if [ -x "$VENV/bin/python" ] && [ "$("$VENV/bin/python" -c 'import sys; print(sys.version_info[:2])')" != \
        "$(python3 -c 'import sys; print(sys.version_info[:2])')" ]; then
    say "the system's Python changed since the last install: making the environment anew"
    run rm -rf "$VENV"
fi
run python3 -m venv --system-site-packages "$VENV"
run "$VENV/bin/python" -m pip install -q --upgrade pip
run "$VENV/bin/python" -m pip install -q --upgrade --upgrade-strategy only-if-needed "$SRC"
run "$VENV/bin/python" -c "import lgpio" || die "the environment cannot import lgpio: is python3-lgpio installed?"
run install -m 0644 "$SRC/README.md" "$PREFIX/README.md"
run ln -sfn "$VENV/bin/shotclock" /usr/local/bin/shotclock  # 'shotclock selftest', 'shotclock log' on the PATH

say "configuration in $CONFIG_DIR/config.toml"
run mkdir -p "$CONFIG_DIR"
if [ -e "$CONFIG_DIR/config.toml" ]; then
    say "keeping the existing $CONFIG_DIR/config.toml"
else
    run install -m 0644 "$SRC/hardware/config.example.toml" "$CONFIG_DIR/config.toml"
fi

# The table's broker login holds its password: the service's user owns it and nobody else reads it
# (0600); the broker's certificate is public (0644). 'config --check' below judges both for that user.
network_file() {  # the [network] key $1 of the config, when the network is enabled
    [ -e "$CONFIG_DIR/config.toml" ] || return 0
    python3 - "$CONFIG_DIR/config.toml" "$1" 2>/dev/null <<'PY' || true
import sys, tomllib
net = tomllib.load(open(sys.argv[1], "rb")).get("network", {})
print(net.get(sys.argv[2], "") if net.get("enabled") else "")
PY
}
CREDENTIALS="$(network_file credentials)"
if [ -n "$CREDENTIALS" ] && [ -e "$CREDENTIALS" ]; then
    say "floor network login $CREDENTIALS (network.credentials): owner $USER_NAME, mode 0600"
    run chown "$USER_NAME:$USER_NAME" "$CREDENTIALS"
    run chmod 0600 "$CREDENTIALS"
fi
CA_FILE="$(network_file ca_file)"
if [ -n "$CA_FILE" ] && [ -e "$CA_FILE" ]; then
    run chmod 0644 "$CA_FILE"
fi
# The Pi has no real-time clock: point systemd-timesyncd at the floor (network.time_server, by default the
# broker's host, which the floor laptop serves NTP from) so the log's utc is right. Floor commands do not
# need it (docs/network.md); 'shotclock selftest' says whether the clock is synchronised.
TIME_SERVER="$(network_file time_server)"
[ -n "$TIME_SERVER" ] || TIME_SERVER="$(network_file host)"
if [ -n "$TIME_SERVER" ] && [ "$TIME_SERVER" != none ] && [ "$TIME_SERVER" != localhost ]; then
    say "time from $TIME_SERVER (network.time_server) through systemd-timesyncd"
    if [ -n "$DRY_RUN" ]; then
        echo "+ write /etc/systemd/timesyncd.conf.d/shotclock.conf (NTP=$TIME_SERVER)"
    else
        mkdir -p /etc/systemd/timesyncd.conf.d
        printf '# Written by shotclock install.sh: the floor serves the time.\n[Time]\nNTP=%s\n' "$TIME_SERVER" \
            >/etc/systemd/timesyncd.conf.d/shotclock.conf
        systemctl restart systemd-timesyncd 2>/dev/null || say "systemd-timesyncd is not running here"
    fi
fi
# A problem here is named and the install goes on: the table's clock never waits for the network,
# and the service shows a [network] fault on its screen until the file is mended.
run "$VENV/bin/shotclock" config --check "$CONFIG_DIR/config.toml" --user "$USER_NAME" || \
    say "fix the configuration above (the service starts anyway and shows the fault on its screen)"

say "console blanking off (the clock must stay visible)"
CMDLINE=/boot/firmware/cmdline.txt
[ -e "$CMDLINE" ] || CMDLINE=/boot/cmdline.txt
if [ -e "$CMDLINE" ] && ! grep -q "consoleblank=0" "$CMDLINE"; then
    run sed -i '1 s/$/ consoleblank=0/' "$CMDLINE"
    say "takes effect after the next reboot"
fi

say "systemd service"
# On an update the running service holds the pins, the screen and the sound card: stop it so
# the self-test sees the idle hardware, then start the new version.
if [ -z "$DRY_RUN" ] && systemctl is-active --quiet shotclock.service; then
    run systemctl stop shotclock.service
fi
run install -m 0644 "$SRC/hardware/shotclock.service" "$UNIT"
run systemctl daemon-reload
run systemctl enable shotclock.service

say "self-test (as $USER_NAME, as the service runs)"
selftest_ok=1
run runuser -u "$USER_NAME" -- env SDL_VIDEODRIVER=kmsdrm SDL_AUDIODRIVER=alsa LG_WD=/tmp \
    "$VENV/bin/shotclock" selftest --config "$CONFIG_DIR/config.toml" || selftest_ok=""

run systemctl restart shotclock.service
if [ -z "$selftest_ok" ]; then
    say "the self-test found a problem: see above, and 'journalctl -u shotclock'"
fi
say "done. Logs: journalctl -u shotclock -f"
