"""The maze target student's skills: solve rates by maze property (NumPy-free facts).

The target protocol (``dicode.domains.maze.student.evaluate``) groups the episodes it plays on its
fixed domain-randomised (DR) mazes — the target game's own distribution, never trained on — by
what a teacher can build: shortest path (``path_short`` / ``path_medium`` / ``path_long``) and
dead ends (``few_dead_ends`` / ``many_dead_ends``; random walls always leave some), and reports
each group's solve rate under ``figures["skills"]``. The held-out mazes are the zero-shot test:
their per-property rates are reported beside (``heldout_*``, ``HELD_OUT_BANDS``) for people,
and no skill choice reads them, so no arm of a maze experiment is steered by the test set.
:func:`describe_skills` reads the profile in two lines; :func:`frontier_skills` picks what to
teach next: a property the student rarely solves while it has mastered its easier counterpart
(a long path after a medium one, many dead ends after few).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: DR mazes: short up to this many moves on the shortest path, medium up to the next, long beyond.
SHORT_PATH, MEDIUM_PATH = 8, 16
#: A maze with at most this many dead ends has few (the DR mazes have 1–9, median ≈ 4).
FEW_DEAD_ENDS = 3
#: Held-out mazes (reported only) with at most this many moves count as short ones.
HELD_OUT_SHORT_PATH = 24

#: The skills in reading order (all measured on the DR mazes).
SKILLS: tuple[str, ...] = (
    "path_short", "path_medium", "path_long", "few_dead_ends", "many_dead_ends",
)  # fmt: skip
#: Shortest-path band (fewest, most moves; None: no upper bound) of each path skill.
PATH_BANDS: dict[str, tuple[int, int | None]] = {
    "path_short": (0, SHORT_PATH),
    "path_medium": (SHORT_PATH + 1, MEDIUM_PATH),
    "path_long": (MEDIUM_PATH + 1, None),
}
#: The held-out figures reported by shortest path (not skills: no teacher reads them).
HELD_OUT_BANDS: dict[str, tuple[int, int | None]] = {
    "heldout_path_short": (0, HELD_OUT_SHORT_PATH),
    "heldout_path_long": (HELD_OUT_SHORT_PATH + 1, None),
}
#: The easier counterpart a skill builds on (skills absent here build on nothing).
EASIER: dict[str, str] = {
    "path_medium": "path_short",
    "path_long": "path_medium",
    "many_dead_ends": "few_dead_ends",
}
#: Mastered: solved in at least this share of a group's episodes. A frontier skill is below
#: it while its easier counterpart is at or above it.
MASTERED = 0.5

_LABELS = {
    "path_short": f"short path (≤ {SHORT_PATH} moves)",
    "path_medium": f"medium (≤ {MEDIUM_PATH})",
    "path_long": "long",
    "few_dead_ends": f"few (≤ {FEW_DEAD_ENDS})",
    "many_dead_ends": "many",
}


def skill_rates(figures: Mapping[str, Any]) -> dict[str, float]:
    """The evaluation's per-property solve rates (known skills only; none → empty)."""
    skills = figures.get("skills") or {}
    return {str(k): float(v) for k, v in dict(skills).items() if k in SKILLS}


def frontier_skills(figures: Mapping[str, Any]) -> list[str]:
    """Properties to teach next, lowest solve rate first: below ``MASTERED`` while the easier
    counterpart (if any) is at or above it. Empty when everything measured is mastered."""
    rates = skill_rates(figures)

    def ready(name: str) -> bool:
        easier = EASIER.get(name)
        return rates[name] < MASTERED and (easier is None or rates.get(easier, 0.0) >= MASTERED)

    return sorted((s for s in rates if ready(s)), key=lambda s: (rates[s], SKILLS.index(s)))


def describe_skills(figures: Mapping[str, Any]) -> str:
    """The solve rates by maze property in two lines, then the frontier."""
    rates = skill_rates(figures)
    if not rates:
        return "No per-property solve rates yet."

    def listed(names: tuple[str, ...]) -> str:
        shown = [f"{_LABELS[n]} {rates[n]:.2f}" for n in names if n in rates]
        return ", ".join(shown) or "none measured"

    frontier = frontier_skills(figures)
    return "\n".join(
        [
            "Solve rate of the target game's mazes by shortest path: "
            + listed(SKILLS[:3])
            + "; by dead ends: "
            + listed(SKILLS[3:])
            + ".",
            "Frontier (teach next): " + (", ".join(frontier) or "none") + ".",
        ]
    )
