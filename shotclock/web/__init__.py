"""The floor's browser pages: the dashboard and the broadcast overlay.

Static files shipped inside the package (HTML, CSS, JavaScript and the vendored MQTT.js), served by
Mosquitto itself from its websockets listener (``http_dir``), so a page and its MQTT connection share
one address, one TLS certificate and one set of credentials; see docs/network.md.

``python -m shotclock.web`` regenerates ``lib/device-texts.js`` from :mod:`shotclock.core.texts`, so
the pages say exactly what the device's screen says.
"""

from __future__ import annotations

import json
from pathlib import Path

from shotclock.core import texts

DEVICE_TEXTS = "lib/device-texts.js"


def web_dir() -> Path:
    """The folder holding the pages (``dashboard/``, ``overlay/``, ``lib/``, ``vendor/``): Mosquitto's http_dir."""
    return Path(__file__).resolve().parent


def device_texts_js() -> str:
    """The device's screen texts (Dutch and English) as a script defining ``Shotclock.DEVICE_TEXTS``."""
    body = json.dumps(texts.TEXTS, ensure_ascii=False, indent=1, sort_keys=True)
    return ("/* Generated from shotclock/core/texts.py by 'python -m shotclock.web': do not edit. */\n"
            "(this.Shotclock = this.Shotclock || {}).DEVICE_TEXTS = " + body + ";\n")
