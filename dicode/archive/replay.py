"""Prioritized Level Replay over the active set, as data plus pure functions (NumPy).

    P_i = (1−ρ)·h_i/Σ_j h_j + ρ·(c−C_i)/Σ_j (c−C_j),   h_i = (1/rank_i)^(1/β)

rank_i is the rank of level i by score (1 = highest; tied scores share their average rank),
c the sampler's clock (replay samples drawn so far) and C_i the clock when level i was last
drawn (or entered the buffer). ρ = 0.3 and β = 1.0 by default (`ArchiveConfig`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from dicode.archive.sampling import weighted_sample_without_replacement

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class ReplayBuffer:
    """Levels eligible for replay with their scores and when each was last drawn."""

    level_ids: IntArray
    scores: FloatArray
    last_sampled: IntArray  # clock value C_i
    clock: int = 0  # c

    def __post_init__(self) -> None:
        n = self.level_ids.shape[0]
        if self.scores.shape != (n,) or self.last_sampled.shape != (n,):
            raise ValueError("level_ids, scores and last_sampled must have the same length")


def make_buffer(
    level_ids: npt.ArrayLike,
    scores: npt.ArrayLike,
    last_sampled: npt.ArrayLike | None = None,
    clock: int = 0,
) -> ReplayBuffer:
    ids = np.asarray(level_ids, dtype=np.int64)
    last = (
        np.full(ids.shape[0], clock, dtype=np.int64)
        if last_sampled is None
        else np.asarray(last_sampled, dtype=np.int64)
    )
    if np.unique(ids).shape[0] != ids.shape[0]:
        raise ValueError("a level appears twice in the replay buffer")
    if ids.shape[0] and int(last.max()) > clock:
        raise ValueError("a level cannot have been sampled after the current clock")
    return ReplayBuffer(ids, np.asarray(scores, dtype=np.float64), last, clock)


def score_ranks(scores: FloatArray) -> FloatArray:
    """Rank of each score, 1 = highest; tied scores get the average of their ranks."""
    n = scores.shape[0]
    order = np.argsort(-scores, kind="stable")
    sorted_scores = scores[order]
    starts = np.flatnonzero(np.r_[True, sorted_scores[1:] != sorted_scores[:-1]])
    counts = np.diff(np.r_[starts, n])
    # Average of positions start+1 .. start+count.
    group_rank = starts + (counts + 1) / 2.0
    ranks = np.empty(n, dtype=np.float64)
    ranks[order] = np.repeat(group_rank, counts)
    return ranks


def rank_weights(scores: FloatArray, temperature: float) -> FloatArray:
    """h_i = (1/rank_i)^(1/β), normalised to sum 1."""
    h = (1.0 / score_ranks(scores)) ** (1.0 / temperature)
    return h / h.sum()


def staleness_weights(last_sampled: IntArray, clock: int) -> FloatArray:
    """(c − C_i)/Σ(c − C_j); uniform when every level is equally fresh (Σ = 0)."""
    staleness = (clock - last_sampled).astype(np.float64)
    total = staleness.sum()
    if total <= 0:
        return np.full(staleness.shape[0], 1.0 / staleness.shape[0])
    return staleness / total


def replay_probabilities(
    buffer: ReplayBuffer, staleness_coef: float = 0.3, temperature: float = 1.0
) -> FloatArray:
    """P_i for every level of the buffer (sums to 1)."""
    if buffer.level_ids.shape[0] == 0:
        return np.zeros(0, dtype=np.float64)
    return (1.0 - staleness_coef) * rank_weights(
        buffer.scores, temperature
    ) + staleness_coef * staleness_weights(buffer.last_sampled, buffer.clock)


def sample_replay(
    buffer: ReplayBuffer,
    rng: np.random.Generator,
    n: int,
    staleness_coef: float = 0.3,
    temperature: float = 1.0,
) -> tuple[IntArray, ReplayBuffer]:
    """Draw up to ``n`` distinct levels ∝ P; returns their ids and the buffer one tick later,
    with the drawn levels stamped fresh (C_i = c + 1)."""
    probabilities = replay_probabilities(buffer, staleness_coef, temperature)
    rows = weighted_sample_without_replacement(probabilities, n, rng)
    clock = buffer.clock + 1
    last = buffer.last_sampled.copy()
    last[rows] = clock
    return buffer.level_ids[rows], replace(buffer, last_sampled=last, clock=clock)


def update_scores(
    buffer: ReplayBuffer, level_ids: npt.ArrayLike, scores: npt.ArrayLike
) -> ReplayBuffer:
    """New scores for some levels of the buffer (unknown ids are an error)."""
    ids = np.asarray(level_ids, dtype=np.int64)
    rows = _rows_of(buffer, ids)
    new_scores = buffer.scores.copy()
    new_scores[rows] = np.asarray(scores, dtype=np.float64)
    return replace(buffer, scores=new_scores)


def sync_levels(
    buffer: ReplayBuffer, level_ids: npt.ArrayLike, scores: npt.ArrayLike
) -> ReplayBuffer:
    """The buffer holding exactly ``level_ids`` (e.g. the current active set) with ``scores``.

    Levels already present keep their staleness; newcomers enter fresh (C_i = c).
    """
    ids = np.asarray(level_ids, dtype=np.int64)
    last = np.full(ids.shape[0], buffer.clock, dtype=np.int64)
    known = np.isin(ids, buffer.level_ids)
    if known.any():
        last[known] = buffer.last_sampled[_rows_of(buffer, ids[known])]
    return make_buffer(ids, scores, last, buffer.clock)


def _rows_of(buffer: ReplayBuffer, ids: IntArray) -> IntArray:
    order = np.argsort(buffer.level_ids)
    positions = np.searchsorted(buffer.level_ids, ids, sorter=order)
    positions = np.minimum(positions, max(buffer.level_ids.shape[0] - 1, 0))
    rows = order[positions] if buffer.level_ids.shape[0] else positions
    if ids.shape[0] and (buffer.level_ids.shape[0] == 0 or np.any(buffer.level_ids[rows] != ids)):
        missing = sorted(set(ids.tolist()) - set(buffer.level_ids.tolist()))
        raise KeyError(f"levels {missing} are not in the replay buffer")
    return rows.astype(np.int64)
