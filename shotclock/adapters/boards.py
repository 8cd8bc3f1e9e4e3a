"""GPIO on Linux boards that are not a Raspberry Pi: the real lgpio backend, told which chip to use.

gpiozero's :class:`~gpiozero.pins.lgpio.LGPIOFactory` talks to any Linux GPIO chip, but it names
its pins from the Raspberry Pi's board revision, so off a Pi it stops with ``PinUnknownPi``.
:class:`ChipLGPIOFactory` keeps everything else of lgpio (kernel edge timestamps, pull-ups,
alerts) and names the pins after the chip's own lines: ``GPIO17`` (or ``17``) is line 17 of
``/dev/gpiochipN``. That is what the configuration's ``[gpio]`` section chooses::

    [gpio]
    board = "generic"   # not a Raspberry Pi: pin numbers are line offsets of the chip below
    chip = 0            # /dev/gpiochip0

On a Raspberry Pi leave ``board = "raspberry-pi"`` (the default): gpiozero finds the board and,
on a Pi 5, the right chip itself. The appliance test (``./dev vmtest``) runs the device this way
on the kernel's ``gpio-sim`` chip.
"""

from __future__ import annotations

from shotclock.errors import HardwareError


def chip_board_info(chip: int, lines: int, label: str = ""):
    """A gpiozero :class:`~gpiozero.BoardInfo` whose one header lists a GPIO chip's lines.

    :param chip: the chip's number (``/dev/gpiochipN``), used in the header's name.
    :param lines: how many lines the chip has; line *n* is the pin ``GPIOn`` (also ``n``, ``"n"``).
    :param label: the chip's label, shown as the board's model.

    Example::

        >>> info = chip_board_info(0, 28, "gpio-sim.0-node0")
        >>> [pin.name for _, pin in info.find_pin(17)]
        ['GPIO17']
    """
    from gpiozero.pins import BoardInfo, HeaderInfo, PinInfo

    header = f"gpiochip{chip}"
    pins = {
        n + 1: PinInfo(number=n + 1, name=f"GPIO{n}", names=frozenset({f"GPIO{n}", n, str(n), f"{header}:{n}"}),
                       pull="", row=n + 1, col=1, interfaces=frozenset({"gpio"}))
        for n in range(lines)
    }
    return BoardInfo(revision="generic", model=label or header, pcb_revision="", released="", soc="",
                     manufacturer="", memory=None, storage="", usb=0, usb3=0, ethernet=0, eth_speed=0,
                     wifi=False, bluetooth=False, csi=0, dsi=0,
                     headers={header: HeaderInfo(name=header, rows=lines, columns=1, pins=pins)}, board="")


def _chip_factory_class():
    from gpiozero.pins.lgpio import LGPIOFactory

    class ChipLGPIOFactory(LGPIOFactory):
        """lgpio on GPIO chip *chip* of any Linux board; pin *n* is the chip's line *n*.

        :param chip: the GPIO chip's number (``/dev/gpiochipN``).

        Example (on a board with a GPIO chip 0)::

            >>> from gpiozero import Button
            >>> button = Button(17, pin_factory=ChipLGPIOFactory(chip=0))
        """

        def __init__(self, chip: int):
            super().__init__(chip=chip)  # opens the chip (and never asks for a Pi revision)
            import lgpio

            _, lines, _name, label = lgpio.gpio_get_chip_info(self._handle)
            self._info = chip_board_info(chip, lines, label)

        def _get_revision(self):
            # Only gpiozero's Pi-specific code (SPI by port number) asks for this.
            from gpiozero.exc import PinUnknownPi

            raise PinUnknownPi(f"gpiochip{self.chip} is not on a Raspberry Pi: it has no board revision")

    return ChipLGPIOFactory


def board_pin_factory(gpio):
    """The pin factory the ``[gpio]`` settings ask for, or None when gpiozero should choose.

    :param gpio: the configuration's typed ``gpio`` section (``config.gpio``: ``board``, ``chip``).
    :raises HardwareError: lgpio is missing or the chip cannot be opened (one line, naming it).
    """
    if gpio.board == "raspberry-pi":
        return None
    chip = gpio.chip
    try:
        return _chip_factory_class()(chip=chip)
    except ImportError as exc:
        raise HardwareError(f"gpio.board = \"generic\" needs lgpio ({exc}): see 'Other Linux boards' in "
                            "hardware/README.md") from None
    except Exception as exc:  # lgpio raises its own error type (and OSError) for a missing chip
        raise HardwareError(f"cannot open /dev/gpiochip{chip} (gpio.chip = {chip}): {exc}") from None
