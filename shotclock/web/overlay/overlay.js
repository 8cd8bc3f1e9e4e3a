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
 * It hides itself when no clock runs, and shows a ruling for 10 s, as the table's screen does.
 */
(function () {
  "use strict";
  var S = window.Shotclock;
  var params = new URLSearchParams(location.search);
  var lang = (params.get("language") || params.get("lang")) === "en" ? "en" : "nl";
  var POSITIONS = ["top-left", "top-center", "top-right", "bottom-left", "bottom-center", "bottom-right"];
  var position = POSITIONS.indexOf(params.get("position")) >= 0 ? params.get("position") : "bottom-right";
  var scale = Math.min(3, Math.max(0.5, parseFloat(params.get("scale")) || 1));
  var fixedTable = params.get("table");
  var graphic = document.getElementById("graphic");
  var shown = {};
  var lastExtensions = null, extensionSeenAt = -Infinity;
  var EXTENSION_MS = 4000;  // how long "+30 s" stays up after a chip is used

  document.documentElement.lang = lang;
  document.getElementById("safe").className = "safe " + position;
  graphic.style.setProperty("--scale", scale);

  function fit() {
    // The layout is drawn for 1920×1080 and scaled to the source's real size (720p, 4K…).
    var k = Math.min(innerWidth / 1920, innerHeight / 1080);
    document.getElementById("stage").style.transform = "scale(" + k + ")";
  }
  addEventListener("resize", fit);
  fit();

  var link = new S.Link({
    url: S.brokerUrl(params), username: params.get("user") || "overlay", password: params.get("password") || "",
    venue: params.get("venue"), clientPrefix: "overlay", readOnly: true
  }).connect();
  window.shotclockLink = link;

  /** The table this overlay follows: the URL's, else the venue's feature table. */
  function current() {
    var venues = params.get("venue") ? [params.get("venue")] : Object.keys(link.feature).sort();
    if (!venues.length) venues = link.list().map(function (tb) { return tb.venue; });
    for (var i = 0; i < venues.length; i++) {
      var id = fixedTable || link.feature[venues[i]];
      if (id && link.tables[venues[i] + "/" + id]) return link.tables[venues[i] + "/" + id];
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
    var now = performance.now();
    var table = current();
    var phase = table ? S.phase(table, now) : "offline";
    var ruling = table ? S.freshRuling(table, now) : null;
    var clockOn = phase === "running" || phase === "countdown" || phase === "paused" || phase === "interrupted";
    var visible = clockOn || (!!ruling && phase !== "offline" && ruling.outcome !== "cancelled");
    setClass("hidden", !visible);
    window.shotclockOverlay = {table: table && table.id, phase: phase, visible: visible};
    if (!table) return;
    var s = table.state || {};
    set("name", table.name || table.id);
    set("street", s.mode === "shot" && s.street ? t("street." + s.street) : "");
    ["running", "countdown", "paused", "interrupted"].forEach(function (p) { setClass("phase-" + p, p === phase); });
    setClass("show-ruling", !clockOn && !!ruling);
    if (clockOn) {
      var ms = S.remainingMs(table, now);
      set("secs", String(S.shownSeconds(ms)));
      set("state", phase === "paused" || phase === "interrupted" ? t(phase) : t("mode." + s.mode));
      set("consequence", S.consequenceText(lang, s));
      var width = (Math.round(S.progress(table, now) * 1000) / 10) + "%";
      if (shown.ring !== width) { shown.ring = width; graphic.querySelector(".ring i").style.width = width; }
    } else if (ruling) {
      var words = S.rulingWords(lang, ruling);
      set("words", words[0]);
      set("detail", words[1]);
      ["good", "dead", "warn", "neutral"].forEach(function (tone) { setClass("tone-" + tone, tone === words[2]); });
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
