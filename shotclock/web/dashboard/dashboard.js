/* The floor dashboard: every table's clock, its commands, and a feed of rulings.
 *
 * URL parameters (all optional): lang=nl|en, venue=NAME (default: every venue on the broker),
 * broker=ws://host:port/ (default: this page's own origin, where Mosquitto serves it).
 * The floor credential is asked once per browser tab (kept in sessionStorage, never in the URL).
 */
(function () {
  "use strict";
  var S = window.Shotclock;
  var params = new URLSearchParams(location.search);
  var lang = params.get("lang") === "en" ? "en" : (localStorage.getItem("shotclock.lang") || "nl");
  var link = null;
  var cards = {};           // table key → {el, shown: {…}} (what each element shows now, to write only changes)
  var dirty = true;
  var asked = {};           // venues whose archived rulings were asked for
  var CONFIRM = ["cancel", "stop"];  // commands that take a second tap
  var $ = function (id) { return document.getElementById(id); };

  function t(key, values) { return S.t(lang, key, values); }

  S.paintTones(document.documentElement);  // the device's colours (device-rules.js), for the stylesheet

  /** Show a ruling's tone on `el`: --ruling-bg, --ruling-ink and --ruling-accent name that tone's colours. */
  function setRulingTone(el, tone) {
    el.dataset.tone = tone;
    el.style.setProperty("--ruling-bg", "var(--" + tone + "-bg)");
    el.style.setProperty("--ruling-ink", "var(--" + tone + "-ink)");
    el.style.setProperty("--ruling-accent", "var(--" + tone + ")");
  }

  function setText(card, cls, value) {
    if (card.shown[cls] === value) return;
    card.shown[cls] = value;
    card.el.querySelector("." + cls).textContent = value;
  }

  function setClass(card, cls, on) {
    if (!!card.shown["class:" + cls] === on) return;
    card.shown["class:" + cls] = on;
    card.el.classList.toggle(cls, on);
  }

  function translateStatic() {
    document.documentElement.lang = lang;
    document.querySelectorAll("[data-t]").forEach(function (el) { el.textContent = t(el.dataset.t); });
    $("language").textContent = t("language");
    for (var k in cards) cards[k].shown = {};  // redraw every card in the new language
    dirty = true;
  }

  // --- login -------------------------------------------------------------------------------------------

  function credentials() {
    try { return JSON.parse(sessionStorage.getItem("shotclock.login")); } catch (e) { return null; }
  }

  /** The login form, or the floor's page; the header's commands and log out only once logged in. */
  function showLoggedIn(loggedIn) {
    $("main").hidden = !loggedIn;
    $("login").hidden = loggedIn;
    ["pause-all", "resume-all", "logout"].forEach(function (id) { $(id).hidden = !loggedIn; });
  }

  function showLogin(message) {
    showLoggedIn(false);
    $("login-error").textContent = message || "";
    $("login").password.focus();
  }

  function start(login) {
    if (link) link.end();
    showLoggedIn(true);
    cards = {};
    asked = {};
    $("tables").textContent = "";
    link = new S.Link({
      url: S.brokerUrl(params), username: login.user, password: login.password, venue: params.get("venue"),
      clientPrefix: "dashboard",
      onChange: function () { dirty = true; },
      onConnection: function (state) {
        if (state === "refused") {
          sessionStorage.removeItem("shotclock.login");
          showLogin(t("conn.refused"));
        }
      }
    }).connect();
    window.shotclockLink = link;  // for the floor's own console and the browser tests
  }

  $("login").addEventListener("submit", function (e) {
    e.preventDefault();
    // Who commands is the login itself (each floor person has one): the broker proves it, the table logs it.
    var login = {user: this.user.value.trim(), password: this.password.value};
    sessionStorage.setItem("shotclock.login", JSON.stringify(login));
    start(login);
  });

  $("logout").addEventListener("click", function () {
    sessionStorage.removeItem("shotclock.login");
    if (link) link.end();
    link = null;
    showLogin("");
  });

  $("language").addEventListener("click", function () {
    lang = lang === "nl" ? "en" : "nl";
    localStorage.setItem("shotclock.lang", lang);
    translateStatic();
  });

  // --- commands ----------------------------------------------------------------------------------------

  function tablesIn(phases) {
    var now = performance.now();
    return link.list().filter(function (tb) { return phases.indexOf(S.phase(tb, now)) >= 0; });
  }

  // Pause all: every running clock, at once, on the venue's command topic (a break). Resume all: every
  // clock paused by hand; an interrupted clock (after a power cut) waits for the floor at that table.
  $("pause-all").addEventListener("click", function () { link.commandAll("pause"); });
  $("resume-all").addEventListener("click", function () {
    tablesIn(["paused"]).forEach(function (tb) { link.command(tb, "resume"); });
  });

  $("tables").addEventListener("click", function (e) {
    var button = e.target.closest("button");
    var el = e.target.closest("article.table");
    if (!button || !el || !link) return;
    var table = link.tables[el.dataset.key];
    var cmd = button.dataset.cmd;
    if (CONFIRM.indexOf(cmd) >= 0 && !button.classList.contains("armed")) {
      // Ending a clock cannot be undone: the first tap asks, a second within 3 s sends (on the device it
      // takes a 2 s hold).
      button.classList.add("armed");
      button.textContent = t("confirm", {cmd: t("cmd." + cmd)});
      setTimeout(function () {
        button.classList.remove("armed");
        button.textContent = t("cmd." + cmd);
      }, 3000);
      return;
    }
    if (cmd) link.command(table, cmd);
    else if (button.classList.contains("feature")) {
      // ☆ puts the table on the stream; ★ again takes it off (the overlay hides).
      link.setFeature(table.venue, link.feature[table.venue] === table.id ? null : table.id);
    }
  });

  // --- drawing -----------------------------------------------------------------------------------------

  function newCard(table) {
    var el = $("card").content.firstElementChild.cloneNode(true);
    el.dataset.key = table.venue + "/" + table.id;
    el.dataset.table = table.id;
    return {el: el, shown: {}};
  }

  function ackText(p) {
    var cmd = t("cmd." + p.cmd);
    if (!p.ack) return t("ack.waiting", {cmd: cmd});
    if (p.ack.outcome === "timeout") return t("ack.timeout", {cmd: cmd});
    return p.ack.outcome === "done" ? t("ack.ok", {cmd: cmd})
                                    : t("ack.refused", {cmd: cmd, reason: p.ack.reason || p.ack.outcome});
  }

  /** Street and extensions; the bet too when no clock runs (a running clock's line says it with the
   *  consequence, as the device's screen does). */
  function infoText(s, clockOn) {
    var parts = [];
    // Seat tracking: whose clock it runs, then every seat's chips and bank ("S3 2 · 45 s"), folded seats apart.
    if (clockOn && s.seat) parts.push(s.player ? t("seat.named", {seat: s.seat, name: s.player}) : t("seat", {seat: s.seat}));
    if (s.mode === "shot" && s.street) parts.push(t("street." + s.street));
    if (s.extensions) parts.push(t("extensions", {n: s.extensions}));
    if (!clockOn) parts.push(t(s.facing_bet ? "bet.yes" : "bet.no"));
    (s.seats || []).forEach(function (seat) {
      var bits = ["S" + seat.seat + (seat.player ? " " + seat.player : "") + (seat.all_in ? " (all-in)" : "")];
      if (seat.chips !== null && seat.chips !== undefined) bits.push(String(seat.chips));
      if (seat.bank_ms !== null && seat.bank_ms !== undefined) bits.push(t("seconds", {s: Math.ceil(seat.bank_ms / 1000)}));
      if (seat.in_hand || !s.seat) parts.push(bits.join(" "));
    });
    return parts.join(" · ");
  }

  function drawCard(card, table, now) {
    var s = table.state || {};
    var phase = S.phase(table, now);
    var ms = S.remainingMs(table, now);
    var clockOn = ms !== null && phase !== "offline" && phase !== "quiet";
    ["idle", "running", "countdown", "paused", "interrupted", "quiet", "offline"].forEach(function (p) {
      setClass(card, "phase-" + p, p === phase);
    });
    var tone = S.clockTone(table, now);
    ["calm", "warn", "urgent", "paused"].forEach(function (x) { setClass(card, "tone-" + x, x === tone); });
    setText(card, "name", table.name || table.id);
    setText(card, "phase", t("phase." + phase));
    setText(card, "mode", s.mode ? t("mode." + s.mode) : "");
    setText(card, "version", table.version ? "shotclock " + table.version : "");
    setText(card, "secs", clockOn ? String(S.shownSeconds(ms)) : "–");
    var fraction = clockOn ? S.progress(table, now) : 0;
    var width = Math.round((fraction || 0) * 400) / 4 + "%";  // quarter percent steps: fewer style writes
    if (card.shown.ring !== width) {
      card.shown.ring = width;
      card.el.querySelector(".ring i").style.width = width;
    }
    setText(card, "consequence", clockOn ? S.consequenceText(lang, s) : "");
    setText(card, "info", table.state && phase !== "offline" && phase !== "quiet" ? infoText(s, clockOn) : "");
    var r = table.ruling;
    var fresh = S.freshRuling(table, now);
    var words = r ? S.rulingWords(lang, r) : null;
    setText(card, "ruling", r ? t("last", {ruling: words[0]}) : "");
    setClass(card, "fresh", !!fresh);
    if (words && card.shown.rulingTone !== words[2]) {
      card.shown.rulingTone = words[2];
      setRulingTone(card.el, words[2]);
    }
    // Another device uses this table's identity (a cloned SD card): shown as a fault, as on both screens.
    var faultList = (s.network && s.network.clone ? [t("network.clone")] : []).concat(S.faultTexts(lang, s.faults));
    var faults = faultList.join("\n");
    if (card.shown.faults !== faults) {
      card.shown.faults = faults;
      var ul = card.el.querySelector(".faults");
      ul.textContent = "";
      faultList.forEach(function (f) {
        var li = document.createElement("li");
        li.textContent = f;
        ul.appendChild(li);
      });
    }
    var cmds = S.commandsFor(table, now).join(" ");
    if (card.shown.cmds !== cmds) {
      card.shown.cmds = cmds;
      var box = card.el.querySelector(".cmds");
      box.textContent = "";
      S.commandsFor(table, now).forEach(function (c) {
        var b = document.createElement("button");
        b.type = "button";
        b.dataset.cmd = c;
        b.className = "cmd cmd-" + c;
        b.textContent = t("cmd." + c);
        box.appendChild(b);
      });
    }
    var p = table.lastAck;
    setText(card, "ack", p ? ackText(p) : "");
    setClass(card, "ack-refused", !!(p && p.ack && p.ack.outcome !== "done"));
    var featured = link.feature[table.venue] === table.id;
    setText(card, "feature", featured ? "★ " + t("feature") : "☆ " + t("feature.set"));
    setClass(card, "featured", featured);
    if (S.seatPanel) S.seatPanel.draw(card.el, table, link, lang);  // seat tracking's controls (seats.js)
  }

  function drawFeed() {
    var ol = $("feed");
    var key = link.feed.map(function (f) { return f.key; }).join(",") + lang;
    if (ol.dataset.shown === key) return;
    ol.dataset.shown = key;
    ol.textContent = "";
    link.feed.forEach(function (f) {
      var li = document.createElement("li");
      var words = S.rulingWords(lang, f);
      setRulingTone(li, words[2]);
      var time = f.utc ? new Date(f.utc).toLocaleTimeString(lang === "nl" ? "nl-NL" : "en-GB") : "";
      li.innerHTML = "<time></time> <b></b> <span class=what></span> <small></small> ";
      li.querySelector("time").textContent = time;
      li.querySelector("b").textContent = (link.tables[f.venue + "/" + f.table] || f).name || f.table;
      li.querySelector(".what").textContent = words[0];
      // Who on the floor commanded this clock, as the broker proved it (the archive's rulings carry it).
      li.querySelector("small").textContent = words[1] + (f.by && f.by.length ? " · " + f.by.join(", ") : "");
      if (f.clock !== undefined && f.clock !== null) {
        var a = document.createElement("button");
        a.type = "button";
        a.className = "timeline-link quiet";
        a.dataset.key = f.key;
        a.textContent = t("feed.timeline");
        li.appendChild(a);
      }
      ol.appendChild(li);
    });
    $("feed-empty").hidden = link.feed.length > 0;
  }

  // --- a ruling's timeline, from the collector's archive ------------------------------------------------

  $("feed").addEventListener("click", function (e) {
    var button = e.target.closest("button.timeline-link");
    if (!button) return;
    var f = link.feed.filter(function (x) { return x.key === button.dataset.key; })[0];
    if (f) showTimeline(f);
  });
  $("timeline-close").addEventListener("click", function () { $("timeline").close(); });

  function showTimeline(f) {
    var dialog = $("timeline");
    var table = link.tables[f.venue + "/" + f.table];
    $("timeline-title").textContent = ((table && table.name) || f.table) + " · " + S.rulingWords(lang, f)[0];
    $("timeline-body").textContent = t("timeline.loading");
    if (!dialog.open) dialog.showModal();
    link.ask(f.venue, {what: "clock", table: f.table, clock: f.clock, boot: f.boot}).then(function (answer) {
      var body = $("timeline-body");
      body.textContent = "";
      if (!answer.ok) {
        body.textContent = t("timeline.none", {reason: answer.reason || ""});
        return;
      }
      var tableEl = document.createElement("table");
      S.timelineRows(answer.records || []).forEach(function (row) {
        var tr = tableEl.insertRow();
        row.forEach(function (text) { tr.insertCell().textContent = text; });
      });
      body.appendChild(tableEl);
      if (answer.number) {
        // The number the archive's log command gives this clock (not the device's id, f.clock).
        var note = document.createElement("p");
        note.className = "dim";
        note.textContent = t("timeline.cli", {table: f.table, number: answer.number});
        body.appendChild(note);
      }
    });
  }

  function drawHeader(tables, now) {
    var conn = $("conn");
    conn.className = "conn " + link.connection;
    conn.textContent = t("conn." + link.connection);
    var running = tables.filter(function (tb) {
      var p = S.phase(tb, now);
      return p === "running" || p === "countdown";
    });
    var paused = tables.filter(function (tb) { return S.phase(tb, now) === "paused"; });
    $("count").textContent = tables.length ? t("tables.count", {n: tables.length, running: running.length}) : "";
    $("pause-all").textContent = t("all.pause") + (running.length ? " (" + running.length + ")" : "");
    $("resume-all").textContent = t("all.resume") + (paused.length ? " (" + paused.length + ")" : "");
    $("pause-all").disabled = !running.length || link.connection !== "online";
    $("resume-all").disabled = !paused.length || link.connection !== "online";
    $("no-tables").hidden = tables.length > 0;
  }

  function frame() {
    requestAnimationFrame(frame);
    if (!link) return;
    var now = performance.now();
    var tables = link.list();
    tables.forEach(function (tb) {
      // The rulings before this page opened: asked once per venue from the collector's archive.
      if (!asked[tb.venue] && link.connection === "online") {
        asked[tb.venue] = true;
        link.loadRulings(tb.venue);
      }
    });
    if (dirty) {
      // Order and membership change only with a message; the countdown itself is redrawn every frame.
      dirty = false;
      var box = $("tables");
      S.sortTables(tables, now).forEach(function (table, i) {
        var key = table.venue + "/" + table.id;
        var card = cards[key] || (cards[key] = newCard(table));
        if (box.children[i] !== card.el) box.insertBefore(card.el, box.children[i] || null);
      });
      drawFeed();
    }
    drawHeader(tables, now);
    tables.forEach(function (table) { drawCard(cards[table.venue + "/" + table.id], table, now); });
  }

  translateStatic();
  var login = credentials();
  if (login) start(login); else showLogin("");
  requestAnimationFrame(frame);
})();
