"""The slot schedule over one run of the archive, for every world and curriculum method.

Before every session the target game keeps its share of the slots
(``CurriculumConfig.target_fraction``) and a *slot rule* fills the others from the run's levels:

| rule | the free slots |
|---|---|
| ``dicode`` | new levels up to ``new_share``, PLR replay over the archive's active set |
| ``plr`` | new levels up to ``new_share``, PLR replay over every measured level |
| ``sfl`` | new levels up to ``new_share``, uniform over the ``top_k`` most learnable measured |
| ``dr`` | uniform over every level (domain randomisation) |

(``dicode.student.curriculum``: new levels fill replay's part only while there is too little
to replay; ``state.counts`` tallies target / new / replay slot-sessions. With
``CurriculumConfig.target_fraction_start`` the target's share follows its schedule: each
session's target mean return extends the curve that lowers it, and ``mix`` is the config at
the current share.) After the session
every trained level's outcome is stored as an evaluation (success rate, status letter —
A or D only after ``CurriculumConfig.min_sessions`` measured sessions —, learnability, the
world's per-episode means) and the levels are stamped as
sampled; with ``admit`` on, each measured level is offered to the active set by DiCode's
admission rule (``dicode.archive.active_set.admit_measured``).

Each session's change of the target's mean training return is credited to the levels it trained
(``dicode.archive.transfer``; stored with their evaluations as ``target_change``, so the ledger
is rebuilt from the archive when a schedule starts). With ``ArchiveConfig.level_score ==
"transfer"`` a level's score — stored with its evaluation, offered for admission, ranked by the
``dicode`` rule's replay (the active set's stored scores) and by the ``plr`` rule's (computed
from the ledger) — is the priority p(1−p)·2^clip(w·t, −2, 2) instead of p(1−p). A stored score
is as of the level's last evaluation, as its learnability always was. ``sfl`` ranks by p(1−p)
as its paper does, and ``dr`` by nothing. Pools come from the stored
bundles through the world's ``decode_pool`` (cached; :class:`PoolDecoder`, which every
``Domain`` is: the worlds sit above the student, so it names none). Whoever writes levels into
the run (the generator service, or a benchmark between sessions) is independent of this class.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

import numpy as np

from dicode.archive.active_set import admit_measured
from dicode.archive.config import ArchiveConfig
from dicode.archive.status import learnability
from dicode.archive.store import TrainingStore
from dicode.archive.transfer import (
    credit_session,
    ledger_from,
    target_change,
    transfer_priority,
    transfer_score,
    transfer_summary,
)
from dicode.levels.bundle import LevelBundle
from dicode.student.curriculum import (
    TARGET,
    CurriculumConfig,
    CurriculumState,
    SlotCounts,
    plan_learnable,
    plan_slots,
    plan_uniform,
    scheduled_share,
)
from dicode.student.tally import EpisodeTally


class PoolDecoder(Protocol):
    """What the schedule needs of its world (``dicode.domains.base.Domain`` answers it)."""

    def decode_pool(self, bundle: LevelBundle) -> Any:
        """A stored level bundle as the slot data the world's trainer places."""
        ...

    def pool_difficulty(self, pool: Any) -> dict[str, float]:
        """What a decoded pool asks of the student (figures; empty where none)."""
        ...


Plan = tuple[np.ndarray, np.ndarray, CurriculumState]
SlotRule = Callable[["ArchiveSchedule", CurriculumState, int, np.random.Generator], Plan]


def dicode_rule(
    schedule: ArchiveSchedule, state: CurriculumState, slots: int, rng: np.random.Generator
) -> Plan:
    active = schedule.store.active_set(schedule.run_id)
    return plan_slots(
        state, slots, schedule.new_levels(), active.level_ids, active.scores, rng, schedule.mix
    )


