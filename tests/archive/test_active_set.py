"""The bounded active set: the admission rule and its compare-and-swap in the database."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from archive_db import ArchiveRepository
from archive_db.records import NewLevel, content_hash
from dicode.archive.active_set import Admission, admit_measured, offer, plan_admission
from dicode.archive.config import ArchiveConfig


def test_room_then_beating_the_worst() -> None:
    assert plan_admission([], [], 1, 0.0, capacity=2) == Admission(True)
    assert plan_admission([1], [0.1], 2, 0.0, capacity=2) == Admission(True)
    assert plan_admission([1, 2], [0.1, 0.2], 3, 0.15, capacity=2) == Admission(True, evicted=1)
    assert plan_admission([1, 2], [0.1, 0.2], 3, 0.1, capacity=2) == Admission(False)
    # Equal worst scores: the oldest (lowest id) leaves.
    assert plan_admission([5, 3], [0.1, 0.1], 9, 0.2, capacity=2) == Admission(True, evicted=3)
    assert plan_admission([1, 2], [0.1, 0.2], 2, 0.9, capacity=2) == Admission(False)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 0.25), min_size=1, max_size=60, unique=True), st.integers(1, 10))
def test_sequential_offers_keep_the_best(scores: list[float], capacity: int) -> None:
    members: dict[int, float] = {}
    for level_id, score in enumerate(scores):
        decision = plan_admission(list(members), list(members.values()), level_id, score, capacity)
        if decision.evicted is not None:
            del members[decision.evicted]
        if decision.admitted:
            members[level_id] = score
        assert len(members) <= capacity
    best = sorted(range(len(scores)), key=lambda i: -scores[i])[:capacity]
    assert sorted(members) == sorted(best)


def test_offer_through_the_database(archive_url: str) -> None:
    repo = ArchiveRepository.open(archive_url)
    run = repo.runs.create("r", domain="tetris", seed=0)
    scores = [0.05, 0.2, 0.1, 0.25, 0.01]
    ids = []
    for i, score in enumerate(scores):
        lid = repo.levels.insert(run.id, NewLevel("tetris", content_hash(str(i)), "t")).id
        repo.levels.update(lid, score=score)
        ids.append(lid)
        offer(repo, run.id, lid, score, ArchiveConfig(active_capacity=3))
    active = repo.active_set(run.id)
    assert sorted(active.level_ids) == sorted([ids[1], ids[2], ids[3]])
    assert repo.statistics.counts(run.id).active == 3
    repo.close()


@dataclass(frozen=True)
class Outcome:
    episodes: int
    success_rate: float | None


def test_measured_levels_are_offered_with_the_scores_given(archive_url: str) -> None:
    """The caller's priority ranks admission; without one, learnability does (all tie here).
    The target game and a level without a finished episode are never offered."""
    repo = ArchiveRepository.open(archive_url)
    config = ArchiveConfig(active_capacity=1)
    for name, scores, kept in [("given", True, "b"), ("learnability", False, "a")]:
        run = repo.runs.create(name, domain="tetris", seed=0).id
        ids = {t: repo.levels.insert(run, NewLevel("tetris", t, "t")).id for t in "abcd"}
        outcomes = {ids[t]: Outcome(4, 0.5) for t in "abc"} | {
            ids["d"]: Outcome(0, None),  # no finished episode: nothing to rank it by
            -1: Outcome(4, 0.0),  # the target game
        }
        given = {ids["a"]: 0.1, ids["b"]: 0.3, ids["c"]: 0.2, ids["d"]: 1.0, -1: 1.0}
        for t in "abc":  # members are ranked by their stored scores, written with the offer's
            repo.levels.update(ids[t], score=given[ids[t]] if scores else 0.25)
        admitted = admit_measured(repo, run, outcomes, config, given if scores else None)
        assert admitted == ([ids["a"], ids["b"]] if scores else [ids["a"]])
        assert repo.active_set(run).level_ids == (ids[kept],)
    repo.close()
