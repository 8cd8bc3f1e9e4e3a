"""shotclock uses paho-mqtt's public API only: an upgrade of paho within its major version must not break a
device or the fleet silently. An AST scan of shotclock/ and bench/ finds each reach into paho's private
attributes (``client._client_id = ...``, ``client._host``, a patched ``client._create_socket_connection``), by
the names paho's own objects hold, and each import of a private name from paho."""

import ast
from pathlib import Path

import paho.mqtt.client as mqtt

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("shotclock", "bench")
# What the code once used (kept even if a paho release renames them): the scan must find these.
KNOWN = {"_client_id", "_host", "_port", "_ssl", "_connect_timeout", "_create_socket_connection", "_create_socket",
         "_reconnect_min_delay", "_reconnect_max_delay", "_sock", "_thread", "_out_packet", "_state"}


def paho_private_names() -> set[str]:
    """The single-underscore names a paho client, message and message info hold (attributes and methods)."""
    names = set(KNOWN)
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    objects = [client, mqtt.MQTTMessage(), mqtt.MQTTMessageInfo(1)]
    for obj in objects:
        names |= set(dir(obj))  # its attributes (slots too), its class's and its bases' methods
    return {n for n in names if n.startswith("_") and not n.endswith("__")}


def own_receiver(node: ast.expr, own_classes: set[str]) -> bool:
    """``self._x``, ``cls._x``, ``super()._x`` and ``OurClass._x``: our own objects' private names, not paho's."""
    if isinstance(node, ast.Name):
        return node.id in ("self", "cls") or node.id in own_classes
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def private_uses(source: str, private: set[str], own_classes: set[str]) -> list[tuple[int, str]]:
    """(line, what) for each use of a paho private name in ``source``."""
    found = []
    nodes = sorted((n for n in ast.walk(ast.parse(source)) if hasattr(n, "lineno")), key=lambda n: (n.lineno, n.col_offset))
    for node in nodes:
        if isinstance(node, ast.Attribute) and node.attr in private and not own_receiver(node.value, own_classes):
            found.append((node.lineno, ast.unparse(node)))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in ("getattr", "setattr", "delattr", "hasattr") and len(node.args) >= 2
              and isinstance(node.args[1], ast.Constant) and node.args[1].value in private):
            found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("paho"):
            found += [(node.lineno, f"from {node.module} import {a.name}") for a in node.names
                      if a.name.startswith("_")]
    return found


def scanned_files():
    for folder in SCANNED:
        yield from sorted((ROOT / folder).rglob("*.py"))


def own_class_names(files) -> set[str]:
    names = set()
    for path in files:
        names |= {n.name for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.ClassDef)}
    return names


def test_no_module_uses_a_private_attribute_of_paho():
    files = list(scanned_files())
    private, own = paho_private_names(), own_class_names(files)
    uses = [f"{path.relative_to(ROOT)}:{line}: {what}" for path in files
            for line, what in private_uses(path.read_text(), private, own)]
    assert not uses, "paho's private API used (an upgrade breaks it silently):\n" + "\n".join(uses)


def test_the_scan_finds_what_the_fleet_and_the_device_once_did():
    private = paho_private_names()
    before = '''
class LoopLink(MqttLink):
    def set_login(self, password):
        self.client._client_id = password.encode()
        c = self.client
        c._create_socket_connection = self._open_socket
        low = self.client._reconnect_min_delay
        super()._on_connect(c, None)
        if getattr(c, "_ssl"):
            return socket.create_connection((c._host, c._port), timeout=c._connect_timeout)
from paho.mqtt.client import _socketpair_compat
'''
    found = [what for _, what in private_uses(before, private, {"LoopLink", "MqttLink"})]
    assert found == ["self.client._client_id", "c._create_socket_connection", "self.client._reconnect_min_delay",
                     "getattr(c, '_ssl')", "c._host", "c._port", "c._connect_timeout",
                     "from paho.mqtt.client import _socketpair_compat"]


def test_paho_is_pinned_to_the_major_version_the_code_is_written_for():
    import configparser

    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    lines = (line.split("#", 1)[0].strip() for line in config["options"]["install_requires"].splitlines())
    assert [r for r in lines if r.startswith("paho-mqtt")] == ["paho-mqtt >= 2.0, < 3"]
    assert mqtt.CallbackAPIVersion.VERSION2  # the callbacks' form the code is written for
