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
 * feature table, an old device's state) is dated by its arrival.
 *
 * The same message arriving twice (QoS 1, retained messages after a reconnect) is kept once: states and
 * events by (topic, boot, seq), the others when they repeat the last payload of their topic.
 */
(function (root) {
  "use strict";

  var MAX_MESSAGES = 20000;  // an hour of heartbeats (1/s) and events with room to spare; past it the oldest go

  function parse(payload) {
    try { return JSON.parse(new TextDecoder().decode(payload)); } catch (e) { return null; }
  }

  /** delayMs: how far behind the page shows the tables. */
  function Delay(delayMs) {
    this.delayMs = delayMs;
    this.pending = [];       // messages not yet released, by their date
    this.offsets = {};       // boot → smallest (arrival − device ms) seen
    this.seen = {};          // "topic boot seq" → true, for the pending and recently released ones
    this.seenOrder = [];
    this.lastPayload = {};   // topic → the last payload without a sequence number
    this.firstAt = null;     // when the first message arrived: the history starts there
    this.dropped = 0;
  }

  /** The device's clock in ms and its boot, from a state (`t`) or an event (`record.t`), or null. */
  function deviceTime(topic, msg) {
    if (!msg || typeof msg.boot !== "string") return null;
    var t = /\/state$/.test(topic) ? msg.t : /\/event$/.test(topic) && msg.record ? msg.record.t : undefined;
    return typeof t === "number" && isFinite(t) ? {boot: msg.boot, ms: t * 1000} : null;
  }

  /** Take a message as it arrives (`arrival` on the page's performance.now() clock). */
  Delay.prototype.add = function (topic, payload, packet, arrival) {
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
    if (!this.pending.length) return 0;
    this.pending.sort(this.order());
    var n = 0;
    while (n < this.pending.length && this.dateOf(this.pending[n]) <= at) {
      var e = this.pending[n++];
      sink.receive(e.topic, e.payload, e.packet, this.dateOf(e));
    }
    this.pending.splice(0, n);
    return n;
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
