"""The compiled student: one compile across level swaps, the completion bonus is live."""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np

from dicode.domains.tetris.schema import TetrisLevel, target_level
from dicode.domains.tetris.student.slot_world import Trainer
from dicode.domains.tetris.student.trainer import TetrisSlotTrainer, compiled_student
from dicode.student.loop import StudentLoop
from tests.student.conftest import TINY, pool_of, slots_of


def _survive_one_piece() -> TetrisLevel:
    """A level whose goal (survive 1 piece) is met by the first placement."""
    return dataclasses.replace(target_level(), goal_pieces=jnp.int32(1))


def _garbage_level() -> TetrisLevel:
    board = np.zeros((20, 10), np.uint8)
    board[:4, :9] = 1
    return dataclasses.replace(target_level(), board=jnp.asarray(board), goal_lines=jnp.int32(2))


def test_compile_count_stays_flat_across_slot_swaps(
    tiny_trainer: Trainer, target_slots: TetrisLevel
) -> None:
    runner = tiny_trainer.init(0, target_slots)
    swaps = [
        (target_slots, [False, False]),
        (slots_of(pool_of(target_level()), pool_of(_garbage_level())), [False, True]),
        (slots_of(pool_of(_survive_one_piece()), pool_of(_garbage_level())), [True, False]),
        (target_slots, [True, True]),
    ]
    before = tiny_trainer.trace_count
    for slots, reset in swaps:
        runner, _, _ = tiny_trainer.iterate(runner, slots, jnp.asarray(reset), jnp.float32(3))
    assert tiny_trainer.trace_count - before <= 1  # the first call may trace, no later one
    assert tiny_trainer.iterate._cache_size() == 1
    assert int(runner.iteration) == len(swaps)


def test_trainers_of_one_configuration_share_one_compile() -> None:
    """Runs that differ only in seed reuse one compiled update (the update never reads it)."""
    compiled = compiled_student(TINY, 2, 10)
    loops = [
        StudentLoop(TetrisSlotTrainer(dataclasses.replace(TINY, seed=seed), 2, 10))
        for seed in (0, 1)
    ]
    assert all(loop.trainer.ppo is compiled.ppo for loop in loops)  # type: ignore[attr-defined]
    before = compiled.ppo.trace_count
    for loop in loops:
        loop.run_session(1)
    assert compiled.ppo.trace_count - before <= 1  # 0 when an earlier test compiled it
    other = TetrisSlotTrainer(dataclasses.replace(TINY, hidden=16), 2, 10)
    assert other.ppo is not compiled.ppo


def _bonus_paid_per_success(trainer: Trainer) -> dict[float, float]:
    # Every placement on this level meets its goal, so every step pays the bonus once.
    slots = slots_of(pool_of(_survive_one_piece()), pool_of(_survive_one_piece()))
    runner = trainer.init(1, slots)
    keep = jnp.asarray([False, False])
    paid = {}
    for r_prev in (0.0, 10.0, 40.0):
        _, stats, metrics = trainer.iterate(runner, slots, keep, jnp.float32(r_prev))
        successes = int(stats.successes.sum())
        assert successes == TINY.num_envs * TINY.num_steps
        paid[r_prev] = float(metrics["bonus_sum"]) / successes
    return paid


def test_bonus_is_the_floor_in_reward_units_capped_at_the_target_return(
    tiny_trainer: Trainer,
) -> None:
    # max(1, min(20, R̄)): one piece's reward while the target returns nothing, never above R̄.
    paid = _bonus_paid_per_success(tiny_trainer)
    assert paid == {0.0: 1.0, 10.0: 10.0, 40.0: 20.0}
    assert all(0.0 < bonus <= max(running, 1.0) for running, bonus in paid.items())


def test_papers_bonus_changes_with_r_prev() -> None:
    papers = Trainer(dataclasses.replace(TINY, bonus_scale=2.0, bonus_paper=True))
    assert _bonus_paid_per_success(papers) == {0.0: 20.0, 10.0: 20.0, 40.0: 80.0}


def test_finished_episodes_are_reported_per_slot(tiny_trainer: Trainer) -> None:
    slots = slots_of(pool_of(_survive_one_piece()), pool_of(target_level()))
    runner = tiny_trainer.init(2, slots)
    _, stats, _ = tiny_trainer.iterate(runner, slots, jnp.asarray([False, False]), jnp.float32(0))
    per_slot = TINY.envs_per_slot * TINY.num_steps
    assert int(stats.episodes[0]) == per_slot and int(stats.successes[0]) == per_slot
    assert int(stats.successes[1]) == 0  # the target game has no goal
    # One piece, no line: the engine pays 1 per piece.
    assert float(stats.return_sum[0]) == per_slot
