/* The clock as the pages show it: pure functions, no DOM, no network (shared by the dashboard
 * and the overlay; tests call them in the browser).
 *
 * Devices publish no wall-clock deadlines (a Pi has no real-time clock). A page counts down
 * locally from the moment its last `state` message arrived, on its own monotonic clock
 * (performance.now()):  remaining = remaining_ms - (now - receivedAt)  while the clock runs.
 *
 * A "table" here is the page's record of one device (see link.js):
 *   {venue, id, name, online, state, receivedAt, confirmedAt, ruling, drift}
 * where `state` is the device's last `state` message as docs/network.md describes it.
 */
(function (root) {
  "use strict";

  // A ruling stays up as long as on the device's own screen (core/view.py, through device-rules.js).
  var RULING_MS = root.Shotclock.DEVICE_RULES.ruling_ms;
  var LATE_MS = 250;      // a heartbeat up to this much slower than the best one is not followed
  var RANK = {countdown: 0, running: 0, paused: 1, interrupted: 1, idle: 2, quiet: 3, unreachable: 3, offline: 3};
  var QUIET_HEARTBEATS = 3;  // a running clock unconfirmed for this many heartbeats (and a second) is not shown
  var QUIET_SLACK_MS = 1000;

  /** Milliseconds left on the table's clock at `now`, or null when no clock is running or paused (or the
   *  table has gone quiet: see quiet()). */
  function remainingMs(table, now) {
    var s = table.state;
    if (!s || (s.phase !== "running" && s.phase !== "paused")) return null;
    if (quiet(table, now) || table.unreachable) return null;
    if (s.phase === "paused") return s.remaining_ms;
    return Math.max(0, s.remaining_ms - (now - table.receivedAt));
  }

  /** The seconds a screen shows for `ms` left: whole seconds rounded up, as on the device. */
  function shownSeconds(ms) {
    return Math.ceil(Math.round(ms) / 1000);
  }

  /** True when the table's clock runs but the table has not confirmed it lately: its state promises a
   *  heartbeat every `heartbeat_ms` while a clock runs, and none came for a few of them (the device's
   *  network or its sender is stuck). A page then shows no count it cannot vouch for. */
  function quiet(table, now) {
    var s = table.state;
    if (!s || s.phase !== "running" || typeof s.heartbeat_ms !== "number") return false;
    var heard = table.confirmedAt === undefined ? table.receivedAt : table.confirmedAt;
    return now - heard > QUIET_HEARTBEATS * s.heartbeat_ms + QUIET_SLACK_MS;
  }

  /** One of offline, unreachable, quiet, idle, running, countdown, paused, interrupted.
   *  Unreachable: the room broker's bridge it reaches the venue through is down (link.js), so its last messages
   *  say nothing about now. Online with no state: nothing vouches for what its clock does (a running clock's
   *  state expires at the broker), so not "idle" but quiet. */
  function phase(table, now) {
    var s = table.state;
    if (table.online === false) return "offline";
    if (table.unreachable) return "unreachable";
    if (!s) return table.online ? "quiet" : "offline";
    if (s.phase === "paused") return s.interrupted ? "interrupted" : "paused";
    if (s.phase !== "running") return "idle";
    if (quiet(table, now)) return "quiet";
    return remainingMs(table, now) <= (s.countdown || 0) * 1000 ? "countdown" : "running";
  }

  /** Fraction of the clock left (0..1), or null without a clock. */
  function progress(table, now) {
    var ms = remainingMs(table, now);
    var s = table.state;
    if (ms === null || !s.seconds) return null;
    return Math.min(1, Math.max(0, ms / (s.seconds * 1000)));
  }

  /** The table's latest ruling while it is still news (RULING_MS after it reached the page), else null. */
  function freshRuling(table, now) {
    var r = table.ruling;
    return r && now - r.seenAt < RULING_MS ? r : null;
  }

  // One collator for every comparison: localeCompare with options builds one per call (500 tables: ~10 ms a sort).
  var COLLATOR = new Intl.Collator(undefined, {numeric: true, sensitivity: "base"});

  /** Compare two labels the way people number tables: "Tafel 2" before "Tafel 10". */
  function naturalCompare(a, b) {
    return COLLATOR.compare(String(a), String(b));
  }

  /** Where a phase sorts: running clocks first, then paused ones, idle tables, then quiet and offline ones. */
  function phaseRank(phase) {
    return RANK[phase];
  }

  /** Running clocks first, then paused ones, then idle tables, then offline ones; by name within each.
   *  (Not by time left: cards that swap places under a finger make the floor press the wrong table.) */
  function sortTables(tables, now) {
    return tables.slice().sort(function (a, b) {
      return (phaseRank(phase(a, now)) - phaseRank(phase(b, now))) ||
        naturalCompare(a.name || a.id, b.name || b.id) || naturalCompare(a.venue, b.venue);
    });
  }

  /** The commands a floor may send in this phase of this mode (the engine's transition table, core/engine.py). */
  function commandsFor(table, now) {
    var p = phase(table, now);
    var shot = table.state && table.state.mode === "shot";
    if (p === "offline" || p === "quiet" || p === "unreachable") return [];
    // Hand-for-hand (TDA RP-8): a table whose hand is done starts no clock until the floor releases the next hand.
    var waiting = table.state && table.state.hand_for_hand && table.state.hand_for_hand.waiting === true;
    if (p === "idle") return waiting ? [] : shot ? ["start"] : ["call"];
    var stop = shot ? "stop" : "cancel";
    if (p === "paused" || p === "interrupted") return ["resume", stop];
    return shot ? ["pause", "extend", stop] : ["pause", stop];
  }

  /** Fold a new `state` message into the table record, measuring how far the local countdown had drifted.
   *
   *  While a clock keeps running unchanged, the device's new remaining_ms and the page's own count at the
   *  moment the message arrives should agree: the difference (how unevenly the messages travel) is kept in
   *  table.drift for the floor's trust and for the tests. The count runs from the fastest recent heartbeat:
   *  a faster one is always taken, a slower one (up to LATE_MS) is not. */
  function applyState(table, state, now) {
    var old = table.state;
    var elapsed = now - table.receivedAt;
    if (old && old.boot === state.boot && typeof old.seq === "number" && state.seq <= old.seq) return false;
    // Every new message confirms the clock, the count from the fastest heartbeat or not (see quiet()).
    table.confirmedAt = now;
    if (old && old.phase === "running" && state.phase === "running" && old.boot === state.boot &&
        old.seconds === state.seconds && old.extensions === state.extensions && old.street === state.street &&
        sameRuling(old.last_ruling, state.last_ruling, elapsed)) {
      var err = remainingMs(table, now) - state.remaining_ms;
      var d = table.drift || (table.drift = {n: 0, maxAbs: 0, last: 0, recent: []});
      d.n += 1;
      d.last = err;
      d.maxAbs = Math.max(d.maxAbs, Math.abs(err));
      d.recent.push(err);
      if (d.recent.length > 100) d.recent.shift();
      if (err < 0 && err >= -LATE_MS) {
        // This heartbeat travelled slower than the one the count runs from (it says more time is left than
        // the count): keep counting from the faster one, so one delayed message does not set the clock back.
        // A bigger jump is a real change (a pause and a resume folded into one message): follow it.
        table.state = Object.assign({}, state, {remaining_ms: old.remaining_ms});
        if (state.name) table.name = state.name;
        return true;
      }
    }
    table.state = state;
    table.receivedAt = now;
    if (state.name) table.name = state.name;
    var last = state.last_ruling;
    if (last && (!old || !sameRuling(old.last_ruling, last, elapsed))) {
      // age_ms says how old the ruling was when the message left: a retained state after a reload is no news.
      table.ruling = {outcome: last.outcome, remaining: last.remaining_ms / 1000, at_zero: last.at_zero,
                      seenAt: now - (last.age_ms || 0)};
    } else if (!last) {
      table.ruling = null;
    }
    return true;
  }

  /** True when two last_ruling values, `elapsed` ms apart, are the same ruling: its age grew by about
   *  the time between the messages (two hands dead in a row differ only in their age). */
  function sameRuling(a, b, elapsed) {
    if (!a || !b) return !a && !b;
    return a.outcome === b.outcome && a.remaining_ms === b.remaining_ms && a.at_zero === b.at_zero &&
      Math.abs((b.age_ms || 0) - (a.age_ms || 0) - elapsed) < 1000;
  }

  /** The ruling if time runs out (core/engine.py Snapshot.consequence). */
  function consequence(state) {
    return state.facing_bet ? "hand_dead" : "check";
  }

  /** Milliseconds left of a time bank at `now` (time bank mode), or null where there is none: the seat on the
   *  clock's (`seat` omitted) or seat `seat`'s, from the state's seats. The seat on the clock spends its bank as
   *  the clock's last part, so what is left of it is the smaller of its bank and the clock's time, counting down
   *  with the clock (core/view.py); every other seat's bank is as at its last decision. One function for the
   *  overlay and the dashboard's seat rows. */
  function bankLeftMs(table, now, seat) {
    var s = table.state || {};
    var onClock = s.seat && (seat === undefined || seat === s.seat);
    var bank = onClock ? s.bank_ms : (s.seats || []).filter(function (x) { return x.seat === seat; })
      .map(function (x) { return x.bank_ms; })[0];
    if (bank === null || bank === undefined) return null;
    var ms = onClock ? remainingMs(table, now) : null;
    return ms === null ? bank : Math.min(bank, ms);
  }

  /** True while the clock runs in the player's own bank (its base time is up): the moment the device's
   *  screen turns to its bank tone and says TIME BANK. */
  function bankRuns(table, now) {
    var s = table.state || {};
    var ms = remainingMs(table, now);
    return ms !== null && !!s.seat && s.bank_ms !== null && s.bank_ms !== undefined && ms <= s.bank_ms;
  }

  var api = {
    RULING_MS: RULING_MS, remainingMs: remainingMs, quiet: quiet, shownSeconds: shownSeconds, phase: phase,
    progress: progress, freshRuling: freshRuling, naturalCompare: naturalCompare, sortTables: sortTables,
    phaseRank: phaseRank,
    commandsFor: commandsFor, applyState: applyState, consequence: consequence,
    bankLeftMs: bankLeftMs, bankRuns: bankRuns
  };
  root.Shotclock = root.Shotclock || {};
  for (var k in api) root.Shotclock[k] = api[k];
})(this);
