/* The venue's hand-for-hand state of a scope (a room, a section, the venue), kept retained on the broker so a table
 * that missed a command catches up (docs/network.md, "hand-for-hand: the room's state"): its topic, written and read
 * as core/topics.py does, a state read within the bounds of core/fields.py, and the state a command makes, as
 * core/roomstate.py's next_room_state does. The bounds and the topic's alphabet come from the core
 * (DEVICE_RULES.hand_for_hand, generated); tests/test_dashboard_handforhand.py holds the two to each other.
 *
 * Needs lib/device-rules.js loaded first.
 */
(function (root) {
  "use strict";
  var S = root.Shotclock;
  var R = S.DEVICE_RULES.hand_for_hand;
  var PREFIX = "shotclock/v1";
  var HEX = "0123456789ABCDEF";

  /** A room's or section's name as one topic level: "*" for none named (any), "_" for the empty name, else its
   *  UTF-8 with every byte but R.place_safe as %XX (core/topics.py place_level). */
  function placeLevel(name) {
    if (name === null || name === undefined) return R.any_place;
    if (name === "") return R.no_place;
    var bytes = new TextEncoder().encode(name), out = "";
    for (var i = 0; i < bytes.length; i++) {
      var c = String.fromCharCode(bytes[i]);
      out += R.place_safe.indexOf(c) >= 0 ? c : "%" + HEX[bytes[i] >> 4] + HEX[bytes[i] & 15];
    }
    return out;
  }

  /** The name a topic level spells (null: any), or undefined for a level no name gives. */
  function placeName(level) {
    if (level === R.any_place) return null;
    if (level === R.no_place) return "";
    var bytes = [];
    for (var i = 0; i < level.length; i++) {
      var c = level[i];
      if (c === "%" && /^[0-9A-F]{2}$/.test(level.substr(i + 1, 2))) {
        var b = parseInt(level.substr(i + 1, 2), 16);
        if (R.place_safe.indexOf(String.fromCharCode(b)) >= 0) return undefined;
        bytes.push(b);
        i += 2;
      } else if (R.place_safe.indexOf(c) >= 0) {
        bytes.push(c.charCodeAt(0));
      } else {
        return undefined;
      }
    }
    if (!bytes.length) return undefined;
    try { return new TextDecoder("utf-8", {fatal: true}).decode(new Uint8Array(bytes)); } catch (e) { return undefined; }
  }

  function topic(venue, room, section) {
    return PREFIX + "/" + venue + "/handforhand/" + placeLevel(room) + "/" + placeLevel(section);
  }

  /** {venue, room, section} of a state's topic, or null for any other topic. */
  function scopeOf(name) {
    var parts = name.split("/");
    if (parts.length !== 6 || parts[0] + "/" + parts[1] !== PREFIX || parts[3] !== "handforhand") return null;
    var room = placeName(parts[4]), section = placeName(parts[5]);
    if (room === undefined || section === undefined) return null;
    return {venue: parts[2], room: room, section: section};
  }

  function whole(v, low, high) { return typeof v === "number" && Math.floor(v) === v && v >= low && v <= high; }

  /** A retained state as the page keeps it, or null: cleared, or not within the core's bounds (a page trusts no
   *  message to be well formed), or naming another scope than its topic. */
  function read(msg, room, section) {
    if (!msg || typeof msg !== "object" || typeof msg.on !== "boolean" || !whole(msg.seq, 1, R.max_seq)) return null;
    var hands = msg.hands === undefined ? 0 : msg.hands, minutes = msg.minutes === undefined ? R.minutes : msg.minutes;
    if (!whole(hands, 0, R.max_hands) || typeof minutes !== "number" || minutes < 0 || minutes > R.max_minutes) return null;
    var mr = msg.room === undefined ? null : msg.room, ms = msg.section === undefined ? null : msg.section;
    if (mr !== room || ms !== section) return null;
    return {room: room, section: section, on: msg.on, hands: hands, minutes: minutes,
            since_ms: typeof msg.since_ms === "number" ? msg.since_ms : null,
            at_ms: typeof msg.at_ms === "number" ? msg.at_ms : null,
            by: typeof msg.by === "string" ? msg.by.slice(0, 64) : null, seq: msg.seq};
  }

  function covers(s, room, section) {
    return (s.room === null || s.room === room) && (s.section === null || s.section === section);
  }

  /** The state the tables of the scope follow: the newest (highest seq) whose scope covers it, or null. */
  function newest(states, room, section) {
    var best = null;
    states.forEach(function (s) { if (covers(s, room, section) && (!best || s.seq > best.seq)) best = s; });
    return best;
  }

  /** Whether state `s`'s scope lies strictly inside the scope room / section (a change there replaces it). */
  function inside(s, room, section) {
    return (room === null || s.room === room) && (section === null || s.section === section) &&
           !(s.room === room && s.section === section);
  }

  /** The scope's new state once a table took `command`, from `current` (what its tables follow now), or null when
   *  the command changes nothing there. o: {minutes, by, nowMs, newestSeq}. */
  function next(current, command, room, section, o) {
    var seq = Math.max(o.newestSeq || 0, current ? current.seq : 0) + 1;
    var on = !!(current && current.on);
    var state = {room: room, section: section, on: true, hands: 0, minutes: R.minutes, since_ms: o.nowMs,
                 at_ms: o.nowMs, by: o.by || null, seq: Math.max(seq, o.nowMs)};
    if (command === "hand_for_hand") {
      if (on) return null;
      if (o.minutes !== undefined && o.minutes !== null) state.minutes = o.minutes;
      return state;
    }
    if (!on) return null;
    state.minutes = current.minutes;
    state.since_ms = current.since_ms;
    if (command === "release_hand") { state.hands = current.hands + 1; return state; }
    if (command === "end_hand_for_hand") { state.on = false; state.hands = current.hands; return state; }
    return null;
  }

  S.HandForHand = {placeLevel: placeLevel, placeName: placeName, topic: topic, scopeOf: scopeOf, read: read,
                   newest: newest, inside: inside, next: next, COMMANDS: R.commands};
})(this);
