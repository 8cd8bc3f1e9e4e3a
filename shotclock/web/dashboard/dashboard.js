/* The floor dashboard: every table's clock, its commands, and a feed of rulings.
 *
 * URL parameters (all optional): lang=nl|en, venue=NAME (default: every venue on the broker),
 * broker=ws://host:port/ (default: this page's own origin, where Mosquitto serves it).
 * The floor credential is asked once per browser tab (kept in sessionStorage, never in the URL).
 * The filters (room, section, search, online/offline/degraded) live in the URL's hash (#room=…&section=…&q=…
 * &show=…), so a reload, a bookmark or a link to a colleague keeps them.
 *
 * Drawing, for 500 tables: each card is made once and updated in place, writing only what changed. A message
 * marks its table's card dirty (link.js onChange(table)); one requestAnimationFrame loop redraws the dirty
 * cards, and each frame only ticks the shown cards whose clock runs (their seconds and bar). A filter hides
 * cards (the hidden attribute) and they are left alone until shown again, when they are redrawn whole before
 * the frame is painted: a page never shows a stale clock.
 *
 * Other modules (seats.js) hook in through Shotclock.dashboard: onCard(fn) runs fn(el, table, now) after a
 * card is drawn from a message (not each frame), redraw(table) asks for a card's redraw, link() the link.
 */
