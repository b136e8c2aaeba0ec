"""The archive browser in a real headless Chromium against a real archive: every page loads
without console errors and without serious accessibility findings (axe-core), the dashboard
draws the run's target points, the lineage graph has every level and opens one, a level shows
its preview, history and the attempt that made it in every world, filters change the rows.
Each test leaves a screenshot in docs/figures/web/."""

from __future__ import annotations

from urllib.parse import quote

import httpx
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select, WebDriverWait

from tests.web.archive import ITERATIONS, WORLDS
from tests.web.conftest import Site, open_page, screenshot, serious_violations, severe_console


def assert_clean(browser: WebDriver) -> None:
    assert severe_console(browser) == []
    assert serious_violations(browser) == []


def count(browser: WebDriver, css: str) -> int:
    return len(browser.find_elements(By.CSS_SELECTOR, css))


def test_index_links_to_the_browser(site: Site, browser: WebDriver) -> None:
    open_index = f"{site.url}/"
    browser.get_log("browser")
    browser.get(open_index)
    WebDriverWait(browser, 20).until(lambda b: count(b, "#run-pages a") == 3)
    assert severe_console(browser) == []
    # The newest run is selected; its pages are addressed, and titled, by its name.
    newest = httpx.get(f"{site.url}/api/runs").json()[-1]["name"]
    dashboard = browser.find_element(By.CSS_SELECTOR, "#run-pages a")
    assert dashboard.get_attribute("href") == f"{site.url}/runs/{quote(newest, safe='')}"
    dashboard.click()
    WebDriverWait(browser, 20).until(
        lambda b: b.execute_script("return document.body.dataset.ready")
    )
    assert browser.find_element(By.TAG_NAME, "h1").text == f"dicode archive · {newest}"


def test_dashboard_draws_the_run(site: Site, browser: WebDriver) -> None:
    run = site.runs["tetris"]
    open_page(browser, f"{site.url}/runs/{run.name}")
    target = '#target-card [data-series="target"] circle.point'
    assert count(browser, target) == len(ITERATIONS) == run.target_points
    assert browser.find_element(By.ID, "latest-target").text == f"{len(ITERATIONS):.2f}"
    for letter in "ABCD":
        assert count(browser, f'#status-card [data-series="status-{letter}"] polyline') == 1
    # one bar per stage an attempt ended at: accepted, and the two rejecting stages
    assert count(browser, "#stages-card g.bar") == 3
    assert count(browser, '#latency-card [data-series="latency-mean"] polyline') == 1
    assert_clean(browser)
    screenshot(browser, "dashboard")
    browser.find_element(By.CSS_SELECTOR, 'input[value="time"]').click()
    WebDriverWait(browser, 5).until(
        lambda b: "wall time" in b.find_element(By.CSS_SELECTOR, "#target-card svg").text
    )
    assert count(browser, target) == len(ITERATIONS)
    assert severe_console(browser) == []


def test_lineage_graph_has_every_level_and_opens_one(site: Site, browser: WebDriver) -> None:
    run = site.runs["tetris"]
    open_page(browser, f"{site.url}/runs/{run.name}/lineage")
    assert count(browser, "a.node") == len(run.levels)
    assert count(browser, "g.edge") == len(run.children)
    labels = {e.text for e in browser.find_elements(By.CSS_SELECTOR, "text.edge-label")}
    assert labels == {"harder", "easier", "vary", "skill"}
    assert "every level is drawn" in browser.find_element(By.ID, "rule").text
    assert_clean(browser)
    screenshot(browser, "lineage")
    child = next(iter(run.children))
    browser.find_element(By.CSS_SELECTOR, f'a.node[data-level="{child}"]').click()
    WebDriverWait(browser, 10).until(lambda b: b.current_url.endswith(f"/levels/{child}"))
    WebDriverWait(browser, 20).until(
        lambda b: b.execute_script("return document.body.dataset.ready")
    )
    assert browser.find_element(By.ID, "level-title").text.startswith(f"Level #{child}")


def test_lineage_nodes_open_from_the_keyboard(site: Site, browser: WebDriver) -> None:
    run = site.runs["maze"]
    open_page(browser, f"{site.url}/runs/{run.name}/lineage")
    graph = browser.find_element(By.ID, "graph")
    graph.send_keys("+")  # the graph itself takes focus and zooms
    assert browser.switch_to.active_element == graph
    graph.send_keys(Keys.TAB)  # the first level in tab order
    focused = browser.switch_to.active_element
    level = focused.get_attribute("data-level")
    assert level == str(run.levels[0])
    focused.send_keys(Keys.ENTER)
    WebDriverWait(browser, 10).until(lambda b: b.current_url.endswith(f"/levels/{level}"))


@pytest.mark.parametrize("world", WORLDS)
def test_level_page_in_every_world(site: Site, browser: WebDriver, world: str) -> None:
    run = site.runs[world]
    child = next(iter(run.children))
    detail = httpx.get(f"{site.url}/api/levels/{child}", timeout=30).json()
    open_page(browser, f"{site.url}/levels/{child}")
    image = browser.find_element(By.ID, "preview-image")
    WebDriverWait(browser, 30).until(
        lambda b: b.execute_script(
            "return arguments[0].complete && arguments[0].naturalWidth", image
        )
    )
    assert world in image.get_attribute("alt") and "pool instances" in image.get_attribute("alt")
    points = '[data-series="history"] circle.point'
    assert count(browser, points) == len(detail["history"]) > 0
    parents = browser.find_elements(By.CSS_SELECTOR, f'a[href="/levels/{run.children[child]}"]')
    assert parents, "the parent is linked"
    origin = browser.find_element(By.ID, "origin")
    assert "by llm" in origin.text and "prompt (2 messages)" in origin.text
    assert count(browser, "pre code .tok-kw") > 0  # the code is highlighted
    WebDriverWait(browser, 20).until(
        lambda b: "loading" not in b.execute_script(
            "return document.getElementById('preview-text').textContent"
        )
    )
    assert_clean(browser)
    screenshot(browser, f"level-{world}")


def test_attempt_filters_change_the_rows(site: Site, browser: WebDriver) -> None:
    run = site.runs["craftax"]
    open_page(browser, f"{site.url}/runs/{run.name}/attempts")
    total = len(run.levels) + run.rejected
    rows = "#attempt-rows tr[data-attempt]"
    assert count(browser, rows) == total

    def shows(n: int) -> None:
        WebDriverWait(browser, 10).until(lambda b: count(b, rows) == n)

    Select(browser.find_element(By.ID, "verdict")).select_by_value("rejected")
    shows(run.rejected)
    shown = browser.find_elements(By.CSS_SELECTOR, rows)
    verdicts = {r.get_attribute("data-verdict") for r in shown}
    assert verdicts == {"rejected"}
    Select(browser.find_element(By.ID, "stage")).select_by_value("syntax")
    shows(1)
    assert "verdict=rejected" in browser.current_url and "stage=syntax" in browser.current_url
    button = browser.find_element(By.CSS_SELECTOR, f"{rows} button")
    button.click()
    WebDriverWait(browser, 10).until(lambda b: count(b, "tr.detail pre code") == 1)
    detail = browser.find_element(By.CSS_SELECTOR, "tr.detail").text
    assert "invalid syntax" in detail and "def build(:" in detail
    assert button.get_attribute("aria-expanded") == "true"
    Select(browser.find_element(By.ID, "verdict")).select_by_value("accepted")
    Select(browser.find_element(By.ID, "stage")).select_by_value("")
    shows(len(run.levels))
    assert_clean(browser)
    screenshot(browser, "attempts")
