"""The maze PPO-GRU student: one compile across level swaps, the GRU reset, the completion
bonus on levels only, a short StudentLoop run, the held-out protocol and checkpoints. One tiny
configuration (``conftest.TINY``) is compiled once for every test here."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from dicode import domains
from dicode.domains.maze import engine
from dicode.domains.maze.builder import MazeLevel
from dicode.domains.maze.generate import stack
from dicode.domains.maze.heldout import held_out_names
from dicode.domains.maze.level_checks import MazePool, decode
from dicode.domains.maze.skills import SKILLS
from dicode.domains.maze.student.trainer import MazeSlotTrainer, MazeTargetProtocol
from dicode.settings import EvaluatorSettings, StudentSettings
from dicode.student.curriculum import TARGET
from dicode.student.loop import StudentLoop, train
from dicode.student.recurrent import ResettingGRU
from dicode.student.tally import EpisodeTally
from tests.maze.conftest import EVAL_EPISODES, TINY


@contextmanager
def count_compilations() -> Iterator[list[int]]:
    """Backend (XLA) compilations inside the block."""
    seen = [0]

    def listener(event: str, duration_secs: float, **kwargs: Any) -> None:
        if event == "/jax/core/compile/backend_compile_duration":
            seen[0] += 1

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        yield seen
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)


def maze_pool(count: int, *, goal_ahead: int = 0, seed: int = 0) -> MazePool:
    """``count`` instances: random walls and ends, or (``goal_ahead``) an empty room with the
    goal that many cells in front of the start."""
    instances = []
    for i in range(count):
        level = MazeLevel(np.random.default_rng([seed, i]))
        if goal_ahead:
            level.start(6, 2, "east")
            level.goal(6, 2 + goal_ahead)
        else:
            level.random_walls(10 + i)
        instances.append(level.to_arrays())
    return decode(stack(instances))


@pytest.fixture(scope="module")
def trainer() -> MazeSlotTrainer:
    trainer = MazeSlotTrainer(TINY, EVAL_EPISODES)
    trainer.iterate(np.zeros(TINY.num_slots, bool), 0.0)  # compiles the update once
    return trainer


def test_one_iteration_trains_the_policy(trainer: MazeSlotTrainer) -> None:
    before = trainer.runner.train.params
    start = trainer.iteration
    tallies = trainer.iterate(np.zeros(TINY.num_slots, bool), 0.0)
    changed = jax.tree_util.tree_map(
        lambda a, b: bool(jnp.any(a != b)), before, trainer.runner.train.params
    )
    assert all(jax.tree_util.tree_leaves(changed))
    assert trainer.iteration == start + 1
    assert len(tallies) == TINY.num_slots and all(isinstance(t, EpisodeTally) for t in tallies)
    assert trainer.batch_size == TINY.num_envs * TINY.num_steps


def test_level_swaps_never_recompile(trainer: MazeSlotTrainer) -> None:
    pools = [maze_pool(3, seed=1), maze_pool(20, seed=2), maze_pool(8, goal_ahead=3), None]
    traces = trainer.ppo.trace_count
    entries = max(1, trainer.ppo.iterate._cache_size())
    with count_compilations() as compiles:
        for i, pool in enumerate(pools * 2):
            slot = i % TINY.num_slots
            trainer.place(slot, pool)
            reset = np.zeros(TINY.num_slots, bool)
            reset[slot] = True
            trainer.iterate(reset, float(i))
    assert compiles[0] == 0
    assert trainer.ppo.trace_count == traces
    assert trainer.ppo.iterate._cache_size() == entries
    for slot in range(TINY.num_slots):
        trainer.place(slot, None)


def _runner_with_hidden(trainer: MazeSlotTrainer, values: np.ndarray) -> Any:
    runner = trainer.runner
    changed = replace(runner, hidden=jnp.asarray(values, jnp.float32), starts=runner.starts & False)
    return jax.device_put(changed, jax.devices()[0])  # placed like the runner: no recompile


def test_the_gru_state_restarts_with_the_slot(trainer: MazeSlotTrainer) -> None:
    """After a slot reset, what the GRU remembered in that slot's envs no longer matters."""
    rng = np.random.default_rng(0)
    hidden = rng.normal(size=(TINY.num_envs, TINY.hidden_size))
    other = hidden.copy()
    other[TINY.envs_per_slot :] = rng.normal(size=other[TINY.envs_per_slot :].shape)  # slot 1

    def params_after(values: np.ndarray, reset: list[bool]) -> list[np.ndarray]:
        runner, _, _ = trainer.ppo.iterate(
            _runner_with_hidden(trainer, values), trainer.slots, jnp.asarray(reset), jnp.float32(0)
        )
        return [np.asarray(x) for x in jax.tree_util.tree_leaves(runner.train.params)]

    same = params_after(hidden, [False, True]), params_after(other, [False, True])
    for a, b in zip(*same, strict=True):
        np.testing.assert_array_equal(a, b)
    # Control: without the reset, slot 1's memory changes what is learned.
    kept = params_after(hidden, [False, False]), params_after(other, [False, False])
    assert any(not np.array_equal(a, b) for a, b in zip(*kept, strict=True))


