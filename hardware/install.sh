#!/bin/sh
# Set up Raspberry Pi OS (trixie or bookworm, Pi 3-5) as a shotclock table device, in one command:
#
#   sudo sh hardware/install.sh               # install this checkout's version (or the bundle's), or
#                                             # update to it, and restart
#   sudo sh hardware/install.sh --version V   # from a bundle holding several releases: install V
#   sudo sh hardware/install.sh --rollback    # back to the version installed before, and restart
#   sudo sh hardware/install.sh --prepare     # build this version's environment, leave the running one
#   sudo sh hardware/install.sh --switch      # then: start the prepared version (seconds; no self-test)
#   sudo sh hardware/install.sh --time-server HOST   # keep the clock to HOST (else config's time.server)
#   sudo sh hardware/install.sh --data-partition DEV # keep the decision log on partition DEV (for a
#                                             # read-only root: see "A read-only root" in hardware/README.md)
#   sudo sh hardware/install.sh --key FILE    # check a signed bundle against the project's public key
#                                             # FILE (signify), and keep it for later bundles
#   sudo sh /opt/shotclock/current/hardware/install.sh --bundle FILE.tar.gz   # an update: the installed
#                                             # install.sh unpacks and checks the new bundle before any
#                                             # file of it runs, then runs its install.sh (--prepare, ...)
#   sudo sh hardware/install.sh --uninstall   # remove the service and /opt/shotclock; keep the
#                                             # decision log (/var/lib/shotclock) and the config
#   sudo sh hardware/install.sh --uninstall --purge   # ... and the log, the config and the user
#   DRY_RUN=1 sh hardware/install.sh          # print what it would do, change nothing
#
# Run from an unpacked offline bundle ('./dev bundle' on a laptop: a wheels/ folder beside hardware/),
# it installs with no network: pip takes every wheel from the bundle, and apt-get runs only when a
# system package is missing. Each version gets its own environment, /opt/shotclock/<version>/venv;
# /opt/shotclock/current and /opt/shotclock/previous point at the running one and the one before.
# It installs lgpio from the system (python3-lgpio: Raspberry Pi OS builds it for its Python)
# into a virtual environment that sees the system's packages, installs shotclock there, creates
# the 'shotclock' user and /etc/shotclock/config.toml (kept if it exists), the first-boot unit
# (shotclock-firstboot.service: takes a table's file from the SD card's boot partition), time sync,
# runs the self-test on the idle hardware, then (re)starts the systemd service.
#
# A bundle is checked before anything is changed (--switch too: it installs the bundle's unit files):
# every entry of it, whatever its kind, against its SHA256SUMS. Only the regular files listed there, and the
# folders that hold them, may be in it: a symbolic link, a FIFO, a device, an unlisted file or folder is
# refused, and the version installed is the newest shotclock wheel SHA256SUMS lists. When a public key is
# given (--key) or kept from an earlier install (/etc/shotclock/release.pub), SHA256SUMS must carry a valid
# signature by it (SHA256SUMS.sig, signify). A bundle's own install.sh checks the bundle it comes in, so it
# proves nothing against someone who changed that install.sh: with --bundle the installed install.sh (each
# version keeps one in /opt/shotclock/<version>/hardware/) unpacks the archive into a fresh folder, refusing
# any member that is not a plain file or folder inside its one folder, and checks it before any of its files
# runs. After a restart (an install, an update, --switch, --rollback) it waits for the service's READY and
# goes back to the version that ran before when READY does not come.
#
# Exit codes: 0 done; 1 a step failed (the message names it); 2 wrong options; 3 the bundle failed its
# check, in one line naming the entry (nothing was changed); 4 the new version did not become ready (the
# one before it runs again).
set -eu

SRC="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX="${SHOTCLOCK_PREFIX:-/opt/shotclock}"  # the tests point it elsewhere; the unit runs /opt/shotclock
CONFIG_DIR=/etc/shotclock
STATE_DIR=/var/lib/shotclock
UNIT=/etc/systemd/system/shotclock.service
FIRSTBOOT_UNIT=/etc/systemd/system/shotclock-firstboot.service
TIMESYNC_CONF=/etc/systemd/timesyncd.conf.d/shotclock.conf
GPIO_RULE=/etc/udev/rules.d/60-shotclock-gpio.rules
# The log's own partition is mounted by a systemd mount unit, not an /etc/fstab line: Raspberry Pi OS's
# overlay file system (the overlayroot package) rewrites every fstab mount into a RAM overlay too, which
# would lose the log at every power cut; it leaves mount units alone.
DATA_UNIT=/etc/systemd/system/var-lib-shotclock.mount
DATA_LABEL=shotlog
USER_NAME=shotclock
# The key later bundles are checked against (--key installs it; the tests point it elsewhere).
RELEASE_KEY="${SHOTCLOCK_RELEASE_KEY:-$CONFIG_DIR/release.pub}"
# How long a restarted service may take to send READY, and how long it must then stay up.
READY_TIMEOUT="${SHOTCLOCK_READY_TIMEOUT:-120}"
READY_HOLD="${SHOTCLOCK_READY_HOLD:-5}"
# python3-lgpio: the GPIO backend (Raspberry Pi OS's package; PyPI has no working wheel for
# Python 3.13). SDL's kmsdrm driver loads libdrm, libgbm and EGL/GLES with a Mesa driver at run
# time (pygame-ce's wheel does not bundle them; a Lite image may lack some); without
# libopengl0 its renderer shows a black screen. signify-openbsd checks a signed bundle.
APT_PACKAGES="python3-venv python3-lgpio signify-openbsd alsa-utils libdrm2 libgbm1 libegl1 libgles2 libopengl0 libgl1-mesa-dri"
GROUPS_WANTED="gpio video input audio render"
DRY_RUN="${DRY_RUN:-}"

