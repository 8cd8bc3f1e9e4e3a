"""shotclock: the rule 29 clock call and tour shot clock for live poker tables.

Layers, each importing only the ones before it (``tests/test_layers.py`` checks it, and that no two
files import each other):

* :mod:`shotclock.errors` -- the error hierarchy, raised by every layer.
* :mod:`shotclock.core` -- the rules, pure (no time, threads, GPIO, pygame or sqlite).
* :mod:`shotclock.input_files` -- the one bounded reader of files from outside (no rules; not for the core).
* :mod:`shotclock.config` -- the configuration: its schema, loading, levels and pin map; read by the adapters,
  never the reverse.
* :mod:`shotclock.adapters` -- thin wrappers around pins, screen, sound, log, archive, MQTT and systemd.
* :mod:`shotclock.shell` -- the main loop, the device's wiring and the shell's commands.
* :mod:`shotclock.floor` -- the floor's side of the network (with :mod:`shotclock.web`, its pages, which
  read only the core's texts).
* :mod:`shotclock.cli` -- the ``shotclock`` program, the one place that knows every layer's commands.
"""

__version__ = "0.2.0"  # the release: setup.cfg reads it; CHANGELOG.md says what each one brought
