"""The API's shape over real HTTP (uvicorn + httpx) on archives written through the repository,
on SQLite and PostgreSQL: every answer documented, listings paged and filtered by the
database, 422 (never 500) for values no backend can take, 404 for unknown records, the guard."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from archive_db import ArchiveRepository
from archive_db.kinds import SESSION_EVENT, TARGET_EVENT
from archive_db.records import NewAttempt, NewLevel, content_hash
from dicode import domains
from dicode.domains.tetris.seeds import seed_level_sources
from dicode.levels.pipeline import Validator
from dicode.levels.sandbox import UNSAFE_OPT_IN
from dicode.levels.verdict import SANDBOX_UNAVAILABLE
from services.api.app import create_app
from tests.services.conftest import ServerThread

TOKEN = "listing-token"
LEVELS = 30
TEACHERS = ("seed", "mutation", "llm")
ROUTES = {
    ("get", "/"),
    ("get", "/healthz"),
    ("get", "/metrics"),
    ("get", "/api/runs"),
    ("get", "/api/runs/{run}"),
    ("get", "/api/runs/{run}/metrics"),
    ("get", "/api/runs/{run}/levels"),
    ("post", "/api/runs/{run}/levels"),
    ("get", "/api/runs/{run}/attempts"),
    ("get", "/api/runs/{run}/graph"),
    ("get", "/api/runs/{run}/graph/view"),
    ("get", "/api/runs/{run}/dashboard"),
    ("get", "/runs/{run}"),
    ("get", "/runs/{run}/lineage"),
    ("get", "/runs/{run}/attempts"),
    ("get", "/levels/{level_id}"),
    ("post", "/api/runs/{run}/generation/pause"),
    ("post", "/api/runs/{run}/generation/resume"),
    ("get", "/api/levels/{level_id}"),
    ("get", "/api/levels/{level_id}/lineage"),
    ("get", "/api/levels/{level_id}/preview"),
    ("get", "/api/levels/{level_id}/preview.png"),
    ("get", "/api/attempts/{attempt_id}"),
    ("get", "/api/experiments"),
    ("get", "/api/experiments/{name}"),
    ("get", "/experiments"),
    ("get", "/experiments/{name}"),
}


def fill(url: str) -> list[int]:
    """Run ``listed``: 30 levels in chains of five (teachers, letters, sampling marks in known
    patterns, ids 1..30 in order), a rejected attempt per fourth level, student and target
    events; run ``other`` holds noise that must never show in ``listed``."""
    repo = ArchiveRepository.open(url)
    run = repo.runs.create("listed", domain="tetris", seed=0, config={"profile": "test"}).id
    other = repo.runs.create("other", domain="tetris", seed=1).id
    ids: list[int] = []
    for i in range(LEVELS):
        teacher = TEACHERS[i % 3]
        parents = (ids[-1],) if i % 5 else ()
        level = NewLevel(
            domain="tetris",
            content_hash=content_hash(str(i)),
            teacher=teacher,
            code=f"# level {i}",
            description=f"level {i} " + "x" * 300,
            parent_ids=parents,
        )
        attempt = NewAttempt(
            teacher=teacher,
            stage_reached="accepted",
            verdict="accepted",
            parent_id=parents[0] if parents else None,
            code=f"# level {i}",
            prompts=[{"role": "user", "content": f"make level {i}"}],
        )
        recorded = repo.attempts.record(run, attempt, level)
        assert recorded.level is not None
        ids.append(recorded.level.id)
        if i % 4 == 0:
            rejected = NewAttempt(
                teacher=teacher,
                stage_reached="syntax" if i % 8 else "sandbox",
                verdict="rejected",
                parent_id=ids[0],
                code="def build(:",
                failing_stage="syntax" if i % 8 else "sandbox",
                error=f"error {i}",
            )
            repo.attempts.record(run, rejected)
        repo.levels.insert(other, NewLevel(domain="tetris", content_hash=str(i), teacher="seed"))
    for i, level_id in enumerate(ids):
        repo.levels.update(level_id, status="ABCD"[i % 4], score=i / 100)
    repo.mark_sampled(ids[::2], step=1)
    repo.active.force(ids[3], True)
    for iteration in (2, 4):
        repo.events.add(SESSION_EVENT, {"iteration": iteration, "env_steps": 10}, run_id=run)
        repo.events.add(TARGET_EVENT, {"iteration": iteration, "mean_lines": 1.5}, run_id=run)
    repo.close()
    return ids


@pytest.fixture
def api(archive_url: str) -> Iterator[tuple[httpx.Client, list[int]]]:
    ids = fill(archive_url)
    with (
        ServerThread(create_app(archive_url, api_token=TOKEN)) as server,
        httpx.Client(base_url=server.url, timeout=30) as client,
    ):
        yield client, ids


def _ids(answer: httpx.Response) -> list[int]:
    assert answer.status_code == 200, answer.text
    return [item["id"] for item in answer.json()["items"]]


def test_every_route_documents_its_answer(sqlite_url: str) -> None:
    app = create_app(sqlite_url)
    with ServerThread(app) as server:
        doc = httpx.get(f"{server.url}/openapi.json", timeout=30).json()
    schemas = doc["components"]["schemas"]
    assert {(m, p) for p, ops in doc["paths"].items() for m in ops} == ROUTES
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            where = f"{method.upper()} {path}"
            success = [code for code in op["responses"] if code in ("200", "201")]
            assert success, f"{where}: no success response"
            for code, answer in op["responses"].items():
                assert answer.get("content"), f"{where} {code}: no content declared"
                for media, body in answer["content"].items():
                    if "json" in media or not code.startswith("2"):
                        assert media == "application/json", f"{where} {code}: {media}"
                        assert _declared(body.get("schema", {})), f"{where} {code}: no schema"
                    else:  # PNG, HTML, Prometheus text, GraphML: the media type is the contract
                        assert media.split(";")[0] in {
                            "image/png",
                            "text/html",
                            "text/plain",
                            "application/graphml+xml",
                        }, f"{where}: {media}"
            if method == "post":
                assert op.get("security") == [{"HTTPBearer": []}], f"{where}: not guarded"
    for ref in _refs(doc):
        assert ref.removeprefix("#/components/schemas/") in schemas, ref


def _declared(schema: dict[str, Any]) -> bool:
    """A component reference, an array of them, or a choice among them."""
    if "$ref" in schema:
        return True
    if schema.get("type") == "array":
        return _declared(schema.get("items", {}))
    return bool(schema.get("anyOf")) and all(_declared(s) for s in schema["anyOf"])


def _refs(node: object) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                yield value
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def test_level_pages_and_filters(api: tuple[httpx.Client, list[int]]) -> None:
    client, ids = api
    path = "/api/runs/listed/levels"
    first = client.get(path).json()
    assert (first["total"], first["offset"], first["limit"]) == (LEVELS, 0, 50)
    assert [x["id"] for x in first["items"]] == ids
    assert len(first["items"][0]["description"]) == 200  # listings carry a summary
    pages = [_ids(client.get(path, params={"limit": 7, "offset": k})) for k in range(0, 35, 7)]
    assert [level for page in pages for level in page] == ids
    assert _ids(client.get(path, params={"offset": 10**9})) == []
    run_id = client.get("/api/runs/listed").json()["id"]
    assert _ids(client.get(f"/api/runs/{run_id}/levels", params={"limit": 4})) == ids[:4]
    cases: list[tuple[dict[str, Any], list[int]]] = [
        ({"status": "C"}, [x for i, x in enumerate(ids) if i % 4 == 2]),
        ({"teacher": "llm"}, [x for i, x in enumerate(ids) if i % 3 == 2]),
        ({"sampled": "true"}, ids[::2]),
        ({"sampled": "false"}, ids[1::2]),
        ({"active": "true"}, [ids[3]]),
        ({"status": "A", "teacher": "seed"}, [x for i, x in enumerate(ids) if i % 12 == 0]),
        ({"teacher": "h\u00e4ndisch"}, []),
    ]
    for params, expected in cases:
        answer = client.get(path, params={**params, "limit": 2, "offset": 1})
        assert answer.json()["total"] == len(expected), params
        assert _ids(answer) == expected[1:3], params
    other = client.get("/api/runs/other/levels")
    assert other.json()["total"] == LEVELS and not set(_ids(other)) & set(ids)


def test_attempt_pages_and_filters(api: tuple[httpx.Client, list[int]]) -> None:
    client, ids = api
    path = "/api/runs/listed/attempts"
    everything = client.get(path, params={"limit": 500}).json()
    assert everything["total"] == LEVELS + LEVELS // 4 + 1 == len(everything["items"])
    assert "code" not in everything["items"][0]
    full = client.get(path, params={"full": "true", "limit": 1}).json()["items"][0]
    assert full["code"] == "# level 0" and full["prompts"][0]["content"] == "make level 0"
    page = client.get(path, params={"limit": 5, "offset": 5}).json()
    assert [a["id"] for a in page["items"]] == [a["id"] for a in everything["items"][5:10]]
    rejected = client.get(path, params={"verdict": "rejected"}).json()
    assert rejected["total"] == 8 and {a["verdict"] for a in rejected["items"]} == {"rejected"}
    sandbox = client.get(path, params={"failing_stage": "sandbox"}).json()["items"]
    assert [a["error"] for a in sandbox] == ["error 0", "error 8", "error 16", "error 24"]
    llm = client.get(path, params={"teacher": "llm", "verdict": "rejected"}).json()["items"]
    assert [a["error"] for a in llm] == ["error 8", "error 20"]
    children = client.get(path, params={"parent_id": ids[0], "verdict": "accepted"}).json()
    assert [a["level_id"] for a in children["items"]] == [ids[1]]
    one = client.get(f"/api/attempts/{full['id']}").json()
    assert one == full


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/api/runs/listed/levels", {"offset": -1}),
        ("/api/runs/listed/levels", {"offset": 10**30}),
        ("/api/runs/listed/levels", {"limit": 0}),
        ("/api/runs/listed/levels", {"limit": 501}),
        ("/api/runs/listed/levels", {"limit": "ten"}),
        ("/api/runs/listed/levels", {"status": "E"}),
        ("/api/runs/listed/levels", {"sampled": "perhaps"}),
        ("/api/runs/listed/levels", {"teacher": "se\x00ed"}),
        ("/api/runs/listed/levels", {"teacher": "\x1b[31m"}),
        ("/api/runs/listed/levels", {"teacher": "x" * 201}),
        ("/api/runs/listed/attempts", {"teacher": "a\x01b", "offset": 10**30}),
        ("/api/runs/listed/attempts", {"failing_stage": "sand\x00box"}),
        ("/api/runs/listed/attempts", {"verdict": "maybe"}),
        ("/api/runs/listed/attempts", {"parent_id": 2**63}),
        ("/api/runs/listed/metrics", {"after_id": 10**30}),
        ("/api/runs/listed/graph", {"format": "gif"}),
        ("/api/runs/listed/graph/view", {"max_nodes": 9}),
        ("/api/runs/listed/graph/view", {"max_nodes": 20_001}),
        ("/api/runs/listed/attempts", {"level_id": 0}),
        ("/runs/li%00sted", {}),
        ("/levels/0", {}),
        ("/api/runs/li%00sted", {}),
        ("/api/levels/1/lineage", {"depth": 0}),
        ("/api/levels/1/lineage", {"depth": 51}),
        ("/api/levels/1/preview", {"instances": 9}),
        (f"/api/levels/{10**30}", {}),
        ("/api/levels/0", {}),
        ("/api/levels/abc", {}),
        (f"/api/attempts/{2**63}", {}),
    ],
)
def test_bad_values_are_422_never_500(
    api: tuple[httpx.Client, list[int]], path: str, params: dict[str, Any]
) -> None:
    client, _ = api
    answer = client.get(path, params=params)
    assert answer.status_code == 422, answer.text
    assert answer.json()["detail"]


@pytest.mark.parametrize(
    "path",
    [
        "/api/runs/nope",
        "/api/runs/9223372036854775807",
        "/api/runs/99999999999999999999999",
        "/api/runs/nope/levels",
        "/api/runs/nope/attempts",
        "/api/runs/nope/graph",
        "/api/runs/nope/graph/view",
        "/api/runs/nope/dashboard",
        "/runs/nope",
        "/runs/nope/lineage",
        "/runs/nope/attempts",
        "/levels/999999",
        "/api/levels/999999",
        "/api/levels/999999/lineage",
        "/api/levels/999999/preview",
        "/api/levels/999999/preview.png",
        "/api/attempts/999999",
    ],
)
def test_unknown_records_are_404(api: tuple[httpx.Client, list[int]], path: str) -> None:
    client, _ = api
    answer = client.get(path)
    assert answer.status_code == 404 and answer.headers["content-type"] == "application/json"
    assert isinstance(answer.json()["detail"], str)


def test_lineage_graph_and_metrics(api: tuple[httpx.Client, list[int]]) -> None:
    client, ids = api
    # Chains of five: ids[0] → … → ids[4], ids[5] → … → ids[9], …
    around = client.get(f"/api/levels/{ids[2]}/lineage", params={"depth": 1}).json()
    assert (around["root"], around["depth"]) == (ids[2], 1)
    assert [n["id"] for n in around["nodes"]] == ids[1:4]
    assert around["edges"] == [
        {"parent": ids[1], "child": ids[2]},
        {"parent": ids[2], "child": ids[3]},
    ]
    whole = client.get(f"/api/levels/{ids[2]}/lineage", params={"depth": 50}).json()
    assert [n["id"] for n in whole["nodes"]] == ids[:5]
    graph = client.get("/api/runs/listed/graph").json()
    assert [n["id"] for n in graph["nodes"]] == ids and len(graph["edges"]) == LEVELS - 6
    detail = client.get(f"/api/levels/{ids[2]}").json()
    assert (detail["parents"], detail["children"]) == ([ids[1]], [ids[3]])
    assert detail["description"].endswith("x" * 300) and detail["bundle"] is None
    series = client.get("/api/runs/listed/metrics").json()
    assert [p["iteration"] for p in series["student"]] == [2, 4]
    assert series["target"][0]["mean_lines"] == 1.5
    after = series["target"][0]["event_id"]
    later = client.get("/api/runs/listed/metrics", params={"after_id": after}).json()
    assert [p["iteration"] for p in later["target"]] == [4]


def test_mutations_need_the_token_compared_as_bytes(
    api: tuple[httpx.Client, list[int]], archive_url: str
) -> None:
    client, _ = api
    pause = "/api/runs/listed/generation/pause"
    for headers in (
        {},
        {"Authorization": "Bearer"},
        {"Authorization": "Basic " + TOKEN},
        {"Authorization": "Bearer nope"},
        {"Authorization": f"Bearer {TOKEN}x"},
        {"Authorization": "Bearer t\u00e9st-\u00fc".encode("latin-1")},
    ):
        answer = client.post(pause, headers=headers)
        assert answer.status_code == 401, (headers, answer.text)
        assert answer.headers["www-authenticate"] == "Bearer" and answer.json()["detail"]
    good = {"Authorization": f"Bearer {TOKEN}"}
    assert client.post(pause, headers=good).json() == {"run": "listed", "generation_paused": True}
    assert client.get("/api/runs/listed").json()["generation_paused"] is True
    assert client.post("/api/runs/nope/generation/resume", headers=good).status_code == 404
    resume = client.post("/api/runs/listed/generation/resume", headers=good)
    assert resume.json()["generation_paused"] is False
    with ServerThread(create_app(archive_url)) as server:
        disabled = httpx.post(f"{server.url}{pause}", headers=good, timeout=30)
    assert disabled.status_code == 403 and "DICODE_API_TOKEN" in disabled.json()["detail"]


def test_a_submission_without_sandbox_walls_is_503_and_stored(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A host without bubblewrap: the level does not run, the attempt is kept, the answer
    says why (503)."""
    fill(sqlite_url)
    monkeypatch.setenv("PATH", "/nonexistent-dicode-path")
    monkeypatch.delenv(UNSAFE_OPT_IN, raising=False)
    level = next(iter(seed_level_sources().values()))
    good = {"Authorization": f"Bearer {TOKEN}"}
    with (
        Validator(domains.get("tetris"), pool_size=2, warm=1, rollouts=False) as walled_off,
        ServerThread(create_app(sqlite_url, api_token=TOKEN, validator=walled_off)) as server,
        httpx.Client(base_url=server.url, timeout=30) as client,
    ):
        answer = client.post("/api/runs/listed/levels", json={"code": level}, headers=good)
        assert answer.status_code == 503, answer.text
        body = answer.json()
        assert (body["accepted"], body["stage"], body["level_id"]) == (
            False,
            SANDBOX_UNAVAILABLE,
            None,
        )
        assert "bubblewrap" in body["detail"]
        stored = client.get(f"/api/attempts/{body['attempt_id']}").json()
    assert stored["failing_stage"] == SANDBOX_UNAVAILABLE and stored["code"] == level


def test_dashboard_and_drawable_graph(api: tuple[httpx.Client, list[int]]) -> None:
    """The archive browser's two aggregate routes on both backends (time buckets in SQL)."""
    client, ids = api
    board = client.get("/api/runs/listed/dashboard").json()
    assert [(p["iteration"], p["env_steps"], p["value"]) for p in board["target"]] == [
        (2, 10, 1.5),
        (4, 10, 1.5),
    ]
    assert sum(board["status"][-1]["counts"].values()) == LEVELS  # never evaluated: all D
    assert sum(s["attempts"] for s in board["stages"]) == LEVELS + LEVELS // 4 + 1
    assert sum(b["attempts"] for b in board["latency"]) == LEVELS + LEVELS // 4 + 1
    view = client.get("/api/runs/listed/graph/view", params={"max_nodes": 10}).json()
    assert view["total"] == LEVELS and len(view["nodes"]) <= 10
    assert sum(n["hidden"] for n in view["nodes"]) + len(view["nodes"]) == LEVELS
    made = client.get("/api/runs/listed/attempts", params={"level_id": ids[1]}).json()
    assert [a["level_id"] for a in made["items"]] == [ids[1]]
