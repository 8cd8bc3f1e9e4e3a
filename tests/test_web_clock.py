"""The pages' clock logic (web/lib/clock.js), run in the real browser: local countdown, phases, sorting."""

import json

import pytest

from shotclock.core import texts
from shotclock.core.wire import dumps
from shotclock.web import web_dir


SCRIPTS = ("lib/device-texts.js", "lib/device-rules.js", "lib/clock.js", "lib/tones.js", "lib/texts.js")


@pytest.fixture(scope="module")
def js(web):
    page = web.page()
    page.set_content("<!doctype html><title>clock.js</title>")
    for name in SCRIPTS:
        page.add_script_tag(path=str(web_dir() / name))
    yield page
    page.context.close()


def state(**kw):
    s = {"table": "1", "boot": "abcdefabcdef", "seq": 1, "name": "Tafel 1", "mode": "clock", "phase": "running",
         "facing_bet": True, "street": None, "extensions": 0, "seconds": 30, "remaining_ms": 20000, "countdown": 5,
         "last_ruling": None, "faults": [], "network": {"outbox": 0}}
    s.update(kw)
    return s


def test_counts_down_from_the_arrival_of_the_last_state(js):
    got = js.evaluate("""s => { const t = {online: true};
        Shotclock.applyState(t, s, 1000);
        return [Shotclock.remainingMs(t, 1000), Shotclock.remainingMs(t, 3500), Shotclock.phase(t, 3500),
                Shotclock.phase(t, 16000), Shotclock.shownSeconds(Shotclock.remainingMs(t, 16000)),
                Shotclock.remainingMs(t, 99000)]; }""", state())
    assert got == [20000, 17500, "running", "countdown", 5, 0]


def test_a_paused_clock_stands_still_and_an_interrupted_one_says_so(js):
    got = js.evaluate("""([p, i]) => { const a = {online: true}, b = {online: true};
        Shotclock.applyState(a, p, 0); Shotclock.applyState(b, i, 0);
        return [Shotclock.remainingMs(a, 60000), Shotclock.phase(a, 60000), Shotclock.phase(b, 0),
                Shotclock.commandsFor(b, 0)]; }""",
                      [state(phase="paused", remaining_ms=12345), state(phase="paused", interrupted=True)])
    assert got == [12345, "paused", "interrupted", ["resume", "cancel"]]


def test_drift_is_measured_when_the_next_heartbeat_arrives(js):
    # The device said 20000 ms; 1000 ms later (page clock) it says 18990: the page's count (19000) is 10 ms high.
    got = js.evaluate("""([a, b, c]) => { const t = {online: true};
        Shotclock.applyState(t, a, 0); Shotclock.applyState(t, b, 1000);
        const first = Object.assign({}, t.drift, {recent: t.drift.recent.slice()});
        Shotclock.applyState(t, c, 1500);   // a new clock (extension used): not a drift
        return [first, t.drift.n]; }""",
                      [state(seq=1), state(seq=2, remaining_ms=18990), state(seq=3, remaining_ms=48000, extensions=1,
                                                                             seconds=60)])
    assert got[0] == {"n": 1, "maxAbs": 10, "last": 10, "recent": [10]}
    assert got[1] == 1


def test_the_count_runs_from_the_fastest_heartbeat(js):
    # Anchored at 0 ms with 20000 left. At 1000 ms a heartbeat says 19040: it travelled 40 ms slower; the
    # count keeps its anchor (19000 shown). At 2000 a heartbeat says 17990: 10 ms faster, taken. At 3000
    # one says 19000 (a pause and a resume folded into one message, 2 s more): a real change, followed.
    got = js.evaluate("""([a, b, c, d]) => { const t = {online: true};
        Shotclock.applyState(t, a, 0);
        Shotclock.applyState(t, b, 1000); const r1 = Shotclock.remainingMs(t, 1000);
        Shotclock.applyState(t, c, 2000); const r2 = Shotclock.remainingMs(t, 2000);
        Shotclock.applyState(t, d, 3000); const r3 = Shotclock.remainingMs(t, 3000);
        return [r1, r2, r3, t.state.seq, t.drift.recent]; }""",
                      [state(seq=1), state(seq=2, remaining_ms=19040), state(seq=3, remaining_ms=17990),
                       state(seq=4, remaining_ms=19000)])
    assert got == [19000, 17990, 19000, 4, [-40, 10, -2010]]


