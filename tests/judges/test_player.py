"""The LLM player over the fake server: numbered choices, recorded fallbacks, the protocol.

An unusable answer plays the first legal placement (``first_legal``) unless BCTS is asked for, so
a model that never answers usably scores exactly what ``--policy first_legal`` scores.
"""

from __future__ import annotations

import asyncio
import json
import re
from functools import lru_cache
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from dicode.domains.tetris.evaluate import evaluate
from dicode.domains.tetris.judges.candidates import bcts_action, enumerate_candidates
from dicode.domains.tetris.judges.player import (
    Decision,
    Fallback,
    LLMPlayer,
    PlayerSettings,
    evaluate_player,
    first_legal_action,
)
from dicode.llm.client import LLMClient, LLMConfig
from services.cli import app
from tests.support.fake_openai import FakeOpenAIServer, FakeReply
from tests.support.judge_responders import garbage_responder, user_text


def _board() -> np.ndarray:
    board = np.zeros((20, 10), np.uint8)
    board[0, 1:] = 1
    board[1, 3:7] = 1
    return board


@lru_cache
def _reference(policy: str, games: int, max_pieces: int) -> dict[str, Any]:
    """``--policy <policy>`` under the protocol (seed 0), compiled once per test session."""
    return evaluate(policy, games=games, max_pieces=max_pieces, seed=0)


# Same games and cap for every first_legal comparison, so the reference is compiled once.
FIRST_LEGAL_GAMES, FIRST_LEGAL_CAP = 3, 40


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
        (FakeReply.json({"choice": 99}), "out_of_range", "not in 1.."),
        (FakeReply.json({"choice": 0}), "out_of_range", "not in 1.."),
        (FakeReply.text("I would put it on the left"), "unparseable", "invalid JSON"),
        (FakeReply.json({"placement": 2}), "unparseable", "choice schema"),
        (FakeReply.empty(), "empty_answer", "empty answer"),
        (FakeReply.http_error(500), "server_error", "HTTP 500"),
    ],
)
def test_unusable_answers_fall_back_to_the_first_legal_placement_and_are_recorded(
    server: FakeOpenAIServer, reply: FakeReply, kind: str, needle: str
) -> None:
    server.enqueue(reply)
    decision = _choose(server)
    assert decision.fallback and decision.error_kind == kind and needle in (decision.error or "")
    first = int(enumerate_candidates(_board(), 2).actions[0])
    assert decision.action == first == first_legal_action(_board(), 2)
    assert first != bcts_action(_board(), 2)  # the two rules differ on this board


def test_fallback_to_bcts_only_when_asked(server: FakeOpenAIServer) -> None:
    server.enqueue(FakeReply.text("?"))
    decision = _choose(server, PlayerSettings(fallback="bcts", show="moves"))
    assert decision.fallback and decision.error_kind == "unparseable"
    assert decision.action == bcts_action(_board(), 2)
    # "moves" draws the board once, not one picture per placement.
    assert user_text(server.chat_requests()[0]).count("+----------+") == 1


@pytest.mark.parametrize(
    ("rule", "games", "cap"), [("first_legal", FIRST_LEGAL_GAMES, FIRST_LEGAL_CAP), ("bcts", 2, 12)]
)
def test_player_follows_the_target_protocol(
    server: FakeOpenAIServer, rule: Fallback, games: int, cap: int
) -> None:
    # A model that never answers usably plays the fallback rule's moves: the games must then be
    # exactly the protocol's games of that policy (same keys, pieces, caps).
    server.set_responder(lambda body: FakeReply.text("no"))

    async def run() -> dict[str, Any]:
        config = LLMConfig(base_url=server.base_url, model=server.model, max_retries=0,
                           max_concurrency=2)  # fmt: skip
        async with LLMClient(config) as client:
            player = LLMPlayer(client, PlayerSettings(fallback=rule))
            return await evaluate_player(player, games=games, max_pieces=cap, seed=0)

    played = asyncio.run(run())
    reference = _reference(rule, games, cap)
    assert played["per_game_lines"] == reference["per_game_lines"]
    assert played["pieces"] == reference["pieces"] and played["capped"] == reference["capped"]
    assert played["policy"] == f"llm (fallback: {rule})"
    llm = played["llm"]
    moves = round(games * reference["pieces"]["mean"])  # one move per piece placed
    assert llm["fallback_rule"] == rule and llm["settings"]["fallback"] == rule
    assert llm["moves"] == llm["fallbacks"] == moves and sum(llm["per_game_fallbacks"]) == moves
    assert llm["model_moves"] == 0 and llm["model_share"] == 0.0 and llm["fallback_share"] == 1.0
    assert llm["errors"] == {"unparseable": moves} and llm["no_legal_placement"] == 0


