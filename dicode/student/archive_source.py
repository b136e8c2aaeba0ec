"""The curriculum's levels from the archive, and the student's outcomes back into it.

A :class:`~dicode.student.train.LevelSource` over one run of the SQL archive: new levels are the
run's Tetris levels with a bundle that were never sampled; the active set and its scores come
from the archive; pools are decoded from stored bundles (cached); outcomes are written with
``record_evaluation`` (which sets success rate, status letter and learnability) and the
trained levels are stamped with ``mark_sampled``. ``write_outcomes`` and ``offer_measured``
(DiCode's active-set admission) serve the Craftax student's schedule too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import jax.numpy as jnp

from archive_db.records import LevelInfo
from archive_db.repository import ArchiveRepository
from dicode.archive import active_set
from dicode.archive.config import ArchiveConfig
from dicode.archive.status import learnability
from dicode.domains.tetris.schema import TetrisLevel
from dicode.levels.bundle import LevelBundle
from dicode.student.curriculum import TARGET, EpisodeTally, LevelOutcome


class ArchiveLevelSource:
    """Levels of ``run_id`` for the student; see the module docstring."""

    def __init__(self, repo: ArchiveRepository, run_id: int) -> None:
        self.repo = repo
        self.run_id = run_id
        self._pools: dict[int, TetrisLevel] = {}

    def levels(self) -> list[LevelInfo]:
        """The run's levels the student can train on (Tetris, with a bundle), oldest first."""
        return [
            level
            for level in self.repo.list_levels(self.run_id)
            if level.domain == "tetris" and level.bundle_format
        ]

    def new_levels(self) -> Sequence[int]:
        return [level.id for level in self.levels() if level.times_sampled == 0]

    def measured(self) -> tuple[list[int], list[float]]:
        """Levels with a success rate from their latest evaluation, and those rates."""
        ids: list[int] = []
        rates: list[float] = []
        for level in self.levels():
            if level.success_rate is not None:
                ids.append(level.id)
                rates.append(level.success_rate)
        return ids, rates

    def active(self) -> tuple[Sequence[int], Sequence[float]]:
        active = self.repo.active_set(self.run_id)
        return active.level_ids, active.scores

    def pool(self, level_id: int) -> TetrisLevel:
        if level_id not in self._pools:
            data = self.repo.get_bundle(level_id)
            if data is None:
                raise ValueError(f"level {level_id} has no bundle to train on")
            pool = LevelBundle.from_bytes(data).pool
            fields = TetrisLevel.__dataclass_fields__
            missing = set(fields) - set(pool)
            if missing:
                raise ValueError(f"level {level_id}'s pool lacks {sorted(missing)}")
            self._pools[level_id] = TetrisLevel(**{k: jnp.asarray(pool[k]) for k in fields})
        return self._pools[level_id]

    def record(self, iteration: int, outcomes: dict[int, LevelOutcome]) -> None:
        write_outcomes(self.repo, iteration, outcomes, _lines_per_episode)


Outcome = TypeVar("Outcome", bound=EpisodeTally)


def write_outcomes(
    repo: ArchiveRepository,
    iteration: int,
    outcomes: Mapping[int, Outcome],
    per_goal: Callable[[Outcome], dict[str, Any]],
) -> list[int]:
    """Store every trained level's session outcome as an evaluation (success rate, status
    letter, learnability) and stamp the levels sampled; returns their ids (``TARGET`` skipped).
    ``per_goal`` adds the domain's own figures to the evaluation row."""
    trained = [level for level in outcomes if level != TARGET]
    for level in trained:
        o = outcomes[level]
        repo.record_evaluation(
            level,
            student_iteration=iteration,
            episodes=o.episodes,
            successes=o.successes,
            mean_return=o.mean_return,
            per_goal=per_goal(o) if o.episodes else {},
        )
    if trained:
        repo.mark_sampled(trained, iteration)
    return trained


def offer_measured(
    repo: ArchiveRepository,
    run_id: int,
    outcomes: Mapping[int, EpisodeTally],
    archive: ArchiveConfig,
) -> list[int]:
    """Offer every level with a finished episode to the active set with its learnability
    p(1−p) (DiCode's admission rule); returns the admitted ids. A level without a finished
    episode has no measurement to rank it by and is not offered."""
    admitted = []
    for level, outcome in outcomes.items():
        if level == TARGET or not outcome.episodes:
            continue
        score = learnability(outcome.success_rate)
        if active_set.offer(repo, run_id, level, score, archive).admitted:
            admitted.append(level)
    return admitted


def _lines_per_episode(outcome: LevelOutcome) -> dict[str, Any]:
    return {"lines_per_episode": outcome.lines_sum / outcome.episodes}
