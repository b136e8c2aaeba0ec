"""The literature's curricula over the maze, on the device: DR, robust PLR (PLR⊥) and ACCEL.

Written from the published facts of JaxUED's ``examples/maze_plr.py`` (``DramaCow/jaxued``;
Jiang et al. 2021, "Replay-Guided Adversarial Environment Design", arXiv:2110.02439; Parker-
Holder et al. 2022, "Evolving Curricula with Regret-Based Environment Design",
arXiv:2203.01302). Every iteration plays ONE batch of levels, one level per env (the
``JAXUED_LAYOUT`` student: S slots of one env and a pool of one layout, so an env that finishes
an episode replays its level, as JaxUED's auto-replay wrapper does), and every env starts the
iteration afresh on its level. Which batch, by
:class:`~dicode.domains.maze.student.config.UEDConfig`:

- **new**: fresh random levels (25-wall DR by default, made on the device: ``device_mazes``).
  DR trains on them; robust PLR and ACCEL only roll them out — no gradient step — and score
  them for the buffer;
- **replay** (robust PLR, ACCEL): with probability ``replay_prob`` once the buffer is
  ``min_fill`` full, levels drawn from the buffer ∝ (1−ρ)·rank-score^(1/β) + ρ·staleness
  (ρ = 0.3, β = 0.3; ``dicode.student.level_sampler``), trained on, and rescored;
- **mutate** (ACCEL, right after every replay): the replayed levels edited ``num_edits`` times
  (``device_mazes.edit_maze``: flip a cell, move the goal, or nothing, each edit), rolled out
  without a gradient step, scored for the buffer.

Scores: MaxMC (the best return ever seen on the level minus the rollout's mean value) or PVL
(the rollout's mean positive GAE advantage), per env from the update's metrics. The buffer
keeps ``capacity`` levels; a new level enters while there is room, or in place of the lowest
score when it scores higher; a level already in it (same layout and ends) is rescored. No
completion bonus is paid (the literature has none). Env steps count every rollout, trained on
or not, as in JaxUED.

The whole iteration — the branch, the levels, the PPO, the scoring — is one pure function of
the seed's :class:`UEDState`, chained on the device and vmapped over seeds
(``dicode.student.seed_program``); the host reads the state only at evaluations. Each
iteration reports its branch, whether it learnt, the trained levels' keys (for the distinct
count) and what they were like (shortest path, walls: the records' ``trace``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import flax.struct
import jax
import jax.numpy as jnp
import numpy as np

from dicode.domains.maze.device_mazes import (
    KEY_WORDS,
    edit_maze,
    level_key,
    shortest_path,
    stream_mazes,
)
from dicode.domains.maze.engine import MazeParams
from dicode.domains.maze.student.config import UEDConfig
from dicode.domains.maze.student.evaluate import MazeEvaluator
from dicode.domains.maze.student.slot_world import MazeSlots, Trainer
from dicode.student import level_sampler
from dicode.student.level_sampler import LevelBuffer
from dicode.student.loop import CurvePoint
from dicode.student.ppo import LOSSES, RunnerState
from dicode.student.seed_program import (
    Checkpoint,
    SeedProgram,
    chunk_lengths,
    evaluation_iterations,
    run_program,
    seed_slice,
    stack_seeds,
)

# The curriculum's own streams, apart from the trainer's and the evaluation's.
_NEW_LEVEL_STREAM = 5_500_007
_CHOICE_STREAM = 5_500_011
BRANCHES = ("new", "replay", "mutate")
NEW, REPLAY, MUTATE = range(3)


@flax.struct.dataclass
class UEDState:
    """One seed of a literature loop."""

    runner: RunnerState
    buffer: LevelBuffer
    replayed: MazeParams  # the last batch (leaves (n, ...)); ACCEL edits it after a replay
    after_replay: jax.Array  # () bool: the last batch was a replay
    made: jax.Array  # () int32: new levels made so far
    new_key: jax.Array  # the new levels' stream
    rng: jax.Array  # the branch, replay and edit draws
    counts: jax.Array  # (4,) int32: iterations new, replay, mutate, with a gradient step


def as_slots(levels: MazeParams) -> MazeSlots:
    """One level per slot (a pool of one)."""
    n = levels.start_dir.shape[0]
    return MazeSlots(jax.tree_util.tree_map(lambda x: x[:, None], levels), jnp.zeros(n, bool))


def initial_states(ppo: Trainer, config: UEDConfig, seeds: list[int]) -> UEDState:
    """The seeds' first states, stacked."""
    n = ppo.config.num_slots
    make = jax.jit(stream_mazes, static_argnums=(0, 3))
    states = []
    for seed in seeds:
        root = jax.random.PRNGKey(seed)
        new_key = jax.random.fold_in(root, _NEW_LEVEL_STREAM)
        first = make(config.new_levels, new_key, jnp.int32(0), n)  # what the envs start on
        one = jax.tree_util.tree_map(lambda x: x[0], first)
        buffer = level_sampler.empty_buffer(one, KEY_WORDS, config.capacity)
        states.append(
            UEDState(
                runner=ppo.init(seed, as_slots(first)),
                buffer=buffer,
                replayed=first,
                after_replay=jnp.bool_(False),
                made=jnp.int32(0),
                new_key=new_key,
                rng=jax.random.fold_in(root, _CHOICE_STREAM),
                counts=jnp.zeros(4, jnp.int32),
            )
        )
    return stack_seeds(states)