def test_late_or_repeated_states_are_dropped(js):
    got = js.evaluate("""([a, b]) => { const t = {online: true};
        Shotclock.applyState(t, a, 0);
        return [Shotclock.applyState(t, b, 10), t.state.seq]; }""", [state(seq=5), state(seq=4, remaining_ms=1)])
    assert got == [False, 5]


def test_a_ruling_is_news_for_ten_seconds_but_not_after_a_reload(js):
    got = js.evaluate("""([fresh, old]) => { const a = {online: true}, b = {online: true};
        Shotclock.applyState(a, fresh, 0); Shotclock.applyState(b, old, 0);
        return [!!Shotclock.freshRuling(a, 9000), !!Shotclock.freshRuling(a, 9600),
                !!Shotclock.freshRuling(b, 0)]; }""",
                      [state(phase="idle", last_ruling={"outcome": "hand_dead", "age_ms": 500}),
                       state(phase="idle", last_ruling={"outcome": "check", "age_ms": 600000})])
    assert got == [True, False, False]


def test_running_tables_sort_first_then_paused_idle_offline_by_natural_name(js):
    names = js.evaluate("""ss => {
        const tables = ss.map(([name, s, online]) => { const t = {venue: "v", id: name, name: name, online: online};
            if (s) Shotclock.applyState(t, Object.assign({}, s, {name: name}), 0); return t; });
        return Shotclock.sortTables(tables, 0).map(t => t.name); }""", [
        ["Tafel 10", state(phase="idle"), True], ["Tafel 2", state(phase="idle"), True],
        ["Tafel 9", state(), False], ["Tafel 7", state(phase="paused"), True],
        ["Tafel 11", state(remaining_ms=3000), True], ["Tafel 3", state(), True]])
    assert names == ["Tafel 3", "Tafel 11", "Tafel 7", "Tafel 2", "Tafel 10", "Tafel 9"]


def test_texts_are_the_devices_words(js):
    got = js.evaluate("""() => [Shotclock.consequenceText("nl", {facing_bet: true}),
        Shotclock.rulingWords("en", {outcome: "acted", remaining: 3.25, at_zero: false}),
        [0.15, 0.25, 0.75, 2.05, 12.35].map(x => Shotclock.seconds("nl", x)),
        Shotclock.rulingWords("nl", {outcome: "acted", at_zero: true})[0]]""")
    # Rounded as Python's format() rounds on the device (3.25 is a tie: half to even).
    assert got[2] == [texts.seconds("nl", x) for x in (0.15, 0.25, 0.75, 2.05, 12.35)]
    assert got[0] == texts.text("nl", "at_zero", bet=texts.text("nl", "bet.yes"),
                                ruling=texts.text("nl", "ruling.hand_dead"))
    assert got[1:2] + got[3:] == [["ACTION IN TIME", "3.2 s left", "good"], "ACTIE OP 0"]


def test_faults_read_as_on_the_devices_screen(js):
    # The typed objects the device sends (core/faults.py to_dict, as core/wire.py state_message lists them),
    # read back by the page, say what the device's own screen says (core/view.py), for every kind there is.
    from shotclock.config.pins import BUTTONS
    from shotclock.core.faults import (FAULTS, LOG_BACKLOG, LOG_UNAVAILABLE, LOG_WRITE_FAILED, FirstBootFailed,
                                       LogFault, NoSound, StuckButton)
    from shotclock.core.view import _fault_text

    faults = [StuckButton(b, 12.5) for b in BUTTONS] + [NoSound("no audio device: a: b")] + [
        LogFault(p, "disk full: no space") for p in (LOG_UNAVAILABLE, LOG_WRITE_FAILED, LOG_BACKLOG)] + [
        FirstBootFailed("/boot/firmware/shotclock-firstboot.toml: not UTF-8 text (byte 0)")]
    assert {type(f) for f in faults} == set(FAULTS)
    wire = json.loads(dumps([f.to_dict() for f in faults]))
    for lang in ("nl", "en"):
        got = js.evaluate("([lang, faults]) => Shotclock.faultTexts(lang, faults)", [lang, wire])
        assert got == [_fault_text(f, lang) for f in faults]
    unknown = js.evaluate("""() => Shotclock.faultTexts("en", [{kind: "overheated", detail: "81 °C"}])""")
    assert unknown == ["overheated: 81 °C"]


