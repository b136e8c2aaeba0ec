"""The REST API over real HTTP (uvicorn + httpx) on an archive the real services filled.

(The API's shape on synthetic archives, on SQLite and PostgreSQL, is `test_api_listing.py`.)"""

from __future__ import annotations

import asyncio
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import replace

import httpx
import pytest

from archive_db import ArchiveRepository
from dicode import domains
from dicode.domains.tetris.seeds import seed_level_sources
from dicode.levels.pipeline import Validator
from dicode.settings import RunSettings
from services.api.app import create_app
from services.generator.service import Generator
from services.student.sessions import ArchiveStudent
from tests.services.conftest import TINY, ServerThread, new_run

TOKEN = "test-token-123"


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory, validator: Validator) -> Iterator[str]:
    """Seed levels, a few generated children and one student session with evaluations."""
    root = tmp_path_factory.mktemp("api")
    url = f"sqlite:///{root}/archive.sqlite"
    repo = ArchiveRepository.open(url)
    run_id = new_run(repo, "demo")
    generator = Generator(repo, run_id, TINY.generator, TINY.archive, validator=validator)
    asyncio.run(generator.run(max_attempts=4))
    ArchiveStudent(repo, run_id, root, TINY).session()
    repo.close()
    yield url


@pytest.fixture(scope="module")
def api(filled: str, validator: Validator) -> Iterator[httpx.Client]:
    app = create_app(filled, api_token=TOKEN, validator=validator)
    with ServerThread(app) as server, httpx.Client(base_url=server.url, timeout=60) as client:
        yield client


def test_health_runs_and_page(api: httpx.Client) -> None:
    assert api.get("/healthz").json()["status"] == "ok"
    runs = api.get("/api/runs").json()
    assert [r["name"] for r in runs] == ["demo"]
    run = api.get("/api/runs/demo").json()
    assert run["stats"]["levels"] >= 11 and run["config"]["profile"] == "test"
    assert api.get(f"/api/runs/{run['id']}").json()["name"] == "demo"
    page = api.get("/")
    assert page.status_code == 200 and "dicode archive" in page.text
    assert "/api/runs/{run}/levels" in api.get("/openapi.json").json()["paths"]


def test_the_web_page_finds_every_field_it_reads(api: httpx.Client) -> None:
    """The names ``static/index.html`` reads, route by route."""
    run = api.get("/api/runs").json()[-1]
    assert {"id", "name", "domain"} <= run.keys()
    metrics = api.get(f"/api/runs/{run['id']}/metrics").json()
    assert {"student", "target"} <= metrics.keys()
    page = api.get(f"/api/runs/{run['id']}/levels", params={"limit": 500, "active": "true"})
    assert "total" in page.json()
    listing = api.get(f"/api/runs/{run['id']}/levels", params={"limit": 500}).json()
    first = listing["items"][0]
    assert {"id", "status", "name", "description", "teacher", "active"} <= first.keys()
    evaluated = next(x for x in listing["items"] if x["success_rate"] is not None)
    level = api.get(f"/api/levels/{evaluated['id']}").json()
    wanted = {"id", "status", "name", "teacher", "success_rate", "score", "parents", "children"}
    assert wanted | {"description", "history", "bundle", "code"} <= level.keys()
    history = level["history"][0]
    per_session = {"student_iteration", "episodes", "success_rate", "mean_return", "target_change"}
    assert per_session <= history.keys()
    lineage = api.get(f"/api/levels/{evaluated['id']}/lineage", params={"depth": 2}).json()
    assert {"nodes", "edges"} <= lineage.keys()
    assert "text" in api.get(f"/api/levels/{evaluated['id']}/preview").json()


def test_levels_filtering_and_pagination(api: httpx.Client) -> None:
    everything = api.get("/api/runs/demo/levels", params={"limit": 500}).json()
    total = everything["total"]
    ids = [lvl["id"] for lvl in everything["items"]]
    first = api.get("/api/runs/demo/levels", params={"limit": 3}).json()
    second = api.get("/api/runs/demo/levels", params={"limit": 3, "offset": 3}).json()
    assert [x["id"] for x in first["items"] + second["items"]] == ids[:6]
    seeds = api.get("/api/runs/demo/levels", params={"teacher": "seed", "limit": 500}).json()
    assert seeds["total"] == len(seed_level_sources())
    assert all(x["teacher"] == "seed" for x in seeds["items"])
    by_status = sum(
        api.get("/api/runs/demo/levels", params={"status": s, "limit": 500}).json()["total"]
        for s in "ABCD"
    )
    assert by_status == total
    active = api.get("/api/runs/demo/levels", params={"active": True, "limit": 500}).json()
    assert all(x["active"] for x in active["items"])


