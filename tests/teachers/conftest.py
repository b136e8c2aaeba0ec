"""Shared fixtures for the teacher tests: a fake OpenAI server and small, valid Tetris levels."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from dicode.teachers.base import ExampleLevel, ParentLevel, PerformanceProfile
from tests.support.fake_openai import FakeOpenAIServer

LEVEL_DIR = Path(__file__).resolve().parent / "levels"


def module_docstring(source: str) -> str:
    """The level's description without running it (the docstring is the first literal)."""
    import ast

    return ast.get_docstring(ast.parse(source)) or ""


def load_levels() -> list[ExampleLevel]:
    paths = sorted(LEVEL_DIR.glob("*.py"))
    return [
        ExampleLevel(module_docstring(p.read_text()), p.read_text(), p.stem) for p in paths
    ]


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
def seeds() -> list[ExampleLevel]:
    return load_levels()


@pytest.fixture
def parent(seeds: list[ExampleLevel]) -> ParentLevel:
    first = seeds[0]
    profile = PerformanceProfile((0.5, 0.7, 0.8), {"mean_lines": 12.0})
    return ParentLevel(first.description, first.code, profile, first.level_id)