def test_the_gru_resets_at_episode_starts() -> None:
    gru = ResettingGRU(8)
    x = jax.random.normal(jax.random.PRNGKey(0), (6, 3, 4))
    resets = jnp.zeros((6, 3), bool).at[3, 1].set(True)
    h0 = jax.random.normal(jax.random.PRNGKey(1), (3, 8))
    params = gru.init(jax.random.PRNGKey(2), h0, (x, resets))
    apply = jax.jit(gru.apply)
    _, out = apply(params, h0, (x, resets))
    _, fresh = apply(params, jnp.zeros((3, 8)), (x[3:], jnp.zeros((3, 3), bool)))
    np.testing.assert_allclose(np.asarray(out[3:, 1]), np.asarray(fresh[:, 1]), rtol=1e-5)
    assert not np.allclose(np.asarray(out[3:, 0]), np.asarray(fresh[:, 0]))


def test_the_completion_bonus_is_paid_on_levels_only(trainer: MazeSlotTrainer) -> None:
    trainer.place(1, maze_pool(4, goal_ahead=1))
    slots = trainer._device_slots()
    params = jax.tree_util.tree_map(lambda x: x, trainer.runner.train.params)
    bias = params["params"]["actor_out"]["bias"]
    params["params"]["actor_out"]["bias"] = bias.at[engine.FORWARD].set(1e3)  # always forward
    runner = replace(trainer.runner, train=replace(trainer.runner.train, params=params))
    paid = {}
    for r_prev in (0.3, 0.8):
        _, stats, metrics = trainer.ppo.iterate(
            runner, slots, jnp.asarray([False, True]), jnp.float32(r_prev)
        )
        level_successes = int(stats.successes[1])
        assert level_successes == TINY.envs_per_slot * TINY.num_steps  # one step per episode
        paid[r_prev] = float(metrics["bonus_sum"]) / level_successes
        assert float(stats.return_sum[1]) == pytest.approx(level_successes * (1 - 0.9 / 250))
    # max(0.1, min(max(1, 2R̄), R̄)) = R̄: a solve never pays more than a target game returns.
    assert paid == pytest.approx({0.3: 0.3, 0.8: 0.8}, rel=1e-5)
    trainer.place(1, None)


class RoundRobin:
    """A minimal SlotSchedule: slot 1 cycles through the given levels, slot 0 is the target."""

    def __init__(self, pools: Sequence[MazePool]) -> None:
        self.pools = list(pools)
        self.recorded: list[Mapping[int, EpisodeTally]] = []

    def plan(self, iteration: int, slot_levels: Sequence[int]) -> dict[int, tuple[int, Any]]:
        level = len(self.recorded) % len(self.pools)
        return {1: (level, self.pools[level])}

    def record(self, iteration: int, outcomes: Mapping[int, EpisodeTally]) -> None:
        self.recorded.append(dict(outcomes))


