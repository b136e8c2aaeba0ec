"""Every curriculum arm of the experiment catalog replays, offline.

Each arm's real ``ArchiveSchedule`` (its slot rule, admission and mix) is played through the
whole run's sessions against an in-memory archive: no training, no sandbox, no Ray. A
simulated teacher adds ``levels_per_session`` levels before every session, all accepted (the
most new levels the catalog allows: the hardest case for replay), after the world's seed
levels; a simulated student succeeds on a level at a fixed base rate that grows with its
sessions. Replay must hold at least 0.3 of the non-target slot-sessions, and 1 − ``new_share``
(within a session's rounding) wherever new levels outnumber their quota.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from benchmarks.experiments_catalog import EXPERIMENTS, Experiment, Variant
from dicode import domains
from dicode.domains.base import Domain
from dicode.student.archive_schedule import ArchiveSchedule
from dicode.student.curriculum import TARGET, SlotCounts, num_target_slots
from dicode.student.tally import EpisodeTally
from services.curricula import METHODS
from tests.student.memory_store import MemoryStore

EPISODES = 20  # finished episodes per level and session


class OfflineSchedule(ArchiveSchedule):
    """The schedule without pools to decode: nothing is trained."""

    def pool(self, level_id: int) -> Any:
        return None


def success_rate(level_id: int, sessions: int) -> float:
    """A deterministic student: base rates spread over [0, 1), +0.15 per session trained."""
    return min(1.0, (level_id * 0.37) % 1.0 + 0.15 * sessions)


def play(experiment: Experiment, variant: Variant, world: Domain) -> tuple[SlotCounts, int]:
    """Play the arm's schedule through its run; returns its slot counts and the sessions."""
    config = variant.config
    method = METHODS[variant.method]
    assert method.rule is not None
    student = config.student
    store = MemoryStore()
    schedule = OfflineSchedule(
        store, 1, world, rule=method.rule, archive=config.archive, mix=student.curriculum,
        seed=0, admit=method.admit, sfl_top_k=config.sfl_top_k,
    )  # fmt: skip
    for _ in world.seed_sources():
        store.add_level()
    num_slots = student.ppo.num_slots
    per_session = student.ppo.batch_size * student.iterations_per_session
    sessions = math.ceil(experiment.steps / per_session)
    slots = [TARGET] * num_slots
    trained: dict[int, int] = {}
    for session in range(sessions):
        for _ in range(config.levels_per_session):
            store.add_level()
        for slot, (level, _) in schedule.plan(session, slots).items():
            slots[slot] = level
        outcomes = {}
        for level in set(slots) - {TARGET}:
            rate = success_rate(level, trained.get(level, 0))
            outcomes[level] = EpisodeTally(EPISODES, round(rate * EPISODES), 1.0)
            trained[level] = trained.get(level, 0) + 1
        outcomes[TARGET] = EpisodeTally(EPISODES, 0, 1.0)
        schedule.record(session, outcomes)
    # A status says mastered or unlearnable only after min_sessions measured sessions.
    for level in store.levels.values():
        if level.status in "AD" and level.success_rate is not None:
            assert level.measured_sessions >= student.curriculum.min_sessions
    return schedule.counts, sessions


ARMS = [
    pytest.param(experiment, name, id=f"{experiment.name}/{name}")
    for experiment in EXPERIMENTS.values()
    for name, variant in experiment.variants.items()
    # The literature's maze curricula (services.curricula.UED_METHODS) have no slot schedule.
    if variant.method in METHODS
    and variant.method != "target"
    and METHODS[variant.method].rule != "dr"
]


@pytest.mark.parametrize(("experiment", "name"), ARMS)
def test_every_catalog_arm_replays_as_configured(experiment: Experiment, name: str) -> None:
    variant = experiment.variants[name]
    config = variant.config
    mix = config.student.curriculum
    counts, sessions = play(experiment, variant, domains.get(config.domain))
    num_slots = config.student.ppo.num_slots
    free = num_slots - num_target_slots(num_slots, mix)
    assert counts.target + counts.new + counts.replay == sessions * num_slots
    if mix.target_fraction_start is None:
        assert counts.target == sessions * (num_slots - free)
    else:  # a moving share: the flat simulated curve lowers a "flatten" one to the floor
        # and keeps a "follow" one at its start (below 1)
        assert sessions * (num_slots - free) < counts.target < sessions * num_slots
    share = counts.replay_share
    print(
        f"{experiment.name}/{name}: {sessions} sessions × {free} free slots; "
        f"target {counts.target}, new {counts.new} (over share {counts.new_over_share}), "
        f"replay {counts.replay}: replay share {share:.3f}"
    )
    assert share >= 0.3
    # The first session has nothing to replay; that is the only over-share new level here.
    assert counts.new_over_share <= free
    if config.levels_per_session >= mix.new_share * free:  # new levels abundant
        assert share == pytest.approx(1.0 - mix.new_share, abs=1.0 / sessions + 0.01)
    else:  # the teacher is slower than the quota: replay takes the rest
        assert share >= 1.0 - mix.new_share - 1.0 / sessions
