/* The dashboard's seat controls (seat tracking, `seats.track`; issue 19): per table, every seat's player, chips
 * and time bank, and the floor's seat commands (docs/network.md "command"): seat a player, name them, empty a
 * seat, set the button, move a player to another table with their chips, bank and mark, top up everyone, mark a
 * player (a warning, or their own clock on every decision: TDA 2024 Rules 70 and 71) or take the mark off.
 *
 * A table that tracks seats gets a folded "Seats" panel on its card (a <details>: closed, only its summary is
 * drawn, so a floor of hundreds of tables pays nothing for it). Commands go through the page's link like the
 * card's own; the device's ack (done, or ignored/refused with its reason) shows on the card's ack line and in
 * the panel. The dashboard calls Shotclock.seatPanel.draw(cardEl, table, link, lang) each time it redraws a card from a message.
 */
(function (root) {
  "use strict";
  var S = root.Shotclock;
  var FIELDS = S.DEVICE_RULES.fields;  // each field's bounds, from the device's table of fields (core/fields.py)

  S.addPageTexts({
    nl: {
      "cmd.seat": "Plaats", "cmd.rename": "Naam", "cmd.empty": "Leeg", "cmd.button": "Button",
      "cmd.top_up": "Aanvullen",
      "seats.title": "Stoelen", "seats.summary": "{n} spelers · button {button} · aan de beurt {turn}",
      "seats.seat": "Stoel", "seats.player": "Speler", "seats.chips": "Chips", "seats.bank": "Bank (s)",
      "seats.rename": "Naam", "seats.button": "Button", "seats.empty": "Leeg", "seats.move": "Verplaats…",
      "seats.add": "Plaats speler", "seats.topup": "Iedereen aanvullen", "seats.more_chips": "+ chips",
      "seats.more_seconds": "+ seconden", "seats.to_table": "naar tafel", "seats.to_seat": "stoel",
      "seats.move_go": "Verplaats", "seats.cancel": "Terug", "seats.moving": "{name}: van tafel {from} naar {to}…",
      "seats.moved": "✓ {name} zit nu aan tafel {to}, stoel {seat}",
      "seats.move_refused": "✗ {name} niet geplaatst aan tafel {to}: {reason}; terug op stoel {seat} hier",
      "seats.taken": "stoel {seat} aan tafel {table} is bezet", "seats.on_clock": "op de klok",
      "seats.to_act": "aan de beurt", "seats.folded": "gepast",
      "cmd.mark": "Markeer", "cmd.unmark": "Markering eraf", "seats.mark": "Markeer", "seats.unmark": "Eraf",
      "seats.mark_kind.warning": "waarschuwing", "seats.mark_kind.clock": "eigen klok",
      "seats.mark_seconds": "klok (s)", "seats.warning": "⚠ waarschuwing", "seats.own_clock": "⚠ eigen klok {s} s"
    },
    en: {
      "cmd.seat": "Seat", "cmd.rename": "Name", "cmd.empty": "Empty", "cmd.button": "Button",
      "cmd.top_up": "Top up",
      "seats.title": "Seats", "seats.summary": "{n} players · button {button} · to act {turn}",
      "seats.seat": "Seat", "seats.player": "Player", "seats.chips": "Chips", "seats.bank": "Bank (s)",
      "seats.rename": "Name", "seats.button": "Button", "seats.empty": "Empty", "seats.move": "Move…",
      "seats.add": "Seat player", "seats.topup": "Top up everyone", "seats.more_chips": "+ chips",
      "seats.more_seconds": "+ seconds", "seats.to_table": "to table", "seats.to_seat": "seat",
      "seats.move_go": "Move", "seats.cancel": "Back", "seats.moving": "{name}: from table {from} to {to}…",
      "seats.moved": "✓ {name} now sits at table {to}, seat {seat}",
      "seats.move_refused": "✗ {name} not seated at table {to}: {reason}; back in seat {seat} here",
      "seats.taken": "seat {seat} at table {table} is taken", "seats.on_clock": "on the clock",
      "seats.to_act": "to act", "seats.folded": "folded",
      "cmd.mark": "Mark", "cmd.unmark": "Unmark", "seats.mark": "Mark", "seats.unmark": "Unmark",
      "seats.mark_kind.warning": "warning", "seats.mark_kind.clock": "own clock",
      "seats.mark_seconds": "clock (s)", "seats.warning": "⚠ warning", "seats.own_clock": "⚠ own clock {s} s"
    }
  });

  var moves = [];  // table moves under way: {from, to, seat, toSeat, name, step: "empty"|"seat"|"back", p, panel}
  var mover = null;  // the timer that takes them a step further (whether or not their cards are drawn)

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  /** A number field of a seat command, bounded as the device bounds it (``field``: its key in FIELDS). */
  function numberInput(name, field, placeholder) {
    var i = el("input");
    i.type = "number";
    i.name = name;
    i.min = FIELDS[field].min;
    i.max = FIELDS[field].max;
    i.step = FIELDS[field].kind === "seconds" ? "any" : 1;
    i.placeholder = placeholder || "";
    if (placeholder) i.setAttribute("aria-label", placeholder);
    return i;
  }

  function button(action, text) {
    var b = el("button", "seat-btn act-" + action, text);
    b.type = "button";
    b.dataset.seatAction = action;  // never data-cmd: the card's own click handler leaves these alone
    return b;
  }

  /** The panel's skeleton, made once per card: rows, the seat form, the top-up form, the move form. */
  function build(cardEl, lang) {
    var t = function (k, v) { return S.t(lang, k, v); };
    var d = el("details", "seat-panel");
    d.appendChild(el("summary"));
    var rows = el("table", "seat-rows");
    d.appendChild(rows);
    var add = el("form", "seat-add");
    add.append(numberInput("seat", "seat", t("seats.seat")), el("input"), numberInput("chips", "chips", t("seats.chips")),
               numberInput("bank", "bank", t("seats.bank")), button("add", t("seats.add")));
    add.children[1].name = "player";
    add.children[1].placeholder = t("seats.player");
    add.children[1].setAttribute("aria-label", t("seats.player"));
    var top = el("form", "seat-topup");
    top.append(numberInput("chips", "chips", t("seats.more_chips")),
               numberInput("seconds", "seconds", t("seats.more_seconds")), button("top_up", t("seats.topup")));
    var marking = el("form", "seat-markform");  // the floor's mark: a warning or the player's own clock
    var kind = el("select");
    kind.name = "mark";
    kind.setAttribute("aria-label", t("seats.mark"));
    FIELDS.mark.choices.forEach(function (c) {
      var o = el("option", "", t("seats.mark_kind." + c));
      o.value = c;
      kind.appendChild(o);
    });
    marking.append(numberInput("seat", "seat", t("seats.seat")), kind,
                   numberInput("mark_seconds", "mark_seconds", t("seats.mark_seconds")),
                   button("mark", t("seats.mark")), button("unmark", t("seats.unmark")));
    var move = el("form", "seat-move");
    move.hidden = true;
    var label = el("span", "seat-move-who");
    var select = el("select");
    select.name = "table";
    move.append(label, el("span", "", t("seats.to_table")), select, el("span", "", t("seats.to_seat")),
                numberInput("seat", "seat"), button("move_go", t("seats.move_go")), button("move_back", t("seats.cancel")));
    d.append(add, top, marking, move, el("p", "seat-note"));
    d.querySelector(".seat-note").setAttribute("role", "status");
    var anchor = cardEl.querySelector(".cmds");
    cardEl.insertBefore(d, anchor);
    return {details: d, lang: lang, shown: "", shownSummary: ""};
  }

  /** A seat's bank as the row shows it: the seat on the clock's counting down (lib/clock.js bankLeftMs). */
  function bankText(table, now, seat, lang) {
    var bank = S.bankLeftMs(table, now, seat);
    return bank === null ? "" : S.t(lang, "seconds", {s: S.shownSeconds(bank)});
  }

  /** The floor's mark on a seat's player, in words ("" when none). */
  function markText(seat, lang) {
    if (seat.mark === "warning") return S.t(lang, "seats.warning");
    if (seat.mark === "clock") return S.t(lang, "seats.own_clock", {s: seat.mark_seconds});
    return "";
  }

  function seatRow(seat, s, lang, table, now) {
    var t = function (k, v) { return S.t(lang, k, v); };
    var tr = el("tr");
    tr.dataset.seat = seat.seat;
    // The marks are glyphs Debian's fonts-dejavu-core has (chromium on a Pi draws ⏱ as an empty box).
    var marks = (s.button === seat.seat ? "D " : "") + (s.seat === seat.seat ? "◷ " : s.turn === seat.seat ? "▶ " : "");
    tr.appendChild(el("th", "", marks + "S" + seat.seat));
    var name = el("input");
    name.name = "player";
    name.value = seat.player || "";
    name.placeholder = t("seats.player");
    name.setAttribute("aria-label", t("seats.player") + " S" + seat.seat);
    tr.appendChild(el("td")).appendChild(name);
    var state = seat.all_in ? "all-in" : !seat.in_hand && s.seats.some(function (x) { return x.in_hand; })
      ? t("seats.folded") : "";  // between hands nobody is in one: no mark
    tr.appendChild(el("td", "seat-chips", seat.chips === null || seat.chips === undefined ? "" : String(seat.chips)));
    tr.appendChild(el("td", "seat-bank", bankText(table, now, seat.seat, lang)));
    tr.appendChild(el("td", "seat-mark", state));
    tr.appendChild(el("td", "seat-flag", markText(seat, lang)));
    var acts = el("td", "seat-acts");
    acts.append(button("rename", t("seats.rename")), button("button", t("seats.button")),
                button("empty", t("seats.empty")), button("move", t("seats.move")));
    tr.appendChild(acts);
    return tr;
  }

  /** Redraw the rows when the seats changed (never while the floor is typing a name in one of them). */
  function drawRows(panel, s, lang) {
    var key = JSON.stringify([s.seats, s.button, s.turn, s.seat, lang]);
    if (panel.shown === key) return;
    var rows = panel.details.querySelector(".seat-rows");
    var focus = document.activeElement;
    if (focus && focus.tagName === "INPUT" && rows.contains(focus)) return;  // a name being typed
    panel.shown = key;
    rows.textContent = "";
    var head = rows.insertRow();
    ["seats.seat", "seats.player", "seats.chips", "seats.bank", "", "", ""].forEach(function (k) {
      head.appendChild(el("th", "", k ? S.t(lang, k) : ""));
    });
    var now = performance.now();
    s.seats.forEach(function (seat) { rows.appendChild(seatRow(seat, s, lang, panel.table, now)); });
    if (panel.away) rows.querySelectorAll("button, input").forEach(function (c) { c.disabled = true; });
  }

  function note(panel, text, bad) {
    var p = panel.details.querySelector(".seat-note");
    p.textContent = text;
    p.classList.toggle("bad", !!bad);
  }

  function value(form, name) {
    var v = form.querySelector("[name=" + name + "]").value.trim();
    return v === "" ? null : v;
  }

  function optionsFor(select, link, table) {
    var others = link.list().filter(function (tb) {
      return tb !== table && tb.venue === table.venue && tb.state && tb.state.seats;
    });
    var key = others.map(function (tb) { return tb.id; }).join(",");
    if (select.dataset.shown === key) return;
    select.dataset.shown = key;
    var chosen = select.value;
    select.textContent = "";
    others.forEach(function (tb) {
      var o = el("option", "", tb.name || tb.id);
      o.value = tb.id;
      select.appendChild(o);
    });
    if (chosen) select.value = chosen;
  }

  /** A click inside a panel: one floor command, or the start of a table move. */
  function onClick(e, panel, cardEl) {
    var b = e.target.closest("button[data-seat-action]");
    var link = root.shotclockLink;
    if (!b || !link) return;
    e.stopPropagation();
    var table = link.tables[cardEl.dataset.key];
    var action = b.dataset.seatAction;
    var tr = b.closest("tr");
    var seat = tr ? Number(tr.dataset.seat) : null;
    var t = function (k, v) { return S.t(panel.lang, k, v); };
    var form;
    note(panel, "");
    if (action === "rename") {
      link.command(table, "rename", {seat: seat, player: tr.querySelector("[name=player]").value.trim()});
    } else if (action === "button" || action === "empty") {
      link.command(table, action, {seat: seat});
    } else if (action === "add") {
      form = b.closest("form");
      var extra = {seat: Number(value(form, "seat"))};
      var name = value(form, "player"), chips = value(form, "chips"), bank = value(form, "bank");
      if (name !== null) extra.player = name;
      if (chips !== null) extra.chips = Number(chips);
      if (bank !== null) extra.bank = Number(bank);
      link.command(table, "seat", extra);
    } else if (action === "mark" || action === "unmark") {
      form = b.closest("form");
      var marked = {seat: Number(value(form, "seat"))};
      if (action === "mark") {
        marked.mark = form.querySelector("[name=mark]").value;
        if (marked.mark === "clock" && value(form, "mark_seconds") !== null) {
          marked.mark_seconds = Number(value(form, "mark_seconds"));
        }
      }
      link.command(table, action, marked);  // the device says why not (no seat tracking, no seconds…)
    } else if (action === "top_up") {
      form = b.closest("form");
      var more = {};
      if (value(form, "chips") !== null) more.chips = Number(value(form, "chips"));
      if (value(form, "seconds") !== null) more.seconds = Number(value(form, "seconds"));
      link.command(table, "top_up", more);
    } else if (action === "move") {
      form = panel.details.querySelector(".seat-move");
      form.hidden = false;
      form.dataset.seat = seat;
      var player = (table.state.seats.filter(function (x) { return x.seat === seat; })[0] || {}).player;
      form.querySelector(".seat-move-who").textContent = "S" + seat + (player ? " " + player : "");
      optionsFor(form.querySelector("select"), link, table);
    } else if (action === "move_back") {
      b.closest("form").hidden = true;
    } else if (action === "move_go") {
      form = b.closest("form");
      startMove(panel, link, table, Number(form.dataset.seat), form.querySelector("select").value,
                Number(value(form, "seat")), t);
      form.hidden = true;
    }
  }

  /** A table move: empty the seat here (its ack names the bank and chips the player leaves with), then seat
   *  them at the other table with those; if that table refuses, seat them back here as they were. The other
   *  table's seat is checked against its last state first, so a taken seat costs no round trip. */
  function startMove(panel, link, table, seat, toId, toSeat, t) {
    var to = link.tables[table.venue + "/" + toId];
    var player = ((table.state.seats || []).filter(function (x) { return x.seat === seat; })[0] || {}).player;
    if (!to) return;
    // A named player holds it (an unnamed one is the seat a table starts with: the moved player becomes them).
    var taken = (to.state && to.state.seats || []).some(function (x) { return x.seat === toSeat && x.player; });
    if (taken) {
      note(panel, t("seats.taken", {seat: toSeat, table: to.name || to.id}), true);
      return;
    }
    var move = {from: table, to: to, seat: seat, toSeat: toSeat, name: player || "S" + seat, step: "empty",
                panel: panel, t: t};
    move.p = link.command(table, "empty", {seat: seat});
    moves.push(move);
    if (!mover) mover = setInterval(function () { stepMoves(link); }, 100);
    note(panel, t("seats.moving", {name: move.name, from: table.name || table.id, to: to.name || to.id}));
  }

  function leftWith(ack) {
    var o = (ack.outputs || []).filter(function (x) { return x.type === "seat" && x.change === "emptied"; })[0] || {};
    var out = {};
    if (o.name) out.player = o.name;
    if (o.bank !== null && o.bank !== undefined) out.bank = o.bank;
    if (o.chips !== null && o.chips !== undefined) out.chips = o.chips;
    if (o.mark) out.mark = o.mark;  // the floor's mark follows the player to the new table
    if (o.mark_seconds !== null && o.mark_seconds !== undefined) out.mark_seconds = o.mark_seconds;
    return out;
  }

  /** Take each move a step further once its last command has its ack. */
  function stepMoves(link) {
    moves = moves.filter(function (m) {
      var ack = m.p.ack;
      if (!ack) return true;
      var t = m.t, toName = m.to.name || m.to.id;
      if (ack.outcome !== "done") {
        var reason = S.reasonText(m.panel.lang, ack);  // in the page's language (lib/texts.js)
        if (m.step === "seat") {
          note(m.panel, t("seats.move_refused", {name: m.name, to: toName, reason: reason, seat: m.seat}), true);
          m.p = link.command(m.from, "seat", Object.assign({seat: m.seat}, m.carried));
          m.step = "back";
          return true;
        }
        note(m.panel, "✗ " + reason, true);
        return false;
      }
      if (m.step === "empty") {
        m.carried = leftWith(ack);
        m.p = link.command(m.to, "seat", Object.assign({seat: m.toSeat}, m.carried));
        m.step = "seat";
        return true;
      }
      if (m.step === "seat") note(m.panel, t("seats.moved", {name: m.name, to: toName, seat: m.toSeat}));
      return false;
    });
    if (!moves.length && mover) {
      clearInterval(mover);
      mover = null;
    }
  }

  /** The hook: draw `table`'s seat panel on its card (none when the table tracks no seats). */
  function draw(cardEl, table, link, lang, gone) {
    var s = table.state;
    var panel = cardEl._seatPanel;
    if (!s || !s.seats) {
      if (panel) panel.details.hidden = true;
      return;
    }
    if (!panel || panel.lang !== lang) {
      var wasOpen = !!panel && panel.details.open;  // a language settled after the floor opened it: it stays open
      if (panel) panel.details.remove();
      panel = cardEl._seatPanel = build(cardEl, lang);
      panel.details.open = wasOpen;
      panel.details.addEventListener("click", function (e) { onClick(e, panel, cardEl); });
      panel.details.addEventListener("submit", function (e) { e.preventDefault(); });
      // The dashboard redraws a card only when a message changes it: opening the panel draws its rows now.
      panel.details.addEventListener("toggle", function () {
        var st = panel.table.state;
        if (panel.details.open && st && st.seats) drawRows(panel, st, panel.lang);
      });
    }
    panel.table = table;
    panel.details.hidden = false;
    // A table nothing can reach (offline, unreachable behind a dead bridge, not confirmed): its seats are its last
    // word, shown as such, and no seat command goes to it.
    var away = !!gone;
    if (panel.away !== away) {
      panel.away = away;
      panel.details.classList.toggle("away", away);
      panel.details.querySelectorAll("button, input, select").forEach(function (c) { c.disabled = away; });
    }
    var summary = S.t(lang, "seats.title") + " · " + (away ? S.t(lang, "phase." + S.phase(table, performance.now())) +
                                                          " · " : "") +
      S.t(lang, "seats.summary",
      {n: s.seats.length, button: s.button === null ? "–" : s.button, turn: s.turn === null ? "–" : s.turn});
    if (panel.shownSummary !== summary) {
      panel.shownSummary = summary;
      panel.details.querySelector("summary").textContent = summary;
    }
    if (panel.details.open) drawRows(panel, s, lang);
  }

  /** Each frame of a running clock: the bank cell of the seat on the clock, counting down. */
  function tick(cardEl, table, now) {
    var panel = cardEl._seatPanel, s = table.state;
    if (!panel || !panel.details.open || !s || !s.seat || panel.table !== table) return;
    var cell = panel.details.querySelector('tr[data-seat="' + s.seat + '"] .seat-bank');
    var text = bankText(table, now, s.seat, panel.lang);
    if (cell && cell.textContent !== text) cell.textContent = text;
  }

  S.seatPanel = {draw: draw, tick: tick};
})(window);
