"""Status letters and learnability of a level from its success rate."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

# Lower bounds of the letters A, B, C (below the last one: D).
STATUS_THRESHOLDS: tuple[tuple[str, float], ...] = (("A", 0.75), ("B", 0.5), ("C", 0.25))
STATUS_ORDER = "ABCD"


def status_letter(success_rate: float | None) -> str:
    """A if SR ≥ 0.75, B if ≥ 0.5, C if ≥ 0.25, else D; no data (None or NaN) is D."""
    if success_rate is None or success_rate != success_rate:
        return "D"
    for letter, bound in STATUS_THRESHOLDS:
        if success_rate >= bound:
            return letter
    return "D"


def judged_status(success_rate: float | None, sessions: int, min_sessions: int = 1) -> str:
    """`status_letter` once the level was measured in ``min_sessions`` sessions; before that
    one session's episodes do not judge it: A is held at B, D at C (still learning). No data
    at all stays D (unplayed, not judged unlearnable)."""
    letter = status_letter(success_rate)
    if sessions >= min_sessions or success_rate is None or success_rate != success_rate:
        return letter
    return {"A": "B", "D": "C"}.get(letter, letter)


def learnability(success_rate: float | None) -> float:
    """p(1−p) with p the success rate; no data counts as p = 0 (learnability 0)."""
    if success_rate is None or success_rate != success_rate:
        return 0.0
    return float(success_rate * (1.0 - success_rate))


def learnability_array(success_rates: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Vectorised `learnability`: NaN (no data) gives 0."""
    p = np.nan_to_num(np.asarray(success_rates, dtype=np.float64), nan=0.0)
    return p * (1.0 - p)
