"""hardware/schematic.svg is drawn from hardware/schematic.py, never by hand, and follows the default pins."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from shotclock.config.schema import KEYS

HARDWARE = Path(__file__).parent.parent / "hardware"
pytest.importorskip("schemdraw")
spec = importlib.util.spec_from_file_location("schematic", HARDWARE / "schematic.py")
schematic = importlib.util.module_from_spec(spec)
spec.loader.exec_module(schematic)


def test_the_svg_is_the_sources_output():
    assert (HARDWARE / "schematic.svg").read_bytes() == schematic.svg(), \
        "run: .venv/bin/python hardware/schematic.py (after ./dev test has made .venv)"


def test_every_default_pin_is_drawn_with_its_header_pin():
    text = schematic.svg().decode()
    for role in ("floor", "action", "bet", "extend", "street", "led_running", "led_bet"):
        bcm = KEYS[f"pins.{role}"].default
        assert f"BCM{bcm}" in text and f"pin {schematic.PHYSICAL[bcm]}" in text, role
    for part in ("4.7 kΩ", "10 nF", "TVS", "1N4148", "2N2222", "BC547", "330 Ω", "Touch Display 2"):
        assert part in text, part