def test_level_detail_lineage_and_graph(api: httpx.Client) -> None:
    children = [
        x for x in api.get("/api/runs/demo/levels", params={"teacher": "mutation"}).json()["items"]
    ]
    assert children, "the generator should have produced levels"
    child = api.get(f"/api/levels/{children[0]['id']}").json()
    assert child["code"] and child["description"] and child["parents"]
    assert child["bundle"]["pool_size"] == TINY.generator.pool_size
    assert child["bundle"]["arrays"]["board"][1:] == [20, 10]
    parent = api.get(f"/api/levels/{child['parents'][0]}").json()
    assert child["id"] in parent["children"]
    sub = api.get(f"/api/levels/{child['id']}/lineage", params={"depth": 1}).json()
    assert {"parent": child["parents"][0], "child": child["id"]} in sub["edges"]
    whole = api.get("/api/runs/demo/graph").json()
    assert len(whole["edges"]) >= len(children)
    graphml = api.get("/api/runs/demo/graph", params={"format": "graphml"})
    assert graphml.headers["content-type"].startswith("application/graphml+xml")
    ns = "{http://graphml.graphdrawing.org/xmlns}"
    nodes = ET.fromstring(graphml.content).findall(f".//{ns}node")
    assert len(nodes) == len(whole["nodes"])
    evaluated = [n for n in whole["nodes"] if n.get("success_rate") is not None]
    assert evaluated, "the student session should have evaluated some levels"
    history = api.get(f"/api/levels/{evaluated[0]['id']}").json()["history"]
    assert history and history[0]["episodes"] > 0


def test_attempts_and_metrics(api: httpx.Client) -> None:
    attempts = api.get("/api/runs/demo/attempts", params={"limit": 500}).json()["items"]
    assert len(attempts) >= 11 + 4
    accepted = api.get("/api/runs/demo/attempts", params={"verdict": "accepted"}).json()["items"]
    assert all(a["verdict"] == "accepted" and a["level_id"] for a in accepted)
    full = api.get(f"/api/attempts/{attempts[-1]['id']}").json()
    assert "code" in full and "prompts" in full
    series = api.get("/api/runs/demo/metrics").json()
    assert series["student"][0]["iteration"] == TINY.student.iterations_per_session
    assert (series["headline"], series["headline_label"]) == ("mean_lines", "target lines")
    text = api.get("/metrics").text
    assert 'dicode_archive_levels{run="demo"}' in text
    assert "dicode_api_requests_total" in text


def test_submitting_levels(api: httpx.Client) -> None:
    good = {"Authorization": f"Bearer {TOKEN}"}
    broken = api.post("/api/runs/demo/levels", json={"code": "def build(:\n"}, headers=good)
    assert broken.status_code == 422
    assert broken.json()["stage"] == "syntax" and broken.json()["attempt_id"]
    assert broken.json()["detail"].startswith("rejected at stage 'syntax'")
    stored = api.get(f"/api/attempts/{broken.json()['attempt_id']}").json()
    assert stored["teacher"] == "human" and stored["verdict"] == "rejected"
    source = next(iter(seed_level_sources().values()))
    # A fresh description makes a new level (content hashes include the description).
    code = source.replace('"""', '"""Submitted by hand. ', 1)
    made = api.post("/api/runs/demo/levels", json={"code": code, "parent_id": 1}, headers=good)
    assert made.status_code == 201, made.text
    assert made.json()["accepted"] and made.json()["detail"] is None
    level = api.get(f"/api/levels/{made.json()['level_id']}").json()
    assert level["teacher"] == "human" and level["parents"] == [1]
    assert api.post("/api/runs/demo/levels", json={"code": ""}, headers=good).status_code == 422
    assert api.post("/api/runs/demo/levels", json={"code": code}).status_code == 401
    missing = api.post(
        "/api/runs/demo/levels", json={"code": code, "parent_id": 99999}, headers=good
    )
    assert missing.status_code == 404 and missing.json()["detail"]


def test_settings_round_trip_through_the_stored_config() -> None:
    tweaked = replace(TINY, seed=7)
    assert RunSettings.from_dict(tweaked.to_dict(), domains.get(tweaked.domain)) == tweaked
