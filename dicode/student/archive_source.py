"""The curriculum's levels from the archive, and the student's outcomes back into it.

A :class:`~dicode.student.train.LevelSource` over one run of the SQL archive: new levels are the
run's Tetris levels with a bundle that were never sampled; the active set and its scores come
from the archive; pools are decoded from stored bundles (cached); outcomes are written with
``record_evaluation`` (which sets success rate, status letter and learnability) and the
trained levels are stamped with ``mark_sampled``.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax.numpy as jnp

from archive_db.records import LevelInfo
from archive_db.repository import ArchiveRepository
from dicode.domains.tetris.schema import TetrisLevel
from dicode.levels.bundle import LevelBundle
from dicode.student.curriculum import TARGET, LevelOutcome


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
        trained = [lvl for lvl in outcomes if lvl != TARGET]
        for lvl in trained:
            o = outcomes[lvl]
            self.repo.record_evaluation(
                lvl,
                student_iteration=iteration,
                episodes=o.episodes,
                successes=o.successes,
                mean_return=o.mean_return,
                per_goal={"lines_per_episode": o.lines_sum / o.episodes} if o.episodes else {},
            )
        if trained:
            self.repo.mark_sampled(trained, iteration)
