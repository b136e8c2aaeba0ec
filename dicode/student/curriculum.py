"""DiCode's training mixture: which level goes into which slot, and what the student learned.

Per session (a few PPO iterations with fixed slots):
- ``target_fraction`` of the slots (at least one) play the target game;
- of the other (free) slots, at most ``new_share`` go to levels never trained, in arrival order
  — a running quota over the run's non-target slot-sessions, so one free slot at share 0.5
  takes a new level every other session;
- the rest are drawn by PLR replay from the active set (``dicode.archive.replay``: rank of
  learnability mixed with staleness, ρ = 0.3, β = 1 as in the paper). DiCode draws 15 of 100
  active levels while a slow LLM adds a few new ones; a fast teacher must not turn that mix
  into "new levels only";
- when the active set holds too few levels for replay's part, new levels fill it (counted
  in ``SlotCounts.new_over_share``); with fewer distinct levels than slots, they repeat.
Every plan adds its slots to ``SlotCounts`` (target / new / replay slot-sessions), which the
run's record reports beside the distinct levels trained.
After the session, finished episodes give each level its success rate and mean return
(`dicode.student.tally`), which the archive schedule writes back as evaluations (a status may
say mastered or unlearnable only after ``min_sessions`` measured sessions); the target's
mean return becomes the next ``R_prev`` of the completion bonus.
The target share may also move (``target_fraction_start``: where it starts, e.g. 1, target-only),
by ``share_rule`` (:func:`next_target_share`): ``"flatten"`` steps it down by ``share_step``
toward ``target_fraction`` each time the target's curve flattens — levels take slots once the
target game alone stops paying; ``"follow"`` follows the student both ways: down while the
target's curve climbs (the levels are paying), up (to ``target_fraction_max``) when it drops
(the levels are hurting the target), kept while it is flat.
Two other mixers serve the benchmark's baselines: :func:`plan_uniform` (domain randomisation)
and :func:`plan_learnable` (sampling for learnability); all three end in :func:`place_levels`.
NumPy only: the world's trainer turns the chosen levels into slot arrays.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from dicode.archive import replay
from dicode.archive.status import learnability

TARGET = -1  # the level id of the target game (a slot playing it has no archive level)
SHARE_RULES = ("flatten", "follow")  # how a scheduled target share moves


@dataclass(frozen=True)
class CurriculumConfig:
    """How the slots are shared out."""

    target_fraction: float = 0.2  # share of slots on the target game (DiCode: 20 %)
    # Most of the non-target slot-sessions that may go to never-trained levels (the rest is
    # replay); DiCode's slow teacher leaves most of them to replay.
    new_share: float = 0.5
    # Measured sessions before a level's status may say mastered (A) or unlearnable (D).
    min_sessions: int = 2
    staleness_coef: float = 0.3  # PLR ρ
    temperature: float = 1.0  # PLR β
    # A target-share schedule: None keeps ``target_fraction``; a value starts the share there
    # and lowers it by ``share_step`` (down to ``target_fraction``) whenever the target's mean
    # training return of the last ``flat_sessions`` sessions gained less than ``flat_gain``
    # (relative) over the ``flat_sessions`` before them, all under the current share.
    target_fraction_start: float | None = None
    share_step: float = 0.25
    flat_sessions: int = 8
    flat_gain: float = 0.05
    # How the share moves (with ``target_fraction_start``): "flatten" (down where the curve
    # flattens) or "follow" (down while it climbs by ``flat_gain``, up to ``target_fraction_max``
    # where it drops by as much, kept between).
    share_rule: str = "flatten"
    target_fraction_max: float = 1.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.target_fraction <= 1.0:
            raise ValueError(f"target_fraction must be in [0, 1], got {self.target_fraction}")
        start = self.target_fraction_start
        if start is not None and not self.target_fraction <= start <= 1.0:
            raise ValueError(f"target_fraction_start must be in [target_fraction, 1], got {start}")
        if self.share_rule not in SHARE_RULES:
            raise ValueError(f"share_rule must be one of {SHARE_RULES}, got {self.share_rule!r}")
        if not self.target_fraction <= self.target_fraction_max <= 1.0:
            raise ValueError("target_fraction_max must be in [target_fraction, 1]")
        if start is not None and start > self.target_fraction_max:
            raise ValueError("target_fraction_start must not exceed target_fraction_max")
        if not 0.0 <= self.new_share <= 1.0:
            raise ValueError(f"new_share must be in [0, 1], got {self.new_share}")
        if self.min_sessions < 1:
            raise ValueError(f"min_sessions must be at least 1, got {self.min_sessions}")


@dataclass(frozen=True)
class SlotCounts:
    """Slot-sessions so far by what filled them (one slot for one session counts 1)."""

    target: int = 0  # the target game (its share, and free slots with nothing to play)
    new: int = 0  # a level never trained before
    replay: int = 0  # a level trained before, drawn again
    new_over_share: int = 0  # new ones beyond ``new_share``: replay had too few levels

    @property
    def replay_share(self) -> float:
        """Replay's share of the non-target slot-sessions (NaN before any)."""
        free = self.new + self.replay
        return self.replay / free if free else float("nan")

    def to_dict(self) -> dict[str, int]:
        return {
            "target": self.target,
            "new": self.new,
            "replay": self.replay,
            "new_over_share": self.new_over_share,
        }


