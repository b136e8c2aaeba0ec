"""`dicode archive stats|export` on a real archive."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
from typer.testing import CliRunner

from archive_db import ArchiveRepository
from archive_db.records import NewAttempt, NewLevel, content_hash
from services.cli import app

runner = CliRunner()


def _fill(url: str) -> tuple[int, int]:
    repo = ArchiveRepository.open(url)
    run = repo.runs.create("demo", domain="tetris", seed=0)
    root = repo.levels.insert(run.id, NewLevel("tetris", content_hash("r"), "seed", code="R")).id
    child = repo.attempts.record(
        run.id,
        NewAttempt(teacher="mutation", stage_reached="done", verdict="accepted", parent_id=root),
        NewLevel(
            "tetris",
            content_hash("c"),
            "mutation",
            code="C",
            description="harder",
            parent_ids=(root,),
        ),
    ).level
    assert child is not None
    repo.attempts.record(
        run.id,
        NewAttempt(
            teacher="mutation",
            stage_reached="sandbox",
            verdict="rejected",
            failing_stage="sandbox",
            error="timeout after 10 s",
        ),
    )
    repo.record_evaluation(root, student_iteration=1, episodes=4, successes=3)
    repo.active.force(root, True)
    repo.close()
    return root, child.id


def test_stats_json_has_the_documented_shape(archive_url: str) -> None:
    _fill(archive_url)
    result = runner.invoke(app, ["archive", "stats", "--db", archive_url, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "levels": 2,
        "accepted": 1,
        "rejected": 1,
        "edges": 1,
        "active": 1,
        "by_status": {"A": 1, "B": 0, "C": 0, "D": 1},
    }
    by_run = runner.invoke(app, ["archive", "stats", "--db", archive_url, "--run", "demo"])
    assert by_run.exit_code == 0 and "levels: 2" in by_run.stdout


def test_export_graphml_and_json(sqlite_url: str, tmp_path: Path) -> None:
    root, child = _fill(sqlite_url)
    graphml = tmp_path / "out" / "lineage.graphml"
    result = runner.invoke(
        app, ["archive", "export", "--db", sqlite_url, "--format", "graphml", "--out", str(graphml)]
    )
    assert result.exit_code == 0, result.output
    graph = nx.read_graphml(graphml)
    assert set(graph.edges) == {(str(root), str(child))}
    assert graph.nodes[str(child)]["code"] == "C"
    assert graph.nodes[str(root)]["status"] == "A"
    as_json = tmp_path / "lineage.json"
    result = runner.invoke(app, ["archive", "export", "--db", sqlite_url, "--out", str(as_json)])
    assert result.exit_code == 0, result.output
    payload = json.loads(as_json.read_text())
    assert payload["edges"] == [{"parent": root, "child": child}]
    nodes = {n["id"]: n for n in payload["nodes"]}
    assert nodes[child]["description"] == "harder" and nodes[root]["success_rate"] == 0.75


def test_bad_input_gets_a_clear_error(tmp_path: Path, sqlite_url: str) -> None:
    missing = runner.invoke(app, ["archive", "stats", "--db", f"sqlite:///{tmp_path}/none.sqlite"])
    assert missing.exit_code == 2 and "no archive at" in missing.output
    assert not (tmp_path / "none.sqlite").exists()
    bogus = runner.invoke(app, ["archive", "stats", "--db", "mysql+nothing://x/y"])
    assert bogus.exit_code == 2 and "error:" in bogus.output
    _fill(sqlite_url)
    no_run = runner.invoke(app, ["archive", "stats", "--db", sqlite_url, "--run", "ghost"])
    assert no_run.exit_code == 2 and "no run named 'ghost'" in no_run.output
