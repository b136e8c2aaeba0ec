"""The LLM teacher: description stage, code stage, then a sandbox-driven repair loop.

Follows the paper's two stages — first a natural-language description of the child (here as
structured JSON), then the level module written from it with similar example levels — and adds
what the paper lacks: every exchange is recorded, and the sandbox's error goes back to the model
for up to ``repair_rounds`` more tries. Generated code is only ever handed to the ``validate``
callable (the sandbox pipeline, which runs it in a separate process); this module never imports,
compiles or executes it.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass, replace
from string import Template
from typing import Any

from dicode.levels.verdict import SANDBOX_UNAVAILABLE, bounded_text
from dicode.llm.client import ChatResult, LLMClient, LLMConfig
from dicode.llm.structured import StructuredOutput
from dicode.teachers.base import (
    CodeRound,
    ExampleLevel,
    ModelExchange,
    TeacherRequest,
    TeacherResult,
    Validate,
    VerdictLike,
)
from dicode.teachers.examples import ExampleRetriever
from dicode.teachers.extract import (
    LevelDescription,
    description_response_format,
    extract_code,
    parse_description,
)
from dicode.teachers.prompts import PromptSet, load_prompts, render_system_prompt
from dicode.teachers.registry import TeacherContext


@dataclass(frozen=True)
class LLMTeacherSettings:
    """Knobs of the LLM teacher (defaults follow the paper where it states them)."""

    repair_rounds: int = 2  # extra code attempts fed with the sandbox error
    description_attempts: int = 2  # re-asks when the description JSON is unusable
    temperature: float = 0.6  # paper
    top_p: float = 0.95  # paper
    description_max_tokens: int = 1024
    code_max_tokens: int = 4096
    examples_in_prompt: int = 3
    structured_output: StructuredOutput = "json_schema"  # "json_object" for llama.cpp's server


def _instruction(request: TeacherRequest) -> str:
    """The instruction as the prompt names it (with the skill to teach, for ``skill``)."""
    if request.skill is None:
        return request.instruction.value
    return f"{request.instruction.value} — teach {request.skill}"


def _format_examples(examples: list[ExampleLevel], with_code: bool) -> str:
    if not examples:
        return "(none yet)"
    blocks = []
    for i, example in enumerate(examples, start=1):
        if with_code:
            blocks.append(f"### Example {i}\n```python\n{example.code.rstrip()}\n```")
        else:
            blocks.append(f"### Example {i}\n{example.description.strip()}")
    return "\n\n".join(blocks)


class LLMTeacher:
    """Teacher backed by an OpenAI-compatible chat model."""

    name = "llm"

    def __init__(
        self,
        client: LLMClient,
        validate: Validate,
        prompts: PromptSet,
        system_prompt: str,
        settings: LLMTeacherSettings | None = None,
    ) -> None:
        self._client = client
        self._validate = validate
        self._prompts = prompts
        self._system = system_prompt
        self._settings = settings or LLMTeacherSettings()
        self._retriever = ExampleRetriever(client)

    async def aclose(self) -> None:
        """Close the HTTP client (the teacher is unusable afterwards)."""
        await self._client.aclose()

    async def _chat(
        self, messages: list[dict[str, Any]], *, max_tokens: int, seed: int,
        response_format: dict[str, Any] | None = None,
    ) -> ChatResult:  # fmt: skip
        """One model call with the teacher's sampling settings (temperature, top-p)."""
        return await self._client.chat(
            messages, temperature=self._settings.temperature, top_p=self._settings.top_p,
            max_tokens=max_tokens, response_format=response_format, seed=seed,
        )  # fmt: skip

    async def propose(self, request: TeacherRequest) -> TeacherResult:
        """One generation attempt; always returns a record, never raises on model output."""
        result = TeacherResult.for_request(self.name, request)
        started = time.perf_counter()
        try:
            description = await self._describe(request, result)
            if description is not None:
                await self._write_code(request, description, result)
        except Exception as exc:  # a bug here must cost one attempt, not the generator service
            result.failing_stage = "teacher"
            result.error = f"teacher crashed: {type(exc).__name__}: {exc}"
        result.note_parent()
        result.latency_s = time.perf_counter() - started
        return result

    # ---- stage 1 -----------------------------------------------------------------------
    async def _describe(
        self, request: TeacherRequest, result: TeacherResult
    ) -> LevelDescription | None:
        parent = request.parent
        shown = await self._retriever.similar(
            parent.description, request.examples, self._settings.examples_in_prompt
        )
        user = self._prompts.description.render(
            parent_description=parent.description.strip(),
            parent_status=parent.status,
            parent_profile=parent.profile.summary(),
            target_profile=request.target_profile.summary(),
            instruction=_instruction(request),
            instruction_hint=Template(
                self._prompts.instruction_hints[request.instruction]
            ).safe_substitute(skill=request.skill or ""),
            example_descriptions=_format_examples(shown.examples, with_code=False),
        )
        messages = [{"role": "system", "content": self._system}, {"role": "user", "content": user}]
        for attempt in range(self._settings.description_attempts):
            stage = "description" if attempt == 0 else f"description-retry-{attempt}"
            chat = await self._chat(
                messages,
                max_tokens=self._settings.description_max_tokens,
                seed=request.seed + attempt,
                response_format=description_response_format(self._settings.structured_output),
            )
            self._record(result, stage, messages, chat)
            if not chat.ok:
                result.failing_stage = "description"
                result.error = (
                    f"description stage: model call failed ({chat.error_kind}): {chat.error}"
                )
                if chat.error_kind != "empty_answer":
                    return None  # the endpoint is failing; asking again now will not help
                continue
            parsed = parse_description(chat.text, chat.finish_reason)
            if parsed.value is not None:
                result.failing_stage = result.error = None
                result.description = parsed.value.description
                result.title = parsed.value.title
                result.reasoning = parsed.value.reasoning
                return parsed.value
            result.failing_stage = "description"
            result.error = f"description stage: unusable answer: {parsed.error}"
            # The call worked but its answer did not; say so on the exchange too.
            result.exchanges[-1].error_kind = "invalid_description"
            result.exchanges[-1].error = parsed.error
        return None

    # ---- stage 2 and repairs -------------------------------------------------------------
    async def _write_code(
        self, request: TeacherRequest, description: LevelDescription, result: TeacherResult
    ) -> None:
        shown = await self._retriever.similar(
            description.description, request.examples, self._settings.examples_in_prompt
        )
        user = self._prompts.code.render(
            description=description.description.strip(),
            parent_code=request.parent.code.rstrip(),
            example_code=_format_examples(shown.examples, with_code=True),
        )
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": self._system},
            {"role": "user", "content": user},
        ]
        for round_index in range(self._settings.repair_rounds + 1):
            stage = "code" if round_index == 0 else f"repair-{round_index}"
            chat = await self._chat(
                messages, max_tokens=self._settings.code_max_tokens, seed=request.seed + round_index
            )
            self._record(result, stage, messages, chat)
            if not chat.ok or chat.text is None:
                failed = f"{stage} stage: model call failed ({chat.error_kind}): {chat.error}"
                if round_index == 0:
                    result.failing_stage, result.error = "code", failed
                else:  # keep the rejection that the repair was meant to fix
                    result.error = f"{result.error}; then {failed}"
                return
            failed_stage, failure = await self._judge(round_index, chat.text, result)
            if failed_stage is None:
                return
            result.failing_stage = failed_stage
            result.error = failure
            if failed_stage in ("sandbox", SANDBOX_UNAVAILABLE):
                return  # the validator itself is broken or walled off; the model cannot fix that
            error = bounded_text(failure or "")
            repair = self._prompts.repair.render(stage=failed_stage, error=error)
            messages = [
                *messages,
                {"role": "assistant", "content": chat.text},
                {"role": "user", "content": repair},
            ]

    async def _judge(
        self, round_index: int, answer: str, result: TeacherResult
    ) -> tuple[str | None, str | None]:
        """Extract and validate one answer; returns (failing stage, error) or (None, None)."""
        extraction = extract_code(answer)
        if extraction.code is None:
            error = f"no usable code in the answer: {extraction.error}"
            result.rounds.append(CodeRound(round_index, None, None, False, "code", error))
            return "code", error
        result.code = extraction.code
        try:
            verdict: VerdictLike = await asyncio.to_thread(self._validate, extraction.code)
        except Exception as exc:  # the sandbox pipeline itself failed, not the level
            error = f"validator failed: {type(exc).__name__}: {exc}"
            result.rounds.append(
                CodeRound(round_index, extraction.code, extraction.method, False, "sandbox", error)
            )
            result.verdict = None
            return "sandbox", error
        result.verdict = verdict
        if verdict.accepted:
            result.rounds.append(
                CodeRound(round_index, extraction.code, extraction.method, True, None, None)
            )
            result.failing_stage = result.error = None
            return None, None
        error = verdict.error or f"rejected at stage {verdict.stage} (no message)"
        result.rounds.append(
            CodeRound(round_index, extraction.code, extraction.method, False, verdict.stage, error)
        )
        return verdict.stage, f"sandbox rejected the level at stage {verdict.stage!r}: {error}"

    @staticmethod
    def _record(
        result: TeacherResult, stage: str, messages: list[dict[str, Any]], chat: ChatResult
    ) -> None:
        result.exchanges.append(
            ModelExchange(
                stage=stage,
                messages=[dict(m) for m in messages],
                response=chat.text,
                error=chat.error,
                error_kind=chat.error_kind,
                finish_reason=chat.finish_reason,
                latency_s=chat.latency_s,
                prompt_tokens=chat.prompt_tokens,
                completion_tokens=chat.completion_tokens,
                http_attempts=len(chat.attempts),
            )
        )


