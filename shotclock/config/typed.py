"""The typed configuration: :class:`Config`, built once from the schema's checked values, one frozen object per
section (``config.network.host``, ``config.device.hold``, ``config.table``; see :data:`SECTIONS`)."""

from __future__ import annotations

from dataclasses import dataclass, field, make_dataclass

from shotclock.config.levels import level_rules, rule_set_changes
from shotclock.config.pins import AssignedPins
from shotclock.config.schema import NUM, SCHEMA, Key, parse_size
from shotclock.core.settings import ClockSettings, SeatSettings, Settings, ShotSettings


# The typed settings, derived from SCHEMA (the one list of keys): one frozen class per section, its fields the
# section's keys with their defaults. The engine's sections keep the core's own classes (the core cannot import
# this module); tests/test_config.py checks that their fields and defaults are the schema's, key for key.
CORE_SECTIONS = {"clock": ClockSettings, "shot": ShotSettings, "seats": SeatSettings}


def _annotation(types: tuple):
    if types == NUM:
        return float
    return types[0] if len(types) == 1 else types[0] | types[1]


def _section_class(section: str, keys: list[Key]) -> type:
    if section in CORE_SECTIONS:
        return CORE_SECTIONS[section]
    fields = [(k.name.split(".", 1)[1], _annotation(k.types), field(default=k.default)) for k in keys]
    namespace = {"__doc__": f"The ``[{section}]`` settings (typed, immutable; built from the schema).",
                 "__module__": __name__}
    bases = (AssignedPins,) if section == "pins" else ()
    return make_dataclass(f"{section.capitalize()}Settings", fields, bases=bases, frozen=True, namespace=namespace)


def _sections() -> dict[str, type]:
    by_section: dict[str, list[Key]] = {}
    for key in SCHEMA:
        head, dot, _ = key.name.partition(".")
        if dot:
            by_section.setdefault(head, []).append(key)
    return {name: _section_class(name, keys) for name, keys in by_section.items()}


#: The section classes by section name (``SECTIONS["network"]`` is :class:`NetworkSettings`).
SECTIONS: dict[str, type] = _sections()
#: The keys outside any section (``preset``, ``mode``, ``table``, ...): attributes of :class:`Config` itself.
TOP_KEYS = tuple(k.name for k in SCHEMA if "." not in k.name)
globals().update({cls.__name__: cls for name, cls in SECTIONS.items() if name not in CORE_SECTIONS})


@dataclass(frozen=True)
class Config:
    """A validated configuration, typed: ``config.network.host``, ``config.device.hold``, ``config.table``.

    Built once from the file at the edge; every section is a frozen object from :data:`SECTIONS` and every
    top-level key (:data:`TOP_KEYS`) an attribute. ``values`` maps every dotted key to its value (what a
    replay header records).
    """

    values: dict = field(default_factory=lambda: {k.name: k.default for k in SCHEMA})
    source: str = "(defaults)"

    def __post_init__(self):
        for name in TOP_KEYS:
            object.__setattr__(self, name, self.values[name])
        for name, cls in SECTIONS.items():
            object.__setattr__(self, name, cls(**self.section(name)))

    def __getitem__(self, name: str):
        return self.values[name]

    def section(self, prefix: str) -> dict:
        """The keys below ``prefix`` (``"pins"`` → ``{"floor": 17, …}``)."""
        return {k.split(".", 1)[1]: v for k, v in self.values.items() if k.startswith(prefix + ".")}

    @property
    def settings(self) -> Settings:
        """The engine's rule settings, with the rules that change by level."""
        return Settings(mode=self.mode, clock=self.clock, shot=self.shot, seats=self.seats,
                        levels=level_rules(self.values))

    @property
    def rule_sets(self) -> dict[str, tuple[tuple[str, object], ...]]:
        """The named rule sets (``[rule_sets.NAME]``): each name's rule changes, as the core layers them on a hand
        (:mod:`shotclock.core.rhythm`)."""
        return rule_set_changes(self.values)

    @property
    def screen_size(self) -> tuple[int, int]:
        """``screen.size`` as (width, height)."""
        return parse_size(self.screen.size)
