"""A checkpoint resumes training exactly where it stopped."""

from __future__ import annotations

from pathlib import Path

import jax
import numpy as np

from dicode.domains.tetris.student.trainer import TetrisSlotTrainer
from dicode.student.loop import StudentLoop
from tests.student.conftest import TINY


def _runner(loop: StudentLoop) -> object:
    runner = loop.trainer.runner  # type: ignore[attr-defined]
    return (runner.train.params, runner.train.opt_state, runner.rng, runner.env_state)


def test_resume_from_checkpoint_continues_identically(tmp_path: Path) -> None:
    path = tmp_path / "student.msgpack"
    first = StudentLoop(TetrisSlotTrainer(TINY, 2, 10))
    first.run_session(1)
    first.save(path)
    first.run_session(2)

    resumed = StudentLoop(TetrisSlotTrainer(TINY, 2, 10))
    resumed.load(path)
    assert resumed.iteration == 1
    resumed.run_session(2)

    assert resumed.iteration == first.iteration == 3
    assert resumed.r_prev == first.r_prev
    same = jax.tree_util.tree_map(
        lambda a, b: bool(np.array_equal(np.asarray(a), np.asarray(b))),
        _runner(first),
        _runner(resumed),
    )
    assert all(jax.tree_util.tree_leaves(same))