def ued_body(ppo: Trainer, config: UEDConfig) -> Callable[[UEDState], tuple[UEDState, Any]]:
    """One iteration of one seed (module docstring)."""
    n = ppo.config.num_slots
    method = config.method

    def new_levels(state: UEDState, key: jax.Array) -> tuple[MazeParams, LevelBuffer, jax.Array]:
        levels = stream_mazes(config.new_levels, state.new_key, state.made, n)
        return levels, state.buffer, state.made + n

    def replay_levels(state: UEDState, key: jax.Array) -> tuple[MazeParams, LevelBuffer, jax.Array]:
        buffer, rows = level_sampler.sample(
            state.buffer, key, n, config.staleness_coef, config.temperature
        )
        return level_sampler.levels_at(buffer, rows), buffer, state.made

    def mutated_levels(
        state: UEDState, key: jax.Array
    ) -> tuple[MazeParams, LevelBuffer, jax.Array]:
        keys = jax.random.split(key, n)
        edit = jax.vmap(edit_maze, in_axes=(0, 0, None))
        return edit(keys, state.replayed, config.num_edits), state.buffer, state.made

    def body(state: UEDState) -> tuple[UEDState, dict[str, Any]]:
        rng, k_branch, k_levels = jax.random.split(state.rng, 3)
        if method == "dr":
            branch = jnp.int32(NEW)
            levels, buffer, made = new_levels(state, k_levels)
        else:
            buffer = state.buffer
            ready = (buffer.size > 0) & (buffer.size >= config.min_fill * buffer.capacity)
            replay = ready & (jax.random.uniform(k_branch) < config.replay_prob)
            mutate = state.after_replay if method == "accel" else jnp.bool_(False)
            branch = jnp.where(mutate, MUTATE, jnp.where(replay, REPLAY, NEW)).astype(jnp.int32)
            makers = [new_levels, replay_levels, mutated_levels]
            levels, buffer, made = jax.lax.switch(branch, makers, state, k_levels)
        learn = jnp.bool_(True) if method == "dr" else branch == REPLAY
        slots = as_slots(levels)
        everyone = jnp.ones((n,), bool)
        # DR always learns: a Python flag, so its program has no branch to select between.
        learning: jax.Array | bool = True if method == "dr" else learn
        runner, _, metrics = ppo.iteration(
            state.runner, slots, everyone, jnp.float32(0.0), learning
        )  # fmt: skip
        keys = jax.vmap(level_key)(levels)
        if method != "dr":
            finite = jnp.isfinite(metrics["return_max"])
            best = jnp.where(finite, metrics["return_max"], 0.0)

            def score_of(seen: jax.Array, i: jax.Array) -> jax.Array:
                if config.score == "pvl":
                    return metrics["pvl"][i]
                return seen - metrics["value_mean"][i]

            buffer = level_sampler.insert_batch(buffer, levels, keys, score_of, best)
        paths = jax.vmap(shortest_path)(levels)
        reachable = paths >= 0
        counts = state.counts.at[branch].add(1).at[3].add(learn.astype(jnp.int32))
        new_state = UEDState(
            runner=runner,
            buffer=buffer,
            replayed=levels,
            after_replay=branch == REPLAY,
            made=made,
            new_key=state.new_key,
            rng=rng,
            counts=counts,
        )
        out = {
            "learn": learn,
            "keys": keys,
            "path_sum": jnp.where(reachable, paths, 0).sum(),
            "reachable": reachable.sum(),
            "wall_sum": levels.walls.sum(),
            "losses": {name: metrics[name] for name in LOSSES},
        }
        return new_state, out

    return body


def ued_program(
    ppo: Trainer, config: UEDConfig, seeds: list[int], max_count: int
) -> tuple[SeedProgram[UEDState], UEDState]:
    """The chunk program of ``seeds`` (chunks of up to ``max_count`` iterations) and their
    first states."""
    state = initial_states(ppo, config, seeds)
    return SeedProgram(ued_body(ppo, config), seed_slice(state, 0), max_count, len(seeds)), state


