"""The LLM teacher end to end: fake OpenAI server over HTTP, the real sandbox for verdicts."""

from __future__ import annotations

import ast
import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dicode import domains
from dicode.llm.client import LLMClient, LLMConfig
from dicode.teachers.base import (
    TARGET_PARENT_LABEL,
    ExampleLevel,
    MutationInstruction,
    ParentKind,
    ParentLevel,
    PerformanceProfile,
    TeacherRequest,
    TeacherResult,
    Validate,
)
from dicode.teachers.llm_teacher import LLMTeacher, LLMTeacherSettings
from dicode.teachers.prompts import load_prompts, render_system_prompt
from dicode.teachers.validation import sandbox_validator
from tests.support.fake_openai import FakeOpenAIServer, FakeReply

DESCRIPTION = {
    "reasoning": "The student clears the parent 80% of the time; add garbage to raise the bar.",
    "title": "Parent plus garbage",
    "description": "Objective: clear 2 lines within 40 pieces. Board: 3 garbage rows, 1 hole each.",
}
TARGET = PerformanceProfile((0.0,), {"mean_lines": 3.5})


@pytest.fixture(scope="module")
def validate() -> Iterator[Validate]:
    # The real sandbox pipeline; a small pool and no engine rollouts keep the tests quick
    # (the teacher's behaviour does not depend on the rollout stage).
    validator = sandbox_validator(domains.get("tetris"), pool_size=4, warm=1, rollouts=False)
    yield validator
    validator.close()


@pytest.fixture(scope="module")
def system_prompt() -> str:
    return render_system_prompt(load_prompts(domains.get("tetris")))


def make_teacher(
    server: FakeOpenAIServer, validate: Validate, system_prompt: str, **config: Any
) -> LLMTeacher:
    settings = {
        "repair_rounds": config.pop("repair_rounds", 2),
        "description_attempts": config.pop("description_attempts", 2),
    }
    values: dict[str, Any] = {
        "base_url": server.base_url,
        "model": server.model,
        "timeout_s": 5.0,
        "max_retries": 1,
        "backoff_base_s": 0.01,
        "backoff_max_s": 0.02,
    }
    values.update(config)
    client = LLMClient(LLMConfig(**values))
    return LLMTeacher(
        client,
        validate,
        load_prompts(domains.get("tetris")),
        system_prompt,
        LLMTeacherSettings(**settings),
    )


def propose(teacher: LLMTeacher, request: TeacherRequest) -> TeacherResult:
    async def go() -> TeacherResult:
        try:
            return await teacher.propose(request)
        finally:
            await teacher.aclose()

    return asyncio.run(go())


def request_for(parent: ParentLevel, seeds: list[ExampleLevel]) -> TeacherRequest:
    return TeacherRequest.for_parent(parent, TARGET, tuple(seeds), seed=7)


def good_code(seeds: list[ExampleLevel]) -> str:
    return seeds[-1].code


def with_syntax_error(code: str) -> str:
    lines = code.splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith("def build"))
    lines[index] = lines[index].rstrip(":")  # "def build(level, rng)" without the colon
    return "\n".join(lines) + "\n"


# ---- the good path -------------------------------------------------------------------------
def test_good_answer_is_accepted_and_every_exchange_recorded(
    server: FakeOpenAIServer,
    validate: Validate,
    system_prompt: str,
    parent: ParentLevel,
    seeds: list[ExampleLevel],
) -> None:
    server.enqueue(
        FakeReply.json(DESCRIPTION), FakeReply.text(f"<code>\n{good_code(seeds)}</code>")
    )
    result = propose(make_teacher(server, validate, system_prompt), request_for(parent, seeds))

    assert result.accepted, result.error
    assert result.failing_stage is None and result.error is None
    assert result.instruction is MutationInstruction.HARDER  # parent SR 0.8 → status A
    assert result.description == DESCRIPTION["description"]
    assert result.code == good_code(seeds)
    assert [e.stage for e in result.exchanges] == ["description", "code"]
    assert result.prompt_tokens > 0 and result.completion_tokens > 0
    assert [r.accepted for r in result.rounds] == [True] and result.rounds[0].extraction == "tag"

    first, second = server.chat_requests()
    assert first["response_format"]["type"] == "json_schema"
    assert "guided_json" not in first and "guided_json" not in second
    assert (first["temperature"], first["top_p"]) == (0.6, 0.95)
    system = first["messages"][0]["content"]
    assert "Builder API" in system and "$builder_api" not in system
    assert "harder" in first["messages"][1]["content"]
    assert DESCRIPTION["description"] in second["messages"][1]["content"]
    json.dumps(result.to_record())  # the whole attempt is storable as JSON


