"""The pin map: the device's buttons and lights by role, the boards it runs on, and the ``[pins]`` section as
the mapping role → BCM pin of the pins in use (one role a pin)."""

from __future__ import annotations

from collections.abc import Mapping

BUTTONS = ("floor", "action", "bet", "extend", "street")
LIGHTS = ("led_running", "led_bet", "buzzer", "strobe")
#: ``gpio.board`` values: gpiozero's own Raspberry Pi detection, or a chip's lines by offset
#: (:mod:`shotclock.adapters.boards` makes the pin factory for each).
BOARDS = ("raspberry-pi", "generic")


class AssignedPins(Mapping):
    """The ``[pins]`` section is also the mapping role → BCM pin of the pins in use, as
    :class:`~shotclock.adapters.pins.TablePins` takes it: a buzzer set to false is left out
    (``config.pins.buzzer`` is False, ``"buzzer" in config.pins`` is false)."""

    def _assigned(self) -> dict[str, int]:
        return {role: pin for role, pin in vars(self).items() if pin is not False}

    def __getitem__(self, role: str) -> int:
        return self._assigned()[role]

    def __iter__(self):
        return iter(self._assigned())

    def __len__(self) -> int:
        return len(self._assigned())


def pin_problems(values: dict, errors: dict) -> dict[str, str]:
    """Each pin two roles use, under the later role's key (a key already in ``errors`` is left out): a pin has one
    role."""
    problems: dict[str, str] = {}
    seen: dict[int, str] = {}
    for role in BUTTONS + LIGHTS:
        name = f"pins.{role}"
        pin = values[name]
        if isinstance(pin, bool) or name in errors:
            continue
        if pin in seen:
            problems[name] = f"uses pin {pin}, which 'pins.{seen[pin]}' uses already"
        seen[pin] = role
    return problems
