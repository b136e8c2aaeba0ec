"""Shared fixtures for the teacher tests: a fake OpenAI server, real seed levels, the sandbox."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from dicode.teachers.base import ExampleLevel, ParentLevel, PerformanceProfile
from dicode.testing.fake_openai import FakeOpenAIServer

SEED_DIR = Path(__file__).resolve().parents[2] / "dicode" / "domains" / "tetris" / "seed_levels"


def module_docstring(source: str) -> str:
    """The level's description without running it (the docstring is the first literal)."""
    import ast

    return ast.get_docstring(ast.parse(source)) or ""


def seed_levels() -> list[ExampleLevel]:
    paths = sorted(p for p in SEED_DIR.glob("*.py") if not p.name.startswith("_"))
    return [
        ExampleLevel(module_docstring(p.read_text()), p.read_text(), p.stem) for p in paths
    ]


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
def seeds() -> list[ExampleLevel]:
    levels = seed_levels()
    assert len(levels) >= 2, f"expected Tetris seed levels in {SEED_DIR}"
    return levels


@pytest.fixture
def parent(seeds: list[ExampleLevel]) -> ParentLevel:
    first = seeds[0]
    profile = PerformanceProfile((0.5, 0.7, 0.8), {"mean_lines": 12.0})
    return ParentLevel(first.description, first.code, profile, first.level_id)
