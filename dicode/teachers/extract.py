"""Getting a level description and level code out of a model's answer.

Extraction only reads text: code is never parsed, compiled or run here (the sandbox does that),
so a syntax error travels on to the sandbox, which reports it with a line number the repair
loop can use. What cannot be read is an explained failure, never an exception.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from dicode.llm.structured import StructuredOutput, parse_json_model, response_format

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
    fenced = [body for lang, body in _FENCE.findall(answer) if lang.lower() in _PYTHON_FENCE_LANGS]
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

    # Upper bounds go into the schema, so a server that enforces it (vLLM) closes the JSON
    # within the answer budget instead of cutting it mid-string (a 135M model on CPU otherwise
    # wrote reasoning until max_tokens).
    reasoning: str = Field(
        min_length=1,
        max_length=600,
        description="why this change suits the student, given its performance profile",
    )
    title: str = Field(min_length=1, max_length=80, description="short label for the level")
    description: str = Field(
        min_length=20,
        max_length=1200,
        description="the level's docstring: objective, start board, pieces, goal",
    )


def description_response_format(style: StructuredOutput = "json_schema") -> dict[str, Any] | None:
    """``response_format`` for the description stage."""
    return response_format(style, "level_description", LevelDescription.model_json_schema())


@dataclass(frozen=True)
class DescriptionParse:
    """A validated description, or why the answer was not one."""

    value: LevelDescription | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.value is not None


def parse_description(answer: str | None, finish_reason: str | None = None) -> DescriptionParse:
    """Validate the description stage's JSON answer (see ``parse_json_model``)."""
    value, error = parse_json_model(answer, LevelDescription, finish_reason, "description")
    return DescriptionParse(value, error)
