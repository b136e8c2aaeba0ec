"""The archive browser as a new user meets it: start the main job (``dicode run --profile
quick``, what ``make run`` runs), open http://127.0.0.1:<port>/ in headless Chromium, follow
the run's dashboard and lineage links (one browser each), and watch both pages for the first
minutes without reloading them.

Every ``--every`` seconds it reads what the open pages show (target points drawn on the
dashboard, its latest figure, nodes and edges drawn in the lineage graph) and prints a row. The
figures held to the anchor: the seconds after the command started until the curve has moved
(a second target point drawn) and until the tree has grown (more nodes than the seed levels
first drawn), both within 180 s. Screenshots of both pages at the end go to
``docs/figures/web/live-*.png``; the rows and times to ``docs/figures/web_live.json``.

    PYTHONPATH=. python benchmarks/web_live.py [--seconds 180] [--every 15] [--port 8010]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from benchmarks.main_job import main_job
from benchmarks.web_dashboard import chromium
from dicode.provenance import ROOT, load_averages, write_figures

ANCHOR_S = 180.0
SHOTS = ROOT / "docs" / "figures" / "web"
RUN_LINKS = "#run-pages a"  # the front page's links to the selected run's pages
READY = "return document.body.dataset.ready"
TARGET_POINTS = '#target-card [data-series="target"] circle.point'


def wait_for_api(base: str, started: float, timeout_s: float) -> float:
    """Seconds from ``started`` until the API answers with a run in its list."""
    while time.perf_counter() - started < timeout_s:
        try:
            if httpx.get(f"{base}/api/runs", timeout=2).json():
                return time.perf_counter() - started
        except (httpx.HTTPError, ValueError):
            pass
        time.sleep(0.5)
    raise SystemExit(f"the API did not list a run within {timeout_s:.0f} s")


def open_run_pages(dashboard: WebDriver, lineage: WebDriver, base: str) -> None:
    """From the front page, as a user would: the newest run is selected; follow its dashboard
    link in one browser and its lineage link in another (a background tab stops polling, so
    each page gets a browser of its own)."""
    dashboard.get(f"{base}/")
    WebDriverWait(dashboard, 60).until(lambda b: b.find_elements(By.CSS_SELECTOR, RUN_LINKS))
    anchors = dashboard.find_elements(By.CSS_SELECTOR, RUN_LINKS)
    links = {a.text: str(a.get_attribute("href")) for a in anchors}
    dashboard.get(links["dashboard"])
    lineage.get(links["lineage"])
    for browser in (dashboard, lineage):
        WebDriverWait(browser, 60).until(lambda b: b.execute_script(READY))


def read_pages(dashboard: WebDriver, lineage: WebDriver) -> dict[str, Any]:
    """What the two open pages show now (no reload: what their own polling drew)."""
    points = len(dashboard.find_elements(By.CSS_SELECTOR, TARGET_POINTS))
    latest = dashboard.find_element(By.ID, "latest-target").text if points else None
    nodes = len(lineage.find_elements(By.CSS_SELECTOR, "a.node"))
    edges = len(lineage.find_elements(By.CSS_SELECTOR, "g.edge"))
    return {"target_points": points, "latest_target": latest, "nodes": nodes, "edges": edges}


def screenshots(dashboard: WebDriver, lineage: WebDriver) -> list[str]:
    SHOTS.mkdir(parents=True, exist_ok=True)
    paths = []
    for browser, name in ((dashboard, "dashboard"), (lineage, "lineage")):
        path = SHOTS / f"live-{name}.png"
        browser.save_screenshot(str(path))
        paths.append(str(path.relative_to(ROOT)))
    return paths


def watch(args: argparse.Namespace, runs_dir: Path) -> dict[str, Any]:
    base = f"http://127.0.0.1:{args.port}"
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    moved_s = grew_s = None
    with main_job(runs_dir, args.port, args.seconds / 60 + 2):
        api_s = wait_for_api(base, started, timeout_s=args.seconds)
        with chromium() as dashboard, chromium() as lineage:
            open_run_pages(dashboard, lineage, base)
            first = read_pages(dashboard, lineage)
            print(f"{'t (s)':>6}{'target pts':>11}{'latest':>9}{'nodes':>7}{'edges':>7}")
            while (elapsed := time.perf_counter() - started) < args.seconds:
                row = {"t_s": round(elapsed, 1)} | read_pages(dashboard, lineage)
                rows.append(row)
                print(
                    f"{row['t_s']:>6.0f}{row['target_points']:>11}{row['latest_target'] or '–':>9}"
                    f"{row['nodes']:>7}{row['edges']:>7}",
                    flush=True,
                )
                if moved_s is None and row["target_points"] >= 2:
                    moved_s = row["t_s"]
                if grew_s is None and row["nodes"] > first["nodes"]:
                    grew_s = row["t_s"]
                time.sleep(args.every)
            shots = screenshots(dashboard, lineage)
    return {
        "api_up_s": round(api_s, 1),
        "first_view": first,
        "curve_moved_s": moved_s,
        "tree_grew_s": grew_s,
        "rows": rows,
        "screenshots": shots,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=ANCHOR_S)
    parser.add_argument("--every", type=float, default=15.0, help="seconds between readings")
    parser.add_argument("--port", type=int, default=8010)
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        result = watch(args, Path(tmp))
    times = (result["curve_moved_s"], result["tree_grew_s"])
    met = all(t is not None and t <= ANCHOR_S for t in times)
    print(
        f"\nAPI up after {result['api_up_s']} s; curve moved after {result['curve_moved_s']} s, "
        f"tree grew after {result['tree_grew_s']} s (anchor: both <= {ANCHOR_S:.0f} s): "
        f"{'met' if met else 'MISSED'}"
    )
    path = write_figures(
        "web_live",
        {
            "command": "dicode run --profile quick (what make run runs), pages opened from /",
            "anchor_s": ANCHOR_S,
            "met": met,
            **load_averages(load_before),
            **result,
        },
    )
    print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
