"""``shotclock log replay [SESSION]``: a whole device run again, from the raw pin edges in its log.

The log keeps every pin edge, floor command and room hand-for-hand state as it reached the device (``edge``,
``command`` and ``room_state`` records, with the loop round that took it). Fed through the same
:class:`~shotclock.core.table.Table` in the same rounds, they give the same inputs and
rulings: this command does that with no real time and prints what the table did, in the
``shotclock replay`` output format (plus ``input`` records), and with ``--check`` compares it
with what the log says the device did -- every clock's start, ruling, time left, seat and bank -- naming the
first difference (exit 1); ``--check --all`` does so for every session of the log.
"""

from __future__ import annotations

import sys

from shotclock.config.loading import config_from
from shotclock.core.clocks import seat_counts
from shotclock.core.codec import text as json_text
from shotclock.core.inputs import ARGS, Command, Edge, RoomHandForHand, TournamentNews
from shotclock.core.restore import ClockAtStop
from shotclock.errors import LogError

# The record fields compared with ``--check``: what the floor relies on.
COMPARED = {"input": ("event", "t"), "start": ("t", "seconds", "seat", "bank"),
            "decision": ("t", "outcome", "remaining", "at_zero", "by", "seat", "bank_used", "bank_left"),
            "pause": ("t", "remaining"), "resume": ("t", "remaining"), "extended": ("t", "remaining", "seat"),
            "bank": ("t", "seat", "bank"), "top_up": ("t", "remaining"), "hand_over": ("t", "seat"),
            "seat": ("t", "seat", "change", "bank", "chips"), "level": ("t", "level", "hand", "hands", "by", "topped_up"),
            "level_set": ("t", "level", "hands", "by"),
            "hand_for_hand": ("t", "why", "on", "waiting", "hands", "seq"), "rule_set": ("t", "why", "rule_set", "next")}
ARRIVALS = ("edge", "command", "room_state", "tournament")  # what reached the table, as it arrived: fed again in its rounds
RESTORED = ("hand_for_hand", "rule_set")  # what a start brings back from the log (``why`` "restored"), as it did


def replay_session(rows: list[dict], session: dict, types=None) -> list[dict]:
    """The records a session's edges and commands give through a fresh table (inputs and outputs).

    :param rows: the session's records, in id order.
    :param session: its ``session`` record (the configuration in force, the start time).
    :param types: only records of these types (``--check`` builds only those it compares); None: all.
    """
    from shotclock.shell.device import make_table

    config = config_from(session.get("config") or {}, "the session's configuration")
    table = make_table(config, session.get("table_start", session["t"]))
    out: list[dict] = []

    def take(rounds) -> None:
        out.extend(item.record() for round in rounds for item in round.sequence
                   if types is None or getattr(item, "TYPE", "input") in types)

    batch, batch_round, after = [], None, None
    for row in rows:
        kind = row["type"]
        if kind == "interrupted" and row.get("restored"):
            table.restore(ClockAtStop.from_record(row), row["t"])
        elif kind == "chips_restored":
            table.restore_chips(seat_counts(row.get("used")))
        elif kind == "seats_restored":
            table.restore_seats(row)
        elif kind in RESTORED and row.get("why") == "restored":
            (table.restore_hand_for_hand if kind == "hand_for_hand" else table.restore_rule_set)(row, row["t"])
        elif kind == "level_restored":
            table.restore_levels(row)
        elif kind == "edge" and row.get("at_start"):
            table.button_held_at_start(row["t"], row["button"])
        elif kind in ARRIVALS:
            if row.get("round") != batch_round and batch:
                take(_feed(table, batch, batch_round, after))
                batch = []
            batch_round, after = row.get("round", row["t"]), row.get("after")
            batch.append(Edge(row["t"], row["button"], row["pressed"]) if kind == "edge" else
                         _command(row) if kind == "command" else _room_state(row) if kind == "room_state" else
                         _tournament(row))
    if batch:
        take(_feed(table, batch, batch_round, after))
    if rows:  # the rulings that fell due after the last input, up to the session's last record
        # (a ruling waited edge_grace on the device, so the last one was made that much after its time)
        end = max(max(r["t"] for r in rows) + table.edge_grace,
                  max((r.get("round") or 0 for r in rows if r["type"] == "input"), default=0))
        take([table.feed([], max(end, table.engine.now))])
    return out


