"""The gate in front of reward shaping, and the field report's wrapper semantics (α, k, info)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import jax
import numpy as np
import pytest
from typer.testing import CliRunner

from dicode.domains.tetris.engine import EnvParams
from dicode.domains.tetris.judges.base import Placement
from dicode.domains.tetris.judges.benchmark import (
    BenchmarkReport,
    BenchmarkSettings,
    benchmark,
    run_benchmark,
)
from dicode.domains.tetris.judges.candidates import bcts_action, enumerate_candidates
from dicode.domains.tetris.judges.gate import GateThresholds, JudgeRejected, admit
from dicode.domains.tetris.judges.llm_judge import LLMJudge
from dicode.domains.tetris.judges.reference import ConstantJudge, HeuristicJudge, normalised_bcts
from dicode.domains.tetris.judges.shaping import JudgeShapedEnv, ShapingConfig
from dicode.llm.client import LLMClient, LLMConfig
from services.cli import app
from tests.support.fake_openai import FakeOpenAIServer, FakeReply
from tests.support.judge_responders import collapsed_responder

SETTINGS = BenchmarkSettings(states=10, candidates=4)


@pytest.fixture(scope="module")
def heuristic_report() -> BenchmarkReport:
    return run_benchmark(HeuristicJudge(), SETTINGS)


def test_gate_admits_the_heuristic_judge(heuristic_report: BenchmarkReport) -> None:
    admit(heuristic_report)  # no exception
    with pytest.raises(JudgeRejected, match=r"only 10 states benchmarked \(need ≥ 50\)"):
        admit(heuristic_report, GateThresholds(min_states=50))


def test_gate_refuses_the_collapsed_judge_with_its_figures(server: FakeOpenAIServer) -> None:
    server.set_responder(collapsed_responder)

    async def run() -> BenchmarkReport:
        config = LLMConfig(base_url=server.base_url, model=server.model, max_retries=0)
        async with LLMClient(config) as client:
            return await benchmark(LLMJudge(client), BenchmarkSettings(states=10, candidates=2))

    report = asyncio.run(run())
    with pytest.raises(JudgeRejected) as refused:
        admit(report)
    message = str(refused.value)
    assert "judge 'text' refused for reward shaping" in message
    assert f"tie rate {report.tie_rate:.3f} > 0.200" in message
    assert f"pairwise accuracy {report.pairwise_accuracy:.3f} < 0.800" in message
    bw = report.best_vs_worst
    assert f"better {bw['correct']}, tied {bw['tie']}, worse {bw['wrong']}" in message


def test_shaping_refuses_a_constant_judge_and_a_mismatched_report(
    heuristic_report: BenchmarkReport,
) -> None:
    constant = run_benchmark(ConstantJudge(), SETTINGS)
    with pytest.raises(JudgeRejected, match=r"tie rate 1\.000 > 0\.200"):
        JudgeShapedEnv(ConstantJudge(), constant)
    with pytest.raises(JudgeRejected, match="report is for judge 'heuristic'"):
        JudgeShapedEnv(ConstantJudge(), heuristic_report)


def _play(env: JudgeShapedEnv, steps: int, seed: int = 0) -> list[tuple[dict, object]]:  # type: ignore[type-arg]
    """Steps with BCTS moves; returns (info, state before the step) per step."""
    _, state = env.reset(jax.random.key(seed))
    out = []
    for t in range(steps):
        action = bcts_action(np.asarray(state.board), int(state.piece))
        before = state
        _, state, reward, _, info = env.step(jax.random.fold_in(jax.random.key(seed + 1), t),
                                             state, action)  # fmt: skip
        assert reward == info["reward_shaped"]
        out.append((info, before))
    return out


@pytest.mark.parametrize(("alpha", "every", "steps"), [(0.2, 10, 25), (0.5, 3, 8)])
def test_wrapper_calls_the_judge_every_k_steps_and_adds_alpha_times_the_score(
    heuristic_report: BenchmarkReport, alpha: float, every: int, steps: int
) -> None:
    with JudgeShapedEnv(HeuristicJudge(), heuristic_report,
                        config=ShapingConfig(alpha=alpha, every=every)) as env:  # fmt: skip
        played = _play(env, steps)
        called = [t + 1 for t, (info, _) in enumerate(played) if info["judge_called"]]
        assert called == list(range(1, steps + 1, every))
        assert [c.step for c in env.history] == called
        last = 0.0
        for info, before in played:
            action = bcts_action(np.asarray(before.board), int(before.piece))
            if info["judge_called"]:
                # The score is the BCTS value of this very placement, normalised.
                candidates = enumerate_candidates(np.asarray(before.board), int(before.piece))
                value = candidates.values[candidates.index_of(action)]
                last = normalised_bcts(value, 20, 10)
            assert info["judge_score"] == pytest.approx(last)
            assert info["reward_shaped"] == pytest.approx(info["reward_env"] + alpha * last)
            assert info["reward_env"] == 1.0 + 10.0 * int(info["lines"]) ** 2
            assert info["judge_error"] is None
        first_call = env.history[0]
        assert first_call.suggestion is not None and first_call.error is None
        assert played[0][0]["judge_suggestion"] == (first_call.suggestion.rotation,
                                                   first_call.suggestion.column)  # fmt: skip


def test_wrapper_suggestion_is_the_bcts_move_for_the_next_piece(
    heuristic_report: BenchmarkReport,
) -> None:
    env = JudgeShapedEnv(HeuristicJudge(), heuristic_report)
    _, state = env.reset(jax.random.key(3))
    action = bcts_action(np.asarray(state.board), int(state.piece))
    _, new_state, _, _, info = env.step(jax.random.key(4), state, action)
    expected = Placement.from_action(bcts_action(np.asarray(new_state.board),
                                                 int(new_state.piece)), 10)  # fmt: skip
    assert info["judge_suggestion"] == (expected.rotation, expected.column)
    # A reset starts the count again: the next step is judged.
    env.reset(jax.random.key(5))
    assert env.history == []
    env.close()


def test_wrapper_keeps_the_last_score_when_the_judge_fails(server: FakeOpenAIServer) -> None:
    good = BenchmarkReport(judge="text", settings={"mode": "absolute"}, states=20,
                           pairwise_accuracy=0.95, strict_accuracy=0.95, tie_rate=0.0,
                           error_rate=0.0, pairs={}, best_vs_worst={})  # fmt: skip
    server.enqueue(
        FakeReply.json({"score": 0.5, "suggested_rotation": 0, "suggested_column": 1}),
        FakeReply.text("sorry, I cannot judge this"),
        FakeReply.http_error(500),
    )
    config = LLMConfig(base_url=server.base_url, model=server.model, max_retries=0)
    env = JudgeShapedEnv(LLMJudge(LLMClient(config)), good, config=ShapingConfig(every=2))
    infos = [info for info, _ in _play(env, 6)]
    env.close()
    assert [i["judge_called"] for i in infos] == [True, False, True, False, True, False]
    assert [i["judge_score"] for i in infos] == [0.5] * 6
    assert infos[2]["judge_error"].startswith("invalid_answer")
    assert infos[4]["judge_error"].startswith("server_error")
    assert infos[5]["judge_suggestion"] == (0, 1)
    assert len(server.chat_requests()) == 3


def test_wrapper_adds_nothing_after_the_game_is_over(heuristic_report: BenchmarkReport) -> None:
    env = JudgeShapedEnv(HeuristicJudge(), heuristic_report, config=ShapingConfig(every=1))
    _, state = env.reset(jax.random.key(0))
    board = np.ones((20, 10), np.uint8)
    board[:, 0] = 0  # a full stack: any placement ends the game
    state = state.replace(board=board)
    _, state, _, done, _ = env.step(jax.random.key(1), state, 0)
    assert done
    _, _, reward, _, info = env.step(jax.random.key(2), state, 0)
    assert reward == 0.0 and info["reward_env"] == 0.0 and not info["judge_called"]
    env.close()


def test_cli_gate_exit_codes_and_saved_report(tmp_path: Path) -> None:
    runner = CliRunner()
    judge_eval = ["tetris", "judge", "eval", "--states", "10"]
    refused = runner.invoke(app, [*judge_eval, "--judge", "constant", "--candidates", "3",
                                  "--json", "--gate"])  # fmt: skip
    assert refused.exit_code == 2, refused.output
    payload = json.loads(refused.output)
    assert payload["gate"]["admitted"] is False and payload["tie_rate"] == 1.0
    out = tmp_path / "heuristic.json"
    admitted = runner.invoke(app, [*judge_eval, "--judge", "heuristic", "--candidates", "3",
                                   "--gate", "--out", str(out)])  # fmt: skip
    assert admitted.exit_code == 0, admitted.output
    assert "admitted" in admitted.output
    report = BenchmarkReport.from_dict(json.loads(out.read_text()))
    JudgeShapedEnv(HeuristicJudge(), report, params=EnvParams()).close()
    bad = runner.invoke(app, [*judge_eval, "--judge", "text"],
                        env={"DICODE_LLM_URL": "", "DICODE_LLM_MODEL": ""})  # fmt: skip
    assert bad.exit_code != 0 and "DICODE_LLM_URL" in bad.output
