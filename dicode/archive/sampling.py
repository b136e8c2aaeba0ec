"""Weighted sampling without replacement over large arrays, vectorised."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def weighted_sample_without_replacement(
    weights: npt.NDArray[np.float64], n: int, rng: np.random.Generator
) -> npt.NDArray[np.int64]:
    """Indices of ``min(n, len(weights))`` distinct items, drawn one after another ∝ weight.

    Uses the Gumbel-top-k trick (keys log w + Gumbel noise; the n largest keys are a sample
    without replacement). Items of weight 0 are drawn only once every positive one is taken,
    uniformly among themselves, so a request is always filled when enough items exist.
    """
    weights = np.asarray(weights, dtype=np.float64)
    if np.any(~np.isfinite(weights)) or np.any(weights < 0):
        raise ValueError("weights must be finite and non-negative")
    size = weights.shape[0]
    n = min(n, size)
    if n <= 0:
        return np.empty(0, dtype=np.int64)
    positive = np.flatnonzero(weights > 0)
    if positive.size >= n:
        keys = np.log(weights[positive]) + rng.gumbel(size=positive.size)
        top = np.argpartition(-keys, n - 1)[:n] if n < positive.size else np.arange(positive.size)
        top = top[np.argsort(-keys[top], kind="stable")]
        return positive[top].astype(np.int64)
    taken = (
        positive[np.argsort(-(np.log(weights[positive]) + rng.gumbel(size=positive.size)))]
        if positive.size
        else positive
    )
    zeros = np.flatnonzero(weights == 0)
    rest = rng.choice(zeros, size=n - positive.size, replace=False)
    return np.concatenate([taken, rest]).astype(np.int64)