def _feed(table, batch, now, after) -> list:
    rounds = []
    if after is not None and after > table.engine.now:
        rounds.append(table.feed([], after))  # the loop's round before: the engine's clock stood where it did
    rounds.append(table.feed(batch, now))
    return rounds


def compare(replayed: list[dict], logged: list[dict]) -> str | None:
    """The first difference between replayed and logged records (the compared kinds only), or None."""
    plain = lambda v: list(v) if isinstance(v, tuple) else v  # noqa: E731 (a record's tuple is the log's JSON list)
    pick = lambda records: [{k: plain(r.get(k)) for k in COMPARED[r["type"]]} | {"type": r["type"]}
                            for r in records if r["type"] in COMPARED and r.get("why") != "restored"]
    a, b = pick(replayed), pick(logged)
    for n, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"record {n + 1} of the compared ones differs: replayed {x}, logged {y}"
    if len(a) != len(b):
        return f"the replay gives {len(a)} records, the log holds {len(b)}"
    return None


def cmd_replay_edges(args, out=None) -> int:
    """Replay a session from its edges (``--all``: every session); with ``--check`` compare with the log (exit 1
    on a difference)."""
    from shotclock.shell.logsource import open_log as _open

    out = out or sys.stdout
    decision_log = _open(args)
    sessions = decision_log.sessions()
    if not sessions:
        raise LogError("the log holds no session")
    if getattr(args, "all", False):
        if args.session is not None:
            raise LogError("give a session or --all, not both")
        if not args.check:
            raise LogError("--all goes with --check (every session compared with the log)")
        return max(_replay_one(decision_log, sessions, s, args, out) for s in sorted(sessions))
    session_id = args.session if args.session is not None else max(sessions)
    if session_id not in sessions:
        raise LogError(f"no session {session_id} in the log (sessions: {', '.join(map(str, sorted(sessions)))})")
    return _replay_one(decision_log, sessions, session_id, args, out)


def _replay_one(decision_log, sessions: dict, session_id: int, args, out) -> int:
    later = [s for s in sessions if s > session_id]
    where = "WHERE session = ?" + (" AND id < ?" if later else "")
    rows = decision_log.rows(where, (session_id, min(later)) if later else (session_id,))
    if any(r["type"] == "input" for r in rows) and not any(r["type"] in ARRIVALS for r in rows):
        # inputs with no raw edges: a log from before edges were kept (a session with no presses replays fine)
        raise LogError(f"session {session_id} has inputs but no recorded edges (written by an older shotclock?)")
    replayed = replay_session([r for r in rows if r["type"] != "session"], sessions[session_id],
                              COMPARED if args.check else None)
    if args.check:
        difference = compare(replayed, rows)
        if difference:
            print(f"FAIL: session {session_id}: {difference}", file=out)
            return 1
        decisions = sum(1 for r in replayed if r["type"] == "decision")
        print(f"OK: session {session_id}: the edges give the same {decisions} rulings and every input", file=out)
        return 0
    for record in replayed:
        print(json_text(record), file=out)
    return 0


def _command(row: dict) -> Command:
    """The floor command a log's ``command`` record holds, as the device took it."""
    args = {name: row.get(name) for name in ARGS}
    args["players"] = tuple(tuple(p) for p in args["players"]) if args["players"] else None
    return Command(row["t"], row["name"], id=row["id"], sender=row["sender"], **args)


def _tournament(row: dict) -> TournamentNews:
    """The tournament clock's state a log's ``tournament`` record holds, as the device took it."""
    return TournamentNews(row["t"], row["tournament"], row["seq"], row.get("level"), row.get("hands") or 0,
                          bool(row.get("on_break")), row.get("break_left"), bool(row.get("paused")),
                          row.get("break_name") or "", row.get("gone") is True)


def _room_state(row: dict) -> RoomHandForHand:
    """The room's hand-for-hand state a log's ``room_state`` record holds, as the device took it."""
    return RoomHandForHand(row["t"], row["on"], row["hands"], row["minutes"], row["seq"], row.get("room"),
                           row.get("section"))
