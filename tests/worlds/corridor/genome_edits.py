"""The corridor genome's edits: harder moves the goal away or lengthens the corridor, easier the
reverse, vary swaps the ends. There is no skill edit: ``teach`` answers None (allowed)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from dicode.teachers.base import MutationInstruction
from dicode.teachers.genome_base import Mutation, Operator, SkillTarget, mutate_genome
from dicode.teachers.level_source import GenomeError
from tests.worlds.corridor.genome import Genome


def _goal_step(away: bool) -> Operator[Genome]:
    def edit(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
        if g.start is None or g.goal is None:
            return None
        direction = 1 if g.goal > g.start else -1
        goal = g.goal + (direction if away else -direction)
        child = replace(g, goal=goal, length=max(g.length, goal + 1))
        return child, f"goal {g.goal} → {goal}"

    return edit


def _length_step(delta: int) -> Operator[Genome]:
    def edit(g: Genome, rng: np.random.Generator) -> tuple[Genome, str]:
        return replace(g, length=g.length + delta), f"length {g.length} → {g.length + delta}"

    return edit


def _swap_ends(g: Genome, rng: np.random.Generator) -> tuple[Genome, str] | None:
    if g.start is None or g.goal is None:
        return None
    return replace(g, start=g.goal, goal=g.start), "start and goal swapped"


def _operators(g: Genome, instruction: MutationInstruction) -> dict[str, Operator[Genome]]:
    if instruction is MutationInstruction.HARDER:
        return {"goal_farther": _goal_step(True), "longer": _length_step(1)}
    if instruction is MutationInstruction.EASIER:
        return {"goal_nearer": _goal_step(False), "shorter": _length_step(-1)}
    return {"swap_ends": _swap_ends, "longer": _length_step(1), "shorter": _length_step(-1)}


def _check(g: Genome) -> None:
    if not g.valid():
        raise GenomeError(f"{g} is not a playable corridor")


def mutate(
    parent: Genome, instruction: MutationInstruction, rng: np.random.Generator, max_edits: int
) -> Mutation[Genome]:
    return mutate_genome(
        parent, instruction, rng, max_edits, _operators, lambda _, g: g.valid(), _check
    )


def teach(parent: Genome, target: SkillTarget, rng: np.random.Generator) -> Mutation[Genome] | None:
    return None
