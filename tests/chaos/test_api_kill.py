"""`kill -9` of the API process while it serves readers and a generator writes; a restart on
the same port serves the same rows (the API holds nothing the archive does not)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.chaos.conftest import (
    RUN,
    Service,
    assert_whole,
    free_port,
    new_run,
    snapshot,
    wait_for,
)

pytestmark = pytest.mark.chaos


def _served(base: str) -> dict[str, dict[int, dict[str, Any]]]:
    """Every level and attempt of the run as the API serves them (one page each: < 500)."""
    served: dict[str, dict[int, dict[str, Any]]] = {}
    for kind in ("levels", "attempts"):
        page = httpx.get(f"{base}/api/runs/{RUN}/{kind}", params={"limit": 500}, timeout=30)
        page.raise_for_status()
        body = page.json()
        assert body["total"] == len(body["items"]) < 500
        served[kind] = {int(item["id"]): item for item in body["items"]}
    return served


def _healthy(base: str) -> bool:
    try:
        return httpx.get(f"{base}/healthz", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def _read_until(base: str, stop: threading.Event, answers: list[int]) -> None:
    """A reader that keeps asking (the API is killed under it)."""
    while not stop.is_set():
        try:
            response = httpx.get(f"{base}/api/runs/{RUN}/levels", params={"limit": 50}, timeout=5)
            answers.append(response.status_code)
        except httpx.HTTPError:
            answers.append(0)


def test_api_kill_9_then_restart_serves_the_same_rows(
    sqlite_url: str, services: Callable[..., Service]
) -> None:
    run_id = new_run(sqlite_url)
    generator = services("generator", "--db", sqlite_url, "--run", RUN).start()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    api = services("api", "--db", sqlite_url, "--port", str(port), "--log-level", "warning")
    api.start()
    wait_for(lambda: api.check_alive() or _healthy(base), 120, "the API to answer")
    wait_for(lambda: generator.check_alive() or len(_served(base)["levels"]) >= 12, 240,
             "generated levels to be served")

    stop, answers = threading.Event(), []
    reader = threading.Thread(target=_read_until, args=(base, stop, answers), daemon=True)
    reader.start()
    wait_for(lambda: len(answers) >= 3, 60, "the reader's first answers", poll=0.1)
    before = _served(base)
    api.kill9()  # mid-work: the reader is between requests or inside one
    killed_at = len(answers)
    api.start()
    wait_for(lambda: api.check_alive() or _healthy(base), 120, "the restarted API to answer")
    wait_for(lambda: len(answers) >= killed_at + 3, 60, "answers after the restart", poll=0.1)
    stop.set()
    reader.join(timeout=30)
    generator.kill9()  # a quiet archive, so the final listing can be compared exactly

    after = _served(base)
    rows = snapshot(sqlite_url, run_id)
    assert_whole(rows)
    for kind in ("levels", "attempts"):
        changed = [i for i, item in before[kind].items() if after[kind].get(i) != item]
        assert not changed, f"{kind} served differently after the restart: {changed[:10]}"
    assert set(after["levels"]) == set(rows.levels)
    assert set(after["attempts"]) == set(rows.attempts)
    assert answers[-1] == 200 and set(answers) <= {0, 200}  # refused while down, never a 5xx
    print(f"\nserved {len(before['levels'])} levels before the kill, {len(after['levels'])} "
          f"after; {answers.count(0)} reads refused while the API was down")
