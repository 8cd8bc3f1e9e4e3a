"""The screen: draws a :class:`~shotclock.core.view.View` with pygame-ce.

The renderer only draws what the view model says; it decides nothing. Layout scales with the
surface: landscape puts the ring on the left and the words on the right, portrait stacks
them. The font is pygame's bundled FreeSansBold, so nothing needs installing.

On a Pi with no desktop, SDL's KMSDRM driver draws straight to the screen (pygame-ce's
aarch64 wheels include it). The dummy and offscreen drivers draw nowhere: the device
refuses them unless asked to draw nowhere (``allow_nowhere``).
"""

from __future__ import annotations

import logging
import math
import os

from shotclock.core.tones import TONES
from shotclock.core.view import View
from shotclock.errors import HardwareError

log = logging.getLogger("shotclock.screen")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

NOWHERE_DRIVERS = ("dummy", "offscreen")

# Background, ring and text colour per tone, from the core (the floor's pages take the same colours).
PALETTE = {name: (tone.background, tone.ring, tone.ink) for name, tone in TONES.items()}
MIN_LINE = 0.075  # a line of words is at least this fraction of the screen's height, or it wraps at " · "
FAULT_BANNER = ((255, 204, 0), (0, 0, 0))
HOLD_BAR = ((20, 20, 24), (255, 255, 255))  # the bar's empty part and its fill; the text inverts over the fill
RING_TRACK = (255, 255, 255, 40)


def explicitly_requested(driver: str) -> bool:
    """Whether SDL_VIDEODRIVER asked for this driver (SDL falls back to 'offscreen' by itself)."""
    return os.environ.get("SDL_VIDEODRIVER", "").lower() == driver


def probe_display() -> tuple[str | None, tuple[int, int] | None, str | None]:
    """(driver, desktop size, problem): whether SDL can open a real display here."""
    import pygame

    from shotclock.adapters.quiet import quiet_stderr

    try:
        with quiet_stderr():  # SDL's video backends complain on fd 2 as they are tried
            pygame.display.init()
    except pygame.error as exc:
        return None, None, f"no display ({exc})"
    try:
        driver = pygame.display.get_driver()
        sizes = pygame.display.get_desktop_sizes()
    finally:
        pygame.display.quit()
    if driver in NOWHERE_DRIVERS:
        return driver, None, f"SDL video driver '{driver}' draws nowhere (on the Pi: SDL_VIDEODRIVER=kmsdrm)"
    return driver, sizes[0] if sizes else (0, 0), None


ITEM = " · "  # what joins the items of a line of words (the view's ``info``)
MAX_LINES = 4


