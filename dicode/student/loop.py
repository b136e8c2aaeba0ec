"""The student's outer loop for every world: sessions of compiled iterations over level slots.

A world provides a :class:`SlotTrainer` (its compiled PPO over S slots: placing a level's pool in
a slot, one iteration, the target protocol, checkpoints); a curriculum method provides a
:class:`SlotSchedule` (which level each slot plays next session, and where the outcomes go).
:class:`StudentLoop` joins them: before a session the schedule's plan is placed (a changed slot's
environments restart on the new level; nothing recompiles), each iteration's per-slot tallies
are summed per level, the target episodes update the running mean target return ``R̄`` that the
next iteration's completion bonus is capped at (``dicode.student.bonus``; the attribute keeps the
paper's name, ``r_prev``), and the session's outcomes go back to the schedule. :func:`train` runs
sessions to a step budget and evaluates on a step schedule, reporting to a run's log
(``dicode.student.run_log``) when given one.
"""

from __future__ import annotations

import csv
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, SupportsFloat, runtime_checkable

import numpy as np

from dicode.student.bonus import running_return
from dicode.student.curriculum import TARGET, SlotCounts
from dicode.student.run_log import RunLog
from dicode.student.tally import EpisodeTally, merge_outcomes, sum_by_level


class SlotTrainer(Protocol):
    """A world's compiled student over S level slots (see the module docstring)."""

    @property
    def num_slots(self) -> int: ...

    @property
    def batch_size(self) -> int:
        """Environment steps per iteration (every slot's steps count)."""
        ...

    @property
    def iteration(self) -> int: ...

    def place(self, slot: int, pool: Any | None) -> None:
        """Put a level's pool (``Domain.decode_pool``) in ``slot``; None = the target game."""
        ...

    def iterate(self, slot_reset: np.ndarray, r_prev: float) -> list[EpisodeTally]:
        """One rollout-and-update; ``slot_reset[s]`` restarts slot s's environments first.
        Returns one tally per slot of the episodes that finished."""
        ...

    def evaluate(self) -> dict[str, Any]:
        """The world's target protocol on the current policy: numeric figures, the headline
        first, and the per-skill figures under ``"skills"``."""
        ...

    def save(self, path: Path, extra: dict[str, Any]) -> None: ...

    def load(self, path: Path) -> dict[str, Any]:
        """Restore the learning state saved at ``path``; every slot is back on the target game.
        Returns the ``extra`` saved with it."""
        ...


class SlotSchedule(Protocol):
    """Where a curriculum method plugs in: what each slot plays, and what came of it."""

    def plan(self, iteration: int, slot_levels: Sequence[int]) -> dict[int, tuple[int, Any]]:
        """``{slot: (level_id, pool)}`` for the slots that change next session (the others keep
        their level); ``(TARGET, None)`` puts the target game back."""
        ...

    def record(self, iteration: int, outcomes: Mapping[int, EpisodeTally]) -> None:
        """The session's outcomes per level id (``TARGET`` included)."""
        ...


@runtime_checkable
class ReportsLosses(Protocol):
    """A trainer that keeps its last update's PPO losses (``SlotPPO.iterate``'s
    ``policy_loss``, ``value_loss`` and ``entropy``) for a run's log."""

    @property
    def last_losses(self) -> Mapping[str, SupportsFloat]: ...


@runtime_checkable
class CountsSlots(Protocol):
    """A schedule that counts its slot-sessions by kind (``ArchiveSchedule``)."""

    @property
    def counts(self) -> SlotCounts: ...


