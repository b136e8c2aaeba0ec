"""The student's outer loop: sessions of PPO iterations on a slot mixture, curves, checkpoints.

A session fixes the slots (target only, or the curriculum's plan from a :class:`LevelSource`),
runs ``iterations_per_session`` compiled iterations, feeds the target's mean return of each
iteration into the next one's completion bonus (``R_prev``), and reports per-level outcomes to
the source (the student service writes them to the archive as evaluations). Every
``eval_every`` iterations the greedy policy is scored on the target protocol.
"""

from __future__ import annotations

import csv
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

import jax
import jax.numpy as jnp
import numpy as np

from dicode.domains.tetris.schema import TetrisLevel, stack_levels, target_level
from dicode.student.checkpoint import load_checkpoint, save_checkpoint
from dicode.student.config import PPOConfig
from dicode.student.curriculum import (
    TARGET,
    CurriculumConfig,
    CurriculumState,
    LevelOutcome,
    build_slots,
    level_outcomes,
    merge_outcomes,
    plan_slots,
)
from dicode.student.evaluate import Evaluator, evaluate_greedy, make_greedy_evaluator
from dicode.student.ppo import RunnerState, Trainer


class LevelSource(Protocol):
    """Where the curriculum's levels come from and where their outcomes go."""

    def new_levels(self) -> Sequence[int]: ...

    def active(self) -> tuple[Sequence[int], Sequence[float]]: ...

    def pool(self, level_id: int) -> TetrisLevel: ...

    def record(self, iteration: int, outcomes: dict[int, LevelOutcome]) -> None: ...


class SlotPlanner(Protocol):
    """Chooses the next session's slots; returns ``(slot_levels, slot_reset, state)`` like
    :func:`~dicode.student.curriculum.plan_slots`, which a loop without a planner uses."""

    def __call__(
        self,
        state: CurriculumState,
        num_slots: int,
        rng: np.random.Generator,
        config: CurriculumConfig,
    ) -> tuple[np.ndarray, np.ndarray, CurriculumState]: ...


@dataclass
class CurvePoint:
    """One row of the learning curve."""

    iteration: int
    env_steps: int
    train_seconds: float
    target_lines_mean: float
    target_lines_std: float
    target_pieces_mean: float
    train_target_lines: float  # mean lines of target episodes finished since the last row


@dataclass(frozen=True)
class CompiledStudent:
    """A trainer and a greedy target evaluator, each compiled on first use. Loops that differ
    only in seed may share one (``StudentLoop(compiled=...)``) and skip their compiles."""

    trainer: Trainer
    evaluator: Evaluator
    eval_games: int
    eval_max_pieces: int

    @classmethod
    def build(cls, config: PPOConfig, eval_games: int, eval_max_pieces: int) -> CompiledStudent:
        trainer = Trainer(config)
        evaluator = make_greedy_evaluator(trainer.network, eval_games, eval_max_pieces)
        return cls(trainer, evaluator, eval_games, eval_max_pieces)

    def fits(self, config: PPOConfig, eval_games: int, eval_max_pieces: int) -> bool:
        """Same layout, network, update and evaluation (the trainer never reads the seed)."""
        same_eval = (eval_games, eval_max_pieces) == (self.eval_games, self.eval_max_pieces)
        return same_eval and replace(config, seed=self.trainer.config.seed) == self.trainer.config


