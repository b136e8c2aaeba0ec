"""The Craftax student and target evaluator of one service run.

The student is the library's `CraftaxStudentLoop` (PPO-RNN over the pool engine) with the
archive's `ArchiveSchedule` in its slots (target share, new levels first, PLR replay of the
active set; outcomes back as evaluations, active-set offers, levels marked sampled); sessions,
checkpoints, resume and the `student_session` event come from `sessions.SessionStudent`.

The evaluator plays the Craftax paper's protocol (`CraftaxEvaluator`: the real game, a fixed
key, ``games`` first episodes capped at ``max_steps``, sampled actions) on each new checkpoint
and stores % of max and the return as a `target_eval` event.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import jax

from archive_db import ArchiveRepository
from dicode.archive.config import ArchiveConfig
from dicode.student.craftax.archive_schedule import ArchiveSchedule
from dicode.student.craftax.checkpoint import load_checkpoint
from dicode.student.craftax.evaluate import CraftaxEvaluator
from dicode.student.craftax.ppo import Trainer
from dicode.student.craftax.train import CraftaxStudentLoop, SlotOutcome
from services.settings import CraftaxStudentSettings, EvaluatorSettings
from services.student.sessions import SessionStudent
from services.student.target import CheckpointEvaluator

DEFAULT_ARCHIVE = ArchiveConfig()


class CraftaxArchiveStudent(SessionStudent):
    """Trains the run's Craftax student session by session over the archive's levels."""

    def __init__(
        self,
        repository: ArchiveRepository,
        run_id: int,
        run_dir: str | Path,
        settings: CraftaxStudentSettings,
        archive: ArchiveConfig = DEFAULT_ARCHIVE,
        *,
        resume: bool = True,
    ) -> None:
        super().__init__(repository, run_id, run_dir, settings, settings.ppo.batch_size)
        self.settings = settings
        self.schedule = ArchiveSchedule(
            repository, run_id, archive, settings.curriculum, settings.ppo.seed
        )
        self.loop: CraftaxStudentLoop = CraftaxStudentLoop(settings.ppo, self.schedule)
        self.start(resume)

    def admitted(self) -> list[int]:
        return self.schedule.admitted

    def target_figures(self, target: SlotOutcome | None) -> dict[str, float | None]:
        if target is None or not target.episodes:
            return {"target_episodes": 0, "target_mean_length": None}
        return {
            "target_episodes": target.episodes,
            "target_mean_length": target.length_sum / target.episodes,
        }


@dataclass(frozen=True)
class CraftaxTargetReport:
    iteration: int
    percent_of_max: float
    mean_return: float
    std_return: float
    mean_length: float
    games: int
    max_steps: int
    seconds: float

    def payload(self) -> dict[str, Any]:
        return asdict(self)


class CraftaxTargetEvaluator(CheckpointEvaluator[CraftaxTargetReport]):
    """The Craftax paper's protocol on each new checkpoint (compiled once, reused)."""

    def __init__(
        self,
        repository: ArchiveRepository,
        run_id: int,
        student: CraftaxStudentSettings,
        settings: EvaluatorSettings,
    ) -> None:
        super().__init__(repository, run_id, settings.games)
        self.settings = settings
        trainer = Trainer(student.ppo)
        # The train state's structure, for reading checkpoints (values are overwritten).
        self._template = trainer.init_train(jax.random.PRNGKey(student.ppo.seed))
        self._play = CraftaxEvaluator(trainer.network, settings.games, settings.max_steps)

    def read_params(self, path: Path) -> Any:
        train, *_ = load_checkpoint(path, self._template)
        return train.params

    def measure(self, params: Any, iteration: int) -> CraftaxTargetReport:
        started = time.perf_counter()
        result = self._play(params)
        return CraftaxTargetReport(
            iteration=iteration,
            percent_of_max=result.percent_of_max,
            mean_return=result.mean_return,
            std_return=result.std_return,
            mean_length=float(result.lengths.mean()),
            games=self.settings.games,
            max_steps=self.settings.max_steps,
            seconds=time.perf_counter() - started,
        )
