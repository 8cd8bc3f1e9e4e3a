/* The dashboard's tournament panel (issue 27): hand-for-hand (TDA RP-8) and the house's named rule sets, for the
 * tables the filters choose (a room, a section of it, or the whole venue), each sent as ONE message to the venue's
 * command topic with the room and section in it (docs/network.md, "command"): never one message per table.
 *
 * What it shows comes from the tables themselves: each table's retained state says whether it plays hand-for-hand,
 * whether it waits for the floor's release (its hand done), the hands released and the tournament-clock time RP-8
 * takes off, and the rule set it runs or takes at its next hand; a table that refused says why in its ack (the
 * device's own words, core/texts.py through device-texts.js). A table that is offline (or behind a dead bridge) is
 * counted as offline, never as done: its last state is old news.
 *
 * Hand-for-hand's count is the room's: the venue's retained hand-for-hand state of the scope (lib/handforhand.js),
 * which this panel keeps the moment the first table took its command, so a table that comes back catches up
 * (docs/network.md, "hand-for-hand: the room's state"). After a hand-for-hand command the panel names every table
 * of the scope that did not take it, and why: refused (the table's reason), offline (since when), no answer.
 *
 * Drawn twice a second while logged in, writing only what changed; each card gets a line saying its own part.
 */
(function (root) {
  "use strict";
  var S = root.Shotclock;
  var H4H = S.DEVICE_RULES.hand_for_hand;  // RP-8's minutes a hand and their bound (core/handforhand.py, fields.py)
  var LIST_MAX = 40;  // tables named in the panel's list (the rest counted)
  var EXPIRY_MS = 5000;  // a command's MQTT expiry (lib/link.js): a table that has not answered by then will not

  S.addPageTexts({
    nl: {
      "tour.title": "Toernooi", "tour.scope": "Voor", "tour.venue": "de hele zaal", "tour.room": "zaal {room}",
      "tour.section": "zaal {room}, sectie {section}",
      "h4h.title": "Hand-for-hand", "h4h.start": "Start hand-for-hand", "h4h.release": "Volgende hand ({done}/{n})",
      "h4h.release.confirm": "{playing} spelen nog: toch vrijgeven?", "h4h.end": "Stop hand-for-hand",
      "h4h.end.confirm": "Hand-for-hand stoppen? Tik nogmaals",
      "h4h.counts": "spelen: {playing} · wachten: {done} · offline: {offline}",
      "h4h.off": "geen hand-for-hand: {n} tafels", "h4h.clock": "handen: {hands} · toernooiklok {time} ({minutes} min per hand)",
      "h4h.playing": "speelt", "h4h.done": "wacht", "h4h.offline": "offline", "h4h.more": "+{n} meer",
      "h4h.card.playing": "Hand-for-hand: speelt haar hand", "h4h.card.done": "Hand-for-hand: hand gespeeld, wacht op de floor",
      "h4h.answer": "{cmd}: {took} van {n} tafels namen het aan", "h4h.kept": "wie terugkomt, neemt de stand van de zaal over",
      "h4h.missed.refused": "{table}: geweigerd: {reason}", "h4h.missed.since": "{table}: offline sinds {time}",
      "h4h.missed.offline": "{table}: offline", "h4h.missed.silent": "{table}: geen antwoord binnen {s} s",
      "rules.title": "Regelset", "rules.name": "naam", "rules.go": "Vanaf de volgende hand", "rules.back": "Terug naar eigen regels",
      "rules.counts": "{name}: draait {runs} · nog niet (hand bezig) {waiting} · geweigerd {refused} · offline {offline}",
      "rules.own": "eigen regels", "rules.refused": "{table}: {reason}", "rules.none": "geen regelsets bekend",
      "rules.card": "Regelset: {name}", "rules.card.next": "vanaf de volgende hand: {name}",
      "cmd.hand_for_hand": "Hand-for-hand", "cmd.release_hand": "Volgende hand", "cmd.end_hand_for_hand": "Stop hand-for-hand",
      "cmd.rule_set": "Regelset"
    },
    en: {
      "tour.title": "Tournament", "tour.scope": "For", "tour.venue": "the whole venue", "tour.room": "room {room}",
      "tour.section": "room {room}, section {section}",
      "h4h.title": "Hand-for-hand", "h4h.start": "Start hand-for-hand", "h4h.release": "Next hand ({done}/{n})",
      "h4h.release.confirm": "{playing} still playing: release anyway?", "h4h.end": "End hand-for-hand",
      "h4h.end.confirm": "End hand-for-hand? Tap again",
      "h4h.counts": "playing: {playing} · done: {done} · offline: {offline}",
      "h4h.off": "no hand-for-hand: {n} tables", "h4h.clock": "hands: {hands} · tournament clock {time} ({minutes} min a hand)",
      "h4h.playing": "playing", "h4h.done": "done", "h4h.offline": "offline", "h4h.more": "+{n} more",
      "h4h.card.playing": "Hand-for-hand: playing its hand", "h4h.card.done": "Hand-for-hand: done, waiting for the floor",
      "h4h.answer": "{cmd}: {took} of {n} tables took it", "h4h.kept": "a table that comes back takes the room's state",
      "h4h.missed.refused": "{table}: refused: {reason}", "h4h.missed.since": "{table}: offline since {time}",
      "h4h.missed.offline": "{table}: offline", "h4h.missed.silent": "{table}: no answer within {s} s",
      "rules.title": "Rule set", "rules.name": "name", "rules.go": "From the next hand", "rules.back": "Back to own rules",
      "rules.counts": "{name}: runs {runs} · not yet (hand in play) {waiting} · refused {refused} · offline {offline}",
      "rules.own": "own rules", "rules.refused": "{table}: {reason}", "rules.none": "no rule sets known",
      "rules.card": "Rule set: {name}", "rules.card.next": "from the next hand: {name}",
      "cmd.hand_for_hand": "Hand-for-hand", "cmd.release_hand": "Next hand", "cmd.end_hand_for_hand": "End hand-for-hand",
      "cmd.rule_set": "Rule set"
    }
  });

  var $ = function (id) { return document.getElementById(id); };
  var D = null;          // Shotclock.dashboard, once the page has made it
  var lastRuleSet = null;  // the pending record of the last rule_set command sent from this page
  var lastHandForHand = null;  // … of the last hand-for-hand command, with the tables of its scope then
  var armed = {};        // button id → timer: a second tap within 3 s confirms

  function t(key, values) { return S.t(D.lang(), key, values); }

  function setText(el, text) { if (el.textContent !== text) el.textContent = text; }

  /** The tables the filters' room and section choose (the search box and the online/offline chips do not narrow
   *  what a command reaches: it goes to every table of the room). */
  function scope() {
    var f = D.filters(), link = D.link();
    var tables = link.list().filter(function (tb) {
      return (!f.room || tb.room === f.room) && (!f.section || tb.section === f.section);
    });
    var extra = {};
    if (f.room) extra.room = f.room;
    if (f.section) extra.section = f.section;
    var venues = {};
    link.list().forEach(function (tb) { venues[tb.venue] = true; });
    return {tables: tables, extra: extra, venues: Object.keys(venues), room: f.room, section: f.section,
            scopeRoom: f.room || null, scopeSection: f.section || null};
  }

  /** The hand-for-hand state each venue's tables of the scope follow ({venue: state}; none: no state kept). */
  function roomStates(sc) {
    var out = {}, link = D.link();
    sc.venues.forEach(function (v) {
      var s = S.HandForHand.newest(link.roomStates(v), sc.scopeRoom, sc.scopeSection);
      if (s) out[v] = s;
    });
    return out;
  }

  function away(table, now) {
    var p = S.phase(table, now);
    return p === "offline" || p === "unreachable";
  }

  /** A table's part in hand-for-hand: offline (never done: its last state is old news), off, playing or done. */
  function handState(table, now) {
    if (away(table, now)) return "offline";
    var h = table.state && table.state.hand_for_hand;
    if (!h) return "off";
    return h.waiting === true ? "done" : "playing";
  }

  /** The tournament-clock time the hands take off, "−m:ss", rounded to the second once (59.6 s is "−1:00", not
   *  "−0:60"); nothing to take off (0, -0, under half a second, or a value that is no positive number) is "0:00",
   *  never "−0:00". */
  function timeOffText(seconds) {
    var whole = typeof seconds === "number" && isFinite(seconds) ? Math.round(seconds) : 0;
    if (!(whole > 0)) return "0:00";
    var m = Math.floor(whole / 60), s = whole % 60;
    return "\u2212" + m + ":" + (s < 10 ? "0" : "") + s;
  }
  S.timeOffText = timeOffText;

  function name(table) { return table.name || table.id; }

  function drawHandForHand(sc, now) {
    var groups = {playing: [], done: [], offline: [], off: []};
    var hands = 0, timeOff = 0, minutes = H4H.minutes, kept = roomStates(sc), roomOn = false, counted = false;
    for (var v in kept) {  // the room's count, as kept on the broker (several venues: the highest)
      if (!kept[v].on || (counted && kept[v].hands < hands)) continue;
      roomOn = counted = true;
      hands = kept[v].hands;
      minutes = kept[v].minutes;
      timeOff = hands * minutes * 60;
    }
    sc.tables.forEach(function (tb) {
      var k = handState(tb, now);
      groups[k].push(tb);
      var h = tb.state && tb.state.hand_for_hand;
      // No room's state kept (a hand-for-hand started before pages kept it): the tables' own highest count.
      if (!counted && k !== "off" && h && typeof h.hands === "number" && h.hands >= hands) {
        hands = h.hands;
        timeOff = typeof h.time_off_s === "number" ? h.time_off_s : hands * H4H.minutes * 60;
        if (typeof h.minutes === "number") minutes = h.minutes;
      }
    });
    var inPlay = groups.playing.length + groups.done.length;
    var on = inPlay > 0 || roomOn;
    $("h4h-start").hidden = on;
    $("h4h-release").hidden = $("h4h-end").hidden = !on;
    if (!armed["h4h-release"]) setText($("h4h-release"), t("h4h.release", {done: groups.done.length, n: inPlay}));
    $("h4h-release").disabled = !groups.done.length;
    setText($("h4h-counts"), on ? t("h4h.counts", {playing: groups.playing.length, done: groups.done.length,
                                                    offline: groups.offline.length})
                                : t("h4h.off", {n: sc.tables.length}));
    setText($("h4h-clock"), on ? t("h4h.clock", {hands: hands, time: timeOffText(timeOff), minutes: minutes}) : "");
    // The tables still playing first (the floor walks to them), then those away, then those done.
    var rows = [];
    ["playing", "offline", "done"].forEach(function (k) {
      groups[k].sort(function (a, b) { return S.naturalCompare(name(a), name(b)); });
      groups[k].forEach(function (tb) { rows.push([k, name(tb)]); });
    });
    if (!on) rows = [];
    var key = rows.map(function (r) { return r.join(":"); }).join("\n") + D.lang();
    var list = $("h4h-tables");
    if (list.dataset.shown === key) return;
    list.dataset.shown = key;
    list.textContent = "";
    rows.slice(0, LIST_MAX).forEach(function (r) {
      var li = document.createElement("li");
      li.className = "h4h-" + r[0];
      li.dataset.state = r[0];
      li.textContent = r[1] + " · " + t("h4h." + r[0]);
      list.appendChild(li);
    });
    if (rows.length > LIST_MAX) {
      var more = document.createElement("li");
      more.textContent = t("h4h.more", {n: rows.length - LIST_MAX});
      list.appendChild(more);
    }
  }

  function clockTime(ms) {
    var d = new Date(ms), pad = function (n) { return (n < 10 ? "0" : "") + n; };
    return pad(d.getHours()) + ":" + pad(d.getMinutes());
  }

  /** The last hand-for-hand command's answer: how many tables of its scope took it, and every one that did not,
   *  with why (its own refusal, offline since when, or no answer within the command's expiry). */
  function drawAnswer(now) {
    var p = lastHandForHand, lines = [], head = "";
    if (p) {
      var waited = performance.now() - p.sentAt > EXPIRY_MS, took = 0;
      p.scopeTables.forEach(function (tb) {
        var ack = p.acks[tb.venue + "/" + tb.id], who = name(tb);
        if (ack && ack.outcome === "done") { took++; return; }
        if (ack) lines.push(t("h4h.missed.refused", {table: who, reason: S.reasonText(D.lang(), ack)}));
        else if (away(tb, now)) {
          lines.push(tb.offlineSince ? t("h4h.missed.since", {table: who, time: clockTime(tb.offlineSince)})
                                     : t("h4h.missed.offline", {table: who}));
        } else if (waited) lines.push(t("h4h.missed.silent", {table: who, s: EXPIRY_MS / 1000}));
      });
      head = t("h4h.answer", {cmd: t("cmd." + p.cmd), took: took, n: p.scopeTables.length});
      if (Object.keys(p.kept).length && lines.length) head += " · " + t("h4h.kept");
    }
    setText($("h4h-answer"), head);
    var ul = $("h4h-missed"), key = lines.join("\n");
    if (ul.dataset.shown === key) return;
    ul.dataset.shown = key;
    ul.textContent = "";
    lines.forEach(function (line) { var li = document.createElement("li"); li.textContent = line; ul.appendChild(li); });
  }

  /** The rule set the floor last chose here, or the one most tables of the scope run or wait for. */
  function chosenRuleSet(sc) {
    if (lastRuleSet) return lastRuleSet.extra.rule_set;
    var votes = {}, best = null;
    sc.tables.forEach(function (tb) {
      var r = tb.state && tb.state.rule_set;
      if (!r) return;
      var n = r.next !== null && r.next !== undefined ? r.next : r.name;
      votes[n] = (votes[n] || 0) + 1;
      if (best === null || votes[n] > votes[best]) best = n;
    });
    return best;
  }

  function drawRuleSets(sc, now) {
    var known = {};
    sc.tables.forEach(function (tb) { (tb.ruleSets || []).forEach(function (n) { known[n] = true; }); });
    var names = Object.keys(known).sort(S.naturalCompare);
    var dl = $("rule-set-names"), dkey = names.join("\n");
    if (dl.dataset.shown !== dkey) {
      dl.dataset.shown = dkey;
      dl.textContent = "";
      names.forEach(function (n) { var o = document.createElement("option"); o.value = n; dl.appendChild(o); });
    }
    $("rule-set").placeholder = names.length ? names.join(", ") : t("rules.none");
    var target = chosenRuleSet(sc);
    if (target === null) {
      setText($("rule-set-counts"), "");
      $("rule-set-refused").textContent = "";
      return;
    }
    var n = {runs: 0, waiting: 0, refused: 0, offline: 0}, refused = [];
    var acks = lastRuleSet ? lastRuleSet.acks : {};
    sc.tables.forEach(function (tb) {
      var r = (tb.state && tb.state.rule_set) || {name: "", next: null};
      var ack = acks[tb.venue + "/" + tb.id];
      if (away(tb, now)) n.offline++;
      else if (r.name === target && (r.next === null || r.next === undefined)) n.runs++;
      else if (r.next === target) n.waiting++;
      else if (ack && ack.outcome !== "done") {
        n.refused++;
        refused.push(t("rules.refused", {table: name(tb), reason: S.reasonText(D.lang(), ack)}));
      }
    });
    setText($("rule-set-counts"), t("rules.counts", {name: target || t("rules.own"), runs: n.runs, waiting: n.waiting,
                                                    refused: n.refused, offline: n.offline}));
    var ul = $("rule-set-refused"), key = refused.join("\n");
    if (ul.dataset.shown !== key) {
      ul.dataset.shown = key;
      ul.textContent = "";
      refused.forEach(function (line) { var li = document.createElement("li"); li.textContent = line; ul.appendChild(li); });
    }
  }

  function draw() {
    if (!D || !D.link() || $("main").hidden) return;
    var sc = scope(), now = performance.now();
    var where = sc.section ? t("tour.section", {room: sc.room || "–", section: sc.section})
              : sc.room ? t("tour.room", {room: sc.room}) : t("tour.venue");
    setText($("tour-scope"), where);
    ["h4h-start", "h4h-end", "rule-set-go", "rule-set-back"].forEach(function (id) {
      if (!armed[id]) setText($(id), t({"h4h-start": "h4h.start", "h4h-end": "h4h.end", "rule-set-go": "rules.go",
                                          "rule-set-back": "rules.back"}[id]));
    });
    document.querySelectorAll("#tournament [data-tt]").forEach(function (el) { setText(el, t(el.dataset.tt)); });
    drawHandForHand(sc, now);
    drawAnswer(now);
    drawRuleSets(sc, now);
  }

  /** A second tap within 3 s sends (for what cannot be taken back from every table at once). */
  function confirmed(button, text) {
    if (armed[button.id]) {
      clearTimeout(armed[button.id]);
      delete armed[button.id];
      return true;
    }
    button.textContent = text;
    armed[button.id] = setTimeout(function () { delete armed[button.id]; draw(); }, 3000);
    return false;
  }

  function send(cmd, fields) {
    var sc = scope(), extra = {};
    for (var k in sc.extra) extra[k] = sc.extra[k];
    for (var f in (fields || {})) extra[f] = fields[f];
    var link = D.link();
    // Hand-for-hand: the state each venue's scope will be in once a table took the command, kept at its first "done".
    var next = {};
    if (S.HandForHand.COMMANDS.indexOf(cmd) >= 0) {
      var now = Date.now(), states = roomStates(sc);
      sc.venues.forEach(function (v) {
        var newestSeq = 0;
        link.roomStates(v).forEach(function (st) { newestSeq = Math.max(newestSeq, st.seq); });
        var n = S.HandForHand.next(states[v] || null, cmd, sc.scopeRoom, sc.scopeSection,
                                   {minutes: extra.minutes, by: link.options.username, nowMs: now, newestSeq: newestSeq});
        if (n) next[v] = n;
      });
    }
    var p = link.commandVenue(cmd, extra, sc.venues);
    if (cmd === "rule_set") lastRuleSet = p;
    if (S.HandForHand.COMMANDS.indexOf(cmd) >= 0) {
      p.scopeTables = sc.tables.slice();
      p.kept = {};
      p.onAck = function (table, ack) {
        var v = table.venue;
        if (ack.outcome !== "done" || !next[v] || p.kept[v]) return;
        p.kept[v] = true;  // a table took it: its scope is in this state now, for the tables that come back later
        link.keepRoomState(v, next[v]);
      };
      lastHandForHand = p;
    }
    draw();
    return p;
  }

  function wire() {
    $("h4h-start").addEventListener("click", function () { send("hand_for_hand"); });
    $("h4h-release").addEventListener("click", function () {
      var sc = scope(), now = performance.now();
      var playing = sc.tables.filter(function (tb) { return handState(tb, now) === "playing"; }).length;
      if (playing && !confirmed(this, t("h4h.release.confirm", {playing: playing}))) return;
      send("release_hand");
    });
    $("h4h-end").addEventListener("click", function () {
      if (confirmed(this, t("h4h.end.confirm"))) send("end_hand_for_hand");
    });
    $("rule-set-go").addEventListener("click", function () {
      var value = $("rule-set").value.trim();
      if (value) send("rule_set", {rule_set: value});
    });
    $("rule-set-back").addEventListener("click", function () { send("rule_set", {rule_set: ""}); });
  }

  /** The card's line: its part in hand-for-hand and its rule set (run by the dashboard after each card is drawn). */
  function drawCardLine(el, table, now) {
    var line = el.querySelector(".tour");
    if (!line) return;
    var parts = [], k = handState(table, now);
    if (k === "playing" || k === "done") parts.push(t("h4h.card." + k));
    var r = table.state && table.state.rule_set;
    if (r && r.name) parts.push(t("rules.card", {name: r.name}));
    if (r && r.next !== null && r.next !== undefined) parts.push(t("rules.card.next", {name: r.next || t("rules.own")}));
    setText(line, k === "offline" ? "" : parts.join(" · "));
    el.classList.toggle("h4h-done", k === "done");
  }

  function init() {
    D = S.dashboard;
    if (!D) return setTimeout(init, 50);
    D.onCard(drawCardLine);
    wire();
    setInterval(draw, 500);
    draw();
  }

  init();
})(this);