@pytest.mark.parametrize(
    ("wrap", "method"),
    [
        (lambda code: f"Here is the level you asked for:\n\n```python\n{code}```\nEnjoy!", "fence"),
        (lambda code: f"Sure. <code>{code}</code> This adds garbage rows.", "tag"),
        (lambda code: code, "bare"),
    ],
    ids=["fenced-with-prose", "prose-around-tag", "bare"],
)
def test_answer_formats_are_extracted(
    server: FakeOpenAIServer,
    validate: Validate,
    system_prompt: str,
    parent: ParentLevel,
    seeds: list[ExampleLevel],
    wrap: Any,
    method: str,
) -> None:
    server.enqueue(FakeReply.json(DESCRIPTION), FakeReply.text(wrap(good_code(seeds))))
    result = propose(make_teacher(server, validate, system_prompt), request_for(parent, seeds))
    assert result.accepted, result.error
    assert result.rounds[0].extraction == method


# ---- the repair loop -------------------------------------------------------------------------
def test_fixable_syntax_error_is_repaired_into_an_accepted_level(
    server: FakeOpenAIServer,
    validate: Validate,
    system_prompt: str,
    parent: ParentLevel,
    seeds: list[ExampleLevel],
) -> None:
    broken = with_syntax_error(good_code(seeds))
    server.enqueue(
        FakeReply.json(DESCRIPTION),
        FakeReply.text(f"<code>{broken}</code>"),
        FakeReply.text(f"Fixed the missing colon.\n<code>{good_code(seeds)}</code>"),
    )
    result = propose(make_teacher(server, validate, system_prompt), request_for(parent, seeds))

    assert result.accepted, result.error
    assert [r.accepted for r in result.rounds] == [False, True]
    assert result.rounds[0].error and result.rounds[0].stage
    assert result.repair_rounds == 1
    assert [e.stage for e in result.exchanges] == ["description", "code", "repair-1"]
    repair_request = server.chat_requests()[2]["messages"]
    assert repair_request[-2] == {"role": "assistant", "content": f"<code>{broken}</code>"}
    assert result.rounds[0].stage in repair_request[-1]["content"]
    assert result.rounds[0].error.splitlines()[0] in repair_request[-1]["content"]


def test_unfixed_error_stops_after_the_configured_rounds(
    server: FakeOpenAIServer,
    validate: Validate,
    system_prompt: str,
    parent: ParentLevel,
    seeds: list[ExampleLevel],
) -> None:
    broken = with_syntax_error(good_code(seeds))
    server.enqueue(FakeReply.json(DESCRIPTION), *[FakeReply.text(broken)] * 2, FakeReply.text("x"))
    teacher = make_teacher(server, validate, system_prompt, repair_rounds=1)
    result = propose(teacher, request_for(parent, seeds))
    assert not result.accepted
    assert len(result.rounds) == 2 and server.pending == 1  # one repair, then it stopped
    assert result.failing_stage == result.rounds[-1].stage
    assert result.error and "sandbox rejected the level" in result.error
    assert result.code == broken


