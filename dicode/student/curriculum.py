"""DiCode's training mixture: which level goes into which slot, and what the student learned.

Per session (a few PPO iterations with fixed slots):
- ``target_fraction`` of the slots (at least one) play the target game;
- the other slots take **new levels first** (every level is trained at least once), then levels
  drawn by PLR replay from the active set (``dicode.archive.replay``: rank of learnability
  mixed with staleness); with fewer distinct levels than slots, the chosen ones repeat.
After the session, finished episodes give each level its success rate and mean return
(`dicode.student.tally`), which the archive schedule writes back as evaluations; the target's
mean return becomes the next ``R_prev`` of the completion bonus.
Two other mixers serve the benchmark's baselines: :func:`plan_uniform` (domain randomisation)
and :func:`plan_learnable` (sampling for learnability); all three end in :func:`place_levels`.
NumPy only: the world's trainer turns the chosen levels into slot arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from dicode.archive import replay
from dicode.archive.status import learnability

TARGET = -1  # the level id of the target game (a slot playing it has no archive level)


@dataclass(frozen=True)
class CurriculumConfig:
    """How the slots are shared out."""

    target_fraction: float = 0.2  # share of slots on the target game (DiCode: 20 %)
    staleness_coef: float = 0.3  # PLR ρ
    temperature: float = 1.0  # PLR β

    def __post_init__(self) -> None:
        if not 0.0 <= self.target_fraction <= 1.0:
            raise ValueError(f"target_fraction must be in [0, 1], got {self.target_fraction}")


@dataclass(frozen=True)
class CurriculumState:
    """What the mixer remembers between sessions (checkpointed with the student)."""

    buffer: replay.ReplayBuffer = field(default_factory=lambda: replay.make_buffer([], []))
    trained: frozenset[int] = frozenset()
    slot_levels: tuple[int, ...] = ()


def num_target_slots(num_slots: int, config: CurriculumConfig) -> int:
    """Slots given to the target game: ``round(fraction * S)``, at least one."""
    return min(num_slots, max(1, round(config.target_fraction * num_slots)))


def plan_slots(
    state: CurriculumState,
    num_slots: int,
    new_levels: Sequence[int],
    active_ids: Sequence[int],
    active_scores: Sequence[float],
    rng: np.random.Generator,
    config: CurriculumConfig = CurriculumConfig(),
) -> tuple[np.ndarray, np.ndarray, CurriculumState]:
    """Assign a level (or ``TARGET``) to every slot for the next session.

    ``new_levels``: accepted levels in arrival order (those already trained are skipped);
    ``active_ids``/``active_scores``: the active set and its replay scores (learnability).
    Returns ``(slot_levels, slot_reset, new_state)``; ``slot_reset[s]`` is True where the slot's
    level changed, so its environments restart on the new level.
    """
    free = num_slots - num_target_slots(num_slots, config)
    fresh = [lvl for lvl in dict.fromkeys(new_levels) if lvl not in state.trained][:free]
    buffer = replay.sync_levels(state.buffer, active_ids, active_scores)
    chosen: list[int] = list(fresh)
    want = free - len(fresh)
    if want > 0 and buffer.level_ids.size:
        # Replay draws distinct levels; the newcomers just placed are not drawn twice.
        drawn, buffer = replay.sample_replay(
            buffer, rng, want, config.staleness_coef, config.temperature
        )
        chosen += [int(x) for x in drawn if int(x) not in fresh]
    return place_levels(replace(state, buffer=buffer), num_slots, chosen, config)


def place_levels(
    state: CurriculumState,
    num_slots: int,
    chosen: Sequence[int],
    config: CurriculumConfig = CurriculumConfig(),
) -> tuple[np.ndarray, np.ndarray, CurriculumState]:
    """The target's slots first, then ``chosen`` over the free slots (repeated cyclically;
    the target game when nothing was chosen). Returns what :func:`plan_slots` returns."""
    n_target = num_target_slots(num_slots, config)
    free = num_slots - n_target
    others = [chosen[i % len(chosen)] for i in range(free)] if chosen else [TARGET] * free
    slot_levels = np.array([TARGET] * n_target + others, dtype=np.int64)
    previous = np.array(state.slot_levels or [TARGET - 1] * num_slots, dtype=np.int64)
    slot_reset = slot_levels != previous
    new_state = replace(
        state,
        trained=state.trained | frozenset(int(x) for x in slot_levels if x != TARGET),
        slot_levels=tuple(int(x) for x in slot_levels),
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

    New levels first (SFL's share of fresh random levels, which is also how a level gets its
    success rate measured); the other free slots are drawn uniformly, without replacement,
    from the ``top_k`` measured levels of highest learnability p(1−p) (ties: the lower id).
    """
    free = num_slots - num_target_slots(num_slots, config)
    fresh = [lvl for lvl in dict.fromkeys(new_levels) if lvl not in state.trained][:free]
    ids = np.asarray(measured_ids, dtype=np.int64)
    scores = np.array([learnability(p) for p in measured_success], dtype=np.float64)
    keep = ~np.isin(ids, fresh)
    ids, scores = ids[keep], scores[keep]
    order = np.lexsort((ids, -scores))[:top_k]
    want = min(free - len(fresh), order.size)
    drawn = rng.choice(ids[order], size=want, replace=False).tolist() if want > 0 else []
    return place_levels(state, num_slots, fresh + drawn, config)
