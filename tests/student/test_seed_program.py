"""Seeds in one program (``dicode.student.seed_program``): seed k of a vmapped batch is a lone
run of seed k, chunks of any length share one compilation, evaluations fall where the host
loop puts them, and target-only training on the device is the host loop's."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import jax
import numpy as np
import pytest

from dicode.domains.maze.student.config import UEDConfig
from dicode.domains.maze.student.trainer import MazeSlotTrainer
from dicode.domains.maze.student.ued import ued_program
from dicode.domains.tetris.student.config import PPOConfig
from dicode.domains.tetris.student.trainer import TetrisSlotTrainer
from dicode.student.loop import StudentLoop, train
from dicode.student.seed_program import (
    Checkpoint,
    evaluation_iterations,
    run_program,
    seed_slice,
)
from dicode.student.target_program import initial_states, target_program, train_target_seeds
from tests.maze.conftest import TINY

# One level per env (the literature's loops), a tiny network, a small buffer.
ONE_LEVEL_PER_ENV = replace(
    TINY, num_slots=4, envs_per_slot=1, pool_size=1, target_refresh=0, num_minibatches=1,
    heldout="jaxued",
)  # fmt: skip
TETRIS = PPOConfig(
    num_slots=2, envs_per_slot=4, pool_size=2, num_steps=8, update_epochs=1, num_minibatches=2,
    column_features=4, row_features=2, hidden=8, train_piece_cap=5,
)  # fmt: skip


def _close(a: Any, b: Any) -> None:
    for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b), strict=True):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("method", ["robust_plr", "accel"])
def test_seed_k_of_a_batch_is_a_lone_run_of_seed_k_and_nothing_recompiles(method: str) -> None:
    ppo = MazeSlotTrainer(ONE_LEVEL_PER_ENV, 1).ppo
    config = UEDConfig(method=method, capacity=8, min_fill=0.25)
    batch, state = ued_program(ppo, config, [3, 1, 2], 4)
    lone, alone = ued_program(ppo, config, [1], 4)
    rows_b, rows_l = [], []
    for count in (4, 1, 3):  # chunks of other lengths: data, not a new program
        state, out = batch(state, count)
        alone, lone_out = lone(alone, count)
        rows_b.append(seed_slice(out, 1))
        rows_l.append(seed_slice(lone_out, 0))
    assert batch.trace_count == 1 and lone.trace_count == 1
    _close(seed_slice(state, 1), seed_slice(alone, 0))
    _close(rows_b, rows_l)
    counts = np.asarray(seed_slice(state, 1).counts)
    assert counts[:3].sum() == 8 and counts[1] > 0  # it replayed within 8 iterations
    # The seeds are their own: another seed's parameters differ.
    a, b = seed_slice(state, 0).runner.train.params, seed_slice(state, 1).runner.train.params
    assert any(
        not np.allclose(x, y)
        for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b), strict=True)
    )


class _Cut(Exception):
    """The process dies after an evaluation (before the next checkpoint)."""


def test_a_program_cut_after_an_evaluation_goes_on_from_its_checkpoint(tmp_path: Path) -> None:
    ppo = MazeSlotTrainer(ONE_LEVEL_PER_ENV, 1).ppo
    config = UEDConfig(method="robust_plr", capacity=8, min_fill=0.25)
    points = [0, 2, 4, 7]
    program, first = ued_program(ppo, config, [3, 1], 3)
    batch = ppo.config.batch_size

    def evaluate(state: Any) -> list[dict[str, Any]]:  # a figure that follows the parameters
        leaves = jax.tree_util.tree_leaves(state.runner.train.params)
        norms = sum(np.square(np.asarray(x, np.float64)).sum(axis=tuple(range(1, x.ndim)))
                    for x in leaves)  # fmt: skip
        return [{"norm": float(n)} for n in norms]

    seen: list[list[int]] = [[], []]  # the caller's host-side state: iterations described

    def describe(seed: int, rows: Any, state: Any) -> tuple[dict, dict]:
        if rows is not None:
            seen[seed] += [int(np.asarray(state.runner.iteration))]
        return {}, {"replays": float(np.asarray(state.counts)[1])}

    whole, whole_curves = run_program(program, first, points, batch, evaluate, describe)
    whole_seen = [list(s) for s in seen]

    seen[:] = [[], []]
    checkpoint = Checkpoint(
        tmp_path / "program.ckpt", "robust_plr seeds 3,1",
        host=lambda: {f"seen_{i}": np.asarray(s, np.int64) for i, s in enumerate(seen)},
        restore=lambda saved: seen.__setitem__(
            slice(None), [saved[f"seen_{i}"].tolist() for i in range(2)]
        ),
    )  # fmt: skip

    def cut_at_third_point(seed: int, curve: list, rows: Any) -> None:
        if len(curve) == 3 and seed == 1:
            raise _Cut

    with pytest.raises(_Cut):
        run_program(program, first, points, batch, evaluate, describe, cut_at_third_point,
                    checkpoint)  # fmt: skip
    seen[:] = [[], []]  # a new process: nothing of the cut run in memory
    resumed: list[int] = []
    state, curves = run_program(
        program, first, points, batch, evaluate, describe,
        lambda seed, curve, rows: resumed.append(curve[-1].iteration), checkpoint,
    )  # fmt: skip
    assert resumed == [4, 4, 7, 7]  # from the third point on: the first two came from the file
    _close(state, whole)
    for got, want in zip(curves, whole_curves, strict=True):
        assert [(p.iteration, p.env_steps, p.curriculum) for p in got] == [
            (p.iteration, p.env_steps, p.curriculum) for p in want
        ]
        np.testing.assert_allclose([p.target["norm"] for p in got],
                                   [p.target["norm"] for p in want], rtol=1e-5)  # fmt: skip
    assert seen == whole_seen
    assert program.trace_count == 1  # the restored state runs in the compiled program

    # Another program's file, or one that cannot be read, is not resumed: the run starts over.
    other = replace(checkpoint, identity="accel seeds 3,1", restore=None)
    _, fresh = run_program(program, first, points, batch, evaluate, describe, None, other)
    assert [p.iteration for p in fresh[0]] == points
    checkpoint.path.write_bytes(b"\x93not a checkpoint")
    _, fresh = run_program(program, first, points, batch, evaluate, describe, None, other)
    assert [p.iteration for p in fresh[0]] == points


def test_a_chunk_longer_than_the_program_allows_is_refused() -> None:
    ppo = MazeSlotTrainer(ONE_LEVEL_PER_ENV, 1).ppo
    program, state = ued_program(ppo, UEDConfig(method="dr", capacity=8), [0], 2)
    with pytest.raises(ValueError, match=r"0\.\.2 iterations"):
        program(state, 3)


@pytest.mark.parametrize(
    ("steps", "batch", "every", "session", "points"),
    [
        (100, 10, 30, 1, [0, 3, 6, 9, 10]),
        (100, 10, 30, 4, [0, 4, 8, 12]),
        (95, 10, 50, 1, [0, 5, 10]),
        (20, 10, 1000, 3, [0, 3]),
    ],
)
def test_evaluations_fall_where_the_host_loop_puts_them(
    steps: int, batch: int, every: int, session: int, points: list[int]
) -> None:
    assert evaluation_iterations(steps, batch, every, session) == points


def test_target_only_on_the_device_is_the_host_loop() -> None:
    # Two seeds in one program against each seed's host loop (``loop.train``), three sessions
    # of two iterations, evaluated after the second session and at the end.
    host = [TetrisSlotTrainer(replace(TETRIS, seed=seed), 2, 10) for seed in (5, 6)]
    steps, every = 6 * TETRIS.batch_size, 4 * TETRIS.batch_size
    curves = [train(StudentLoop(t), steps, 2, every, log=False) for t in host]
    device = train_target_seeds(host[0], [5, 6], steps, 2, every)
    for curve, on_device in zip(curves, device, strict=True):
        assert [p.iteration for p in on_device] == [p.iteration for p in curve] == [0, 4, 6]
        for a, b in zip(curve, on_device, strict=True):
            assert a.target["mean_lines"] == pytest.approx(b.target["mean_lines"])
            assert a.train_target.keys() == b.train_target.keys()
            np.testing.assert_allclose(
                list(a.train_target.values()), list(b.train_target.values()), rtol=1e-5
            )
    state = initial_states(host[0].ppo, host[0].target_game(), [5])
    program = target_program(host[0].ppo, host[0].target_game(), seed_slice(state, 0), 6, 1)
    state, _ = program(state, 6)
    _close(seed_slice(state, 0).runner.train.params, host[0].runner.train.params)


def test_the_maze_target_game_refreshes_its_pool_on_the_device() -> None:
    trainer = MazeSlotTrainer(TINY, 1)
    game = trainer.target_game()
    first = game.initial(0)
    state, slots = jax.jit(game.next_slots)(first)
    pool = np.asarray(first.pool.walls)
    refreshed = np.asarray(state.pool.walls)
    changed = (pool != refreshed).any(axis=(1, 2))
    assert changed.sum() == TINY.target_refresh and int(state.generated) == 8 + 2
    assert np.asarray(slots.levels.walls).shape == (TINY.num_slots, TINY.pool_size, 13, 13)
    assert not np.asarray(slots.pays_bonus).any()
