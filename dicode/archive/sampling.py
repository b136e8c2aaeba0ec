"""Weighted sampling without replacement over large arrays, vectorised."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def weighted_sample_without_replacement(
    weights: npt.NDArray[np.float64], n: int, rng: np.random.Generator
) -> npt.NDArray[np.int64]:
    """Indices of ``min(n, len(weights))`` distinct items, drawn one after another ∝ weight.

    Exponential race: item i "arrives" at time E_i / w_i with E_i ~ Exp(1); the first n
    arrivals, in order, are distributed exactly like n successive draws without replacement
    (this is the Gumbel-top-k trick in another guise). Items of weight 0 never arrive; they are
    drawn uniformly only once every positive item is taken, so a request is always filled when
    enough items exist.
    """
    weights = np.asarray(weights, dtype=np.float64)
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise ValueError("weights must be finite and non-negative")
    n = min(n, weights.shape[0])
    if n <= 0:
        return np.empty(0, dtype=np.int64)
    positive = np.flatnonzero(weights > 0)
    # Log arrival times: tiny (even subnormal) weights still order correctly.
    arrival = np.log(rng.standard_exponential(positive.shape[0])) - np.log(weights[positive])
    if positive.shape[0] > n:
        first = np.argpartition(arrival, n - 1)[:n]
        taken = positive[first[np.argsort(arrival[first])]]
    else:
        taken = positive[np.argsort(arrival)]
    if taken.shape[0] == n:
        return taken.astype(np.int64)
    zeros = np.flatnonzero(weights == 0)
    rest = rng.choice(zeros, size=n - taken.shape[0], replace=False)
    return np.concatenate([taken, rest]).astype(np.int64)
