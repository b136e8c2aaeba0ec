"""One command line shape for every world: `dicode train|eval|levels|teach --domain WORLD`.

Each world's student trains for a few iterations through `dicode train` (tiny layouts set with
`--set`, as the worlds' own tests use) and `dicode eval` measures the saved checkpoint with the
same protocol, reproducing the run's last evaluation. The flags are the same for every world;
an unknown world is refused with the known ones listed; Tetris's own commands (judges
included) live under `dicode tetris`.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dicode import domains
from dicode.domains.tetris.seeds import SEED_LEVEL_DIR
from services.cli import app

runner = CliRunner()

# A few iterations of a tiny student, a short protocol: each world trains and evaluates in
# seconds once compiled (the layouts of tests/student, tests/maze and tests/craftax).
TINY = {
    "tetris": ["envs_per_slot=4", "num_steps=8", "update_epochs=1", "num_minibatches=2",
               "column_features=4", "row_features=2", "hidden=8"],
    "maze": ["envs_per_slot=8", "pool_size=8", "target_refresh=2", "num_steps=16",
             "num_minibatches=2", "update_epochs=1", "embed_size=16", "hidden_size=16"],
    "craftax": ["envs_per_slot=4", "pool_size=2", "target_refresh=1", "num_steps=8",
                "num_minibatches=2", "update_epochs=1", "layer_size=32"],
}  # fmt: skip
PROTOCOL = {"tetris": ("2", "30"), "maze": ("1", "30"), "craftax": ("2", "30")}

TRAIN_FLAGS = ("--domain", "--steps", "--out", "--seed", "--eval-every", "--eval-games",
               "--eval-max-steps", "--set", "--anneal", "--resume")  # fmt: skip
EVAL_FLAGS = ("--domain", "--checkpoint", "--games", "--max-steps", "--all", "--json")


def _settings(items: list[str]) -> list[str]:
    return [arg for item in items for arg in ("--set", item)]


@pytest.mark.parametrize("world", sorted(TINY))
def test_train_then_eval_every_world(world: str, tmp_path: Path) -> None:
    games, max_steps = PROTOCOL[world]
    protocol = ["--eval-games", games, "--eval-max-steps", max_steps]
    trained = runner.invoke(
        app,
        ["train", "--domain", world, "--steps", "1", "--eval-every", "1", "--out", str(tmp_path),
         *protocol, *_settings(TINY[world])],
    )  # fmt: skip
    assert trained.exit_code == 0, trained.output
    config = json.loads((tmp_path / "config.json").read_text())
    assert domains.get(world).ppo_config(config).seed == 0  # the world reads its config back
    with (tmp_path / "curve.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [int(row["iteration"]) for row in rows] == [0, 1]  # one iteration covers the budget
    assert (tmp_path / "curve.png").is_file()
    headline = domains.get(world).target_metrics[0]
    evaluated = runner.invoke(
        app,
        ["eval", "--domain", world, "--checkpoint", str(tmp_path / "checkpoint.msgpack"),
         "--games", games, "--max-steps", max_steps, "--json"],
    )  # fmt: skip
    assert evaluated.exit_code == 0, evaluated.output
    figures = json.loads(evaluated.output.splitlines()[-1])
    # The checkpoint holds the trained policy: the same protocol gives the run's last figure.
    assert figures[headline] == pytest.approx(float(rows[-1][f"target_{headline}"]), rel=1e-5)
    assert isinstance(figures["skills"], dict) and figures["skills"]


def test_the_flags_are_the_same_for_every_world() -> None:
    for command, flags in (("train", TRAIN_FLAGS), ("eval", EVAL_FLAGS)):
        pages = {runner.invoke(app, [command, "--domain", w, "--help"]).output for w in TINY}
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