def test_a_timeline_starts_at_zero_and_leaves_out_empty_fields(js):
    rows = js.evaluate("""() => Shotclock.timelineRows([
        {utc: "2026-11-30T21:00:00.100000Z", record: {t: 100.0004, type: "input", event: "call", street: null}},
        {utc: "2026-11-30T21:00:00.101000Z", record: {t: 100.0001, type: "start", seconds: 30, street: null}},
        {utc: "2026-11-30T21:00:09.000000Z", record: {t: 99.9, type: "odd"}},
        {utc: "2026-11-30T21:00:30.101000Z", record: {t: 130.0001, type: "decision", outcome: "check"}}])""")
    assert rows == [["21:00:00.100", "0.000 s", "input", 'event "call"'],
                    ["21:00:00.101", "0.000 s", "start", "seconds 30"],
                    ["21:00:09.000", "\u2212" + "0.100 s", "odd", ""],
                    ["21:00:30.101", "+30.000 s", "decision", 'outcome "check"']]


def test_a_timelines_numbers_are_rounded_to_the_millisecond_as_its_offsets(js):
    rows = js.evaluate("""() => Shotclock.timelineRows([
        {utc: "2026-11-30T21:00:00.100000Z", record: {t: 1, type: "start", seconds: 30, bank: 12.5}},
        {utc: "2026-11-30T21:00:20.100000Z", record: {t: 21.0001, type: "decision", outcome: "acted",
                                                       remaining: 9.999820051000142, at_zero: false}}])""")
    assert rows[0][3] == "seconds 30, bank 12.5"
    assert rows[1][3] == 'outcome "acted", remaining 10, at_zero false'


def test_the_bank_counts_down_for_the_seat_on_the_clock_only_and_is_marked_once_it_runs(js):
    # A Tempo clock: 90 s on it, the last 60 the player's bank (seat 4); seat 2 keeps the bank of its last decision.
    tempo = state(mode="shot", seconds=90, remaining_ms=90000, countdown=5, seat=4, bank_ms=60000,
                  seats=[{"seat": 2, "bank_ms": 41000}, {"seat": 4, "bank_ms": 60000}])
    got = js.evaluate("""s => { const t = {online: true};
        Shotclock.applyState(t, s, 0);
        return [0, 29000, 31000, 70000].map(now => [Shotclock.bankLeftMs(t, now), Shotclock.bankLeftMs(t, now, 4),
                Shotclock.bankLeftMs(t, now, 2), Shotclock.bankRuns(t, now), Shotclock.clockTone(t, now)]); }""",
                      tempo)
    assert got == [[60000, 60000, 41000, False, "calm"], [60000, 60000, 41000, False, "calm"],
                   [59000, 59000, 41000, True, "bank"], [20000, 20000, 41000, True, "bank"]]
    plain = js.evaluate("s => { const t = {online: true}; Shotclock.applyState(t, s, 0); "
                        "return [Shotclock.bankLeftMs(t, 0), Shotclock.bankRuns(t, 0)]; }", state())
    assert plain == [None, False]


def rgb(colour) -> str:
    """A core colour as the browser's computed style writes it."""
    return "rgb({}, {}, {})".format(*colour)


