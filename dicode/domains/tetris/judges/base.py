"""What a judge sees and what it answers: the protocol every judge implements.

A judge looks at the *outcome of a placement* — the board before, the piece and placement chosen,
the board after (line clears applied) — and returns either an absolute score in [-1, 1] with a
suggested placement for the next piece, or, in pairwise mode, which of two outcomes of the same
decision is better. Judges never raise on a bad model answer or a dead server: the verdict
carries ``error_kind`` / ``error`` instead and the caller decides what to do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np

from dicode.domains.tetris.pieces import NUM_ROTATIONS
from dicode.domains.tetris.schema import PIECE_NAMES

# Errors of the judge layer on top of the client's (timeout, connection, …): the model answered,
# but not with something usable.
JUDGE_ERROR_KINDS = ("invalid_answer",)

Choice = Literal["first", "second", "tie"]


@dataclass(frozen=True)
class Placement:
    """A placement in the engine's encoding: SRS rotation state and leftmost occupied column."""

    rotation: int
    column: int

    def action(self, width: int) -> int:
        return self.rotation * width + self.column

    @classmethod
    def from_action(cls, action: int, width: int) -> Placement:
        return cls(int(action) // width, int(action) % width)

    def describe(self) -> str:
        return f"rotation {self.rotation}, column {self.column}"


@dataclass(frozen=True)
class Outcome:
    """The result of placing ``piece`` with ``action`` on ``before`` (rows: row 0 = bottom)."""

    before: np.ndarray  # (H, W) uint8
    piece: int  # id in "IOTSZJL"
    action: int  # placement action (rotation * W + column)
    after: np.ndarray  # (H, W) uint8, line clears applied
    lines: int  # rows the placement cleared
    next_piece: int | None = None  # the piece to place next, if known (for suggestions)

    @property
    def width(self) -> int:
        return int(self.before.shape[1])

    @property
    def placement(self) -> Placement:
        return Placement.from_action(self.action, self.width)

    @property
    def piece_name(self) -> str:
        return PIECE_NAMES[self.piece]


@dataclass
class ScoreVerdict:
    """An absolute judgement: ``score`` in [-1, 1] or an error (then ``score`` is None)."""

    score: float | None
    suggestion: Placement | None = None
    suggestion_note: str | None = None  # why a suggestion was dropped (e.g. out of range)
    error_kind: str | None = None
    error: str | None = None
    raw: str | None = None  # the model's answer text, kept for the record
    latency_s: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def ok(self) -> bool:
        return self.score is not None


@dataclass
class PairVerdict:
    """A pairwise judgement: which of two outcomes (in the order shown) is better, or an error."""

    choice: Choice | None
    error_kind: str | None = None
    error: str | None = None
    raw: str | None = None
    latency_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.choice is not None


class Judge(Protocol):
    """Scores placement outcomes. ``name`` identifies it in benchmark reports and the gate."""

    name: str

    async def score(self, outcome: Outcome) -> ScoreVerdict:
        """Absolute score of one outcome in [-1, 1] (higher is better) and a suggestion."""
        ...

    async def compare(self, first: Outcome, second: Outcome) -> PairVerdict:
        """Which of two outcomes of the same decision is better, as shown in this order."""
        ...


def check_suggestion(rotation: int, column: int, width: int) -> tuple[Placement | None, str | None]:
    """A suggested placement if it is inside the action space, else None and the reason."""
    if not 0 <= rotation < NUM_ROTATIONS or not 0 <= column < width:
        return None, (
            f"suggested placement (rotation {rotation}, column {column}) is outside "
            f"rotations 0-{NUM_ROTATIONS - 1} / columns 0-{width - 1}"
        )
    return Placement(rotation, column), None
