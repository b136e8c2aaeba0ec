"""The fake OpenAI server for judge tests (scripted judges: ``tests.support.judge_responders``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.fake_openai import FakeOpenAIServer


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(model="fake-judge") as fake:
        yield fake
