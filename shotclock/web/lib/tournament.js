/* A tournament clock as the pages show it (the room's screen, the dashboard's clock panel): pure functions over the
 * clock's retained state and status (docs/network.md, "tournament: a tournament clock"), no DOM, no network.
 *
 * A page counts down from the moment a state arrived, on its own clock (performance.now()), as it does for a table:
 *   left = remaining - (now - arrival)  while the clock runs.
 * It never shows a clock that is gone as running: its status says offline (its process stopped, or its Last Will:
 * a crash, a power cut), or no state came for `quiet_beats` heartbeats and a second (core/tournament_state.py,
 * through device-rules.js). A record here is {venue, id, state, at, online}.
 */
(function (root) {
  "use strict";
  var S = root.Shotclock = root.Shotclock || {};
  var RULES = (S.DEVICE_RULES || {}).tournament || {heartbeat_s: 5, quiet_beats: 3, quiet_slack_s: 1};

  function parse(payload) {
    if (!payload || !payload.length) return null;
    try { return JSON.parse(new TextDecoder().decode(payload)); } catch (e) { return undefined; }
  }

  /** Fold one message on `…/<venue>/tournament/<id>/state` or `…/status` into `clocks` ({"venue/id": record});
   *  returns the record, or null for any other topic or a message that is not the clock's. An older state than the
   *  one kept (its `seq`) changes nothing; an empty state (the tournament cleared) forgets the clock. */
  function fold(clocks, topic, payload, now) {
    var parts = topic.split("/");
    if (parts.length !== 6 || parts[3] !== "tournament" || (parts[5] !== "state" && parts[5] !== "status")) return null;
    var venue = parts[2], id = parts[4], key = venue + "/" + id, value = parse(payload);
    if (value === undefined) return null;
    var clock = clocks[key] || (clocks[key] = {venue: venue, id: id, state: null, at: 0, online: null});
    if (parts[5] === "status") {
      clock.online = !!value && value.online === true;
    } else if (value === null) {
      delete clocks[key];
      return null;
    } else if (typeof value === "object" && value.id === id && value.stage && typeof value.seq === "number") {
      if (clock.state && value.seq <= clock.state.seq) return clock;
      clock.state = value;
      clock.at = now;
    }
    return clock;
  }

  /** No state for `quiet_beats` heartbeats and a second: nobody vouches for the clock. */
  function quiet(clock, now) {
    var s = clock.state;
    if (!s) return true;
    var beat = typeof s.heartbeat_s === "number" && s.heartbeat_s > 0 ? s.heartbeat_s : RULES.heartbeat_s;
    return now - clock.at > (RULES.quiet_beats * beat + RULES.quiet_slack_s) * 1000;
  }

  /** The clock cannot be heard: offline, or quiet. Its last state is old news (shown greyed, never counting). */
  function unreachable(clock, now) { return clock.online === false || quiet(clock, now); }

  function elapsed(clock, now) {
    return clock.state && clock.state.running && !unreachable(clock, now) ? (now - clock.at) / 1000 : 0;
  }

  /** The stage's time left at `now`, in seconds (null: a level that ends by hands). */
  function left(clock, now) {
    var r = clock.state && clock.state.remaining;
    return typeof r === "number" ? Math.max(0, r - elapsed(clock, now)) : null;
  }

  /** The time to the next break at `now`, in seconds (null: none ahead). */
  function toBreak(clock, now) {
    var r = clock.state && clock.state.to_break;
    return typeof r === "number" ? Math.max(0, r - elapsed(clock, now)) : null;
  }

  /** "12:34" or "1:02:03": the second the countdown is in. */
  function clockText(seconds) {
    var s = Math.ceil(Math.max(0, seconds) - 1e-6);
    var h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, r = s % 60;
    return (h ? h + ":" + String(m).padStart(2, "0") : String(m)) + ":" + String(r).padStart(2, "0");
  }

  /** Whether the clock's scope covers a table standing in `room` and `section` (core/tournament_state.py Scope). */
  function covers(clock, room, section) {
    var sc = (clock.state && clock.state.scope) || {};
    return (!(sc.rooms || []).length || sc.rooms.indexOf(room) >= 0) &&
           (!(sc.sections || []).length || sc.sections.indexOf(section) >= 0);
  }

  S.Tournament = {fold: fold, quiet: quiet, unreachable: unreachable, left: left, toBreak: toBreak,
                  clockText: clockText, covers: covers, RULES: RULES};
})(this);
