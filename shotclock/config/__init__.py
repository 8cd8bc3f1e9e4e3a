"""The device's configuration, one module a job (in the style of Mopidy):

* :mod:`shotclock.config.schema` -- every key: its type, default, description and range; the keys a level or a
  rule set may change; ``shotclock config``'s example file.
* :mod:`shotclock.config.loading` -- a TOML file read into settings, every problem at once, the nearest key for
  a typo.
* :mod:`shotclock.config.typed` -- :class:`~shotclock.config.typed.Config`, the checked settings, typed by section.
* :mod:`shotclock.config.levels` -- ``[levels.N]`` and ``[rule_sets.NAME]`` expanded into the core's rules.
* :mod:`shotclock.config.pins` -- the pin map: buttons and lights by role, one role a pin.

It reads the core's settings; the adapters read it, never the reverse. Files from outside are read by
:mod:`shotclock.input_files`.
"""
