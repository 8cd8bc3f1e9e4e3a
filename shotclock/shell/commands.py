"""The subcommands that live in their own modules, registered without importing them early."""


def _device(add):
    from shotclock.shell.device import register

    register(add)


def _selftest(add):
    from shotclock.shell.selftest import register

    register(add)


def _screenshot(add):
    from shotclock.shell.screenshot import register

    register(add)


def _simulate(add):
    from shotclock.shell.simulator import register

    register(add)


def _log(add):
    from shotclock.shell.logcmd import register

    register(add)


REGISTER: list = [_simulate, _device, _selftest, _screenshot, _log]
