"""Protocol helpers, prompt templates and example retrieval."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from dicode import domains
from dicode.llm.client import LLMClient, LLMConfig
from dicode.settings import GeneratorSettings
from dicode.teachers import make_teacher, teacher_names
from dicode.teachers.base import (
    TARGET_PARENT_LABEL,
    ExampleLevel,
    MutationInstruction,
    ParentKind,
    ParentLevel,
    PerformanceProfile,
    TeacherRequest,
    TeacherResult,
    instruction_for_status,
    ladder_instruction,
)
from dicode.teachers.examples import ExampleRetriever, lexical_similar
from dicode.teachers.prompts import PromptError, PromptTemplate, load_prompts
from dicode.teachers.registry import TeacherContext
from tests.support.fake_openai import FakeOpenAIServer, FakeReply

LEVELS = [
    ExampleLevel("Clear 4 lines with a deep well in column 9 and 8 garbage rows.", "w", "well"),
    ExampleLevel("Survive 100 pieces; only S and Z pieces are dealt.", "sz", "sz"),
    ExampleLevel("Empty board, standard game, uniform pieces.", "std", "std"),
]


@pytest.mark.parametrize(
    ("status", "instruction"),
    [("A", "harder"), ("B", "vary"), ("C", "vary"), ("D", "easier"), ("a", "harder")],
)
def test_instruction_follows_the_status_letter(status: str, instruction: str) -> None:
    assert instruction_for_status(status) == MutationInstruction(instruction)


def test_unknown_status_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown status letter 'E'"):
        instruction_for_status("E")


def test_request_instruction_comes_from_the_latest_success_rate() -> None:
    def request(history: tuple[float, ...]) -> TeacherRequest:
        parent = ParentLevel("d", "c", PerformanceProfile(history))
        return TeacherRequest.for_parent(parent, PerformanceProfile())

    assert request((0.1, 0.9)).instruction is MutationInstruction.HARDER
    assert request((0.9, 0.1)).instruction is MutationInstruction.EASIER
    assert request(()).instruction is MutationInstruction.EASIER  # never played: D


@pytest.mark.parametrize(
    ("success", "band", "instruction"),
    [
        (0.65, 0.15, "harder"), (0.9, 0.15, "harder"), (0.64, 0.15, "vary"), (0.5, 0.15, "vary"),
        (0.36, 0.15, "vary"), (0.35, 0.15, "easier"), (0.0, 0.15, "easier"),
        (0.55, 0.05, "harder"), (0.45, 0.05, "easier"), (0.9, 0.5, "vary"), (1.0, 0.5, "harder"),
        (None, 0.15, "vary"),
    ],
)  # fmt: skip
def test_the_ladder_steps_by_success_against_one_half(
    success: float | None, band: float, instruction: str
) -> None:
    assert ladder_instruction(success, band) is MutationInstruction(instruction)


@pytest.mark.parametrize("band", [0.0, -0.1, 0.51])
def test_the_ladders_band_is_checked(band: float) -> None:
    with pytest.raises(ValueError, match="band must lie in"):
        ladder_instruction(0.5, band)


def test_a_request_on_the_ladder_reads_the_latest_success() -> None:
    def request(history: tuple[float, ...]) -> MutationInstruction:
        parent = ParentLevel("d", "c", PerformanceProfile(history))
        return TeacherRequest.for_parent(parent, PerformanceProfile(), ladder_band=0.15).instruction

    assert request((0.1, 0.7)) is MutationInstruction.HARDER  # status B would say vary
    assert request((0.9, 0.3)) is MutationInstruction.EASIER  # status C would say vary
    assert request(()) is MutationInstruction.VARY  # never played: nothing says which way


@pytest.mark.parametrize(
    ("values", "message"),
    [({"target_aim": 1.5}, "target_aim is a share"), ({"target_aim": -0.1}, "target_aim"),
     ({"ladder_band": 0.0}, "ladder_band must lie"), ({"ladder_band": 0.6}, "ladder_band")],
)  # fmt: skip
def test_generator_settings_check_the_aim_and_the_band(
    values: dict[str, float], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        GeneratorSettings(**values)  # type: ignore[arg-type]
    assert GeneratorSettings().target_aim == 0.0  # DiCode as published by default


def test_a_target_derived_parent_is_said_in_the_record() -> None:
    parent = ParentLevel("d", "c", kind=ParentKind.TARGET)
    request = TeacherRequest(parent, PerformanceProfile(), MutationInstruction.EASIER)
    result = TeacherResult.for_request("mutation", request)
    result.reasoning = "start nearer"
    result.note_parent()
    assert result.parent_id is None and result.to_record()["parent_kind"] == "target"
    assert result.reasoning.startswith(TARGET_PARENT_LABEL) and result.reasoning.endswith("nearer")
    archive = TeacherResult.for_request("mutation", TeacherRequest.for_parent(
        ParentLevel("d", "c", level_id="7"), PerformanceProfile()))  # fmt: skip
    archive.note_parent()
    assert archive.reasoning is None and archive.to_record()["parent_kind"] == "archive"


def test_every_worlds_description_prompt_says_what_a_target_derived_parent_is() -> None:
    for name in ("tetris", "craftax", "maze"):  # the library's worlds and their prompts
        text = load_prompts(domains.get(name)).description.text
        assert f'"{TARGET_PARENT_LABEL}" is no archive level' in text, name


def test_profile_summary_and_empty_record_are_readable() -> None:
    profile = PerformanceProfile.from_dict(
        {"success_rate_history": [0.25, 0.5], "goal_metrics": {"mean_lines": 7}}
    )
    assert "0.25, 0.50" in profile.summary() and "mean_lines: 7" in profile.summary()
    assert PerformanceProfile().summary() == "no training data yet"
    record = TeacherResult("llm", MutationInstruction.VARY).to_record()
    assert json.loads(json.dumps(record))["accepted"] is False


def test_templates_demand_every_placeholder() -> None:
    template = PromptTemplate("t", "parent: $parent, code: {braces} stay")
    assert template.render(parent="P") == "parent: P, code: {braces} stay"
    with pytest.raises(PromptError, match=r"needs a value for \$parent"):
        template.render()


def test_tetris_prompts_load_and_render(tmp_path: Path) -> None:
    prompts = load_prompts(domains.get("tetris"))
    assert set(prompts.instruction_hints) == set(MutationInstruction)
    text = prompts.repair.render(stage="syntax", error="line 3: invalid syntax")
    assert "line 3: invalid syntax" in text and "<code>" in text
    with pytest.raises(PromptError, match="no prompt templates for world 'tetris'"):
        load_prompts(domains.get("tetris"), root=tmp_path)
    (tmp_path / "tetris").mkdir()
    with pytest.raises(PromptError, match="missing prompt template"):
        load_prompts(domains.get("tetris"), root=tmp_path)


def test_prompts_are_found_through_the_world(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A world's templates come from its own object: the library's from dicode/prompts/<world>/,
    a world package with a prompts/ folder from there, $DICODE_PROMPTS_DIR before both."""
    from dicode.domains.folder import WorldFolder
    from dicode.teachers.prompts import ENV_PROMPTS_DIR, prompts_root

    monkeypatch.delenv(ENV_PROMPTS_DIR, raising=False)
    assert domains.get("maze").prompt_folder() == prompts_root() / "maze"
    package = tmp_path / "outside_world"
    (package / "prompts").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))

    class OutsideWorld(WorldFolder):
        name = "outside_world"
        package = "outside_world"

    world = OutsideWorld()
    assert world.prompt_folder() == package / "prompts"
    with pytest.raises(PromptError, match="missing prompt template"):
        load_prompts(world)  # type: ignore[arg-type]  # its prompts/ folder is empty
    monkeypatch.setenv(ENV_PROMPTS_DIR, str(tmp_path / "override"))
    assert world.prompt_folder() == tmp_path / "override" / "outside_world"