# ---- scripted failures: each recorded with a clear error -------------------------------------
def test_hostile_code_is_rejected_by_the_sandbox_and_never_runs_here(
    server: FakeOpenAIServer,
    validate: Validate,
    system_prompt: str,
    parent: ParentLevel,
    seeds: list[ExampleLevel],
    tmp_path: Path,
) -> None:
    marker = tmp_path / "pwned"
    hostile = (
        '"""Totally normal level."""\n'
        "import os\n"
        f"os.system('touch {marker}')\n"
        f"open({str(marker)!r}, 'w').write('x')\n\n"
        "def build(level, rng):\n    return level\n"
    )
    server.enqueue(FakeReply.json(DESCRIPTION), *[FakeReply.text(f"<code>{hostile}</code>")] * 3)
    result = propose(make_teacher(server, validate, system_prompt), request_for(parent, seeds))
    assert not result.accepted
    assert result.failing_stage and result.error
    assert len(result.rounds) == 3  # it asked for repairs, and kept refusing the code
    assert not marker.exists()


def test_truncated_description_json_is_explained(
    server: FakeOpenAIServer,
    validate: Validate,
    system_prompt: str,
    parent: ParentLevel,
    seeds: list[ExampleLevel],
) -> None:
    cut = json.dumps(DESCRIPTION)[:60]
    server.enqueue(*[FakeReply.text(cut, finish_reason="length")] * 2)
    result = propose(make_teacher(server, validate, system_prompt), request_for(parent, seeds))
    assert result.failing_stage == "description"
    assert result.error and "invalid JSON" in result.error and "cut off" in result.error
    assert [e.stage for e in result.exchanges] == ["description", "description-retry-1"]
    assert result.code is None and result.verdict is None


def test_description_retry_recovers_from_one_bad_answer(
    server: FakeOpenAIServer,
    validate: Validate,
    system_prompt: str,
    parent: ParentLevel,
    seeds: list[ExampleLevel],
) -> None:
    server.enqueue(
        FakeReply.text("Sure! Here's my idea: more garbage."),
        FakeReply.json(DESCRIPTION),
        FakeReply.text(f"<code>{good_code(seeds)}</code>"),
    )
    result = propose(make_teacher(server, validate, system_prompt), request_for(parent, seeds))
    assert result.accepted, result.error
    assert [e.stage for e in result.exchanges] == ["description", "description-retry-1", "code"]
    assert result.exchanges[0].error_kind == "invalid_description"
    assert "invalid JSON" in (result.exchanges[0].error or "")


def test_empty_answers_are_explained(
    server: FakeOpenAIServer,
    validate: Validate,
    system_prompt: str,
    parent: ParentLevel,
    seeds: list[ExampleLevel],
) -> None:
    server.enqueue(FakeReply.json(DESCRIPTION), FakeReply.empty())
    result = propose(make_teacher(server, validate, system_prompt), request_for(parent, seeds))
    assert result.failing_stage == "code"
    assert result.error and "empty answer" in result.error


def test_prose_without_code_goes_to_repair_with_the_reason(
    server: FakeOpenAIServer,
    validate: Validate,
    system_prompt: str,
    parent: ParentLevel,
    seeds: list[ExampleLevel],
) -> None:
    server.enqueue(
        FakeReply.json(DESCRIPTION),
        FakeReply.text("I think the level should have more garbage rows."),
        FakeReply.text(f"<code>{good_code(seeds)}</code>"),
    )
    result = propose(make_teacher(server, validate, system_prompt), request_for(parent, seeds))
    assert result.accepted
    assert result.rounds[0].stage == "code" and "no code found" in (result.rounds[0].error or "")
    assert "no code found" in server.chat_requests()[2]["messages"][-1]["content"]


def test_http_500_is_recorded_with_its_status(
    server: FakeOpenAIServer,
    validate: Validate,
    system_prompt: str,
    parent: ParentLevel,
    seeds: list[ExampleLevel],
) -> None:
    server.enqueue(*[FakeReply.http_error(500, "engine dead")] * 2)
    result = propose(make_teacher(server, validate, system_prompt), request_for(parent, seeds))
    assert result.failing_stage == "description"
    assert result.error and "HTTP 500" in result.error and "engine dead" in result.error
    assert result.exchanges[0].http_attempts == 2


