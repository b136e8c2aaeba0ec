"""The Craftax target student's skills: each achievement's success rate on the target protocol.

A target evaluation reports, per achievement, the share of its games that unlocked it
(``figures["skills"]``). :func:`describe_skills` reads that profile in a few lines for prompts
and people; :func:`frontier_skills` picks what to teach next, among the achievements the
mutation teacher can set up (``genome_edits.teachable``): first those the student has
*unlearnt* — unlocked at least ``REGRESSED`` less often than its best evaluation so far
(``figures["skills_best"]``, from the run's history of target evaluations), the biggest loss
first (in the 1M-step runs ``wake_up`` fell from 0.98 to 0.33–0.92: a skill the student had
is cheap to restore, and a forgotten one is lost return) — then those it rarely unlocks
although it has mastered what they build on, easiest first. :func:`target_genome` aims the
standard game at one achievement the student misses (a target-derived parent).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from dicode.domains.craftax.catalog import ACHIEVEMENT_IDS, FLOOR_ENTRY_ACHIEVEMENT
from dicode.domains.craftax.genome import CraftaxGenome, default_genome
from dicode.domains.craftax.genome_edits import teachable
from dicode.domains.craftax.goals import PREREQUISITES, difficulty, goal_possible, home_floor

#: Rarely unlocked: a frontier achievement succeeds in fewer games than this share.
FRONTIER_RATE = 0.2
#: Mastered: what a frontier achievement builds on succeeds in at least this share of games.
MASTERED = 0.5
#: Unlearnt: an achievement unlocked at least this much less often than its best so far (an
#: absolute drop; a rate's standard error over 64 games is at most 0.06).
REGRESSED = 0.15
#: Names listed per group in the profile's text (the rest are counted).
SHOWN = 8
#: Frontier achievements named in the profile's text.
FRONTIER_SHOWN = 5
#: A target-derived parent's goal is drawn among this many of the missed achievements.
TARGET_CHOICES = 3


def skill_rates(figures: Mapping[str, Any]) -> dict[str, float]:
    """The evaluation's per-achievement rates (known achievements only; none → empty)."""
    skills = figures.get("skills") or {}
    return {str(k): float(v) for k, v in dict(skills).items() if k in ACHIEVEMENT_IDS}


def builds_on(name: str) -> tuple[str, ...]:
    """What an achievement builds on, for the frontier: its tech-tree steps; one with none
    that lives below the overworld (a kill there) builds on entering its floor — a student
    that never reaches the gnomish mines is not ready to fight in them."""
    steps = PREREQUISITES.get(name, ())
    entry = FLOOR_ENTRY_ACHIEVEMENT[home_floor(name)]
    if not steps and entry is not None and entry != name:
        return (entry,)
    return steps


def regressed_skills(figures: Mapping[str, Any]) -> list[str]:
    """Achievements unlocked at least ``REGRESSED`` less often than their best rate so far
    (``figures["skills_best"]``), teachable ones only, the biggest drop first."""
    rates = skill_rates(figures)
    best = skill_rates({"skills": figures.get("skills_best") or {}})
    drops = {a: best[a] - rates.get(a, 0.0) for a in best if a in rates}
    fallen = [a for a, drop in drops.items() if drop >= REGRESSED - 1e-9 and teachable(a)]
    return sorted(fallen, key=lambda a: (-drops[a], ACHIEVEMENT_IDS[a]))


def frontier_skills(figures: Mapping[str, Any]) -> list[str]:
    """Achievements to teach next: the unlearnt ones first (:func:`regressed_skills`), then
    those unlocked in fewer than ``FRONTIER_RATE`` of the games while everything they build on
    is unlocked in at least ``MASTERED`` of them (one building on nothing qualifies on its own
    rate), easiest first; teachable by the mutation teacher. Empty without per-skill figures."""
    rates = skill_rates(figures)
    if not rates:
        return []
    fallen = regressed_skills(figures)

    def ready(name: str) -> bool:
        below = rates.get(name, 0.0) < FRONTIER_RATE
        return below and all(rates.get(p, 0.0) >= MASTERED for p in builds_on(name))

    rare = [a for a in ACHIEVEMENT_IDS if ready(a) and teachable(a) and a not in fallen]
    return fallen + sorted(rare, key=difficulty)


def describe_skills(figures: Mapping[str, Any]) -> str:
    """The profile in a few lines: what most games unlock, what some do, how many never, and
    the frontier."""
    rates = skill_rates(figures)
    if not rates:
        return "No per-achievement figures yet."
    games = figures.get("games")
    of_games = f" of {int(games)} games" if isinstance(games, int | float) else " of the games"
    most = {a: r for a, r in rates.items() if r >= MASTERED}
    some = {a: r for a, r in rates.items() if 0.0 < r < MASTERED}
    never = len(ACHIEVEMENT_IDS) - len(most) - len(some)
    frontier = frontier_skills(figures)[:FRONTIER_SHOWN]
    best = skill_rates({"skills": figures.get("skills_best") or {}})
    fallen = [f"{a} {rates[a]:.2f} (best {best[a]:.2f})" for a in regressed_skills(figures)]
    lines = [
        f"Achievements (share{of_games} unlocking each):",
        f"- most games: {_listed(most)}",
        f"- some games: {_listed(some)}",
        f"- never: {never} of {len(ACHIEVEMENT_IDS)}",
    ]
    if fallen:
        lines.append("- unlearnt (below their best so far): " + ", ".join(fallen[:SHOWN]))
    lines.append("- frontier (teach next): " + (", ".join(frontier) or "none"))
    return "\n".join(lines)


def _listed(rates: Mapping[str, float]) -> str:
    """The highest rates first, at most ``SHOWN`` of them named."""
    if not rates:
        return "none"
    ranked = sorted(rates, key=lambda a: (-rates[a], ACHIEVEMENT_IDS[a]))
    text = ", ".join(f"{a} {rates[a]:.2f}" for a in ranked[:SHOWN])
    more = len(ranked) - SHOWN
    return text + (f" (+{more} more)" if more > 0 else "")


def target_genome(skills: Mapping[str, float], rng: np.random.Generator) -> CraftaxGenome | None:
    """The standard game (a fresh world, normal rules) with a goal of one achievement the target
    student misses: a target-derived parent. Drawn among the first ``TARGET_CHOICES`` of the
    frontier (:func:`frontier_skills`: rarely unlocked while what it builds on is mastered),
    or, when the frontier is empty, of every teachable achievement it unlocks in fewer than
    ``FRONTIER_RATE`` of its games, easiest first; only goals the standard start can reach
    (``goal_possible``). None without per-achievement figures or when it misses none."""
    rates = skill_rates({"skills": skills})
    if not rates:
        return None
    missed = frontier_skills({"skills": rates}) or sorted(
        (a for a in ACHIEVEMENT_IDS if rates.get(a, 0.0) < FRONTIER_RATE and teachable(a)),
        key=difficulty,
    )
    standard = default_genome()
    options = [a for a in missed if goal_possible(replace(standard, goal=(a,)))][:TARGET_CHOICES]
    if not options:
        return None
    name = options[int(rng.integers(len(options)))]
    description = (
        f"The standard game — a fresh world, normal rules — with one achievement as its goal: "
        f"{name}, which the target student unlocks in {100 * rates.get(name, 0.0):.0f} % of "
        "its games."
    )
    return replace(standard, description=description, goal=(name,))
