"""The discrimination benchmark: reference judges at their bounds, the field report's collapse."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from dicode.domains.tetris.judges.base import Outcome
from dicode.domains.tetris.judges.benchmark import (
    BenchmarkSettings,
    benchmark,
    mid_game_states,
    run_benchmark,
)
from dicode.domains.tetris.judges.candidates import enumerate_candidates
from dicode.domains.tetris.judges.llm_judge import LLMJudge
from dicode.domains.tetris.judges.metrics import (
    PairTally,
    kendall_tau,
    score_pair,
    score_spread,
    top1_credit,
)
from dicode.domains.tetris.judges.reference import ConstantJudge, HeuristicJudge, RandomJudge
from dicode.llm.client import LLMClient, LLMConfig
from tests.support.fake_openai import FakeOpenAIServer, FakeReply
from tests.support.judge_responders import collapsed_responder, good_responder

STATES = 10


def _llm_benchmark(server: FakeOpenAIServer, settings: BenchmarkSettings):  # type: ignore[no-untyped-def]
    async def run():  # type: ignore[no-untyped-def]
        config = LLMConfig(base_url=server.base_url, model=server.model, max_retries=0,
                           timeout_s=10, max_concurrency=8)  # fmt: skip
        async with LLMClient(config) as client:
            return await benchmark(LLMJudge(client), settings)

    return asyncio.run(run())


def test_states_are_seeded_mid_game_and_separated() -> None:
    settings = BenchmarkSettings(states=4, seed=3)
    first, again = mid_game_states(settings), mid_game_states(settings)
    other = mid_game_states(BenchmarkSettings(states=4, seed=4))
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a.board, b.board)
        assert (a.piece, a.next_piece) == (b.piece, b.next_piece)
    assert any(not np.array_equal(a.board, b.board) for a, b in zip(first, other, strict=True))
    for state in first:
        assert settings.min_pieces <= state.pieces_played <= settings.max_pieces
        assert state.board.any()
        values = enumerate_candidates(state.board, state.piece).values
        assert values.max() - values.min() >= settings.separation


def test_heuristic_judge_is_near_perfect_in_both_modes() -> None:
    absolute = run_benchmark(HeuristicJudge(), BenchmarkSettings(states=STATES))
    assert absolute.pairwise_accuracy >= 0.99 and absolute.tie_rate == 0.0
    assert absolute.kendall_tau is not None and absolute.kendall_tau >= 0.99
    assert absolute.top1_agreement == 1.0
    assert absolute.best_vs_worst["correct"] == STATES
    assert absolute.suggestions_valid == absolute.calls
    pairwise = run_benchmark(HeuristicJudge(), BenchmarkSettings(states=STATES, mode="pairwise"))
    assert pairwise.pairwise_accuracy == 1.0 and pairwise.swap_consistency == 1.0
    assert pairwise.first_position_rate == 0.5  # best shown first once, second once


def test_constant_judge_is_at_chance_with_only_ties() -> None:
    report = run_benchmark(ConstantJudge(-0.8), BenchmarkSettings(states=STATES))
    assert report.pairwise_accuracy == 0.5 and report.strict_accuracy == 0.0
    assert report.tie_rate == 1.0
    assert report.kendall_tau == 0.0
    assert report.score is not None and report.score["distinct"] == 1
    assert report.score["entropy_bits"] == 0.0
    assert report.top1_agreement is not None and report.top1_agreement < 0.2  # 1/#candidates


def test_random_judge_is_near_chance_and_seeded() -> None:
    settings = BenchmarkSettings(states=STATES, candidates=8)
    report = run_benchmark(RandomJudge(seed=1), settings)
    assert 0.3 <= report.pairwise_accuracy <= 0.7 and report.tie_rate == 0.0
    assert abs(report.kendall_tau or 0.0) < 0.3
    again = run_benchmark(RandomJudge(seed=1), settings)
    assert again.pairs == report.pairs


def test_collapsed_fake_judge_reproduces_the_field_report_pattern(
    server: FakeOpenAIServer,
) -> None:
    server.set_responder(collapsed_responder)
    report = _llm_benchmark(server, BenchmarkSettings(states=15, candidates=2))
    bw = report.best_vs_worst
    assert report.calls == 30 and report.error_rate == 0.0
    assert report.score is not None and report.score["distinct"] == 2  # −0.8 and −0.7 only
    assert {report.score["min"], report.score["max"]} == {-0.8, -0.7}
    assert bw["tie"] > bw["correct"] and bw["tie"] >= 15 // 2  # mostly ties, few correct
    assert report.strict_accuracy < 0.4 and report.pairwise_accuracy < 0.8
    assert report.tie_rate > 0.2


def test_good_fake_judge_discriminates(server: FakeOpenAIServer) -> None:
    server.set_responder(good_responder)
    report = _llm_benchmark(server, BenchmarkSettings(states=STATES, candidates=4))
    assert report.error_rate == 0.0
    assert report.best_vs_worst["correct"] >= STATES - 1
    assert report.pairwise_accuracy >= 0.8 and report.tie_rate <= 0.2
    assert report.kendall_tau is not None and report.kendall_tau > 0.3


def test_position_biased_fake_judge_shows_in_swap_consistency(server: FakeOpenAIServer) -> None:
    server.set_responder(lambda body: FakeReply.json({"better": "A"}))
    report = _llm_benchmark(server, BenchmarkSettings(states=STATES, mode="pairwise"))
    assert report.first_position_rate == 1.0
    assert report.swap_consistency == 0.0
    assert report.pairwise_accuracy == 0.5 and report.tie_rate == 0.0


def test_judge_errors_are_counted_not_raised(server: FakeOpenAIServer) -> None:
    server.set_responder(lambda body: FakeReply.text("no idea"))
    report = _llm_benchmark(server, BenchmarkSettings(states=STATES, candidates=2))
    assert report.error_rate == 1.0 and report.errors == {"invalid_answer": 2 * STATES}
    assert report.pairwise_accuracy == 0.5 and report.best_vs_worst["error"] == STATES
    assert report.error_examples and "invalid JSON" in report.error_examples[0]


def test_metric_conventions() -> None:
    assert score_pair(0.2, 0.1) == "correct" and score_pair(0.1, 0.2) == "wrong"
    assert score_pair(-0.8, -0.8) == "tie" and score_pair(None, 0.1) == "error"
    tally = PairTally()
    for outcome in ["correct"] * 4 + ["tie"] * 10 + ["wrong"]:  # the field report's 15 pairs
        tally.add(outcome)
    assert tally.strict_accuracy() == pytest.approx(4 / 15)
    assert tally.accuracy() == pytest.approx(9 / 15) and tally.tie_rate() == pytest.approx(10 / 15)
    assert kendall_tau([1, 2, 3], [10, 20, 30]) == pytest.approx(1.0)
    assert kendall_tau([3, 2, 1], [10, 20, 30]) == pytest.approx(-1.0)
    assert kendall_tau([0.5, 0.5, 0.5], [1, 2, 3]) == 0.0
    assert top1_credit([0.1, 0.1, 0.0, 0.1], [5, 1, 0, 2]) == pytest.approx(1 / 3)
    assert top1_credit([0.0, 0.9], [5, 1]) == 0.0
    spread = score_spread([-0.8, -0.7, -0.8, -0.8])
    assert spread["distinct"] == 2 and 0 < spread["entropy_bits"] < 1


def test_heuristic_judge_reports_an_illegal_placement_as_an_error() -> None:
    board = np.zeros((20, 10), np.uint8)
    illegal = Outcome(board, 0, 9, board, 0, 1)  # a flat I cannot start in column 9
    good = Outcome(board, 0, 0, board, 0, 1)
    judge = HeuristicJudge()
    verdict = asyncio.run(judge.score(illegal))
    assert verdict.error_kind == "invalid_answer"
    assert "not a legal placement" in (verdict.error or "")
    assert asyncio.run(judge.compare(good, illegal)).error_kind == "invalid_answer"
