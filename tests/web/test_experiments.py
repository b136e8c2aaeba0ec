"""The experiments view over real HTTP and in a real headless Chromium: a figures directory with
a real experiment file (maze_long_paths), a hand-made one with a run that kept no curve, a
benchmark file that is no experiment and a broken file; only the experiments are listed and
drawn, with the numbers of `services.experiment_view`; any other name is a 404 and no name
reaches outside the directory."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from dicode.provenance import FIGURES
from services.api.app import create_app
from services.experiment_view import experiment
from tests.services.conftest import ServerThread
from tests.services.test_results_plots import TINY
from tests.web.conftest import open_page, serious_violations, severe_console

REAL = "maze_long_paths"


@pytest.fixture(scope="module")
def figures(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("experiments")
    figures = base / "figures"
    figures.mkdir()
    shutil.copy(FIGURES / f"{REAL}.json", figures)
    (figures / "tiny.json").write_text(json.dumps(TINY))
    (figures / "sandbox.json").write_text(json.dumps({"benchmark": "sandbox", "figures": {}}))
    (figures / "broken.json").write_text('{"runs": [')
    (base / "outside.json").write_text(json.dumps(TINY))  # beside the directory, not in it
    return figures


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory, figures: Path) -> Iterator[str]:
    db = f"sqlite:///{tmp_path_factory.mktemp('archive')}/archive.sqlite"
    with ServerThread(create_app(db, figures=figures)) as server:
        yield server.url


def test_only_experiment_documents_are_listed(api: str) -> None:
    listed = httpx.get(f"{api}/api/experiments", timeout=30).json()
    assert [e["name"] for e in listed] == [REAL, "tiny"]
    tiny = listed[1]
    assert (tiny["headline"], tiny["baseline"], tiny["arms"], tiny["runs"]) == (
        "score", "base", ["base", "arm"], 4,
    )  # fmt: skip


def test_an_experiment_answers_what_the_pictures_draw(api: str, figures: Path) -> None:
    answer = httpx.get(f"{api}/api/experiments/{REAL}", timeout=30).json()
    document = json.loads((figures / f"{REAL}.json").read_text())
    shown = experiment(REAL, document)
    assert [a["name"] for a in answer["arms"]] == [a.name for a in shown.arms]
    for got, arm in zip(answer["arms"], shown.arms, strict=True):
        # An arm still running has fewer seeds than the others (one seed: no band).
        seeds = sum(run["variant"] == arm.name for run in document["runs"])
        assert got["mean"] == pytest.approx(arm.mean) and got["n"] == arm.n == seeds
        assert [(p["env_steps"], p["mean"], p["low"]) for p in got["curve"]] == [
            (p.env_steps, pytest.approx(p.mean), None if p.low is None else pytest.approx(p.low))
            for p in arm.curve
        ]
        if arm.vs_baseline is None:  # the baseline, or an arm too short for an interval
            assert got["vs_baseline"] is None
            assert arm.name == answer["baseline"] or arm.n < 2
        else:
            assert got["vs_baseline"]["low"] == pytest.approx(arm.vs_baseline.low)
    tiny = httpx.get(f"{api}/api/experiments/tiny", timeout=30).json()
    assert [a["without_curve"] for a in tiny["arms"]] == [0, 1]


@pytest.mark.parametrize(
    "name", ["unknown", "sandbox", "broken", "..%2Foutside", "%2E%2E", "..%2F..%2Fpyproject"]
)
def test_any_other_name_is_a_404(api: str, name: str) -> None:
    for path in (f"/api/experiments/{name}", f"/experiments/{name}"):
        answer = httpx.get(f"{api}{path}", timeout=30)
        assert answer.status_code == 404, path
    detail = httpx.get(f"{api}/api/experiments/unknown", timeout=30).json()["detail"]
    assert detail == "no experiment named 'unknown' (GET /api/experiments lists them)"


def assert_clean(browser: WebDriver) -> None:
    assert severe_console(browser) == []
    assert serious_violations(browser) == []


def test_the_experiments_page_lists_and_opens_them(api: str, browser: WebDriver) -> None:
    open_page(browser, f"{api}/experiments")
    links = browser.find_elements(By.CSS_SELECTOR, "#experiments a")
    assert [link.text for link in links] == [REAL, "tiny"]
    assert_clean(browser)
    links[0].click()
    open_page(browser, browser.current_url)
    assert browser.current_url == f"{api}/experiments/{REAL}"


def test_an_experiment_page_draws_one_curve_and_one_row_per_arm(
    api: str, browser: WebDriver
) -> None:
    # The real file grows arm by arm over sessions: its arms in the tables' order (summary).
    document = json.loads((FIGURES / f"{REAL}.json").read_text())
    arms = list(document["summary"]["variants"])
    assert arms[:4] == ["target", "dr", "accel", "dicode_skills"]
    open_page(browser, f"{api}/experiments/{REAL}")
    for arm in arms:
        series = f'#curves-card [data-series="{arm}"]'
        assert len(browser.find_elements(By.CSS_SELECTOR, f"{series} polyline")) == 1, arm
    # several seeds at every step: every such arm has its band, unbroken
    banded = [a for a in arms if sum(r["variant"] == a for r in document["runs"]) > 1]
    assert len(browser.find_elements(By.CSS_SELECTOR, "#curves-card polygon.band")) == len(banded)
    rows = browser.find_elements(By.CSS_SELECTOR, "#arms tbody tr")
    assert [row.get_attribute("data-arm") for row in rows] == arms
    assert "+0.119 [+0.00134, +0.236]" in rows[1].text  # dr against target, as the tables
    assert_clean(browser)


def test_a_run_without_a_curve_is_said_so(api: str, browser: WebDriver) -> None:
    open_page(browser, f"{api}/experiments/tiny")
    # "arm" has one seed's curve: its line, and no band
    for arm, bands in (("base", 1), ("arm", 0)):
        series = f'#curves-card [data-series="{arm}"]'
        assert len(browser.find_elements(By.CSS_SELECTOR, f"{series} polyline")) == 1, arm
        assert len(browser.find_elements(By.CSS_SELECTOR, f"{series} polygon.band")) == bands
    assert browser.find_element(By.ID, "no-curve").text == "No curve recorded: arm (1 run)."
    assert_clean(browser)
