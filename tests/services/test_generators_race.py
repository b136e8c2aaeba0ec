"""Four generator processes race on one PostgreSQL archive: the run is seeded once, no level
is stored twice, every attempt a process reports is a row, and the strict parent rule
("fewer than five children") holds although all of them start on the same single parent."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from archive_db import ArchiveRepository
from archive_db.errors import ParentFullError
from archive_db.kinds import SEED_TEACHER
from archive_db.records import LevelFilter, NewAttempt, NewLevel, content_hash
from benchmarks.generators_scale import (
    audit,
    open_paused_run,
    race_settings,
    start_fleet,
)
from dicode.domains.tetris.seeds import seed_level_sources
from services.generator.control import set_paused
from tests.services.conftest import TINY

pytestmark = [pytest.mark.slow, pytest.mark.postgres]
PROCESSES = 4
ATTEMPTS_EACH = 3  # 2 in flight each: 8 attempts draw the one strict parent at once


def test_four_generators_on_one_postgres_archive(pg_url: str, tmp_path: Path) -> None:
    settings = race_settings(TINY, in_flight=2)
    repo = ArchiveRepository.open(pg_url)
    run_id = open_paused_run(repo, "race", settings)
    fleet = start_fleet(pg_url, "race", PROCESSES, ATTEMPTS_EACH, tmp_path)
    try:
        seeds = len(seed_level_sources())
        fleet.wait_generating(timeout=400)
        assert len(repo.list_levels(run_id)) == seeds
        # One strict candidate: every process's first draws go to it.
        first, *_ = repo.levels.listing(run_id, LevelFilter(teacher=SEED_TEACHER))
        repo.levels.update(first.id, status="A", success_rate=0.5)
        set_paused(repo, run_id, False, by="test")
        counters = fleet.wait(timeout=180)
    finally:
        fleet.kill()
    found = audit(repo, run_id, settings.archive.max_children)
    repo.close()

    assert found["seed_attempts"] == seeds  # seeded once, not once per process
    assert found["duplicate_content_hashes"] == 0
    assert sum(c["started"] for c in counters) == PROCESSES * ATTEMPTS_EACH
    assert found["generated_attempts"] == PROCESSES * ATTEMPTS_EACH  # none lost
    assert sum(c["accepted"] + c["rejected"] for c in counters) == found["generated_attempts"]
    assert sum(c["parent_full"] for c in counters) == found["parent_full"]
    assert found["strict_children_past_limit"] == 0
    # The race really happened: more strict draws than the parent had room for.
    assert found["parent_full"] >= 1, found


def test_a_full_parent_refuses_a_strict_child(archive_url: str) -> None:
    """The archive's side of the rule, on both backends: a child drawn strictly is refused
    once its parent has ``child_limit`` children; a lenient one is not."""
    repo = ArchiveRepository.open(archive_url)
    run = repo.runs.create("full", domain="tetris", seed=0).id
    seed = NewLevel(domain="tetris", content_hash=content_hash("p"), teacher="seed")
    parent = repo.levels.insert(run, seed).id
    accepted = NewAttempt(teacher="mutation", stage_reached="accepted", verdict="accepted")

    def child(i: int) -> NewLevel:
        return replace(seed, content_hash=content_hash(str(i)), parent_ids=(parent,))

    for i in range(2):
        repo.attempts.record(run, accepted, child(i), child_limit=2)
    with pytest.raises(ParentFullError):
        repo.attempts.record(run, accepted, child(2), child_limit=2)
    assert len(repo.lineage.children(parent)) == 2 and len(repo.attempts.listing(run)) == 2
    # A level already stored adds no edge, so it is found again whatever the limit.
    again = repo.attempts.record(run, accepted, child(0), child_limit=2).level
    assert again is not None and not again.created
    repo.attempts.record(run, accepted, child(3))  # lenient: no limit
    assert len(repo.lineage.children(parent)) == 3
    repo.close()
