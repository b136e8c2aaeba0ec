"""One command line shape for every world: `dicode train|eval|levels|teach --domain WORLD`.

The flags are the same for every world; the student's config is the world's with `--set`
overrides, its step-size schedule spanning `--steps`; an unknown world is refused with the
known ones listed; Tetris's own commands (judges included) live under `dicode tetris`. Each
world trains and evaluates through these commands in its own tests
(`tests.support.student_cli`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from dicode import domains
from dicode.domains.tetris.seeds import SEED_LEVEL_DIR
from services.cli import app
from services.student_cli import student_config

runner = CliRunner()

TRAIN_FLAGS = ("--domain", "--steps", "--out", "--seed", "--eval-every", "--eval-games",
               "--eval-max-steps", "--set", "--anneal", "--resume")  # fmt: skip
EVAL_FLAGS = ("--domain", "--checkpoint", "--games", "--max-steps", "--all", "--json")


def test_the_config_is_the_worlds_with_overrides_and_a_schedule_over_the_steps() -> None:
    tetris, craftax = domains.get("tetris"), domains.get("craftax")
    plain = student_config(tetris, 10_000, 3, ["hidden=8"], anneal=False)
    assert (plain.hidden, plain.seed, plain.anneal_lr) == (8, 3, False)
    assert plain.num_iterations == tetris.ppo_config({}).num_iterations  # no schedule: untouched
    annealed = student_config(tetris, 10_000, 0, None, anneal=True)
    assert annealed.anneal_lr and annealed.num_iterations == -(-10_000 // annealed.batch_size)
    # Craftax anneals by default: its schedule spans --steps too, unless set.
    assert student_config(craftax, 20_000, 0, None, anneal=False).num_iterations == 5
    kept = student_config(craftax, 20_000, 0, ["num_iterations=7"], anneal=False)
    assert kept.num_iterations == 7
    with pytest.raises(typer.BadParameter, match="unknown PPOConfig key 'layer_size'"):
        student_config(tetris, 1, 0, ["layer_size=8"], anneal=False)  # a Craftax key


def test_the_flags_are_the_same_for_every_world() -> None:
    for command, flags in (("train", TRAIN_FLAGS), ("eval", EVAL_FLAGS)):
        pages = {
            runner.invoke(app, [command, "--domain", w, "--help"]).output for w in domains.names()
        }
        assert len(pages) == 1, f"`dicode {command} --help` differs between worlds"
        page = pages.pop()
        assert all(flag in page for flag in flags), page
        assert all(world in page for world in domains.names())  # --domain lists the worlds
    for command in (["levels", "validate"], ["levels", "show"], ["teach"], ["run"]):
        assert "--domain" in runner.invoke(app, [*command, "--help"]).output


def test_the_commands_are_one_per_task_and_world_extras_live_under_the_world() -> None:
    top = runner.invoke(app, ["--help"]).output
    for command in ("train", "eval", "levels", "teach", "run", "archive", "tetris"):
        assert command in top
    for gone in ("student", "craftax", "judge"):
        assert runner.invoke(app, [gone, "--help"]).exit_code == 2  # no such command
    tetris = runner.invoke(app, ["tetris", "--help"]).output
    assert all(extra in tetris for extra in ("placements", "eval", "show", "judge"))
    assert "--judge" in runner.invoke(app, ["tetris", "judge", "eval", "--help"]).output


def test_an_unknown_world_is_refused_naming_the_known_ones(tmp_path: Path) -> None:
    level = str(SEED_LEVEL_DIR / "02_first_line.py")
    for args in (
        ["train", "--out", str(tmp_path / "run")],
        ["eval", "--checkpoint", str(tmp_path / "checkpoint.msgpack")],
        ["levels", "validate", level],
        ["levels", "show", level],
        ["teach", "--parent", level, "--out", str(tmp_path / "children")],
    ):
        result = runner.invoke(app, [*args, "--domain", "chess"])
        assert result.exit_code == 2, (args, result.output)
        assert "unknown world 'chess'; known worlds: craftax, maze, tetris" in result.output
    assert not any(tmp_path.iterdir()), "nothing may be created for a refused command"


def test_eval_refuses_a_checkpoint_of_another_world(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"column_features": 4}))  # a Tetris key
    (tmp_path / "checkpoint.msgpack").write_bytes(b"")
    result = runner.invoke(
        app, ["eval", "--domain", "maze", "--checkpoint", str(tmp_path / "checkpoint.msgpack")]
    )
    assert result.exit_code == 2
    assert "column_features" in result.output and "maze student" in result.output
    missing = runner.invoke(
        app, ["eval", "--domain", "maze", "--checkpoint", str(tmp_path / "none.msgpack")]
    )
    assert missing.exit_code == 2 and "no checkpoint at" in missing.output
