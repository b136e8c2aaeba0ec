"""Maze levels through the real sandbox and validation pipeline: every seed level is accepted,
broken levels are refused at the right stage with a clear message, and the CLI works."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dicode import domains
from dicode.domains.maze.seed_levels import SEED_LEVEL_NAMES
from dicode.levels.pipeline import Validator
from dicode.levels.render import render_instances_text
from services.cli import app
from tests.maze.conftest import POOL

SEED_DIR = Path(__file__).resolve().parents[2] / "dicode" / "domains" / "maze" / "seed_levels"
runner = CliRunner()


@pytest.fixture(autouse=True)
def compile_cache_in_test_tmp(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """`validate` turns on JAX's persistent compile cache: keep it out of the home directory."""
    monkeypatch.setenv("DICODE_JAX_CACHE", str(tmp_path_factory.getbasetemp() / "jax-cache"))


@pytest.mark.parametrize("name", SEED_LEVEL_NAMES)
def test_every_seed_level_is_accepted(
    name: str, validator: Validator, seed_sources: dict[str, str]
) -> None:
    verdict = validator.validate(seed_sources[name], seed=1)
    assert verdict.accepted, (verdict.stage, verdict.error)
    assert verdict.bundle is not None and verdict.bundle.pool_size == POOL
    assert verdict.bundle.goal == {"reach_goal": 1, "max_steps": 250}
    d = verdict.difficulty
    assert d["oracle_success"] == 1.0
    assert d["shortest_path"] >= 1 and 0.0 <= d["random_success"] <= 1.0
    assert {"wall_density", "dead_ends", "oracle_steps", "random_return"} <= set(d)


def test_the_seed_levels_go_from_easy_to_the_target_game(
    validator: Validator, seed_sources: dict[str, str]
) -> None:
    assert SEED_LEVEL_NAMES[-1] == "target_game"
    assert domains.get("maze").target_source() == seed_sources["target_game"]
    first = validator.validate(seed_sources["empty_room"]).difficulty
    assert first["shortest_path"] == 2 and first["random_success"] > 0.5


def _level(body: str) -> str:
    return f'"""A test maze."""\n\n\ndef build(level, rng):\n{body}'


@pytest.mark.parametrize(
    ("body", "stage", "message"),
    [
        ("    level.room(4, 4, 8, 8)\n    level.start(0, 0)\n    level.goal(6, 6)\n",
         "rollouts", "impossible goal: in 8 of 8 instances the goal cannot be reached"),
        ("    level.start(0, 0)\n    level.goal(0, 0)\n",
         "schema", r"instance 0: the start and the goal are the same cell (0, 0)"),
        ("    level.start(3, 3)\n    level.goal(5, 5)\n    level.wall(3, 3)\n",
         "schema", "instance 0: the start (3, 3) is on a wall"),
        ("    level.wall(20, 3)\n", "sandbox_build", "level.wall: row must be in 0..12, got 20"),
        ("    level.fill(0, 0, 12, 12)\n", "schema", "no free cell was left for a random start"),
        ("    import os\n", "static_policy", "os"),
    ],
)  # fmt: skip
def test_broken_levels_are_refused_with_a_clear_message(
    body: str, stage: str, message: str, validator: Validator
) -> None:
    verdict = validator.validate(_level(body))
    assert not verdict.accepted
    assert verdict.stage == stage, verdict.error
    assert verdict.error is not None and message in verdict.error


def test_an_unreachable_goal_in_some_instances_only_is_refused(validator: Validator) -> None:
    body = (
        "    level.start(0, 0)\n"
        "    level.goal(6, 6)\n"
        "    if rng.random() < 0.5:\n"
        "        level.room(5, 5, 7, 7)\n"
    )
    verdict = validator.validate(_level(body), seed=2)
    assert verdict.stage == "rollouts" and verdict.error is not None
    assert "walls cut the goal (6, 6) off from the start (0, 0)" in verdict.error


def test_cli_validate_exits_0_and_show_renders(tmp_path: Path) -> None:
    path = SEED_DIR / "small_labyrinth.py"
    result = runner.invoke(
        app, ["levels", "validate", "--domain", "maze", str(path), "--pool-size", "4", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["verdict"] == "accepted"
    png = tmp_path / "maze.png"
    result = runner.invoke(
        app,
        ["levels", "show", "--domain", "maze", str(path), "--instances", "2", "--png", str(png)],
    )
    assert result.exit_code == 0, result.output
    assert "Small labyrinth" in result.output and "shortest path 34 moves" in result.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_render_through_the_shared_renderer(
    validator: Validator, seed_sources: dict[str, str]
) -> None:
    verdict = validator.validate(seed_sources["two_rooms"])
    assert verdict.bundle is not None
    text = render_instances_text(domains.get("maze"), verdict.bundle, 2)
    assert text.startswith("Two rooms:") and "#1:" in text and "<" in text and "G" in text
