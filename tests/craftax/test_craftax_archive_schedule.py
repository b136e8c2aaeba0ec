"""DiCode's slot rule for the Craftax student over a real SQLite archive: sandbox-validated seed
levels go in, new levels are trained, outcomes come back as evaluations and active-set
admissions, and replay draws from the active set once nothing is new."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from archive_db import ArchiveRepository
from archive_db.kinds import SEED_TEACHER
from archive_db.recording import record_verdict
from dicode import domains
from dicode.archive.config import ArchiveConfig
from dicode.domains.craftax.seed_levels import seed_level_source
from dicode.levels.pipeline import Validator
from dicode.student.archive_schedule import ArchiveSchedule
from dicode.student.curriculum import TARGET, CurriculumConfig
from dicode.student.loop import StudentLoop
from dicode.student.tally import EpisodeTally

CRAFTAX = domains.get("craftax")

LEVELS = ("collect_basics", "fight_zombies")


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ArchiveRepository, int]]:
    """A run with two seed levels, validated by the real sandbox and stored by the generator's
    own recording function."""
    path = tmp_path_factory.mktemp("archive") / "archive.sqlite"
    repo = ArchiveRepository.open(f"sqlite:///{path}")
    run = repo.runs.create("craftax_schedule", domain="craftax", seed=0, config={})
    with Validator(domains.get("craftax"), pool_size=2, warm=1, rollouts=False) as validator:
        for name in LEVELS:
            source = seed_level_source(name)
            verdict = validator.validate(source)
            assert verdict.accepted, verdict.error
            record_verdict(repo, run.id, "craftax", SEED_TEACHER, source, verdict, 0.0, name=name)
    yield repo, run.id
    repo.close()


def _ids(repo: ArchiveRepository, run_id: int) -> list[int]:
    return [level.id for level in repo.list_levels(run_id)]


def _schedule(repo: ArchiveRepository, run_id: int, new_share: float = 0.5) -> ArchiveSchedule:
    return ArchiveSchedule(
        repo,
        run_id,
        CRAFTAX,
        archive=ArchiveConfig(active_capacity=4),
        mix=CurriculumConfig(target_fraction=0.5, new_share=new_share),
    )


def test_new_levels_train_and_come_back_as_evaluations(
    loop: StudentLoop, archive: tuple[ArchiveRepository, int]
) -> None:
    repo, run_id = archive
    first, second = _ids(repo, run_id)
    # Every free slot-session may go to a new level: both levels in turn, no replay between.
    schedule = _schedule(repo, run_id, new_share=1.0)
    loop.schedule = schedule
    ppo = loop.trainer.ppo  # type: ignore[attr-defined]
    traces = ppo.trace_count
    try:
        loop.run_session(1)
        assert loop.slot_levels == [TARGET, first]
        loop.run_session(1)
        assert loop.slot_levels == [TARGET, second]
    finally:
        loop.schedule = None
    assert ppo.trace_count == traces  # archive levels swap in without a recompile
    for level_id in (first, second):
        info = repo.levels.get(level_id)
        assert info.times_sampled == 1
        assert len(repo.evaluations.history(level_id)) == 1  # one evaluation per session trained
    assert schedule.new_levels() == []


def test_outcomes_enter_the_active_set_and_replay_draws_from_it(
    archive: tuple[ArchiveRepository, int],
) -> None:
    repo, run_id = archive
    first, second = _ids(repo, run_id)
    schedule = _schedule(repo, run_id)
    target = EpisodeTally(3, 0, 1.0, {"length": 300})
    schedule.record(100, {TARGET: target, first: EpisodeTally(4, 2, 5.0, {"length": 80})})
    assert schedule.admitted == [first]  # learnability 0.25 from a 50 % success rate
    info = repo.levels.get(first)
    assert info.success_rate == 0.5 and info.status == "B"
    assert np.isclose(info.score, 0.25)
    assert repo.evaluations.history(first)[-1].per_goal == {"mean_length": 20.0}
    schedule.record(101, {second: EpisodeTally(0, 0, 0.0, {"length": 0})})  # none finished
    assert schedule.admitted == []
    assert second not in repo.active_set(run_id).level_ids
    # Nothing new is left, so the free slot replays the only active level.
    plan = schedule.plan(102, [TARGET, second])
    assert list(plan) == [1]
    level, bundle = plan[1]
    assert level == first and bundle is not None and bundle.goal.any()


def test_an_unknown_level_is_refused_by_id(archive: tuple[ArchiveRepository, int]) -> None:
    repo, run_id = archive
    schedule = ArchiveSchedule(repo, run_id, CRAFTAX)
    with pytest.raises(Exception, match="no level 999999"):
        schedule.pool(999_999)