ENV_MAX_TOKENS = "DICODE_LLM_MAX_TOKENS"


def with_max_tokens_cap(settings: LLMTeacherSettings) -> LLMTeacherSettings:
    """Both stages' answer budgets capped by ``DICODE_LLM_MAX_TOKENS`` when it is set: a small
    model on CPU writes a few tokens a second, and a 4,096-token code answer would outlast
    every call deadline (the real-vLLM tests and benchmark set it; a GPU server needs none)."""
    cap = os.environ.get(ENV_MAX_TOKENS)
    if not cap:
        return settings
    limit = int(cap)
    if limit < 1:
        raise ValueError(f"{ENV_MAX_TOKENS} must be a positive integer, got {cap!r}")
    return replace(
        settings,
        description_max_tokens=min(settings.description_max_tokens, limit),
        code_max_tokens=min(settings.code_max_tokens, limit),
    )


def build_llm_teacher(context: TeacherContext) -> LLMTeacher:
    """Registry factory: endpoint from ``options["llm_config"]`` or the ``DICODE_LLM_*`` env."""
    config = context.options.get("llm_config") or LLMConfig.from_env(
        seed=context.seed, max_concurrency=context.in_flight
    )
    settings = with_max_tokens_cap(context.options.get("settings") or LLMTeacherSettings())
    prompts = load_prompts(context.world)
    return LLMTeacher(
        LLMClient(config), context.validate, prompts, render_system_prompt(prompts), settings
    )