def test_a_short_student_loop_run_and_the_target_protocol(tmp_path: Path) -> None:
    trainer = MazeSlotTrainer(replace(TINY, seed=3), EVAL_EPISODES)
    schedule = RoundRobin([maze_pool(8, goal_ahead=2), maze_pool(8, seed=4)])
    loop = StudentLoop(trainer, schedule)
    checkpoint = tmp_path / "student.msgpack"
    batch = trainer.batch_size
    curve = train(loop, 8 * batch, 2, 4 * batch, checkpoint, log=False)
    assert [p.env_steps for p in curve] == [0, 4 * batch, 8 * batch]
    figures = curve[-1].target
    assert list(figures)[:2] == ["solve_rate", "mean_return"]
    names = held_out_names()
    assert len(names) >= 10 and all(f"solve_{n}" in figures for n in names)
    assert 0.0 <= figures["solve_rate"] <= 1.0 and "dr_solve_rate" in figures
    # The skill profile comes last: solve rates by maze property, each in [0, 1].
    assert list(figures)[-1] == "skills"
    # (CurvePoint types its figures as dict[str, float]; the profile is a nested dict.)
    skills: dict[str, float] = figures["skills"]  # type: ignore[assignment]
    assert {"few_dead_ends", "many_dead_ends"} <= set(skills) <= set(SKILLS)
    # The held-out mazes' rates by property are figures for people, not skills.
    assert {"heldout_path_short", "heldout_path_long", "heldout_dead_ends"} <= set(figures)
    assert all(0.0 <= rate <= 1.0 for rate in skills.values())
    assert figures["solve_rate"] == pytest.approx(np.mean([figures[f"solve_{n}"] for n in names]))
    assert len(schedule.recorded) == 4 and all(set(o) <= {TARGET, 0, 1} for o in schedule.recorded)
    assert trainer.evaluate() == figures  # fixed key, same parameters: the same episodes

    # The target protocol on the checkpoint measures the same figures.
    world = domains.get("maze")
    protocol = world.make_target_protocol(
        StudentSettings(ppo=TINY), EvaluatorSettings(games=EVAL_EPISODES, max_steps=1000)
    )
    assert isinstance(protocol, MazeTargetProtocol)
    measured = protocol.measure(protocol.read_params(checkpoint))
    assert {k: measured[k] for k in figures} == figures
    assert measured["episodes"] == EVAL_EPISODES and measured["max_steps"] == 250


def test_checkpoint_round_trip(trainer: MazeSlotTrainer, tmp_path: Path) -> None:
    path = tmp_path / "checkpoint.msgpack"
    trainer.place(1, maze_pool(8, seed=9))
    trainer.iterate(np.asarray([False, True]), 0.0)
    trainer.save(path, {"r_prev": 0.25})
    saved_params = [np.asarray(x) for x in jax.tree_util.tree_leaves(trainer.runner.train.params)]
    saved = (trainer.iteration, trainer.target.generated)
    saved_pool = trainer.target.pool.walls.copy()
    for _ in range(2):
        trainer.iterate(np.zeros(2, bool), 0.0)
    traces = trainer.ppo.trace_count
    extra = trainer.load(path)
    assert extra["r_prev"] == 0.25
    assert (trainer.iteration, trainer.target.generated) == saved
    np.testing.assert_array_equal(trainer.target.pool.walls, saved_pool)  # rebuilt from its counter
    for a, b in zip(
        saved_params, jax.tree_util.tree_leaves(trainer.runner.train.params), strict=True
    ):
        np.testing.assert_array_equal(a, np.asarray(b))
    assert trainer.levels == [None, None]  # every slot back on the target game
    assert np.asarray(trainer.runner.starts).all() and not np.asarray(trainer.runner.hidden).any()
    trainer.iterate(np.zeros(2, bool), 0.0)
    assert trainer.ppo.trace_count == traces  # resuming does not recompile the update


def test_the_student_learns_a_short_corridor() -> None:
    """Forty iterations in a dead-end corridor with the goal three cells ahead bring the
    episodes from tens of steps (turning about at random) down to a few."""
    level = MazeLevel(np.random.default_rng(0))
    level.fill(0, 0, 12, 12)
    level.corridor(6, 2, 6, 5)
    level.start(6, 2, "east")
    level.goal(6, 5)
    corridor = decode(stack([level.to_arrays()]))
    trainer = MazeSlotTrainer(replace(TINY, seed=1), EVAL_EPISODES)  # the same compiled update
    for slot in range(TINY.num_slots):
        trainer.place(slot, corridor)
    # R̄ = 1 (a target solved at once): every solve's bonus is 1, a solve's full worth.
    per_iteration = [
        sum(trainer.iterate(np.full(TINY.num_slots, i == 0), 1.0), EpisodeTally())
        for i in range(40)
    ]
    first, last = sum(per_iteration[:10], EpisodeTally()), sum(per_iteration[-10:], EpisodeTally())
    assert first.episodes and last.episodes and last.success_rate == 1.0
    first_length = first.sums["length"] / first.episodes
    last_length = last.sums["length"] / last.episodes
    assert last_length < 6 < 2 * 6 < first_length, (first_length, last_length)
