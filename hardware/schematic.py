"""The table device's full schematic, drawn from this source: ``python hardware/schematic.py`` writes
hardware/schematic.svg (schemdraw, the ``dev`` extra; tests/test_schematic.py checks the SVG is this
file's output). Pin numbers come from the configuration's defaults, so the drawing follows the code.

Each row starts at a pin of the Pi's 40-pin header (physical number and BCM name). Every ground
symbol is the one ground net: the header's GND pins (6, 9, 14, 20, 25, 30, 34, 39) are joined on the
Pi, and each circuit may use the nearest one (hardware/README.md's pin map names them).
"""

from __future__ import annotations

import sys
from pathlib import Path

import schemdraw
import schemdraw.elements as elm

HERE = Path(__file__).resolve().parent
OUT = HERE / "schematic.svg"
ROW = 3.2  # vertical room for one circuit

# BCM -> physical pin on the 40-pin header (those the default configuration uses).
PHYSICAL = {17: 11, 27: 13, 22: 15, 23: 16, 24: 18, 5: 29, 6: 31, 12: 32}


def defaults() -> dict[str, int]:
    """The default pins from the configuration schema (the buzzer, off by default, on BCM 12)."""
    sys.path.insert(0, str(HERE.parent))
    from shotclock.config.schema import KEYS

    pins = {k.split(".")[1]: KEYS[k].default for k in KEYS if k.startswith("pins.")}
    pins["buzzer"] = 12
    return pins


def pin_label(bcm: int) -> str:
    return f"pin {PHYSICAL[bcm]}\nBCM{bcm}"


def draw() -> schemdraw.Drawing:
    """The whole schematic."""
    pins = defaults()
    d = schemdraw.Drawing(show=False)
    d.config(fontsize=11, unit=2.2)
    d += elm.Label().at((-1.5, 4.2)).label("shotclock table device", loc="right", fontsize=15, halign="left")
    d += elm.Label().at((-1.5, 3.5)).label("left: the Raspberry Pi's 40-pin header", loc="right", halign="left")
    d += elm.Label().at((-1.5, 3.0)).label("every ground symbol: one net (GND pins 6, 9, 14, 20, 25, 30, 34, 39)",
                                           loc="right", halign="left")
    y = 0.0

    # The floor button on its cable: pull-up, RC, TVS at the socket, jack.
    d += elm.Dot(open=True).at((0, y)).label(pin_label(pins["floor"]), loc="left")
    d += elm.Line().right(1.2)
    node = d.here
    d += elm.Capacitor().down(1.6).label("C1 10 nF", loc="bottom")
    d += elm.Ground()
    d += elm.Resistor().at(node).right().label("R2 1 kΩ")
    tip = d.here
    d += elm.Resistor().at(tip).up(1.8).label("R1 4.7 kΩ", loc="bottom")
    d += elm.Vdd().label("3V3 (pin 1)")
    d += elm.Line().at(tip).right(1.6)
    tvs = d.here
    d += elm.Zener().at(tvs).down(1.6).reverse().label("D1 TVS 3.3 V", loc="bottom")
    d += elm.Ground()
    d += elm.Line().at(tvs).right(1.2)
    d += elm.Jack().right().label("J1 3.5 mm jack: tip", loc="top")
    d += elm.Line().right(0.8)
    d += elm.Button().right().label("floor button\n(2–3 m cable)")
    d += elm.Line().down(1.2)
    d += elm.Ground().label("sleeve", loc="right")
    y -= ROW * 1.1

    # The dealer's four buttons, straight to ground (the Pi's internal pull-ups).
    for role in ("action", "bet", "extend", "street"):
        d += elm.Dot(open=True).at((0, y)).label(pin_label(pins[role]), loc="left")
        d += elm.Line().right(1.2)
        d += elm.Button().right().label(f"{role} button")
        d += elm.Line().right(0.6)
        d += elm.Ground().right()
        y -= ROW * 0.7

    # The LEDs, each through 330 Ω.
    for role, colour in (("led_running", "red: clock running"), ("led_bet", "amber: facing a bet")):
        d += elm.Dot(open=True).at((0, y)).label(pin_label(pins[role]), loc="left")
        d += elm.Line().right(1.2)
        d += elm.Resistor().right().label("330 Ω")
        d += elm.LED().right().label(colour, loc="bottom")
        d += elm.Line().right(1.4)
        d += elm.Ground().right()
        y -= ROW * 0.7

    # The optional active buzzer, switched by an NPN transistor; the diode takes the coil's kick.
    y -= ROW * 0.9
    d += elm.Dot(open=True).at((0, y)).label(pin_label(pins["buzzer"]) + "\n(optional)", loc="left")
    d += elm.Line().right(1.2)
    d += elm.Resistor().right().label("R3 1 kΩ")
    q = elm.BjtNpn(circle=True).anchor("base").label("Q1 2N2222 or BC547\n(pinouts differ:\nsee the guide)",
                                                     loc="right", ofst=(0.2, -0.6))
    d += q
    d += elm.Ground().at(q.emitter)
    d += elm.Line().at(q.collector).up(0.4)
    bottom = d.here
    d += elm.RBox(w=1.2, h=0.6).up(1.8).label("BZ1 active\n5 V buzzer", loc="bottom")
    top = d.here
    d += elm.Vdd().at(top).label("5V (pin 2 or 4)")
    d += elm.Line().at(bottom).left(1.8)
    d += elm.Diode().up(1.8).label("D2 1N4148\n(cathode to 5V)", loc="top")
    d += elm.Line().right(1.8)
    y -= ROW * 1.2

    # The display's power, from the header (Touch Display 2; its ribbon carries DSI only).
    d += elm.Dot(open=True).at((0, y)).label("pin 4\n5V", loc="left")
    d += elm.Line().right(3.0).label("red wire", loc="top")
    d += elm.Dot(open=True).label("display 5V", loc="right")
    d += elm.Dot(open=True).at((0, y - 1.0)).label("pin 6\nGND", loc="left")
    d += elm.Line().right(3.0).label("black wire", loc="bottom")
    d += elm.Dot(open=True).label("display GND", loc="right")
    d += elm.Label().at((-1.5, y - 2.2)).label("Touch Display 2: power from the header as above;\n"
                                               "its ribbon cable goes to the Pi's DSI connector.",
                                               loc="right", halign="left")
    return d


def svg() -> bytes:
    """The schematic as SVG (schemdraw's own SVG backend: no matplotlib, the same bytes each run)."""
    schemdraw.use("svg")
    return draw().get_imagedata("svg")


if __name__ == "__main__":
    OUT.write_bytes(svg())
    print(f"wrote {OUT}")
