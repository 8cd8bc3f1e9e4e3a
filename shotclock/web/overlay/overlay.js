/* The broadcast overlay: the feature table's clock for an OBS / vMix / CasparCG browser source.
 *
 * URL parameters:
 *   user, password   the read-only overlay credential (shotclock broker-config's credentials/overlay.toml)
 *   table            a table id; default: the feature table the floor picks on the dashboard
 *   venue            the venue (default: the first one the broker shows)
 *   position         top-left | top-center | top-right | bottom-left | bottom-center | bottom-right (default)
 *   scale            size of the graphic, 0.5 to 3 (default 1)
 *   language         nl (default) | en
 *   broker           ws://host:port/ (default: this page's own origin, where Mosquitto serves it)
 *   delay            seconds, 0 to 3600 (default 0): show the table as it was that long ago, for a stream on a
 *                    delay (lib/delay.js); the page asks the collector's archive for that much history at once
 *                    (a reload shows what it showed), and says how long is left of what it has to hear itself
 *   hold             1: a hand's dead player (a clock's HAND DEAD) is shown only when the hand is over
 * It hides itself when no clock runs, and shows a ruling for 10 s, as the table's screen does.
 * What would leave it blank for a reason someone setting it up must know (a refused password, a broker it
 * cannot reach, a table the network does not have) it says in a box at the top left while it lasts; a bad
 * parameter or no feature table yet only for the first 15 s (then it is on air). The console says it too.
 */
