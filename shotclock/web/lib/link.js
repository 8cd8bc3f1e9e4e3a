/* The pages' link to the floor network: one MQTT.js connection over the broker's websockets
 * listener, the topics of docs/network.md, and the page's record of every table.
 *
 *   var link = new Shotclock.Link({username: "floor", password: "…", onChange: redraw});
 *   link.connect();
 *   link.command(table, "pause");      // → {id, …}; the ack arrives through onAck
 *
 * Needs vendor/mqtt.min.js and lib/clock.js loaded first.
 */
(function (root) {
  "use strict";
  var S = root.Shotclock;
  var PREFIX = "shotclock/v1";
  var COMMAND_EXPIRY_S = 5;    // MQTT 5 message expiry: a command stuck in a queue must not act later
  var ACK_TIMEOUT_MS = 5000;  // after this the page says the device did not answer
  var FEED_LENGTH = 50;
  var ASK_TIMEOUT_MS = 4000;  // the collector answers from its archive within this, or the page says it did not

  /** The broker's websockets address: the page's own origin (Mosquitto serves the pages on that
   *  listener), or ?broker=ws://host:port from the URL. */
  function brokerUrl(params) {
    var given = params.get("broker");
    if (given) return given;
    var scheme = root.location.protocol === "https:" ? "wss://" : "ws://";
    return scheme + root.location.host + "/mqtt";
  }

  function parseJson(payload) {
    try { return JSON.parse(new TextDecoder().decode(payload)); } catch (e) { return null; }
  }

  function newId() {
    if (root.crypto && root.crypto.randomUUID) return root.crypto.randomUUID();
    return Date.now().toString(36) + Math.random().toString(36).slice(2);
  }

  /**
   * options: url, username, password (a floor person's own login: the device logs it as the sender),
 *          venue (null: every venue on the broker), clientPrefix,
   *          readOnly (true: no commands, acks or archive), history (true: a read-only page that asks the archive
 *          for the delayed overlay's history, on its own topic), onChange(), onAck(pending),
 *          onConnection(state, detail), onFeature(venue, tableId),
 *          onMessage(topic, payload, packet, now): every message as it arrives (the delayed overlay's buffer)
   */
  function Link(options) {
    this.options = options;
    this.tables = {};        // "venue/id" → table record
    this.feed = [];          // recent rulings across tables, newest first
    this.feature = {};       // venue → table id chosen for the broadcast
    this.pending = {};       // command id → {table, cmd, sentAt, ack, timer}
    this.connection = "connecting";
    this.client = null;
    this.questions = {};     // correlation id → {resolve, timer}: requests to the collector's archive
    this.bridges = {};       // "venue/room" → true (connected) or false: each room broker's bridge, as the venue
                             // broker says (its Last Will says false the moment the bridge's connection drops)
    this.members = {};       // "venue/group/member" → a share group member's status (the collector's archive)
    this.handForHand = {};   // venue → {topic → state}: the venue's retained hand-for-hand states (lib/handforhand.js)
    this.clocks = {};        // "venue/id" → a tournament clock: {venue, id, state, at, online, lastAck}
  }

  Link.prototype.connect = function () {
    var o = this.options, self = this;
    var client = root.mqtt.connect(o.url, {
      protocolVersion: 5,
      username: o.username, password: o.password,
      clientId: (o.clientPrefix || "page") + "-" + newId().slice(0, 8),
      clean: true,
      reconnectPeriod: 300,     // back well within a second of a broker restart (the overlay's promise)
      connectTimeout: 4000,
      keepalive: 15,
      resubscribe: true
    });
    this.client = client;
    client.on("connect", function () {
      var v = o.venue || "+";
      var topics = {};
      // A read-only page (the overlay) asks only for what its credential may read.
      var leaves = o.readOnly ? ["status", "state", "event"] : ["status", "state", "event", "cmd/ack"];
      leaves.forEach(function (leaf) { topics[PREFIX + "/" + v + "/table/+/" + leaf] = {qos: 1}; });
      topics[PREFIX + "/" + v + "/feature"] = {qos: 1};
      // A room broker's bridge: while it is down, its tables' retained messages here are old news.
      topics[PREFIX + "/" + v + "/bridge/+/state"] = {qos: 1};
      if (!o.readOnly) topics[PREFIX + "/" + v + "/collector/member/+/+"] = {qos: 1};
      // The rooms' hand-for-hand: the panel counts the room's hands and keeps the state when it commands.
      if (!o.readOnly && S.HandForHand) topics[PREFIX + "/" + v + "/handforhand/+/+"] = {qos: 1};
      if (!o.readOnly) topics[PREFIX + "/" + v + "/archive/reply/" + client.options.clientId] = {qos: 1};
      if (o.history) topics[PREFIX + "/" + v + "/archive/history/reply/" + client.options.clientId] = {qos: 1};
      // The tournament clocks (docs/network.md, "tournament"): their state and status, and the answers to commands.
      if (!o.readOnly && S.Tournament) {
        ["state", "status", "cmd/ack"].forEach(function (leaf) {
          topics[PREFIX + "/" + v + "/tournament/+/" + leaf] = {qos: 1};
        });
      }
      client.subscribe(topics, function (err) {
        self.setConnection(err ? "refused" : "online", err ? String(err.message || err) : "");
      });
    });
    client.on("message", function (topic, payload, packet) { self.receive(topic, payload, packet); });
    client.on("reconnect", function () { self.setConnection("connecting", ""); });
    client.on("close", function () { if (self.connection !== "refused") self.setConnection("offline", ""); });
    client.on("error", function (err) {
      // A refused login (bad username or password) is final: stop retrying and say so.
      var code = err && err.code;
      if (code === 134 || code === 135 || code === 4 || code === 5) {
        self.setConnection("refused", err.message);
        client.end(true);
      }
    });
    return this;
  };

  Link.prototype.end = function () { if (this.client) this.client.end(true); };

  Link.prototype.setConnection = function (state, detail) {
    this.connection = state;
    if (this.options.onConnection) this.options.onConnection(state, detail);
    this.changed();
  };

  /** Tell the page something changed: `table` when only that table's record did (the dashboard redraws its
   *  card alone), nothing when more may have (the connection, the feature table, the feed). */
  Link.prototype.changed = function (table) { if (this.options.onChange) this.options.onChange(table); };

  /** A room's or section's name from a table's status: a device sends at most PLACE_MAX characters, and
   *  anything else (a number, an object, a longer text from a table's own credential) is not shown as one. */
  var PLACE_MAX = 32;
  function place(value) {
    return typeof value === "string" && value.length <= PLACE_MAX ? value : "";
  }

  /** A status's list of rule set names: at most 32 names, each a place-sized text; anything else is none. */
  function names(value) {
    if (!Array.isArray(value)) return [];
    return value.slice(0, 32).filter(function (n) { return place(n) !== ""; });
  }

  Link.prototype.table = function (venue, id) {
    var key = venue + "/" + id;
    return this.tables[key] || (this.tables[key] = {venue: venue, id: id, name: id, online: null, room: "",
                                                     section: "", degraded: "",
                                                     state: null, receivedAt: 0, ruling: null, drift: null,
                                                     lastAck: null});
  };

  /** Every known table, as an array. */
  Link.prototype.list = function () {
    var out = [];
    for (var k in this.tables) out.push(this.tables[k]);
    return out;
  };

  /** Fold one message into the page's record. `now` is when it counts as heard (default: this moment,
   *  performance.now()); the delayed overlay (lib/delay.js) feeds a link of its own with earlier moments. */
  Link.prototype.receive = function (topic, payload, packet, now) {
    if (now === undefined) now = root.performance.now();
    if (this.options.onMessage) this.options.onMessage(topic, payload, packet, now);
    var parts = topic.split("/");
    if (parts[3] === "archive" && (parts[4] === "reply" || parts[4] === "history" && parts[5] === "reply")) {
      return this.answer(packet, parseJson(payload));
    }
    if (parts.length === 4 && parts[3] === "feature") {
      var f = parseJson(payload);
      this.feature[parts[2]] = f && f.table ? String(f.table) : null;
      if (this.options.onFeature) this.options.onFeature(parts[2], this.feature[parts[2]]);
      return this.changed();
    }
    if (parts.length === 6 && parts[3] === "bridge" && parts[5] === "state") return this.bridge(parts[2], parts[4], payload);
    if (parts.length === 6 && parts[3] === "handforhand" && S.HandForHand) return this.roomState(topic, payload);
    if (parts.length >= 6 && parts[3] === "tournament" && S.Tournament) {
      return this.tournamentClock(parts[2], parts[4], parts.slice(5).join("/"), parseJson(payload), now, topic,
                                  payload);
    }
    if (parts.length === 7 && parts[3] === "collector" && parts[4] === "member") {
      return this.member(parts[2], parts[5], parts[6], parseJson(payload));
    }
    if (parts.length < 6 || parts[3] !== "table") return;
    var table = this.table(parts[2], parts[4]);
    var leaf = parts.slice(5).join("/");
    var msg = parseJson(payload);
    if (!msg) return;
    if (leaf === "status") {
      // Offline since when: a clean stop says it (since_ms); a Last Will cannot, so the moment this page saw it.
      if (msg.online === true) table.offlineSince = null;
      else if (typeof msg.since_ms === "number") table.offlineSince = msg.since_ms;
      else if (table.online === true && !(packet && packet.retain)) table.offlineSince = Date.now();
      table.online = msg.online === true;
      table.boot = msg.boot;
      if (msg.name) table.name = msg.name;
      if (msg.version) table.version = msg.version;  // the dashboard shows each table's release
      // Where it stands (its [network] room and section): an online status says it, an offline one (the
      // broker's Last Will) too since room and section exist; what fails on its link only while online.
      if (msg.online === true || "room" in msg) table.room = place(msg.room);
      if (msg.online === true || "section" in msg) table.section = place(msg.section);
      table.degraded = msg.online === true && msg.degraded || "";
      // The room broker it reaches the venue through (its bridge's state says whether it can be heard at all).
      if (msg.online === true || "bridge" in msg) table.bridge = place(msg.bridge);
      // The named rule sets it can run ([rule_sets] in its configuration), for the dashboard's choice.
      if (msg.online === true) table.ruleSets = names(msg.rule_sets);
      table.unreachable = this.bridgeDown(table.venue, table.bridge);
    } else if (leaf === "state") {
      if (table.online === null) table.online = true;
      S.applyState(table, msg, now);
    } else if (leaf === "event") {
      this.event(table, msg, now);
    } else if (leaf === "cmd/ack") {
      this.ack(table, msg, now);
    }
    this.changed(table);
  };

  /** Move every time the record holds from `boot`'s messages by `delta` ms: the delayed overlay dated them on the
   *  device's clock and has since seen a faster message of that boot (lib/delay.js), so they were sent earlier. */
  Link.prototype.shift = function (boot, delta) {
    for (var k in this.tables) {
      var tb = this.tables[k];
      if (!tb.state || tb.state.boot !== boot) continue;
      tb.receivedAt += delta;
      if (typeof tb.confirmedAt === "number") tb.confirmedAt += delta;
      if (tb.ruling && typeof tb.ruling.seenAt === "number") tb.ruling.seenAt += delta;
      if (typeof tb.handAt === "number") tb.handAt += delta;
    }
  };

  /** A bridge's state ("1" connected, "0" not): the tables behind it are unreachable while it is down, whatever
   *  their last retained messages here say (the room broker holds their Last Wills; it may be dead). */
  Link.prototype.bridge = function (venue, room, payload) {
    var text = new TextDecoder().decode(payload);
    if (text !== "0" && text !== "1") return;
    this.bridges[venue + "/" + room] = text === "1";
    for (var k in this.tables) {
      var tb = this.tables[k];
      if (tb.venue !== venue || tb.bridge !== room) continue;
      tb.unreachable = this.bridgeDown(venue, room);
      this.changed(tb);
    }
    this.changed();
  };

  /** A hand-for-hand state of a scope of a venue, retained (empty: cleared); one that cannot be read is dropped. */
  Link.prototype.roomState = function (topic, payload) {
    var scope = S.HandForHand.scopeOf(topic);
    if (!scope) return;
    var states = this.handForHand[scope.venue] = this.handForHand[scope.venue] || {};
    var state = payload.length ? S.HandForHand.read(parseJson(payload), scope.room, scope.section) : null;
    if (state) states[topic] = state; else delete states[topic];
    this.changed();
  };

  /** Keep `state` as its scope's retained hand-for-hand state at `venue` and clear the scopes inside it (they now
   *  follow this one): what a floor page does the moment a table took its command (docs/network.md). */
  Link.prototype.keepRoomState = function (venue, state) {
    var H = S.HandForHand, states = this.handForHand[venue] || {};
    for (var t in states) {
      if (H.inside(states[t], state.room, state.section)) this.client.publish(t, "", {qos: 1, retain: true});
    }
    this.client.publish(H.topic(venue, state.room, state.section), JSON.stringify(state), {qos: 1, retain: true});
  };

  /** The states of `venue`'s scopes as an array. */
  Link.prototype.roomStates = function (venue) {
    var states = this.handForHand[venue] || {}, out = [];
    for (var t in states) out.push(states[t]);
    return out;
  };

  /** The room name when the table's bridge is down, else "". */
  Link.prototype.bridgeDown = function (venue, room) {
    return room && this.bridges[venue + "/" + room] === false ? room : "";
  };

  /** A share group member's status (online, or gone: its session ended). */
  Link.prototype.member = function (venue, group, name, msg) {
    var key = venue + "/" + group + "/" + name;
    if (msg && typeof msg.online === "boolean") this.members[key] = {venue: venue, group: group, member: name,
                                                                        online: msg.online, since: msg.since || ""};
    else delete this.members[key];
    this.changed();
  };

  /** The share groups' members that are gone, as "group/member" names. */
  Link.prototype.goneMembers = function () {
    var out = [];
    for (var k in this.members) if (!this.members[k].online) out.push(this.members[k].group + "/" + this.members[k].member);
    return out.sort();
  };

  /** A decision record becomes a line of the rulings feed, with who on the floor commanded that clock (the
   *  senders of the floor's commands since the last ruling, as the device logged them: the broker proved each). */
  Link.prototype.event = function (table, msg, now) {
    var r = msg.record || {};
    if (r.type === "input" && typeof r.sender === "string") {
      table.floorBy = table.floorBy || [];
      if (table.floorBy.indexOf(r.sender) < 0) table.floorBy.push(r.sender);
    }
    // The hand is over (the dealer's "new hand"): the overlay's hold option releases what it withheld.
    if ((r.type === "input" && r.event === "hand") || (r.type === "turn" && r.why === "hand")) table.handAt = now;
    if (r.type !== "decision") return;
    var log = msg.log || {};
    var ruling = {venue: table.venue, table: table.id, outcome: r.outcome, remaining: r.remaining,
                  at_zero: r.at_zero, boot: msg.boot, seq: msg.seq, clock: log.clock, utc: log.utc, seenAt: now};
    if (table.floorBy && table.floorBy.length) ruling.by = table.floorBy;
    table.floorBy = [];
    this.addRuling(ruling);
  };

  /** Add a ruling to the feed, newest first, deduplicated on (venue, table, boot, seq): QoS 1 may deliver
   *  twice, an outbox replays after an outage, and the archive's history overlaps what arrived live. */
  Link.prototype.addRuling = function (f) {
    f.key = f.venue + "/" + f.table + "/" + f.boot + "/" + f.seq;
    for (var i = 0; i < this.feed.length; i++) if (this.feed[i].key === f.key) return;
    this.feed.push(f);
    this.feed.sort(function (a, b) {
      return (b.utc || "").localeCompare(a.utc || "") || (b.seenAt || 0) - (a.seenAt || 0);
    });
    this.feed.length = Math.min(this.feed.length, FEED_LENGTH);
  };

  /** Fill the feed with the venue's recent rulings from the collector's archive (rulings before this page). */
  Link.prototype.loadRulings = function (venue) {
    var self = this;
    return this.ask(venue, {what: "rulings", limit: FEED_LENGTH}).then(function (answer) {
      (answer.rulings || []).forEach(function (r) {
        r.venue = venue;
        self.addRuling(r);
      });
      self.changed();
      return answer;
    });
  };

  Link.prototype.ack = function (table, msg, now) {
    var p = this.pending[msg.id];
    if (!p) return;  // another page's command
    if (p.acks) {  // a command to the venue's tables (commandVenue): every table's answer, ignored ones too
      p.acks[table.venue + "/" + table.id] = msg;
      if (p.onAck) p.onAck(table, msg);  // the sender's own hook (the tournament panel keeps the room's state)
      if (this.options.onAck) this.options.onAck(p);
    }
    if (p.venueWide) {
      // One command to every table: each table answers; the record stays open until its timeout. A table
      // it did not concern (no clock to pause) says "ignored": not worth a line on its card.
      if (msg.outcome === "ignored") return;
      p = {id: p.id, venue: table.venue, table: table.id, cmd: p.cmd, sentAt: p.sentAt};
    } else {
      clearTimeout(p.timer);
      delete this.pending[msg.id];
    }
    p.ack = msg;
    p.ackAt = now;
    table.lastAck = p;
    if (this.options.onAck) this.options.onAck(p);
  };

  /** Send `cmd` (call, pause, resume, cancel, start, stop, extend) to a table; returns the pending record,
   *  whose `ack` is filled by the device's answer (outcome done, ignored or refused) or a timeout. */
  Link.prototype.command = function (table, cmd, extra) {
    var self = this;
    var body = this.commandBody(cmd);
    for (var k in (extra || {})) body[k] = extra[k];
    var p = {id: body.id, venue: table.venue, table: table.id, cmd: cmd, sentAt: root.performance.now(),
             ack: null};
    p.timer = setTimeout(function () {
      if (!self.pending[p.id]) return;
      delete self.pending[p.id];
      p.ack = {id: p.id, outcome: "timeout"};
      table.lastAck = p;
      if (self.options.onAck) self.options.onAck(p);
      self.changed(table);
    }, ACK_TIMEOUT_MS);
    this.pending[p.id] = p;
    table.lastAck = p;
    this.client.publish(PREFIX + "/" + table.venue + "/table/" + table.id + "/cmd/by/" + this.options.username,
                        JSON.stringify(body),
                        {qos: 1, properties: {messageExpiryInterval: COMMAND_EXPIRY_S}});
    this.changed(table);
    return p;
  };

  /** Send `cmd` to every table of every venue this page sees, on the venue's own command topic (so a
   *  table the page has not heard of yet gets it too); each table's ack lands on its card. `extra`: the
   *  command's fields (a `room` or `section`: only the tables there take it). */
  Link.prototype.commandAll = function (cmd, extra) {
    var self = this, venues = {};
    this.list().forEach(function (tb) { venues[tb.venue] = true; });
    Object.keys(venues).forEach(function (venue) {
      var body = self.commandBody(cmd);
      for (var k in (extra || {})) body[k] = extra[k];
      var p = {id: body.id, venue: venue, cmd: cmd, sentAt: root.performance.now(), venueWide: true};
      self.pending[p.id] = p;
      setTimeout(function () { delete self.pending[p.id]; }, ACK_TIMEOUT_MS);
      self.client.publish(PREFIX + "/" + venue + "/cmd/by/" + self.options.username, JSON.stringify(body),
                          {qos: 1, properties: {messageExpiryInterval: COMMAND_EXPIRY_S}});
    });
  };

  /** Send `cmd` with `extra` fields once to each of `venues` (its command topic: every table there gets the one
   *  message; `room` and `section` in `extra` narrow it to those tables). Returns the pending record, whose `acks`
   *  ("venue/id" → ack) fill as the tables answer, each table's card showing its own. */
  Link.prototype.commandVenue = function (cmd, extra, venues) {
    var self = this, body = this.commandBody(cmd);
    for (var k in (extra || {})) body[k] = extra[k];
    var p = {id: body.id, cmd: cmd, extra: extra || {}, sentAt: root.performance.now(), venueWide: true, acks: {}};
    this.pending[p.id] = p;
    setTimeout(function () { delete self.pending[p.id]; }, ACK_TIMEOUT_MS);
    venues.forEach(function (venue) {
      self.client.publish(PREFIX + "/" + venue + "/cmd/by/" + self.options.username, JSON.stringify(body),
                          {qos: 1, properties: {messageExpiryInterval: COMMAND_EXPIRY_S}});
    });
    return p;
  };

  /** A tournament clock's message: its retained state (a newer `seq` only) and status (lib/tournament.js), or its
   *  answer to a command this page sent. No table changed: the clock's row redraws itself, the cards are left alone. */
  Link.prototype.tournamentClock = function (venue, id, leaf, msg, now, topic, payload) {
    if (leaf === "cmd/ack") {
      var key = venue + "/" + id, p = msg && this.pending[msg.id], clock = this.clocks[key];
      if (!p || p.clock !== key) return;  // another page's or a terminal's command
      delete this.pending[msg.id];
      clearTimeout(p.timer);
      p.ack = msg;
      if (clock) clock.lastAck = p;
      return;
    }
    S.Tournament.fold(this.clocks, topic, payload, now);
  };

  /** Whether a tournament clock is gone: its status says offline, or no state came for three of its heartbeats and a
   *  second (lib/tournament.js, the room's screen's rule too). */
  Link.prototype.clockUnreachable = function (clock, now) { return S.Tournament.unreachable(clock, now); };

  /** Send `cmd` (start, pause, resume, add, take, level, next, keep, players) with `extra` (seconds, level,
   *  players) to a tournament clock; its pending record's `ack` is the clock's answer, or a timeout. */
  Link.prototype.clockCommand = function (clock, cmd, extra) {
    var self = this, body = this.commandBody(cmd), key = clock.venue + "/" + clock.id;
    for (var k in (extra || {})) body[k] = extra[k];
    var p = {id: body.id, clock: key, cmd: cmd, sentAt: root.performance.now(), ack: null};
    p.timer = setTimeout(function () {
      if (!self.pending[p.id]) return;
      delete self.pending[p.id];
      p.ack = {id: p.id, outcome: "timeout"};
    }, ACK_TIMEOUT_MS);
    this.pending[p.id] = p;
    clock.lastAck = p;
    this.client.publish(PREFIX + "/" + clock.venue + "/tournament/" + clock.id + "/cmd/by/" + this.options.username,
                        JSON.stringify(body), {qos: 1, properties: {messageExpiryInterval: COMMAND_EXPIRY_S}});
    return p;
  };

  Link.prototype.commandBody = function (cmd) {
    // The device takes the sender from the topic (…/cmd/by/<user>, which only that user may write): this one is
    // for a reader of the payload alone.
    return {id: newId(), name: cmd, sender: this.options.username, sent_ms: Date.now()};
  };

  /** Choose the table the broadcast overlay shows (retained, so an overlay that loads later sees it). */
  Link.prototype.setFeature = function (venue, tableId) {
    this.client.publish(PREFIX + "/" + venue + "/feature", JSON.stringify({table: tableId}),
                        {qos: 1, retain: true});
  };

  // --- the collector's archive (MQTT 5 request / response) -------------------------------------------


  /** Ask the collector's archive (docs/network.md, "archive"): resolves with its answer, or with
   *  {ok: false, reason: "no answer"} when no collector answers in time (timeoutMs, default ASK_TIMEOUT_MS), or
   *  with the broker's refusal (a login the ACL does not let ask). `history`: on the overlay's own topic
   *  (archive/history/get, its answer on archive/history/reply/<client id>), which takes history questions only. */
  Link.prototype.ask = function (venue, question, timeoutMs, history) {
    var self = this, id = newId(), base = PREFIX + "/" + venue + "/archive/" + (history ? "history/" : "");
    return new Promise(function (resolve) {
      function end(answer) {
        if (!self.questions[id]) return;
        clearTimeout(self.questions[id].timer);
        delete self.questions[id];
        resolve(answer);
      }
      var timer = setTimeout(function () { end({ok: false, reason: "no answer"}); }, timeoutMs || ASK_TIMEOUT_MS);
      self.questions[id] = {resolve: resolve, timer: timer};
      self.client.publish(base + "get", JSON.stringify(question), {
        qos: 1,
        properties: {responseTopic: base + "reply/" + self.client.options.clientId,
                     correlationData: new TextEncoder().encode(id),
                     messageExpiryInterval: COMMAND_EXPIRY_S}
      }, function (err) {
        // The broker's PUBACK refused it (MQTT 5 reason 135: a broker set up before this login could ask).
        if (err) end({ok: false, reason: "the broker refused the question (" + (err.message || err) + ")"});
      });
    });
  };

  Link.prototype.answer = function (packet, msg) {
    var data = packet && packet.properties && packet.properties.correlationData;
    var id = data ? new TextDecoder().decode(data) : "";
    var q = this.questions[id];
    if (!q) return;
    clearTimeout(q.timer);
    delete this.questions[id];
    q.resolve(msg || {ok: false, reason: "unreadable answer"});
  };

  root.Shotclock.Link = Link;
  root.Shotclock.brokerUrl = brokerUrl;
})(this);
