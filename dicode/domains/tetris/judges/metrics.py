"""Discrimination measures for judges, as pure functions over scores and reference values.

Conventions (chosen so that a judge with no information lands at chance):
- a pair is *clearly separated* when the reference (BCTS) values differ by at least the
  benchmark's separation; the judge is *correct* when it orders the pair like the reference,
  *tied* when its two scores are equal (within ``TIE_TOLERANCE``) or it answered "equal";
- pairwise accuracy counts a tie or an error as half a success (a coin flip would break it),
  so a constant judge scores exactly 0.5; the strict accuracy counts only correct pairs
  (the field report's "better in 4 of 15");
- Kendall's τ-b per state is 0 when either side has a single value (τ is undefined there);
- top-1 agreement credits 1/k when the reference's best is among k candidates tied at the
  judge's top score (the chance of picking it by breaking the tie at random).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import kendalltau

TIE_TOLERANCE = 1e-9


@dataclass
class PairTally:
    """Outcomes of judged pairs against the reference order."""

    correct: int = 0
    tie: int = 0
    wrong: int = 0
    error: int = 0

    @property
    def n(self) -> int:
        return self.correct + self.tie + self.wrong + self.error

    def add(self, outcome: str) -> None:
        setattr(self, outcome, getattr(self, outcome) + 1)

    def accuracy(self) -> float:
        """(correct + ½·(ties + errors)) / n; 0.5 when nothing was judged."""
        if self.n == 0:
            return 0.5
        return (self.correct + 0.5 * (self.tie + self.error)) / self.n

    def strict_accuracy(self) -> float:
        return self.correct / self.n if self.n else 0.0

    def tie_rate(self) -> float:
        """Ties among the pairs the judge answered."""
        answered = self.n - self.error
        return self.tie / answered if answered else 0.0

    def as_dict(self) -> dict[str, int]:
        return {"correct": self.correct, "tie": self.tie, "wrong": self.wrong,
                "error": self.error, "n": self.n}  # fmt: skip


def score_pair(score_better: float | None, score_worse: float | None) -> str:
    """How a judge's two scores treat a pair whose first member is the better one."""
    if score_better is None or score_worse is None:
        return "error"
    if abs(score_better - score_worse) <= TIE_TOLERANCE:
        return "tie"
    return "correct" if score_better > score_worse else "wrong"


def kendall_tau(judge: Sequence[float], reference: Sequence[float]) -> float:
    """Kendall's τ-b between judge scores and reference values (0 when undefined)."""
    if len(judge) < 2 or len(set(judge)) < 2 or len(set(reference)) < 2:
        return 0.0
    tau = kendalltau(judge, reference).statistic
    return 0.0 if math.isnan(tau) else float(tau)


def top1_credit(judge: Sequence[float], reference: Sequence[float]) -> float:
    """1/k if the reference argmax is among the k candidates tied at the judge's top, else 0."""
    scores = np.asarray(judge, float)
    top = np.flatnonzero(scores >= scores.max() - TIE_TOLERANCE)
    best = int(np.argmax(np.asarray(reference, float)))
    return 1.0 / top.size if best in top else 0.0


def score_spread(scores: Sequence[float], bins: int = 20) -> dict[str, float]:
    """Mean, std, range, distinct values and histogram entropy (bits, over [-1, 1])."""
    if not scores:
        return {"mean": 0.0, "std": 0.0, "min": 0.0, "max": 0.0, "distinct": 0,
                "entropy_bits": 0.0}  # fmt: skip
    values = np.asarray(scores, float)
    counts, _ = np.histogram(np.clip(values, -1.0, 1.0), bins=bins, range=(-1.0, 1.0))
    p = counts[counts > 0] / counts.sum()
    return {
        "mean": float(values.mean()),
        "std": float(values.std()),
        "min": float(values.min()),
        "max": float(values.max()),
        "distinct": int(np.unique(np.round(values, 6)).size),
        "entropy_bits": float(max(0.0, -(p * np.log2(p)).sum())),
    }
