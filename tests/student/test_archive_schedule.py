"""The student trains on levels stored in the SQL archive and writes evaluations back."""
# The Craftax student's use of the same schedule: tests/craftax/test_craftax_archive_schedule.py

from __future__ import annotations

import dataclasses

import numpy as np

from archive_db.records import NewLevel
from archive_db.repository import ArchiveRepository
from dicode import domains
from dicode.domains.tetris.schema import target_level
from dicode.domains.tetris.student.trainer import TetrisSlotTrainer
from dicode.levels.bundle import LevelBundle, source_hash
from dicode.student.archive_schedule import ArchiveSchedule
from dicode.student.curriculum import TARGET
from dicode.student.loop import StudentLoop
from tests.student.conftest import TINY


def _bundle(goal_pieces: int) -> LevelBundle:
    level = dataclasses.replace(target_level(), goal_pieces=np.int32(goal_pieces))
    pool = {
        name: np.stack([np.asarray(getattr(level, name))] * 3)
        for name in level.__dataclass_fields__
    }
    return LevelBundle(
        domain="tetris",
        description=f"survive {goal_pieces} pieces",
        goal={"goal_pieces": goal_pieces},
        rules={},
        pool=pool,
        source_hash=source_hash(str(goal_pieces)),
        builder_version="test",
    )


def test_a_session_trains_a_new_archive_level_and_records_its_evaluation() -> None:
    repo = ArchiveRepository.open("sqlite://")
    run = repo.runs.create("student-test", domain="tetris", seed=0)
    bundle = _bundle(goal_pieces=2)
    level_id = repo.levels.insert(
        run.id,
        NewLevel(
            domain="tetris",
            content_hash=bundle.content_hash,
            teacher="test",
            bundle=bundle.to_bytes(),
            bundle_format="npz",
        ),
    ).id
    schedule = ArchiveSchedule(repo, run.id, domains.get("tetris"))
    assert schedule.new_levels() == [level_id]

    loop = StudentLoop(TetrisSlotTrainer(TINY, 2, 10), schedule)  # the target and one level
    outcomes = loop.run_session(2)

    assert loop.slot_levels == [TARGET, level_id]
    assert outcomes[level_id].episodes > 0
    history = repo.evaluations.history(level_id)
    assert len(history) == 1 and history[0].episodes == outcomes[level_id].episodes
    assert history[0].successes == outcomes[level_id].successes
    assert set(history[0].per_goal) == {"mean_lines", "mean_pieces"}
    assert repo.levels.get(level_id).times_sampled == 1
    assert schedule.new_levels() == []  # trained once: no longer new
    assert schedule.admitted == [level_id]  # DiCode's admission: measured, room in the set
