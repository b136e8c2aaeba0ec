"""Transfer: what training on a level did for the target game, as data plus pure functions.

After each session s the target's figure moved by

    Δ_s = R_s − R_{s−1}

with R the target game's mean training return in a session (its slots' finished episodes); no
Δ when either session finished no target episode. Δ_s is credited, whole, to every level
trained in session s. A level's transfer is the mean of its credits against the run's, in units
of the run's noise:

    t_i = (mean_i Δ − mean Δ) / σ_Δ

mean_i over the sessions level i was trained in; mean Δ and σ_Δ (the sample standard deviation)
over every credit of the run, one per level and session (so a session counts as often as it
trained levels). No σ_Δ before the run has two credits, or while all of them are equal; then,
and for a level never credited, t = 0. The priority that admission and replay rank by, with
``ArchiveConfig.level_score == "transfer"`` (w = ``transfer_weight``):

    q_i = p_i(1−p_i) · 2^clip(w·t_i, −2, 2)

Why this shape:
- σ_Δ makes t unitless, so one weight serves Tetris lines, maze returns ≤ 1 and Craftax's %.
- Centring on the run's mean Δ: over most of a run the target climbs, so every trained level's
  mean Δ is positive; what tells two levels apart is whether their sessions beat the run's
  typical session.
- A factor on p(1−p), not a sum: a mastered or unlearnable level (p(1−p) = 0) stays at 0, since
  the student no longer learns from it whatever its past sessions did; the clip bounds the
  factor to [1/4, 4], so a few lucky sessions move a level's rank but never dominate it.
- Equal, whole credit: one session's target figure cannot tell which of its levels helped.
  Levels are told apart only by the different sessions they were trained in, which replay
  varies; a level trained in every session with another one shares its score.

Known bias: learning curves climb fastest early, so a level trained only late in a run scores
below one trained early for the same effect.

The ledger is sums (:class:`Credit`), so the archive can rebuild it from its evaluations in one
query (``TrainingStore.transfer_credits``) and a restarted student resumes it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from dicode.archive.status import learnability

# The priority's factor is 2^clip(w·t, −MAX_DOUBLINGS, MAX_DOUBLINGS).
MAX_DOUBLINGS = 2.0


@dataclass(frozen=True)
class Credit:
    """Target changes credited to one level (or to a whole run): their sum, sum of squares and
    count."""

    total: float = 0.0
    squares: float = 0.0
    count: int = 0

    def add(self, change: float) -> Credit:
        return Credit(self.total + change, self.squares + change * change, self.count + 1)

    def __add__(self, other: Credit) -> Credit:
        return Credit(
            self.total + other.total, self.squares + other.squares, self.count + other.count
        )

    @property
    def mean(self) -> float | None:
        return self.total / self.count if self.count else None


@dataclass(frozen=True)
class TransferLedger:
    """Every credit of a run, by level and in all. Build it with :func:`ledger_from`; the
    functions below return new ledgers, never change one."""

    levels: Mapping[int, Credit]
    run: Credit = Credit()


def ledger_from(credits: Mapping[int, Credit]) -> TransferLedger:
    """The ledger of a run whose levels hold these credits (as the archive returns them)."""
    run = sum(credits.values(), Credit())
    return TransferLedger(dict(credits), run)


def target_change(previous: float | None, current: float | None) -> float | None:
    """Δ = R_s − R_{s−1}; None when either session finished no target episode."""
    if previous is None or current is None:
        return None
    return float(current - previous)


def credit_session(
    ledger: TransferLedger, level_ids: Iterable[int], change: float | None
) -> TransferLedger:
    """The ledger after a session that trained ``level_ids`` and moved the target by ``change``
    (None: unchanged). A level in several slots is credited once: it was one level trained."""
    if change is None:
        return ledger
    levels = dict(ledger.levels)
    run = ledger.run
    for level in dict.fromkeys(level_ids):
        levels[level] = levels.get(level, Credit()).add(change)
        run = run.add(change)
    return TransferLedger(levels, run)


def noise_scale(run: Credit) -> float | None:
    """σ_Δ, the sample standard deviation of a run's credits; None with fewer than two, or when
    they are all equal (nothing to measure a level's departure against)."""
    if run.count < 2:
        return None
    mean = run.total / run.count
    variance = max(run.squares - run.count * mean * mean, 0.0) / (run.count - 1)
    # Equal credits leave only rounding in the sum of squares: no noise to divide by.
    if variance <= 1e-12 * (run.squares / run.count):
        return None
    return math.sqrt(variance)


def transfer_score(ledger: TransferLedger, level_id: int) -> float:
    """t_i = (mean_i Δ − mean Δ) / σ_Δ; 0 for a level never credited or a run without σ_Δ."""
    scale = noise_scale(ledger.run)
    credit = ledger.levels.get(level_id)
    if scale is None or credit is None or credit.mean is None or ledger.run.mean is None:
        return 0.0
    return (credit.mean - ledger.run.mean) / scale


def transfer_priority(success_rate: float | None, transfer: float, weight: float) -> float:
    """q = p(1−p) · 2^clip(w·t, −2, 2): learnability scaled by at most four times either way."""
    doublings = min(max(weight * transfer, -MAX_DOUBLINGS), MAX_DOUBLINGS)
    return learnability(success_rate) * 2.0**doublings


def transfer_summary(ledger: TransferLedger) -> dict[str, float | int | None]:
    """What an experiment record keeps of a run's ledger: the levels credited, their transfer
    scores' mean, sample standard deviation and share above 0, the noise scale σ_Δ and the
    run's mean Δ (None where there is nothing to compute it from)."""
    scores = np.array([transfer_score(ledger, level) for level in ledger.levels])
    return {
        "levels_credited": len(scores),
        "transfer_mean": float(scores.mean()) if len(scores) else None,
        "transfer_std": float(scores.std(ddof=1)) if len(scores) > 1 else None,
        "transfer_positive_share": float((scores > 0).mean()) if len(scores) else None,
        "noise_scale": noise_scale(ledger.run),
        "mean_change": ledger.run.mean,
    }
