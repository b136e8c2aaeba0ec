"""The browser tests' pieces: headless Chromium driven by Selenium through the system
chromedriver (nothing is downloaded), a real archive served by a real uvicorn, and helpers
that load a page, collect the browser's console and run axe-core in it.

Without chromium/chromedriver the browser tests skip locally and fail in CI (CI=true);
`make browser` (deploy/ensure-chromium.sh) installs them."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from services.api.app import create_app
from tests.services.conftest import ServerThread
from tests.web.archive import WorldRun, build_archive

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "docs" / "figures" / "web"
AXE = Path(__file__).with_name("vendor") / "axe-core" / "axe.min.js"
WINDOW = (1280, 1100)


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.fixture(scope="session")
def browser() -> Iterator[WebDriver]:
    """One headless Chromium for the session (its console kept at every level)."""
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if chromium is None or driver is None:
        message = "the browser tests need chromium and chromedriver (run: make browser)"
        if _in_ci():
            pytest.fail(message + " (CI=true: the browser tests must run)")
        pytest.skip(message)
    options = Options()
    options.binary_location = chromium
    # --no-sandbox: Chromium's own sandbox cannot start as root in a container.
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(flag)
    options.add_argument(f"--window-size={WINDOW[0]},{WINDOW[1]}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    chrome = webdriver.Chrome(options=options, service=Service(executable_path=driver))
    try:
        yield chrome
    finally:
        chrome.quit()


@dataclass(frozen=True)
class Site:
    url: str
    db: str  # the archive's URL: the live tests write to it while a page is open
    runs: dict[str, WorldRun]


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """The API (and its pages) over a small real archive of all three worlds."""
    url = f"sqlite:///{tmp_path_factory.mktemp('web')}/archive.sqlite"
    runs = build_archive(url)
    with ServerThread(create_app(url)) as server:
        yield Site(server.url, url, runs)


def open_page(browser: WebDriver, url: str) -> None:
    """Load ``url`` and wait until the page says its first render is done."""
    browser.get_log("browser")  # drop what earlier pages logged
    browser.get(url)
    WebDriverWait(browser, 20).until(
        lambda b: b.execute_script("return document.body.dataset.ready")
    )


def severe_console(browser: WebDriver) -> list[dict[str, Any]]:
    """Console errors, uncaught exceptions and failed loads since the page was opened."""
    return [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]


def serious_violations(browser: WebDriver) -> list[str]:
    """axe-core's serious and critical findings on the page as it is now."""
    browser.execute_script(AXE.read_text(encoding="utf-8"))
    violations = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']})"
        ".then((r) => done(r.violations), (e) => done([{id: 'axe-error', impact: 'critical',"
        " help: String(e), nodes: []}]));"
    )
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — "
        + "; ".join(str(node["target"]) for node in v["nodes"][:3])
        for v in violations
        if v["impact"] in ("serious", "critical")
    ]


def screenshot(browser: WebDriver, name: str) -> Path:
    """The whole page (not only the window) as docs/figures/web/<name>.png."""
    height = browser.execute_script("return document.documentElement.scrollHeight")
    metrics = {"width": WINDOW[0], "height": min(int(height), 4000)}
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride", metrics | {"deviceScaleFactor": 1, "mobile": False}
    )
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    browser.save_screenshot(str(path))
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    return path
