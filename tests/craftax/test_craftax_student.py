"""The Craftax PPO-RNN student: one compile across level swaps, the completion bonus in
Craftax's units (capped at the running target return), goal levels that go on after the goal,
training changes the policy, the paper's evaluation, checkpoints. One tiny loop (and
so one compiled update and one compiled evaluation, ``conftest.loop``) serves every test."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from dicode.domains.craftax import engine, level_slots
from dicode.domains.craftax.builder import CraftaxLevel, build_level
from dicode.domains.craftax.bundle import CraftaxBundle, bundle_from_built
from dicode.domains.craftax.catalog import MAX_RETURN, NUM_ACHIEVEMENTS
from dicode.domains.craftax.compilations import count_compilations
from dicode.domains.craftax.engine import CraftaxParams
from dicode.domains.craftax.schema import StateArrays
from dicode.domains.craftax.seed_levels import collect_basics, fight_zombies
from dicode.domains.craftax.student.target_pool import TargetPool
from dicode.domains.craftax.student.trainer import CraftaxSlotTrainer
from dicode.student.loop import StudentLoop
from dicode.student.ppo import RunnerState
from tests.craftax.conftest import EVAL_ENVS, EVAL_STEPS, TINY

PLACE_STONE = 7


def bundle_of(worlds: list[StateArrays], build: Any) -> CraftaxBundle:
    return bundle_from_built([build_level(build, w, seed) for seed, w in enumerate(worlds)])


def _place_stone(level: CraftaxLevel, rng: Any) -> None:
    """Solved by PLACE_STONE whichever way the player faces."""
    level.set_inventory(stone=5)
    r, c = level.player_position
    for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
        level.place_block("grass", r + dr, c + dc)
    level.set_goal("place_stone")


@pytest.fixture
def trainer(loop: StudentLoop) -> CraftaxSlotTrainer:
    assert isinstance(loop.trainer, CraftaxSlotTrainer)
    return loop.trainer


def _write(t: CraftaxSlotTrainer, slots: CraftaxParams, index: int, b: CraftaxBundle) -> Any:
    return t._write_slot(slots, jnp.int32(index), level_slots.bundle_to_slot(b, TINY.pool_size))


def _iterate(t: CraftaxSlotTrainer, runner: RunnerState, slots: Any, reset: list[bool]) -> Any:
    return t.ppo.iterate(runner, slots, jnp.asarray(reset), jnp.float32(0.0))


def test_one_iteration_trains_the_policy(trainer: CraftaxSlotTrainer) -> None:
    before = trainer.runner.train.params
    runner, stats, metrics = _iterate(trainer, trainer.runner, trainer.slots, [False, False])
    changed = jax.tree_util.tree_map(
        lambda a, b: bool(jnp.any(a != b)), before, runner.train.params
    )
    assert all(jax.tree_util.tree_leaves(changed))
    assert int(runner.iteration) == trainer.iteration + 1
    assert stats.episodes.shape == (TINY.num_slots,)
    losses = ("policy_loss", "value_loss", "entropy", "bonus_sum")  # besides per-env PLR scores
    assert all(np.isfinite(float(metrics[name])) for name in losses)
    assert runner.hidden.shape == (TINY.num_envs, TINY.layer_size)


def test_level_swaps_never_recompile(
    trainer: CraftaxSlotTrainer, worlds: list[StateArrays]
) -> None:
    basics, zombies = (
        bundle_of(worlds, collect_basics.build),
        bundle_of(worlds, fight_zombies.build),
    )
    slots, runner = trainer.slots, trainer.runner
    swaps = [(1, basics), (0, zombies), (1, trainer.target.bundle()), (0, basics)]
    traces = trainer.ppo.trace_count
    _write(trainer, slots, 0, basics)  # compile write_slot outside the count
    with count_compilations() as compiles:
        for index, bundle in swaps:
            slots = _write(trainer, slots, index, bundle)
            reset = [index == 0, index == 1]
            runner, _, _ = _iterate(trainer, runner, slots, reset)
    assert compiles.count == 0
    assert trainer.ppo.trace_count == traces
    assert trainer.ppo.iterate._cache_size() == 1
    assert np.asarray(slots.goal[0, 0]).sum() == 3  # collect_basics is in slot 0 now


def test_completion_bonus_is_the_target_return_at_most_and_levels_go_on(
    trainer: CraftaxSlotTrainer, worlds: list[StateArrays]
) -> None:
    slots = _write(trainer, trainer.slots, 1, bundle_of(worlds, _place_stone))
    # A policy that always places stone: slot 1's envs meet their goal on the first step.
    params = jax.tree_util.tree_map(lambda x: x, trainer.runner.train.params)
    bias = params["params"]["actor_out"]["bias"]
    params["params"]["actor_out"]["bias"] = bias.at[PLACE_STONE].set(1e3)
    runner = replace(trainer.runner, train=replace(trainer.runner.train, params=params))
    paid = {}
    for running in (-1.0, 4.5, 30.0):
        after, stats, metrics = trainer.ppo.iterate(
            runner, slots, jnp.asarray([False, True]), jnp.float32(running)
        )
        # Each env completes its goal once and plays on: one attempt and one success each.
        assert int(stats.successes[1]) == int(stats.episodes[1]) == TINY.envs_per_slot
        assert int(stats.successes[0]) == 0  # the target game has no goal
        lengths = np.asarray(after.episode_length).reshape(TINY.num_slots, -1)[1]
        assert (lengths == TINY.num_steps).all()  # no level episode ended on its goal
        paid[running] = float(metrics["bonus_sum"]) / int(stats.successes[1])
    # max(0.1, min(max(20, 2·R̄), R̄)): a goal is worth a whole target game at most (the paper's
    # max(20, 2·R_prev) paid 20 against the ≈ 4.5 a game returns at 1M steps), and positive.
    assert paid == pytest.approx({-1.0: 0.1, 4.5: 4.5, 30.0: 30.0})


def test_evaluation_reports_the_papers_figures(trainer: CraftaxSlotTrainer) -> None:
    result = trainer.evaluate_result()
    assert result.returns.shape == result.lengths.shape == (EVAL_ENVS,)
    assert result.achievements.shape == (EVAL_ENVS, NUM_ACHIEVEMENTS)
    assert (result.lengths <= EVAL_STEPS).all() and (result.lengths >= 1).all()
    assert (result.lengths[~result.finished] == EVAL_STEPS).all()
    assert result.percent_of_max == pytest.approx(100 * result.returns.mean() / MAX_RETURN)
    rates = result.success_rates
    assert len(rates) == NUM_ACHIEVEMENTS and all(0.0 <= r <= 1.0 for r in rates.values())
    # Achievement points are whole numbers; the rest is 0.1 * health change, within ±10.
    points = result.achievements.astype(int) @ np.asarray(engine.ACHIEVEMENT_REWARD_MAP)
    assert np.abs(result.returns - points).max() <= 1.0 + 1e-4
    again = trainer.evaluate_result()  # fixed key, same params: the same games
    np.testing.assert_array_equal(again.returns, result.returns)
    figures = trainer.evaluate()
    assert next(iter(figures)) == "percent_of_max"
    assert figures["mean_return"] == pytest.approx(result.mean_return)
    # The skill profile: every achievement's share of games, after the numeric figures.
    assert figures["skills"] == rates and list(figures)[-1] == "skills"
    assert all(isinstance(v, float) for k, v in figures.items() if k != "skills")


def test_checkpoint_round_trip(
    loop: StudentLoop, trainer: CraftaxSlotTrainer, tmp_path: Path
) -> None:
    loop.r_prev = 7.5
    loop.run_session(1)
    path = tmp_path / "checkpoint.msgpack"
    loop.save(path)
    saved_params = jax.device_get(trainer.runner.train.params)
    saved = (loop.iteration, loop.r_prev, trainer.target.generated)
    saved_pool = {k: v.copy() for k, v in trainer.target.pool.items()}
    saved_rng = np.asarray(trainer.runner.rng)
    loop.run_session(2)
    traces = trainer.ppo.trace_count
    loop.load(path)
    assert (loop.iteration, loop.r_prev, trainer.target.generated) == saved
    for a, b in zip(
        jax.tree_util.tree_leaves(saved_params),
        jax.tree_util.tree_leaves(trainer.runner.train.params),
        strict=True,
    ):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    for name, value in saved_pool.items():  # the refreshed pool is rebuilt from its counter
        np.testing.assert_array_equal(trainer.target.pool[name], value)
    assert (np.asarray(trainer.runner.starts)).all()  # every env restarts, GRU state zeroed
    assert not np.asarray(trainer.runner.hidden).any()
    assert not np.array_equal(np.asarray(trainer.runner.rng), saved_rng)  # restart drew a key
    loop.run_session(1)
    assert trainer.ppo.trace_count == traces  # resuming does not recompile the update


def test_target_pool_rebuilds_after_refreshes() -> None:
    pool = TargetPool(seed=3, pool_size=2)
    pool.refresh(1)
    pool.refresh(2)
    rebuilt = TargetPool(seed=3, pool_size=2, generated=pool.generated)
    for name, value in pool.pool.items():
        np.testing.assert_array_equal(rebuilt.pool[name], value)
