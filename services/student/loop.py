"""The student of one run: the library's training loop wired to the archive.

The training itself is `dicode.student.train.StudentLoop` (sessions of PPO iterations on the
curriculum's slot mixture) reading levels through `dicode.student.archive_source.
ArchiveLevelSource` (new levels first, PLR replay of the active set; outcomes written back as
evaluations, levels marked sampled). This module adds what a long-running service needs:
active-set offers after each evaluation, checkpoints (file under the run folder + archive row)
with resume, and a `student_session` event per session for the API and the terminal view.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from archive_db import ArchiveRepository
from dicode.archive.config import ArchiveConfig
from dicode.student.archive_source import ArchiveLevelSource, offer_measured
from dicode.student.curriculum import TARGET, LevelOutcome
from dicode.student.train import StudentLoop
from services.settings import StudentSettings

SESSION_EVENT = "student_session"
DEFAULT_ARCHIVE = ArchiveConfig()


class ActiveSetSource(ArchiveLevelSource):
    """The library's archive source, plus: every measured level is offered to the active set
    with its learnability p(1−p) (DiCode's admission rule, capacity from `ArchiveConfig`)."""

    def __init__(self, repo: ArchiveRepository, run_id: int, archive: ArchiveConfig) -> None:
        super().__init__(repo, run_id)
        self.archive = archive
        self.admitted: list[int] = []

    def record(self, iteration: int, outcomes: dict[int, LevelOutcome]) -> None:
        super().record(iteration, outcomes)
        self.admitted = offer_measured(self.repo, self.run_id, outcomes, self.archive)


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
    target_mean_lines: float | None
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
            "seconds": self.seconds,
            "checkpoint": self.checkpoint,
        }


class ArchiveStudent:
    """Trains one run's student session by session; resumes from the newest checkpoint."""

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
        self.checkpoint_dir = Path(run_dir) / "checkpoints"
        self.checkpoint_dir.mkdir(parents=True, exist_ok=True)
        self.source = ActiveSetSource(repository, run_id, archive)
        self.loop = StudentLoop(settings.ppo, self.source, settings.curriculum)
        self.session_count = 0
        self.resumed_from: int | None = None
        if resume:
            self._restore()

    @property
    def iteration(self) -> int:
        return self.loop.iteration

    @property
    def env_steps(self) -> int:
        return self.iteration * self.settings.ppo.batch_size

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
            slot_levels=tuple(int(x) for x in self.loop.slot_levels),
            evaluated={k: o.success_rate for k, o in outcomes.items() if k != TARGET},
            admitted=tuple(self.source.admitted),
            target_mean_return=None if target is None else target.mean_return,
            target_mean_lines=(
                target.lines_sum / target.episodes
                if target is not None and target.episodes
                else None
            ),
            seconds=time.perf_counter() - started,
            checkpoint=checkpoint,
        )
        self.repo.add_event(SESSION_EVENT, report.payload(), run_id=self.run_id)
        return report

    def checkpoint(self) -> str:
        """Write a checkpoint file and its archive row; returns the file's path."""
        path = self.checkpoint_dir / f"student-{self.iteration:08d}.msgpack"
        self.loop.save(path)
        meta = {"session": self.session_count, "env_steps": self.env_steps}
        self.repo.add_checkpoint(self.run_id, str(path), self.iteration, meta)
        for old in sorted(self.checkpoint_dir.glob("student-*.msgpack"))[
            : -self.settings.keep_checkpoints
        ]:
            old.unlink(missing_ok=True)
        return str(path)

    def _restore(self) -> None:
        latest = self.repo.latest_checkpoint(self.run_id)
        if latest is None or not Path(latest.path).is_file():
            return
        self.loop.load(latest.path)
        self.session_count = int(latest.meta.get("session", 0))
        self.resumed_from = latest.iteration
