/* The room's screen: one tournament's clock on the room's TVs (and, with obs=1, a browser source).
 *
 * URL parameters:
 *   password, user   a login that may read the tournament's state (the overlay's: credentials/overlay.toml)
 *   id               the tournament's id (default: the only one the broker has; with several, it asks for one)
 *   venue            the venue (default: any)
 *   language         nl (default) | en
 *   obs              1: a transparent page for a broadcast's browser source
 *   broker           ws://host:port/mqtt (default: this page's own origin, where Mosquitto serves it)
 * The clock's process publishes its state retained at every change and every heartbeat (docs/network.md,
 * "tournament"); the page counts down from the moment a state arrives, on its own clock, and shows the clock
 * UNREACHABLE (greyed, never counting) when its status says offline or no state came for three heartbeats
 * (lib/tournament.js, shared with the dashboard's clock panel).
 */
(function () {
  "use strict";
  var params = new URLSearchParams(location.search);
  var lang = (params.get("language") || params.get("lang")) === "en" ? "en" : "nl";
  var wanted = params.get("id");
  var TEXTS = {
    nl: {level: "Niveau {n}", break: "Pauze", next: "Volgende", to_break: "Pauze over", players: "{n} spelers",
         paused: "gepauzeerd", hand_for_hand: "hand-for-hand: de klok staat stil", finished: "laatste niveau voorbij",
         not_started: "nog niet gestart", by_hands: "{n} handen", last: "laatste niveau", none: "–",
         unreachable: "KLOK ONBEREIKBAAR: de laatste stand, de klok loopt niet", away: "de klok was {s} s weg",
         refused: "Geweigerd: gebruiker of wachtwoord klopt niet (password=… in het adres)",
         no_broker: "Geen verbinding met {url}", no_clock: "Geen toernooiklok op dit netwerk",
         which: "Meer toernooien: zet &id= in het adres ({ids})", missing: "Geen toernooi '{id}' (wel: {ids})",
         bb_ante: "BB-ante {a}", ante: "ante {a}"},
    en: {level: "Level {n}", break: "Break", next: "Next", to_break: "Break in", players: "{n} players",
         paused: "paused", hand_for_hand: "hand-for-hand: the clock is stopped", finished: "last level over",
         not_started: "not started yet", by_hands: "{n} hands", last: "last level", none: "–",
         unreachable: "CLOCK UNREACHABLE: its last state, not running", away: "the clock was away {s} s",
         refused: "Refused: wrong user or password (password=… in the address)",
         no_broker: "No connection to {url}", no_clock: "No tournament clock on this network",
         which: "Several tournaments: add &id= to the address ({ids})", missing: "No tournament '{id}' (there is: {ids})",
         bb_ante: "BB ante {a}", ante: "ante {a}"}
  };
  function t(key, values) {
    return TEXTS[lang][key].replace(/\{(\w+)\}/g, function (_, k) { return values && k in values ? values[k] : ""; });
  }
  var T = window.Shotclock.Tournament;
  var clocks = {};       // "venue/id" → {venue, id, state, at: performance.now() of its arrival, online}
  var connection = "connecting", loadedAt = performance.now();
  var $ = function (id) { return document.getElementById(id); };

  document.documentElement.lang = lang;
  if (params.get("obs") === "1") document.body.className = "obs";
  function fit() {
    var k = Math.min(innerWidth / 1920, innerHeight / 1080);
    $("stage").style.transform = "scale(" + k + ")";
  }
  addEventListener("resize", fit);
  fit();

  var url = params.get("broker") || ((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/mqtt");
  var venue = params.get("venue") || "+";
  var client = window.mqtt.connect(url, {
    protocolVersion: 5, username: params.get("user") || "overlay", password: params.get("password") || "",
    clientId: "tournament-" + Math.random().toString(36).slice(2, 10), clean: true, reconnectPeriod: 1000,
    connectTimeout: 4000, keepalive: 15
  });
  client.on("connect", function () {
    var topics = {};
    topics["shotclock/v1/" + venue + "/tournament/+/state"] = {qos: 1};
    topics["shotclock/v1/" + venue + "/tournament/+/status"] = {qos: 1};
    client.subscribe(topics, function (err) { connection = err ? "refused" : "online"; draw(); });
  });
  client.on("close", function () { if (connection !== "refused") connection = "offline"; });
  client.on("error", function (err) {
    var code = err && err.code;
    if (code === 134 || code === 135 || code === 4 || code === 5) { connection = "refused"; client.end(true); }
  });
  client.on("message", function (topic, payload) {
    if (T.fold(clocks, topic, payload, performance.now())) draw();
  });
  var clockText = T.clockText;
  function blinds(stage) {
    if (!stage || stage.is_break) return "";
    return (stage.small_blind || 0).toLocaleString(lang) + " / " + (stage.big_blind || 0).toLocaleString(lang);
  }
  function ante(stage) {
    if (!stage || stage.is_break || !stage.ante) return "";
    return t(stage.big_blind_ante ? "bb_ante" : "ante", {a: stage.ante.toLocaleString(lang)});
  }
  function stageName(stage, level) {
    if (!stage) return t("none");
    return stage.is_break ? t("break") + (stage.name ? " · " + stage.name : "") : t("level", {n: level});
  }

  /** The clock this page shows: the one its address names, else the only one; and why none, when none. */
  function chosen() {
    var known = Object.keys(clocks).map(function (k) { return clocks[k]; }).filter(function (c) { return c.state; });
    var ids = known.map(function (c) { return c.id; }).sort();
    if (wanted) {
      var named = known.filter(function (c) { return c.id === wanted; });
      return named.length ? {clock: named[0]} :
        {why: ids.length ? t("missing", {id: wanted, ids: ids.join(", ")}) : t("no_clock")};
    }
    if (known.length === 1) return {clock: known[0]};
    return {why: ids.length ? t("which", {ids: ids.join(", ")}) : t("no_clock")};
  }

  function draw() {
    var now = performance.now();
    var notice = "";
    if (connection === "refused") notice = t("refused");
    else if (connection !== "online" && now - loadedAt > 5000) notice = t("no_broker", {url: url});
    var pick = chosen();
    var board = $("board");
    if (!pick.clock) {
      if (!notice && connection === "online" && now - loadedAt > 2000) notice = pick.why;
      $("notice").textContent = notice;
      $("notice").hidden = !notice;
      board.className = "board waiting";
      return;
    }
    var clock = pick.clock, s = clock.state;
    var unreachable = T.unreachable(clock, now), left = T.left(clock, now), toBreak = T.toBreak(clock, now);
    var classes = ["board"];
    if (s.stage.is_break) classes.push("on-break");
    if (unreachable) classes.push("unreachable");
    else if (s.paused) classes.push("paused");
    else if (s.hand_for_hand) classes.push("stopped");
    board.className = classes.join(" ");
    $("title").textContent = s.title || s.id;
    $("players").textContent = s.players ? t("players", {n: s.players.toLocaleString(lang)}) : "";
    $("level").textContent = stageName(s.stage, s.level);
    $("blinds").textContent = blinds(s.stage);
    $("ante").textContent = ante(s.stage);
    $("time").textContent = left === null ? t("by_hands", {n: s.stage.hands}) : clockText(left);
    var how = unreachable ? t("unreachable") : s.finished ? t("finished") : !s.started ? t("not_started") :
      s.hand_for_hand ? t("hand_for_hand") : s.paused ? t("paused") : s.away_s ? t("away", {s: Math.round(s.away_s)}) : "";
    $("how").textContent = how;
    $("next-label").textContent = t("next");
    $("next").textContent = s.next_stage ? stageName(s.next_stage, s.next_level) +
      (s.next_stage.is_break ? "" : " · " + blinds(s.next_stage) + (ante(s.next_stage) ? ", " + ante(s.next_stage) : ""))
      : t("last");
    $("break-label").textContent = t("to_break");
    $("to-break").textContent = toBreak === null ? t("none") : clockText(toBreak);
    $("notice").textContent = notice;
    $("notice").hidden = !notice;
  }

  // Redraw at each second of the countdown (and when a message comes): the page never decides the time is up,
  // the clock's next state says what follows.
  function tick() {
    draw();
    var pick = chosen(), wait = 1000;
    if (pick.clock && pick.clock.state.running) {  // the next second of its countdown, from the state's arrival
      var left = T.left(pick.clock, performance.now()) || 0;
      wait = ((left % 1) + 1) % 1 * 1000 || 1000;
    }
    setTimeout(tick, wait + 5);
  }
  tick();
  window.shotclockTournament = {clocks: clocks, draw: draw};
})();