say() { echo "install: $*"; }
die() { echo "install: $*" >&2; exit 1; }
run() {
    if [ -n "$DRY_RUN" ]; then echo "+ $*"; else "$@"; fi
}

uninstall=""
purge=""
rollback=""
stage=full
want_version=""
time_server=""
data_partition=""
key=""
bundle_file=""
while [ $# -gt 0 ]; do
    case "$1" in
        --uninstall) uninstall=1 ;;
        --purge) purge=1 ;;
        --rollback) rollback=1 ;;
        --prepare) stage=prepare ;;
        --switch) stage=switch ;;
        --version|--time-server|--data-partition|--key|--bundle)
            [ $# -ge 2 ] && [ -n "$2" ] || { echo "install: $1 needs a value" >&2; exit 2; }
            case "$1" in
                --version) want_version="$2" ;;
                --time-server) time_server="$2" ;;
                --key) key="$2" ;;
                --bundle) bundle_file="$2" ;;
                *) data_partition="$2" ;;
            esac
            shift ;;
        -h|--help) sed -n '2,/^set -eu$/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "install: unknown option '$1' (use --version, --prepare, --switch, --rollback, --key, --bundle, --time-server, --data-partition, --uninstall, --purge or --help)" >&2
           exit 2 ;;
    esac
    shift
done
if [ -n "$purge" ] && [ -z "$uninstall" ]; then
    echo "install: --purge goes with --uninstall" >&2
    exit 2
fi
if [ -n "$rollback" ] && { [ -n "$uninstall" ] || [ -n "$want_version" ] || [ "$stage" != full ] || [ -n "$bundle_file" ]; }; then
    echo "install: --rollback goes alone" >&2
    exit 2
fi
if [ "$stage" != full ] && [ -n "$uninstall" ]; then
    echo "install: --$stage does not go with --uninstall" >&2
    exit 2
fi
if [ -n "$bundle_file" ] && [ -n "$uninstall" ]; then
    echo "install: --bundle does not go with --uninstall" >&2
    exit 2
fi
case "$want_version" in *[!0-9A-Za-z.+_]*|.*)  # it names a folder under $PREFIX
    echo "install: --version $want_version is not a version (such as 0.3.0)" >&2
    exit 2 ;;
esac
if [ -n "$bundle_file" ] && [ ! -e "$bundle_file" ] && [ ! -L "$bundle_file" ]; then
    echo "install: --bundle $bundle_file: no such file (a bundle from './dev bundle': shotclock-<version>-<cpu>.tar.gz)" >&2
    exit 2
fi
if [ -n "$data_partition" ] && { [ -n "$uninstall" ] || [ -n "$rollback" ] || [ "$stage" != full ]; }; then
    echo "install: --data-partition goes with a full install" >&2
    exit 2
fi
if [ -n "$key" ] && { [ ! -f "$key" ] || [ ! -r "$key" ]; }; then  # a FIFO would hang signify
    echo "install: --key $key: no such file (the project's public key, e.g. shotclock-release.pub)" >&2
    exit 2
fi
if [ -z "$DRY_RUN" ] && [ "$(id -u)" != 0 ]; then
    die "run as root: sudo sh $0 $*"
fi

# Where the release comes from: an offline bundle (wheels/ and SHA256SUMS beside hardware/; either makes it one,
# so taking one away makes no checkout of it) or a checkout. A bundle's version is read from its SHA256SUMS once
# that is checked (bundle_version), never from a listing of its folder.
WHEELS=""
if [ -d "$SRC/wheels" ] || [ -L "$SRC/wheels" ] || [ -e "$SRC/SHA256SUMS" ] || [ -L "$SRC/SHA256SUMS" ]; then
    WHEELS="$SRC/wheels"
