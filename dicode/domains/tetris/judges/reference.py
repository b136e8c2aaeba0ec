"""Reference judges that bound the benchmark: the BCTS heuristic (upper), constant and random.

- ``HeuristicJudge``: the BCTS value of the placement, squashed monotonically into [-1, 1]
  (``x / (1 + |x|)`` with ``x = (value - empty) / scale``, where ``empty`` is the value of an
  empty board): no saturation, so distinct values keep distinct scores. Its suggestion is the
  BCTS choice for the next piece on the board after.
- ``ConstantJudge``: the same score for everything and a tie in every comparison (the field
  report's collapse taken to the limit).
- ``RandomJudge``: seeded uniform scores and coin-flip comparisons (chance).
"""

from __future__ import annotations

import random

from dicode.domains.tetris.judges.base import Outcome, PairVerdict, Placement, ScoreVerdict
from dicode.domains.tetris.judges.candidates import (
    bcts_action,
    empty_board_value,
    enumerate_candidates,
)

DEFAULT_SCALE = 500.0  # BCTS units; a mid-game board sits around −1,500 to −2,500


def normalised_bcts(value: float, height: int, width: int, scale: float = DEFAULT_SCALE) -> float:
    """A BCTS value mapped strictly monotonically into (-1, 1); an empty board maps to 0."""
    x = (value - empty_board_value(height, width)) / scale
    return float(x / (1.0 + abs(x)))


class HeuristicJudge:
    """The BCTS planner as a judge: what a perfect judge of this benchmark looks like."""

    name = "heuristic"

    def __init__(self, scale: float = DEFAULT_SCALE) -> None:
        self.scale = scale

    def value(self, outcome: Outcome) -> float:
        candidates = enumerate_candidates(outcome.before, outcome.piece)
        return float(candidates.values[candidates.index_of(outcome.action)])

    async def score(self, outcome: Outcome) -> ScoreVerdict:
        try:
            value = self.value(outcome)
        except ValueError as exc:  # an illegal action has no afterstate to judge
            return ScoreVerdict(None, error_kind="invalid_answer", error=str(exc))
        height, width = outcome.before.shape
        suggestion = None
        nxt = outcome.next_piece
        if nxt is not None and len(enumerate_candidates(outcome.after, nxt)):
            suggestion = Placement.from_action(bcts_action(outcome.after, nxt), width)
        return ScoreVerdict(normalised_bcts(value, height, width, self.scale), suggestion)

    async def compare(self, first: Outcome, second: Outcome) -> PairVerdict:
        try:
            a, b = self.value(first), self.value(second)
        except ValueError as exc:
            return PairVerdict(None, "invalid_answer", str(exc))
        return PairVerdict("tie" if a == b else "first" if a > b else "second")


class ConstantJudge:
    """Always the same score; every comparison a tie."""

    name = "constant"

    def __init__(self, value: float = 0.0) -> None:
        if not -1.0 <= value <= 1.0:
            raise ValueError(f"a judge score lies in [-1, 1], got {value}")
        self.value = value

    async def score(self, outcome: Outcome) -> ScoreVerdict:
        return ScoreVerdict(self.value)

    async def compare(self, first: Outcome, second: Outcome) -> PairVerdict:
        return PairVerdict("tie")


class RandomJudge:
    """Uniform scores in [-1, 1] and fair coin flips, from an explicit seed."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    async def score(self, outcome: Outcome) -> ScoreVerdict:
        return ScoreVerdict(self._rng.uniform(-1.0, 1.0))

    async def compare(self, first: Outcome, second: Outcome) -> PairVerdict:
        return PairVerdict("first" if self._rng.random() < 0.5 else "second")
