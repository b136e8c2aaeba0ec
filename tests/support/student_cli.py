"""`dicode train` then `dicode eval` on one world, as a user runs them (Typer's CliRunner).

Each world's tests call :func:`check_train_then_eval` with their own tiny student config (the
one their conftest compiles), so the command line is exercised per world in that world's test
file, beside the world's other compiled tests.
"""

from __future__ import annotations

import csv
import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from dicode import domains
from services.cli import app


def settings_of(config: Any) -> list[str]:
    """``--set KEY=JSON`` arguments that turn the world's default config into ``config``."""
    default = type(config)()
    args: list[str] = []
    for field in fields(config):
        value = getattr(config, field.name)
        if value != getattr(default, field.name):
            args += ["--set", f"{field.name}={json.dumps(value)}"]
    return args


def check_train_then_eval(
    world: str, config: Any, folder: Path, games: int, max_steps: int
) -> None:
    """One iteration of ``config`` through ``dicode train``, then ``dicode eval`` of its
    checkpoint with the same protocol: the run's files are there and the evaluation reproduces
    the run's last figure (the checkpoint holds the trained policy)."""
    runner = CliRunner()
    protocol = ["--eval-games", str(games), "--eval-max-steps", str(max_steps)]
    trained = runner.invoke(
        app,
        ["train", "--domain", world, "--steps", "1", "--eval-every", "1", "--out", str(folder),
         *protocol, *settings_of(config)],
    )  # fmt: skip
    assert trained.exit_code == 0, trained.output
    stored = json.loads((folder / "config.json").read_text())
    assert domains.get(world).ppo_config(stored) == config  # the world reads its config back
    with (folder / "curve.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [int(row["iteration"]) for row in rows] == [0, 1]  # one iteration covers the budget
    assert (folder / "curve.png").is_file()
    evaluated = runner.invoke(
        app,
        ["eval", "--domain", world, "--checkpoint", str(folder / "checkpoint.msgpack"),
         "--games", str(games), "--max-steps", str(max_steps), "--json"],
    )  # fmt: skip
    assert evaluated.exit_code == 0, evaluated.output
    figures = json.loads(evaluated.output.splitlines()[-1])
    headline = domains.get(world).target_metrics[0]
    assert figures[headline] == pytest.approx(float(rows[-1][f"target_{headline}"]), rel=1e-5)
    assert isinstance(figures["skills"], dict) and figures["skills"]
