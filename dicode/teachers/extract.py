"""Getting a level description and level code out of a model's answer.

Extraction only reads text: code is never parsed, compiled or run here (the sandbox does that),
so a syntax error travels on to the sandbox, which reports it with a line number the repair
loop can use. What cannot be read is an explained failure, never an exception.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

ExtractionMethod = Literal["tag", "fence", "bare"]

_CODE_TAG = re.compile(r"<code>(.*?)(?:</code>|\Z)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)(?:```|\Z)", re.DOTALL)
# A line that only Python (not prose) starts with; enough to accept an answer as bare code.
_PYTHON_LINE = re.compile(r"^(def |class |import |from \S+ import |@\w|[A-Z_][A-Z0-9_]* = )", re.M)
_PYTHON_FENCE_LANGS = {"", "python", "py", "python3"}


@dataclass(frozen=True)
class CodeExtraction:
    """The code found in an answer and how, or why none was found."""

    code: str | None
    method: ExtractionMethod | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.code is not None


def _strip_fences(text: str) -> str:
    """Code inside a <code> tag is sometimes fenced as well; keep the inside."""
    match = _FENCE.search(text)
    return match.group(2) if match else text


def _preview(text: str, limit: int = 80) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first if len(first) <= limit else first[:limit] + "…"


def extract_code(answer: str | None) -> CodeExtraction:
    """Level code from ``answer``: a ``<code>`` tag, else a fenced block, else bare code.

    With several fenced blocks the longest Python one wins (models often add a short usage
    snippet after the module).
    """
    if answer is None or not answer.strip():
        return CodeExtraction(None, error="empty answer: no code to extract")
    tagged = [m.group(1) for m in _CODE_TAG.finditer(answer)]
    tagged = [_strip_fences(t).strip("\n") for t in tagged if t.strip()]
    if tagged:
        return CodeExtraction(max(tagged, key=len) + "\n", "tag")
    # An empty "<code></code>" is often the prompt's wording echoed inside a fenced block
    # (seen with SmolLM2): look further before giving up.
    fenced = [
        body for lang, body in _FENCE.findall(answer) if lang.lower() in _PYTHON_FENCE_LANGS
    ]
    fenced = [body.strip("\n") for body in fenced if body.strip()]
    if fenced:
        return CodeExtraction(max(fenced, key=len) + "\n", "fence")
    if _PYTHON_LINE.search(answer):
        return CodeExtraction(answer.strip("\n") + "\n", "bare")
    if "<code>" in answer.lower():
        return CodeExtraction(None, error="the <code> tag is empty")
    return CodeExtraction(
        None,
        error=(
            "no code found: the answer has no <code> tag, no ```python block and no line that "
            f"starts like Python (it begins: {_preview(answer)!r})"
        ),
    )


class LevelDescription(BaseModel):
    """What the description stage must return (the JSON schema sent as ``response_format``)."""

    model_config = ConfigDict(extra="forbid")  # schema gets additionalProperties: false

    reasoning: str = Field(
        min_length=1,
        description="why this change suits the student, given its performance profile",
    )
    title: str = Field(min_length=1, max_length=80, description="short label for the level")
    description: str = Field(
        min_length=20,
        description="the level's docstring: objective, start board, pieces, goal",
    )


StructuredOutput = Literal["json_schema", "json_object", "none"]


def description_response_format(style: StructuredOutput = "json_schema") -> dict[str, Any] | None:
    """``response_format`` for the description stage.

    ``json_schema`` is the OpenAI / vLLM form (vLLM's current field; the old ``guided_json``
    is ignored by newer servers). ``json_object`` is llama-cpp-python's dialect
    (``{"type": "json_object", "schema": ...}``; it rejects ``json_schema``). ``none`` sends
    no constraint and relies on the prompt plus validation.
    """
    schema = LevelDescription.model_json_schema()
    if style == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": "level_description", "schema": schema, "strict": True},
        }
    if style == "json_object":
        return {"type": "json_object", "schema": schema}
    return None


@dataclass(frozen=True)
class DescriptionParse:
    """A validated description, or why the answer was not one."""

    value: LevelDescription | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.value is not None


def parse_description(answer: str | None, finish_reason: str | None = None) -> DescriptionParse:
    """Validate the description stage's JSON answer.

    A fenced JSON block is accepted (servers without structured output often fence it); the
    error names the problem precisely: empty, cut off (``finish_reason == "length"``), not JSON
    at a given position, or JSON that misses or mistypes a field.
    """
    if answer is None or not answer.strip():
        return DescriptionParse(None, "empty answer: expected a JSON object")
    text = answer.strip()
    fence = _FENCE.search(text)
    if fence and fence.group(1).lower() in {"", "json"}:
        text = fence.group(2).strip()
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        cut = " — the answer was cut off at the token limit" if finish_reason == "length" else ""
        ends = "" if exc.pos < len(text) else " (the text ended before the JSON did)"
        return DescriptionParse(
            None, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}{ends}{cut}"
        )
    if not isinstance(raw, dict):
        return DescriptionParse(None, f"expected a JSON object, got {type(raw).__name__}")
    try:
        return DescriptionParse(LevelDescription.model_validate(raw))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '<root>'}: {err['msg']}"
            for err in exc.errors()
        )
        return DescriptionParse(None, f"JSON does not match the description schema: {problems}")
