/* The broadcast delay: the floor network's messages held back, so a page shows the tables as they were
 * `delayMs` ago (a feature table's stream runs 30 minutes late at WSOP).
 *
 *   var delay = new Shotclock.Delay(3000);
 *   var live = new Shotclock.Link({…, onMessage: delay.add.bind(delay)});
 *   var past = new Shotclock.Link({…});            // never connected: fed by the delay
 *   delay.release(performance.now() - 3000, past); // each frame; then draw from past.tables
 *
 * Each message is dated by the device's own clock where it carries one: a state's `t` and an event
 * record's `t` (device monotonic seconds, docs/network.md), put on the page's clock through the boot's
 * offset, the smallest (arrival − t) seen: the fastest message of that boot. So a heartbeat that waited
 * in a queue, an outbox replayed after an outage or a retained state sent again after a broker restart
 * lands where the device sent it, not where it arrived. A message without a device time (status, the
 * feature table, an old device's state) is dated by its arrival. When a faster message of a boot arrives, what
 * was handed on of that boot is moved to the better date too (Link.shift): the count at any moment of the
 * device's clock is then the device's own, whichever messages gave the offset.
 *
 * The same message arriving twice (QoS 1, retained messages after a reconnect) is kept once: states and
 * events by (topic, boot, seq), the others when they repeat the last payload of their topic.
 *
 * A page that opens (a browser source refreshed, OBS restarted) need not hear the whole delay first: rebuild() asks
 * the collector's archive for what was sent in the last `delayMs` (docs/network.md, "archive: question and answer":
 * the very messages, each with how long ago the collector heard it) and takes them as if it had heard them then,
 * then what the live link heard meanwhile (held until then, so a repeat is known as one). The archive says how
 * much of the delay it holds whole; the rest the page builds itself, as without it.
 */
