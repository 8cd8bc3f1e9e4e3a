"""Build the offline install bundle: everything a table needs from PyPI, in one archive (``./dev bundle``).

Run it on a laptop with internet; carry the archive to the venue; install each Pi with no network::

    ./dev bundle                          # dist/shotclock-<version>-aarch64.tar.gz, Python 3.11 and 3.13
    ./dev bundle --sign release.sec       # the same, SHA256SUMS signed (signify; see hardware/README.md)
    tar -xzf shotclock-<version>-aarch64.tar.gz && sudo sh shotclock-<version>/hardware/install.sh

The archive holds ``shotclock-<version>/`` with the project's wheel and every wheel it needs for each
Python (Raspberry Pi OS bookworm has 3.11, trixie 3.13) on the chosen CPU, ``hardware/install.sh``
with the unit files and the example configuration, README.md, CHANGELOG.md, the hardware guide, every document
and picture those link to (so the bundle's guide reads whole offline) and SHA256SUMS (with ``--sign``,
SHA256SUMS.sig beside it). install.sh sees the ``wheels/`` folder, checks every entry against SHA256SUMS (and
the signature against the project's public key, when it has one), and installs from it alone
(``pip install --no-index``). A table updates with its installed install.sh, which unpacks the archive itself
and checks it before any of its files runs::

    sudo sh /opt/shotclock/current/hardware/install.sh --bundle shotclock-<version>-aarch64.tar.gz

Exit 0 with the archive's path; 2 when pip cannot fetch or build a wheel (the message names it).
Standard library only: it runs before any environment exists.
"""

from __future__ import annotations

import argparse
import configparser
import hashlib
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Python of each Raspberry Pi OS release -> its glibc minor version (pip does not expand --platform).
GLIBC = {"3.11": 36, "3.13": 41}
HARDWARE_FILES = ["install.sh", "shotclock.service", "shotclock-firstboot.service", "config.example.toml"]
GUIDES = ["README.md", "CHANGELOG.md", "hardware/README.md"]  # the bundle's documents; what they link to follows
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
# A name install.sh takes (its PLAIN_NAME): letters, digits and ._+@=,- in each part, none beginning with a dot.
PLAIN_NAME = r"[A-Za-z0-9_+@=,-][A-Za-z0-9._+@=,-]*(/[A-Za-z0-9_+@=,-][A-Za-z0-9._+@=,-]*)*"


class Fail(Exception):
    """A step that could not be done; its message is the one line shown."""


def version() -> str:
    """The release, from shotclock/__init__.py (the one place it is written)."""
    text = (ROOT / "shotclock" / "__init__.py").read_text()
    match = re.search(r'^__version__ = "([^"]+)"', text, re.M)
    if not match:
        raise Fail("shotclock/__init__.py has no __version__")
    return match.group(1)


def install_requires() -> list[str]:
    """setup.cfg's install_requires, comments dropped."""
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    lines = (line.split("#", 1)[0].strip() for line in cfg["options"]["install_requires"].splitlines())
    return [line for line in lines if line]


def platforms(arch: str, glibc: int) -> list[str]:
    """Every manylinux tag a system with glibc 2.<glibc> on ``arch`` accepts."""
    return [f"manylinux2014_{arch}", *(f"manylinux_2_{minor}_{arch}" for minor in range(17, glibc + 1))]


def pip(args: list[str], what: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "pip", *args], capture_output=True, text=True)
    if proc.returncode != 0:
        last = [line for line in (proc.stderr or proc.stdout).splitlines() if line.strip()][-1:] or ["(no output)"]
        raise Fail(f"{what} failed: {last[0].strip()}")


def linked_files(root: Path = ROOT, start=GUIDES) -> list[Path]:
    """The documents ``start`` and every file of ``root`` they link to, transitively (a linked folder: its
    files), as paths relative to ``root``: what the bundle carries so that no link of its guides is dead."""
    todo, seen = [Path(p) for p in start], set()
    while todo:
        rel = todo.pop()
        if rel in seen or not (root / rel).is_file():
            continue
        seen.add(rel)
        if rel.suffix != ".md":
            continue
        text = re.sub(r"```.*?```", "", (root / rel).read_text(encoding="utf-8"), flags=re.S)
        for target in LINK.findall(text):
            file = target.partition("#")[0]
            if not file or re.match(r"[a-z]+:", file):
                continue
            path = (root / rel.parent / file).resolve()
            if root.resolve() not in path.parents:
                continue
            if path.is_dir():
                todo += [p.relative_to(root.resolve()) for p in sorted(path.iterdir()) if p.is_file()]
            else:
                todo.append(path.relative_to(root.resolve()))
    return sorted(seen)


def copy_documents(top: Path, root: Path = ROOT) -> None:
    """Copy the guides and everything they link to into the bundle's folder ``top``."""
    for rel in linked_files(root):
        (top / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / rel, top / rel)


def write_sums(top: Path) -> Path:
    """Write ``top/SHA256SUMS`` (``sha256sum``'s format) for every file under ``top``; return its path.

    Raises :class:`Fail` for an entry install.sh would refuse: a link, a FIFO or a device, a name not plain."""
    entries = [p for p in sorted(top.rglob("*")) if str(p.relative_to(top)) not in ("SHA256SUMS", "SHA256SUMS.sig")]
    for p in entries:
        rel = str(p.relative_to(top))
        if p.is_symlink() or not (p.is_file() or p.is_dir()):
            raise Fail(f"{rel} is not a regular file or a folder: install.sh would refuse the bundle")
        if not re.fullmatch(PLAIN_NAME, rel):
            raise Fail(f"{rel!r} is not a plain name (letters, digits, ._+@=,-): install.sh would refuse the bundle")
    sums = [f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.relative_to(top)}" for p in entries if p.is_file()]
    path = top / "SHA256SUMS"
    path.write_text("\n".join(sums) + "\n")
    return path