@dataclass(frozen=True)
class CurriculumState:
    """What the mixer remembers between sessions (checkpointed with the student)."""

    buffer: replay.ReplayBuffer = field(default_factory=lambda: replay.make_buffer([], []))
    trained: frozenset[int] = frozenset()
    slot_levels: tuple[int, ...] = ()
    counts: SlotCounts = SlotCounts()
    # The scheduled target share and the target's mean return per session since it was set
    # (unused without ``CurriculumConfig.target_fraction_start``).
    target_share: float | None = None
    target_curve: tuple[float, ...] = ()


def next_target_share(share: float, curve: Sequence[float], config: CurriculumConfig) -> float:
    """The target share after a session whose target curve (mean return per session, under
    ``share``) is ``curve``, from the relative gain of its last ``flat_sessions`` over the ones
    before (kept until there are twice as many). ``"flatten"``: one ``share_step`` lower (not
    below ``target_fraction``) when the gain is under ``flat_gain``. ``"follow"``: one step
    lower while the gain is at least ``flat_gain``, one step higher (not above
    ``target_fraction_max``) when it is at most −``flat_gain``, else kept."""
    w = config.flat_sessions
    if len(curve) < 2 * w:
        return share
    before = float(np.mean(curve[-2 * w : -w]))
    recent = float(np.mean(curve[-w:]))
    gain = (recent - before) / max(abs(before), 1e-8)
    lower = max(config.target_fraction, round(share - config.share_step, 6))
    if config.share_rule == "flatten":
        return share if gain >= config.flat_gain else lower
    if gain >= config.flat_gain:
        return lower
    if gain <= -config.flat_gain:
        return min(config.target_fraction_max, round(share + config.share_step, 6))
    return share


def scheduled_share(
    state: CurriculumState, target_return: float | None, config: CurriculumConfig
) -> CurriculumState:
    """``state`` after a session whose target episodes' mean return is ``target_return`` (None:
    none finished): the curve grows and the share moves by its rule (a new share starts a new
    curve). Unchanged without a schedule."""
    start = config.target_fraction_start
    if start is None:
        return state
    share = start if state.target_share is None else state.target_share
    curve = state.target_curve
    if target_return is not None:
        curve = (*curve, float(target_return))
    moved = next_target_share(share, curve, config)
    return replace(state, target_share=moved, target_curve=() if moved != share else curve)


def num_target_slots(num_slots: int, config: CurriculumConfig) -> int:
    """Slots given to the target game: ``round(fraction * S)``, at least one."""
    return min(num_slots, max(1, round(config.target_fraction * num_slots)))


def new_quota(counts: SlotCounts, free: int, new_share: float) -> int:
    """How many of this session's ``free`` slots may take never-trained levels: as many as keep
    the new slot-sessions ≤ ``new_share`` of all non-target ones, this session's included.
    A running quota, so shares below one slot per session still add up (1 slot, 0.5: 0, 1, 0, …)."""
    so_far = counts.new + counts.replay
    allowed = math.floor(new_share * (so_far + free) - counts.new + 1e-9)
    return min(free, max(0, allowed))


def plan_slots(
    state: CurriculumState,
    num_slots: int,
    new_levels: Sequence[int],
    active_ids: Sequence[int],
    active_scores: Sequence[float],
    rng: np.random.Generator,
    config: CurriculumConfig = CurriculumConfig(),
) -> tuple[np.ndarray, np.ndarray, CurriculumState]:
    """Assign a level (or ``TARGET``) to every slot for the next session (module docstring).

    ``new_levels``: accepted levels in arrival order (those already trained are skipped);
    ``active_ids``/``active_scores``: the active set and its replay scores (learnability).
    Returns ``(slot_levels, slot_reset, new_state)``; ``slot_reset[s]`` is True where the slot's
    level changed, so its environments restart on the new level.
    """
    free = num_slots - num_target_slots(num_slots, config)
    fresh = [lvl for lvl in dict.fromkeys(new_levels) if lvl not in state.trained]
    n_new = min(new_quota(state.counts, free, config.new_share), len(fresh))
    # Replay draws distinct levels, never one of the waiting newcomers (their turn is the quota).
    waiting = set(fresh)
    keep = [i for i, lvl in enumerate(active_ids) if lvl not in waiting]
    buffer = replay.sync_levels(
        state.buffer, [active_ids[i] for i in keep], [active_scores[i] for i in keep]
    )
    n_replay = min(free - n_new, int(buffer.level_ids.size))
    drawn: list[int] = []
    if n_replay > 0:
        ids, buffer = replay.sample_replay(
            buffer, rng, n_replay, config.staleness_coef, config.temperature
        )
        drawn = [int(x) for x in ids]
    # Too few levels to replay: newcomers may fill the rest rather than repeat the few.
    n_fill = min(free - n_new - len(drawn), len(fresh) - n_new)
    chosen = fresh[: n_new + n_fill] + drawn
    slots, reset, placed = place_levels(replace(state, buffer=buffer), num_slots, chosen, config)
    return slots, reset, _count_over_share(state, placed, n_new)