(function (root) {
  "use strict";

  var MAX_MESSAGES = 20000;  // an hour of heartbeats (1/s) and events with room to spare; past it the oldest go
  var MAX_PARTS = 1000;      // the archive's answer comes in parts of up to 56 kB: more than an hour of one table
  var PREFIX = "shotclock/v1/";
  // What the archive's history holds (the topic after the venue): what the overlay draws from.
  var HISTORY_TOPIC = /^(table\/[A-Za-z0-9_-]{1,32}\/(state|status|event)|feature|bridge\/[A-Za-z0-9_-]{1,32}\/state)$/;

  function parse(payload) {
    try { return JSON.parse(new TextDecoder().decode(payload)); } catch (e) { return null; }
  }

  /** delayMs: how far behind the page shows the tables. */
  function Delay(delayMs) {
    this.delayMs = delayMs;
    this.pending = [];       // messages not yet released, by their date
    this.offsets = {};       // boot → smallest (arrival − device ms) seen
    this.handed = {};        // boot → the offset what was handed on of it is dated by
    this.seen = {};          // "topic boot seq" → true, for the pending and recently released ones
    this.seenOrder = [];
    this.lastPayload = {};   // topic → the last payload without a sequence number
    this.firstAt = null;     // when the first message arrived: the history starts there
    this.dropped = 0;
    this.held = null;        // what the live link heard while the archive's history is awaited (hold, resume)
    this.archive = null;     // the archive's history: {state: asking|done|failed, covered (s), reason}
  }

  /** The device's clock in ms and its boot, from a state (`t`) or an event (`record.t`), or null. */
  function deviceTime(topic, msg) {
    if (!msg || typeof msg.boot !== "string") return null;
    var t = /\/state$/.test(topic) ? msg.t : /\/event$/.test(topic) && msg.record ? msg.record.t : undefined;
    return typeof t === "number" && isFinite(t) ? {boot: msg.boot, ms: t * 1000} : null;
  }

  /** Take a message as it arrives (`arrival` on the page's performance.now() clock). */
  Delay.prototype.add = function (topic, payload, packet, arrival) {
    if (this.held) {
      if (this.held.length < MAX_MESSAGES) this.held.push([topic, payload, packet, arrival]); else this.dropped += 1;
      return true;
    }
    if (this.firstAt === null) this.firstAt = arrival;
    var msg = parse(payload);
    var entry = {topic: topic, payload: payload, packet: packet, arrival: arrival, device: deviceTime(topic, msg)};
    if (msg && typeof msg.seq === "number" && typeof msg.boot === "string") {
      var key = topic + " " + msg.boot + " " + msg.seq;
      if (this.seen[key]) return false;
      this.seen[key] = true;
      this.seenOrder.push(key);
      if (this.seenOrder.length > 2 * MAX_MESSAGES) delete this.seen[this.seenOrder.shift()];
    } else {
      var text = new TextDecoder().decode(payload);
      if (this.lastPayload[topic] === text) return false;
      this.lastPayload[topic] = text;
    }
    if (entry.device) {
      var off = arrival - entry.device.ms, boot = entry.device.boot;
      if (!(boot in this.offsets) || off < this.offsets[boot]) this.offsets[boot] = off;
    }
    this.pending.push(entry);
    if (this.pending.length > MAX_MESSAGES) {
      this.pending.sort(this.order());
      this.pending.shift();
      this.dropped += 1;
    }
    return true;
  };

  /** When a message counts as sent, on the page's clock. */
  Delay.prototype.dateOf = function (entry) {
    return entry.device ? entry.device.ms + this.offsets[entry.device.boot] : entry.arrival;
  };

  Delay.prototype.order = function () {
    var self = this;
    return function (a, b) { return self.dateOf(a) - self.dateOf(b) || a.arrival - b.arrival; };
  };

  /** Hand `sink` (a Link: its receive(topic, payload, packet, now)) every message sent up to `at`, in the
   *  order they were sent, each with its own date. Returns how many. */
  Delay.prototype.release = function (at, sink) {
    for (var boot in this.handed) {
      var better = this.offsets[boot] - this.handed[boot];
      if (better && sink.shift) sink.shift(boot, better);
      this.handed[boot] = this.offsets[boot];
    }
    if (!this.pending.length) return 0;
    this.pending.sort(this.order());
    var n = 0;
    while (n < this.pending.length && this.dateOf(this.pending[n]) <= at) {
      var e = this.pending[n++];
      if (e.device) this.handed[e.device.boot] = this.offsets[e.device.boot];
      sink.receive(e.topic, e.payload, e.packet, this.dateOf(e));
    }
    this.pending.splice(0, n);
    return n;
  };

  /** Hold what arrives (add) until resume(): the archive's history goes first. */
  Delay.prototype.hold = function () {
    if (!this.held) this.held = [];
  };

  /** Take the archive's `history` (each [topic, payload, arrival on the page's clock]), then what was held. The
   *  history is whole from `since` on (the page's clock); null: it brings nothing, the page's own begins with
   *  what it held. */
  Delay.prototype.resume = function (history, since) {
    var held = this.held || [], self = this;
    this.held = null;
    history.forEach(function (h) { self.add(h[0], h[1], {}, h[2]); });
    held.forEach(function (h) { self.add(h[0], h[1], h[2], h[3]); });
    var starts = [since, held.length ? held[0][3] : null].filter(function (x) { return typeof x === "number"; });
    this.firstAt = starts.length ? Math.min.apply(null, starts) : null;
  };

  /** Ask `link`'s collector (Link.ask, the overlay's own topic) for the history of `question` ({what: "history",
   *  delay, table}) at `venue`, part after part, then resume() with it; or, when it does not come whole, with
   *  none. `this.archive` says how it stands. Resolves when done. */
  Delay.prototype.rebuild = function (link, venue, question) {
    var self = this, items = [], since = null, parts = 0, after = null, skip = 0, enc = new TextEncoder();
    this.hold();
    this.archive = {state: "asking"};
    function done(covered) {
      self.archive = {state: "done", covered: covered};
      self.resume(items, since);
    }
    function failed(reason) {
      self.archive = {state: "failed", reason: String(reason || "no answer").slice(0, 200)};
      self.resume([], null);
    }
    function part(extra) {
      var asked = {};
      for (var k in question) asked[k] = question[k];
      for (k in extra) asked[k] = extra[k];
      return link.ask(venue, asked, undefined, true).then(function (answer) {
        var at = root.performance.now();
        if (!answer || answer.ok !== true || !Array.isArray(answer.messages)) {
          return failed(answer && answer.reason || "unreadable answer");
        }
        var covered = Math.min(self.delayMs / 1000, Math.max(0, Number(answer.covered) || 0));
        if (since === null) since = at - covered * 1000;
        for (var i = 0; i < answer.messages.length; i++) {
          var m = answer.messages[i];
          if (!m || !HISTORY_TOPIC.test(m.topic) || typeof m.payload !== "string" || !(m.age_ms >= 0)) continue;
          items.push([PREFIX + venue + "/" + m.topic, enc.encode(m.payload), at - m.age_ms]);
        }
        parts += 1;
        if (typeof answer.next_ms !== "number") return done(covered);
        var on = after === null || answer.next_ms > after || (answer.next_ms === after && answer.skip > skip);
        if (parts >= MAX_PARTS || items.length > MAX_MESSAGES || !on || typeof answer.skip !== "number") {
          return failed("the archive's answer does not end");
        }
        after = answer.next_ms;
        skip = answer.skip;
        return part({until_ms: answer.until_ms, after_ms: after, skip: skip});
      });
    }
    return part({});
  };

  /** Milliseconds until the page has heard `delayMs` of history (0 once it has). */
  Delay.prototype.toGo = function (now) {
    if (this.firstAt === null) return this.delayMs;
    return Math.max(0, this.firstAt + this.delayMs - now);
  };

  root.Shotclock = root.Shotclock || {};
  root.Shotclock.Delay = Delay;
  root.Shotclock.DELAY_MAX_MESSAGES = MAX_MESSAGES;
})(this);
