"""The maze target student's skills: solve rates by maze property (NumPy-free facts).

The target protocol (``dicode.student.maze.evaluate``) groups its episodes by what a teacher
can build: held-out mazes by shortest path (``path_short`` / ``path_long``) and by dead ends
(``no_dead_ends`` / ``dead_ends``), the domain-randomised (DR) mazes by shortest path
(``dr_path_short`` / ``_medium`` / ``_long``), and reports each group's solve rate under
``figures["skills"]``. :func:`describe_skills` reads that profile in two lines;
:func:`frontier_skills` picks what to teach next: a property the student rarely solves while
it has mastered its easier counterpart (a long path after a short one, dead ends after none).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Held-out mazes with at most this many moves on their shortest path count as short ones.
HELD_OUT_SHORT_PATH = 24
#: DR mazes: short up to this many moves, medium up to the next, long beyond.
DR_SHORT_PATH, DR_MEDIUM_PATH = 8, 16

#: The skills in reading order, and which maze set each is measured on.
SKILLS: tuple[str, ...] = (
    "path_short", "path_long", "no_dead_ends", "dead_ends",
    "dr_path_short", "dr_path_medium", "dr_path_long",
)  # fmt: skip
#: Shortest-path band (fewest, most moves; None: no upper bound) of each path skill.
PATH_BANDS: dict[str, tuple[int, int | None]] = {
    "path_short": (0, HELD_OUT_SHORT_PATH),
    "path_long": (HELD_OUT_SHORT_PATH + 1, None),
    "dr_path_short": (0, DR_SHORT_PATH),
    "dr_path_medium": (DR_SHORT_PATH + 1, DR_MEDIUM_PATH),
    "dr_path_long": (DR_MEDIUM_PATH + 1, None),
}
#: The easier counterpart a skill builds on (skills absent here build on nothing).
EASIER: dict[str, str] = {
    "path_long": "path_short",
    "dead_ends": "no_dead_ends",
    "dr_path_medium": "dr_path_short",
    "dr_path_long": "dr_path_medium",
}
#: Mastered: solved in at least this share of a group's episodes. A frontier skill is below
#: it while its easier counterpart is at or above it.
MASTERED = 0.5

_LABELS = {
    "path_short": f"short path (≤ {HELD_OUT_SHORT_PATH} moves)",
    "path_long": "long path",
    "no_dead_ends": "no dead ends",
    "dead_ends": "dead ends",
    "dr_path_short": f"short (≤ {DR_SHORT_PATH})",
    "dr_path_medium": f"medium (≤ {DR_MEDIUM_PATH})",
    "dr_path_long": "long",
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
            "Held-out solve rate by maze property: " + listed(SKILLS[:4]) + ".",
            "DR solve rate by shortest path: " + listed(SKILLS[4:]) + ".",
            "Frontier (teach next): " + (", ".join(frontier) or "none") + ".",
        ]
    )