@dataclass
class UEDRun:
    """One seed's run: its curve, iterations by branch and the distinct levels trained on."""

    curve: list[CurvePoint]
    counts: dict[str, int]
    trained: set[bytes] = field(default_factory=set)

    @property
    def levels_trained(self) -> int:
        return len(self.trained)


def _trace(rows: dict[str, Any], buffer: LevelBuffer, num_slots: int) -> dict[str, float]:
    """What the gradient steps of a chunk trained on, and the buffer's fill and mean score
    (the records' ``trace``; ``TrainedLevels`` of the host loop before)."""
    learn = np.asarray(rows["learn"], bool)
    plays = int(learn.sum()) * num_slots
    figures: dict[str, float] = {"trained_plays": plays}
    reachable = int(np.asarray(rows["reachable"])[learn].sum())
    if plays:
        walls = int(np.asarray(rows["wall_sum"])[learn].sum())
        figures["trained_walls"] = round(walls / plays, 2)
        figures["trained_reachable"] = round(reachable / plays, 4)
    if reachable:
        path_sum = int(np.asarray(rows["path_sum"])[learn].sum())
        figures["trained_path"] = round(path_sum / reachable, 2)
    size = int(buffer.size)
    if size:
        figures["buffer_fill"] = round(size / buffer.capacity, 4)
        figures["buffer_score"] = round(float(np.asarray(buffer.score)[:size].mean()), 4)
    return figures


def run_ued_seeds(
    ppo: Trainer,
    evaluator: MazeEvaluator,
    config: UEDConfig,
    seeds: list[int],
    env_steps: int,
    eval_every_steps: int,
    on_point: Callable[[int, list[CurvePoint], Any, dict[str, int]], object] | None = None,
    checkpoint: Checkpoint | None = None,
) -> list[UEDRun]:
    """Train ``seeds`` with ``config``'s curriculum as one program for ``env_steps`` env
    steps each, evaluating the held-out protocol every ``eval_every_steps``; one
    :class:`UEDRun` per seed. ``ppo`` must play one level per env (``JAXUED_LAYOUT``).
    ``on_point(seed, curve, rows, counts)`` sees every new curve point with the rows of the
    chunk before it (``seed_program.OnPoint``) and the branch counts so far. ``checkpoint``:
    the program saves itself there after each evaluation and goes on from it
    (``seed_program.run_program``), the distinct trained levels with it."""
    c = ppo.config
    if c.envs_per_slot != 1 or c.pool_size != 1:
        raise ValueError(
            "the literature's curricula play one level per env: envs_per_slot=1, pool_size=1"
        )
    points = evaluation_iterations(env_steps, c.batch_size, eval_every_steps)
    program, state = ued_program(ppo, config, seeds, max(chunk_lengths(points), default=1))
    runs = [UEDRun([], {}) for _ in seeds]

    def evaluate(state: UEDState) -> list[dict[str, Any]]:
        return [result.figures() for result in evaluator.batch(state.runner.train.params)]

    def describe(seed: int, rows: Any, state: UEDState) -> tuple[dict, dict]:
        run = runs[seed]
        run.counts = dict(zip((*BRANCHES, "gradient"), map(int, state.counts), strict=True))
        if rows is None:
            return {}, {}
        learn = np.asarray(rows["learn"], bool)
        trained = np.asarray(rows["keys"])[learn].reshape(-1, KEY_WORDS)
        run.trained.update(row.tobytes() for row in trained)
        return {}, _trace(rows, state.buffer, c.num_slots)

    def seen(seed: int, curve: list[CurvePoint], rows: Any) -> None:
        runs[seed].curve = curve
        if on_point is not None:
            counts = runs[seed].counts | {"levels_trained": runs[seed].levels_trained}
            on_point(seed, curve, rows, counts)

    if checkpoint is not None:
        checkpoint = replace(
            checkpoint,
            host=lambda: _trained_keys(runs),
            restore=lambda saved: _restore_trained(runs, saved),
        )
    run_program(program, state, points, c.batch_size, evaluate, describe, seen, checkpoint)
    return runs


def _trained_keys(runs: list[UEDRun]) -> dict[str, np.ndarray]:
    """Each run's distinct trained levels as one byte array (a checkpoint's host state)."""
    joined = (b"".join(sorted(run.trained)) for run in runs)
    return {str(i): np.frombuffer(keys, np.uint8) for i, keys in enumerate(joined)}


def _restore_trained(runs: list[UEDRun], saved: dict[str, np.ndarray]) -> None:
    width = KEY_WORDS * 4  # uint32 words
    for i, run in enumerate(runs):
        flat = np.asarray(saved[str(i)], np.uint8).tobytes()
        run.trained = {flat[j : j + width] for j in range(0, len(flat), width)}
