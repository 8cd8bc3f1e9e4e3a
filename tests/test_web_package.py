"""The web pages as shipped: self-contained (no internet), the vendored MQTT.js as recorded, the device's
texts current, and the broker configured to serve them."""

import hashlib
import json
import re
from pathlib import Path

from shotclock.floor.broker_config import BrokerPlan, Endpoint, conf_text
from shotclock.web import DEVICE_RULES, DEVICE_TEXTS, GENERATED, device_rules, web_dir

WEB = web_dir()
PAGES = ["dashboard/index.html", "overlay/index.html", "report/index.html"]


def test_vendored_mqttjs_is_the_recorded_release():
    meta = json.loads((WEB / "vendor" / "mqtt.json").read_text())
    data = (WEB / "vendor" / "mqtt.min.js").read_bytes()
    assert hashlib.sha256(data).hexdigest() == meta["sha256"], "mqtt.min.js changed: run tools/vendor-mqttjs.sh"
    assert meta["license"] == "MIT" and (WEB / "vendor" / "mqtt.LICENSE.md").read_text().startswith("The MIT License")
    assert re.fullmatch(r"\d+\.\d+\.\d+", meta["version"])


def test_device_texts_and_rules_are_generated_from_the_core():
    # The pages say what the device's screen says, in its colours: regenerate with 'python -m shotclock.web'.
    assert set(GENERATED) == {DEVICE_TEXTS, DEVICE_RULES}
    for name, make in GENERATED.items():
        assert (WEB / name).read_text(encoding="utf-8") == make(), \
            f"the core changed: run 'python -m shotclock.web' and commit {name}"


def test_the_pages_take_their_rule_constants_from_the_generated_file():
    # Both pages load the generated rules before the scripts that read them, and nothing else on a page
    # names a tone's colour or defines a tone's variable: a stylesheet can only say var(--check) and so on.
    for name in PAGES:
        scripts = [ref for ref in _references(WEB / name) if ref.endswith(".js")]
        order = [s.split("/")[-1] for s in scripts]
        assert order.index("device-rules.js") < order.index("clock.js") < order.index("tones.js") \
            < order.index("texts.js"), name
    rules = device_rules()
    colours = {c for tone in rules["tones"].values() for c in tone.values()}
    tone_names = "|".join(rules["tones"])
    for path in list(WEB.glob("*/*.css")) + [p for p in WEB.glob("*/*.js") if p.parent.name != "vendor"]:
        if path.relative_to(WEB).as_posix() in GENERATED:
            continue
        text = path.read_text(encoding="utf-8").lower()
        assert not [c for c in colours if c in text], f"{path.name} names a tone's colour: take it from var(--…)"
        assert not re.search(rf"--(?:{tone_names})(?:-bg|-ring|-ink)?\s*:", text), f"{path.name} defines a tone"
    for name in ("dashboard/dashboard.js", "overlay/overlay.js", "report/report.js"):
        assert "S.paintTones(document.documentElement)" in (WEB / name).read_text(encoding="utf-8"), name
    clock = (WEB / "lib" / "clock.js").read_text(encoding="utf-8")
    assert "RULES = root.Shotclock.DEVICE_RULES" in clock and "RULES.ruling_ms" in clock and "10000" not in clock


def _references(page: Path) -> list[str]:
    html = page.read_text(encoding="utf-8")
    return re.findall(r'(?:src|href)="([^"]+)"', html)


def test_pages_load_only_files_shipped_with_the_package():
    for name in PAGES:
        page = WEB / name
        refs = _references(page)
        assert refs, name
        for ref in refs:
            if ref.startswith("data:"):
                continue
            assert "://" not in ref and not ref.startswith("//"), f"{name} loads {ref} from the network"
            assert (page.parent / ref).resolve().is_file(), f"{name}: {ref} is missing"
    for script in WEB.glob("*/*.js"):
        if script.name == "mqtt.min.js":
            continue
        text = script.read_text(encoding="utf-8")
        assert not re.search(r"""["'](?:https?:)?//""", text), f"{script.name} names a network address"


def test_broker_config_serves_the_pages_from_the_websockets_listener(tmp_path):
    plan = BrokerPlan("casino", ["1"], websockets=Endpoint("127.0.0.1", 9001), pages=str(WEB))
    conf = conf_text(plan, tmp_path)
    ws = conf[conf.index("listener 9001"):]
    assert "protocol websockets" in ws and f"http_dir {WEB}" in ws
    # Mosquitto 2.0 ignores a websockets listener's address: the interface keeps it on loopback.
    assert "bind_interface lo" in ws
    assert "http_dir" not in conf_text(BrokerPlan("casino", ["1"]), tmp_path)


def test_the_seat_forms_take_their_bounds_from_the_table_of_fields():
    # One bound per field, in core/fields.py: the dashboard's seat forms take theirs from the generated rules.
    from shotclock.core.fields import BANK_MAX, CHIPS_MAX, MAX_SEATS

    seats = (WEB / "dashboard" / "seats.js").read_text(encoding="utf-8")
    assert "S.DEVICE_RULES.fields" in seats
    assert not re.findall(r"numberInput\([^)]*\d", seats), "a seat form's bound written by hand"
    fields = device_rules()["fields"]
    assert (fields["seat"]["max"], fields["chips"]["max"], fields["bank"]["max"]) == (MAX_SEATS, CHIPS_MAX, BANK_MAX)


def test_the_pages_take_the_commands_the_ruling_at_zero_and_the_countdown_from_the_engine():
    # What a dashboard may send in each phase, what a clock rules at 0 and where the countdown begins are the
    # engine's (core/engine.py), generated into device-rules.js: the pages' scripts hold no copy of them.
    from shotclock.core.engine import TRANSITIONS, consequence, in_countdown
    from shotclock.core.events import EVENT_TYPES

    rules = device_rules()
    assert rules["consequence"] == {"bet": consequence(True), "no_bet": consequence(False)} \
        == {"bet": "hand_dead", "no_bet": "check"}
    assert rules["countdown_includes_start"] is in_countdown(5.0, 5) is True
    commands = rules["commands"]
    assert commands["clock"] == {"idle": ["call"], "running": ["pause", "cancel"], "paused": ["resume", "cancel"]}
    assert commands["shot"] == {"idle": ["start"], "running": ["pause", "extend", "stop"],
                                "paused": ["resume", "extend", "stop"]}  # a paused shot clock takes an extension
    for mode, phases in commands.items():
        for phase, names in phases.items():
            assert all(EVENT_TYPES[n] in TRANSITIONS[mode][phase] for n in names), (mode, phase)
    for path in [p for p in WEB.glob("*/*.js") if p.parent.name != "vendor"]:
        if path.relative_to(WEB).as_posix() in GENERATED:
            continue
        text = path.read_text(encoding="utf-8")
        assert not re.search(r'\?\s*"hand_dead"|"check"\s*[;:]', text), f"{path.name} rules at 0 by itself"
        assert not re.search(r'return\s*\[\s*"(?:call|start|resume|pause)"', text), f"{path.name} lists commands"
        assert not re.search(r"<=\s*\(?s\.countdown", text), f"{path.name} decides the countdown by itself"
