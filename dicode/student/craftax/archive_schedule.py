"""DiCode's slot rule for the Craftax student, over one run of the SQL archive.

A :class:`~dicode.student.craftax.train.SlotSchedule`: before every session the target game
keeps its share of the slots (``CurriculumConfig.target_fraction``), new levels (accepted, never
trained) take the free slots first, and PLR replay of the archive's active set fills the rest
(:func:`~dicode.student.curriculum.plan_slots`, the rule the Tetris student uses). After the
session every trained level's outcome is stored as an evaluation (success rate, status letter,
learnability), the levels are stamped as sampled, and each measured one is offered to the
active set with its learnability p(1−p). Whoever writes levels into the run (the generator
service, or the benchmark between sessions) is independent of this class.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from archive_db.repository import ArchiveRepository
from dicode.archive.config import ArchiveConfig
from dicode.domains.craftax.bundle import CraftaxBundle
from dicode.domains.craftax.level_checks import pool_to_bundle
from dicode.levels.bundle import LevelBundle
from dicode.student.archive_source import offer_measured, write_outcomes
from dicode.student.craftax.train import SlotOutcome
from dicode.student.curriculum import TARGET, CurriculumConfig, CurriculumState, plan_slots

DOMAIN = "craftax"
DEFAULT_ARCHIVE = ArchiveConfig()
DEFAULT_CURRICULUM = CurriculumConfig()


class ArchiveSchedule:
    """New levels first, then PLR over the active set; outcomes written back (module doc)."""

    def __init__(
        self,
        repo: ArchiveRepository,
        run_id: int,
        archive: ArchiveConfig = DEFAULT_ARCHIVE,
        curriculum: CurriculumConfig = DEFAULT_CURRICULUM,
        seed: int = 0,
    ) -> None:
        self.repo = repo
        self.run_id = run_id
        self.archive = archive
        self.curriculum = curriculum
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.state: CurriculumState | None = None
        self.admitted: list[int] = []
        self._bundles: dict[int, CraftaxBundle] = {}

    def new_levels(self) -> list[int]:
        """The run's Craftax levels with a bundle that were never trained on, oldest first."""
        return [
            level.id
            for level in self.repo.list_levels(self.run_id, sampled=False)
            if level.domain == DOMAIN and level.bundle_format
        ]

    def bundle(self, level_id: int) -> CraftaxBundle:
        """The level's pool, rules and goal, decoded (and re-checked) from its stored bundle."""
        if level_id not in self._bundles:
            data = self.repo.get_bundle(level_id)
            if data is None:
                raise ValueError(f"level {level_id} has no bundle to train on")
            self._bundles[level_id] = pool_to_bundle(LevelBundle.from_bytes(data).pool)
        return self._bundles[level_id]

    def plan(
        self, iteration: int, slot_levels: Sequence[int]
    ) -> dict[int, tuple[int, CraftaxBundle | None]]:
        if self.state is None:  # first session: start from what the loop's slots hold now
            self.state = CurriculumState(slot_levels=tuple(int(x) for x in slot_levels))
            # A resumed student starts at a later iteration: other draws than the first start.
            self.rng = np.random.default_rng([self.seed, iteration])
        active = self.repo.active_set(self.run_id)
        levels, changed, self.state = plan_slots(
            self.state,
            len(slot_levels),
            self.new_levels(),
            active.level_ids,
            active.scores,
            self.rng,
            self.curriculum,
        )
        return {
            slot: (int(level), None if level == TARGET else self.bundle(int(level)))
            for slot, level in enumerate(levels.tolist())
            if changed[slot]
        }

    def record(self, iteration: int, outcomes: dict[int, SlotOutcome]) -> None:
        write_outcomes(self.repo, iteration, outcomes, _mean_length)
        self.admitted = offer_measured(self.repo, self.run_id, outcomes, self.archive)


def _mean_length(outcome: SlotOutcome) -> dict[str, Any]:
    return {"mean_length": outcome.length_sum / outcome.episodes}