def _eval_cli(server: FakeOpenAIServer, *args: str) -> str:
    result = CliRunner().invoke(app, [
        "tetris", "eval", "--policy", "llm", "--llm-url", server.base_url,
        "--llm-model", server.model, *args,
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    return result.output


def test_tetris_eval_policy_llm_cli(server: FakeOpenAIServer) -> None:
    server.set_responder(lambda body: FakeReply.json({"choice": 1}))
    report = json.loads(_eval_cli(server, "--games", "1", "--max-pieces", "3", "--json"))
    assert report["policy"] == "llm (fallback: first_legal)" and report["llm"]["moves"] == 3
    assert report["llm"]["fallbacks"] == 0 and report["pieces"]["mean"] == 3
    assert report["llm"]["model_moves"] == 3 and report["llm"]["model_share"] == 1.0
    missing = CliRunner().invoke(app, ["tetris", "eval", "--policy", "llm"],
                                 env={"DICODE_LLM_URL": "", "DICODE_LLM_MODEL": ""})  # fmt: skip
    assert missing.exit_code != 0 and "DICODE_LLM_URL" in missing.output
    unknown = CliRunner().invoke(app, [
        "tetris", "eval", "--policy", "llm", "--llm-url", server.base_url,
        "--llm-model", server.model, "--llm-fallback", "random",
    ])  # fmt: skip
    assert unknown.exit_code != 0 and "unknown fallback rule 'random'" in unknown.output


def test_garbage_answers_score_what_first_legal_scores(server: FakeOpenAIServer) -> None:
    # The acceptance check: over real HTTP, a model that only answers garbage (prose, numbers
    # off the list, the wrong field, cut-off JSON, empty answers, HTTP 500 after the retry) is
    # credited with nothing: every move falls back to the first legal placement, and the games
    # are --policy first_legal's under the same protocol settings.
    server.set_responder(garbage_responder)
    games, cap = str(FIRST_LEGAL_GAMES), str(FIRST_LEGAL_CAP)
    protocol = ["--games", games, "--max-pieces", cap, "--seed", "0"]
    report = json.loads(_eval_cli(server, *protocol, "--json"))
    reference = _reference("first_legal", FIRST_LEGAL_GAMES, FIRST_LEGAL_CAP)
    assert report["policy"] == "llm (fallback: first_legal)"
    assert report["per_game_lines"] == reference["per_game_lines"]
    assert report["lines"] == reference["lines"] and report["pieces"] == reference["pieces"]
    assert report["capped"] == reference["capped"]
    llm = report["llm"]
    assert llm["fallback_rule"] == "first_legal" and llm["moves"] > 0
    assert llm["fallbacks"] == llm["moves"] and llm["model_moves"] == 0
    assert llm["fallback_share"] == 1.0 and llm["model_share"] == 0.0
    assert sum(llm["errors"].values()) == llm["moves"]
    assert set(llm["errors"]) <= {"unparseable", "out_of_range", "empty_answer", "server_error"}
    assert len(llm["errors"]) >= 3  # the garbage comes in several kinds, each counted

    text = " ".join(_eval_cli(server, "--games", "1", "--max-pieces", "40").split())
    assert "llm (fallback: first_legal): 1 games" in text
    assert "fallback rule: first_legal" in text and "the model decided 0 (0.0%)" in text
    assert "the first_legal fallback" in text and "(100.0%)" in text


def test_bcts_fallback_is_explicit_and_labelled(server: FakeOpenAIServer) -> None:
    server.set_responder(garbage_responder)
    protocol = ["--games", "1", "--max-pieces", "6", "--llm-fallback", "bcts"]
    report = json.loads(_eval_cli(server, *protocol, "--json"))
    assert report["policy"] == "llm (fallback: bcts)" and report["llm"]["fallback_rule"] == "bcts"
    assert report["llm"]["fallback_share"] == 1.0 and report["llm"]["model_moves"] == 0
    # (That these are exactly the protocol's BCTS games is test_player_follows_the_target_protocol.)
    text = " ".join(_eval_cli(server, *protocol).split())
    assert "llm (fallback: bcts)" in text and "fallback rule: bcts" in text
    assert "the bcts fallback 6 (100.0%)" in text
