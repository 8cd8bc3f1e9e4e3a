/* The dashboard's tournament clock (issue 35): the clock of a tournament the venue runs (`shotclock tournament run`,
 * docs/tournament.md), its state in one line, and its commands: start, pause, resume, a minute less or more, the
 * next stage, a jump to a level, the players left, and after the clock was away (a crash, a power cut) keeping the
 * time as it is ("add" gives it back). Each is answered by the clock itself once its journal holds it.
 *
 * A clock whose process is offline (its Last Will) or silent for three heartbeats is shown UNREACHABLE, greyed,
 * never counting, its buttons off: its last state is old news (lib/tournament.js, the room's screen's rule too).
 * Several clocks: the one whose scope covers the room the filters choose, and a menu chooses another. What cannot be
 * taken back from every table at once (the next stage) asks for a second tap.
 */
(function (root) {
  "use strict";
  var S = root.Shotclock;
  var T = S.Tournament, TOUR = S.DEVICE_RULES.tournament;
  var MINUTE = 60;
  var armed = null;  // the next stage's button, waiting for its second tap (a timer)

  S.addPageTexts({
    nl: {
      "tc.title": "Toernooiklok", "tc.start": "Start", "tc.pause": "Pauze", "tc.resume": "Verder",
      "tc.take": "−1 min", "tc.add": "+1 min", "tc.next": "Volgend niveau", "tc.level": "Niveau", "tc.go": "Ga",
      "tc.players": "Spelers", "tc.set": "Zet", "tc.keep": "Tijd weg houden",
      "tc.level.n": "niveau {n}", "tc.break": "pauze", "tc.left": "nog {time}", "tc.hands": "{n} handen",
      "tc.running": "loopt", "tc.paused": "gepauzeerd", "tc.h4h": "hand-for-hand (staat stil)",
      "tc.not_started": "niet gestart", "tc.finished": "afgelopen", "tc.players.n": "{n} spelers",
      "tc.away": "de klok was {s} s weg (geteld als gespeeld: geef die terug, of houd de tijd zo)",
      "tc.unreachable": "ONBEREIKBAAR: de laatste stand, de klok loopt niet",
      "tc.done": "{cmd}: {said}", "tc.refused": "{cmd}: niet gedaan: {reason}", "tc.timeout": "{cmd}: geen antwoord van de klok",
      "tc.bad": "een heel getal, in cijfers", "tc.give_back": "Geef {s} s terug",
      "tc.next.confirm": "Nu naar {what}? Tik nogmaals", "tc.next_stage": "daarna {what}", "tc.last": "laatste niveau",
      "tc.to_break": "pauze over {time}"
    },
    en: {
      "tc.title": "Tournament clock", "tc.start": "Start", "tc.pause": "Pause", "tc.resume": "Resume",
      "tc.take": "−1 min", "tc.add": "+1 min", "tc.next": "Next stage", "tc.level": "Level", "tc.go": "Go",
      "tc.players": "Players", "tc.set": "Set", "tc.keep": "Keep the time away",
      "tc.level.n": "level {n}", "tc.break": "break", "tc.left": "{time} left", "tc.hands": "{n} hands",
      "tc.running": "running", "tc.paused": "paused", "tc.h4h": "hand-for-hand (stopped)",
      "tc.not_started": "not started", "tc.finished": "finished", "tc.players.n": "{n} players",
      "tc.away": "the clock was away {s} s (counted as played: give it back, or keep the time as it is)",
      "tc.unreachable": "UNREACHABLE: its last state, not running",
      "tc.done": "{cmd}: {said}", "tc.refused": "{cmd}: not done: {reason}", "tc.timeout": "{cmd}: no answer from the clock",
      "tc.bad": "a whole number, in digits", "tc.give_back": "Give back {s} s",
      "tc.next.confirm": "On to {what} now? Tap again", "tc.next_stage": "next {what}", "tc.last": "last level",
      "tc.to_break": "break in {time}"
    }
  });

  var $ = function (id) { return document.getElementById(id); };
  var D = null, chosenKey = null;

  function t(key, values) { return S.t(D.lang(), key, values); }
  function setText(el, text) { if (el.textContent !== text) el.textContent = text; }

  var clockText = T.clockText;

  function clocks() {
    var all = D.link().clocks, out = [];
    for (var k in all) if (all[k].state) out.push(all[k]);
    return out.sort(function (a, b) { return (a.venue + "/" + a.id).localeCompare(b.venue + "/" + b.id); });
  }

  /** The clock the buttons command: the floor's choice in the menu, else the first whose scope covers the filters'
   *  room and section, else the first. */
  function chosen() {
    var list = clocks(), f = D.filters();
    if (!list.length) return null;
    var found = list.filter(function (c) { return c.venue + "/" + c.id === chosenKey; })[0];
    return found || list.filter(function (c) { return T.covers(c, f.room || "", f.section || ""); })[0] || list[0];
  }

  /** The time away as the row says it: tenths under ten seconds (a quick restart), else whole seconds. */
  function awayText(seconds) { return seconds < 10 ? seconds.toFixed(1) : String(Math.round(seconds)); }

  /** A stage as the row names it: "level 3 · 100/200 (200)" or "break (dinner)". */
  function stageText(stage, level) {
    if (stage.is_break) return t("tc.break") + (stage.name ? " (" + stage.name + ")" : "");
    return t("tc.level.n", {n: level}) + " · " + stage.small_blind + "/" + stage.big_blind +
      (stage.ante ? " (" + stage.ante + ")" : "");
  }

  /** The clock's state in one line, as of now (a running clock counts down from its state's arrival). */
  function line(clock, now) {
    var s = clock.state, gone = T.unreachable(clock, now), left = T.left(clock, now);
    var parts = [stageText(s.stage, s.level)];
    parts.push(left === null ? t("tc.hands", {n: s.stage.hands}) : t("tc.left", {time: clockText(left)}));
    parts.push(gone ? t("tc.unreachable") : s.finished ? t("tc.finished") : !s.started ? t("tc.not_started") :
               s.hand_for_hand ? t("tc.h4h") : s.paused ? t("tc.paused") : t("tc.running"));
    if (s.players) parts.push(t("tc.players.n", {n: s.players}));
    if (s.away_s && !gone) parts.push(t("tc.away", {s: awayText(s.away_s)}));
    return (s.title || s.id) + ": " + parts.join(" · ");
  }

  /** What comes next: the next stage, and the time to the next break. */
  function nextLine(clock, now) {
    var s = clock.state, toBreak = T.toBreak(clock, now);
    var parts = [s.next_stage ? t("tc.next_stage", {what: stageText(s.next_stage, s.next_level)}) : t("tc.last")];
    if (toBreak !== null) parts.push(t("tc.to_break", {time: clockText(toBreak)}));
    return parts.join(" · ");
  }

  function draw() {
    if (!D || !D.link() || $("main").hidden) return;
    var clock = chosen(), box = $("clock"), now = performance.now();
    box.hidden = !clock;
    if (!clock) return;
    document.querySelectorAll("#clock [data-tc]").forEach(function (el) { setText(el, t(el.dataset.tc)); });
    var list = clocks(), which = $("tc-which");
    which.hidden = list.length < 2;
    var options = list.map(function (c) { return c.venue + "/" + c.id; });
    if (Array.prototype.map.call(which.options, function (o) { return o.value; }).join() !== options.join()) {
      which.innerHTML = "";
      list.forEach(function (c) {
        var o = document.createElement("option");
        o.value = c.venue + "/" + c.id;
        o.textContent = c.state.title || c.id;
        which.appendChild(o);
      });
    }
    which.value = clock.venue + "/" + clock.id;
    var s = clock.state, gone = T.unreachable(clock, now);
    setText($("tc-line"), line(clock, now));
    setText($("tc-next-line"), nextLine(clock, now));
    box.classList.toggle("unreachable", gone);
    $("tc-start").hidden = s.started;
    $("tc-pause").hidden = !s.started || s.paused || s.finished;
    $("tc-resume").hidden = !s.paused;
    $("tc-keep").hidden = $("tc-give-back").hidden = !s.away_s;
    $("tc-next").hidden = !s.next_stage;
    if (s.away_s) setText($("tc-give-back"), t("tc.give_back", {s: awayText(s.away_s)}));
    if (armed) setText($("tc-next"), t("tc.next.confirm", {what: s.next_stage ? stageText(s.next_stage, s.next_level) : ""}));
    document.querySelectorAll("#clock button, #clock input").forEach(function (el) { el.disabled = gone; });
    $("tc-which").disabled = false;
    var p = clock.lastAck, answer = "";
    if (p && p.ack) {
      var cmd = p.label || t("tc." + ({add: "add", take: "take", next: "next", start: "start", pause: "pause", resume: "resume",
                           keep: "keep", level: "level", players: "players"}[p.cmd] || "title"));
      answer = p.ack.outcome === "done" ? t("tc.done", {cmd: cmd, said: p.ack.said || ""})
             : p.ack.outcome === "timeout" ? t("tc.timeout", {cmd: cmd})
             : t("tc.refused", {cmd: cmd, reason: p.ack.reason || p.ack.outcome});
    }
    setText($("tc-answer"), answer);
  }

  function send(cmd, extra, label) {
    var clock = chosen();
    if (clock) D.link().clockCommand(clock, cmd, extra).label = label;  // the answer names what was tapped
    draw();
  }

  function whole(input) {
    var v = input.value.trim();
    if (!/^[0-9]{1,6}$/.test(v)) { setText($("tc-answer"), t("tc.bad")); return null; }
    return Number(v);
  }

  function wire() {
    $("tc-which").addEventListener("change", function () { chosenKey = this.value; draw(); });
    $("tc-start").addEventListener("click", function () { send("start"); });
    $("tc-pause").addEventListener("click", function () { send("pause"); });
    $("tc-resume").addEventListener("click", function () { send("resume"); });
    $("tc-take").addEventListener("click", function () { send("take", {seconds: MINUTE}); });
    $("tc-add").addEventListener("click", function () { send("add", {seconds: MINUTE}); });
    $("tc-next").addEventListener("click", function () {
      if (!armed) {  // a second tap within 3 s ends the stage in force for every table of the tournament
        armed = setTimeout(function () { armed = null; draw(); }, 3000);
        return draw();
      }
      clearTimeout(armed);
      armed = null;
      send("next");
    });
    $("tc-keep").addEventListener("click", function () { send("keep"); });
    $("tc-give-back").addEventListener("click", function () {
      var clock = chosen(), away = clock && clock.state.away_s;
      if (away) send("add", {seconds: Math.min(TOUR.max_seconds, Math.round(away * 1000) / 1000)}, this.textContent);
    });
    $("tc-level-go").addEventListener("click", function () {
      var n = whole($("tc-level"));
      if (n !== null) send("level", {level: n});
    });
    $("tc-players-go").addEventListener("click", function () {
      var n = whole($("tc-players"));
      if (n !== null) send("players", {players: n});
    });
  }

  function init() {
    D = S.dashboard;
    if (!D) return setTimeout(init, 50);
    wire();
    setInterval(draw, 250);
    draw();
  }

  init();
})(this);