def check_secret_key(secret_key: Path) -> None:
    """Fail unless signing with ``secret_key`` can be tried: the tool is there and the file exists."""
    if shutil.which("signify-openbsd") is None:
        raise Fail("--sign needs signify-openbsd (sudo apt-get install signify-openbsd)")
    if not secret_key.is_file():
        raise Fail(f"--sign {secret_key}: no such file (a signify secret key, see 'Signed releases' in hardware/README.md)")


def sign(sums: Path, secret_key: Path) -> Path:
    """Sign ``sums`` with signify's ``secret_key``: writes ``SHA256SUMS.sig`` beside it; returns its path."""
    check_secret_key(secret_key)
    tool = shutil.which("signify-openbsd")
    sig = sums.with_name("SHA256SUMS.sig")
    proc = subprocess.run([tool, "-S", "-s", str(secret_key), "-m", str(sums), "-x", str(sig)],
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        last = [line for line in proc.stderr.splitlines() if line.strip()][-1:] or ["(no output)"]
        raise Fail(f"signing with {secret_key} failed: {last[0].strip()}")
    return sig


def build(out: Path, arch: str, pythons: list[str], find_links: Path | None = None,
          secret_key: Path | None = None) -> Path:
    """Write the bundle archive into ``out``; return its path.

    :param arch: the CPU as in wheel tags: ``aarch64`` (every Pi from the 3 on, 64-bit OS) or ``x86_64``.
    :param pythons: the Python versions to carry wheels for, such as ``["3.11", "3.13"]``.
    :param find_links: take every wheel from this folder instead of PyPI (no network at all).
    :param secret_key: sign SHA256SUMS with this signify secret key (``SHA256SUMS.sig``).
    """
    ver = version()
    index = ["--no-index", "--find-links", str(find_links)] if find_links else []
    name = f"shotclock-{ver}"
    with tempfile.TemporaryDirectory() as tmp:
        top = Path(tmp) / name
        wheels = top / "wheels"
        wheels.mkdir(parents=True)
        pip(["wheel", "--quiet", "--no-deps", *index, "--wheel-dir", str(wheels), str(ROOT)],
            "building shotclock's wheel")
        for python in pythons:
            tags = [a for p in platforms(arch, GLIBC.get(python, 41)) for a in ("--platform", p)]
            pip(["download", "--quiet", *index, "--dest", str(wheels), "--only-binary", ":all:", *tags,
                 "--python-version", python, "--implementation", "cp", *install_requires(), "pip"],
                f"fetching the wheels for Python {python} on {arch}")
        (top / "hardware").mkdir()
        for f in HARDWARE_FILES:
            shutil.copy2(ROOT / "hardware" / f, top / "hardware" / f)
        copy_documents(top)  # the guides, and the documents and pictures they link to: offline too
        sums = write_sums(top)
        if secret_key is not None:
            sign(sums, secret_key)
        out.mkdir(parents=True, exist_ok=True)
        archive = out / f"{name}-{arch}.tar.gz"
        with tarfile.open(archive, "w:gz") as tar:
            tar.add(top, arcname=name)
    return archive


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="./dev bundle", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="where the archive goes (default dist/)")
    parser.add_argument("--arch", default="aarch64", choices=["aarch64", "x86_64"],
                        help="the table's CPU (default aarch64: a Pi 3, 4 or 5 with a 64-bit OS)")
    parser.add_argument("--python", default="3.11,3.13", metavar="VERSIONS",
                        help="the Pythons to carry wheels for (default 3.11,3.13: Raspberry Pi OS bookworm, trixie)")
    parser.add_argument("--find-links", type=Path, metavar="DIR",
                        help="take the wheels from this folder, not from PyPI (no network)")
    parser.add_argument("--sign", type=Path, metavar="KEY",
                        help="sign SHA256SUMS with this signify secret key (signify-openbsd -G makes one)")
    args = parser.parse_args(argv)
    pythons = [p.strip() for p in args.python.split(",") if p.strip()]
    if not pythons or not all(re.fullmatch(r"3\.\d+", p) for p in pythons):
        print(f"bundle: --python {args.python!r} must list versions such as 3.11,3.13", file=sys.stderr)
        return 2
    try:
        if args.sign is not None:
            check_secret_key(args.sign)  # before minutes of fetching wheels
        archive = build(args.out, args.arch, pythons, args.find_links, args.sign)
    except Fail as exc:
        print(f"bundle: {exc}", file=sys.stderr)
        return 2
    print(f"bundle: wrote {archive} ({archive.stat().st_size / 1e6:.1f} MB; Python {', '.join(pythons)} on "
          f"{args.arch}{'; SHA256SUMS signed with ' + str(args.sign) if args.sign else ''})")
    print(f"bundle: on the Pi: tar -xzf {archive.name} && sudo sh {archive.name.split('-' + args.arch)[0]}"
          f"/hardware/install.sh")
    return 0


if __name__ == "__main__":
    sys.exit(main())