def wrappings(text: str) -> list[list[str]]:
    """The ways to break ``text`` into lines, fewest lines first: between its " · " items (1 to 3 lines), then
    every item on a line of its own with the longest ones broken at the space nearest their middle.

    Example::

        >>> wrappings("Preflop · Extensies: 2 van 4")
        [['Preflop · Extensies: 2 van 4'], ['Preflop', 'Extensies: 2 van 4'], ['Preflop', 'Extensies:', '2 van 4']]
    """
    items = text.split(ITEM)
    out = []
    for n in range(1, min(len(items), 3) + 1):
        per = -(-len(items) // n)
        rows = [ITEM.join(items[i:i + per]) for i in range(0, len(items), per)]
        if rows not in out:
            out.append(rows)
    rows = list(items)
    while len(rows) < MAX_LINES:
        breakable = [r for r in rows if _halves(r)]
        if not breakable:
            break
        longest = max(breakable, key=len)
        i = rows.index(longest)
        rows[i:i + 1] = _halves(longest)
        if rows not in out:
            out.append(list(rows))
    return sorted(out, key=len)


def _halves(text: str) -> list[str]:
    """``text`` broken in two at the space nearest its middle (no piece under 3 letters: "2 van 4" stays
    whole); empty when it has no such space."""
    spaces = [i for i, c in enumerate(text) if c == " " and i >= 3 and len(text) - i - 1 >= 3]
    if not spaces:
        return []
    cut = min(spaces, key=lambda i: abs(i - len(text) / 2))
    return [text[:cut], text[cut + 1:]]


class Renderer:
    """Draws views onto any pygame surface (a window, the Pi's screen, or a PNG's surface)."""

    def __init__(self):
        import pygame

        pygame.font.init()
        self._pygame = pygame
        self._fonts: dict[int, object] = {}
        self.drawn: list = []  # (text, Rect) of the last draw, for the readability tests

    def font(self, size: int):
        """pygame's bundled bold font at ``size`` pixels (cached)."""
        size = max(8, int(size))
        if size not in self._fonts:
            self._fonts[size] = self._pygame.font.Font(None, size)
        return self._fonts[size]

    def fit(self, text: str, width: float, height: float):
        """The largest font for ``text`` that fits in ``width`` × ``height``."""
        size = int(height * 1.3)  # pygame's font size is a bit more than the cap height
        w, h = self.font(size).size(text)
        scale = min(width / max(w, 1), height / max(h, 1), 1.0)
        return self.font(int(size * scale * 0.98))

    def text(self, surface, text, color, center, width, height, min_height=None, font=None):
        """Draw ``text`` as large as fits in ``width`` × ``height``, centred on ``center``; returns its Rect.

        With ``min_height``, the letters never get smaller than that: a text too long for it is cut
        with "…" instead (a 40-character table name stays readable from 2 m). ``font``: draw in this
        font instead (the lines of one wrapped text share one size)."""
        if not text:
            return None
        font = font or self.fit(text, width, height)
        if min_height and font.get_height() < min_height:
            font, text = self._ellipsized(text, width, height, min_height)
        image = font.render(text, True, color)
        rect = image.get_rect(center=(int(center[0]), int(center[1])))
        surface.blit(image, rect)
        self.drawn.append((text, rect))
        return rect

    def _ellipsized(self, text: str, width: float, height: float, min_height: float):
        """The font as high as ``height`` allows (never below ``min_height``) and ``text`` cut with "…" to fit
        ``width`` in it."""
        font = self.fit(text, 10 ** 6, height)  # the line's own height: the words are cut, not shrunk
        size = font.get_height()
        while font.get_height() < min_height:
            size += 1
            font = self.font(size)
        while len(text) > 1 and font.size(text)[0] > width:
            text = text[:-2].rstrip() + "…"
        return font, text

    def lines(self, surface, text, color, center, width, height, min_height):
        """Draw ``text`` in ``width`` × ``height`` in the fewest lines whose letters are at least ``min_height``
        high: broken between its " · " items first, then inside an item between words (see :func:`wrappings`).

        Where no way of breaking it reaches ``min_height`` (a small screen), the one with the largest letters
        is drawn a little smaller: a count or a rule is never cut short."""
        if not text:
            return
        best, best_font = [text], None
        for rows in wrappings(text):
            font = min((self.fit(r, width, height / len(rows)) for r in rows), key=lambda f: f.get_height())
            if best_font is None or font.get_height() > best_font.get_height():
                best, best_font = rows, font
            if font.get_height() >= min_height:
                break
        row_h = height / len(best)
        top = center[1] - height / 2
        for i, row in enumerate(best):  # every line in the size of the smallest: one text, one size
            self.text(surface, row, color, (center[0], top + row_h * (i + 0.5)), width, row_h, font=best_font)

    def _ring(self, surface, center, radius, thickness, progress, color):
        pygame = self._pygame
        track = pygame.Surface(surface.get_size(), pygame.SRCALPHA)
        pygame.draw.circle(track, RING_TRACK, center, radius, int(thickness))
        surface.blit(track, (0, 0))
        if progress <= 0:
            return
        steps = max(2, int(180 * progress))
        start = -math.pi / 2
        outer, inner = [], []
        for i in range(steps + 1):
            a = start + 2 * math.pi * progress * i / steps
            outer.append((center[0] + radius * math.cos(a), center[1] + radius * math.sin(a)))
            r2 = radius - thickness
            inner.append((center[0] + r2 * math.cos(a), center[1] + r2 * math.sin(a)))
        pygame.draw.polygon(surface, color, outer + inner[::-1])

    def draw(self, surface, view: View) -> None:
        """Draw ``view`` to fill ``surface``."""
        w, h = surface.get_size()
        self.drawn = []
        background, accent, ink = PALETTE[view.tone]
        surface.fill(background)
        banner_h = int(min(w, h) * 0.13) if view.faults else 0
        bar_h = int(min(w, h) * 0.14) if view.hold else 0
        area_h = h - banner_h - bar_h
        landscape = w >= h * 1.15
        if view.progress is not None:
            self._draw_clock(surface, view, w, area_h, landscape, accent, ink)
        else:
            self._draw_words(surface, view, w, area_h, ink)
        if view.corner:  # small, top right, over the background only: never a banner over the clock
            size = max(10, int(min(w, h) * 0.045))
            self.text(surface, view.corner, ink, (w - w * 0.16, size * 0.9), w * 0.3, size)
        if view.hold:
            self._hold_bar(surface, view, (0, area_h, w, bar_h))
        if view.faults:
            bg, fg = FAULT_BANNER
            self._pygame.draw.rect(surface, bg, (0, h - banner_h, w, banner_h))
            self.text(surface, "  ·  ".join(view.faults), fg, (w / 2, h - banner_h / 2), w * 0.96, banner_h * 0.7)

    def _hold_bar(self, surface, view, rect):
        """A bar that fills while a button is held, naming what the hold will do."""
        pygame = self._pygame
        x, y, w, h = rect
        empty, full = HOLD_BAR
        filled = int(w * (view.hold_progress or 0))
        pygame.draw.rect(surface, empty, rect)
        pygame.draw.rect(surface, full, (x, y, filled, h))
        # The words in the fill's colour over the empty part, in the empty's colour over the fill.
        for clip, ink in (((x + filled, y, w - filled, h), full), ((x, y, filled, h), empty)):
            surface.set_clip(clip)
            self.text(surface, view.hold, ink, (x + w / 2, y + h / 2), w * 0.94, h * 0.72)
        surface.set_clip(None)
        del self.drawn[-1]  # one line of words, drawn twice

    def _label_value(self, surface, sub, ink, cx, width, top, height):
        """``label: value`` with the value (the consequence) always larger than its label; else one line."""
        label, _, value = sub.partition(": ")
        if not value:
            self.lines(surface, sub, ink, (cx, top + height * 0.5), width, height * 0.6, height * 0.3)
            return
        rect = self.text(surface, value, ink, (cx, top + height * 0.68), width, height * 0.6)
        label_h = min(height * 0.36, rect.height * 0.75)
        self.lines(surface, label + ":", ink, (cx, top + height * 0.2), width, label_h, label_h * 0.45)

    def _draw_clock(self, surface, view, w, h, landscape, accent, ink):
        if landscape:
            # On 4:3 (320x240) the words column keeps more than half the width: "ONDERBROKEN" fits whole.
            side = min(h, w * (0.47 if w < h * 1.5 else 0.52))
            ring_center = (side / 2 + w * 0.01, h / 2)
            col_x, col_w, col_top, col_h = side + w * 0.03, w - side - w * 0.05, 0, h
        else:
            side = min(w, h * 0.62)
            ring_center = (w / 2, side / 2)
            col_x, col_w, col_top, col_h = w * 0.04, w * 0.92, side, h - side
        radius = side * 0.46
        thickness = radius * 0.13
        self._ring(surface, ring_center, radius, thickness, view.progress, accent)
        inner = (radius - thickness) * 2 * 0.78
        self.text(surface, view.big, ink, ring_center, inner, inner * 0.98)
        # The words column: title, the consequence at 0 (label and value), street and extensions.
        cx = col_x + col_w / 2
        min_line = min(surface.get_size()) * MIN_LINE
        if view.seat:  # seat tracking: whose clock it is, in the title's place; a long name is cut like a table's
            self._seat(surface, view.seat, ink, (cx, col_top + col_h * 0.12), col_w, col_h * 0.16, min_line)
        else:
            self.lines(surface, view.title, ink, (cx, col_top + col_h * 0.12), col_w, col_h * 0.16, min_line)
        self._label_value(surface, view.sub, ink, cx, col_w, col_top + col_h * 0.26, col_h * 0.38)
        self.lines(surface, view.info, ink, (cx, col_top + col_h * 0.82), col_w, col_h * 0.28, min_line)

    def _seat(self, surface, seat, ink, center, width, height, min_line):
        """"Seat 4 · Name" on one line when it fits readable, else the seat on a line of its own (always whole)
        and the name under it, cut with "…" when even that is too long; with no room for two lines (a fault
        banner or a hold bar below), one line with the seat whole and the name cut: the name is never dropped."""
        if self.fit(seat, width, height).get_height() >= min_line:
            self.text(surface, seat, ink, center, width, height)
            return
        number, _, name = seat.partition(ITEM)
        row = height / 2
        if not name:
            self.text(surface, number, ink, center, width, height)
            return
        if row < min_line * 0.95:
            font = self.fit(number + ITEM + name[:6] + "…", width, height)  # the seat and a few letters
            while len(name) > 1 and font.size(number + ITEM + name)[0] > width:
                name = name[:-2].rstrip() + "…"
            self.text(surface, number + ITEM + name, ink, center, width, height, font=font)
            return
        self.text(surface, number, ink, (center[0], center[1] - row / 2), width, row, min_line * 0.95)
        self.text(surface, name, ink, (center[0], center[1] + row / 2), width, row, min_line * 0.95)

    def _draw_words(self, surface, view, w, h, ink):
        min_line = min(w, h) * MIN_LINE
        self.text(surface, view.title, ink, (w / 2, h * 0.09), w * 0.9, h * 0.12, min_line)
        self.text(surface, view.big, ink, (w / 2, h * 0.35), w * 0.92, h * 0.31, min_line)
        self._label_value(surface, view.sub, ink, w / 2, w * 0.92, h * 0.52, h * 0.32)
        self.lines(surface, view.info, ink, (w / 2, h * 0.91), w * 0.92, h * 0.13, min_line)


class Screen:
    """The display the device draws on: fullscreen on the Pi (cursor hidden), a window elsewhere.

    :param size: (width, height) of the window when not fullscreen.
    :param fullscreen: take the whole screen at its own resolution.
    :param allow_nowhere: accept SDL's dummy/offscreen drivers: True (headless runs, benchmarks), or
        ``"requested"`` (only when SDL_VIDEODRIVER names it, as the tests do; the simulator).
    """

    def __init__(self, size=(800, 480), fullscreen=False, allow_nowhere=False, caption="shotclock"):
        import pygame

        from shotclock.adapters.quiet import quiet_stderr

        try:
            with quiet_stderr():
                pygame.display.init()
        except pygame.error as exc:
            raise HardwareError(f"cannot open the display: {exc}") from None
        self.driver = pygame.display.get_driver()
        # SDL picks 'offscreen' by itself when nothing else works: only take it when it was asked for.
        nowhere = self.driver in NOWHERE_DRIVERS
        if nowhere and (allow_nowhere is False or (allow_nowhere == "requested"
                                                   and not explicitly_requested(self.driver))):
            pygame.display.quit()
            raise HardwareError(f"SDL video driver '{self.driver}' draws nowhere: no display found "
                                "(on the Pi, set SDL_VIDEODRIVER=kmsdrm)")
        flags = pygame.FULLSCREEN if fullscreen else 0
        self.surface = pygame.display.set_mode((0, 0) if fullscreen else size, flags)
        pygame.display.set_caption(caption)
        if fullscreen:
            pygame.mouse.set_visible(False)
        self.renderer = Renderer()
        self._pygame = pygame
        log.info("video driver '%s', %dx%d%s", self.driver, *self.surface.get_size(),
                 " fullscreen" if fullscreen else "")

    def close(self) -> None:
        """Close the display (the window, or the Pi's screen)."""
        self._pygame.display.quit()

    def show(self, view: View, area=None) -> None:
        """Draw ``view`` (into ``area``, a Rect of the window, when given) and flip."""
        target = self.surface.subsurface(area) if area else self.surface
        self.renderer.draw(target, view)
        self._pygame.display.flip()


def render_png(view: View, size: tuple[int, int], path) -> None:
    """Draw ``view`` at ``size`` into a PNG file; needs no display."""
    import pygame

    surface = pygame.Surface(size)
    Renderer().draw(surface, view)
    pygame.image.save(surface, str(path))
