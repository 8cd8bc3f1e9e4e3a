"""The web pages as shipped: self-contained (no internet), the vendored MQTT.js as recorded, the device's
texts current, and the broker configured to serve them."""

import hashlib
import json
import re
from pathlib import Path

from shotclock.floor.broker_config import BrokerPlan, Endpoint, conf_text
from shotclock.web import DEVICE_TEXTS, device_texts_js, web_dir

WEB = web_dir()
PAGES = ["dashboard/index.html", "overlay/index.html"]


def test_vendored_mqttjs_is_the_recorded_release():
    meta = json.loads((WEB / "vendor" / "mqtt.json").read_text())
    data = (WEB / "vendor" / "mqtt.min.js").read_bytes()
    assert hashlib.sha256(data).hexdigest() == meta["sha256"], "mqtt.min.js changed: run tools/vendor-mqttjs.sh"
    assert meta["license"] == "MIT" and (WEB / "vendor" / "mqtt.LICENSE.md").read_text().startswith("The MIT License")
    assert re.fullmatch(r"\d+\.\d+\.\d+", meta["version"])


def test_device_texts_are_generated_from_the_core():
    # The pages say what the device's screen says: regenerate with 'python -m shotclock.web'.
    assert (WEB / DEVICE_TEXTS).read_text(encoding="utf-8") == device_texts_js(), \
        "core/texts.py changed: run 'python -m shotclock.web' and commit the file"


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


def test_setup_cfg_ships_every_page_file():
    import configparser
    import fnmatch

    cfg = configparser.ConfigParser()
    cfg.read(Path(__file__).parent.parent / "setup.cfg")
    patterns = [p.strip() for p in cfg["options.package_data"]["shotclock"].split(",")]
    for path in WEB.rglob("*"):
        if path.is_file() and path.suffix not in (".py", ".pyc"):
            rel = path.relative_to(WEB.parent).as_posix()
            assert any(fnmatch.fnmatch(rel, p) for p in patterns), f"{rel} would not be installed"


def test_broker_config_serves_the_pages_from_the_websockets_listener(tmp_path):
    plan = BrokerPlan("casino", ["1"], websockets=Endpoint("127.0.0.1", 9001), pages=str(WEB))
    conf = conf_text(plan, tmp_path)
    ws = conf[conf.index("listener 9001"):]
    assert "protocol websockets" in ws and f"http_dir {WEB}" in ws
    # Mosquitto 2.0 ignores a websockets listener's address: the interface keeps it on loopback.
    assert "bind_interface lo" in ws
    assert "http_dir" not in conf_text(BrokerPlan("casino", ["1"]), tmp_path)
