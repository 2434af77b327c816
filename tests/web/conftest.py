"""Browser tests: a real server on an ephemeral port and Debian's chromium driven by playwright.

The browser is never downloaded: the tests use the system chromium
(``/usr/bin/chromium``, or ``$TRICKROOM_CHROMIUM``). Without it they skip and say
how to install it, unless ``TRICKROOM_REQUIRE_BROWSER=1`` (CI sets it), when
they fail instead. Screenshots go to ``artifacts/web/`` (git-ignored).

One chromium serves the whole session (each test has contexts of its own, so no
cookie or storage crosses between tests): the browser tests run in the session's
event loop, where it lives, and so do their fixtures.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from pytest_asyncio import is_async_test

from trickroom.server.app import App
from trickroom.server.config import load_config

WEB_TESTS = Path(__file__).resolve().parent
CHROMIUM = os.environ.get("TRICKROOM_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "web"
LAPTOP = {"width": 1280, "height": 860}
PHONE = {"width": 360, "height": 740}
# Robots act quickly but visibly; a human's turn is long enough for a slow CI machine.
WEB_SETTINGS = dict(robot_delay=0.03, hand_pause=0.2, turn_seconds=120.0, reconnect_seconds=60.0)


async def laid_out(page: Any) -> None:
    """Wait until the page has been laid out and painted again (after a resize, say): two
    animation frames, rather than a guess at how long that takes."""
    await page.evaluate("() => new Promise((done) => "
                        "requestAnimationFrame(() => requestAnimationFrame(done)))")


def browser_missing() -> str | None:
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        return "the playwright package is missing: pip install -e '.[test]'"
    if not os.path.exists(CHROMIUM):
        return (f"no chromium at {CHROMIUM}: install Debian's browser with "
                f"`sudo apt-get install chromium` (or set TRICKROOM_CHROMIUM)")
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The browser tests run in the session's event loop, the one the browser lives in."""
    in_session_loop = pytest.mark.asyncio(loop_scope="session")
    for item in items:
        if is_async_test(item) and Path(item.path).is_relative_to(WEB_TESTS):
            item.add_marker(in_session_loop, append=False)


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def browser():
    why = browser_missing()
    if why:
        if os.environ.get("TRICKROOM_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests are required here, but {why}")
        pytest.skip(why)
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        launched = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                            headless=True, timeout=60_000)
        try:
            yield launched
        finally:
            await launched.close()


async def start_app(tmp_path: Path, config: Path | None = None, **settings: Any) -> App:
    config_ = load_config(config, **{**WEB_SETTINGS, **settings})
    server = App(config_, tmp_path / "trickroom.sqlite3")
    await server.start("127.0.0.1", 0)
    return server


@pytest_asyncio.fixture(loop_scope="session")
async def web_app(tmp_path):
    server = await start_app(tmp_path)
    yield server
    await server.stop()


@pytest_asyncio.fixture(loop_scope="session")
async def review_app(tmp_path):
    """A server whose robots act at once: the reviewed games are played over the socket,
    with nobody watching."""
    server = await start_app(tmp_path, robot_delay=0.0, hand_pause=0.0)
    yield server
    await server.stop()


def base_url(app: App) -> str:
    return f"http://127.0.0.1:{app.port}/"


def ws_url(app: App) -> str:
    return f"ws://127.0.0.1:{app.port}/ws"


class Page:
    """A browser page on the app, which fails the test on any script error in it."""

    def __init__(self, page: Any, name: str) -> None:
        self.page = page
        self.name = name
        self.errors: list[str] = []
        self.console: list[str] = []  # every console line, for the story of a failure
        page.on("console", lambda msg: self.console.append(f"{msg.type}: {msg.text}"))
        page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))
        page.on("console", lambda msg: msg.type == "error" and not _expected(msg.text)
                and self.errors.append(f"console error: {msg.text}"))

    async def shot(self, label: str, *, phone: bool = False) -> Path:
        """Save a screenshot as artifacts/web/<test>-<label>.png (at 360 px wide with phone)."""
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{self.name}-{label}.png"
        if phone:
            before = self.page.viewport_size
            await self.page.set_viewport_size(PHONE)
            await laid_out(self.page)
            await self.page.screenshot(path=str(path), full_page=True)
            # No layout break at phone width: nothing makes the page scroll sideways.
            wide = await self.page.evaluate("document.documentElement.scrollWidth")
            await self.page.set_viewport_size(before)
            assert wide <= PHONE["width"], f"{label}: the page is {wide}px wide at 360px"
        else:
            await self.page.screenshot(path=str(path), full_page=True)
        print(f"screenshot: {path}")
        return path

    def check(self) -> None:
        assert not self.errors, "\n".join(self.errors)


def _expected(text: str) -> bool:
    # A dropped socket during a deliberate reload is not an error of the client.
    return "WebSocket" in text or "ERR_CONNECTION" in text or "404" in text


# A page's wait_for_function takes an arrow function, never a bare expression: Playwright
# evals a bare expression again at each poll, and the page's CSP (no 'unsafe-eval') refuses
# every eval after the first, so a wait not true at once fails with an EvalError.
@pytest_asyncio.fixture(loop_scope="session")
async def open_page(browser, request):
    contexts = []
    pages: list[Page] = []
    test = re.sub(r"\W+", "-", request.node.name.removeprefix("test_"))[:60]

    async def opener(app: App, viewport: dict[str, int] = LAPTOP, label: str = "",
                     locale: str | None = None) -> Page:
        # The browser's language (navigator.languages, Accept-Language): English unless a
        # test asks for another (issue 37).
        context = await browser.new_context(viewport=viewport, locale=locale or "en-US")
        contexts.append(context)
        page = await context.new_page()
        page.set_default_timeout(20_000)
        wrapped = Page(page, f"{test}{'-' + label if label else ''}")
        pages.append(wrapped)
        await page.goto(base_url(app))
        return wrapped

    yield opener
    for context in contexts:
        await context.close()
    for page in pages:
        page.check()
