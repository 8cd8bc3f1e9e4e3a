"""A refusal's reason as a code and parameters, so every page says it in its own language (core/reasons.py)."""

import json
import string

import pytest

from shotclock.core import texts
from shotclock.core.reasons import PREFIX, explain, reason
from shotclock.core.seated import SeatedEngine
from shotclock.core.engine import Engine
from shotclock.core.events import EmptySeat, Rename, SeatPlayer, Seating, SetButton, TopUp
from shotclock.core.settings import SeatSettings, Settings, ShotSettings

CODES = [k[len(PREFIX):] for k in texts.TEXTS["en"] if k.startswith(PREFIX)]


def fields(template):
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


@pytest.mark.parametrize("code", CODES)
def test_every_reason_reads_back_to_its_code_and_has_the_same_parameters_in_dutch(code):
    params = {f: f"x{i}" for i, f in enumerate(sorted(fields(texts.TEXTS["en"][PREFIX + code])))}
    assert explain(reason(code, **params)) == (code, params)
    assert fields(texts.TEXTS["nl"][PREFIX + code]) == set(params)


def refusals():
    """The seat commands' refusals, as the engine gives them (the words the floor's pages translate)."""
    seated = SeatedEngine(Settings(mode="shot", seats=SeatSettings(track=True, count=6)))
    seated.handle(SeatPlayer(0, seat=2, name="Ana"))
    cases = [SeatPlayer(1, seat=9), EmptySeat(1, seat=9), SeatPlayer(1, seat=2, name="Bo"), Rename(1, seat=9, name="x"),
             SetButton(1, seat=0), TopUp(1), TopUp(1, chips=2), TopUp(1, seconds=30),
             Seating(1, players=((3, "Cy"), (3, "Di")))]
    out = [o for e in cases for o in seated.handle(e)]
    out += Engine(Settings(mode="shot")).handle(SeatPlayer(1, seat=2, name="Ana"))  # seat tracking off
    return [o.reason for o in out if o.TYPE == "ignored"]


def test_every_seat_refusal_the_engine_gives_has_its_template():
    reasons = refusals()
    assert len(reasons) == 10
    unexplained = [r for r in reasons if explain(r) is None]
    assert not unexplained  # a new refusal needs its reason.<code> in core/texts.py, in Dutch and English
    assert explain("seat must be a number from 1 to 6, not 9") == ("seat_range", {"count": "6", "seat": "9"})


class FakeLink:
    boot = "abcdefabcdef"

    def __init__(self):
        self.acks = []

    def offer_ack(self, text):
        self.acks.append(json.loads(text))


def test_an_ignored_commands_ack_carries_the_reasons_code_and_parameters():
    from shotclock.core.inputs import Command
    from shotclock.core.table import Ack
    from shotclock.core.events import Ignored
    from shotclock.shell.network import NetworkPresenter

    presenter = NetworkPresenter(FakeLink(), "1", "Tafel 1", "nl")
    command = Command(1.0, "seat", id="x1", sender="floor-anna", seat=2)
    presenter._ack(Ack(command, (Ignored(1.0, "seat", "seat 2 is taken by Ana: empty it first"),)))
    presenter._ack(Ack(command, (Ignored(1.0, "seat", "a reason with no template"),)))
    first, second = presenter.link.acks
    assert first["reason"] == "seat 2 is taken by Ana: empty it first"
    assert (first["code"], first["params"]) == ("seat_taken_by", {"seat": "2", "name": "Ana"})
    assert "code" not in second and second["reason"] == "a reason with no template"
    from network_schemas import check, schemas

    check("ack", first)
    assert {"code", "params"} <= set(schemas()["ack"]["properties"])  # documented
