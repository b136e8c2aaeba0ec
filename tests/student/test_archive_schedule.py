"""The student trains on levels stored in the SQL archive and writes evaluations back."""
# The Craftax student's use of the same schedule: tests/craftax/test_craftax_archive_schedule.py

from __future__ import annotations

import dataclasses
import statistics
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from archive_db.records import NewLevel
from archive_db.repository import ArchiveRepository
from dicode import domains
from dicode.archive.config import ArchiveConfig
from dicode.domains.tetris.schema import target_level
from dicode.domains.tetris.student.trainer import TetrisSlotTrainer
from dicode.levels.bundle import LevelBundle, source_hash
from dicode.student import archive_schedule
from dicode.student.archive_schedule import ArchiveSchedule, SlotRule
from dicode.student.curriculum import TARGET, CurriculumState
from dicode.student.loop import StudentLoop
from dicode.student.tally import EpisodeTally
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


# A scripted student over three levels it always half-solves (learnability 0.25 each): the
# target climbs by 5 in the sessions that train A (beside C) and falls by 3 in those that train
# B (beside C). Session 5 finishes no target episode, so neither it nor session 6 credits a
# change. Session: (levels trained, the target's mean training return or None).
SCRIPT = [
    ("BC", 100.0), ("AC", 105.0), ("BC", 102.0), ("AC", 107.0),
    ("BC", 104.0), ("AC", None), ("BC", 101.0), ("AC", 106.0),
]  # fmt: skip


def _scripted_run(url: str, archive: ArchiveConfig) -> tuple[ArchiveSchedule, dict[str, int]]:
    """The script played through a fresh archive's schedule (nothing trained: outcomes given)."""
    repo = ArchiveRepository.open(url)
    run = repo.runs.create("transfer", domain="tetris", seed=0).id
    ids = {
        name: repo.levels.insert(
            run, NewLevel("tetris", name, "test", bundle=b"-", bundle_format="npz")
        ).id
        for name in "ABC"
    }
    schedule = ArchiveSchedule(repo, run, domains.get("tetris"), archive=archive)
    for session, (names, target_return) in enumerate(SCRIPT):
        outcomes = {ids[name]: EpisodeTally(8, 4, 8.0) for name in names}
        target = EpisodeTally(0) if target_return is None else EpisodeTally(4, 0, 4 * target_return)
        schedule.record(session, outcomes | {TARGET: target})
    return schedule, ids


def _ranked(
    rule: SlotRule, schedule: ArchiveSchedule, monkeypatch: pytest.MonkeyPatch
) -> dict[int, float]:
    """The scores a slot rule hands PLR's mixer, by level id."""
    seen: dict[int, float] = {}

    def mixer(*args: Any) -> None:
        _state, _slots, _new, ids, scores, *_ = args  # plan_slots's arguments
        seen.update(zip(ids, scores, strict=True))

    monkeypatch.setattr(archive_schedule, "plan_slots", mixer)
    rule(schedule, CurriculumState(slot_levels=(TARGET,) * 4), 4, np.random.default_rng(0))
    return seen


def test_levels_trained_when_the_target_climbed_rank_above_those_trained_when_it_fell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path}/archive.sqlite"
    schedule, ids = _scripted_run(url, ArchiveConfig(level_score="transfer", active_capacity=3))
    a, b, c = ids["A"], ids["B"], ids["C"]
    repo = schedule.store
    assert isinstance(repo, ArchiveRepository)
    assert [e.target_change for e in repo.evaluations.history(a)] == [5.0, 5.0, None, 5.0]
    assert [e.target_change for e in repo.evaluations.history(b)] == [None, -3.0, -3.0, None]
    stored = {level: repo.levels.get(level).score for level in (a, b, c)}
    # C is in every credited session: its mean change is the run's, its transfer 0.
    assert stored[c] == pytest.approx(0.25)
    assert 0.25 * 4 >= stored[a] > stored[c] > stored[b] >= 0.25 / 4
    # Replay ranks by these: the dicode rule reads the active set's stored scores, the plr
    # rule computes the same priorities from the ledger.
    assert _ranked(archive_schedule.dicode_rule, schedule, monkeypatch) == stored
    plr = _ranked(archive_schedule.plr_rule, schedule, monkeypatch)
    assert plr[a] > plr[c] > plr[b] and plr[c] == pytest.approx(0.25)
    summary = schedule.transfer_summary()
    credits = [5.0] * 6 + [-3.0] * 4  # A's three, B's two and C's five
    assert summary["levels_credited"] == 3 and summary["transfer_positive_share"] == 1 / 3
    assert summary["noise_scale"] == pytest.approx(statistics.stdev(credits))
    assert summary["mean_change"] == pytest.approx(statistics.mean(credits))

    # A restarted schedule rebuilds the same view from the archive alone.
    repo.close()
    reopened = ArchiveRepository.open(url)
    restarted = ArchiveSchedule(
        reopened,
        schedule.run_id,
        domains.get("tetris"),
        archive=ArchiveConfig(level_score="transfer"),
    )
    assert restarted.transfer_summary() == pytest.approx(summary)
    assert restarted.score(a, 0.5) == pytest.approx(schedule.score(a, 0.5))
    reopened.close()


@pytest.mark.parametrize(
    ("archive", "kept"),
    [(ArchiveConfig(level_score="transfer", active_capacity=1), "A"),
     (ArchiveConfig(active_capacity=1), "B")],
)  # fmt: skip
def test_admission_keeps_the_level_that_raised_the_target_only_when_scored_by_transfer(
    tmp_path: Path, archive: ArchiveConfig, kept: str
) -> None:
    """One place in the active set. By learnability (the default) every level ties at 0.25, so
    B, admitted first, stays, as before transfer existed; by transfer A takes it."""
    schedule, ids = _scripted_run(f"sqlite:///{tmp_path}/archive.sqlite", archive)
    repo = schedule.store
    assert isinstance(repo, ArchiveRepository)
    assert repo.active_set(schedule.run_id).level_ids == (ids[kept],)
    assert schedule.transfer_summary()["levels_credited"] == 3  # measured in either case
    if archive.level_score == "learnability":  # the default stores p(1−p), as it always did
        assert {repo.levels.get(i).score for i in ids.values()} == {0.25}
    repo.close()
