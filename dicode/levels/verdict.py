"""The verdict of validating one level: accepted or the failing stage, with the reason."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from dicode.levels.bundle import LevelBundle

#: Pipeline stages in order; a rejected verdict names the one that failed.
STAGES = ("syntax", "static_policy", "sandbox_build", "sandbox_answer", "schema", "rollouts")
ACCEPTED = "accepted"
#: Not a stage of the level: the sandbox could not put up its walls, so the level never ran.
SANDBOX_UNAVAILABLE = "sandbox-unavailable"
#: Longest error text stored, served or quoted to a model: error texts are data, not a channel.
MAX_ERROR_CHARS = 2000
MAX_WARNING_CHARS = 600


def bounded_text(text: str, limit: int = MAX_ERROR_CHARS) -> str:
    """``text`` cut to at most ``limit`` characters, keeping its head and tail (the cause and
    the line) around a marker that says how much was left out."""
    if len(text) <= limit:
        return text
    marker = f" … [{len(text) - limit} characters omitted] … "
    keep = max(0, limit - len(marker))
    head = keep - keep // 2
    return f"{text[:head]}{marker}{text[len(text) - keep // 2 :]}"[:limit]


@dataclass(frozen=True)
class Verdict:
    """Outcome of ``validate_level``: every field is recorded, accepted or not.

    ``stage`` is the stage that rejected the level, or ``"accepted"``; ``timings`` holds
    seconds per stage that ran; ``difficulty`` holds estimates such as success rates of the
    random and heuristic policies (recorded, never used as gates).
    """

    accepted: bool
    stage: str
    error: str | None
    timings: dict[str, float] = field(default_factory=dict)
    difficulty: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    bundle: LevelBundle | None = None

    def summary(self) -> dict[str, Any]:
        """JSON-serialisable summary (everything but the pool arrays)."""
        summary: dict[str, Any] = {
            "verdict": ACCEPTED if self.accepted else "rejected",
            "stage": self.stage,
            "error": self.error,
            "timings": {k: round(v, 6) for k, v in self.timings.items()},
            "difficulty": self.difficulty,
            "warnings": self.warnings,
        }
        if self.bundle is not None:
            summary["content_hash"] = self.bundle.content_hash
            summary["description"] = self.bundle.description
            summary["goal"] = self.bundle.goal
            summary["provenance"] = self.bundle.provenance()
        return summary

    def to_json(self) -> str:
        """The summary as a JSON string."""
        return json.dumps(self.summary(), sort_keys=True)