@dataclass
class StudentLoop:
    """Owns the trainer, its runner state, the curriculum state and the bonus's ``R_prev``."""

    config: PPOConfig
    source: LevelSource | None = None
    curriculum_config: CurriculumConfig = field(default_factory=CurriculumConfig)
    eval_games: int = 20
    eval_max_pieces: int = 1_000
    planner: SlotPlanner | None = None  # None: new levels first, then PLR over source.active()
    compiled: CompiledStudent | None = None  # None: compile a trainer and evaluator of its own

    def __post_init__(self) -> None:
        compiled = self.compiled or CompiledStudent.build(
            self.config, self.eval_games, self.eval_max_pieces
        )
        if not compiled.fits(self.config, self.eval_games, self.eval_max_pieces):
            raise ValueError("the shared compiled student has another configuration")
        self.trainer = compiled.trainer
        self.evaluator = compiled.evaluator
        self.target_pool = stack_levels([target_level()])
        self.slot_levels = np.full(self.config.num_slots, TARGET, dtype=np.int64)
        self.slots = self._build(self.slot_levels)
        self.runner: RunnerState = self.trainer.init(self.config.seed, self.slots)
        self.curriculum = CurriculumState(slot_levels=tuple(int(x) for x in self.slot_levels))
        self.np_rng = np.random.default_rng(self.config.seed)
        self.r_prev = 0.0

    def _build(self, slot_levels: np.ndarray) -> TetrisLevel:
        pools = (
            {}
            if self.source is None
            else {
                int(lvl): self.source.pool(int(lvl)) for lvl in set(slot_levels.tolist()) - {TARGET}
            }
        )
        return build_slots(slot_levels.tolist(), pools, self.target_pool, self.config.pool_size)

    @property
    def iteration(self) -> int:
        return int(self.runner.iteration)

    def run_session(self, iterations: int) -> dict[int, LevelOutcome]:
        """Plan the slots, train ``iterations`` iterations, report and return the outcomes."""
        reset = np.zeros(self.config.num_slots, dtype=bool)
        if self.source is not None:
            planner = self.planner or self._plan_from_source
            self.slot_levels, reset, self.curriculum = planner(
                self.curriculum, self.config.num_slots, self.np_rng, self.curriculum_config
            )
            self.slots = self._build(self.slot_levels)
        outcomes: dict[int, LevelOutcome] = {}
        for i in range(iterations):
            self.runner, stats, _ = self.trainer.iterate(
                self.runner, self.slots, jnp.asarray(reset & (i == 0)), jnp.float32(self.r_prev)
            )
            step_outcomes = level_outcomes(self.slot_levels.tolist(), stats)
            target = step_outcomes.get(TARGET)
            if target is not None and target.mean_return is not None:
                self.r_prev = target.mean_return
            outcomes = merge_outcomes(outcomes, step_outcomes)
        if self.source is not None:
            self.source.record(self.iteration, outcomes)
        return outcomes

    def _plan_from_source(
        self,
        state: CurriculumState,
        num_slots: int,
        rng: np.random.Generator,
        config: CurriculumConfig,
    ) -> tuple[np.ndarray, np.ndarray, CurriculumState]:
        assert self.source is not None
        active_ids, active_scores = self.source.active()
        return plan_slots(
            state, num_slots, self.source.new_levels(), active_ids, active_scores, rng, config
        )

    def evaluate(self) -> tuple[float, float, float]:
        """Greedy target protocol: mean lines, std lines, mean pieces."""
        result = evaluate_greedy(self.evaluator, self.runner.train.params)
        return result.mean_lines, result.std_lines, float(result.pieces.mean())

    def save(self, path: str | Path) -> None:
        save_checkpoint(
            path,
            self.runner,
            self.curriculum,
            self.np_rng,
            {"r_prev": self.r_prev, "slot_levels": self.slot_levels.tolist()},
        )

    def load(self, path: str | Path) -> None:
        self.runner, self.curriculum, self.np_rng, extra = load_checkpoint(path, self.runner)
        self.r_prev = float(extra["r_prev"])
        self.slot_levels = np.asarray(extra["slot_levels"], dtype=np.int64)
        self.slots = self._build(self.slot_levels)


def train(
    loop: StudentLoop,
    env_steps: int,
    iterations_per_session: int = 1,
    eval_every_steps: int = 50_000,
    checkpoint: Path | None = None,
    log: bool = True,
    before_session: Callable[[], object] | None = None,
) -> list[CurvePoint]:
    """Train until ``env_steps`` environment steps; evaluate on a step schedule.

    ``before_session`` runs before every session (e.g. a teacher writing the levels the
    session may draw); its time is not counted as training time.
    """
    curve: list[CurvePoint] = []
    per_iter = loop.config.batch_size
    train_seconds = 0.0
    next_eval = loop.iteration * per_iter  # a resumed loop evaluates from where it is
    lines_sum, episodes = 0, 0
    while True:
        steps = loop.iteration * per_iter
        if steps >= next_eval or steps >= env_steps:
            mean, std, pieces = loop.evaluate()
            point = CurvePoint(
                loop.iteration,
                steps,
                round(train_seconds, 2),
                mean,
                std,
                pieces,
                lines_sum / episodes if episodes else float("nan"),
            )
            curve.append(point)
            if log:
                print(point, flush=True)
            lines_sum, episodes = 0, 0
            next_eval += eval_every_steps
            if checkpoint is not None:
                loop.save(checkpoint)
        if steps >= env_steps:
            return curve
        if before_session is not None:
            before_session()
        started = time.perf_counter()
        outcomes = loop.run_session(iterations_per_session)
        jax.block_until_ready(loop.runner.train.params)
        train_seconds += time.perf_counter() - started
        target = outcomes.get(TARGET)
        if target is not None:
            lines_sum += target.lines_sum
            episodes += target.episodes


def read_curve(csv_path: Path) -> list[CurvePoint]:
    """The rows of a curve written by :func:`write_curve`."""
    with csv_path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    types = {"iteration": int, "env_steps": int}
    return [
        CurvePoint(**{k: types.get(k, float)(v) for k, v in row.items()})  # type: ignore[arg-type]
        for row in rows
    ]


def write_curve(curve: Sequence[CurvePoint], csv_path: Path, png_path: Path | None = None) -> None:
    """Save the learning curve as CSV (and a PNG of target lines vs env steps)."""
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    fields = list(CurvePoint.__dataclass_fields__)
    with csv_path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(fields)
        for p in curve:
            writer.writerow([getattr(p, k) for k in fields])
    if png_path is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 4))
        steps = [p.env_steps for p in curve]
        mean = np.array([p.target_lines_mean for p in curve])
        std = np.array([p.target_lines_std for p in curve])
        ax.plot(steps, mean, marker="o", label="greedy, 20 protocol games")
        ax.fill_between(steps, mean - std, mean + std, alpha=0.2)
        ax.set_xlabel("environment steps (pieces)")
        ax.set_ylabel("target lines per game (cap 1,000 pieces)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(png_path, dpi=100)
        plt.close(fig)
