"""Prioritized Level Replay over the active set, as data plus pure functions (NumPy).

    P_i = (1−ρ)·h_i/Σ_j h_j + ρ·(c−C_i)/Σ_j (c−C_j),   h_i = (1/rank_i)^(1/β)

rank_i is the rank of level i by score (1 = highest; tied scores share their average rank),
c the sampler's clock (replay samples drawn so far) and C_i the clock when level i was last
drawn (or entered the buffer). ρ = 0.3 and β = 1.0 by default (`ArchiveConfig`).

The buffer keeps its rows sorted by level id (so lookups are a binary search) and carries the
score order with it: a score update re-sorts only the changed rows, so neither sampling nor
updating ever sorts the whole buffer again.
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
    """Levels eligible for replay with their scores and when each was last drawn.

    Build it with `make_buffer`; the functions below return new buffers, never mutate one.
    """

    level_ids: IntArray  # ascending
    scores: FloatArray
    last_sampled: IntArray  # clock value C_i
    score_order: IntArray  # row indices by descending score
    clock: int = 0  # c

    def __post_init__(self) -> None:
        n = self.level_ids.shape[0]
        shapes = (self.scores.shape, self.last_sampled.shape, self.score_order.shape)
        if any(shape != (n,) for shape in shapes):
            raise ValueError("every array of the replay buffer must have one entry per level")


def make_buffer(
    level_ids: npt.ArrayLike,
    scores: npt.ArrayLike,
    last_sampled: npt.ArrayLike | None = None,
    clock: int = 0,
) -> ReplayBuffer:
    """A buffer over these levels; ``last_sampled`` defaults to "fresh" (C_i = c)."""
    ids = np.asarray(level_ids, dtype=np.int64)
    values = np.asarray(scores, dtype=np.float64)
    last = (
        np.full(ids.shape[0], clock, dtype=np.int64)
        if last_sampled is None
        else np.asarray(last_sampled, dtype=np.int64)
    )
    if not (ids.shape == values.shape == last.shape) or ids.ndim != 1:
        raise ValueError("level_ids, scores and last_sampled must be 1-D and of equal length")
    if not np.all(np.isfinite(values)):
        raise ValueError("replay scores must be finite")
    if ids.shape[0] and int(last.max()) > clock:
        raise ValueError("a level cannot have been sampled after the current clock")
    by_id = np.argsort(ids, kind="stable")
    ids, values, last = ids[by_id], values[by_id], last[by_id]
    if np.any(ids[1:] == ids[:-1]):
        raise ValueError("a level appears twice in the replay buffer")
    return ReplayBuffer(ids, values, last, np.argsort(-values).astype(np.int64), clock)


def score_ranks(scores: FloatArray, order: IntArray | None = None) -> FloatArray:
    """Rank of each score, 1 = highest; tied scores get the average of their ranks.

    ``order`` (row indices by descending score) saves the sort when already known.
    """
    n = scores.shape[0]
    if order is None:
        order = np.argsort(-scores)  # any order among ties will do: ties are grouped below
    sorted_scores = scores[order]
    starts = np.flatnonzero(np.r_[True, sorted_scores[1:] != sorted_scores[:-1]])
    counts = np.diff(np.r_[starts, n])
    group_rank = starts + (counts + 1) / 2.0  # the average of positions start+1..start+count
    ranks = np.empty(n, dtype=np.float64)
    ranks[order] = np.repeat(group_rank, counts)
    return ranks


def rank_weights(
    scores: FloatArray, temperature: float, order: IntArray | None = None
) -> FloatArray:
    """h_i = (1/rank_i)^(1/β), normalised to sum 1."""
    h = 1.0 / score_ranks(scores, order)
    if temperature != 1.0:
        h **= 1.0 / temperature
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
    """P_i for every level of the buffer, in the buffer's row order (sums to 1)."""
    if buffer.level_ids.shape[0] == 0:
        return np.zeros(0, dtype=np.float64)
    scored = rank_weights(buffer.scores, temperature, buffer.score_order)
    stale = staleness_weights(buffer.last_sampled, buffer.clock)
    return (1.0 - staleness_coef) * scored + staleness_coef * stale


def sample_replay(
    buffer: ReplayBuffer,
    rng: np.random.Generator,
    n: int,
    staleness_coef: float = 0.3,
    temperature: float = 1.0,
) -> tuple[IntArray, ReplayBuffer]:
    """Draw up to ``n`` distinct levels ∝ P, in draw order; returns their ids and the buffer
    one tick later with the drawn levels stamped fresh (C_i = c + 1)."""
    probabilities = replay_probabilities(buffer, staleness_coef, temperature)
    rows = weighted_sample_without_replacement(probabilities, n, rng)
    clock = buffer.clock + 1
    last = buffer.last_sampled.copy()
    last[rows] = clock
    return buffer.level_ids[rows], replace(buffer, last_sampled=last, clock=clock)


def update_scores(
    buffer: ReplayBuffer, level_ids: npt.ArrayLike, scores: npt.ArrayLike
) -> ReplayBuffer:
    """New scores for some levels (unknown ids are an error; a repeated id: last one wins)."""
    ids = np.asarray(level_ids, dtype=np.int64)
    values = np.asarray(scores, dtype=np.float64)
    if ids.shape != values.shape or not np.all(np.isfinite(values)):
        raise ValueError("give one finite score per level id")
    # A level listed twice takes its last score: search the reversed list for first hits.
    rows, last_hit = np.unique(_rows_of(buffer, ids)[::-1], return_index=True)
    new_scores = buffer.scores.copy()
    new_scores[rows] = values[::-1][last_hit]
    # Re-sort only the changed rows, then merge them into the unchanged, still-sorted rest.
    unchanged = np.ones(new_scores.shape[0], dtype=np.bool_)
    unchanged[rows] = False
    kept = buffer.score_order[unchanged[buffer.score_order]]
    moved = rows[np.argsort(-new_scores[rows])]
    slots = np.searchsorted(-new_scores[kept], -new_scores[moved], side="right")
    order = np.insert(kept, slots, moved)
    return replace(buffer, scores=new_scores, score_order=order)


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
    size = buffer.level_ids.shape[0]
    rows = np.searchsorted(buffer.level_ids, ids)
    found = rows < size
    found[found] = buffer.level_ids[rows[found]] == ids[found]
    if not found.all():
        raise KeyError(f"levels {sorted(set(ids[~found].tolist()))} are not in the replay buffer")
    return rows.astype(np.int64)
