"""Board support: lgpio on a GPIO chip of any Linux board, chosen by the ``[gpio]`` settings."""

import sys
import types

import pytest

from shotclock.adapters.boards import board_pin_factory, chip_board_info
from shotclock.adapters.pins import make_pin_factory
from shotclock.config.loading import parse_config
from shotclock.config.typed import GpioSettings
from shotclock.errors import ConfigError, HardwareError


def test_chip_board_info_names_pins_by_line_offset():
    info = chip_board_info(2, 28, "gpio-sim.0-node0")
    for name in (17, "17", "GPIO17", "gpiochip2:17"):
        assert [pin.name for _, pin in info.find_pin(name)] == ["GPIO17"]
    assert list(info.find_pin(28)) == []  # the chip has lines 0-27 only
    assert info.model == "gpio-sim.0-node0"


def test_raspberry_pi_board_leaves_the_choice_to_gpiozero():
    assert board_pin_factory(GpioSettings(board="raspberry-pi", chip=0)) is None
    assert make_pin_factory("auto", GpioSettings(board="raspberry-pi", chip=0)) is None


def test_board_and_chip_are_checked_in_the_config():
    config = parse_config('[gpio]\nboard = "generic"\nchip = 1\n')
    assert config.gpio == GpioSettings(board="generic", chip=1)
    with pytest.raises(ConfigError) as err:
        parse_config('[gpio]\nboard = "orange-pi"\nchip = -1\n')
    text = "; ".join(err.value.problems)
    assert "gpio.board" in text and "gpio.chip" in text


class FakeLgpio(types.ModuleType):
    """Just enough of lgpio for gpiozero's LGPIOFactory to open a chip and claim a line."""

    SET_PULL_NONE, SET_PULL_UP, SET_PULL_DOWN = 0, 1, 2
    BOTH_EDGES, RISING_EDGE, FALLING_EDGE = 3, 1, 2

    def __init__(self, lines=28):
        super().__init__("lgpio")
        self.lines = lines
        self.opened = []
        self.claimed = []

    def gpiochip_open(self, chip):
        if chip != 3:
            raise RuntimeError("can not open gpiochip")
        self.opened.append(chip)
        return 100 + chip

    def gpiochip_close(self, handle):
        pass

    def gpio_get_chip_info(self, handle):
        return 0, self.lines, f"gpiochip{handle - 100}", "gpio-sim.0-node0"

    def gpio_claim_input(self, handle, line, flags):
        self.claimed.append((handle, line))


@pytest.fixture
def fake_lgpio(monkeypatch):
    fake = FakeLgpio()
    monkeypatch.setitem(sys.modules, "lgpio", fake)
    monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)
    return fake


def test_generic_board_opens_the_configured_chip_and_maps_pins_to_its_lines(fake_lgpio):
    factory = make_pin_factory("auto", GpioSettings(board="generic", chip=3))
    try:
        assert fake_lgpio.opened == [3] and factory.chip == 3
        pin = factory.pin(17)
        assert fake_lgpio.claimed[-1] == (103, 17) and repr(pin) == "GPIO17"
        assert factory.board_info.model == "gpio-sim.0-node0"  # never asks for a Pi revision
    finally:
        factory.close()


def test_generic_board_with_a_missing_chip_is_one_clear_error(fake_lgpio):
    with pytest.raises(HardwareError) as err:
        make_pin_factory("lgpio", GpioSettings(board="generic", chip=7))
    assert str(err.value).startswith("cannot open /dev/gpiochip7 (gpio.chip = 7)")
    assert "\n" not in str(err.value)


def test_generic_board_without_lgpio_says_how_to_get_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "lgpio", None)  # import lgpio raises ImportError
    monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)
    with pytest.raises(HardwareError, match="needs lgpio"):
        make_pin_factory("auto", GpioSettings(board="generic", chip=0))


def test_a_backend_error_on_a_busy_pin_is_one_clear_error():
    # lgpio raises its own lgpio.error('GPIO busy') when another process holds a line.
    from gpiozero.pins.mock import MockFactory

    from shotclock.adapters.pins import TablePins

    class BusyError(Exception):
        pass

    class BusyFactory(MockFactory):
        def pin(self, name, **kwargs):
            if name == 27:
                raise BusyError("'GPIO busy'")
            return super().pin(name, **kwargs)

    pins = {"floor": 17, "action": 27, "bet": 22, "extend": 23, "street": 24, "led_running": 5, "led_bet": 6}
    with pytest.raises(HardwareError) as err:
        TablePins(pins, lambda edge: None, BusyFactory())
    assert str(err.value).startswith("cannot set up the GPIO pins (floor BCM 17") and "'GPIO busy'" in str(err.value)
