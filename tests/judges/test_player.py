"""The LLM player over the fake server: numbered choices, recorded fallbacks, the protocol."""

from __future__ import annotations

import asyncio
import json
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from dicode.domains.tetris.evaluate import evaluate
from dicode.judges.candidates import bcts_action, enumerate_candidates
from dicode.judges.player import Decision, LLMPlayer, PlayerSettings, evaluate_player
from dicode.llm.client import LLMClient, LLMConfig
from dicode.testing.fake_openai import FakeOpenAIServer, FakeReply
from dicode.testing.judge_responders import user_text
from services.cli import app


def _board() -> np.ndarray:
    board = np.zeros((20, 10), np.uint8)
    board[0, 1:] = 1
    board[1, 3:7] = 1
    return board


def _choose(server: FakeOpenAIServer, settings: PlayerSettings | None = None) -> Decision:
    async def run() -> Decision:
        config = LLMConfig(base_url=server.base_url, model=server.model, max_retries=0)
        async with LLMClient(config) as client:
            return await LLMPlayer(client, settings).choose(_board(), 2, 0)

    return asyncio.run(run())


def test_player_lists_every_legal_placement_and_plays_the_chosen_one(
    server: FakeOpenAIServer,
) -> None:
    candidates = enumerate_candidates(_board(), 2)
    server.enqueue(FakeReply.json({"choice": 3}))
    decision = _choose(server)
    assert not decision.fallback and decision.action == int(candidates.actions[2])
    body = server.chat_requests()[0]
    listed = re.findall(r"^(\d+)\. rotation (\d), column (\d+)", user_text(body), re.M)
    assert [int(n) for n, _, _ in listed] == list(range(1, len(candidates) + 1))
    assert [int(r) * 10 + int(c) for _, r, c in listed] == candidates.actions.tolist()
    choice = body["response_format"]["json_schema"]["schema"]["properties"]["choice"]
    assert (choice["minimum"], choice["maximum"]) == (1, len(candidates))


@pytest.mark.parametrize(
    ("reply", "kind", "needle"),
    [
        (FakeReply.json({"choice": 99}), "invalid_answer", "not in 1.."),
        (FakeReply.text("I would put it on the left"), "invalid_answer", "invalid JSON"),
        (FakeReply.http_error(500), "server_error", "HTTP 500"),
    ],
)
def test_unusable_answers_fall_back_to_bcts_and_are_recorded(
    server: FakeOpenAIServer, reply: FakeReply, kind: str, needle: str
) -> None:
    server.enqueue(reply)
    decision = _choose(server)
    assert decision.fallback and decision.error_kind == kind and needle in (decision.error or "")
    assert decision.action == bcts_action(_board(), 2)


def test_fallback_to_the_first_legal_placement(server: FakeOpenAIServer) -> None:
    server.enqueue(FakeReply.text("?"))
    decision = _choose(server, PlayerSettings(fallback="first", show="moves"))
    assert decision.fallback
    assert decision.action == int(enumerate_candidates(_board(), 2).actions[0])
    # "moves" draws the board once, not one picture per placement.
    assert user_text(server.chat_requests()[0]).count("+----------+") == 1


def test_player_follows_the_target_protocol(server: FakeOpenAIServer) -> None:
    # A model that never answers usably plays BCTS moves through the fallback: the games must
    # then be exactly the protocol's BCTS games (same keys, pieces, caps).
    server.set_responder(lambda body: FakeReply.text("no"))

    async def run() -> dict:  # type: ignore[type-arg]
        config = LLMConfig(base_url=server.base_url, model=server.model, max_retries=0,
                           max_concurrency=2)  # fmt: skip
        async with LLMClient(config) as client:
            return await evaluate_player(LLMPlayer(client), games=2, max_pieces=12, seed=0)

    played = asyncio.run(run())
    reference = evaluate("bcts", games=2, max_pieces=12, seed=0)
    assert played["per_game_lines"] == reference["per_game_lines"]
    assert played["pieces"] == reference["pieces"] and played["capped"] == reference["capped"]
    llm = played["llm"]
    assert llm["moves"] == 24 and llm["fallbacks"] == 24 and llm["fallback_rate"] == 1.0
    assert llm["errors"] == {"invalid_answer": 24} and llm["fallback_rule"] == "bcts"


def test_tetris_eval_policy_llm_cli(server: FakeOpenAIServer) -> None:
    server.set_responder(lambda body: FakeReply.json({"choice": 1}))
    result = CliRunner().invoke(app, [
        "tetris", "eval", "--policy", "llm", "--llm-url", server.base_url,
        "--llm-model", server.model, "--games", "1", "--max-pieces", "3", "--json",
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["policy"] == "llm" and report["llm"]["moves"] == 3
    assert report["llm"]["fallbacks"] == 0 and report["pieces"]["mean"] == 3
    missing = CliRunner().invoke(app, ["tetris", "eval", "--policy", "llm"],
                                 env={"DICODE_LLM_URL": "", "DICODE_LLM_MODEL": ""})  # fmt: skip
    assert missing.exit_code != 0 and "DICODE_LLM_URL" in missing.output
