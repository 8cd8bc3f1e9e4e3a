"""The appliance test's own parts that run without a VM (the VM run itself is ``./dev vmtest``)."""

import importlib.util
import time
import math
import py_compile
import struct
import subprocess
import sys
import wave
from pathlib import Path

import pytest

VMTEST = Path(__file__).parent.parent / "hardware" / "vmtest"


@pytest.fixture(scope="module")
def vmtest():
    spec = importlib.util.spec_from_file_location("vmtest", VMTEST / "vmtest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_image_gets_the_packages_install_sh_installs(vmtest):
    packages = vmtest.apt_packages().split()
    assert {"python3-venv", "python3-lgpio", "alsa-utils", "libopengl0"} <= set(packages)
    install = (VMTEST.parent / "install.sh").read_text()
    assert 'apt-get install -y -qq $APT_PACKAGES' in install  # the list the image mirrors is the one installed


def test_wheels_cover_install_and_build_requirements(vmtest):
    reqs = vmtest.install_requires() + vmtest.build_requires()
    assert any(r.startswith("gpiozero") for r in reqs) and any(r.startswith("setuptools") for r in reqs)


def write_wav(path, samples, rate=8000):
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"".join(struct.pack("<h", s) for s in samples))


def test_sound_level_tells_a_beep_from_silence(vmtest, tmp_path):
    write_wav(tmp_path / "silent.wav", [0] * 8000)
    write_wav(tmp_path / "beep.wav", [0] * 4000 + [int(12000 * math.sin(i / 3)) for i in range(800)] + [0] * 3200)
    assert vmtest.sound_level(tmp_path / "silent.wav")["loud_share"] == 0
    beep = vmtest.sound_level(tmp_path / "beep.wav")
    assert beep["seconds"] == 1.0 and beep["peak"] > 11000 and 0.05 < beep["loud_share"] < 0.2
    assert vmtest.sound_level(tmp_path / "missing.wav")["loud_share"] == 0


def test_report_ends_with_a_plain_count(vmtest, tmp_path, capsys):
    report = {"suite": "trixie", "timings": {"total": {"seconds": 1.0}}, "figures": {"boot_to_ready_s": 30},
              "checks": [{"name": "a", "ok": True, "detail": "x|y"}, {"name": "b", "ok": False, "detail": ""}]}
    vmtest.write_report(tmp_path, report)
    out = capsys.readouterr().out
    assert out.strip().splitlines()[-1] == "vmtest: 1 passed, 1 failed"
    assert "| a | PASS | x/y |" in (tmp_path / "report.md").read_text()


def test_guest_and_build_scripts_parse():
    py_compile.compile(str(VMTEST / "guest" / "checks.py"), doraise=True)
    py_compile.compile(str(VMTEST / "guest" / "readonly.py"), doraise=True)
    for script in [*VMTEST.glob("*.sh"), *VMTEST.glob("*/*.sh")]:
        proc = subprocess.run(["sh", "-n", str(script)], capture_output=True, text=True)
        assert proc.returncode == 0, f"{script.name}: {proc.stderr}"


def test_read_only_boots_add_their_checks_and_name_their_figures(vmtest, tmp_path):
    (tmp_path / "results-readonly.json").write_text(
        '{"checks": [{"name": "a", "ok": true, "detail": ""}], "figures": {"boot_to_ready_s": 40}}')
    report = {"checks": [], "figures": {}}
    vmtest.guest_results(tmp_path, "readonly", report)
    vmtest.guest_results(tmp_path, "afterreset", report)  # wrote nothing: that is a failed check
    assert [c["ok"] for c in report["checks"]] == [True, False]
    assert "checks-afterreset.log" in report["checks"][1]["detail"]
    assert report["figures"] == {"readonly_boot_to_ready_s": 40}


def test_read_only_run_names_itself_in_the_report(vmtest, tmp_path, capsys):
    report = {"suite": "trixie", "arch": "x86_64", "read_only": True, "timings": {}, "figures": {},
              "checks": [{"name": "a", "ok": True, "detail": ""}]}
    vmtest.write_report(tmp_path, report)
    assert (tmp_path / "report.md").read_text().startswith("# shotclock appliance test (trixie, x86_64, read-only root)")


