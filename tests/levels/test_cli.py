"""`dicode levels validate|show`: output and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dicode.domains.craftax.seed_levels import seed_level_source
from dicode.domains.tetris.seeds import SEED_LEVEL_DIR
from services.cli import app

HOSTILE_DIR = Path(__file__).resolve().parents[1] / "hostile_levels"
runner = CliRunner()


@pytest.fixture(autouse=True)
def compile_cache_in_test_tmp(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """`validate` turns on JAX's persistent compile cache: keep it out of the home directory."""
    monkeypatch.setenv("DICODE_JAX_CACHE", str(tmp_path_factory.getbasetemp() / "jax-cache"))


def test_validate_accepted_level_prints_json_and_exits_0() -> None:
    result = runner.invoke(
        app, ["levels", "validate", str(SEED_LEVEL_DIR / "02_first_line.py"), "--json"]
    )
    assert result.exit_code == 0, result.output
    verdict = json.loads(result.output)
    assert verdict["verdict"] == "accepted" and verdict["stage"] == "accepted"
    assert verdict["error"] is None
    assert {"syntax", "static_policy", "sandbox_build", "schema", "rollouts"} <= set(
        verdict["timings"]
    )
    assert "heuristic_success" in verdict["difficulty"]


def test_validate_rejected_level_exits_1_with_stage_and_error() -> None:
    result = runner.invoke(app, ["levels", "validate", str(HOSTILE_DIR / "import_os.py"), "--json"])
    assert result.exit_code == 1
    verdict = json.loads(result.output)
    assert verdict["verdict"] == "rejected" and verdict["stage"] == "static_policy"
    assert "import of 'os'" in verdict["error"]


def test_bad_usage_exits_2(tmp_path: Path) -> None:
    assert runner.invoke(app, ["levels", "validate", str(tmp_path / "missing.py")]).exit_code == 2
    level = SEED_LEVEL_DIR / "02_first_line.py"
    assert (
        runner.invoke(app, ["levels", "validate", str(level), "--domain", "chess"]).exit_code == 2
    )
    assert runner.invoke(app, ["levels", "validate"]).exit_code == 2


def test_show_renders_instances_and_a_png(tmp_path: Path) -> None:
    png = tmp_path / "level.png"
    result = runner.invoke(
        app,
        ["levels", "show", str(SEED_LEVEL_DIR / "06_garbage_dig.py"), "--instances", "2",
         "--png", str(png)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "Garbage dig" in result.output and "#0" in result.output and "#1" in result.output
    assert "goal: clear 4 lines within 40 pieces" in result.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_show_of_a_rejected_level_exits_1() -> None:
    result = runner.invoke(app, ["levels", "show", str(HOSTILE_DIR / "spawn_blocked.py")])
    assert result.exit_code == 1


def test_show_renders_a_craftax_level_and_a_png(tmp_path: Path) -> None:
    level = tmp_path / "fight_zombies.py"
    level.write_text(seed_level_source("fight_zombies"), encoding="utf-8")
    png = tmp_path / "level.png"
    args = ["levels", "show", str(level), "--domain", "craftax", "--instances", "1"]
    result = runner.invoke(app, [*args, "--png", str(png)])
    assert result.exit_code == 0, result.output
    assert "goal: eat_cow, defeat_zombie" in result.output
    assert "rules: spawn_melee x0, mob_damage x0.5" in result.output
    assert "#0" in result.output and "#1" not in result.output and "@ player" in result.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
