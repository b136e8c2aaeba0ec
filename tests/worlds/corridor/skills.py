"""The corridor student's skills: solve rates of the target protocol by the goal's distance."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: ``near``: the goal at most NEAR cells from the start; ``far``: farther. Far builds on near.
NEAR = 4
SKILLS = ("near", "far")
MASTERED = 0.5


def skill_of(distance: int) -> str:
    return "near" if distance <= NEAR else "far"


def frontier_skills(figures: Mapping[str, Any]) -> list[str]:
    """``far`` while it is below MASTERED and ``near`` is at or above it; else nothing."""
    rates = dict(figures.get("skills") or {})
    ready = rates.get("near", 0.0) >= MASTERED and rates.get("far", 1.0) < MASTERED
    return ["far"] if ready else []


def describe_skills(figures: Mapping[str, Any]) -> str:
    rates = dict(figures.get("skills") or {})
    if not rates:
        return "No solve rates yet."
    shown = ", ".join(f"{name} {rates[name]:.2f}" for name in SKILLS if name in rates)
    frontier = ", ".join(frontier_skills(figures)) or "none"
    return (
        f"Solve rate by the goal's distance (near: ≤ {NEAR} cells): {shown}. Frontier: {frontier}."
    )