(function () {
  "use strict";
  var S = window.Shotclock;
  var params = new URLSearchParams(location.search);
  var lang = params.get("lang") === "en" ? "en" : (localStorage.getItem("shotclock.lang") || "nl");
  var link = null;
  var cards = {};           // table key → card: {el, key, shown: {…} (what each element shows, to write only
                            // changes), phase, rank, live, degraded, match (search text), hidden}
  var order = [];           // the cards in the order shown
  var dirtyAll = true;      // every card to redraw (a login, the language, the feature table, the connection)
  var dirtyCards = {};      // key → table: cards a message changed since the last frame
  var resort = false, refilter = true;
  var cardHooks = [];       // fn(el, table, now) after a card is drawn (Shotclock.dashboard.onCard)
  var SHOWS = ["online", "offline", "degraded"];  // the counts' filters (#show=…)
  var filters = readFilters();
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

  /** The card's element of class `cls` (looked up once). */
  function part(card, cls) {
    return card.parts[cls] || (card.parts[cls] = card.el.querySelector("." + cls));
  }

  function setText(card, cls, value) {
    if (card.shown[cls] === value) return;
    card.shown[cls] = value;
    part(card, cls).textContent = value;
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
    $("to-report").href = "../report/index.html" + location.search;  // the same venue, broker and language
    $("search").placeholder = t("filter.search");
    $("search").setAttribute("aria-label", t("filter.search"));
    $("room").setAttribute("aria-label", t("filter.rooms"));
    $("section").setAttribute("aria-label", t("filter.sections"));
    for (var k in cards) cards[k].shown = {};  // redraw every card in the new language
    dirtyAll = true;
    refilter = true;  // the room and section lists' "all" words
  }

  // --- login -------------------------------------------------------------------------------------------

  function credentials() {
    try { return JSON.parse(sessionStorage.getItem("shotclock.login")); } catch (e) { return null; }
  }

  /** The login form, or the floor's page; the header's commands and log out only once logged in. */
  function showLoggedIn(loggedIn) {
    $("main").hidden = !loggedIn;
    $("login").hidden = loggedIn;
    ["pause-all", "resume-all", "logout", "filters", "level-form"].forEach(function (id) { $(id).hidden = !loggedIn; });
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
    order = [];
    asked = {};
    $("tables").textContent = "";
    link = new S.Link({
      url: S.brokerUrl(params), username: login.user, password: login.password, venue: params.get("venue"),
      clientPrefix: "dashboard",
      onChange: function (table) {
        if (table) dirtyCards[table.venue + "/" + table.id] = table;
        else dirtyAll = true;
      },
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

  // The tournament level, from each table's next hand: for the room and section the filters show (none: the whole
  // venue), on the venue's command topic; the tables elsewhere drop it, each table there acks on its card. A table
  // chosen in the form gets it alone, on its own command topic.
  (function () {
    var bounds = S.DEVICE_RULES.fields;
    $("level-input").min = bounds.level.min;
    $("level-input").max = bounds.level.max;
    $("hands-input").min = bounds.hands.min;
    $("hands-input").max = bounds.hands.max;
    $("rule-set").maxLength = bounds.rule_set.max;  // a rule set's name: its bound in the table of fields
  })();
  function sendLevel(e) {
    e.preventDefault();
    if (!$("level-form").reportValidity()) return;  // the field table's bounds, said by the browser
    var extra = {level: Number($("level-input").value)};
    if ($("hands-input").value !== "") extra.hands = Number($("hands-input").value);
    var key = $("level-table").value;
    if (key) {
      var card = cards[key];
      if (card && !isAway(card.phase)) link.command(card.table, "level", extra);  // its ack shows on its card
      return;  // never the room instead of the one table chosen
    }
    if (filters.room) extra.room = filters.room;
    if (filters.section) extra.section = filters.section;
    link.commandAll("level", extra);
  }
  $("level-form").addEventListener("submit", sendLevel);  // Enter in a field
  $("level-set").addEventListener("click", sendLevel);
  $("level-table").addEventListener("change", function () { refilter = true; });  // redraws the form's button
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
    var key = table.venue + "/" + table.id;
    el.dataset.key = key;
    el.dataset.table = table.id;
    return {el: el, key: key, table: table, shown: {}, parts: {}, phase: null, rank: -1, name: null, live: false,
            degraded: false, words: "", inScope: true, hidden: false, dirty: true};
  }

  /** Online, but something fails (docs/network.md, "The floor dashboard"): a fault on its screen (no sound, a
   *  stuck button, the log), its link (status `degraded`, state network.fault), a second device with its
   *  identity, or a running clock it no longer confirms (quiet). */
  function isDegraded(table, phase) {
    if (phase === "offline" || phase === "unreachable") return false;
    var s = table.state || {};
    var n = s.network || {};
    return phase === "quiet" || !!table.degraded || !!(s.faults && s.faults.length) || !!n.fault || !!n.clone;
  }

  /** What the order, the filters and the counts take from a table; true when its place in the order moved. */
  function classify(card, now) {
    var table = card.table, s = table.state || {};
    var phase = S.phase(table, now);
    var name = table.name || table.id;
    var moved = card.rank !== S.phaseRank(phase) || card.name !== name;
    card.phase = phase;
    card.rank = S.phaseRank(phase);
    card.name = name;
    card.fresh = !!S.freshRuling(table, now);
    card.live = phase === "running" || phase === "countdown" || card.fresh;
    card.degraded = isDegraded(table, phase);
    // What the search box finds: the table's id and name, and its players' names when it tracks seats.
    var words = [table.id, name, s.player || ""];
    (s.seats || []).forEach(function (seat) { if (seat.player) words.push(seat.player); });
    card.words = (" " + words.join(" ")).toLowerCase().replace(/\s+/g, " ");
    return moved;
  }

  function ackText(p) {
    var cmd = t("cmd." + p.cmd);
    if (!p.ack) return t("ack.waiting", {cmd: cmd});
    if (p.ack.outcome === "timeout") return t("ack.timeout", {cmd: cmd});
    return p.ack.outcome === "done" ? t("ack.ok", {cmd: cmd})
                                    : t("ack.refused", {cmd: cmd, reason: S.reasonText(lang, p.ack)});
  }

  /** Street and extensions; the bet too when no clock runs (a running clock's line says it with the
   *  consequence, as the device's screen does). */
  function infoText(table, now, clockOn) {
    var s = table.state || {};
    var parts = [];
    // Seat tracking: whose clock it runs, then every seat's chips and bank ("S3 2 · 45 s"), folded seats apart.
    if (clockOn && s.seat) parts.push(s.player ? t("seat.named", {seat: s.seat, name: s.player}) : t("seat", {seat: s.seat}));
    var marked = S.markText(lang, s, clockOn ? s.seat : s.turn);  // the floor's mark on the player on turn
    if (marked) parts.push(marked);
    if (s.mode === "shot" && s.street) parts.push(t("street." + s.street));
    if (s.extensions) parts.push(t("extensions", {n: s.extensions}));
    if (!clockOn) parts.push(t(s.facing_bet ? "bet.yes" : "bet.no"));
    (s.seats || []).forEach(function (seat) {
      var bits = ["S" + seat.seat + (seat.player ? " " + seat.player : "") + (seat.all_in ? " (all-in)" : "") +
                  (seat.mark ? " ⚠" : "")];  // a marked player, everywhere on the card
      if (seat.chips !== null && seat.chips !== undefined) bits.push(String(seat.chips));
      var bank = S.bankLeftMs(table, now, seat.seat);  // the seat on the clock's counts down, as on the overlay
      if (bank !== null) bits.push(t("seconds", {s: S.shownSeconds(bank)}));
      if (seat.in_hand || !s.seat) parts.push(bits.join(" "));
    });
    return parts.join(" · ");
  }

  /** The tournament level as the table's screen says it ("Level 11 · hand 7 of 12", core/view.py level_line). */
  function levelText(s) {
    var l = s.level;
    if (!l) return "";
    var parts = [];
    if (l.level !== null) parts.push(t("level", {level: l.level}));
    if (l.hands && l.level !== null) {
      parts.push(t("level.hand", {hand: l.hand, hands: l.hands}));
      if (l.last_hand) parts.push(t("level.last"));
    }
    if (l.next_level !== null) parts.push(t("level.next", {level: l.next_level}));
    else if (l.next_hands !== null) parts.push(t("level.next_hands", {hands: l.next_hands}));
    return parts.join(" · ");
  }

  function drawCard(card, table, now) {
    var s = table.state || {};
    var phase = S.phase(table, now);
    var ms = S.remainingMs(table, now);
    var gone = phase === "offline" || phase === "quiet" || phase === "unreachable";
    var clockOn = ms !== null && !gone;
    ["idle", "running", "countdown", "paused", "interrupted", "quiet", "unreachable", "offline"].forEach(function (p) {
      setClass(card, "phase-" + p, p === phase);
    });
    var tone = S.clockTone(table, now);
    ["calm", "warn", "urgent", "paused"].forEach(function (x) { setClass(card, "tone-" + x, x === tone); });
    setText(card, "name", table.name || table.id);
    setText(card, "phase", t("phase." + phase));
    setText(card, "mode", s.mode ? t("mode." + s.mode) : "");
    setText(card, "version", table.version ? "shotclock " + table.version : "");
    setText(card, "secs", clockOn ? String(S.shownSeconds(ms)) : "–");
    drawRing(card, clockOn ? S.progress(table, now) : 0);
    setText(card, "consequence", clockOn ? S.consequenceText(lang, s) : "");
    setText(card, "level", table.state && !gone ? levelText(s) : "");
    setClass(card, "last-hand", !!(s.level && s.level.last_hand) && !gone);
    // Unreachable: why, in the line the table's details take (they are its last word, not now).
    setText(card, "info", phase === "unreachable" ? t("unreachable.why", {room: table.unreachable})
                          : table.state && !gone ? infoText(table, now, clockOn) : "");
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
    setText(card, "place", [table.room, table.section].filter(Boolean).join(" · "));
    card.dirty = false;
    for (var i = 0; i < cardHooks.length; i++) cardHooks[i](card.el, table, now);
    if (S.seatPanel) S.seatPanel.draw(card.el, table, link, lang, gone);  // seat tracking's controls (seats.js)
  }

  /** The bar under the seconds: a transform (no layout), in quarter percent steps (fewer style writes). */
  function drawRing(card, fraction) {
    var scale = Math.round((fraction || 0) * 400) / 400;
    if (card.shown.ring === scale) return;
    card.shown.ring = scale;
    part(card, "fill").style.transform = "scaleX(" + scale + ")";
  }

  /** A frame of a shown card whose clock runs: its seconds, its bar and its tone; the rest waits for a message. */
  function tickCard(card, now) {
    var table = card.table;
    var ms = S.remainingMs(table, now);
    setText(card, "secs", ms !== null ? String(S.shownSeconds(ms)) : "–");
    drawRing(card, ms !== null ? S.progress(table, now) : 0);
    var tone = S.clockTone(table, now);
    ["calm", "warn", "urgent", "paused", "bank"].forEach(function (x) { setClass(card, "tone-" + x, x === tone); });
    if (S.seatPanel) S.seatPanel.tick(card.el, table, now);  // the bank of the seat on the clock counts down
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

  // --- filters and counts ------------------------------------------------------------------------------

  /** The filters from the URL's hash (#room=…&section=…&q=…&show=online|offline|degraded). */
  function readFilters() {
    var h = new URLSearchParams(location.hash.slice(1));
    return {room: h.get("room") || "", section: h.get("section") || "", q: h.get("q") || "",
            show: SHOWS.indexOf(h.get("show")) >= 0 ? h.get("show") : ""};
  }

  /** Keep the filters in the hash (replaceState: no history entry per keystroke) and apply them. */
  function setFilter(name, value) {
    filters[name] = value;
    var h = new URLSearchParams();
    ["room", "section", "q", "show"].forEach(function (k) { if (filters[k]) h.set(k, filters[k]); });
    history.replaceState(null, "", location.pathname + location.search + (h.toString() ? "#" + h : ""));
    refilter = true;
  }

  /** True when the card passes the room, section and search filters (the counts count these). */
  function inScope(card) {
    var f = filters, table = card.table;
    if (f.room && table.room !== f.room) return false;
    if (f.section && table.section !== f.section) return false;
    // Each word typed starts a word of the table's: "12" finds Tafel 12 and 120, not 112; "ann" finds Anna.
    var terms = f.q.toLowerCase().split(/\s+/);
    for (var i = 0; i < terms.length; i++) if (terms[i] && card.words.indexOf(" " + terms[i]) < 0) return false;
    return true;
  }

  /** Offline, or unreachable behind a dead bridge: counted and filtered as offline (nothing can reach it). */
  function isAway(phase) { return phase === "offline" || phase === "unreachable"; }

  function passesShow(card) {
    var show = filters.show;
    if (show === "online") return !isAway(card.phase);
    if (show === "offline") return isAway(card.phase);
    if (show === "degraded") return card.degraded;
    return true;
  }

  /** Show or hide the card; a card shown again is redrawn whole before this frame is painted. */
  function place(card) {
    card.inScope = inScope(card);
    var hidden = !(card.inScope && passesShow(card));
    if (hidden === card.hidden) return;
    card.hidden = hidden;
    card.el.hidden = hidden;
    if (!hidden) card.dirty = true;
  }

  /** A select's options: "all" first, then `values`; the chosen one stays listed even before a table has it. */
  function fillSelect(select, allText, values, chosen) {
    if (chosen && values.indexOf(chosen) < 0) values = values.concat([chosen]);
    var key = allText + "\n" + values.join("\n");
    if (select.dataset.shown !== key) {
      select.dataset.shown = key;
      select.textContent = "";
      [""].concat(values).forEach(function (v) {
        var o = document.createElement("option");
        o.value = v;
        o.textContent = v || allText;
        select.appendChild(o);
      });
    }
    select.value = chosen;
    select.hidden = values.length === 0;
  }

  function drawFilters() {
    var rooms = {}, sections = {};
    order.forEach(function (card) {
      var tb = card.table;
      if (tb.room) rooms[tb.room] = true;
      if (tb.section && (!filters.room || tb.room === filters.room)) sections[tb.section] = true;
    });
    fillSelect($("room"), t("filter.rooms"), Object.keys(rooms).sort(S.naturalCompare), filters.room);
    fillSelect($("section"), t("filter.sections"), Object.keys(sections).sort(S.naturalCompare), filters.section);
    if ($("search").value !== filters.q) $("search").value = filters.q;
  }

  function drawCounts() {
    var n = {all: 0, online: 0, offline: 0, degraded: 0}, shown = 0, running = 0, paused = 0;
    for (var i = 0; i < order.length; i++) {
      var c = order[i];
      if (c.rank === 0) running++;
      if (c.phase === "paused") paused++;
      if (!c.hidden) shown++;
      if (!c.inScope) continue;
      n.all++;
      n[isAway(c.phase) ? "offline" : "online"]++;
      if (c.degraded) n.degraded++;
    }
    ["all", "online", "offline", "degraded"].forEach(function (k) {
      var b = $("show-" + k);
      var text = t("count." + k, {n: n[k]});
      if (b.textContent !== text) b.textContent = text;
      var on = String(filters.show === (k === "all" ? "" : k));
      if (b.getAttribute("aria-pressed") !== on) b.setAttribute("aria-pressed", on);
    });
    var filtered = filters.room || filters.section || filters.q || filters.show;
    setTextOf("shown", filtered ? t("filter.shown", {n: shown, total: order.length}) : "");
    $("clear-filters").hidden = !filtered;
    $("no-match").hidden = !order.length || shown > 0;
    $("no-tables").hidden = order.length > 0;
    setTextOf("count", order.length ? t("tables.count", {n: order.length, running: running}) : "");
    setTextOf("pause-all", t("all.pause") + (running ? " (" + running + ")" : ""));
    setTextOf("resume-all", t("all.resume") + (paused ? " (" + paused + ")" : ""));
    $("pause-all").disabled = !running || link.connection !== "online";
    var levelCard = cards[$("level-table").value];
    $("level-set").disabled = link.connection !== "online" || !!(levelCard && isAway(levelCard.phase));
    $("resume-all").disabled = !paused || link.connection !== "online";
  }

  /** The level form's tables: those of the filters' room and section (what "all" reaches), by name, and the one
   *  chosen even when the filters moved on. One offline or unreachable is listed with its phase but cannot be
   *  chosen: nothing can reach it. */
  function drawLevelTables() {
    var select = $("level-table"), chosen = select.value, venues = {}, n = 0;
    order.forEach(function (c) { venues[c.table.venue] = true; });
    var several = Object.keys(venues).length > 1;  // the same table id in two venues: say which
    var options = [];
    order.forEach(function (c) {
      var tb = c.table;
      var reached = (!filters.room || tb.room === filters.room) && (!filters.section || tb.section === filters.section);
      if (reached) n++;
      if (!reached && c.key !== chosen) return;
      var away = isAway(c.phase);
      options.push([c.key, (several ? tb.venue + " · " : "") + c.name + (away ? " · " + t("phase." + c.phase) : ""),
                    away]);
    });
    options.unshift(["", t("level.all", {n: n}), false]);
    var key = JSON.stringify(options);  // in the cards' order: sorted by name only when it changed
    if (select.dataset.shown === key) return;
    select.dataset.shown = key;
    select.textContent = "";
    [options[0]].concat(options.slice(1).sort(function (a, b) { return S.naturalCompare(a[1], b[1]); }))
      .forEach(function (o) {
        var option = document.createElement("option");
        option.value = o[0];
        option.textContent = o[1];
        option.disabled = o[2];
        select.appendChild(option);
      });
    select.value = chosen;
    if (select.selectedIndex < 0) select.value = "";  // a new login: no table chosen yet
  }

  /** The header's line about the floor network itself: rooms whose bridge is down, archive members gone. */
  function drawLinks() {
    var rooms = [];
    for (var k in link.bridges) if (!link.bridges[k]) rooms.push(k.split("/")[1]);
    var gone = link.goneMembers();
    var parts = [];
    if (rooms.length) parts.push(t("links.bridges", {rooms: rooms.sort().join(", ")}));
    if (gone.length) parts.push(t("links.members", {members: gone.join(", ")}));
    setTextOf("links", parts.join(" · "));
    $("links").hidden = !parts.length;
  }

  function setTextOf(id, text) {
    var el = $(id);
    if (el.textContent !== text) el.textContent = text;
  }

  $("room").addEventListener("change", function () {
    setFilter("room", this.value);
    setFilter("section", "");  // a section is a part of a room: another room's has another meaning
  });
  $("section").addEventListener("change", function () { setFilter("section", this.value); });
  $("search").addEventListener("input", function () { setFilter("q", this.value.trim()); });
  $("search").addEventListener("keydown", function (e) {
    if (e.key === "Escape" && this.value) {
      this.value = "";
      setFilter("q", "");
    }
  });
  $("counts").addEventListener("click", function (e) {
    var b = e.target.closest("button[data-show]");
    if (b) setFilter("show", filters.show === b.dataset.show ? "" : b.dataset.show);
  });
  $("clear-filters").addEventListener("click", function () {
    ["room", "section", "q", "show"].forEach(function (k) { setFilter(k, ""); });
  });
  window.addEventListener("hashchange", function () {
    filters = readFilters();
    refilter = true;
  });
  // "/" finds a table from anywhere on the page (as on many sites); Escape in the box clears it.
  document.addEventListener("keydown", function (e) {
    var typing = /^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement.tagName);
    if (e.key === "/" && !typing && !$("main").hidden) {
      e.preventDefault();
      $("search").focus();
    }
  });

  // --- the frame loop ------------------------------------------------------------------------------------

  function frame() {
    requestAnimationFrame(frame);
    if (!link) return;
    var now = performance.now();
    var changed = dirtyAll ? link.tables : dirtyCards;
    var any = dirtyAll;
    dirtyAll = false;
    dirtyCards = {};
    for (var key in changed) {
      any = true;
      var table = changed[key];
      var card = cards[key];
      if (!card) {
        card = cards[key] = newCard(table);
        order.push(card);
        resort = refilter = true;
      }
      if (classify(card, now)) resort = true;
      card.dirty = true;
      place(card);
    }
    // A running clock changes phase without a message (to the countdown, or quiet when it is not confirmed), and
    // a fresh ruling grows old.
    for (var i = 0; i < order.length; i++) {
      var c = order[i];
      if (c.live && (S.phase(c.table, now) !== c.phase || (c.fresh && !S.freshRuling(c.table, now)))) {
        if (classify(c, now)) resort = true;
        c.dirty = true;
        place(c);
        any = true;
      }
    }
    // The level form's table list follows the cards, their names, phases and the filters: none of them moved, no list.
    var listMoved = refilter || resort;
    if (refilter) {
      refilter = false;
      drawFilters();
      order.forEach(place);
      any = true;
    }
    if (resort) {
      // Order changes only with a phase or a name: the cards move, none is made again.
      resort = false;
      order.sort(function (a, b) {
        return (a.rank - b.rank) || S.naturalCompare(a.name, b.name) || S.naturalCompare(a.table.venue, b.table.venue);
      });
      var box = $("tables");
      for (var j = 0; j < order.length; j++) {
        if (box.children[j] !== order[j].el) box.insertBefore(order[j].el, box.children[j] || null);
      }
    }
    for (var k = 0; k < order.length; k++) {
      var d = order[k];
      if (d.hidden) continue;  // left as it is: redrawn whole when shown again (place)
      if (d.dirty) drawCard(d, d.table, now);
      else if (d.live) tickCard(d, now);
    }
    if (any) {
      order.forEach(function (card) {
        // The rulings before this page opened: asked once per venue from the collector's archive.
        var venue = card.table.venue;
        if (!asked[venue] && link.connection === "online") {
          asked[venue] = true;
          link.loadRulings(venue);
        }
      });
      var conn = $("conn");
      conn.className = "conn " + link.connection;
      setTextOf("conn", t("conn." + link.connection));
      drawFeed();
      if (listMoved) drawLevelTables();
      drawCounts();
      drawLinks();
    }
  }

  // Hooks for other modules of this page (seats.js): see the top of this file.
  S.dashboard = {
    onCard: function (fn) { cardHooks.push(fn); },
    redraw: function (table) { if (table) dirtyCards[table.venue + "/" + table.id] = table; else dirtyAll = true; },
    link: function () { return link; },
    filters: function () { return filters; },  // the room and section chosen: what the tournament panel acts on
    lang: function () { return lang; }
  };

  translateStatic();
  var login = credentials();
  if (login) start(login); else showLogin("");
  requestAnimationFrame(frame);
})();
