"""Structured JSON answers from OpenAI-compatible models: asking for them, and reading them.

World-neutral: the teachers' description stage, the judges and the LLM player all use it.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n(.*?)(?:```|\Z)", re.DOTALL)

StructuredOutput = Literal["json_schema", "json_object", "none"]
STRUCTURED_FORMS: tuple[str, ...] = ("json_schema", "json_object", "none")


def response_format(
    style: StructuredOutput, name: str, schema: dict[str, Any]
) -> dict[str, Any] | None:
    """The ``response_format`` request field asking for JSON that matches ``schema``.

    ``json_schema`` is the OpenAI / vLLM form (vLLM's current field; the old ``guided_json``
    is ignored by newer servers). ``json_object`` is llama-cpp-python's dialect
    (``{"type": "json_object", "schema": ...}``; it rejects ``json_schema``). ``none`` sends
    no constraint and relies on the prompt plus validation.
    """
    if style == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema, "strict": True},
        }
    if style == "json_object":
        return {"type": "json_object", "schema": schema}
    if style == "none":
        return None
    raise ValueError(f"unknown structured-output form {style!r}; use one of {STRUCTURED_FORMS}")


M = TypeVar("M", bound=BaseModel)


def parse_json_model(
    answer: str | None, model: type[M], finish_reason: str | None = None, what: str = "answer"
) -> tuple[M | None, str | None]:
    """Validate a JSON answer against ``model``: the value, or None and a precise reason.

    A fenced JSON block is accepted (servers without structured output often fence it); the
    error names the problem: empty, cut off (``finish_reason == "length"``), not JSON at a given
    position, or JSON that misses or mistypes a field (``what`` names the schema in messages).
    """
    if answer is None or not answer.strip():
        return None, "empty answer: expected a JSON object"
    text = answer.strip()
    fence = _FENCE.search(text)
    if fence and fence.group(1).lower() in {"", "json"}:
        text = fence.group(2).strip()
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        cut = " — the answer was cut off at the token limit" if finish_reason == "length" else ""
        ends = "" if exc.pos < len(text) else " (the text ended before the JSON did)"
        return None, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}{ends}{cut}"
    if not isinstance(raw, dict):
        return None, f"expected a JSON object, got {type(raw).__name__}"
    try:
        return model.model_validate(raw), None
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '<root>'}: {err['msg']}"
            for err in exc.errors()
        )
        return None, f"JSON does not match the {what} schema: {problems}"
