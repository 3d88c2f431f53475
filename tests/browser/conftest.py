"""Browser tests: the real server on a free port, driven by Debian's Chromium through Playwright.

Every test here is marked `browser`. The `page` fixture fails a test that logs a console error, throws an
uncaught error, or sends a request anywhere but this machine; `axe_check(page)` fails on serious or
critical accessibility violations. A test that expects console errors (say, a 4xx answer to htmx) names
them with `@pytest.mark.allowed_console_errors(r"regex", ...)`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, ConsoleMessage, Page, Playwright, WebError, sync_playwright

from app.store.database import migrate
from tests.browser.browser_server import serve_app

CHROMIUM = Path("/usr/bin/chromium")
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
# Schemes that never leave the page: inline data, object URLs, blank frames.
LOCAL_SCHEMES = {"data", "blob", "about"}
FAILING_IMPACTS = {"serious", "critical"}

_HERE = Path(__file__).resolve().parent


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "allowed_console_errors(*patterns): console errors matching a regex do not fail the test"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(_HERE):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def server_database_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The migrated SQLite database the browser tests' server uses, for tests that set up stored state."""
    database_url = f"sqlite:///{tmp_path_factory.mktemp('database') / 'precision_lab.db'}"
    migrate(database_url)
    return database_url


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory, server_database_url: str) -> Iterator[str]:
    """Base URL of the app that most browser tests share."""
    with serve_app(tmp_path_factory, server_database_url) as url:
        yield url


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as instance:
        yield instance


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    """Headless Debian Chromium; Playwright's own browser download is not used."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's Chromium (apt-get install chromium), as .ci/run does.")
    # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
    instance = playwright.chromium.launch(
        executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox", "--disable-dev-shm-usage"]
    )
    yield instance
    instance.close()


class BrowserLog:
    """What the pages of one test said and fetched."""

    def __init__(self) -> None:
        self.console_errors: list[str] = []
        self.page_errors: list[str] = []
        self.requests: list[str] = []

    def on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            location = message.location
            self.console_errors.append(f"{message.text} ({location.get('url', '')}:{location.get('lineNumber', '')})")

    def on_web_error(self, error: WebError) -> None:
        self.page_errors.append(str(error.error))

    def off_machine_requests(self) -> list[str]:
        return [url for url in self.requests if not _is_local(url)]


def _is_local(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in LOCAL_SCHEMES or parts.hostname in LOCAL_HOSTS


@pytest.fixture
def browser_log() -> BrowserLog:
    return BrowserLog()


@pytest.fixture
def page(request: pytest.FixtureRequest, browser: Browser, server_url: str, browser_log: BrowserLog) -> Iterator[Page]:
    """A page in a fresh browser context whose relative URLs go to the test server."""
    context = browser.new_context(base_url=server_url)
    context.on("console", browser_log.on_console)
    context.on("weberror", browser_log.on_web_error)
    context.on("request", lambda req: browser_log.requests.append(req.url))
    yield context.new_page()
    context.close()

    allowed = [re.compile(p) for mark in request.node.iter_markers("allowed_console_errors") for p in mark.args]
    console_errors = [e for e in browser_log.console_errors if not any(p.search(e) for p in allowed)]
    problems = [f"console error: {e}" for e in console_errors]
    problems += [f"uncaught error in the page: {e}" for e in browser_log.page_errors]
    problems += [f"request to another machine: {url}" for url in browser_log.off_machine_requests()]
    if problems:
        pytest.fail("the browser reported:\n" + "\n".join(problems), pytrace=False)


def _describe(violation: dict[str, Any]) -> str:
    targets = ", ".join(" ".join(map(str, node["target"])) for node in violation["nodes"][:5])
    return f"{violation['impact']}: {violation['id']} ({violation['help']}) at {targets}"


@pytest.fixture(scope="session")
def axe_check() -> Callable[[Page], None]:
    """A function that runs axe-core on a page and fails on serious or critical violations."""
    axe = Axe()

    def check(page: Page) -> None:
        violations = axe.run(page).response["violations"]
        failing = [v for v in violations if v["impact"] in FAILING_IMPACTS]
        if failing:
            pytest.fail(
                f"axe found {len(failing)} serious or critical accessibility violations on {page.url}:\n"
                + "\n".join(_describe(v) for v in failing),
                pytrace=False,
            )

    return check
