"""The pages follow a running run: while a page is open, the run gains target evaluations,
levels and edges through the archive's own API, and the page shows them at its next poll
(the dashboard every 5 s, the lineage graph every 10 s) without a reload and without moving
a view the user has zoomed."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from archive_db import ArchiveRepository
from archive_db.kinds import SESSION_EVENT, TARGET_EVENT
from archive_db.recording import BUNDLE_FORMAT
from archive_db.records import NewAttempt, NewLevel, content_hash
from tests.web.conftest import Site, open_page, severe_console

POLLS = 25  # seconds: two lineage polls and a margin for a loaded machine


@dataclass
class LiveRun:
    name: str
    run_id: int
    repo: ArchiveRepository
    bundle: bytes

    def level(self, tag: str, parent: int | None = None) -> int:
        """An accepted mutation-teacher attempt and its level (a copy of a real bundle)."""
        code = f"# live level {tag}\n"
        level = NewLevel(
            domain="tetris",
            content_hash=content_hash("tetris", self.name, tag),
            teacher="mutation",
            code=code,
            bundle=self.bundle,
            bundle_format=BUNDLE_FORMAT,
            name=f"live-{tag}",
            meta={"instruction": "harder"} if parent is not None else {},
            parent_ids=() if parent is None else (parent,),
        )
        attempt = NewAttempt(
            teacher="mutation", stage_reached="accepted", verdict="accepted",
            parent_id=parent, code=code, latency_s=0.1,
        )  # fmt: skip
        recorded = self.repo.attempts.record(self.run_id, attempt, level)
        assert recorded.level is not None
        return recorded.level.id

    def evaluate(self, iteration: int, lines: float) -> None:
        self.repo.events.add(
            SESSION_EVENT, {"iteration": iteration, "env_steps": 1000 * iteration},
            run_id=self.run_id,
        )  # fmt: skip
        payload = {"iteration": iteration, "mean_lines": lines, "games": 4}
        self.repo.events.add(TARGET_EVENT, payload, run_id=self.run_id)


@pytest.fixture
def live(site: Site, request: pytest.FixtureRequest) -> Iterator[LiveRun]:
    """A new Tetris run in the site's archive, one per test."""
    repo = ArchiveRepository.open(site.db)
    bundle = repo.get_bundle(site.runs["tetris"].levels[0])
    assert bundle is not None
    name = f"web-live-{request.node.name}"
    run_id = repo.runs.create(name, domain="tetris", seed=0, config={}).id
    try:
        yield LiveRun(name, run_id, repo, bundle)
    finally:
        repo.close()


def count(browser: WebDriver, css: str) -> int:
    return len(browser.find_elements(By.CSS_SELECTOR, css))


def view_box(browser: WebDriver) -> str:
    box = browser.execute_script("return document.getElementById('graph').getAttribute('viewBox')")
    assert box, "the graph has a viewBox"
    return str(box)


def test_dashboard_curve_moves_while_open(site: Site, browser: WebDriver, live: LiveRun) -> None:
    live.evaluate(1, 3.0)
    open_page(browser, f"{site.url}/runs/{live.name}")
    points = '#target-card [data-series="target"] circle.point'
    assert count(browser, points) == 1
    live.evaluate(2, 7.0)
    live.evaluate(3, 11.0)
    WebDriverWait(browser, POLLS).until(lambda b: count(b, points) == 3)
    assert browser.find_element(By.ID, "latest-target").text == "11.00"
    assert severe_console(browser) == []


def test_lineage_grows_while_open(site: Site, browser: WebDriver, live: LiveRun) -> None:
    root = live.level("root")
    open_page(browser, f"{site.url}/runs/{live.name}/lineage")
    assert count(browser, "a.node") == 1
    graph = browser.find_element(By.ID, "graph")
    first = live.level("first", parent=root)
    live.level("second", parent=first)
    WebDriverWait(browser, POLLS).until(lambda b: count(b, "a.node") == 3)
    assert count(browser, "g.edge") == 2
    assert "3 of 3 levels" in browser.find_element(By.CSS_SELECTOR, "main h2").text
    graph.send_keys("+")  # the user zooms: later growth must not move their view
    zoomed = view_box(browser)
    live.level("third", parent=first)
    WebDriverWait(browser, POLLS).until(lambda b: count(b, "a.node") == 4)
    assert view_box(browser) == zoomed
    graph.send_keys("0")  # fit, and follow again
    assert view_box(browser) != zoomed
    assert severe_console(browser) == []
