/* What the pages say, in Dutch (the table language, the default) and English. The device's own
 * words (rulings, streets, "Bij 0: …") come from device-texts.js, generated from core/texts.py, so
 * the floor and the stream read exactly what the table's screen says. Needs tones.js. */
(function (root) {
  "use strict";
  var S = root.Shotclock;
  var PAGE_TEXTS = {
    nl: {
      "title": "Floor",
      "login.user": "Gebruiker",
      "login.password": "Wachtwoord",
      "login.go": "Inloggen",
      "login.out": "Uitloggen",
      "report.open": "Traag spel",
      "login.help": "Log in met de floor-gegevens om klokken te bedienen.",
      "conn.online": "verbonden",
      "conn.connecting": "verbinden…",
      "conn.offline": "geen verbinding",
      "conn.refused": "geweigerd: gebruiker of wachtwoord klopt niet",
      "overlay.refused": "Overlay geweigerd: gebruiker of wachtwoord klopt niet (password=… in het adres)",
      "overlay.unreachable": "Overlay: geen verbinding met {url}",
      "overlay.table": "Overlay: geen tafel '{table}' op het netwerk (tafels: {known})",
      "overlay.room_down": "Overlay: {table} onbereikbaar: zaal {room} niet verbonden",
      "overlay.param": "Overlay: {name}={value} klopt niet (verwacht: {expected}); nu: {used}",
      "overlay.unknown": "Overlay: onbekende parameter '{name}' (bekend: {known})",
      "overlay.no_feature": "Overlay: nog geen feature-tafel: kies er een op het dashboard (☆) of zet &table=ID in het adres",
      "overlay.delay": "Overlay: delay={value} klopt niet (verwacht: seconden, 0 – {max}); de overlay toont niets",
      "overlay.building": "Vertraging wordt opgebouwd: nog {left}",
      "overlay.history_asking": "Vertraging: de laatste {span} uit het archief halen…",
      "overlay.history_partial": "Vertraging: het archief had de laatste {had}",
      "overlay.history_failed": "Vertraging: niets uit het archief ({reason}); de overlay bouwt haar zelf op",
      "overlay.no_venue": "geen venue gehoord: zet &venue=NAAM in het adres",
      "phase.idle": "klaar",
      "phase.running": "loopt",
      "phase.countdown": "aftellen",
      "phase.paused": "gepauzeerd",
      "phase.interrupted": "onderbroken",
      "phase.offline": "offline",
      "phase.quiet": "geen bericht",
      "phase.unreachable": "onbereikbaar",
      "unreachable.why": "zaal {room} niet verbonden",
      "links.bridges": "zaal niet verbonden: {rooms}",
      "links.members": "archief: {members} weg",
      "cmd.call": "Klok",
      "cmd.pause": "Pauze",
      "cmd.resume": "Hervat",
      "cmd.cancel": "Annuleer",
      "cmd.start": "Start",
      "cmd.stop": "Stop",
      "cmd.extend": "Extensie",
      "confirm": "{cmd}? Tik nogmaals",
      "all.pause": "Alles pauzeren",
      "cmd.level": "Niveau",
      "level.input": "Niveau",
      "level.hands": "Handen/niveau",
      "level.set": "Vanaf volgende hand",
      "level.table": "Tafel",
      "level.all": "alle {n}",
      "all.resume": "Alles hervatten",
      "ack.waiting": "{cmd}…",
      "ack.ok": "✓ {cmd}",
      "ack.refused": "✗ {cmd}: {reason}",
      "ack.timeout": "✗ {cmd}: geen antwoord van de tafel",
      "last": "Laatste: {ruling}",
      "feed": "Beslissingen",
      "feed.empty": "Nog geen beslissingen sinds deze pagina open is.",
      "feed.timeline": "tijdlijn",
      "timeline.loading": "Uit het archief halen…",
      "timeline.none": "Het archief gaf geen tijdlijn ({reason}). Draait 'shotclock floor collect'?",
      "timeline.cli": "Ook: shotclock log --collected ARCHIEF --table {table} show {number}",
      "feature": "Op de stream",
      "feature.set": "Naar de stream",
      "tables.none": "Nog geen tafels: wachten op hun status…",
      "tables.count": "{n} tafels · {running} lopen",
      "filter.rooms": "Alle zalen",
      "filter.sections": "Alle secties",
      "filter.search": "Zoek tafel of speler",
      "filter.clear": "Wis filters",
      "filter.none": "Geen tafel past bij deze filters.",
      "filter.shown": "{n} van {total} getoond",
      "count.all": "Alle {n}",
      "count.online": "Online {n}",
      "count.offline": "Offline {n}",
      "count.degraded": "Storing {n}",
      "offline.since": "offline",
      "language": "English"
    },
    en: {
      "title": "Floor",
      "login.user": "User",
      "login.password": "Password",
      "login.go": "Log in",
      "login.out": "Log out",
      "report.open": "Slow play",
      "login.help": "Log in with the floor credential to run the clocks.",
      "conn.online": "connected",
      "conn.connecting": "connecting…",
      "conn.offline": "no connection",
      "conn.refused": "refused: wrong user or password",
      "overlay.refused": "Overlay refused: wrong user or password (password=… in the address)",
      "overlay.unreachable": "Overlay: cannot reach {url}",
      "overlay.table": "Overlay: no table '{table}' on the network (tables: {known})",
      "overlay.room_down": "Overlay: {table} unreachable: room {room} not connected",
      "overlay.param": "Overlay: {name}={value} is not valid (expected: {expected}); using {used}",
      "overlay.unknown": "Overlay: unknown parameter '{name}' (known: {known})",
      "overlay.no_feature": "Overlay: no feature table yet: pick one on the dashboard (☆) or add &table=ID to the address",
      "overlay.delay": "Overlay: delay={value} is not valid (expected: seconds, 0 – {max}); the overlay shows nothing",
      "overlay.building": "Building delay, {left} to go",
      "overlay.history_asking": "Delay: fetching the last {span} from the archive…",
      "overlay.history_partial": "Delay: the archive had the last {had}",
      "overlay.history_failed": "Delay: nothing from the archive ({reason}); the overlay builds it itself",
      "overlay.no_venue": "no venue heard: add &venue=NAME to the address",
      "phase.idle": "ready",
      "phase.running": "running",
      "phase.countdown": "countdown",
      "phase.paused": "paused",
      "phase.interrupted": "interrupted",
      "phase.offline": "offline",
      "phase.quiet": "not confirmed",
      "phase.unreachable": "unreachable",
      "unreachable.why": "room {room} not connected",
      "links.bridges": "room not connected: {rooms}",
      "links.members": "archive: {members} gone",
      "cmd.call": "Clock",
      "cmd.pause": "Pause",
      "cmd.resume": "Resume",
      "cmd.cancel": "Cancel",
      "cmd.start": "Start",
      "cmd.stop": "Stop",
      "cmd.extend": "Extend",
      "confirm": "{cmd}? Tap again",
      "all.pause": "Pause all",
      "cmd.level": "Level",
      "level.input": "Level",
      "level.hands": "Hands/level",
      "level.set": "From the next hand",
      "level.table": "Table",
      "level.all": "all {n}",
      "all.resume": "Resume all",
      "ack.waiting": "{cmd}…",
      "ack.ok": "✓ {cmd}",
      "ack.refused": "✗ {cmd}: {reason}",
      "ack.timeout": "✗ {cmd}: no answer from the table",
      "last": "Last: {ruling}",
      "feed": "Rulings",
      "feed.empty": "No rulings yet since this page opened.",
      "feed.timeline": "timeline",
      "timeline.loading": "Fetching from the archive…",
      "timeline.none": "The archive gave no timeline ({reason}). Is 'shotclock floor collect' running?",
      "timeline.cli": "Also: shotclock log --collected ARCHIVE --table {table} show {number}",
      "feature": "On stream",
      "feature.set": "To stream",
      "tables.none": "No tables yet: waiting for their status…",
      "tables.count": "{n} tables · {running} running",
      "filter.rooms": "All rooms",
      "filter.sections": "All sections",
      "filter.search": "Find a table or player",
      "filter.clear": "Clear filters",
      "filter.none": "No table matches these filters.",
      "filter.shown": "{n} of {total} shown",
      "count.all": "All {n}",
      "count.online": "Online {n}",
      "count.offline": "Offline {n}",
      "count.degraded": "Degraded {n}",
      "offline.since": "offline",
      "language": "Nederlands"
    }
  };

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (m, k) { return values && k in values ? values[k] : m; });
  }

  /** The text for `key` in `lang` (page texts first, then the device's), with {values} filled in. */
  function t(lang, key, values) {
    var l = PAGE_TEXTS[lang] ? lang : "nl";
    var template = PAGE_TEXTS[l][key];
    if (template === undefined) template = (S.DEVICE_TEXTS[l] || {})[key];
    return template === undefined ? key : fill(template, values);
  }

  /** x with one decimal, rounded as Python's format() rounds: toFixed already rounds the exact binary value,
   *  but breaks an exact tie (only a multiple of 1/4 can be one, e.g. 3.25) upwards, Python to even. */
  function fixed1(x) {
    if (x * 4 === Math.round(x * 4) && (x * 20) % 2 === 1) {
      var down = Math.floor(x * 10);
      return ((down % 2 === 0 ? down : down + 1) / 10).toFixed(1);
    }
    return x.toFixed(1);
  }

  /** A time as the device writes it: "12,3 s" in Dutch, "12.3 s" in English (core/texts.py seconds()). */
  function seconds(lang, value) {
    var shown = fixed1(Number(value));
    return t(lang, "seconds", {s: lang === "nl" ? shown.replace(".", ",") : shown});
  }

  /** A ruling's big words, detail and tone, as the device shows them (core/view.py _ruling_words; the
   *  tone from device-rules.js through tones.js). */
  function rulingWords(lang, r) {
    var tone = S.rulingTone(r.outcome);
    if (r.outcome === "acted") {
      return r.at_zero ? [t(lang, "ruling.at_zero"), t(lang, "ruling.at_zero.detail"), tone]
                       : [t(lang, "ruling.acted"), t(lang, "ruling.acted.detail", {left: seconds(lang, r.remaining)}),
                          tone];
    }
    return [t(lang, "ruling." + r.outcome), t(lang, "ruling." + r.outcome + ".detail"), tone];
  }

  /** The bet and what happens at 0, as the device's screen says it ("Tegen inzet · bij 0: HAND DOOD"). */
  function consequenceText(lang, state) {
    return t(lang, "at_zero", {bet: t(lang, state.facing_bet ? "bet.yes" : "bet.no"),
                               ruling: t(lang, "ruling." + S.consequence(state))});
  }

  /** A state message's faults in the device's words (core/view.py _fault_text). Each is a typed object
   *  (core/faults.py to_dict, docs/network.md "state"): {kind: "stuck", button, since},
   *  {kind: "no_sound", detail}, {kind: "log", problem, detail},
   *  {kind: "firstboot", detail}; a kind this page does not know is
   *  shown as it came. */
  function faultTexts(lang, faults) {
    return (faults || []).map(function (f) {
      if (f.kind === "stuck") return t(lang, "fault.stuck", {button: t(lang, "button." + f.button)});
      if (f.kind === "no_sound") return t(lang, "fault.no_sound");
      if (f.kind === "log") return t(lang, "fault.log." + f.problem);
      if (f.kind === "firstboot") return t(lang, "fault.firstboot");
      return String(f.kind) + (f.detail ? ": " + f.detail : "");
    });
  }

  /** A time since the clock started, to the millisecond: "+12.300 s", "0.000 s" (never "-0.000"), and
   *  "−0.002 s" for the input that started the clock, timestamped at its pin edge just before. */
  function offsetText(seconds) {
    var ms = Math.round(seconds * 1000);
    if (ms === 0) return "0.000 s";
    return (ms > 0 ? "+" : "\u2212") + (Math.abs(ms) / 1000).toFixed(3) + " s";
  }

  /** A record's field as the timeline shows it: a number to the millisecond, as the offsets ("remaining
   *  9.99982005…" as 10, 2.5 as 2.5), anything else as JSON. */
  function fieldText(v) {
    if (typeof v === "number" && isFinite(v)) return String(Math.round(v * 1000) / 1000);
    return JSON.stringify(v);
  }

  /** An archived clock's records as the timeline's rows: [utc time, offset from the start, type, fields]
   *  (fields with no value, such as a clock mode's street null, are left out). */
  function timelineRows(records) {
    var start = records.filter(function (r) { return r.record.type === "start"; })[0] || records[0];
    var t0 = start ? start.record.t : 0;
    return records.map(function (r) {
      var rec = r.record, rest = [];
      for (var k in rec) {
        if (k !== "t" && k !== "type" && rec[k] !== null && rec[k] !== undefined) {
          rest.push(k + " " + fieldText(rec[k]));
        }
      }
      return [(r.utc || "").slice(11, 23), offsetText(rec.t - t0), rec.type, rest.join(", ")];
    });
  }

  /** Why a table refused a command, in the page's language: the ack's `code` and `params` through the device's
   *  own templates (reason.<code> in core/texts.py, through device-texts.js); else its reason as the table wrote
   *  it (an older device, a reason with no template), else its outcome. */
  function reasonText(lang, ack) {
    var key = "reason." + ack.code, texts = S.DEVICE_TEXTS[PAGE_TEXTS[lang] ? lang : "nl"] || {};
    if (ack.code && texts[key] !== undefined) return t(lang, key, ack.params || {});
    return ack.reason || ack.outcome;
  }

  /** The floor's mark on a player in the device's own words ("WAARSCHUWING", "EIGEN KLOK 10 s"; core/view.py),
   *  or "": seat `seat`'s, else the seat on the clock's, else the seat on turn's (who the dealer must know). */
  function markText(lang, state, seat) {
    var s = state || {};
    var at = seat !== undefined ? seat : s.seat || s.turn;
    var entry = (s.seats || []).filter(function (x) { return x.seat === at; })[0];
    if (!entry || !entry.mark) return "";
    if (entry.mark === "clock") return t(lang, "mark.clock", {s: t(lang, "seconds", {s: entry.mark_seconds})});
    return t(lang, "mark.warning");
  }

  /** More page texts ({nl: {key: text}, en: {…}}), for a page's own module (the dashboard's seats.js). */
  S.addPageTexts = function (texts) {
    for (var l in texts) for (var k in texts[l]) PAGE_TEXTS[l][k] = texts[l][k];
  };
  S.LANGUAGES = ["nl", "en"];
  S.timelineRows = timelineRows;
  S.reasonText = reasonText;
  S.markText = markText;
  S.faultTexts = faultTexts;
  S.consequenceText = consequenceText;
  S.t = t;
  S.seconds = seconds;
  S.rulingWords = rulingWords;
})(this);