elif [ -z "$bundle_file" ] && [ -z "$uninstall" ] && [ -z "$rollback" ]; then
    checkout_version="$(sed -n 's/^__version__ = "\([^"]*\)".*/\1/p' "$SRC/shotclock/__init__.py" 2>/dev/null)" || true
    [ -n "$checkout_version" ] || die "cannot read the version from $SRC/shotclock/__init__.py (run install.sh from a checkout or an unpacked bundle, or give --bundle FILE)"
    if [ -n "$want_version" ] && [ "$want_version" != "$checkout_version" ]; then
        die "this checkout is shotclock $checkout_version, not $want_version (check out that release, or use its bundle)"
    fi
    want_version="$checkout_version"
fi

# The bundle's check, before anything is changed (and in a dry run too: it only reads).
# One line, whatever a name in the bundle holds: a control character (a terminal's escape) is shown as '?'.
refuse() { printf 'install: %s: not installing\n' "$*" | LC_ALL=C tr -c '[:print:]\n' '?' >&2; exit 3; }
# A name in the bundle: folders and files of letters, digits and ._+@=,- (none begins with a dot, so no '..'),
# as './dev bundle' writes them (tools/bundle.py's PLAIN_NAME: tests/test_bundle.py holds the two equal).
PLAIN_NAME='[A-Za-z0-9_+@=,-][A-Za-z0-9._+@=,-]*(/[A-Za-z0-9_+@=,-][A-Za-z0-9._+@=,-]*)*'
SUMS_MAX=1048576  # bytes: a bundle's SHA256SUMS is a few kB
kind_of() {  # find's %y letter, in words
    case "$1" in
        l) echo "a symbolic link" ;; p) echo "a FIFO" ;; s) echo "a socket" ;; c) echo "a character device" ;;
        b) echo "a block device" ;; d) echo "a folder" ;; f) echo "a file" ;; *) echo "not a file" ;;
    esac
}
verify_bundle() {
    # Every entry first, before anything in it is read: regular files and folders only (a link may point out
    # of the bundle, and sha256sum and pip follow it; a FIFO or a device hangs its reader), no line break in a
    # name (each check below reads names a line each).
    broken="$(cd "$SRC" && find . -mindepth 1 -name '*
*' -printf '%P' -quit | tr '\n' '?')"
    [ -z "$broken" ] || refuse "the bundle holds a name with a line break in it ($broken)"
    odd="$(cd "$SRC" && find . -mindepth 1 ! -type f ! -type d -printf '%y %P\n' -quit)"
    [ -z "$odd" ] || refuse "the bundle's ${odd#? } is $(kind_of "${odd%% *}"), not a file (its SHA256SUMS lists files only)"
    [ -e "$SRC/SHA256SUMS" ] || refuse "the bundle has no SHA256SUMS, so it cannot be checked (make bundles with './dev bundle')"
    [ "$(wc -c <"$SRC/SHA256SUMS")" -le "$SUMS_MAX" ] || refuse "the bundle's SHA256SUMS is over $SUMS_MAX bytes: not a bundle's"
    use_key="$key"
    [ -n "$use_key" ] || [ ! -e "$RELEASE_KEY" ] || use_key="$RELEASE_KEY"
    if [ -n "$use_key" ]; then
        [ -e "$SRC/SHA256SUMS.sig" ] || refuse "the bundle is not signed, and releases are checked against $use_key"
        if ! command -v signify-openbsd >/dev/null; then
            say "installing signify-openbsd (from the system's package sources) to check the signature"
            run apt-get update -qq || say "apt-get update failed (no network?): trying the package lists there are"
            run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq signify-openbsd >/dev/null ||
                die "cannot install signify-openbsd to check the bundle's signature (apt-get install signify-openbsd)"
        fi
        if [ -z "$DRY_RUN" ] || command -v signify-openbsd >/dev/null; then
            signify-openbsd -V -q -p "$use_key" -m "$SRC/SHA256SUMS" -x "$SRC/SHA256SUMS.sig" 2>/dev/null ||
                refuse "the bundle's signature does not match the key $use_key (SHA256SUMS changed, or another key signed it)"
        fi
    fi
    listed="$(sed -n 's/^[0-9a-f]\{64\}  //p' "$SRC/SHA256SUMS")"
    [ -n "$listed" ] || refuse "the bundle's SHA256SUMS lists no file"
    # A listed name outside the bundle (../x, /etc/x) would be read, and trusted, where it lies; every line is
    # SUM, two spaces, NAME, as './dev bundle' writes it (sha256sum would read a '*NAME' or '\\NAME' line too).
    bad_name="$(echo "$listed" | LC_ALL=C grep -v -x -E "$PLAIN_NAME" | head -1)" || true
    [ -z "$bad_name" ] || refuse "the bundle's SHA256SUMS names $bad_name: not a plain name inside the bundle"
    bad_line="$(LC_ALL=C grep -v -x -E "[0-9a-f]{64}  $PLAIN_NAME" "$SRC/SHA256SUMS" | head -1)" || true
    [ -z "$bad_line" ] || refuse "the bundle's SHA256SUMS has a line that is not 'SUM  NAME': $bad_line"
    missing_file="$(cd "$SRC" && echo "$listed" | while IFS= read -r f; do [ -f "$f" ] || { echo "$f"; break; }; done)"
    [ -z "$missing_file" ] || refuse "the bundle's $missing_file (in its SHA256SUMS) is missing"
    bad="$(cd "$SRC" && LC_ALL=C sha256sum --strict -c SHA256SUMS 2>/dev/null | sed -n 's/: FAILED$//p' | head -1)" || true
    [ -z "$bad" ] || refuse "the bundle's $bad does not match its SHA256SUMS (changed after the bundle was made)"
    (cd "$SRC" && sha256sum --strict --status -c SHA256SUMS 2>/dev/null) || refuse "the bundle's SHA256SUMS is malformed"
    # Nothing beside them: each file one it lists, each folder one that holds a file it lists.
    names="$(mktemp)"
    echo "$listed" >"$names"
    extra="$(cd "$SRC" && find . -mindepth 1 ! -path ./SHA256SUMS ! -path ./SHA256SUMS.sig -printf '%y %P\n' |
        awk 'NR == FNR { files[$0] = 1; n = split($0, part, "/"); folder = part[1]
                         for (i = 2; i <= n; i++) { folders[folder] = 1; folder = folder "/" part[i] }
                         next }
             { name = substr($0, 3) }
             /^f / && !(name in files) { print "f " name; exit }
             /^d / && !(name in folders) { print "d " name; exit }' "$names" -)"
    rm -f "$names"
    case "$extra" in
        "") ;;
        "f "*) refuse "the bundle's ${extra#f } is not in its SHA256SUMS (added after the bundle was made)" ;;
        *) refuse "the bundle's ${extra#d } is a folder that holds no file its SHA256SUMS lists (added after the bundle was made)" ;;
    esac
    if [ -n "$use_key" ]; then
        say "bundle checked: SHA256SUMS signed by $use_key, every file matches"
        if [ -n "$key" ] && ! cmp -s "$key" "$RELEASE_KEY" 2>/dev/null; then
            say "keeping $key as $RELEASE_KEY: later bundles must be signed by it"
            run mkdir -p "$CONFIG_DIR"
            run install -m 0644 "$key" "$RELEASE_KEY"
        fi
    elif [ -e "$SRC/SHA256SUMS.sig" ]; then
        say "bundle checked against its SHA256SUMS; it is signed, but no key was given to check that (--key FILE)"
    else
        say "bundle checked against its SHA256SUMS (not signed)"
    fi
}
# The version a checked bundle installs: --version if its SHA256SUMS lists that shotclock wheel, else the
# newest it lists (normally the only one).
bundle_version() {
    versions="$(sed -n 's/^[0-9a-f]\{64\}  wheels\/shotclock-\([0-9A-Za-z.+_]*\)-py3-none-any\.whl$/\1/p' \
        "$SRC/SHA256SUMS" | sort -V)"
    [ -n "$versions" ] || refuse "the bundle's SHA256SUMS lists no shotclock wheel (wheels/shotclock-<version>-py3-none-any.whl)"
    if [ -z "$want_version" ]; then
        echo "$versions" | tail -1
    elif echo "$versions" | grep -q -x -F "$want_version"; then
        echo "$want_version"
    else
        die "the bundle has no shotclock $want_version (it has: $(echo "$versions" | tr '\n' ' ' | sed 's/ $//'))"
    fi
}