def test_rulings_and_clocks_take_the_devices_tones(js):
    # Each outcome's tone is the one the device's screen shows it in (core/view.py), CHECK a neutral slate.
    from shotclock.core.events import ACTED, CANCELLED, CHECK, HAND_DEAD, Decision
    from shotclock.core.tones import running_tone
    from shotclock.core.view import RULING_SECONDS, _ruling_words

    cases = [(ACTED, 3.25, False), (ACTED, 0.0, True), (HAND_DEAD, None, None), (CHECK, None, None),
             (CANCELLED, None, None)]
    for outcome, remaining, at_zero in cases:
        device = _ruling_words(Decision(1.0, outcome, remaining, at_zero), "en")
        page = js.evaluate("r => Shotclock.rulingWords('en', r)", {"outcome": outcome, "remaining": remaining,
                                                                   "at_zero": at_zero})
        assert page == list(device), outcome
    assert js.evaluate("() => Shotclock.rulingWords('nl', {outcome: 'check'})[2]") == "check"
    fractions = [1.0, 0.51, 0.5, 0.25, 0.0]
    assert js.evaluate("fs => fs.map(Shotclock.runningTone)", fractions) == [running_tone(f) for f in fractions]
    assert js.evaluate("() => Shotclock.RULING_MS") == RULING_SECONDS * 1000
    tones = js.evaluate("""s => { const t = {online: true};
        Shotclock.applyState(t, s, 0);
        return [0, 9000, 16000, 26000].map(now => Shotclock.clockTone(t, now)); }""", state(remaining_ms=30000))
    assert tones == ["calm", "calm", "warn", "urgent"]  # > half, half, under half, the last 5 s


@pytest.mark.parametrize("page", ["dashboard", "overlay"])
def test_the_pages_paint_rulings_in_the_devices_colours(web, page):
    # The page's own stylesheet, painted by tones.js from device-rules.js: a CHECK has the device's slate.
    from shotclock.core.tones import TONES

    p = web.page()
    try:
        p.set_content(f'<!doctype html><link rel="stylesheet" href="x.css"><div id="graphic" class="graphic">'
                      '<p class="ruling">Last: CHECK</p></div><ol class="feed"><li>CHECK</li></ol>')
        p.add_style_tag(path=str(web_dir() / page / f"{page}.css"))
        for name in SCRIPTS:
            p.add_script_tag(path=str(web_dir() / name))
        got = p.evaluate("""page => {
            Shotclock.paintTones(document.documentElement);
            const el = document.getElementById("graphic"), li = document.querySelector(".feed li");
            const out = {};
            for (const tone of ["check", "dead", "good"]) {
              for (const [part, v] of [["bg", "background"], ["ink", "ink"], ["ring", "ring"]]) {
                el.style.setProperty("--ruling-" + part, `var(--${tone}-${part})`);
                li.style.setProperty("--ruling-" + part, `var(--${tone}-${part})`);
              }
              li.style.setProperty("--ruling-accent", `var(--${tone})`);
              li.dataset.tone = tone;
              if (page === "overlay") {
                el.className = "graphic show-ruling";
                out[tone] = [getComputedStyle(el).backgroundColor, getComputedStyle(el).color];
              } else {
                el.className = "table fresh";
                const r = el.querySelector(".ruling");
                out[tone] = [getComputedStyle(r).backgroundColor, getComputedStyle(r).color,
                             getComputedStyle(li).borderLeftColor];
              }
            }
            return out; }""", page)
    finally:
        p.context.close()
    for tone in ("check", "dead", "good"):
        expected = [rgb(TONES[tone].background), rgb(TONES[tone].ink)]
        if page == "dashboard":
            expected.append(rgb(TONES[tone].accent))
        assert got[tone] == expected, tone


def test_a_running_clock_that_the_table_stops_confirming_goes_quiet(js):
    # Issue 18: the sender died and the broker kept "running, 8000 ms": no page may count that down for long.
    got = js.evaluate("""s => { const t = {online: true};
        Shotclock.applyState(t, s, 1000);
        return [Shotclock.phase(t, 2000), Shotclock.phase(t, 4900), Shotclock.phase(t, 5100),
                Shotclock.remainingMs(t, 5100), Shotclock.commandsFor(t, 5100),
                Shotclock.sortTables([t, {online: true, name: "b", state: null}], 5100)[0] === t]; }""",
                      state(heartbeat_ms=1000))
    assert got == ["running", "running", "quiet", None, [], False]


def test_a_paused_clock_needs_no_heartbeat_and_an_old_device_is_not_judged_by_one(js):
    got = js.evaluate("""([p, old]) => { const a = {online: true}, b = {online: true};
        Shotclock.applyState(a, p, 0); Shotclock.applyState(b, old, 0);
        return [Shotclock.phase(a, 600000), Shotclock.phase(b, 9000)]; }""",
                      [state(phase="paused", heartbeat_ms=1000), state()])
    assert got == ["paused", "running"]