class StudentLoop:
    """Owns a world's trainer, the slots' level ids and the bonus's running target return."""

    def __init__(self, trainer: SlotTrainer, schedule: SlotSchedule | None = None) -> None:
        self.trainer = trainer
        self.schedule = schedule
        self.slot_levels = [TARGET] * trainer.num_slots
        self.r_prev = 0.0  # R̄: the running mean return of a whole target episode
        self.r_prev_episodes = 0  # target episodes R̄ has seen

    @property
    def iteration(self) -> int:
        return self.trainer.iteration

    @property
    def batch_size(self) -> int:
        return self.trainer.batch_size

    @property
    def env_steps(self) -> int:
        return self.iteration * self.batch_size

    def run_session(self, iterations: int) -> dict[int, EpisodeTally]:
        """Place the schedule's plan, train ``iterations`` iterations, report the outcomes."""
        reset = np.zeros(self.trainer.num_slots, dtype=bool)
        if self.schedule is not None:
            for slot, (level, pool) in self.schedule.plan(self.iteration, self.slot_levels).items():
                self.trainer.place(slot, pool)
                self.slot_levels[slot] = level
                reset[slot] = True
        outcomes: dict[int, EpisodeTally] = {}
        for i in range(iterations):
            per_slot = self.trainer.iterate(reset & (i == 0), self.r_prev)
            step = sum_by_level(self.slot_levels, per_slot)
            target = step.get(TARGET)
            if target is not None and target.mean_return is not None:  # else R̄ is kept
                self.r_prev, self.r_prev_episodes = running_return(
                    self.r_prev, self.r_prev_episodes, target.mean_return, target.episodes
                )
            outcomes = merge_outcomes(outcomes, step)
        if self.schedule is not None:
            self.schedule.record(self.iteration, outcomes)
        return outcomes

    def evaluate(self) -> dict[str, Any]:
        return self.trainer.evaluate()

    def save(self, path: str | Path) -> None:
        extra = {"r_prev": self.r_prev, "r_prev_episodes": self.r_prev_episodes}
        self.trainer.save(Path(path), extra)

    def load(self, path: str | Path) -> None:
        """Resume the learning state; every slot restarts on the target game, so the next
        session's plan places (and resets) whatever the schedule chooses."""
        extra = self.trainer.load(Path(path))
        self.r_prev = float(extra["r_prev"])
        # A checkpoint from before the running mean: its R_prev counts as one episode.
        self.r_prev_episodes = int(extra.get("r_prev_episodes", 1))
        self.slot_levels = [TARGET] * self.trainer.num_slots


@dataclass
class CurvePoint:
    """One row of a learning curve."""

    iteration: int
    env_steps: int
    train_seconds: float  # wall-clock seconds in training sessions (compiles included)
    train_cpu_seconds: float  # process CPU seconds in training sessions (all threads)
    target: dict[str, Any] = field(default_factory=dict)  # the protocol's figures and skills
    # Target-slot training episodes finished since the last row: mean return and world means.
    train_target: dict[str, float] = field(default_factory=dict)
    # What the curriculum trained on since the last row (the literature's loops, ued.py).
    curriculum: dict[str, float] = field(default_factory=dict)

    def row(self) -> dict[str, float]:
        """Flat, for CSV: the numeric protocol figures as ``target_<name>`` (the per-skill
        ones and other data, e.g. start boards, left out: the experiments' JSON keeps them),
        training as ``train_<name>``."""
        flat: dict[str, float] = {
            "iteration": self.iteration,
            "env_steps": self.env_steps,
            "train_seconds": self.train_seconds,
            "train_cpu_seconds": self.train_cpu_seconds,
        }
        numbers = {k: v for k, v in self.target.items() if isinstance(v, int | float)}
        flat |= {f"target_{k}": v for k, v in numbers.items()}
        flat |= {f"train_{k}": v for k, v in self.train_target.items()}
        flat |= {f"curriculum_{k}": v for k, v in self.curriculum.items()}
        return flat