def test_rate_limit_with_retry_after_is_waited_out(
    server: FakeOpenAIServer,
    validate: Validate,
    system_prompt: str,
    parent: ParentLevel,
    seeds: list[ExampleLevel],
) -> None:
    server.enqueue(
        FakeReply.json(DESCRIPTION),
        FakeReply.rate_limited(1.0),
        FakeReply.text(f"<code>{good_code(seeds)}</code>"),
    )
    result = propose(make_teacher(server, validate, system_prompt), request_for(parent, seeds))
    assert result.accepted
    times = [r.received_at for r in server.requests if r.path == "/v1/chat/completions"]
    assert times[2] - times[1] >= 1.0
    assert result.exchanges[1].http_attempts == 2


def test_answer_slower_than_the_timeout_is_a_timeout(
    server: FakeOpenAIServer,
    validate: Validate,
    system_prompt: str,
    parent: ParentLevel,
    seeds: list[ExampleLevel],
) -> None:
    server.enqueue(FakeReply.json(DESCRIPTION), FakeReply.slow("late", delay_s=3.0))
    teacher = make_teacher(server, validate, system_prompt, timeout_s=0.5, max_retries=0)
    result = propose(teacher, request_for(parent, seeds))
    assert result.failing_stage == "code"
    assert result.error and "timeout" in result.error and "no answer within 0.5 s" in result.error


def test_teacher_keeps_working_through_a_run_of_failures(
    server: FakeOpenAIServer,
    validate: Validate,
    system_prompt: str,
    parent: ParentLevel,
    seeds: list[ExampleLevel],
) -> None:
    """One teacher object, many attempts: each failure is a record; the last one succeeds."""
    server.enqueue(
        FakeReply.http_error(503),
        FakeReply.http_error(503),  # description: server down
        FakeReply.truncated_body(),  # description: broken body
        FakeReply.json(DESCRIPTION),
        FakeReply.empty(),  # code: empty
        FakeReply.json(DESCRIPTION),
        FakeReply.text(f"<code>{good_code(seeds)}</code>"),
    )
    teacher = make_teacher(server, validate, system_prompt)

    async def run_all() -> list[TeacherResult]:
        try:
            return [await teacher.propose(request_for(parent, seeds)) for _ in range(4)]
        finally:
            await teacher.aclose()

    results = asyncio.run(run_all())
    assert [r.failing_stage for r in results] == ["description", "description", "code", None]
    assert all(r.error for r in results[:3]) and results[3].accepted
    assert results[0].error and "HTTP 503" in results[0].error
    assert results[1].error and "unreadable response" in results[1].error
    assert results[2].error and "empty answer" in results[2].error


def test_broken_validator_is_recorded_as_a_sandbox_failure(
    server: FakeOpenAIServer,
    system_prompt: str,
    parent: ParentLevel,
    seeds: list[ExampleLevel],
) -> None:
    def unavailable(source: str) -> Any:
        raise OSError("sandbox worker pool is gone")

    server.enqueue(FakeReply.json(DESCRIPTION), FakeReply.text(good_code(seeds)))
    result = propose(make_teacher(server, unavailable, system_prompt), request_for(parent, seeds))
    assert result.failing_stage == "sandbox"
    assert result.error == "validator failed: OSError: sandbox worker pool is gone"


# ---- invariants ------------------------------------------------------------------------------
FORBIDDEN_CALLS = {
    "exec",
    "eval",
    "compile",
    "__import__",
    "import_module",
    "run_path",
    "exec_module",
    "spec_from_file_location",
}


def called_names(source: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Name):
            names.add(node.func.id)
        elif isinstance(node.func, ast.Attribute):
            receiver = node.func.value
            if not (isinstance(receiver, ast.Name) and receiver.id == "re"):  # re.compile is fine
                names.add(node.func.attr)
    return names


@pytest.mark.parametrize("module", ["llm_teacher.py", "extract.py", "examples.py", "base.py"])
def test_teacher_path_never_executes_generated_code(module: str) -> None:
    source = (Path(__file__).resolve().parents[2] / "dicode" / "teachers" / module).read_text()
    assert not called_names(source) & FORBIDDEN_CALLS
    detector_works = called_names("exec(code)\nimportlib.import_module(m)") & FORBIDDEN_CALLS
    assert detector_works == {"exec", "import_module"}


