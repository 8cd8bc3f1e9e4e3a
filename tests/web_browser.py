"""A real browser for the web pages' tests: Playwright (Python) driving Debian's chromium.

Never a downloaded browser build: ``./dev`` installs Debian's ``chromium`` when run as root, and
Playwright launches it through ``executable_path``. Without it the browser tests are skipped,
except under CI (``CI`` set), where a missing browser fails them.
"""

from __future__ import annotations

import os
import shutil

from mqtt_broker import missing

# As the machine's notes say: without the background-networking flags chromium keeps trying to reach
# Google's hosts; --no-sandbox because the tests may run as root.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-sync",
                 "--disable-background-networking", "--disable-component-update"]


def chromium_path() -> str | None:
    """Debian's chromium binary, or None."""
    return shutil.which("chromium") or (os.path.exists("/usr/bin/chromium") and "/usr/bin/chromium") or None


def require_chromium() -> str:
    """The binary, or skip the test (fail it under CI, where ./dev must have installed it)."""
    path = chromium_path()
    if path is None:
        missing("chromium is not installed (./dev installs Debian's chromium when run as root)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        import pytest  # here, so the benchmarks and the screenshot script can use this module without pytest

        pytest.fail("the Python package playwright is missing: run the tests with ./dev test")
    return path


class Browser:
    """One headless chromium for a whole test session; each test opens its own pages (``page()``)."""

    def __init__(self):
        from playwright.sync_api import sync_playwright

        self._pw = sync_playwright().start()
        self.browser = self._pw.chromium.launch(executable_path=require_chromium(), args=CHROMIUM_ARGS)
        self.errors: list[str] = []

    def page(self, width: int = 1280, height: int = 800, **kwargs):
        """A new page in a fresh context (its own storage), recording script errors in ``errors``."""
        context = self.browser.new_context(viewport={"width": width, "height": height}, **kwargs)
        page = context.new_page()
        page.on("pageerror", lambda e: self.errors.append(f"{page.url}: {e}"))
        return page

    def close(self) -> None:
        """Close chromium and stop Playwright's driver."""
        self.browser.close()
        self._pw.stop()
