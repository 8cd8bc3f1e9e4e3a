"""Tournament levels and named rule sets: the ``[levels.N]`` and ``[rule_sets.NAME]`` sections of checked
configuration values expanded into what the core plays (its :class:`~shotclock.core.settings.LevelRule`s, each
rule set's changes), and each level and rule set checked as a hand under it plays (docs/rules.md, "Levels" and
"The tournament"). Their keys are the schema's (:data:`~shotclock.config.schema.LEVEL_KEYS`)."""

from __future__ import annotations

from typing import Any

from shotclock.config.schema import KEYS, LEVEL_TOP_UPS, level_key, rule_set_key
from shotclock.core.settings import STREETS, LevelRule, Settings


def level_rules(values: dict) -> tuple[LevelRule, ...]:
    """The ``[levels.N]`` sections of checked configuration ``values`` as the core's level rules, by level."""
    by_level: dict[int, dict[str, Any]] = {}
    for name, value in values.items():
        parsed = level_key(name)
        if isinstance(parsed, tuple):
            by_level.setdefault(parsed[0], {})[parsed[1]] = value
    rules = []
    for level in sorted(by_level):
        keys = by_level[level]
        changes = tuple((k, v) for k, v in keys.items() if k not in LEVEL_TOP_UPS)
        rules.append(LevelRule(level, changes, keys.get("top_up.seconds") or None, keys.get("top_up.chips") or None,
                               bool(keys.get("chips.reset"))))
    return tuple(rules)


def rule_set_changes(values: dict) -> dict[str, tuple[tuple[str, object], ...]]:
    """The ``[rule_sets.NAME]`` sections of checked configuration ``values``: each name's rule changes, in order."""
    sets: dict[str, list[tuple[str, object]]] = {}
    for name, value in values.items():
        parsed = rule_set_key(name)
        if isinstance(parsed, tuple):
            sets.setdefault(parsed[0], []).append((parsed[1], value))
    return {name: tuple(changes) for name, changes in sets.items()}


def rule_set_values(values: dict, name: str) -> dict:
    """The configuration ``values`` as a hand under rule set ``name`` plays them (its changes on the table's own)."""
    return {**values, **dict(rule_set_changes(values).get(name, ()))}


def level_problems(values: dict, errors: dict) -> None:
    """Each level's rules, as the table will play them (the base and every level up to it): a countdown longer than
    a clock, a time bank top-up where no bank runs; refused under the level's key to change."""
    from shotclock.core.rhythm import level_changes

    base = {k: v for k, v in values.items() if k in KEYS}
    rules = level_rules({k: v for k, v in values.items() if k not in errors})
    for rule in rules:
        played = {**base, **level_changes(Settings(levels=rules), rule.level)}
        over = _countdown_over(played, f"levels.{rule.level}", values)
        if over:
            culprit, countdown, shortest = over
            errors.setdefault(culprit, f"makes level {rule.level}'s countdown ({countdown} s) longer than its clock "
                                       f"({shortest} s)")
        if rule.top_up_seconds and not (values["seats.track"] and values["seats.bank"]):
            errors.setdefault(f"levels.{rule.level}.top_up.seconds",
                              "needs seats.track = true and a seats.bank (a top-up is a player's time bank)")
        if rule.top_up_chips and not values["seats.track"]:
            errors.setdefault(f"levels.{rule.level}.top_up.chips",
                              "needs seats.track = true (the table tops up its seated players)")
        if rule.reset_chips and not (values["seats.track"] and played.get("shot.allowance")):
            errors.setdefault(f"levels.{rule.level}.chips.reset",
                              "needs seats.track = true and a shot.allowance at this level (the chips to reset to)")


def _countdown_over(played: dict, where: str, values: dict) -> tuple[str, int, float] | None:
    """(the key to change, the countdown, the shortest clock) when the ``played`` rules' countdown is longer than
    their shortest clock, else None; the key is the first of ``where``'s (``levels.11``, ``rule_sets.bubble``) that
    ``values`` sets among the countdown, the clocks and the mode, else ``where`` itself."""
    mode = played["mode"]
    streets = ["clock.seconds"] if mode == "clock" else [f"shot.{s}" for s in STREETS]
    shortest = min(played[k] for k in streets)
    countdown = played[f"{mode}.countdown"]
    if countdown <= shortest:
        return None
    culprit = next((f"{where}.{k}" for k in [f"{mode}.countdown", *streets, "mode"] if f"{where}.{k}" in values), where)
    return culprit, countdown, shortest


def rule_set_problems(values: dict, errors: dict) -> None:
    """Each named rule set as a hand under it plays (the table's own rules, its changes on top, perhaps another
    mode: a shot clock for the bubble): a countdown longer than its clock is refused under the key to change."""
    sets = rule_set_changes({k: v for k, v in values.items() if k not in errors})
    for name, changes in sets.items():
        played = {**{k: v for k, v in values.items() if k in KEYS}, **dict(changes)}
        over = _countdown_over(played, f"rule_sets.{name}", values)
        if over:
            culprit, countdown, shortest = over
            errors.setdefault(culprit, f"makes rule set {name!r}'s countdown ({countdown} s) longer than its clock "
                                       f"({shortest} s)")