# --bundle FILE: this install.sh (the one installed, trusted) unpacks the archive into a fresh folder: every
# member a regular file or a folder under one folder shotclock-<version>/, no absolute name, no '..', none twice,
# no more than UNPACK_MAX bytes. It checks that as any bundle, and only then runs its install.sh.
UNPACK_MAX=268435456  # bytes (256 MB; /tmp may be in RAM): a bundle unpacks to about 40 MB
UNPACK_FILES="${SHOTCLOCK_UNPACK_FILES:-10000}"  # members: a bundle has about 100 (the tests lower it)
if [ -n "$bundle_file" ]; then
    [ -f "$bundle_file" ] && [ ! -L "$bundle_file" ] ||
        refuse "the bundle $bundle_file is $(kind_of "$(find "$bundle_file" -maxdepth 0 -printf '%y')"), not an archive"
    command -v python3 >/dev/null || die "--bundle needs python3 to unpack the archive (Raspberry Pi OS has it)"
    UNPACKED="$(mktemp -d)"
    trap 'rm -rf "$UNPACKED"' EXIT
    top="$(python3 - "$bundle_file" "$UNPACKED" "$UNPACK_MAX" "$UNPACK_FILES" <<'PY'
import os, re, shutil, sys, tarfile, zlib

archive, dest, limit, most = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
KINDS = {tarfile.SYMTYPE: "a symbolic link", tarfile.LNKTYPE: "a hard link", tarfile.FIFOTYPE: "a FIFO",
         tarfile.CHRTYPE: "a character device", tarfile.BLKTYPE: "a block device"}
PART = re.compile(r"[A-Za-z0-9_+@=,-][A-Za-z0-9._+@=,-]*")  # install.sh's PLAIN_NAME, one part of it


def refuse(why):
    line = f"install: the bundle {archive}: {why}: not installing"
    print("".join(c if c.isprintable() else "?" for c in line), file=sys.stderr)
    sys.exit(3)


