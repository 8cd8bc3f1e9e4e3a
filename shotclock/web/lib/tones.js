/* The device's tones on the pages: which tone a ruling or a clock takes, and the colours, all from
 * device-rules.js (generated from core/tones.py and core/view.py by 'python -m shotclock.web'), so the
 * table's screen, the floor's dashboard and the stream cannot disagree. Needs clock.js.
 */
(function (root) {
  "use strict";
  var S = root.Shotclock;
  var R = S.DEVICE_RULES;

  /** The tone a ruling is shown in (core/tones.py ruling_tone): good, dead, check or neutral. */
  function rulingTone(outcome) {
    return R.ruling_tones[outcome] || "neutral";
  }

  /** The tone of a clock before its countdown, from the fraction left (core/tones.py running_tone). */
  function runningTone(fraction) {
    return fraction > R.warn_below ? "calm" : "warn";
  }

  /** The tone the device's screen has for this table's clock now (core/view.py): calm or warn while it
   *  runs, bank once the player's own time bank runs, urgent in the countdown, paused (also when
   *  interrupted); null without a clock. */
  function clockTone(table, now) {
    var p = S.phase(table, now);
    if (p === "countdown") return "urgent";
    if (p === "paused" || p === "interrupted") return "paused";
    if (p === "running") return S.bankRuns(table, now) ? "bank" : runningTone(S.progress(table, now));
    return null;
  }

  /** Every tone's colours as CSS custom properties on `el` (the page's root element): --NAME is the
   *  tone's accent (its colour as a mark on a dark page), --NAME-bg, --NAME-ring and --NAME-ink its
   *  screen's background, ring and words. The pages' stylesheets take tone colours only from these. */
  function paintTones(el) {
    for (var name in R.tones) {
      var c = R.tones[name];
      el.style.setProperty("--" + name, c.accent);
      el.style.setProperty("--" + name + "-bg", c.background);
      el.style.setProperty("--" + name + "-ring", c.ring);
      el.style.setProperty("--" + name + "-ink", c.ink);
    }
  }

  S.RULING_MS = R.ruling_ms;
  S.rulingTone = rulingTone;
  S.runningTone = runningTone;
  S.clockTone = clockTone;
  S.paintTones = paintTones;
})(this);
