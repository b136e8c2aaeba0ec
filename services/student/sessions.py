"""The student of one service run, for every world: sessions, checkpoints, resume, events.

The training is the library's `dicode.student.loop.StudentLoop` over the run's world's trainer
(``Domain.make_trainer``), its slots filled by `dicode.student.archive_schedule.ArchiveSchedule`
(target share, new levels first, PLR replay of the active set; outcomes back as evaluations,
DiCode's active-set admission, levels stamped sampled). This class adds what a long-running
service needs: a checkpoint file under ``runs/<name>/checkpoints/`` plus its archive row every
``checkpoint_every`` sessions (keeping the newest ``keep_checkpoints`` files), resume from the
newest one, a `student_session` event per session for the API and the terminal view, and (the
run's ``tensorboard`` setting) TensorBoard event files in ``runs/<name>/tensorboard/``.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from archive_db import ArchiveRepository
from archive_db.kinds import SESSION_EVENT
from dicode import domains
from dicode.settings import RunSettings
from dicode.student.archive_schedule import ArchiveSchedule
from dicode.student.curriculum import TARGET
from dicode.student.loop import StudentLoop, session_scalars
from dicode.student.run_log import TensorBoardLog
from dicode.student.tally import EpisodeTally


class CheckpointWriteError(OSError):
    """A checkpoint file could not be written; the archive and earlier checkpoints are kept.
    (OSError's own ``(errno, message)`` arguments, so Ray can carry it to the driver.)"""


def _checkpoint_write_error(path: Path, cause: OSError) -> CheckpointWriteError:
    try:
        free = f"{shutil.disk_usage(path.parent).free} bytes free there"
    except OSError:
        free = "free space unknown"
    return CheckpointWriteError(
        cause.errno,
        f"cannot write the checkpoint {path}: {cause.strerror or cause} ({free}); the archive "
        "and the earlier checkpoints are kept",
    )


@dataclass(frozen=True)
class SessionReport:
    """What one session did (also stored as a `student_session` event)."""

    session: int
    iteration: int
    env_steps: int
    slot_levels: tuple[int, ...]
    evaluated: dict[int, float | None]  # level id -> success rate in this session
    admitted: tuple[int, ...]
    target_mean_return: float | None
    seconds: float
    checkpoint: str | None = None
    figures: dict[str, float | None] = field(default_factory=dict)  # the world's own
    # Slot-sessions since this student started, by kind (target / new / replay / over share).
    slots: dict[str, int] = field(default_factory=dict)

    def payload(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "iteration": self.iteration,
            "env_steps": self.env_steps,
            "slot_levels": list(self.slot_levels),
            "evaluated": {str(k): v for k, v in self.evaluated.items()},
            "admitted": list(self.admitted),
            "target_mean_return": self.target_mean_return,
            "seconds": self.seconds,
            "checkpoint": self.checkpoint,
            "slots": self.slots,
        } | self.figures


class ArchiveStudent:
    """Trains one run's student session by session; resumes from the newest checkpoint."""

    def __init__(
        self,
        repository: ArchiveRepository,
        run_id: int,
        run_dir: str | Path,
        settings: RunSettings,
        *,
        resume: bool = True,
    ) -> None:
        self.repo = repository
        self.run_id = run_id
        self.settings = settings.student
        world = domains.get(settings.domain)
        self.schedule = ArchiveSchedule(
            repository,
            run_id,
            world,
            archive=settings.archive,
            mix=settings.student.curriculum,
            seed=settings.student.ppo.seed,
        )
        trainer = world.make_trainer(settings.student, settings.evaluator)
        self.loop = StudentLoop(trainer, self.schedule)
        self.checkpoint_dir = Path(run_dir) / "checkpoints"
        self.checkpoint_dir.mkdir(parents=True, exist_ok=True)
        self.session_count = 0
        self.resumed_from: int | None = None
        if resume:
            self._restore()
        self.run_log: TensorBoardLog | None = None
        if settings.tensorboard:  # a resumed run continues its log from the checkpoint
            self.run_log = TensorBoardLog(Path(run_dir) / "tensorboard", self.env_steps)

    @property
    def iteration(self) -> int:
        return self.loop.iteration

    @property
    def env_steps(self) -> int:
        return self.loop.env_steps

    def session(self) -> SessionReport:
        """One session of PPO iterations; evaluations, offers, event, checkpoint on schedule."""
        started = time.perf_counter()
        outcomes = self.loop.run_session(self.settings.iterations_per_session)
        self.session_count += 1
        checkpoint = None
        if self.session_count % self.settings.checkpoint_every == 0:
            checkpoint = self.checkpoint()
        target = outcomes.get(TARGET)
        report = SessionReport(
            session=self.session_count,
            iteration=self.iteration,
            env_steps=self.env_steps,
            slot_levels=tuple(self.loop.slot_levels),
            evaluated={k: o.success_rate for k, o in outcomes.items() if k != TARGET},
            admitted=tuple(self.schedule.admitted),
            target_mean_return=None if target is None else target.mean_return,
            seconds=time.perf_counter() - started,
            checkpoint=checkpoint,
            figures=target_figures(target),
            slots=self.schedule.counts.to_dict(),
        )
        self.repo.events.add(SESSION_EVENT, report.payload(), run_id=self.run_id)
        if self.run_log is not None:
            steps = self.settings.iterations_per_session * self.loop.batch_size
            values = session_scalars(self.loop, outcomes)
            values["train/env_steps_per_s"] = steps / report.seconds
            self.run_log.scalars(self.env_steps, values)
        return report

    def close(self) -> None:
        """Write out the run's log (the student trains no more)."""
        if self.run_log is not None:
            self.run_log.close()

    def checkpoint(self) -> str:
        """Write a checkpoint file and its archive row; returns the file's path."""
        path = self.checkpoint_dir / f"student-{self.iteration:08d}.msgpack"
        try:
            self.loop.save(path)
        except OSError as error:
            # A full or read-only run folder: no row, no partial file (the library writes
            # ``<path>.tmp`` then renames it), and one line that says where and why.
            path.with_suffix(path.suffix + ".tmp").unlink(missing_ok=True)
            raise _checkpoint_write_error(path, error) from error
        meta = {"session": self.session_count, "env_steps": self.env_steps}
        self.repo.checkpoints.add(self.run_id, str(path), self.iteration, meta)
        for old in sorted(self.checkpoint_dir.glob("student-*.msgpack"))[
            : -self.settings.keep_checkpoints
        ]:
            old.unlink(missing_ok=True)
        return str(path)

    def _restore(self) -> None:
        latest = self.repo.checkpoints.latest(self.run_id)
        if latest is None or not Path(latest.path).is_file():
            return
        self.loop.load(latest.path)
        self.session_count = int(latest.meta.get("session", 0))
        self.resumed_from = latest.iteration


def target_figures(target: EpisodeTally | None) -> dict[str, float | None]:
    """The target slots' training episodes this session: count and the world's means (None
    when no target episode finished)."""
    if target is None:
        return {"target_episodes": 0}
    means: dict[str, float | None] = {f"mean_{name}": None for name in target.sums}
    means |= target.means()
    return {"target_episodes": target.episodes} | {f"target_{k}": v for k, v in means.items()}
