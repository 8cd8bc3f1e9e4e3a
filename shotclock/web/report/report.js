/* The slow-play report (docs/report.md): every named player's decision times across the venue's tables, from the
 * collector's archive, sortable by any column.
 *
 * The page asks the collector over MQTT, as the dashboard asks it for a ruling's timeline (a "report" question,
 * docs/network.md "archive"), so it needs no web server and no credential beyond the floor's own; the answer is
 * the same one `shotclock floor report` prints (shotclock/floor/report.py).
 *
 * URL parameters (all optional): lang=nl|en, venue=NAME (default: the venue of the tables it sees),
 * broker=ws://host:port/. The filters live in the hash (#day=…&table=…&level=…&sort=…&dir=…), so a reload or a link
 * keeps them. The login is the dashboard's (sessionStorage, per tab): without one the page sends the floor there.
 */
(function () {
  "use strict";
  var S = window.Shotclock;
  var params = new URLSearchParams(location.search);
  var lang = params.get("lang") === "en" ? "en" : (localStorage.getItem("shotclock.lang") || "nl");
  var $ = function (id) { return document.getElementById(id); };
  var ASK_TIMEOUT_MS = 30000;   // a big archive's first report takes the collector a few seconds
  var REFRESH_MS = 60000;       // asked again this often while the page is shown
  var SECONDS = ["median_s", "p95_s", "max_s", "bank_used_s"];
  var AGAINST = ["rulings_against", "hands_dead", "checks", "warnings", "clock_marks"];
  var TEXT = ["player", "tables", "marks"];  // sorted A to Z (core/slowplay.py TEXT_COLUMNS)
  var link = null, venue = params.get("venue"), answer = null;
  var asked = 0;                // questions sent: only the latest one's answer is drawn (filters change quickly)
  var state = readHash();

  S.addPageTexts({
    nl: {"r.title": "Traag spel", "r.back": "← Floor", "r.refresh": "Vernieuwen", "r.all_days": "alle dagen",
         "r.all_tables": "alle tafels", "r.all_levels": "alle niveaus", "r.level": "niveau {n}", "r.login": "Log eerst in op het floor-dashboard (in dit tabblad).",
         "r.to_login": "Naar het dashboard", "r.table": "tafel {t}", "r.asking": "Het archief wordt gevraagd…",
         "r.no_answer": "Het archief antwoordt niet: draait 'shotclock floor collect' voor deze venue?",
         "r.refused": "Het archief weigert: {reason}", "r.none": "Geen beslissingen van spelers met een naam.",
         "r.no_venue": "Nog geen tafel gezien: geef ?venue=NAAM in het adres.",
         "r.as_of": "stand van {time}", "r.shown": "{shown} van {total} spelers getoond (de traagste); de CSV heeft ze allemaal.",
         "r.unnamed": "{n} beslissingen op stoelen zonder naam staan er niet in.",
         "note.time": "Tijd per beslissing: wat de tafel rekende (de klok, met verlengingen en bank, min wat over was); " +
                      "een pauze en de tijd dat een apparaat uit stond tellen nooit mee.",
         "note.day": "Een dag loopt van 06:00 tot 06:00 plaatselijke tijd; een klok hoort bij het niveau waarop hij begon.",
         "note.marks": "Markeringen: de waarschuwingen en eigen klokken die de floor een speler gaf (TDA-regels 70 " +
                       "en 71), met wie ze gaf en wanneer; een markering hoort bij de dag waarop ze gemaakt is.",
         "note.csv": "Voor de toernooidirecteur: shotclock floor report --archive MAP --csv rapport.csv",
         "c.player": "Speler", "c.tables": "Tafels", "c.decisions": "Beslissingen", "c.median_s": "Mediaan",
         "c.p95_s": "95%", "c.max_s": "Langste", "c.clocks_called": "Klok afgeroepen", "c.extensions": "Verlengingen",
         "c.bank_used_s": "Bank gebruikt", "c.rulings_against": "Tegen", "c.hands_dead": "Hand dood",
         "c.checks": "Check", "c.warnings": "Waarschuwingen", "c.clock_marks": "Eigen klok",
         "c.marks": "Markeringen"},
    en: {"r.title": "Slow play", "r.back": "← Floor", "r.refresh": "Refresh", "r.all_days": "every day",
         "r.all_tables": "every table", "r.all_levels": "every level", "r.level": "level {n}", "r.login": "Log in on the floor dashboard first (in this tab).",
         "r.to_login": "To the dashboard", "r.table": "table {t}", "r.asking": "Asking the archive…",
         "r.no_answer": "The archive does not answer: is 'shotclock floor collect' running for this venue?",
         "r.refused": "The archive refused: {reason}", "r.none": "No decisions of named players.",
         "r.no_venue": "No table seen yet: add ?venue=NAME to the address.",
         "r.as_of": "as of {time}", "r.shown": "{shown} of {total} players shown (the slowest); the CSV has them all.",
         "r.unnamed": "{n} decisions at seats with no name are not listed.",
         "note.time": "Time per decision: what the table ruled (the clock, extensions and bank included, less what " +
                      "was left); a pause and a device's downtime never count.",
         "note.day": "A day runs from 06:00 to 06:00 local time; a clock belongs to the level it started at.",
         "note.marks": "Marks: the warnings and own clocks the floor gave a player (TDA Rules 70 and 71), who gave " +
                       "them and when; a mark belongs to the day it was made on.",
         "note.csv": "For the tournament director: shotclock floor report --archive DIR --csv report.csv",
         "c.player": "Player", "c.tables": "Tables", "c.decisions": "Decisions", "c.median_s": "Median",
         "c.p95_s": "95th pct", "c.max_s": "Longest", "c.clocks_called": "Clocks called", "c.extensions": "Extensions",
         "c.bank_used_s": "Bank used", "c.rulings_against": "Against", "c.hands_dead": "Hand dead",
         "c.checks": "Checked", "c.warnings": "Warnings", "c.clock_marks": "Own clock", "c.marks": "Marks"}
  });

  function t(key, values) { return S.t(lang, key, values); }

  S.paintTones(document.documentElement);

  function readHash() {
    var h = new URLSearchParams(location.hash.slice(1));
    return {day: h.get("day") || "", table: h.get("table") || "", level: h.get("level") || "",
            sort: h.get("sort") || "median_s",
            dir: h.get("dir") === "asc" ? "asc" : "desc"};
  }

  function writeHash() {
    var h = new URLSearchParams();
    ["day", "table", "level", "sort", "dir"].forEach(function (k) { if (state[k]) h.set(k, state[k]); });
    history.replaceState(null, "", "#" + h.toString());
  }

  // --- login (the dashboard's, per browser tab) ---------------------------------------------------------

  function credentials() {
    try { return JSON.parse(sessionStorage.getItem("shotclock.login")); } catch (e) { return null; }
  }

  function showLogin(message) {
    if (link) link.end();
    $("main").hidden = true;
    $("filters").hidden = true;
    $("login").hidden = false;
    $("login").firstChild.textContent = message ? message + " " : t("r.login");
  }

  function start(login) {
    if (link) link.end();
    $("login").hidden = true;
    $("main").hidden = false;
    $("filters").hidden = false;
    link = new S.Link({
      url: S.brokerUrl(params), username: login.user, password: login.password, venue: venue,
      clientPrefix: "report",
      // The first question once the connection (and a venue) is there; later ones on a filter, Refresh, each minute.
      onChange: function () { drawConnection(); if (!asked) ask(); },
      onConnection: function (st) {
        if (st === "refused") {
          sessionStorage.removeItem("shotclock.login");
          showLogin(t("conn.refused"));
        }
      }
    }).connect();
    window.shotclockLink = link;  // for the browser tests
    say(t("r.asking"));
  }

  // --- asking the archive -------------------------------------------------------------------------------

  /** The venues this page sees (the tables' retained status), the one asked first. */
  function venues() {
    if (params.get("venue")) return [params.get("venue")];
    var seen = {};
    link.list().forEach(function (tb) { seen[tb.venue] = true; });
    return Object.keys(seen).sort();
  }

  function ask() {
    if (!link || link.connection !== "online") return;
    var known = venues();
    drawVenues(known);
    if (!venue) venue = known[0] || null;
    if (!venue) { say(t("r.no_venue")); return; }
    var question = {what: "report"};
    if (state.day) question.day = state.day;
    if (state.table) question.table = state.table;
    if (state.level) question.level = Number(state.level);
    var mine = ++asked;
    link.ask(venue, question, ASK_TIMEOUT_MS).then(function (got) {
      if (mine !== asked) return;  // a later question (another filter) is on its way
      if (!got || got.ok !== true) {
        var reason = got && got.reason;
        say(reason === "no answer" ? t("r.no_answer") : t("r.refused", {reason: reason || "?"}), true);
        return;
      }
      answer = got;
      draw();
    });
  }

  function refresh() { answer = null; ask(); }

  $("refresh").addEventListener("click", refresh);
  ["day", "table", "level"].forEach(function (id) {
    $(id).addEventListener("change", function () { state[id] = this.value; writeHash(); refresh(); });
  });
  $("venue").addEventListener("change", function () { venue = this.value; state.table = ""; writeHash(); refresh(); });
  setInterval(function () { if (!document.hidden) refresh(); }, REFRESH_MS);

  // --- drawing ------------------------------------------------------------------------------------------

  function say(text, problem) {
    $("status").textContent = text;
    $("status").classList.toggle("problem", !!problem);
    $("status").hidden = !text;
  }

  function drawConnection() {
    var st = link ? link.connection : "connecting";
    $("conn").className = "conn " + st;
    $("conn").textContent = t("conn." + st);
  }

  function options(select, values, allText, label) {
    var want = [["", allText]].concat(values.map(function (v) { return [v, label ? label(v) : v]; }));
    select.textContent = "";
    want.forEach(function (o) {
      var el = document.createElement("option");
      el.value = o[0];
      el.textContent = o[1];
      select.appendChild(el);
    });
  }

  function drawVenues(known) {
    var select = $("venue");
    select.hidden = known.length < 2;
    if (select.hidden || select.options.length === known.length) return;
    select.textContent = "";
    known.forEach(function (v) {
      var el = document.createElement("option");
      el.value = el.textContent = v;
      select.appendChild(el);
    });
    select.value = venue || known[0];
  }

  function compare(column, dir) {
    var sign = dir === "asc" ? 1 : -1;
    var text = TEXT.indexOf(column) >= 0;
    return function (a, b) {
      var x = a[column], y = b[column];
      if (x === null || y === null) return (x === null) - (y === null);  // no time: last, either way
      var c = text ? String(x).localeCompare(String(y), undefined, {numeric: true}) : x - y;
      return c * (text ? -sign : sign) || String(a.player).localeCompare(String(b.player));
    };
  }

  function cell(column, value) {
    if (value === null || value === undefined || value === "") return "–";
    if (SECONDS.indexOf(column) >= 0) return S.seconds(lang, value);
    return String(value);
  }

  function draw() {
    drawConnection();
    if (!answer) return;
    options($("day"), answer.days, t("r.all_days"));
    options($("table"), answer.tables, t("r.all_tables"), function (v) { return t("r.table", {t: v}); });
    options($("level"), answer.levels || [], t("r.all_levels"), function (v) { return t("r.level", {n: v}); });
    $("level").hidden = !(answer.levels || []).length;  // levels never set: no filter to offer
    $("day").value = state.day;
    $("table").value = state.table;
    $("level").value = state.level;
    $("as-of").textContent = answer.as_of ? t("r.as_of", {time: new Date(answer.as_of).toLocaleTimeString(lang)}) : "";
    var columns = answer.columns;
    if (columns.indexOf(state.sort) < 0) state.sort = "median_s";
    var heads = $("heads");
    heads.textContent = "";
    columns.forEach(function (c) {
      var th = document.createElement("th");
      th.dataset.column = c;
      th.scope = "col";
      if (c === state.sort) th.setAttribute("aria-sort", state.dir === "asc" ? "ascending" : "descending");
      var b = document.createElement("button");
      b.type = "button";
      b.textContent = t("c." + c);
      th.appendChild(b);
      heads.appendChild(th);
    });
    var lines = answer.players.map(function (values) {
      var line = {};
      columns.forEach(function (c, i) { line[c] = values[i]; });
      return line;
    });
    lines.sort(compare(state.sort, state.dir));
    var body = $("rows");
    body.textContent = "";
    lines.forEach(function (line) {
      var tr = document.createElement("tr");
      columns.forEach(function (c) {
        var td = document.createElement("td");
        td.dataset.column = c;
        td.textContent = cell(c, line[c]);
        if (AGAINST.indexOf(c) >= 0 && line[c] > 0) td.className = "against";
        if (line[c] === null) td.className = "none";
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    $("players").hidden = !lines.length;
    say(lines.length ? "" : t("r.none"));
    $("shown").hidden = answer.total <= lines.length;
    $("shown").textContent = t("r.shown", {shown: lines.length, total: answer.total});
    $("unnamed").hidden = !answer.unnamed_decisions;
    $("unnamed").textContent = t("r.unnamed", {n: answer.unnamed_decisions});
  }

  $("heads").addEventListener("click", function (e) {
    var th = e.target.closest("th");
    if (!th) return;
    var c = th.dataset.column;
    // A new column sorts largest first (A to Z for names); the same column again turns the order round.
    state.dir = c === state.sort ? (state.dir === "desc" ? "asc" : "desc") : "desc";
    state.sort = c;
    writeHash();
    draw();
  });

  function translate() {
    document.documentElement.lang = lang;
    document.querySelectorAll("[data-r]").forEach(function (el) {
      var key = el.dataset.r;
      el.textContent = t(/^note\./.test(key) ? key : "r." + key);
    });
    $("language").textContent = t("language");
    $("to-dashboard").href = $("to-login").href = "../dashboard/index.html" + location.search;
    document.title = "Shotclock · " + t("r.title");
    draw();
  }

  $("language").addEventListener("click", function () {
    lang = lang === "nl" ? "en" : "nl";
    localStorage.setItem("shotclock.lang", lang);
    translate();
  });

  translate();
  var login = credentials();
  if (login) start(login); else showLogin("");
})();