top, total, count = None, 0, 0
try:
    with tarfile.open(archive, "r:gz") as tar:
        for member in tar:
            name = member.name
            count += 1
            if count > most:
                refuse(f"it holds more than {most} members")
            parts = name.rstrip("/").split("/")
            if name.startswith("/") or not all(PART.fullmatch(p) for p in parts):
                refuse(f"its member {name!r} is not a plain path inside one folder")
            if not (member.isreg() or member.isdir()):
                refuse(f"its member {name} is {KINDS.get(member.type, 'not a file or a folder')}")
            top = top or parts[0]
            if parts[0] != top or not re.fullmatch(r"shotclock-[0-9A-Za-z.+_]+", top):
                refuse(f"its member {name} lies outside its folder (shotclock-<version>/)")
            total += member.size
            if total > limit:
                refuse(f"it unpacks to more than {limit // 2**20} MB")
            path = os.path.join(dest, *parts)
            if member.isdir():
                os.makedirs(path, 0o755, exist_ok=True)
                continue
            os.makedirs(os.path.dirname(path), 0o755, exist_ok=True)
            try:
                out = open(path, "xb")  # never over an entry already there, so never through a link
            except (FileExistsError, IsADirectoryError):
                refuse(f"its member {name} is in it twice")
            with out, tar.extractfile(member) as data:
                shutil.copyfileobj(data, out)
            os.chmod(path, 0o755 if member.mode & 0o100 else 0o644)
except (OSError, EOFError, zlib.error, tarfile.TarError) as exc:
    refuse(f"not a .tar.gz archive, or a damaged one ({exc})")
if top is None:
    refuse("it holds nothing")
print(top)
PY
)" || exit $?
    SRC="$UNPACKED/$top"
    [ -d "$SRC/wheels" ] || refuse "the bundle $bundle_file has no wheels/ folder: not a bundle from './dev bundle'"
    verify_bundle
    bundle_version >/dev/null
    say "unpacked $bundle_file into $SRC and checked it: running its install.sh"
    set --
    [ "$stage" = full ] || set -- "$@" "--$stage"
    [ -z "$want_version" ] || set -- "$@" --version "$want_version"
    [ -z "$key" ] || set -- "$@" --key "$key"
    [ -z "$time_server" ] || set -- "$@" --time-server "$time_server"
    [ -z "$data_partition" ] || set -- "$@" --data-partition "$data_partition"
    status=0
    sh "$SRC/hardware/install.sh" "$@" || status=$?
    exit "$status"
fi

if [ -n "$WHEELS" ] && [ -z "$uninstall" ] && [ -z "$rollback" ]; then
    verify_bundle
    want_version="$(bundle_version)" || exit 1
fi

# After a restart: READY (active, running: Type=notify) within READY_TIMEOUT s, and still up with the same
# process READY_HOLD s later (a version that sends READY and dies is not one that runs). Three restarts by
# systemd (Restart=always) in the meantime end the wait early: that version does not start.
service_state() {
    systemctl show -p ActiveState -p SubState -p MainPID shotclock.service 2>/dev/null | LC_ALL=C sort | tr '\n' ' '
}
main_pid() { systemctl show -p MainPID --value shotclock.service 2>/dev/null || echo 0; }
restarts() {
    n="$(systemctl show -p NRestarts --value shotclock.service 2>/dev/null)" || n=0
    case "$n" in ''|*[!0-9]*) n=0 ;; esac
    echo "$n"
}
wait_ready() {  # PID: the main process before the restart, which does not count
    if [ -n "$DRY_RUN" ]; then
        echo "+ wait up to $READY_TIMEOUT s for the service's READY"
        return 0
    fi
    end=$(($(date +%s) + READY_TIMEOUT))
    first="$(restarts)"
    while [ "$(date +%s)" -le "$end" ]; do
        [ $(($(restarts) - first)) -lt 3 ] || return 1
        state="$(service_state)"
        case "$state" in
            "ActiveState=active MainPID="*" SubState=running ")
                case "$state" in *"MainPID=0 "*|*"MainPID=$1 "*) ;; *)
                    sleep "$READY_HOLD"
                    [ "$(service_state)" != "$state" ] || return 0 ;;
                esac ;;
        esac
        sleep 1
    done
    return 1
}

# Restart the service on version $1 (the links already point at it). When it does not become ready, point
# current back at $2 and previous at $3 (or at $1 when $3 is $2), restart that, and exit 4 saying so.
restart_or_switch_back() {
    new="$1"
    old="$2"
    old_prev="$3"
    before="$(main_pid)"
    run systemctl restart --no-block shotclock.service
    if wait_ready "$before"; then
        return 0
    fi
    if [ $(($(restarts) - first)) -ge 3 ]; then why="it stopped $(($(restarts) - first)) times"; else why="no READY within $READY_TIMEOUT s"; fi
    if [ -z "$old" ] || [ "$old" = "$new" ] || [ ! -x "$PREFIX/$old/venv/bin/shotclock" ]; then
        echo "install: shotclock $new did not become ready, and there is no other version to go back to (journalctl -u shotclock -b shows why)" >&2
        exit 4
    fi
    say "shotclock $new did not become ready: switching back to $old"
    run ln -sfn "$old" "$PREFIX/current"
    if [ -n "$old_prev" ] && [ "$old_prev" != "$old" ]; then
        run ln -sfn "$old_prev" "$PREFIX/previous"
    else
        run ln -sfn "$new" "$PREFIX/previous"
    fi
    before="$(main_pid)"
    run systemctl restart --no-block shotclock.service
    if wait_ready "$before"; then
        echo "install: shotclock $new did not become ready ($why): switched back to shotclock $old, which runs (journalctl -u shotclock -b shows why $new failed)" >&2
    else
        echo "install: shotclock $new did not become ready ($why): switched back to shotclock $old, which did not become ready either (journalctl -u shotclock -b)" >&2
    fi
    exit 4
}

