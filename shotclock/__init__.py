"""shotclock: the rule 29 clock call and tour shot clock for live poker tables.

Layers, each importing only the ones above it:

* :mod:`shotclock.core` -- the rules, pure (no time, threads, GPIO, pygame or sqlite).
* :mod:`shotclock.adapters` -- thin wrappers around pins, screen, sound, log and systemd.
* :mod:`shotclock.shell` -- the main loop and the command line that wire them together.
"""

__version__ = "0.1.0"