def plr_rule(
    schedule: ArchiveSchedule, state: CurriculumState, slots: int, rng: np.random.Generator
) -> Plan:
    ids, rates = schedule.measured()
    scores = [schedule.score(i, p) for i, p in zip(ids, rates, strict=True)]
    return plan_slots(state, slots, schedule.new_levels(), ids, scores, rng, schedule.mix)


def sfl_rule(
    schedule: ArchiveSchedule, state: CurriculumState, slots: int, rng: np.random.Generator
) -> Plan:
    ids, rates = schedule.measured()
    return plan_learnable(
        state, slots, schedule.new_levels(), ids, rates, rng, schedule.sfl_top_k, schedule.mix
    )


def dr_rule(
    schedule: ArchiveSchedule, state: CurriculumState, slots: int, rng: np.random.Generator
) -> Plan:
    ids = [level.id for level in schedule.levels()]
    return plan_uniform(state, slots, ids, rng, schedule.mix)


SLOT_RULES: dict[str, SlotRule] = {
    "dicode": dicode_rule,
    "plr": plr_rule,
    "sfl": sfl_rule,
    "dr": dr_rule,
}


class ArchiveSchedule:
    """A :class:`~dicode.student.loop.SlotSchedule` over one archive run (module docstring)."""

    def __init__(
        self,
        store: TrainingStore,
        run_id: int,
        domain: PoolDecoder,
        *,
        rule: str = "dicode",
        archive: ArchiveConfig | None = None,
        mix: CurriculumConfig | None = None,
        seed: int = 0,
        admit: bool = True,
        sfl_top_k: int = 8,
    ) -> None:
        if rule not in SLOT_RULES:
            raise ValueError(f"unknown slot rule {rule!r}; known: {', '.join(SLOT_RULES)}")
        self.store = store
        self.run_id = run_id
        self.domain = domain
        self.rule = SLOT_RULES[rule]
        self.archive = archive or ArchiveConfig()
        self.config_mix = mix or CurriculumConfig()
        self.seed = seed
        self.admit = admit
        self.sfl_top_k = sfl_top_k
        self.rng = np.random.default_rng(seed)
        self.state: CurriculumState | None = None
        self.admitted: list[int] = []
        self._pools: dict[int, Any] = {}
        # What the archive's evaluations credit; a restarted student resumes it. The previous
        # session's target return is not stored: a restart's first session credits no change.
        self.transfer = ledger_from(store.transfer_credits(run_id))
        self._target_return: float | None = None
        # Episode-weighted sums of the trained levels' difficulty since it was last read.
        self._difficulty_sums: dict[str, float] = {}
        self._difficulty_episodes = 0

    def levels(self) -> list[Any]:
        """The run's levels the student can train on (those with a bundle), oldest first."""
        return [level for level in self.store.list_levels(self.run_id) if level.bundle_format]

    def new_levels(self) -> list[int]:
        """Levels never trained on, oldest first."""
        fresh = self.store.list_levels(self.run_id, sampled=False)
        return [level.id for level in fresh if level.bundle_format]

    def measured(self) -> tuple[list[int], list[float]]:
        """Levels with a success rate from their latest evaluation, and those rates."""
        found = [(level.id, level.success_rate) for level in self.levels()]
        pairs = [(i, rate) for i, rate in found if rate is not None]
        return [i for i, _ in pairs], [rate for _, rate in pairs]

    def score(self, level_id: int, success_rate: float | None) -> float:
        """What ranks the level for admission and replay (``archive.level_score``): its
        learnability p(1−p), or p(1−p)·2^clip(w·t, −2, 2) with t its transfer."""
        if self.archive.level_score == "learnability":
            return learnability(success_rate)
        transfer = transfer_score(self.transfer, level_id)
        return transfer_priority(success_rate, transfer, self.archive.transfer_weight)

    def transfer_summary(self) -> dict[str, float | int | None]:
        """The run's transfer scores so far, for an experiment record's trace
        (``dicode.archive.transfer.transfer_summary``: levels credited, the scores' mean,
        sample std and share above 0, the noise scale, the mean target change)."""
        return transfer_summary(self.transfer)

    def pool(self, level_id: int) -> Any:
        """The level's pool as the world's trainer places it, decoded from its stored bundle."""
        if level_id not in self._pools:
            data = self.store.get_bundle(level_id)
            if data is None:
                raise ValueError(f"level {level_id} has no bundle to train on")
            self._pools[level_id] = self.domain.decode_pool(LevelBundle.from_bytes(data))
        return self._pools[level_id]

    def trained_difficulty(self) -> dict[str, float]:
        """``trained_<figure>``: the world's difficulty figures of the archive levels trained
        since the last call, weighted by their episodes (the maze: ``trained_walls``,
        ``trained_path``; the target game's slots are not counted); empty when the world
        measures none or nothing was trained. Reading it starts the next interval."""
        episodes, sums = self._difficulty_episodes, self._difficulty_sums
        self._difficulty_episodes, self._difficulty_sums = 0, {}
        return {f"trained_{k}": round(v / episodes, 2) for k, v in sums.items()} if episodes else {}

    def _count_difficulty(self, level_id: int, episodes: int) -> None:
        pool = self._pools.get(level_id)  # a trained level was placed, so decoded, here
        figures = self.domain.pool_difficulty(pool) if pool is not None else {}
        if not figures or episodes <= 0:
            return
        for name, value in figures.items():
            self._difficulty_sums[name] = self._difficulty_sums.get(name, 0.0) + value * episodes
        self._difficulty_episodes += episodes

    @property
    def mix(self) -> CurriculumConfig:
        """The curriculum config at the current target share (its schedule's, if any)."""
        share = self.state.target_share if self.state is not None else None
        if share is None:
            start = self.config_mix.target_fraction_start
            share = self.config_mix.target_fraction if start is None else start
        if share == self.config_mix.target_fraction:
            return self.config_mix
        # The start is the schedule's history, not the current mix: a share that followed the
        # student above where it started must not be checked against it.
        return replace(self.config_mix, target_fraction=share, target_fraction_start=None)

    @property
    def counts(self) -> SlotCounts:
        """Target / new / replay slot-sessions planned so far."""
        return self.state.counts if self.state is not None else SlotCounts()

    def plan(self, iteration: int, slot_levels: Sequence[int]) -> dict[int, tuple[int, Any]]:
        if self.state is None:  # first session: start from what the slots hold now
            self.state = CurriculumState(slot_levels=tuple(int(x) for x in slot_levels))
            # A resumed student starts at a later iteration: other draws than the first start.
            self.rng = np.random.default_rng([self.seed, iteration])
        levels, changed, self.state = self.rule(self, self.state, len(slot_levels), self.rng)
        return {
            slot: (int(level), None if level == TARGET else self.pool(int(level)))
            for slot, level in enumerate(levels.tolist())
            if changed[slot]
        }

    def record(self, iteration: int, outcomes: Mapping[int, EpisodeTally]) -> None:
        trained = [level for level in outcomes if level != TARGET]
        target = outcomes.get(TARGET)
        target_return = target.mean_return if target is not None else None
        change = target_change(self._target_return, target_return)
        self._target_return = target_return
        self.transfer = credit_session(self.transfer, trained, change)
        scores = {level: self.score(level, outcomes[level].success_rate) for level in trained}
        for level in trained:
            o = outcomes[level]
            self._count_difficulty(level, o.episodes)
            self.store.record_evaluation(
                level,
                student_iteration=iteration,
                episodes=o.episodes,
                successes=o.successes,
                mean_return=o.mean_return,
                per_goal=o.means(),
                min_sessions=self.mix.min_sessions,
                target_change=change,
                score=scores[level],
            )
        if trained:
            self.store.mark_sampled(trained, iteration)
        if self.admit:
            self.admitted = admit_measured(self.store, self.run_id, outcomes, self.archive, scores)
        if self.state is not None:  # the target's curve moves a scheduled share
            self.state = scheduled_share(self.state, target_return, self.config_mix)
