"""The Craftax student's outer loop: sessions of PPO-RNN iterations, curves, checkpoints.

A session fixes the slots — all on the target game by default, or what a
:class:`SlotSchedule` (a curriculum method, e.g. DiCode's teacher + archive) puts in them —
and runs compiled iterations. Before each iteration ``target_refresh`` new Craftax worlds
enter the target pool; after it the target's mean return becomes the next ``R_prev`` of the
completion bonus (kept when no target episode finished). Every ``eval_every`` steps the
policy plays the paper's evaluation on the real Craftax game (``evaluate.py``).
"""

from __future__ import annotations

import csv
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

import jax
import jax.numpy as jnp
import numpy as np

from dicode.domains.craftax import engine
from dicode.domains.craftax.bundle import CraftaxBundle
from dicode.domains.craftax.state_codec import arrays_to_state
from dicode.student.craftax.checkpoint import load_checkpoint, save_checkpoint
from dicode.student.craftax.config import EVAL_ENVS, EVAL_MAX_STEPS, CraftaxPPOConfig
from dicode.student.craftax.evaluate import CraftaxEvaluator, EvalResult
from dicode.student.craftax.ppo import RunnerState, SlotStats, Trainer
from dicode.student.craftax.target_pool import TargetPool
from dicode.student.curriculum import TARGET, EpisodeTally, merge_outcomes, sum_by_level


@dataclass(frozen=True)
class SlotOutcome(EpisodeTally):
    """A Craftax level's (or the target's, ``TARGET``) session outcome: the tally (return
    without the completion bonus) plus the summed episode lengths."""

    length_sum: int


def slot_outcomes(slot_levels: Sequence[int], stats: SlotStats) -> dict[int, SlotOutcome]:
    """Per level id (slots playing the same level are summed)."""
    per_slot = [
        SlotOutcome(
            int(stats.episodes[s]),
            int(stats.successes[s]),
            float(stats.return_sum[s]),
            int(stats.length_sum[s]),
        )
        for s in range(len(slot_levels))
    ]
    return sum_by_level(slot_levels, per_slot)


class SlotSchedule(Protocol):
    """Where a curriculum method plugs in: which level each slot plays next session.

    ``plan`` returns ``{slot: (level_id, bundle)}`` for the slots that change (the others keep
    their level); ``level_id`` ``TARGET`` with ``bundle`` None means the target game.
    ``record`` receives each session's outcomes per level id (``TARGET`` included).
    """

    def plan(
        self, iteration: int, slot_levels: Sequence[int]
    ) -> dict[int, tuple[int, CraftaxBundle | None]]: ...

    def record(self, iteration: int, outcomes: dict[int, SlotOutcome]) -> None: ...


@dataclass
class CurvePoint:
    """One row of the learning curve."""

    iteration: int
    env_steps: int
    train_seconds: float  # wall-clock seconds in training sessions (compiles included)
    train_cpu_seconds: float  # process CPU seconds in training sessions (all threads)
    percent_of_max: float  # evaluation mean return / 226 * 100
    mean_return: float
    std_return: float
    mean_length: float
    train_return: float  # mean return of target training episodes finished since the last row