(function () {
  "use strict";
  var S = window.Shotclock;
  var params = new URLSearchParams(location.search);
  var lang = (params.get("language") || params.get("lang")) === "en" ? "en" : "nl";
  var POSITIONS = ["top-left", "top-center", "top-right", "bottom-left", "bottom-center", "bottom-right"];
  var position = POSITIONS.indexOf(params.get("position")) >= 0 ? params.get("position") : "bottom-right";
  var scale = Math.min(3, Math.max(0.5, parseFloat(params.get("scale")) || 1));
  var KNOWN = ["user", "password", "table", "venue", "position", "scale", "language", "lang", "broker", "delay",
               "hold"];
  var DELAY_MAX_S = S.DEVICE_RULES.fields.delay.max;  // the table of fields' (core/fields.py)
  var delayParam = params.get("delay");
  var delayS = delayParam === null ? 0 : /^\d+(\.\d+)?$/.test(delayParam) ? Number(delayParam) : NaN;
  // A delay it cannot read shows nothing: a live clock on a delayed stream is the mistake this option prevents.
  var badDelay = !(delayS >= 0 && delayS <= DELAY_MAX_S);
  var delayMs = badDelay ? 0 : Math.round(delayS * 1000);
  var hold = params.get("hold") === "1";
  var SETUP_MS = 15000;     // how long a bad parameter or a missing feature table is said
  var VENUE_MS = 2000;      // with no venue in the address: how long to wait for one to ask the archive about
  var loadedAt = performance.now(), onlineAt = null, warned = {};
  var fixedTable = params.get("table");
  var graphic = document.getElementById("graphic");
  var shown = {};
  var lastExtensions = null, extensionSeenAt = -Infinity;
  var EXTENSION_MS = 4000;  // how long "+30 s" stays up after a chip is used

  document.documentElement.lang = lang;
  S.paintTones(document.documentElement);  // the device's colours (device-rules.js), for the stylesheet
  document.getElementById("safe").className = "safe " + position;
  graphic.style.setProperty("--scale", scale);

  function fit() {
    // The layout is drawn for 1920×1080 and scaled to the source's real size (720p, 4K…).
    var k = Math.min(innerWidth / 1920, innerHeight / 1080);
    document.getElementById("stage").style.transform = "scale(" + k + ")";
  }
  addEventListener("resize", fit);
  fit();

  // With a delay the page keeps what the live link hears (delay) and draws from a second link that is never
  // connected (view), fed each frame with what was sent `delayMs` ago: the same records, the same drawing.
  // What was sent before the page opened comes from the collector's archive (rebuild): asked once, at the first
  // connection, for the address's venue or the first one heard; what the live link hears waits for it.
  var delay = delayMs > 0 ? new S.Delay(delayMs) : null;
  var asked = false;
  if (delay) delay.hold();
  function ask(venue) {
    if (asked) return;
    asked = true;
    var question = {what: "history", delay: delayS};
    if (fixedTable) question.table = fixedTable;
    delay.rebuild(link, venue, question);
  }
  function heard(topic, payload, packet, now) {
    if (topic.split("/")[3] === "archive") return;  // the archive's answers: not what the tables said
    if (!asked && onlineAt !== null) ask(params.get("venue") || topic.split("/")[2]);
    delay.add(topic, payload, packet, now);
  }
  var link = new S.Link({
    url: S.brokerUrl(params), username: params.get("user") || "overlay", password: params.get("password") || "",
    venue: params.get("venue"), clientPrefix: "overlay", readOnly: true, history: !!delay,
    onMessage: delay ? heard : null,
    onConnection: function (state) {
      if (state !== "online" || onlineAt !== null) return;
      onlineAt = performance.now();
      if (delay && params.get("venue")) ask(params.get("venue"));
    }
  }).connect();
  var view = delay ? new S.Link({venue: params.get("venue"), readOnly: true}) : link;

  /** The URL's mistakes, each as a line (the page goes on with the default it names). */
  function parameterProblems() {
    var problems = [];
    function bad(name, expected, used) {
      problems.push(t("overlay.param", {name: name, value: params.get(name), expected: expected, used: used}));
    }
    var s = params.get("scale");
    if (s !== null && !(Number(s) >= 0.5 && Number(s) <= 3)) bad("scale", "0.5 – 3", String(scale));
    if (params.get("position") !== null && position !== params.get("position")) {
      bad("position", POSITIONS.join(", "), position);
    }
    ["language", "lang"].forEach(function (name) {
      if (params.get(name) !== null && ["nl", "en"].indexOf(params.get(name)) < 0) bad(name, "nl, en", lang);
    });
    params.forEach(function (value, name) {
      if (KNOWN.indexOf(name) < 0) problems.push(t("overlay.unknown", {name: name, known: KNOWN.join(", ")}));
    });
    return problems;
  }
  var PROBLEMS = parameterProblems();

  function naturally(a, b) { return a.localeCompare(b, undefined, {numeric: true}); }

  /** What keeps the graphic from showing that the person setting up the source must hear about. */
  function notices(now) {
    if (link.connection === "refused") return [t("overlay.refused")];
    if (onlineAt === null) {
      return now - loadedAt > 5000 ? [t("overlay.unreachable", {url: S.brokerUrl(params)})] : [];
    }
    var lines = [];
    if (badDelay) return [t("overlay.delay", {value: delayParam, max: DELAY_MAX_S})];
    var archive = delay && delay.archive;
    if (delay && delay.held !== null) return [t("overlay.history_asking", {span: clockText(delayMs)})];
    if (delay && delay.toGo(now) > 0) {
      if (archive && archive.state === "failed") lines.push(t("overlay.history_failed", {reason: archive.reason}));
      if (archive && archive.state === "done" && archive.covered > 0) {
        lines.push(t("overlay.history_partial", {had: clockText(archive.covered * 1000)}));
      }
      lines.push(t("overlay.building", {left: clockText(delay.toGo(now))}));
    }
    var settled = link.connection === "online" && now - onlineAt > 2000;  // the retained messages are in
    var ids = link.list().map(function (tb) { return tb.id; });
    var followed = current();
    if (followed && followed.unreachable) {
      lines.push(t("overlay.room_down", {table: followed.name || followed.id, room: followed.unreachable}));
    }
    if (settled && fixedTable && ids.indexOf(fixedTable) < 0) {
      lines.push(t("overlay.table", {table: fixedTable, known: ids.sort(naturally).join(", ") || "–"}));
    }
    if (now - loadedAt < SETUP_MS) {
      lines = lines.concat(PROBLEMS);
      if (settled && !fixedTable && !Object.keys(link.feature).length) lines.push(t("overlay.no_feature"));
    }
    return lines;
  }

  function drawNotice(now) {
    var lines = notices(now);
    var text = lines.join("\n");
    lines.forEach(function (line) {
      if (!warned[line]) { warned[line] = true; console.warn("shotclock " + line); }
    });
    if (shown.notice === text) return;
    shown.notice = text;
    var box = document.getElementById("notice");
    box.textContent = text;
    box.hidden = !text;
  }
  window.shotclockLink = link;
  window.shotclockView = view;
  window.shotclockDelay = delay;

  /** 12:34 (or 1:02:03) for a span of milliseconds, rounded up to the second. */
  function clockText(ms) {
    var s = Math.ceil(ms / 1000), h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60;
    var mm = h ? (m < 10 ? "0" : "") + m : String(m);
    return (h ? h + ":" : "") + mm + ":" + (s % 60 < 10 ? "0" : "") + (s % 60);
  }

  /** The ruling to show, or null: with hold, a dead hand's ruling waits until that hand is over and then
   *  stays up as long as a ruling does from that moment. */
  function shownRuling(table, at) {
    var r = table.ruling;
    if (hold && r && r.outcome === "hand_dead") {
      if (!(table.handAt >= r.seenAt)) return null;
      return S.freshRuling({ruling: Object.assign({}, r, {seenAt: table.handAt})}, at);
    }
    return S.freshRuling(table, at);
  }

  /** The table this overlay follows: the URL's, else the venue's feature table. */
  function current() {
    var venues = params.get("venue") ? [params.get("venue")] : Object.keys(view.feature).sort();
    if (!venues.length) venues = view.list().map(function (tb) { return tb.venue; });
    for (var i = 0; i < venues.length; i++) {
      var id = fixedTable || view.feature[venues[i]];
      if (id && view.tables[venues[i] + "/" + id]) return view.tables[venues[i] + "/" + id];
    }
    return null;
  }

  function set(cls, value) {
    if (shown[cls] === value) return;
    shown[cls] = value;
    graphic.querySelector("." + cls).textContent = value;
  }

  function setClass(name, on) {
    if (!!shown["class:" + name] === on) return;
    shown["class:" + name] = on;
    graphic.classList.toggle(name, on);
  }

  function draw() {
    requestAnimationFrame(draw);
    var real = performance.now();
    // The moment drawn: now, or `delay` ago (what the delayed stream's pictures show).
    var now = real - delayMs;
    if (delay && !asked && onlineAt !== null && real - onlineAt > VENUE_MS) {
      asked = true;  // nothing heard that says which venue: nothing to ask the archive about
      delay.archive = {state: "failed", reason: t("overlay.no_venue")};
      delay.resume([], null);
    }
    if (delay) delay.release(now, view);
    var building = badDelay || (delay && (delay.held !== null || delay.toGo(real) > 0));
    var table = building ? null : current();
    var phase = table ? S.phase(table, now) : "offline";
    var ruling = table ? shownRuling(table, now) : null;
    var clockOn = phase === "running" || phase === "countdown" || phase === "paused" || phase === "interrupted";
    // A table gone quiet (lib/clock.js quiet()) shows nothing on the stream: no count nobody confirms.
    // Nor one behind a room broker whose bridge is down: its last clock here is old news (the notice says why).
    var visible = clockOn || (!!ruling && phase !== "offline" && phase !== "quiet" && phase !== "unreachable" &&
                              ruling.outcome !== "cancelled");
    setClass("hidden", !visible);
    drawNotice(real);
    // The moment drawn on the table's own clock (device ms), where the delay dates its messages by it.
    var boot = table && table.state && table.state.boot;
    var deviceMs = delay && boot && boot in delay.offsets ? now - delay.offsets[boot] : null;
    window.shotclockOverlay = {table: table && table.id, phase: phase, visible: visible, notice: shown.notice,
                               at: now, device_ms: deviceMs, remaining_ms: table ? S.remainingMs(table, now) : null,
                               ruling: ruling && ruling.outcome, archive: delay && delay.archive};
    if (!table) return;
    var s = table.state || {};
    // Seat tracking: the player on the clock, as a broadcast shows them ("Ana Costa · Seat 4"), and their bank.
    var who = clockOn && s.seat ? (s.player ? s.player + " · " : "") + t("seat", {seat: s.seat}) : "";
    var marked = clockOn && s.seat ? S.markText(lang, s, s.seat) : "";  // the floor's mark on them: on the stream too
    if (marked) who += " · " + marked;
    set("name", who || table.name || table.id);
    set("street", s.mode === "shot" && s.street ? t("street." + s.street) : "");
    ["running", "countdown", "paused", "interrupted"].forEach(function (p) { setClass("phase-" + p, p === phase); });
    var tone = clockOn ? S.clockTone(table, now) : null;
    ["calm", "warn", "urgent", "paused", "bank"].forEach(function (x) { setClass("tone-" + x, x === tone); });
    setClass("show-ruling", !clockOn && !!ruling);
    if (clockOn) {
      var ms = S.remainingMs(table, now);
      set("secs", String(S.shownSeconds(ms)));
      var state = phase === "paused" || phase === "interrupted" ? t(phase) : t("mode." + s.mode);
      var bank = S.bankLeftMs(table, now);
      if (phase !== "paused" && phase !== "interrupted" && bank !== null) {
        // Time bank mode: what is left of the player's bank, marked once it runs (as the device's screen).
        state = t(S.bankRuns(table, now) ? "bank.running" : "bank", {s: t("seconds", {s: S.shownSeconds(bank)})});
      }
      set("state", state);
      set("consequence", S.consequenceText(lang, s));
      var width = (Math.round(S.progress(table, now) * 1000) / 10) + "%";
      if (shown.ring !== width) { shown.ring = width; graphic.querySelector(".ring i").style.width = width; }
    } else if (ruling) {
      var words = S.rulingWords(lang, ruling);
      set("words", words[0]);
      set("detail", words[1]);
      if (shown.rulingTone !== words[2]) {
        // The ruling's tone: --ruling-bg, --ruling-ring, --ruling-ink name its colours (device-rules.js).
        shown.rulingTone = words[2];
        graphic.dataset.tone = words[2];
        ["bg", "ring", "ink"].forEach(function (part) {
          graphic.style.setProperty("--ruling-" + part, "var(--" + words[2] + "-" + part + ")");
        });
      }
    }
    // An extension chip: "+30 s" for a few seconds after the count goes up.
    var ext = clockOn ? s.extensions || 0 : 0;
    if (lastExtensions !== null && ext > lastExtensions) extensionSeenAt = now;
    lastExtensions = ext;
    var extOn = clockOn && now - extensionSeenAt < EXTENSION_MS;
    setClass("show-extension", extOn);
    if (extOn) set("extension", t("extensions", {n: ext}));
  }

  function t(key, values) { return S.t(lang, key, values); }

  requestAnimationFrame(draw);
})();
