"""The judge discrimination benchmark: can a judge tell good placements from bad ones?

States come from mid-game play by BCTS with a little noise (ε-greedy, so boards carry the holes
and bumps a learning student makes), all seeded. On each state, every legal placement of the
current piece is an outcome with a BCTS value (the reference). Like the field report, the best
and the worst placement form one pair per state; beyond that, the judge's scores over the
candidates are compared with the reference ranking.

- ``absolute`` mode: the judge scores each candidate outcome (all, or ``candidates`` of them:
  best, worst and evenly spaced ranks between). Reported: pairwise accuracy over every clearly
  separated pair, tie rate, Kendall τ-b and top-1 agreement per state, score spread.
- ``pairwise`` mode: the judge compares the best with the worst (and ``extra_pairs`` more
  clearly separated pairs per state), each pair asked in both orders. Reported: pairwise
  accuracy over all answers, tie rate, swap consistency and the share of first-position picks
  (position bias).

Metric conventions are in ``metrics``; judges' errors are counted, never raised.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import asdict, dataclass, field, fields, replace
from functools import lru_cache
from typing import Any, Literal

import jax
import jax.numpy as jnp
import numpy as np

from dicode.domains.tetris.engine import can_spawn
from dicode.domains.tetris.judges.base import Judge, Outcome, PairVerdict, ScoreVerdict
from dicode.domains.tetris.judges.candidates import Candidates, enumerate_candidates
from dicode.domains.tetris.judges.metrics import (
    PairTally,
    kendall_tau,
    score_pair,
    score_spread,
    top1_credit,
)
from dicode.domains.tetris.schema import BOARD_HEIGHT, BOARD_WIDTH, NUM_PIECES

Mode = Literal["absolute", "pairwise"]
_can_spawn = jax.jit(can_spawn)


@dataclass(frozen=True)
class BenchmarkSettings:
    """What the benchmark measures on; every field is in the report."""

    states: int = 15  # decisions judged (the field report used 15 best/worst pairs)
    seed: int = 0
    mode: Mode = "absolute"
    min_pieces: int = 20  # the state is taken after a number of pieces drawn in this range
    max_pieces: int = 60
    epsilon: float = 0.1  # share of random placements in the play that makes the states
    candidates: int | None = None  # outcomes scored per state in absolute mode; None = all
    separation: float = 50.0  # BCTS gap that makes a pair "clearly separated"
    extra_pairs: int = 0  # pairwise mode: separated pairs per state beyond best-vs-worst

    def __post_init__(self) -> None:
        if self.states < 1:
            raise ValueError(f"states must be at least 1, got {self.states}")
        if not 0 <= self.min_pieces <= self.max_pieces:
            raise ValueError("need 0 <= min_pieces <= max_pieces")
        if self.candidates is not None and self.candidates < 2:
            raise ValueError(
                f"candidates must be at least 2 (best and worst), got {self.candidates}"
            )
        if self.mode not in ("absolute", "pairwise"):
            raise ValueError(f"mode must be 'absolute' or 'pairwise', got {self.mode!r}")


@dataclass(frozen=True)
class JudgedState:
    """One mid-game decision: the board, the piece to place and the one after it."""

    board: np.ndarray
    piece: int
    next_piece: int
    pieces_played: int


def mid_game_states(settings: BenchmarkSettings) -> list[JudgedState]:
    """Seeded mid-game states from ε-greedy BCTS play, each with a clearly separated best/worst.

    State ``i`` is played with ``numpy.random.default_rng([seed, i, attempt])``; a game that
    ends early, or a state whose best and worst placements are not separated, is replayed with
    the next attempt number. Only the fields that shape the states key the (cached) result.
    """
    return list(_states(replace(settings, mode="absolute", candidates=None, extra_pairs=0)))


@lru_cache(maxsize=32)
def _states(settings: BenchmarkSettings) -> tuple[JudgedState, ...]:
    states: list[JudgedState] = []
    for index in range(settings.states):
        for attempt in range(1000):
            rng = np.random.default_rng([settings.seed, index, attempt])
            state = _play_to_mid_game(rng, settings)
            if state is None:
                continue
            values = enumerate_candidates(state.board, state.piece).values
            if values.max() - values.min() >= settings.separation:
                states.append(state)
                break
        else:
            raise RuntimeError(f"no usable mid-game state for index {index} in 1000 games")
    return tuple(states)


def _play_to_mid_game(rng: np.random.Generator, settings: BenchmarkSettings) -> JudgedState | None:
    target = int(rng.integers(settings.min_pieces, settings.max_pieces + 1))
    board = np.zeros((BOARD_HEIGHT, BOARD_WIDTH), np.uint8)
    piece, next_piece = (int(p) for p in rng.integers(NUM_PIECES, size=2))
    for _ in range(target):
        candidates = enumerate_candidates(board, piece)
        if len(candidates) == 0:
            return None
        if rng.random() < settings.epsilon:
            pick = int(rng.integers(len(candidates)))
        else:
            pick = int(np.argmax(candidates.values))
        board = candidates.boards[pick]
        piece, next_piece = next_piece, int(rng.integers(NUM_PIECES))
        if not bool(_can_spawn(board, jnp.int32(piece))):
            return None
    if len(enumerate_candidates(board, piece)) < 2:
        return None
    return JudgedState(board, piece, next_piece, target)


def outcome_of(candidates: Candidates, index: int, next_piece: int | None) -> Outcome:
    """The ``index``-th legal placement as an ``Outcome``."""
    return Outcome(
        before=candidates.board,
        piece=candidates.piece,
        action=int(candidates.actions[index]),
        after=candidates.boards[index],
        lines=int(candidates.lines[index]),
        next_piece=next_piece,
    )


def spread_selection(values: np.ndarray, count: int | None) -> list[int]:
    """Indices of ``count`` candidates: the best, the worst and evenly spaced ranks between."""
    order = np.argsort(-values, kind="stable")  # best first
    if count is None or count >= order.size:
        return [int(i) for i in order]
    ranks = np.unique(np.round(np.linspace(0, order.size - 1, count)).astype(int))
    return [int(order[r]) for r in ranks]


@dataclass
class BenchmarkReport:
    """Figures of one benchmark run (JSON-ready via ``to_dict``)."""

    judge: str
    settings: dict[str, Any]
    states: int
    pairwise_accuracy: float
    strict_accuracy: float
    tie_rate: float
    error_rate: float
    pairs: dict[str, int]
    best_vs_worst: dict[str, int]
    mean_score_best: float | None = None
    mean_score_worst: float | None = None
    kendall_tau: float | None = None
    top1_agreement: float | None = None
    score: dict[str, float] | None = None
    swap_consistency: float | None = None
    first_position_rate: float | None = None
    errors: dict[str, int] = field(default_factory=dict)
    error_examples: list[str] = field(default_factory=list)
    suggestions_valid: int = 0
    calls: int = 0
    mean_latency_s: float = 0.0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BenchmarkReport:
        """Read a saved report (extra keys, e.g. the CLI's ``gate``, are ignored)."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


def run_benchmark(judge: Judge, settings: BenchmarkSettings) -> BenchmarkReport:
    """Synchronous entry point (owns an event loop); see ``benchmark``."""
    return asyncio.run(benchmark(judge, settings))


async def benchmark(judge: Judge, settings: BenchmarkSettings) -> BenchmarkReport:
    """Run the benchmark for ``judge`` on the seeded states of ``settings``."""
    started = time.perf_counter()
    states = mid_game_states(settings)
    if settings.mode == "absolute":
        report = await _absolute(judge, settings, states)
    else:
        report = await _pairwise(judge, settings, states)
    report.seconds = round(time.perf_counter() - started, 2)
    return report


def _error_log(
    verdicts: list[ScoreVerdict] | list[PairVerdict],
) -> tuple[dict[str, int], list[str]]:
    kinds = Counter(v.error_kind for v in verdicts if v.error_kind)
    examples = list(dict.fromkeys(f"{v.error_kind}: {v.error}" for v in verdicts if v.error_kind))
    return dict(kinds), examples[:5]


async def _absolute(
    judge: Judge, settings: BenchmarkSettings, states: list[JudgedState]
) -> BenchmarkReport:
    pairs, best_worst = PairTally(), PairTally()
    taus: list[float] = []
    top1: list[float] = []
    all_verdicts: list[ScoreVerdict] = []
    best_scores: list[float] = []
    worst_scores: list[float] = []
    for state in states:
        candidates = enumerate_candidates(state.board, state.piece)
        chosen = spread_selection(candidates.values, settings.candidates)
        verdicts = await asyncio.gather(
            *(judge.score(outcome_of(candidates, i, state.next_piece)) for i in chosen)
        )
        all_verdicts.extend(verdicts)
        values = candidates.values[chosen]
        scores = [v.score for v in verdicts]
        # chosen[0] is the best placement and chosen[-1] the worst (selection sorts best first).
        best_worst.add(score_pair(scores[0], scores[-1]))
        if scores[0] is not None:
            best_scores.append(scores[0])
        if scores[-1] is not None:
            worst_scores.append(scores[-1])
        for a in range(len(chosen)):
            for b in range(a + 1, len(chosen)):
                if values[a] - values[b] >= settings.separation:
                    pairs.add(score_pair(scores[a], scores[b]))
        judged = [(s, v) for s, v in zip(scores, values, strict=True) if s is not None]
        if len(judged) >= 2:
            taus.append(kendall_tau([s for s, _ in judged], [v for _, v in judged]))
            top1.append(top1_credit([s for s, _ in judged], [v for _, v in judged]))
    errors, examples = _error_log(all_verdicts)
    valid = [v.score for v in all_verdicts if v.score is not None]
    return BenchmarkReport(
        judge=judge.name,
        settings=asdict(settings),
        states=len(states),
        pairwise_accuracy=pairs.accuracy(),
        strict_accuracy=pairs.strict_accuracy(),
        tie_rate=pairs.tie_rate(),
        error_rate=sum(errors.values()) / len(all_verdicts),
        pairs=pairs.as_dict(),
        best_vs_worst=best_worst.as_dict(),
        mean_score_best=float(np.mean(best_scores)) if best_scores else None,
        mean_score_worst=float(np.mean(worst_scores)) if worst_scores else None,
        kendall_tau=float(np.mean(taus)) if taus else 0.0,
        top1_agreement=float(np.mean(top1)) if top1 else 0.0,
        score=score_spread(valid),
        errors=errors,
        error_examples=examples,
        suggestions_valid=sum(v.suggestion is not None for v in all_verdicts),
        calls=len(all_verdicts),
        mean_latency_s=float(np.mean([v.latency_s for v in all_verdicts])),
    )


def _pairs_for_state(
    candidates: Candidates, settings: BenchmarkSettings, rng: np.random.Generator
) -> list[tuple[int, int]]:
    """(better, worse) index pairs: best vs worst first, then random separated pairs."""
    values = candidates.values
    best, worst = int(np.argmax(values)), int(np.argmin(values))
    chosen = [(best, worst)]
    separated = [
        (a, b)
        for a in range(len(values))
        for b in range(len(values))
        if values[a] - values[b] >= settings.separation and (a, b) != (best, worst)
    ]
    if separated and settings.extra_pairs:
        picks = rng.choice(len(separated), min(settings.extra_pairs, len(separated)), replace=False)
        chosen.extend(separated[int(p)] for p in picks)
    return chosen


async def _pairwise(
    judge: Judge, settings: BenchmarkSettings, states: list[JudgedState]
) -> BenchmarkReport:
    answers, best_worst = PairTally(), PairTally()
    consistent = asked_twice = first_picks = decisive = 0
    all_verdicts: list[PairVerdict] = []
    rng = np.random.default_rng([settings.seed, 1])
    for state in states:
        candidates = enumerate_candidates(state.board, state.piece)
        for n, (better, worse) in enumerate(_pairs_for_state(candidates, settings, rng)):
            good = outcome_of(candidates, better, state.next_piece)
            bad = outcome_of(candidates, worse, state.next_piece)
            straight, swapped = await asyncio.gather(
                judge.compare(good, bad), judge.compare(bad, good)
            )
            all_verdicts.extend((straight, swapped))
            # In "straight" the better outcome is shown first, in "swapped" second.
            results = [_pair_result(straight, "first"), _pair_result(swapped, "second")]
            for result in results:
                answers.add(result)
                if n == 0:
                    best_worst.add(result)
            for verdict in (straight, swapped):
                if verdict.choice in ("first", "second"):
                    decisive += 1
                    first_picks += verdict.choice == "first"
            if straight.ok and swapped.ok:
                asked_twice += 1
                consistent += results[0] == results[1]
    errors, examples = _error_log(all_verdicts)
    return BenchmarkReport(
        judge=judge.name,
        settings=asdict(settings),
        states=len(states),
        pairwise_accuracy=answers.accuracy(),
        strict_accuracy=answers.strict_accuracy(),
        tie_rate=answers.tie_rate(),
        error_rate=sum(errors.values()) / len(all_verdicts),
        pairs=answers.as_dict(),
        best_vs_worst=best_worst.as_dict(),
        swap_consistency=consistent / asked_twice if asked_twice else 0.0,
        first_position_rate=first_picks / decisive if decisive else 0.5,
        errors=errors,
        error_examples=examples,
        calls=len(all_verdicts),
        mean_latency_s=float(np.mean([v.latency_s for v in all_verdicts])),
    )


def _pair_result(verdict: PairVerdict, better_shown: str) -> str:
    if verdict.choice is None:
        return "error"
    if verdict.choice == "tie":
        return "tie"
    return "correct" if verdict.choice == better_shown else "wrong"
