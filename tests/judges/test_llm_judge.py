"""LLM judges over the fake OpenAI server: request shape, answers, bad answers, timeouts."""

from __future__ import annotations

import asyncio
import base64
import io
import json

import numpy as np
import pytest
from PIL import Image

from dicode.domains.tetris.judges.base import Outcome, Placement
from dicode.domains.tetris.judges.benchmark import outcome_of
from dicode.domains.tetris.judges.candidates import enumerate_candidates
from dicode.domains.tetris.judges.llm_judge import LLMJudge
from dicode.llm.client import LLMClient, LLMConfig
from tests.support.fake_openai import FakeOpenAIServer, FakeReply
from tests.support.judge_responders import boards_in, user_text


def _outcomes() -> tuple[Outcome, Outcome]:
    board = np.zeros((20, 10), np.uint8)
    board[0, :9] = 1
    board[1, 2:6] = 1
    candidates = enumerate_candidates(board, 0)  # an I piece
    return outcome_of(candidates, 0, 2), outcome_of(candidates, len(candidates) - 1, 2)


def _judge(server: FakeOpenAIServer, **kwargs: object) -> tuple[LLMJudge, LLMClient]:
    timeout = float(kwargs.pop("timeout_s", 5.0))  # type: ignore[arg-type]
    config = LLMConfig(base_url=server.base_url, model=server.model, timeout_s=timeout,
                       max_retries=0)  # fmt: skip
    client = LLMClient(config)
    return LLMJudge(client, **kwargs), client  # type: ignore[arg-type]


async def _score(server: FakeOpenAIServer, outcome: Outcome, **kwargs: object):  # type: ignore[no-untyped-def]
    judge, client = _judge(server, **kwargs)
    async with client:
        return await judge.score(outcome)


def test_text_judge_sends_boards_as_characters_under_json_schema(server: FakeOpenAIServer) -> None:
    first, _ = _outcomes()
    server.enqueue(FakeReply.json({"score": 0.25, "suggested_rotation": 1, "suggested_column": 3}))
    verdict = asyncio.run(_score(server, first))
    assert verdict.ok and verdict.score == 0.25
    assert verdict.suggestion == Placement(1, 3)
    body = server.chat_requests()[0]
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema"
    assert set(fmt["json_schema"]["schema"]["required"]) == {
        "score",
        "suggested_rotation",
        "suggested_column",
    }
    before, after = boards_in(user_text(body))
    rows = before.shape[0]
    np.testing.assert_array_equal(before, first.before[:rows])
    np.testing.assert_array_equal(after, first.after[:rows])
    assert "@" in user_text(body)  # the piece just placed is marked
    assert body["temperature"] == 0.0


def test_image_judge_sends_png_data_urls(server: FakeOpenAIServer) -> None:
    first, _ = _outcomes()
    server.enqueue(FakeReply.json({"score": -0.5, "suggested_rotation": 0, "suggested_column": 0}))
    verdict = asyncio.run(_score(server, first, view="image"))
    assert verdict.score == -0.5
    parts = server.chat_requests()[0]["messages"][-1]["content"]
    urls = [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
    assert len(urls) == 2 and all(u.startswith("data:image/png;base64,") for u in urls)
    image = Image.open(io.BytesIO(base64.b64decode(urls[1].split(",", 1)[1])))
    assert image.format == "PNG" and image.size == (10 * 16 + 1, 20 * 16 + 1)


@pytest.mark.parametrize(
    ("reply", "needle"),
    [
        (FakeReply.text("The board looks fine to me."), "invalid JSON"),
        (
            FakeReply.json({"score": 3.0, "suggested_rotation": 0, "suggested_column": 0}),
            "less than or equal to 1",
        ),
        (FakeReply.json({"score": 0.1}), "suggested_rotation"),
        (FakeReply.json([0.1]), "expected a JSON object"),
    ],
)
def test_unusable_answers_are_invalid_answer_errors(
    server: FakeOpenAIServer, reply: FakeReply, needle: str
) -> None:
    server.enqueue(reply)
    verdict = asyncio.run(_score(server, _outcomes()[0]))
    assert not verdict.ok and verdict.score is None
    assert verdict.error_kind == "invalid_answer"
    assert needle in (verdict.error or "")
    assert verdict.raw is not None  # the answer is kept for the record


def test_a_suggestion_off_the_board_is_dropped_but_the_score_kept(
    server: FakeOpenAIServer,
) -> None:
    server.enqueue(FakeReply.json({"score": 0.1, "suggested_rotation": 7, "suggested_column": 12}))
    verdict = asyncio.run(_score(server, _outcomes()[0]))
    assert verdict.score == 0.1 and verdict.suggestion is None
    assert "outside" in (verdict.suggestion_note or "")


def test_timeouts_and_server_errors_are_recorded_not_raised(server: FakeOpenAIServer) -> None:
    server.enqueue(FakeReply.slow(json.dumps({"score": 0.0}), delay_s=2.0))
    verdict = asyncio.run(_score(server, _outcomes()[0], timeout_s=0.3))
    assert verdict.error_kind == "timeout" and verdict.score is None
    server.enqueue(FakeReply.http_error(503, "overloaded"))
    verdict = asyncio.run(_score(server, _outcomes()[0]))
    assert verdict.error_kind == "server_error" and "overloaded" in (verdict.error or "")


def test_pairwise_answers_map_to_the_order_shown(server: FakeOpenAIServer) -> None:
    first, second = _outcomes()
    server.enqueue(FakeReply.json({"better": "B"}), FakeReply.json({"better": "equal"}),
                   FakeReply.json({"better": "C"}))  # fmt: skip
    judge, client = _judge(server)

    async def run() -> list[object]:
        async with client:
            return [await judge.compare(first, second) for _ in range(3)]

    b, tie, bad = asyncio.run(run())
    assert b.choice == "second" and tie.choice == "tie"  # type: ignore[attr-defined]
    assert bad.choice is None and bad.error_kind == "invalid_answer"  # type: ignore[attr-defined]
    shown = boards_in(user_text(server.chat_requests()[0]))
    assert len(shown) == 3  # the board, then A and B
    np.testing.assert_array_equal(shown[1], first.after[: shown[1].shape[0]])


def test_json_object_form_for_llama_cpp_and_none_form(server: FakeOpenAIServer) -> None:
    reply = {"score": 0.0, "suggested_rotation": 0, "suggested_column": 0}
    server.enqueue(FakeReply.json(reply), FakeReply.text(f"```json\n{json.dumps(reply)}\n```"))
    assert asyncio.run(_score(server, _outcomes()[0], structured="json_object")).ok
    assert asyncio.run(_score(server, _outcomes()[0], structured="none")).ok
    first, second = server.chat_requests()
    assert first["response_format"]["type"] == "json_object"
    assert "score" in first["response_format"]["schema"]["properties"]
    assert "response_format" not in second