# --data-partition DEV: the decision log on a partition of its own (a read-only root keeps nothing
# written to it). A partition with no file system is made ext4 (label shotlog); an ext4 one is kept as it is
# (a re-run, or a log moved from another card); anything else is refused: this script erases no data.
# The log there now is copied across once; the partition is mounted at $STATE_DIR by $DATA_UNIT.
setup_data_partition() {
    dev="$1"
    if [ -n "$DRY_RUN" ]; then
        echo "+ $dev: mkfs.ext4 -L $DATA_LABEL if it holds no file system; copy $STATE_DIR onto it; mount it there ($DATA_UNIT)"
        return 0
    fi
    [ -b "$dev" ] || die "--data-partition $dev is not a block device ('lsblk -o NAME,SIZE,FSTYPE,LABEL,MOUNTPOINTS' lists them)"
    where="$(findmnt -n -o TARGET --source "$dev" 2>/dev/null | head -1)"
    if [ -n "$where" ] && [ "$where" != "$STATE_DIR" ]; then
        die "--data-partition $dev is mounted at $where: choose a partition of its own for the log"
    fi
    command -v mkfs.ext4 >/dev/null || [ -x /usr/sbin/mkfs.ext4 ] || [ -x /sbin/mkfs.ext4 ] ||
        die "--data-partition needs mkfs.ext4: sudo apt-get install e2fsprogs (Raspberry Pi OS has it)"
    fstype="$(blkid -p -o value -s TYPE "$dev" 2>/dev/null || true)"
    case "$fstype" in
        "")
            say "$dev holds no file system: making it ext4 (label $DATA_LABEL) for the decision log"
            mkfs.ext4 -q -L "$DATA_LABEL" "$dev" || die "mkfs.ext4 $dev failed"
            udevadm settle 2>/dev/null || true ;;
        ext4) say "$dev is ext4 already: keeping what it holds" ;;
        *) die "--data-partition $dev holds a $fstype file system, and install.sh erases nothing: make it ext4 \
yourself if nothing on it is needed ('sudo mkfs.ext4 -L $DATA_LABEL $dev' erases it), then run again" ;;
    esac
    uuid="$(blkid -p -o value -s UUID "$dev")" || die "cannot read the UUID of $dev"
    if [ -z "$where" ]; then
        tmp="$(mktemp -d)"
        mount "$dev" "$tmp" || die "cannot mount $dev"
        if [ -e "$STATE_DIR/shotclock.db" ] && [ ! -e "$tmp/shotclock.db" ]; then
            say "copying the decision log in $STATE_DIR onto $dev"
            cp -a "$STATE_DIR/." "$tmp/" || { umount "$tmp"; die "cannot copy $STATE_DIR onto $dev"; }
        fi
        chown "$USER_NAME:$USER_NAME" "$tmp"
        umount "$tmp" && rmdir "$tmp"
    fi
    say "the decision log's partition: $dev (UUID $uuid) at $STATE_DIR ($DATA_UNIT)"
    # Checked at boot before it is mounted, as an fstab line with pass 2 would be (after a power cut).
    fsck_unit="systemd-fsck@$(systemd-escape --path "/dev/disk/by-uuid/$uuid").service"
    cat >"$DATA_UNIT" <<UNIT
# Written by shotclock install.sh --data-partition: the decision log's own partition, so it stays
# writable (and survives power cuts) under a read-only root. A mount unit, not an /etc/fstab line, so
# Raspberry Pi OS's overlay file system leaves it alone. shotclock.service waits for it (StateDirectory=).
[Unit]
Description=shotclock decision log partition
Requires=$fsck_unit
After=$fsck_unit
Before=shotclock.service

[Mount]
What=/dev/disk/by-uuid/$uuid
Where=$STATE_DIR
Type=ext4
Options=noatime

[Install]
WantedBy=local-fs.target
UNIT
    mkdir -p "$STATE_DIR"
    systemctl daemon-reload
    systemctl enable "$(basename "$DATA_UNIT")" >/dev/null 2>&1 || die "cannot enable $DATA_UNIT"
    systemctl start "$(basename "$DATA_UNIT")" || die "cannot mount $dev at $STATE_DIR (journalctl -u $(basename "$DATA_UNIT"))"
    chown "$USER_NAME:$USER_NAME" "$STATE_DIR"
}

current_version() { readlink "$PREFIX/current" 2>/dev/null || true; }
previous_version() { readlink "$PREFIX/previous" 2>/dev/null || true; }

