"""One student over one run's archive: pick slots, train a session, write back what it learned.

A *session* = `iterations_per_session` PPO iterations with fixed slots. Before it, the
curriculum mixer (`dicode.student.curriculum.plan_slots`) fills the slots: the target game,
never-trained levels first, then PLR replay of the active set. After it, every level that
finished episodes gets an evaluation row (success rate → status letter and learnability), is
offered to the active set, and is marked sampled (which releases the generator's back-pressure).
Checkpoints go to files under the run folder and a row in the archive, so a restarted student
resumes exactly where the last checkpoint left it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jax.numpy as jnp
import numpy as np

from archive_db import ArchiveRepository
from dicode.archive import active_set
from dicode.archive.config import ArchiveConfig
from dicode.archive.status import learnability
from dicode.domains.tetris.schema import TetrisLevel, stack_levels, target_level
from dicode.levels.bundle import LevelBundle
from dicode.student.checkpoint import load_checkpoint, save_checkpoint
from dicode.student.curriculum import (
    TARGET,
    CurriculumState,
    LevelOutcome,
    build_slots,
    level_outcomes,
    merge_outcomes,
    plan_slots,
)
from dicode.student.ppo import RunnerState, Trainer
from services.settings import StudentSettings

SESSION_EVENT = "student_session"
DEFAULT_ARCHIVE = ArchiveConfig()


@dataclass(frozen=True)
class SessionReport:
    """What one session did (also stored as a `student_session` event)."""

    session: int
    iteration: int
    env_steps: int
    slot_levels: tuple[int, ...]
    evaluated: dict[int, float | None]  # level id -> success rate of this session
    admitted: tuple[int, ...]
    target_mean_return: float | None
    target_mean_lines: float | None
    losses: dict[str, float]
    seconds: float
    checkpoint: str | None = None

    def payload(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "iteration": self.iteration,
            "env_steps": self.env_steps,
            "slot_levels": list(self.slot_levels),
            "evaluated": {str(k): v for k, v in self.evaluated.items()},
            "admitted": list(self.admitted),
            "target_mean_return": self.target_mean_return,
            "target_mean_lines": self.target_mean_lines,
            "losses": self.losses,
            "seconds": self.seconds,
            "checkpoint": self.checkpoint,
        }


def pool_from_bundle(data: bytes) -> TetrisLevel:
    """The stacked initial states of a stored level bundle."""
    bundle = LevelBundle.from_bytes(data)
    return TetrisLevel(**{key: jnp.asarray(value) for key, value in bundle.pool.items()})


@dataclass
class _Progress:
    session: int = 0
    env_steps: int = 0
    r_prev: float = 0.0
    np_rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))


class StudentLoop:
    """The student of one run; call `session()` repeatedly."""

    def __init__(
        self,
        repository: ArchiveRepository,
        run_id: int,
        run_dir: str | Path,
        settings: StudentSettings,
        archive: ArchiveConfig = DEFAULT_ARCHIVE,
        *,
        resume: bool = True,
    ) -> None:
        self.repo = repository
        self.run_id = run_id
        self.settings = settings
        self.archive = archive
        self.checkpoint_dir = Path(run_dir) / "checkpoints"
        self.checkpoint_dir.mkdir(parents=True, exist_ok=True)
        ppo = settings.ppo
        self.trainer = Trainer(ppo)
        self._target_pool = stack_levels([target_level()] * ppo.pool_size)
        self._pools: dict[int, TetrisLevel] = {}
        initial = build_slots([TARGET] * ppo.num_slots, {}, self._target_pool, ppo.pool_size)
        self.runner: RunnerState = self.trainer.init(ppo.seed, initial)
        self.curriculum = CurriculumState()
        self.progress = _Progress(np_rng=np.random.default_rng(ppo.seed))
        self.resumed_from: int | None = None
        if resume:
            self._restore()

    # ------------------------------------------------------------------ public
    @property
    def iteration(self) -> int:
        return int(self.runner.iteration)

    def session(self) -> SessionReport:
        """Plan slots, run one session of PPO iterations, record evaluations; checkpoint."""
        started = time.perf_counter()
        ppo = self.settings.ppo
        free = ppo.num_slots
        new_ids = [lvl.id for lvl in self.repo.list_levels(self.run_id, sampled=False, limit=free)]
        active = self.repo.active_set(self.run_id)
        slot_levels, slot_reset, self.curriculum = plan_slots(
            self.curriculum,
            ppo.num_slots,
            new_ids,
            list(active.level_ids),
            list(active.scores),
            self.progress.np_rng,
            self.settings.curriculum,
        )
        slot_ids = [int(x) for x in slot_levels]
        slots = build_slots(
            slot_ids,
            self._load_pools(slot_levels),
            self._target_pool,
            ppo.pool_size,
        )
        outcomes: dict[int, LevelOutcome] = {}
        losses: dict[str, float] = {}
        reset = jnp.asarray(slot_reset)
        keep = jnp.zeros_like(reset)
        for i in range(self.settings.iterations_per_session):
            self.runner, stats, metrics = self.trainer.iterate(
                self.runner, slots, reset if i == 0 else keep, jnp.float32(self.progress.r_prev)
            )
            outcomes = merge_outcomes(outcomes, level_outcomes(slot_ids, stats))
            losses = {k: float(v) for k, v in metrics.items()}
        self.progress.session += 1
        self.progress.env_steps += ppo.batch_size * self.settings.iterations_per_session
        evaluated, admitted = self._record(outcomes)
        target = outcomes.get(TARGET)
        if target is not None and target.mean_return is not None:
            self.progress.r_prev = target.mean_return
        checkpoint = None
        if self.progress.session % self.settings.checkpoint_every == 0:
            checkpoint = self.checkpoint()
        report = SessionReport(
            session=self.progress.session,
            iteration=self.iteration,
            env_steps=self.progress.env_steps,
            slot_levels=tuple(int(x) for x in slot_levels),
            evaluated=evaluated,
            admitted=admitted,
            target_mean_return=None if target is None else target.mean_return,
            target_mean_lines=(
                None if target is None or not target.episodes
                else target.lines_sum / target.episodes
            ),
            losses=losses,
            seconds=time.perf_counter() - started,
            checkpoint=checkpoint,
        )
        self.repo.add_event(SESSION_EVENT, report.payload(), run_id=self.run_id)
        return report

    def checkpoint(self) -> str:
        """Write a checkpoint file and its archive row; returns the file's path."""
        iteration = self.iteration
        path = self.checkpoint_dir / f"student-{iteration:08d}.msgpack"
        extra = {
            "session": self.progress.session,
            "env_steps": self.progress.env_steps,
            "r_prev": self.progress.r_prev,
        }
        save_checkpoint(path, self.runner, self.curriculum, self.progress.np_rng, extra)
        self.repo.add_checkpoint(self.run_id, str(path), iteration, extra)
        self._prune_files()
        return str(path)

    # ------------------------------------------------------------------ internals
    def _restore(self) -> None:
        latest = self.repo.latest_checkpoint(self.run_id)
        if latest is None or not Path(latest.path).is_file():
            return
        runner, curriculum, rng, extra = load_checkpoint(latest.path, self.runner)
        self.runner, self.curriculum = runner, curriculum
        self.progress = _Progress(
            session=int(extra.get("session", 0)),
            env_steps=int(extra.get("env_steps", 0)),
            r_prev=float(extra.get("r_prev", 0.0)),
            np_rng=rng,
        )
        self.resumed_from = latest.iteration

    def _load_pools(self, slot_levels: np.ndarray) -> dict[int, TetrisLevel]:
        wanted = {int(x) for x in slot_levels if int(x) != TARGET}
        for level_id in wanted - self._pools.keys():
            data = self.repo.get_bundle(level_id)
            if data is None:
                raise ValueError(f"level {level_id} has no bundle to train on")
            self._pools[level_id] = pool_from_bundle(data)
        return {k: self._pools[k] for k in wanted}

    def _record(
        self, outcomes: dict[int, LevelOutcome]
    ) -> tuple[dict[int, float | None], tuple[int, ...]]:
        """Evaluations, active-set offers and sampled marks for the session's levels."""
        iteration = self.iteration
        evaluated: dict[int, float | None] = {}
        admitted: list[int] = []
        for level_id, outcome in outcomes.items():
            if level_id == TARGET:
                continue
            evaluated[level_id] = outcome.success_rate
            if not outcome.episodes:
                continue  # no episode ended yet: no measurement, the level keeps its status
            self.repo.record_evaluation(
                level_id,
                student_iteration=iteration,
                episodes=outcome.episodes,
                successes=outcome.successes,
                mean_return=outcome.mean_return,
                per_goal={"mean_lines": outcome.lines_sum / outcome.episodes},
            )
            decision = active_set.offer(
                self.repo, self.run_id, level_id, learnability(outcome.success_rate), self.archive
            )
            if decision.admitted:
                admitted.append(level_id)
        levels = [k for k in outcomes if k != TARGET]
        if levels:
            self.repo.mark_sampled(levels, iteration)
        return evaluated, tuple(admitted)

    def _prune_files(self) -> None:
        files = sorted(self.checkpoint_dir.glob("student-*.msgpack"))
        for old in files[: -self.settings.keep_checkpoints]:
            old.unlink(missing_ok=True)