def test_a_stage_two_runs_need_at_once_is_built_once(vmtest, tmp_path):
    """CI builds the stages in the background while the boots wait for them: the second run waits, builds nothing."""
    import threading

    built = []
    started = threading.Event()

    def build(path):
        started.set()
        time.sleep(0.3)  # long enough that the other run asks while this one builds
        built.append(threading.current_thread().name)
        path.write_text("stage")

    timings = [{}, {}]
    images = [vmtest.Image("trixie", tmp_path / "cache", tmp_path / "out", t) for t in timings]
    path = images[0].cache / "base-x.tar"
    results = []
    first = threading.Thread(target=lambda: results.append(images[0].stage("base", path, build)), name="first")
    first.start()
    assert started.wait(10)
    results.append(images[1].stage("base", path, build))
    first.join(10)
    assert built == ["first"] and results == [path, path] and path.read_text() == "stage"
    assert timings[0]["base"]["cached"] is False and timings[1]["base"]["cached"] is True


def fake_send(tmp_path, name, lines, linger=0.0):
    """A stand-in for one ``shotclock send --json``: prints ``lines`` (acks), then stays ``linger`` s."""
    script = tmp_path / f"{name}.py"
    script.write_text("import json, sys, time\n"
                      f"for line in {lines!r}:\n    print(json.dumps(line), flush=True)\n"
                      f"time.sleep({linger})\nsys.exit(0 if {bool(lines)!r} else 2)\n")
    return [sys.executable, str(script)]


def test_the_power_goes_the_moment_the_last_ack_is_read_not_when_send_exits(vmtest, tmp_path):
    net = vmtest.floornet
    cuts = []
    done = {"name": "seat", "id": "a", "outcome": "done", "outputs": [{"type": "seat", "seat": 4}]}
    started = time.monotonic()
    result = net.send_then_cut([("seat", fake_send(tmp_path, "seat", [done])),
                                ("top_up", fake_send(tmp_path, "top", [dict(done, name="top_up")], linger=3.0))],
                               lambda: cuts.append(time.monotonic()))
    assert result["cut"] and len(cuts) == 1 and [a["name"] for a in result["acks"]] == ["seat", "top_up"]
    assert cuts[0] - started < 2.5  # the last stand-in stays 3 s after its ack: the cut did not wait for it
    assert 0 <= result["ack_to_cut_ms"] < 1000


def test_no_power_cut_when_a_command_was_not_done_and_the_probe_waits_for_an_answer(vmtest, tmp_path):
    net = vmtest.floornet
    cuts = []
    ignored = {"name": "seat", "id": "b", "outcome": "ignored", "reason": "seat 4 is taken"}
    result = net.send_then_cut([("seat", fake_send(tmp_path, "seat", [ignored])),
                                ("top_up", fake_send(tmp_path, "top", [dict(ignored, outcome="done")]))],
                               lambda: cuts.append(1))
    assert not result["cut"] and not cuts and "seat 4 is taken" in result["problem"]
    flag = tmp_path / "answered"  # the table answers the probe's second try only
    probe = tmp_path / "probe.py"
    probe.write_text(f"import json, pathlib\np = pathlib.Path({str(flag)!r})\n"
                     "if p.exists():\n    print(json.dumps({'name': 'cancel', 'outcome': 'ignored'}))\n"
                     "else:\n    p.write_text('')\n")
    result = net.send_then_cut([("top_up", fake_send(tmp_path, "top", [dict(ignored, outcome="done")]))],
                               lambda: cuts.append(1), probe=[sys.executable, str(probe)], probe_for=30)
    assert result["probe"]["outcome"] == "ignored" and result["cut"] and cuts == [1]
    flag.unlink()
    result = net.send_then_cut([], lambda: None, probe=[sys.executable, "-c", "pass"], probe_for=0)
    assert not result["cut"] and "never answered" in result["problem"]
