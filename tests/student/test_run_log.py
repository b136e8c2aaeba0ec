"""A run's TensorBoard log, read back with TensorBoard's own reader.

`dicode train --domain tetris` with the tiny student: the losses, the target protocol's figures
and skills, the training target return, the slot mix and the throughput are where a user of
``tensorboard --logdir`` looks for them, at the run's env steps, with the values the run's
curve and ``dicode eval`` report; a resumed run continues its log; ``--no-tensorboard`` writes
none.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from typer.testing import CliRunner

from dicode.student.loop import read_curve
from dicode.student.run_log import TensorBoardLog
from services.cli import app
from tests.student.conftest import TINY
from tests.support.student_cli import settings_of

runner = CliRunner()
B = TINY.batch_size  # env steps per iteration, one iteration per session
PROTOCOL = ["--eval-games", "2", "--eval-max-steps", "30"]


def _train(folder: Path, iterations: int, *extra: str) -> None:
    result = runner.invoke(
        app,
        ["train", "--domain", "tetris", "--steps", str(iterations * B), "--eval-every",
         str(2 * B), "--out", str(folder), *PROTOCOL, *settings_of(TINY), *extra],
    )  # fmt: skip
    assert result.exit_code == 0, result.output


def _read(folder: Path) -> dict[str, list[tuple[int, float]]]:
    """Every scalar series of the folder's event files, as TensorBoard reads them."""
    events = EventAccumulator(str(folder))
    events.Reload()
    return {
        tag: [(e.step, e.value) for e in events.Scalars(tag)] for tag in events.Tags()["scalars"]
    }


def _steps(series: list[tuple[int, float]]) -> list[int]:
    return [step for step, _ in series]


def test_a_training_run_logs_what_it_learnt_at_its_env_steps(tmp_path: Path) -> None:
    _train(tmp_path, 4)
    logged = _read(tmp_path / "tensorboard")

    sessions = [B, 2 * B, 3 * B, 4 * B]
    for tag in ("ppo/policy_loss", "ppo/value_loss", "ppo/entropy", "slots/target_share"):
        assert _steps(logged[tag]) == sessions, tag
        assert all(math.isfinite(value) for _, value in logged[tag]), tag
    assert all(value > 0 for _, value in logged["ppo/entropy"])  # a young policy still explores
    assert [value for _, value in logged["slots/target_share"]] == [1.0] * 4  # target-only
    # Every Tetris episode places a piece (one point each) before it ends.
    returns = logged["train/target_mean_return"]
    assert returns and set(_steps(returns)) <= set(sessions)
    assert all(value >= 1 for _, value in returns)
    throughput = logged["train/env_steps_per_s"]
    assert _steps(throughput) == [2 * B, 4 * B] and all(value > 0 for _, value in throughput)

    # The protocol's figures at every evaluation are the run's curve.
    curve = read_curve(tmp_path / "curve.csv")
    assert [int(row["env_steps"]) for row in curve] == [0, 2 * B, 4 * B]
    figures = [column for column in curve[0] if column.startswith("target_")]
    assert "target_mean_lines" in figures
    for column in figures:
        expected = [(int(row["env_steps"]), row[column]) for row in curve]
        expected = [(step, value) for step, value in expected if math.isfinite(value)]
        tag = "target/" + column.removeprefix("target_")
        assert logged[tag] == [(step, pytest.approx(value)) for step, value in expected], tag

    # The last evaluation's skills are those `dicode eval` measures on the final checkpoint.
    measured = runner.invoke(
        app,
        ["eval", "--domain", "tetris", "--checkpoint", str(tmp_path / "checkpoint.msgpack"),
         "--games", "2", "--max-steps", "30", "--json"],
    )  # fmt: skip
    assert measured.exit_code == 0, measured.output
    skills = json.loads(measured.output.splitlines()[-1])["skills"]
    assert skills and {tag for tag in logged if tag.startswith("skills/")} == {
        f"skills/{name}" for name in skills
    }
    for name, rate in skills.items():
        assert logged[f"skills/{name}"][-1] == (4 * B, pytest.approx(rate))


def test_a_resumed_run_continues_its_log_and_a_new_one_replaces_it(tmp_path: Path) -> None:
    _train(tmp_path, 2)
    _train(tmp_path, 4, "--resume")
    logged = _read(tmp_path / "tensorboard")
    assert _steps(logged["ppo/entropy"]) == [B, 2 * B, 3 * B, 4 * B]
    # The resumed run measures its checkpoint again first: the same policy, the same figure.
    lines = logged["target/mean_lines"]
    assert _steps(lines) == [0, 2 * B, 2 * B, 4 * B] and lines[1][1] == lines[2][1]

    _train(tmp_path, 2)  # not resumed: the run starts over, and so does its log
    assert len(list((tmp_path / "tensorboard").glob("events.out.tfevents.*"))) == 1
    assert _steps(_read(tmp_path / "tensorboard")["ppo/entropy"]) == [B, 2 * B]


def test_no_tensorboard_writes_no_log(tmp_path: Path) -> None:
    _train(tmp_path, 1, "--no-tensorboard")
    assert (tmp_path / "curve.csv").is_file() and not (tmp_path / "tensorboard").exists()


def test_a_resumed_log_hides_what_came_after_the_checkpoint(tmp_path: Path) -> None:
    """A process that died after its checkpoint at step 20 had logged up to step 40; the
    resumed one trains 30 and 40 again, and TensorBoard shows each step once."""
    first = TensorBoardLog(tmp_path)
    for step in (10, 20, 30, 40):
        first.scalars(step, {"ppo/entropy": step})
    first.close()
    resumed = TensorBoardLog(tmp_path, resume_step=20)
    for step in (30, 40):
        resumed.scalars(step, {"ppo/entropy": step + 1})
    resumed.close()
    assert _read(tmp_path)["ppo/entropy"] == [(10, 10), (20, 20), (30, 31), (40, 41)]