def test_heartbeats_that_come_a_little_late_still_confirm_the_clock(js):
    # The count runs from the fastest heartbeat; the slower ones after it must still keep the table confirmed.
    got = js.evaluate("""() => { const t = {online: true};
        const s = n => ({table: "1", boot: "abcdefabcdef", seq: n, name: "T", mode: "clock", phase: "running",
                         facing_bet: true, street: null, extensions: 0, seconds: 30, countdown: 5, last_ruling: null,
                         faults: [], network: {outbox: 0}, heartbeat_ms: 1000,
                         remaining_ms: 30000 - (n - 1) * 1000 + (n > 1 ? 100 : 0)});  // 100 ms slower than the first
        for (let n = 1; n <= 8; n++) Shotclock.applyState(t, s(n), (n - 1) * 1000);
        return [t.receivedAt, Shotclock.phase(t, 7500)]; }""")
    assert got == [0, "running"]


def test_a_refusal_reads_in_the_pages_language_from_its_code_and_parameters(js):
    from shotclock.core.reasons import explain

    reason = "seat 2 is taken by Ana Costa: empty it first"
    code, params = explain(reason)
    ack = {"outcome": "ignored", "reason": reason, "code": code, "params": params}
    got = js.evaluate("""ack => [Shotclock.reasonText("nl", ack), Shotclock.reasonText("en", ack),
        Shotclock.reasonText("nl", {outcome: "ignored", reason: "an older device's words"}),
        Shotclock.reasonText("nl", {outcome: "ignored", reason: "new words", code: "not_a_template", params: {}}),
        Shotclock.reasonText("nl", {outcome: "refused"})]""", ack)
    assert got == [texts.text("nl", "reason.seat_taken_by", seat=2, name="Ana Costa"), reason,
                   "an older device's words", "new words", "refused"]
    assert got[0] == "stoel 2 is bezet door Ana Costa: maak hem eerst leeg"


def test_the_commands_the_ruling_at_zero_and_the_countdown_follow_the_generated_rules(web):
    # Change the generated rules before clock.js reads them: the page follows them, so it holds no copy.
    page = web.page()
    try:
        page.set_content("<!doctype html><title>rules</title>")
        for name in SCRIPTS[:2]:
            page.add_script_tag(path=str(web_dir() / name))
        page.evaluate("""() => { const R = Shotclock.DEVICE_RULES;
            R.commands.clock.running = ["cancel"]; R.consequence.bet = "check"; R.countdown_includes_start = false; }""")
        for name in SCRIPTS[2:]:
            page.add_script_tag(path=str(web_dir() / name))
        got = page.evaluate("""s => { const t = {online: true}; Shotclock.applyState(t, s, 0);
            return [Shotclock.commandsFor(t, 0), Shotclock.consequence(s), Shotclock.phase(t, 15000),
                    Shotclock.phase(t, 15001)]; }""", state())
        assert got == [["cancel"], "check", "running", "countdown"]
    finally:
        page.context.close()


def test_every_phase_offers_the_commands_the_engine_takes(js):
    from shotclock.web import device_rules

    commands = device_rules()["commands"]
    for mode in ("clock", "shot"):
        got = js.evaluate("""states => states.map(s => { const t = {online: true}; Shotclock.applyState(t, s, 0);
            return [Shotclock.phase(t, 0), Shotclock.commandsFor(t, 0)]; })""",
                          [state(mode=mode, phase="idle"), state(mode=mode), state(mode=mode, remaining_ms=3000),
                           state(mode=mode, phase="paused"), state(mode=mode, phase="paused", interrupted=True)])
        assert got == [["idle", commands[mode]["idle"]], ["running", commands[mode]["running"]],
                       ["countdown", commands[mode]["running"]], ["paused", commands[mode]["paused"]],
                       ["interrupted", commands[mode]["paused"]]]
    assert js.evaluate("""s => { const t = {online: false}; Shotclock.applyState(t, s, 0);
        return Shotclock.commandsFor(t, 0); }""", state()) == []
