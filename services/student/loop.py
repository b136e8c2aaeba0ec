"""The student of one run: the library's training loop wired to the archive.

The training itself is `dicode.student.train.StudentLoop` (sessions of PPO iterations on the
curriculum's slot mixture) reading levels through `dicode.student.archive_source.
ArchiveLevelSource` (new levels first, PLR replay of the active set; outcomes written back as
evaluations, levels marked sampled). This module adds active-set offers after each
evaluation; `sessions.SessionStudent` adds what a long-running service needs: checkpoints
(file under the run folder + archive row) with resume, and a `student_session` event per
session (here with the target's mean lines) for the API and the terminal view.
"""

from __future__ import annotations

from pathlib import Path

from archive_db import ArchiveRepository
from dicode.archive.config import ArchiveConfig
from dicode.student.archive_source import ArchiveLevelSource, offer_measured
from dicode.student.curriculum import LevelOutcome
from dicode.student.train import StudentLoop
from services.settings import StudentSettings
from services.student.sessions import SessionStudent

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


class ArchiveStudent(SessionStudent):
    """The Tetris student of one run (sessions, checkpoints and resume: `SessionStudent`)."""

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
        super().__init__(repository, run_id, run_dir, settings, settings.ppo.batch_size)
        self.settings = settings
        self.source = ActiveSetSource(repository, run_id, archive)
        self.loop: StudentLoop = StudentLoop(settings.ppo, self.source, settings.curriculum)
        self.start(resume)

    def admitted(self) -> list[int]:
        return self.source.admitted

    def target_figures(self, target: LevelOutcome | None) -> dict[str, float | None]:
        if target is None or not target.episodes:
            return {"target_mean_lines": None}
        return {"target_mean_lines": target.lines_sum / target.episodes}
