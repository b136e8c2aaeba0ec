"""Scripted judges for the fake OpenAI server (tests and benchmarks): they answer over HTTP.

- ``collapsed_responder``: the field report's judge — −0.8 mostly, −0.7 sometimes, chosen by a
  hash of the prompt, unrelated to the board;
- ``good_responder``: reads the boards back out of the text prompt and scores the board after
  with a crude hand-made value (holes, height, bumpiness), or compares A and B with it;
- ``garbage_responder``: an LLM player that never answers usably (prose, numbers off the list,
  the wrong field, cut-off JSON, empty answers, HTTP 500), chosen by a hash of the prompt.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import numpy as np

from tests.support.fake_openai import FakeReply

_BOARD_LINE = re.compile(r"^\|([#.@]+)\|$")


def user_text(body: dict[str, Any]) -> str:
    """The user message's text (text parts joined for multi-part messages)."""
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "\n".join(part["text"] for part in content if part["type"] == "text")


def boards_in(text: str) -> list[np.ndarray]:
    """Every ASCII board drawn in a prompt, as arrays with row 0 at the bottom."""
    boards: list[np.ndarray] = []
    rows: list[str] = []
    for line in text.splitlines():
        match = _BOARD_LINE.match(line.strip())
        if match:
            rows.append(match.group(1))
        elif rows:
            boards.append(np.array([[c != "." for c in row] for row in rows[::-1]], np.uint8))
            rows = []
    return boards


def crude_value(board: np.ndarray) -> float:
    """A quick hand-made value (holes, height, bumpiness): what a decent judge might compute."""
    filled = board > 0
    heights = np.array([np.flatnonzero(col).max() + 1 if col.any() else 0 for col in filled.T])
    holes = sum(int((~filled[: h, c]).sum()) for c, h in enumerate(heights))
    bumpiness = int(np.abs(np.diff(heights)).sum())
    return -(0.5 * holes + 0.1 * heights.sum() / len(heights) + 0.05 * bumpiness)


def good_responder(body: dict[str, Any]) -> FakeReply:
    """Scores the board after (the last board in the prompt) with ``crude_value``."""
    text = user_text(body)
    boards = boards_in(text)
    if "A (" in text:  # pairwise prompt: boards are before, A, B
        a, b = crude_value(boards[1]), crude_value(boards[2])
        return FakeReply.json({"better": "A" if a > b else "B" if b > a else "equal"})
    x = crude_value(boards[-1])
    return FakeReply.json({"score": x / (1 + abs(x)), "suggested_rotation": 0,
                           "suggested_column": 4})  # fmt: skip


def collapsed_responder(body: dict[str, Any]) -> FakeReply:
    """The field report's judge: −0.8 mostly, −0.7 sometimes, unrelated to the board."""
    digest = hashlib.sha256(user_text(body).encode()).digest()
    score = -0.7 if digest[0] % 4 == 0 else -0.8
    return FakeReply.json({"score": score, "suggested_rotation": 0, "suggested_column": 4})


def garbage_responder(body: dict[str, Any]) -> FakeReply:
    """A player that never gives a usable answer; the kind of garbage follows the prompt's hash."""
    digest = hashlib.sha256(user_text(body).encode()).digest()
    replies = (
        FakeReply.text("I would put it on the left, it looks nice there"),
        FakeReply.json({"choice": 0}),  # the list starts at 1
        FakeReply.json({"choice": 999}),
        FakeReply.json({"placement": 1}),  # the wrong field
        FakeReply.text('{"choice": '),  # cut off
        FakeReply.empty(),
        FakeReply.http_error(500),
    )
    return replies[digest[0] % len(replies)]
