"""DiCode for the Craftax benchmark in one process: generation between the student's sessions.

The live service runs the generator and the student as separate actors over the archive. A
benchmark must be reproducible from its seed instead, so here the real `Generator` (mutation
teacher by default, sandbox validation, closed loop) writes ``levels_per_session`` levels into
a fresh SQLite archive in the run folder before every session, synchronously, and the
student's :class:`~dicode.student.craftax.archive_schedule.ArchiveSchedule` (new levels first,
PLR over the active set, outcomes written back) fills the slots from that archive.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from archive_db import ArchiveRepository
from dicode.archive.config import ArchiveConfig
from dicode.domains.craftax.bundle import CraftaxBundle
from dicode.student.craftax.archive_schedule import DOMAIN, ArchiveSchedule
from dicode.student.craftax.train import SlotOutcome
from dicode.student.curriculum import CurriculumConfig
from services.generator.service import Generator
from services.settings import GeneratorSettings


@dataclass(frozen=True)
class CraftaxDiCodeConfig:
    """The curriculum side of a Craftax DiCode run (the PPO-RNN config is the student's)."""

    num_slots: int = 4  # with 16 envs each: the 64-env batch of the target-only baseline
    envs_per_slot: int = 16
    iterations_per_session: int = 4  # PPO iterations with fixed slots (16k env steps)
    levels_per_session: int = 1  # generation attempts before every session
    generator: GeneratorSettings = field(default_factory=GeneratorSettings)
    # DiCode keeps 100 active levels for 15 level slots; about the same ratio for our 3.
    archive: ArchiveConfig = field(default_factory=lambda: ArchiveConfig(active_capacity=20))
    curriculum: CurriculumConfig = field(default_factory=CurriculumConfig)


class GeneratingSchedule:
    """A slot schedule that lets the generator write levels first (see the module doc).

    A context manager: leaving it closes the sandbox workers and the archive.
    """

    def __init__(self, generator: Generator, schedule: ArchiveSchedule, levels: int) -> None:
        self.generator = generator
        self.schedule = schedule
        self.levels_per_session = levels
        self.generation_s = 0.0

    def plan(
        self, iteration: int, slot_levels: Sequence[int]
    ) -> dict[int, tuple[int, CraftaxBundle | None]]:
        started = time.perf_counter()
        self.generator.generate(self.levels_per_session)
        self.generation_s += time.perf_counter() - started
        return self.schedule.plan(iteration, slot_levels)

    def record(self, iteration: int, outcomes: dict[int, SlotOutcome]) -> None:
        self.schedule.record(iteration, outcomes)

    def summary(self) -> dict[str, Any]:
        """What the teacher produced and what the student made of it, for the run's report."""
        stats = self.generator.repo.stats(self.generator.run_id)
        levels = self.generator.repo.list_levels(self.generator.run_id)
        return {
            "attempts": stats.accepted + stats.rejected,
            "accepted": stats.accepted,
            "levels_trained": sum(1 for level in levels if level.times_sampled),
            "active_levels": len(self.generator.repo.active_set(self.generator.run_id).level_ids),
            "generation_s": round(self.generation_s, 1),
        }

    def __enter__(self) -> GeneratingSchedule:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.generator.close()
        self.generator.repo.close()


def dicode_schedule(run_dir: Path, seed: int, config: CraftaxDiCodeConfig) -> GeneratingSchedule:
    """A seeded archive (``run_dir/archive.sqlite``, new every run) with its generator."""
    run_dir.mkdir(parents=True, exist_ok=True)
    for stale in run_dir.glob("archive.sqlite*"):
        stale.unlink()
    repo = ArchiveRepository.open(f"sqlite:///{run_dir / 'archive.sqlite'}")
    run = repo.create_run(
        f"craftax_dicode_s{seed}", domain=DOMAIN, seed=seed, config=asdict(config)
    )
    generator = Generator(repo, run.id, config.generator, config.archive, domain=DOMAIN, seed=seed)
    generator.seed_archive()
    schedule = ArchiveSchedule(repo, run.id, config.archive, config.curriculum, seed)
    return GeneratingSchedule(generator, schedule, config.levels_per_session)