def train(
    loop: StudentLoop,
    env_steps: int,
    iterations_per_session: int = 1,
    eval_every_steps: int = 50_000,
    checkpoint: Path | None = None,
    log: bool = True,
    before_session: Callable[[], object] | None = None,
    after_evaluation: Callable[[CurvePoint], object] | None = None,
    run_log: RunLog | None = None,
) -> list[CurvePoint]:
    """Train until ``env_steps`` environment steps; evaluate (and checkpoint) on a schedule.

    ``before_session`` runs before every session (e.g. a teacher writing the levels the
    session may draw); ``after_evaluation`` receives every curve point as it is measured
    (e.g. to show the teacher the target student's profile). Neither is counted as training
    time. ``run_log`` receives every session's figures (:func:`session_scalars`) and every
    evaluation (:func:`log_evaluation`); it is left open.
    """
    curve: list[CurvePoint] = []
    train_seconds = cpu_seconds = 0.0
    next_eval = loop.env_steps  # a resumed loop evaluates from where it is
    target_sum = EpisodeTally()
    while True:
        steps = loop.env_steps
        if steps >= next_eval or steps >= env_steps:
            figures = loop.evaluate()
            mean = target_sum.mean_return
            training = {"mean_return": float("nan") if mean is None else mean}
            point = CurvePoint(
                loop.iteration,
                steps,
                round(train_seconds, 2),
                round(cpu_seconds, 2),
                figures,
                training | target_sum.means(),
            )
            curve.append(point)
            if after_evaluation is not None:
                after_evaluation(point)
            if run_log is not None:
                log_evaluation(run_log, curve)
            if log:
                print(point.row(), flush=True)
            target_sum = EpisodeTally()
            next_eval += eval_every_steps
            if checkpoint is not None:
                loop.save(checkpoint)
        if steps >= env_steps:
            return curve
        if before_session is not None:
            before_session()
        started, cpu_started = time.perf_counter(), time.process_time()
        outcomes = loop.run_session(iterations_per_session)
        train_seconds += time.perf_counter() - started
        cpu_seconds += time.process_time() - cpu_started
        target = outcomes.get(TARGET)
        if target is not None:
            target_sum = target_sum + target
        if run_log is not None:
            run_log.scalars(loop.env_steps, session_scalars(loop, outcomes))


def loss_scalars(trainer: object) -> dict[str, float]:
    """The last update's PPO losses as ``ppo/<name>`` (none when the trainer keeps none)."""
    if not isinstance(trainer, ReportsLosses):
        return {}
    return {f"ppo/{name}": float(value) for name, value in trainer.last_losses.items()}


def session_scalars(loop: StudentLoop, outcomes: Mapping[int, EpisodeTally]) -> dict[str, float]:
    """What a session trained on: the last update's losses, the target's training episodes
    (``train/target_mean_return`` and the world's means), the share of slots on the target,
    and the schedule's slot-sessions so far by kind (``slots/<kind>``)."""
    values = loss_scalars(loop.trainer)
    target = outcomes.get(TARGET)
    if target is not None and target.mean_return is not None:
        means = {"mean_return": target.mean_return} | target.means()
        values |= {f"train/target_{name}": value for name, value in means.items()}
    values["slots/target_share"] = loop.slot_levels.count(TARGET) / len(loop.slot_levels)
    if isinstance(loop.schedule, CountsSlots):
        values |= {f"slots/{kind}": n for kind, n in loop.schedule.counts.to_dict().items()}
    return values


def log_evaluation(
    run_log: RunLog, curve: Sequence[CurvePoint], extra: Mapping[str, float] | None = None
) -> None:
    """The newest point of ``curve`` into ``run_log``: the protocol's figures, the env steps per
    training second since the point before (``train/env_steps_per_s``), what the curriculum
    trained on (``curriculum/<name>``) and ``extra``."""
    point = curve[-1]
    values = {f"curriculum/{name}": value for name, value in point.curriculum.items()}
    if len(curve) > 1:
        before = curve[-2]
        seconds = point.train_seconds - before.train_seconds
        if seconds > 0:
            values["train/env_steps_per_s"] = (point.env_steps - before.env_steps) / seconds
    run_log.scalars(point.env_steps, values | dict(extra or {}))
    run_log.figures(point.env_steps, point.target)


def write_curve(
    curve: Sequence[CurvePoint], csv_path: Path, png_path: Path | None = None, headline: str = ""
) -> None:
    """Save a learning curve as CSV (and, given ``png_path``, a plot of the ``headline``
    protocol figure over env steps)."""
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    rows = [point.row() for point in curve]
    columns = list(dict.fromkeys(key for row in rows for key in row))
    with csv_path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    if png_path is not None and headline:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 4))
        values = [p.target.get(headline, float("nan")) for p in curve]
        ax.plot([p.env_steps for p in curve], values, marker="o")
        ax.set_xlabel("environment steps")
        ax.set_ylabel(f"target {headline}")
        fig.tight_layout()
        fig.savefig(png_path, dpi=100)
        plt.close(fig)


def read_curve(csv_path: Path) -> list[dict[str, float]]:
    """The rows of a curve written by :func:`write_curve` (a figure a row lacks is NaN)."""
    with csv_path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    return [{k: float(v) if v else float("nan") for k, v in row.items()} for row in rows]
