"""The view model: what the screen shows at a moment, derived from the engine's state and the time.

Pure, like the rest of the core: :func:`view_at` says what to show, :func:`next_change` says
when that will next be different, so the screen redraws only when something visible changes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Iterable

from shotclock.core import texts
from shotclock.core.engine import IDLE, PAUSED, RUNNING, Snapshot
from shotclock.core.events import ACTED, CANCELLED
from shotclock.core.faults import Fault, FirstBootFailed, LogFault, NoSound, StuckButton
from shotclock.core.gestures import Hold
from shotclock.core.tones import ruling_tone, running_tone

RULING_SECONDS = 10.0  # how long a ruling fills the screen before the idle screen returns
NOTICE_SECONDS = 5.0  # how long a refusal (seat tracking: a seat with no chips left) replaces the info line
FOLD_SECONDS = 5.0  # how long the info line names the seat that just folded
STEPS_PER_SECOND = 4  # the progress ring moves in quarter seconds
HOLD_STEPS = 20  # a hold's bar fills in twentieths (every 0.1 s for a 2 s hold)


@dataclass(frozen=True)
class View:
    """What the screen shows.

    ``screen`` names the layout (idle, running, countdown, paused, interrupted, ruling,
    cancelled); ``tone`` picks the colours (calm, warn, urgent, paused, dead, good, check, neutral);
    ``progress`` is the fraction of the clock left (None: no ring). ``sub`` may be ``label: value``
    (the value is drawn larger); ``info`` lines are joined by `` · `` and wrapped there when long.
    """

    screen: str
    tone: str
    big: str
    title: str
    sub: str = ""
    info: str = ""
    progress: float | None = None
    faults: tuple[str, ...] = ()
    corner: str = ""  # a small mark in a corner (the floor network's), never over the clock
    hold: str = ""  # what a button held now will do, with ``hold_progress`` filling towards it
    hold_progress: float | None = None
    seat: str = ""  # seat tracking: the seat (and name) on the clock; shown in the title's place, cut like a name


@dataclass(frozen=True)
class Folded:
    """Seat tracking: ``seat`` folded at ``t`` (the engine's ``seat`` output with ``change = "folded"``)."""

    t: float
    seat: int


def last_fold(outputs, previous: Folded | None = None) -> Folded | None:
    """The latest fold among ``outputs`` (a round's), else ``previous``: what the screen names for a moment.

    Example::

        >>> from shotclock.core.events import SeatChanged
        >>> last_fold([SeatChanged(t=4.0, seat=3, change="folded")])
        Folded(t=4.0, seat=3)
    """
    for out in outputs:
        if out.TYPE == "seat" and out.change == "folded":
            previous = Folded(out.t, out.seat)
    return previous


@dataclass(frozen=True)
class Display:
    """The screen's fixed settings: table name, language, the rule's label and how long the last ruling stays.

    ``label`` names the rule after the mode ("TDA 29"); empty: the house rule ("regel 29" / "rule 29")
    in clock mode, nothing in shot mode.
    """

    table: str = "Tafel 1"
    language: str = "nl"
    last_ruling_seconds: float = 60.0
    label: str = ""


def _mode_title(state: Snapshot, display: Display) -> str:
    title = texts.text(display.language, f"mode.{state.mode}")
    label = display.label or (texts.text(display.language, "label.house") if state.mode == "clock" else "")
    return f"{title} · {label}" if label else title


def _ruling_words(decision, language: str) -> tuple[str, str, str]:
    """(big text, detail, tone) for a decision."""
    t = lambda key, **v: texts.text(language, key, **v)
    tone = ruling_tone(decision.outcome)
    if decision.outcome == ACTED:
        if decision.at_zero:
            return t("ruling.at_zero"), t("ruling.at_zero.detail"), tone
        return t("ruling.acted"), t("ruling.acted.detail", left=texts.seconds(language, decision.remaining)), tone
    outcome = decision.outcome
    return t(f"ruling.{outcome}"), t(f"ruling.{outcome}.detail"), tone


def _fault_text(fault: Fault, language: str) -> str:
    if isinstance(fault, StuckButton):
        return texts.text(language, "fault.stuck", button=texts.text(language, f"button.{fault.button}"))
    if isinstance(fault, NoSound):
        return texts.text(language, "fault.no_sound")
    if isinstance(fault, LogFault):
        return texts.text(language, f"fault.log.{fault.problem}")
    if isinstance(fault, FirstBootFailed):
        return texts.text(language, "fault.firstboot")
    return type(fault).__name__


NETWORK_FAULTS = ("credentials", "tls", "outbox")  # what the link can say is wrong on this side


def network_mark(connected: bool, pending: int, language: str, fault: str = "", clone: bool = False,
                 taken: bool = False) -> str:
    """The screen's small network mark: nothing while connected and delivered; else what is wrong.
    ``fault`` (one of :data:`NETWORK_FAULTS`) is a mistake on the device's side: the credentials
    file, the CA file, the outbox; it comes first, as no waiting will mend it. ``clone``: another
    device uses this table's identity (a cloned SD card); ``taken``: the broker said that another connection
    with this table's credential took its session (said instead of ``clone``).

    Example::

        >>> network_mark(False, 12, "en")
        'no network · 12 to send'
        >>> network_mark(False, 0, "en", "credentials")
        'network: login file'
        >>> network_mark(True, 0, "en", clone=True)
        'another device is this table'
        >>> network_mark(False, 3, "nl", clone=True, taken=True)
        'netwerk: sessie overgenomen · geen netwerk · 3 te verzenden'
    """
    parts = [texts.text(language, "network.taken" if taken else "network.clone")] if clone or taken else []
    if fault in NETWORK_FAULTS:
        parts.append(texts.text(language, f"network.fault.{fault}"))
    elif not connected:
        parts.append(texts.text(language, "network.down"))
    if pending:
        parts.append(texts.text(language, "network.pending", n=pending))
    return " · ".join(parts)


def _fault_texts(faults: Iterable[Fault], language: str) -> tuple[str, ...]:
    return tuple(sorted(_fault_text(f, language) for f in faults))


def _shot_info(state: Snapshot, language: str) -> str:
    if state.mode != "shot" or state.street is None:
        return ""
    parts = [texts.text(language, f"street.{state.street}")]
    # The count is the running decision's: once it has ended (a ruling, a street) it is nobody's any more.
    if state.extensions and state.phase in (RUNNING, PAUSED):
        key = "extensions.of" if state.extension_limit else "extensions"
        parts.append(texts.text(language, key, n=state.extensions, limit=state.extension_limit))
    if state.chips_left is not None:
        parts.append(texts.text(language, "chips_left.1" if state.chips_left == 1 else "chips_left", n=state.chips_left))
    return " · ".join(parts)


def _seat_line(state: Snapshot, language: str) -> str:
    """The seat on the clock and its player's name ("Seat 4 · Ana Costa"), or ""."""
    if state.seats is None or state.on_clock is None:
        return ""
    name = state.seats.name(state.on_clock)
    key = "seat.named" if name else "seat"
    return texts.text(language, key, seat=state.on_clock, name=name)


def bank_runs(state: Snapshot, now: float) -> bool:
    """Time bank mode: whether the clock on a seat is in that player's own bank at ``now`` (its base time is up).

    The bank is the clock's last part: it runs once no more time is left than the bank holds (the
    moment the engine gives its ``bank`` output)."""
    if state.seats is None or state.on_clock is None:
        return False
    bank, remaining = state.seats.bank(state.on_clock), state.remaining(now)
    return bank is not None and remaining is not None and round(remaining, 6) <= round(bank, 6)


def _fold_line(fold: Folded, state: Snapshot, language: str) -> str:
    name = state.seats.name(fold.seat)
    return texts.text(language, "folded.named" if name else "folded", seat=fold.seat, name=name)


def _mark_words(state: Snapshot, language: str) -> str:
    """The floor's mark on the player on the clock, else on turn ("WARNING", "OWN CLOCK 10 s"), or ""."""
    seat = state.on_clock if state.on_clock is not None else state.seats.turn
    mark = state.seats.mark(seat) if seat is not None and state.seats.marks else None
    if mark is None:
        return ""
    if mark[0] == "clock":
        return texts.text(language, "mark.clock", s=texts.text(language, "seconds", s=f"{mark[1]:g}"))
    return texts.text(language, "mark.warning")


def _with_seats(view: View, state: Snapshot, now: float, language: str, fold: Folded | None) -> View:
    """Seat tracking: the seat on the clock, its bank (marked once it runs), who is to act, who just folded,
    and a refusal to show."""
    info, tone = view.info, view.tone
    if state.on_clock is not None:
        bank = state.seats.bank(state.on_clock)
        remaining = state.remaining(now)
        if bank is not None and remaining is not None:  # the bank is the clock's last part
            left = math.ceil(round(min(bank, remaining), 6))
            runs = bank_runs(state, now)
            words = texts.text(language, "bank.running" if runs else "bank",
                               s=texts.text(language, "seconds", s=left))
            info = f"{info} · {words}" if info else words
            if runs and view.screen == "running":  # the countdown keeps its red; a pause its blue
                tone = "bank"
    elif view.screen == "idle" and state.seats.turn is not None:
        info = f"{texts.text(language, 'seat.to_act', seat=state.seats.turn)} · {info}"
    marked = _mark_words(state, language)
    if marked:  # the floor's mark on the player on turn, first: the dealer sees who is on warning (RP-15)
        info = f"{marked} · {info}" if info else marked
    if fold is not None and 0 <= now - fold.t < FOLD_SECONDS:
        info = f"{_fold_line(fold, state, language)} · {info}" if info else _fold_line(fold, state, language)
    notice = state.notice
    if notice is not None and 0 <= now - notice[0] < NOTICE_SECONDS:
        info = texts.text(language, f"notice.{notice[1]}", seat=notice[2])
    return replace(view, seat=_seat_line(state, language), info=info, tone=tone)


def level_line(level, language: str) -> str:
    """The tournament level on screen (a :class:`~shotclock.core.levels.LevelView`): "Level 11 · hand 7 of 12",
    the level's last hand said, and what waits for the next hand.

    Example::

        >>> from shotclock.core.levels import LevelView
        >>> level_line(LevelView(11, 12, 12, next_level=None), "en")
        'Level 11 · hand 12 of 12 · last hand of the level'
        >>> level_line(LevelView(11, 3, 0, next_level=12), "nl")
        'Niveau 11 · niveau 12 vanaf de volgende hand'
    """
    t = lambda key, **v: texts.text(language, key, **v)  # noqa: E731
    parts = [t("level", level=level.level)] if level.level is not None else []
    if level.hands and level.level is not None:
        parts.append(t("level.hand", hand=level.hand, hands=level.hands))
        if level.last_hand:
            parts.append(t("level.last"))
    if level.next_level is not None:
        parts.append(t("level.next", level=level.next_level))
    elif level.next_hands is not None:
        parts.append(t("level.next_hands", hands=level.next_hands))
    return " · ".join(parts)


def view_at(state: Snapshot, now: float, display: Display = Display(), faults: Iterable[Fault] = (),
            holds: Iterable[Hold] = (), fold: Folded | None = None, cue: str = "") -> View:
    """What the screen shows at ``now`` for this engine state, its faults and the buttons held down.

    ``fold``: the last fold (:func:`last_fold`), named for :data:`FOLD_SECONDS`; ``cue``: a visual cue's
    pulse is on (:meth:`shotclock.core.cues.Cues.lit`): the screen flashes (the ``flash`` tone)."""
    view = _view_at(state, now, display, faults)
    if state.level is not None:
        line = level_line(state.level, display.language)
        view = replace(view, info=f"{line} · {view.info}" if view.info else line)
    if state.seats is not None:
        view = _with_seats(view, state, now, display.language, fold)
    if cue:
        view = replace(view, tone="flash")
    hold = min(holds, key=lambda h: h.since, default=None)
    if hold is None:
        return view
    return replace(view, hold=texts.text(display.language, f"hold.{hold.event}"),
                   hold_progress=hold.progress(now, HOLD_STEPS))


def _view_at(state: Snapshot, now: float, display: Display, faults: Iterable[Fault]) -> View:
    lang = display.language
    fault_texts = _fault_texts(faults or (), lang)
    bet = texts.text(lang, "bet.yes" if state.facing_bet else "bet.no")
    # The bet state and what it means at 0, large: a wrong state must be seen before it rules.
    consequence = texts.text(lang, "at_zero", bet=bet, ruling=texts.text(lang, f"ruling.{state.consequence}"))
    info = _shot_info(state, lang)
    if state.phase in (RUNNING, PAUSED):
        remaining = state.remaining(now)
        shown = math.ceil(round(remaining, 6))
        steps = math.ceil(round(remaining * STEPS_PER_SECOND, 6)) / STEPS_PER_SECOND
        progress = min(1.0, steps / state.seconds) if state.seconds else 0.0
        if state.phase == PAUSED:
            key = "interrupted" if state.interrupted else "paused"
            sub = texts.text(lang, "interrupted.press") if state.interrupted else consequence
            # The player never pays for the device's downtime: say so, beside how the floor goes on.
            extra = (texts.text(lang, "interrupted.kept") + " · " + texts.text(lang, "interrupted.hold")
                     if state.interrupted else info)
            return View(key, "paused", str(shown), texts.text(lang, key), sub, extra, progress, fault_texts)
        if state.in_countdown(now):
            return View("countdown", "urgent", str(shown), _mode_title(state, display), consequence, info,
                        progress, fault_texts)
        return View("running", running_tone(progress), str(shown), _mode_title(state, display), consequence, info, progress,
                    fault_texts)
    hand_for_hand = state.hand_for_hand
    if hand_for_hand is not None and hand_for_hand.waiting:
        # Hand-for-hand (TDA RP-8): this table has played its hand; no clock starts until the floor releases the
        # next one, and the screen says why.
        hands = texts.text(lang, "hand_for_hand.hands", n=hand_for_hand.hands)
        return View("hand_for_hand", "paused", texts.text(lang, "hand_for_hand.wait"), display.table,
                    texts.text(lang, "reason.hand_for_hand_wait"), f"{info} · {hands}" if info else hands, None,
                    fault_texts)
    on_break = state.tournament_break
    if on_break is not None:
        # The tournament's break: no clock can be called or started; the players see how long it lasts.
        left = on_break.left(now)
        big = texts.text(lang, "break.title") if left is None else countdown_text(left)
        sub = texts.text(lang, "break.paused" if left is None else "reason.tournament_break")
        title = f"{texts.text(lang, 'break.title')} · {on_break.name}" if on_break.name else \
            texts.text(lang, "break.title")
        return View("break", "paused", big, title, sub, "", None, fault_texts)
    # A street, a new hand or the dealer's stop ending a clock shows nothing: only a clock that ended with a
    # ruling or the floor's cancel fills the screen with it (not the action that started the clock just ended).
    last = state.last_shown  # None once a street or a new hand moved the table on
    if last is not None and last == state.last and now - last.t < RULING_SECONDS:
        big, detail, tone = _ruling_words(last, lang)
        screen = "cancelled" if last.outcome == CANCELLED else "ruling"
        return View(screen, tone, big, display.table, detail, info, None, fault_texts)
    status = texts.text(lang, "idle.waiting")
    if last is not None and last.outcome != CANCELLED and now - last.t < display.last_ruling_seconds:
        status = texts.text(lang, "idle.last", ruling=_ruling_words(last, lang)[0])
    info = f"{info} · {status}" if info else status
    words = [texts.text(lang, "hand_for_hand")] if hand_for_hand is not None else []  # playing its hand
    rule_set = state.rule_set  # the house's named rule set, and the one the next hand takes
    if rule_set is not None:
        words += [rule_set.rule_set] if rule_set.rule_set else []
        if rule_set.next is not None:
            words.append(texts.text(lang, "rule_set.next", name=rule_set.next or texts.text(lang, "rule_set.own")))
    if words:
        info = " · ".join([info, *words])
    return View("idle", "neutral", display.table, _mode_title(state, display), consequence, info, None, fault_texts)


def next_change(state: Snapshot, now: float, display: Display = Display(), holds: Iterable[Hold] = (),
                fold: Folded | None = None) -> float | None:
    """When :func:`view_at` will next give a different view without any new event (or None); a visual cue's
    pulses change it too (:meth:`shotclock.core.cues.Cues.next_change`)."""
    changes = [_hold_change(h, now) for h in holds] + [_next_change(state, now, display)]
    if state.notice is not None and now < state.notice[0] + NOTICE_SECONDS:
        changes.append(state.notice[0] + NOTICE_SECONDS)
    if fold is not None and now < fold.t + FOLD_SECONDS:
        changes.append(fold.t + FOLD_SECONDS)
    if state.phase == RUNNING and state.on_clock is not None and not bank_runs(state, now):
        bank = state.seats.bank(state.on_clock)
        if bank is not None:
            changes.append(state.deadline - bank)  # the bank starts: the screen turns violet
    changes = [c for c in changes if c is not None]
    return min(changes) if changes else None


def _hold_change(hold: Hold, now: float) -> float | None:
    """The next step of a hold's bar after ``now`` (None once it is full)."""
    step = hold.seconds / HOLD_STEPS
    k = math.floor(round((now - hold.since) / step, 6)) + 1
    return hold.since + k * step if k <= HOLD_STEPS else None


def countdown_text(seconds: float) -> str:
    """A tournament clock's time left as every countdown shows it (the table's break, ``tournament status``, the
    clock's answers; the pages' ``clockText`` alike): ``9:59``, ``1:02:00``, the second it is in.

    >>> countdown_text(59.2), countdown_text(3600.0), countdown_text(0.0)
    ('1:00', '1:00:00', '0:00')
    """
    s = math.ceil(round(seconds, 6))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


def _next_change(state: Snapshot, now: float, display: Display) -> float | None:
    on_break = state.tournament_break
    if state.phase != RUNNING and on_break is not None and on_break.until is not None:
        left = on_break.until - now
        if left > 0:  # the next second of the break's countdown (and its end)
            return on_break.until - (math.ceil(round(left, 6)) - 1)
    if state.phase == RUNNING:
        remaining = state.deadline - now
        if remaining <= 0:
            return None  # showing 0 until the engine rules
        steps = math.ceil(round(remaining * STEPS_PER_SECOND, 6))
        return state.deadline - (steps - 1) / STEPS_PER_SECOND
    last = state.last_shown
    if state.phase == IDLE and last is not None:
        ends = (last.t + RULING_SECONDS, last.t + display.last_ruling_seconds) if last == state.last \
            else (last.t + display.last_ruling_seconds,)
        for end in ends:
            if end > now:
                return end
    return None


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def dealer_check_view(check, language: str = "nl") -> View:
    """What the screen shows during a dealer check (:class:`~shotclock.core.dealer_check.DealerCheck`): the
    cue (the whole screen white, "NOW") while it waits for the press, else the count and the last reaction;
    at the end the median, the middle half and the slowest press. Changes only at the check's own moments."""
    t = lambda key, **v: texts.text(language, key, **v)
    result = check.result()
    title = t("dealer.title")
    counts = t("dealer.counts", early=result.early, missed=result.missed)
    if check.done:
        if result.median is None:
            return View("dealer", "neutral", t("dealer.none"), title, t("dealer.ready"), counts)
        low, high = result.spread or (result.median, result.median)
        sub = t("dealer.spread", low=_ms(low), high=_ms(high), slowest=_ms(max(result.times)))
        return View("dealer", "good", t("dealer.median", ms=_ms(result.median)), title, sub, counts)
    n = len(result.reactions) + 1  # the cue given, or the next one
    info = t("dealer.round", n=n, of=len(check.cues))
    if check.waiting:
        return View("dealer", "flash", t("dealer.now"), title, t("dealer.press"), info)
    if result.reactions:
        last = result.reactions[-1]
        info += " · " + (t("dealer.last.missed") if last is None else t("dealer.last", ms=_ms(last)))
    return View("dealer", "neutral", "…", title, t("dealer.ready"), f"{info} · {counts}")
