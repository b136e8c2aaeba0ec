"""A checkpoint resumes training exactly where it stopped."""

from __future__ import annotations

from pathlib import Path

import jax
import numpy as np

from dicode.student.train import StudentLoop
from tests.student.conftest import TINY


def test_resume_from_checkpoint_continues_identically(tmp_path: Path) -> None:
    path = tmp_path / "student.msgpack"
    first = StudentLoop(TINY)
    first.run_session(1)
    first.save(path)
    first.run_session(2)

    resumed = StudentLoop(TINY)
    resumed.load(path)
    assert resumed.iteration == 1
    resumed.run_session(2)

    assert resumed.iteration == first.iteration == 3
    assert resumed.r_prev == first.r_prev
    same = jax.tree_util.tree_map(
        lambda a, b: bool(np.array_equal(np.asarray(a), np.asarray(b))),
        (first.runner.train.params, first.runner.train.opt_state, first.runner.rng),
        (resumed.runner.train.params, resumed.runner.train.opt_state, resumed.runner.rng),
    )
    assert all(jax.tree_util.tree_leaves(same))
    assert resumed.np_rng.integers(1 << 30) == first.np_rng.integers(1 << 30)