def place_levels(
    state: CurriculumState,
    num_slots: int,
    chosen: Sequence[int],
    config: CurriculumConfig = CurriculumConfig(),
) -> tuple[np.ndarray, np.ndarray, CurriculumState]:
    """The target's slots first, then ``chosen`` over the free slots (repeated cyclically;
    the target game when nothing was chosen). Returns what :func:`plan_slots` returns, with
    the slots added to ``state.counts`` (a level not in ``state.trained`` counts as new, any
    other as replay, whichever rule chose it)."""
    n_target = num_target_slots(num_slots, config)
    free = num_slots - n_target
    others = [chosen[i % len(chosen)] for i in range(free)] if chosen else [TARGET] * free
    slot_levels = np.array([TARGET] * n_target + others, dtype=np.int64)
    previous = np.array(state.slot_levels or [TARGET - 1] * num_slots, dtype=np.int64)
    slot_reset = slot_levels != previous
    levels = [int(x) for x in slot_levels]
    new = sum(1 for x in levels if x != TARGET and x not in state.trained)
    targets = levels.count(TARGET)
    counts = replace(
        state.counts,
        target=state.counts.target + targets,
        new=state.counts.new + new,
        replay=state.counts.replay + num_slots - targets - new,
    )
    new_state = replace(
        state,
        trained=state.trained | frozenset(x for x in levels if x != TARGET),
        slot_levels=tuple(levels),
        counts=counts,
    )
    return slot_levels, slot_reset, new_state


def plan_uniform(
    state: CurriculumState,
    num_slots: int,
    level_ids: Sequence[int],
    rng: np.random.Generator,
    config: CurriculumConfig = CurriculumConfig(),
) -> tuple[np.ndarray, np.ndarray, CurriculumState]:
    """Domain randomisation: the free slots take levels drawn uniformly from ``level_ids``
    (distinct while there are enough), whatever the student did on them."""
    free = num_slots - num_target_slots(num_slots, config)
    ids = np.asarray(level_ids, dtype=np.int64)
    chosen = (
        rng.choice(ids, size=free, replace=ids.size < free).tolist() if ids.size and free else []
    )
    return place_levels(state, num_slots, chosen, config)


def plan_learnable(
    state: CurriculumState,
    num_slots: int,
    new_levels: Sequence[int],
    measured_ids: Sequence[int],
    measured_success: Sequence[float],
    rng: np.random.Generator,
    top_k: int,
    config: CurriculumConfig = CurriculumConfig(),
) -> tuple[np.ndarray, np.ndarray, CurriculumState]:
    """Sampling for learnability (SFL; Rutherford et al. 2024, "No Regrets: Investigating and
    Improving Regret Approximations for Curriculum Discovery", NeurIPS, arXiv:2408.15099).

    New levels take the same running quota as in :func:`plan_slots` (SFL's share of fresh
    random levels, which is also how a level gets its success rate measured); the other free
    slots are drawn uniformly, without replacement, from the ``top_k`` measured levels of
    highest learnability p(1−p) (ties: the lower id); newcomers fill what that leaves empty.
    """
    free = num_slots - num_target_slots(num_slots, config)
    fresh = [lvl for lvl in dict.fromkeys(new_levels) if lvl not in state.trained]
    n_new = min(new_quota(state.counts, free, config.new_share), len(fresh))
    ids = np.asarray(measured_ids, dtype=np.int64)
    scores = np.array([learnability(p) for p in measured_success], dtype=np.float64)
    keep = ~np.isin(ids, fresh)
    ids, scores = ids[keep], scores[keep]
    order = np.lexsort((ids, -scores))[:top_k]
    want = min(free - n_new, order.size)
    drawn = rng.choice(ids[order], size=want, replace=False).tolist() if want > 0 else []
    n_fill = min(free - n_new - len(drawn), len(fresh) - n_new)
    slots, reset, placed = place_levels(state, num_slots, fresh[: n_new + n_fill] + drawn, config)
    return slots, reset, _count_over_share(state, placed, n_new)


def _count_over_share(
    before: CurriculumState, after: CurriculumState, quota: int
) -> CurriculumState:
    """``after`` with the session's new slot-sessions beyond ``quota`` counted as over share."""
    over = max(0, after.counts.new - before.counts.new - quota)
    counts = replace(after.counts, new_over_share=after.counts.new_over_share + over)
    return replace(after, counts=counts)