def test_lexical_retrieval_finds_the_closest_description() -> None:
    chosen = lexical_similar("a level with a deep well in column 9", LEVELS, k=2)
    assert chosen[0].level_id == "well"
    assert lexical_similar("anything", [], k=3) == []


def test_embedding_retrieval_and_its_fallback() -> None:
    with FakeOpenAIServer() as server:
        base = {"base_url": server.base_url, "model": server.model, "max_retries": 0}

        async def go(config: LLMConfig) -> tuple[str, str | None, str | None]:
            async with LLMClient(config) as client:
                got = await ExampleRetriever(client).similar("only S and Z pieces", LEVELS, 1)
                return got.method, got.examples[0].level_id, got.note

        method, best, note = asyncio.run(go(LLMConfig(**base, embedding_model="embed")))
        assert (method, best, note) == ("embedding", "sz", None)
        assert server.requests[-1].path == "/v1/embeddings"
        method, _, _ = asyncio.run(go(LLMConfig(**base)))
        assert method == "lexical"

    with FakeOpenAIServer() as down:
        url = down.base_url
    config = LLMConfig(base_url=url, model="m", embedding_model="e", max_retries=0)
    method, best, note = asyncio.run(go(config))
    assert (method, best) == ("lexical", "sz") and note and "embedding endpoint failed" in note


def test_registry_names_and_unknown_teacher() -> None:
    assert "llm" in teacher_names()
    with pytest.raises(ValueError, match="unknown teacher 'oracle'; known teachers: "):
        tetris = domains.get("tetris")
        make_teacher("oracle", TeacherContext(tetris, validate=lambda s: None))  # type: ignore


def test_fake_server_rejects_malformed_response_format() -> None:
    with FakeOpenAIServer() as server:
        server.enqueue(FakeReply.text("never sent"))
        config = LLMConfig(base_url=server.base_url, model=server.model, max_retries=0)

        async def go() -> str | None:
            async with LLMClient(config) as client:
                bad = {"type": "json_schema", "json_schema": {"schema": {}}}
                result = await client.chat([{"role": "user", "content": "x"}], response_format=bad)
                return result.error

        error = asyncio.run(go())
        assert error and "HTTP 400" in error and "json_schema.name is required" in error