class CraftaxStudentLoop:
    """Owns the trainer, its runner, the slots, the target pool and the bonus's ``R_prev``."""

    def __init__(
        self,
        config: CraftaxPPOConfig,
        schedule: SlotSchedule | None = None,
        eval_envs: int = EVAL_ENVS,
        eval_max_steps: int = EVAL_MAX_STEPS,
    ) -> None:
        self.config = config
        self.schedule = schedule
        self.eval_envs, self.eval_max_steps = eval_envs, eval_max_steps
        self.trainer = Trainer(config)
        self.target = TargetPool(config.seed, config.pool_size)
        self.slot_levels = [TARGET] * config.num_slots
        self.slots = engine.make_slots([self.target.bundle()] * config.num_slots, config.pool_size)
        self.runner: RunnerState = self.trainer.init(config.seed, self.slots)
        self.r_prev = 0.0
        self._write_slot = jax.jit(engine.write_slot)
        self._write_entries = jax.jit(engine.write_pool_entries)
        self._evaluator: CraftaxEvaluator | None = None

    @property
    def iteration(self) -> int:
        return int(self.runner.iteration)

    def run_session(self, iterations: int) -> dict[int, SlotOutcome]:
        """Apply the schedule's plan, train ``iterations`` iterations, return the outcomes."""
        reset = np.zeros(self.config.num_slots, bool)
        if self.schedule is not None:
            for slot, (level, bundle) in self.schedule.plan(
                self.iteration, self.slot_levels
            ).items():
                chosen = self.target.bundle() if bundle is None else bundle
                one = engine.bundle_to_slot(chosen, self.config.pool_size)
                self.slots = self._write_slot(self.slots, jnp.int32(slot), one)
                self.slot_levels[slot] = level
                reset[slot] = True
        outcomes: dict[int, SlotOutcome] = {}
        for i in range(iterations):
            self._refresh_target()
            self.runner, stats, _ = self.trainer.iterate(
                self.runner, self.slots, jnp.asarray(reset & (i == 0)), jnp.float32(self.r_prev)
            )
            step = slot_outcomes(self.slot_levels, jax.device_get(stats))
            target = step.get(TARGET)
            if target is not None and target.mean_return is not None:
                self.r_prev = target.mean_return
            outcomes = merge_outcomes(outcomes, step)
        if self.schedule is not None:
            self.schedule.record(self.iteration, outcomes)
        return outcomes

    def _refresh_target(self) -> None:
        count = self.config.target_refresh
        target_slots = [s for s, level in enumerate(self.slot_levels) if level == TARGET]
        if count == 0 or not target_slots:
            return
        positions, worlds = self.target.refresh(count)
        states = arrays_to_state(worlds, batch_dims=1)
        for s in target_slots:
            self.slots = self._write_entries(
                self.slots, jnp.int32(s), jnp.asarray(positions), states
            )

    def evaluate(self) -> EvalResult:
        """The paper's protocol on the real Craftax game (``evaluate.py``)."""
        if self._evaluator is None:
            self._evaluator = CraftaxEvaluator(
                self.trainer.network, self.eval_envs, self.eval_max_steps
            )
        return self._evaluator(self.runner.train.params)

    def save(self, path: str | Path) -> None:
        extra = {"r_prev": self.r_prev, "worlds_generated": self.target.generated}
        save_checkpoint(path, self.runner, extra)

    def load(self, path: str | Path) -> None:
        """Resume: learning state from ``path``; every slot back on the target game (a
        schedule re-plans them), the target pool rebuilt, every env and GRU state restarted."""
        train, rng, iteration, extra = load_checkpoint(path, self.runner.train)
        self.r_prev = float(extra["r_prev"])
        self.target = TargetPool(self.config.seed, self.config.pool_size, extra["worlds_generated"])
        self.slot_levels = [TARGET] * self.config.num_slots
        self.slots = engine.make_slots(
            [self.target.bundle()] * self.config.num_slots, self.config.pool_size
        )
        runner = replace(self.runner, train=train, rng=rng, iteration=iteration)
        self.runner = self.trainer.restart(runner, self.slots)


def train(
    loop: CraftaxStudentLoop,
    env_steps: int,
    iterations_per_session: int = 1,
    eval_every_steps: int = 100_000,
    checkpoint: Path | None = None,
    log: bool = True,
) -> list[CurvePoint]:
    """Train until ``env_steps`` environment steps; evaluate (and checkpoint) on a schedule."""
    curve: list[CurvePoint] = []
    per_iter = loop.config.batch_size
    train_seconds = cpu_seconds = 0.0
    next_eval = loop.iteration * per_iter  # a resumed loop evaluates from where it is
    return_sum, episodes = 0.0, 0
    while True:
        steps = loop.iteration * per_iter
        if steps >= next_eval or steps >= env_steps:
            result = loop.evaluate()
            point = CurvePoint(
                loop.iteration,
                steps,
                round(train_seconds, 2),
                round(cpu_seconds, 2),
                result.percent_of_max,
                result.mean_return,
                result.std_return,
                float(result.lengths.mean()),
                return_sum / episodes if episodes else float("nan"),
            )
            curve.append(point)
            if log:
                print(point, flush=True)
            return_sum, episodes = 0.0, 0
            next_eval += eval_every_steps
            if checkpoint is not None:
                loop.save(checkpoint)
        if steps >= env_steps:
            return curve
        started, cpu_started = time.perf_counter(), time.process_time()
        outcomes = loop.run_session(iterations_per_session)
        jax.block_until_ready(loop.runner.train.params)
        train_seconds += time.perf_counter() - started
        cpu_seconds += time.process_time() - cpu_started
        target = outcomes.get(TARGET)
        if target is not None:
            return_sum += target.return_sum
            episodes += target.episodes


def write_curve(curve: Sequence[CurvePoint], csv_path: Path) -> None:
    """Save the learning curve as CSV."""
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    fields = list(CurvePoint.__dataclass_fields__)
    with csv_path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(fields)
        for p in curve:
            writer.writerow([getattr(p, k) for k in fields])
