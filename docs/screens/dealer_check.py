"""The dealer check's screens for the README: a cue, and the result of a dozen presses (seeded, scripted)."""

import random
import sys
from pathlib import Path

from shotclock.adapters.screen import render_png
from shotclock.core.dealer_check import DealerCheck, schedule
from shotclock.core.view import dealer_check_view

OUT = Path(__file__).parent
check = DealerCheck(schedule(random.Random(12), start=0.0))
replies = [0.31, 0.27, 0.35, None, 0.29, 0.42, 0.26, 0.33, 0.30, 0.38, 0.28, 0.34]
for i, (cue, reply) in enumerate(zip(check.cues, replies)):
    if i == 2:
        check.press(cue - 0.6)  # one press too early
    check.advance(cue)
    if cue == check.cues[4]:
        render_png(dealer_check_view(check, "nl"), (800, 480), OUT / "dealer-cue.png")
    if reply is not None:
        check.press(cue + reply)
    check.advance(cue + 2.5)
render_png(dealer_check_view(check, "nl"), (800, 480), OUT / "dealer-result.png")
print(check.result().summary(0.5), file=sys.stderr)
