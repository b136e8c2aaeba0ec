"""What every domain's service student shares: sessions, checkpoints, resume, session events.

A domain's student (`loop.ArchiveStudent` for Tetris, `craftax.CraftaxArchiveStudent`) owns a
library training loop and the curriculum object that fills its slots from the archive; this
base runs the loop session by session, writes a checkpoint file under ``runs/<name>/
checkpoints/`` plus its archive row every ``checkpoint_every`` sessions (keeping the newest
``keep_checkpoints`` files), resumes from the newest one, and stores a `student_session` event
per session for the API and the terminal view.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from archive_db import ArchiveRepository
from dicode.student.curriculum import TARGET, EpisodeTally

SESSION_EVENT = "student_session"


class TrainingLoop(Protocol):
    """The library loop a student drives (Tetris `StudentLoop`, `CraftaxStudentLoop`)."""

    @property
    def iteration(self) -> int: ...

    @property
    def slot_levels(self) -> Any: ...  # a list or an array of level ids, one per slot

    def run_session(self, iterations: int) -> Mapping[int, EpisodeTally]: ...

    def save(self, path: str | Path) -> None: ...

    def load(self, path: str | Path) -> None: ...


class SessionSettings(Protocol):
    """The session fields both domains' student settings have."""

    @property
    def iterations_per_session(self) -> int: ...

    @property
    def checkpoint_every(self) -> int: ...

    @property
    def keep_checkpoints(self) -> int: ...


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
    figures: dict[str, float | None] = field(default_factory=dict)  # the domain's own

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
        } | self.figures


class SessionStudent:
    """Trains one run's student session by session; resumes from the newest checkpoint.

    Subclasses build ``loop`` (and whatever fills its slots) and then call `start`; they may
    override `target_figures` (domain figures of the target slots) and `admitted`.
    """

    loop: TrainingLoop

    def __init__(
        self,
        repository: ArchiveRepository,
        run_id: int,
        run_dir: str | Path,
        settings: SessionSettings,
        batch_size: int,
    ) -> None:
        self.repo = repository
        self.run_id = run_id
        self.sessions = settings
        self.batch_size = batch_size
        self.checkpoint_dir = Path(run_dir) / "checkpoints"
        self.checkpoint_dir.mkdir(parents=True, exist_ok=True)
        self.session_count = 0
        self.resumed_from: int | None = None

    def start(self, resume: bool) -> None:
        """Call once ``loop`` exists: restore the newest checkpoint when resuming."""
        if resume:
            self._restore()

    @property
    def iteration(self) -> int:
        return self.loop.iteration

    @property
    def env_steps(self) -> int:
        return self.iteration * self.batch_size

    def admitted(self) -> Sequence[int]:
        """Levels the last session admitted to the active set."""
        return ()

    def target_figures(self, target: Any) -> dict[str, float | None]:
        """Extra figures of the target slots' outcome (None: no target slot this session)."""
        return {}

    def session(self) -> SessionReport:
        """One session of PPO iterations; evaluations, offers, event, checkpoint on schedule."""
        started = time.perf_counter()
        outcomes = self.loop.run_session(self.sessions.iterations_per_session)
        self.session_count += 1
        checkpoint = None
        if self.session_count % self.sessions.checkpoint_every == 0:
            checkpoint = self.checkpoint()
        target = outcomes.get(TARGET)
        report = SessionReport(
            session=self.session_count,
            iteration=self.iteration,
            env_steps=self.env_steps,
            slot_levels=tuple(int(x) for x in self.loop.slot_levels),
            evaluated={k: o.success_rate for k, o in outcomes.items() if k != TARGET},
            admitted=tuple(self.admitted()),
            target_mean_return=None if target is None else target.mean_return,
            seconds=time.perf_counter() - started,
            checkpoint=checkpoint,
            figures=self.target_figures(target),
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
            : -self.sessions.keep_checkpoints
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
