"""The LLM teacher on Craftax: Craftax prompts, fake OpenAI server, the real Craftax sandbox."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from dicode import domains
from dicode.domains.api_docs import public_methods
from dicode.domains.craftax.builder import CraftaxLevel
from dicode.domains.craftax.rules import RULES
from dicode.domains.craftax.seed_levels import SEED_LEVEL_NAMES, seed_level_source
from dicode.levels.verdict import Verdict
from dicode.llm.client import LLMClient, LLMConfig
from dicode.teachers.base import (
    ExampleLevel,
    MutationInstruction,
    ParentLevel,
    PerformanceProfile,
    TeacherRequest,
    TeacherResult,
)
from dicode.teachers.llm_teacher import LLMTeacher, LLMTeacherSettings
from dicode.teachers.prompts import load_prompts, render_system_prompt
from dicode.teachers.validation import SandboxValidate, sandbox_validator
from services.teach_cli import level_description
from tests.support.fake_openai import FakeOpenAIServer, FakeReply

DESCRIPTION = {
    "reasoning": "The student collects wood reliably; ask for the table and a pickaxe next.",
    "title": "Wood to pickaxe",
    "description": "Objective: place_table, make_wood_pickaxe. Start with 1 wood, 3 trees near.",
}
GOOD = '''"""Wood to pickaxe: place a crafting table and make a wood pickaxe.

Objective: unlock place_table and make_wood_pickaxe. Start holding 1 wood with three trees
within three steps of the player. Normal rules.
"""


def build(level, rng):
    level.set_inventory(wood=1)
    level.place_near_player("tree", count=3, max_distance=3)
    level.set_goal("place_table", "make_wood_pickaxe")
'''
# Holding wood already grants collect_wood, so the builder refuses it as a goal.
GRANTED_GOAL = GOOD.replace('"place_table", "make_wood_pickaxe"', '"collect_wood", "place_table"')
RUNNER_METHODS = ("finish", "to_arrays")


@pytest.fixture(scope="module")
def validate() -> Iterator[SandboxValidate]:
    validator = sandbox_validator(domains.get("craftax"), pool_size=4, warm=1, rollouts=False)
    yield validator
    validator.close()


def examples() -> tuple[ExampleLevel, ...]:
    return tuple(
        ExampleLevel(level_description(seed_level_source(n)), seed_level_source(n), n)
        for n in SEED_LEVEL_NAMES
    )


def teacher_for(server: FakeOpenAIServer, validate: SandboxValidate) -> LLMTeacher:
    config = LLMConfig(base_url=server.base_url, model=server.model, timeout_s=5.0, max_retries=1)
    prompts = load_prompts(domains.get("craftax"))
    return LLMTeacher(
        LLMClient(config), validate, prompts, render_system_prompt(prompts), LLMTeacherSettings()
    )


def propose(teacher: LLMTeacher) -> TeacherResult:
    source = seed_level_source("collect_basics")
    parent = ParentLevel(
        level_description(source), source, PerformanceProfile((0.6, 0.9)), "collect_basics"
    )
    request = TeacherRequest.for_parent(parent, PerformanceProfile((0.0,)), examples(), seed=3)

    async def go() -> TeacherResult:
        try:
            return await teacher.propose(request)
        finally:
            await teacher.aclose()

    return asyncio.run(go())


def test_a_craftax_level_from_the_model_passes_the_real_sandbox(
    server: FakeOpenAIServer, validate: SandboxValidate
) -> None:
    server.enqueue(FakeReply.json(DESCRIPTION), FakeReply.text(f"Here:\n```python\n{GOOD}```"))
    result = propose(teacher_for(server, validate))

    assert result.accepted, result.error
    assert result.instruction is MutationInstruction.HARDER  # parent SR 0.9 → status A
    assert result.code == GOOD and result.rounds[0].extraction == "fence"
    assert isinstance(result.verdict, Verdict) and result.verdict.bundle is not None
    assert result.verdict.bundle.domain == "craftax"
    assert set(result.verdict.bundle.goal) == {"place_table", "make_wood_pickaxe"}
    first, second = server.chat_requests()
    system, user = first["messages"][0]["content"], first["messages"][1]["content"]
    assert "plays Craftax" in system and "level.add_mobs_near_player(" in system
    assert "harder" in user and "toward the" in user  # the Craftax instruction hint
    titles = [level_description(seed_level_source(n)).splitlines()[0] for n in SEED_LEVEL_NAMES]
    assert any(title in user for title in titles)  # seed levels serve as examples
    assert "def build(level, rng):" in second["messages"][1]["content"]


def test_a_rejected_craftax_level_is_repaired_from_the_sandbox_error(
    server: FakeOpenAIServer, validate: SandboxValidate
) -> None:
    server.enqueue(
        FakeReply.json(DESCRIPTION),
        FakeReply.text(f"<code>{GRANTED_GOAL}</code>"),
        FakeReply.text(f"<code>{GOOD}</code>"),
    )
    result = propose(teacher_for(server, validate))

    assert result.accepted, result.error
    assert [(r.accepted, r.stage) for r in result.rounds] == [
        (False, "sandbox_build"), (True, None)
    ]  # fmt: skip
    repair = server.chat_requests()[2]["messages"][-1]["content"]
    assert "sandbox_build" in repair and "collect_wood" in repair and "already unlocked" in repair


def test_the_craftax_prompt_documents_the_builder_from_its_source(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prompts = load_prompts(domains.get("craftax"))
    assert set(prompts.instruction_hints) == set(MutationInstruction)
    system = render_system_prompt(prompts)
    assert "$" not in system.replace("$builder_api", "")  # every placeholder filled
    for name in public_methods(CraftaxLevel, skip=RUNNER_METHODS):
        assert f"level.{name}" in system, name
    assert "level.finish" not in system and "level.to_arrays" not in system
    assert "level.set_goal(*achievements: str) -> None" in system
    for name, rule in RULES.items():
        assert f"{name} in [{rule.low:g}, {rule.high:g}]" in system
    assert "defeat_necromancer" in system and "8: enter_fire_realm" in system

    # Generated, not copied: a method added to the builder shows up with its docstring.
    def light_beacon(self: CraftaxLevel, row: int, col: int) -> None:
        """Light a beacon at ``(row, col)``."""

    monkeypatch.setattr(CraftaxLevel, "light_beacon", light_beacon, raising=False)
    system = render_system_prompt(prompts)
    assert "level.light_beacon(row: int, col: int) -> None" in system
    assert "Light a beacon at ``(row, col)``." in system