def test_repair_call_failure_keeps_the_rejection_it_was_fixing(
    server: FakeOpenAIServer,
    validate: Validate,
    system_prompt: str,
    parent: ParentLevel,
    seeds: list[ExampleLevel],
) -> None:
    broken = with_syntax_error(good_code(seeds))
    server.enqueue(
        FakeReply.json(DESCRIPTION), FakeReply.text(broken), *[FakeReply.http_error(502)] * 2
    )
    result = propose(make_teacher(server, validate, system_prompt), request_for(parent, seeds))
    assert result.failing_stage == "syntax"
    assert result.error and "sandbox rejected the level at stage 'syntax'" in result.error
    assert "then repair-1 stage: model call failed (server_error)" in result.error


# ---- the skill instruction -------------------------------------------------------------------
def test_the_prompt_shows_the_targets_skill_profile_and_the_skill_to_teach(
    server: FakeOpenAIServer,
    validate: Validate,
    system_prompt: str,
    parent: ParentLevel,
    seeds: list[ExampleLevel],
) -> None:
    figures = {
        "mean_lines": 40.0, "topout_height": 13.5, "topout_holes": 7.0,
        "skills": {"survive_250": 0.6, "survive_500": 0.2, "survive_1000": 0.0,
                   "clear_double": 0.12, "clear_triple": 0.02, "clear_tetris": 0.0},
    }  # fmt: skip
    tetris = domains.get("tetris")
    profile = PerformanceProfile(
        goal_metrics={"mean_lines": 40.0},
        skills=dict(figures["skills"]),  # type: ignore[arg-type]
        notes=tetris.describe_skills(figures),
    )
    request = TeacherRequest(
        parent, profile, MutationInstruction.SKILL, tuple(seeds), seed=7, skill="survive_250"
    )
    server.enqueue(
        FakeReply.json(DESCRIPTION), FakeReply.text(f"<code>\n{good_code(seeds)}</code>")
    )
    result = propose(make_teacher(server, validate, system_prompt), request)

    assert result.accepted and result.skill == "survive_250"
    prompt = server.chat_requests()[0]["messages"][1]["content"]
    assert "skill — teach survive_250" in prompt
    assert 'does not yet master "survive_250"' in prompt  # the skill hint, filled in
    assert "games reaching 250 pieces 60 %" in prompt  # the world's reading of the profile
    assert "13.5 rows high with 7.0 holes" in prompt
    assert "to learn next: survive_250" in prompt


# ---- a target-derived parent -----------------------------------------------------------------
def test_a_target_derived_parent_reaches_the_prompt_and_the_record(
    server: FakeOpenAIServer, validate: Validate, system_prompt: str, seeds: list[ExampleLevel]
) -> None:
    boards = (("...#......", "#.##.###.#"),)
    profile = PerformanceProfile(goal_metrics={"mean_lines": 8.0}, start_states=boards)
    aimed = domains.get("tetris").target_parent(None, profile, np.random.default_rng(0))
    assert aimed is not None
    assert validate(aimed.code).accepted  # the world's own writing passes the sandbox
    request = TeacherRequest(aimed, profile, MutationInstruction.EASIER, tuple(seeds), seed=7)
    server.enqueue(
        FakeReply.json(DESCRIPTION), FakeReply.text(f"<code>\n{good_code(seeds)}</code>")
    )
    result = propose(make_teacher(server, validate, system_prompt), request)

    assert result.accepted and result.parent_id is None
    assert result.parent_kind is ParentKind.TARGET and result.to_record()["parent_kind"] == "target"
    assert result.reasoning is not None and result.reasoning.startswith(TARGET_PARENT_LABEL)
    assert result.reasoning.endswith(DESCRIPTION["reasoning"])  # the model's own, kept
    description, code = server.chat_requests()
    prompt = description["messages"][1]["content"]
    assert f'"{TARGET_PARENT_LABEL}" is no archive level but the target' in prompt
    assert f"{TARGET_PARENT_LABEL}: The standard game from one of the target student's" in prompt
    assert "**easier**" in prompt
    assert aimed.code.rstrip() in code["messages"][1]["content"]  # the parent's code to edit