if [ -n "$uninstall" ]; then
    say "stopping and removing the service"
    for u in "$UNIT" "$FIRSTBOOT_UNIT"; do
        if [ -e "$u" ]; then
            run systemctl disable --now "$(basename "$u")" || true
            run rm -f "$u"
        fi
    done
    run systemctl daemon-reload
    run rm -rf "$PREFIX"
    run rm -f "$GPIO_RULE" "$TIMESYNC_CONF"
    case "$(readlink /usr/local/bin/shotclock 2>/dev/null)" in
        "$PREFIX"/*) run rm -f /usr/local/bin/shotclock ;;
    esac
    if [ -n "$purge" ]; then
        say "removing the decision log, the configuration and the user"
        if [ -e "$DATA_UNIT" ]; then  # the log's own partition: emptied, unmounted, left as it is
            run find "$STATE_DIR" -mindepth 1 -delete
            run systemctl disable --now "$(basename "$DATA_UNIT")" || true
            run rm -f "$DATA_UNIT"
            run systemctl daemon-reload
        fi
        run rm -rf "$STATE_DIR" "$CONFIG_DIR"
        if id "$USER_NAME" >/dev/null 2>&1; then run userdel "$USER_NAME"; fi
    else
        say "kept the decision log in $STATE_DIR and the configuration in $CONFIG_DIR (--purge removes them)"
    fi
    say "uninstalled"
    exit 0
fi

if [ -n "$rollback" ]; then
    cur="$(current_version)"
    prev="$(previous_version)"
    if [ -z "$prev" ] || [ ! -x "$PREFIX/$prev/venv/bin/shotclock" ]; then
        die "no previous version to roll back to (installed: ${cur:-none})"
    fi
    say "rolling back from ${cur:-none} to $prev"
    run systemctl stop shotclock.service || true
    run ln -sfn "$prev" "$PREFIX/current"
    if [ -n "$cur" ]; then run ln -sfn "$cur" "$PREFIX/previous"; fi
    restart_or_switch_back "$prev" "$cur" "$prev"
    say "done: shotclock $prev runs, READY ('sh $0 --rollback' again returns to ${cur:-none})"
    exit 0
fi

VDIR="$PREFIX/$want_version"
VENV="$VDIR/venv"
cur="$(current_version)"
if [ "$stage" = switch ]; then
    # Only the switch: the environment was built by --prepare while the old version kept running.
    if [ -z "$DRY_RUN" ] && [ "$("$VENV/bin/shotclock" --version 2>/dev/null)" != "shotclock $want_version" ]; then
        die "shotclock $want_version is not prepared in $VENV: run 'sh $0 --prepare' first"
    fi
    say "switching to the prepared shotclock $want_version${cur:+ (from $cur)}"
else
say "installing shotclock $want_version${WHEELS:+ from the bundle (offline)}"
missing=""
for pkg in $APT_PACKAGES; do
    if ! dpkg-query -W -f '${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $pkg"
    fi
done
if [ -z "$missing" ] && [ -z "$DRY_RUN" ]; then
    say "system packages: all there ($APT_PACKAGES)"
else
    say "system packages:${missing:- $APT_PACKAGES}"
    run apt-get update -qq || say "apt-get update failed (no network?): trying the package lists there are"
    if [ -z "$DRY_RUN" ] && ! apt-cache show python3-lgpio >/dev/null 2>&1; then
        die "python3-lgpio is not in this system's package sources. Raspberry Pi OS has it; on another \
Debian board see 'Other Linux boards' in hardware/README.md"
    fi
    # shellcheck disable=SC2086  # the list is meant to split
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $APT_PACKAGES ||
        die "cannot install:$missing. Offline, these must already be on the image (see 'Offline install' in hardware/README.md)"
fi

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

# One environment per version, side by side: an update never breaks the version running now, and
# --rollback only moves a link.
say "virtual environment in $VENV (seeing the system's lgpio)"
run mkdir -p "$VDIR"
if [ -x "$VENV/bin/python" ] && [ "$("$VENV/bin/python" -c 'import sys; print(sys.version_info[:2])')" != \
        "$(python3 -c 'import sys; print(sys.version_info[:2])')" ]; then
    say "the system's Python changed since the last install: making the environment anew"
    run rm -rf "$VENV"
fi
run python3 -m venv --system-site-packages "$VENV"
if [ -n "$WHEELS" ]; then
    PIP_FROM="--no-index --find-links $WHEELS"
    target="shotclock==$want_version"
else
    PIP_FROM=""
    target="$SRC"
fi
# shellcheck disable=SC2086  # PIP_FROM is options, meant to split
run "$VENV/bin/python" -m pip install -q $PIP_FROM --upgrade pip || say "pip stays at its version (none newer here)"
# shellcheck disable=SC2086
run "$VENV/bin/python" -m pip install -q $PIP_FROM --upgrade --upgrade-strategy only-if-needed "$target"
if [ "$cur" = "$want_version" ]; then
    # The same version again (a checkout with changes): make sure its files are the new ones.
    # shellcheck disable=SC2086
    run "$VENV/bin/python" -m pip install -q $PIP_FROM --force-reinstall --no-deps "$target"
fi
# LG_WD: lgpio makes its notify pipe (.lgd-nfy0) in that folder, else in the current one, which may be the bundle.
run env LG_WD=/tmp "$VENV/bin/python" -c "import lgpio" || die "the environment cannot import lgpio: is python3-lgpio installed?"
installed="$(run "$VENV/bin/shotclock" --version)" || die "the new environment's shotclock does not start"
say "installed: $installed"
run install -m 0644 "$SRC/README.md" "$VDIR/README.md"
# This install.sh stays with the version: the next update runs it (--bundle FILE) to check the new bundle.
run install -D -m 0644 "$SRC/hardware/install.sh" "$VDIR/hardware/install.sh"
if [ -e "$SRC/CHANGELOG.md" ]; then run install -m 0644 "$SRC/CHANGELOG.md" "$VDIR/CHANGELOG.md"; fi
if [ "$stage" = prepare ]; then
    say "prepared shotclock $want_version in $VDIR; ${cur:+shotclock $cur still runs. }Start it with: sudo sh $0 --switch"
    exit 0
fi
fi  # the environment is built (or was prepared)
run ln -sfn "$PREFIX/current/venv/bin/shotclock" /usr/local/bin/shotclock  # 'shotclock selftest' on the PATH

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

say "time sync"
if [ -z "$time_server" ] && [ -z "$DRY_RUN" ]; then
    # The config's [time] server (a first-boot file sets it); empty: the system's default servers.
    time_server="$("$VENV/bin/python" -c 'import sys, tomllib
print(tomllib.load(open(sys.argv[1], "rb")).get("time", {}).get("server", ""))' "$CONFIG_DIR/config.toml" 2>/dev/null)" ||
        time_server=""
    # None named: the floor's broker host, which serves NTP on a closed network ('broker-config --time').
    [ -n "$time_server" ] || time_server="$(network_file host)"
    [ "$time_server" != localhost ] && [ "$time_server" != 127.0.0.1 ] || time_server=""
fi
[ "$time_server" != none ] || time_server=""  # 'none': leave the time set-up alone
if [ -n "$time_server" ]; then
    say "systemd-timesyncd keeps the clock to $time_server ($TIMESYNC_CONF)"
    run mkdir -p "$(dirname "$TIMESYNC_CONF")"
    if [ -n "$DRY_RUN" ]; then
        echo "+ write $TIMESYNC_CONF: NTP=$time_server"
    else
        printf '# Written by shotclock install.sh: the floor serves time (shotclock broker-config --time).\n[Time]\nNTP=%s\nFallbackNTP=\n' \
            "$time_server" >"$TIMESYNC_CONF"
    fi
fi
if [ -n "$DRY_RUN" ] || systemctl cat systemd-timesyncd.service >/dev/null 2>&1; then
    run systemctl enable systemd-timesyncd.service || true
    run systemctl restart systemd-timesyncd.service || true
    run timedatectl set-ntp true || true
else
    say "systemd-timesyncd is not installed here: the clock is not kept in sync (apt-get install systemd-timesyncd)"
fi

say "systemd service"
# On an update the running service holds the pins, the screen and the sound card: stop it so
# the self-test sees the idle hardware, then start the new version.
if [ -z "$DRY_RUN" ] && systemctl is-active --quiet shotclock.service; then
    run systemctl stop shotclock.service
fi
if [ -n "$data_partition" ]; then
    setup_data_partition "$data_partition"
fi
prev_before="$(previous_version)"
if [ -n "$cur" ] && [ "$cur" != "$want_version" ]; then
    run ln -sfn "$cur" "$PREFIX/previous"
fi
run ln -sfn "$want_version" "$PREFIX/current"
run install -m 0644 "$SRC/hardware/shotclock.service" "$UNIT"
run install -m 0644 "$SRC/hardware/shotclock-firstboot.service" "$FIRSTBOOT_UNIT"
run systemctl daemon-reload
run systemctl enable shotclock.service shotclock-firstboot.service

selftest_ok=1
if [ "$stage" = full ]; then
    say "self-test (as $USER_NAME, as the service runs)"
    run runuser -u "$USER_NAME" -- env SDL_VIDEODRIVER=kmsdrm SDL_AUDIODRIVER=alsa LG_WD=/tmp \
        "$VENV/bin/shotclock" selftest --config "$CONFIG_DIR/config.toml" || selftest_ok=""
fi

restart_or_switch_back "$want_version" "$cur" "$prev_before"
[ -n "$DRY_RUN" ] || say "shotclock $want_version is READY under systemd"
# Older versions than the previous one go, now that the new one runs: an SD card is small, and one step
# back is what a rollback needs.
prev="$(previous_version)"
for old in "$PREFIX"/*/; do
    name="$(basename "$old")"
    case "$name" in
        "$want_version"|"$prev"|current|previous|'*') ;;
        venv) run rm -rf "$PREFIX/venv"; say "removed the environment of the old layout ($PREFIX/venv)" ;;
        *) run rm -rf "$PREFIX/$name"; say "removed shotclock $name (older than the previous version)" ;;
    esac
done
if [ -z "$selftest_ok" ]; then
    say "the self-test found a problem: see above, and 'journalctl -u shotclock'"
fi
say "done: shotclock $want_version${cur:+ (before: $cur; 'sh $0 --rollback' returns to it)}. Logs: journalctl -u shotclock -f"
