"""What every domain's mutation genome shares: the reading record, edits, and the edit loop.

A domain provides a genome type (a frozen dataclass with ``description`` and ``normalized()``),
a reader from source, a writer to source, a one-paragraph ``describe`` and typed edit
operators grouped by instruction; :class:`GenomeCodec` bundles them for the mutation teacher.
The policy shared across domains lives here: an unreadable parent falls back to the domain's
default genome with the reasons recorded (:func:`read_with_fallback`), and a child differs
from its parent by one (vary) or 1..``max_edits`` (harder/easier) edits, one ``vary`` edit
standing in when no edit of the asked kind applies (:func:`mutate_genome`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, Self, TypeVar

import numpy as np

from dicode.teachers.base import MutationInstruction
from dicode.teachers.level_source import GenomeError, SourceLines


class GenomeLike(Protocol):
    """A domain genome: its level's description and one canonical spelling of it."""

    @property
    def description(self) -> str: ...

    def normalized(self) -> Self: ...


G = TypeVar("G", bound=GenomeLike)


@dataclass(frozen=True)
class GenomeReading(Generic[G]):
    """What a genome reader made of a level: the genome, and whether it is exact."""

    genome: G
    # Empty when the genome reproduces the level; otherwise why the reader fell back.
    unsupported: tuple[str, ...] = field(default=())

    @property
    def exact(self) -> bool:
        return not self.unsupported


def read_with_fallback(
    source: str,
    read_module: Callable[[ast.Module, SourceLines], G],
    fallback: Callable[[str | None], G],
) -> GenomeReading[G]:
    """Read ``source`` with a domain's ``read_module``; code outside its grammar gives the
    domain's ``fallback`` genome (described by the level's docstring when there is one) and the
    reason."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return GenomeReading(fallback(None), (f"the code does not parse: {exc}",))
    docstring = ast.get_docstring(tree, clean=True)
    try:
        genome = read_module(tree, SourceLines(source))
    except GenomeError as exc:
        return GenomeReading(fallback(docstring), (str(exc),))
    except RecursionError:
        return GenomeReading(fallback(docstring), ("the code is nested too deeply",))
    return GenomeReading(genome)


@dataclass(frozen=True)
class Edit:
    """One applied edit: its operator name and a human-readable ``before → after`` note."""

    kind: str
    note: str


@dataclass(frozen=True)
class Mutation(Generic[G]):
    """A child genome and the edits that made it from the parent."""

    child: G
    instruction: MutationInstruction
    edits: tuple[Edit, ...]


# An edit: (genome, rng) → (child, note), or None when it cannot apply (e.g. at a bound).
Operator = Callable[[G, np.random.Generator], tuple[G, str] | None]


def mutate_genome(
    parent: G,
    instruction: MutationInstruction,
    rng: np.random.Generator,
    max_edits: int,
    operators_for: Callable[[G, MutationInstruction], dict[str, Operator[G]]],
    allowed: Callable[[G, G], bool],
    check: Callable[[G], None],
) -> Mutation[G]:
    """Apply 1..``max_edits`` edits of ``instruction`` to ``parent`` (always at least one edit).

    ``allowed(current, child)`` vetoes an edit (e.g. one that makes a reachable goal
    unreachable); ``check`` asserts the child's bounds. When no edit of the requested
    instruction applies, one ``vary`` edit is made instead and the returned instruction says so.
    """
    genome = parent.normalized()
    vary = instruction is MutationInstruction.VARY
    wanted = 1 if vary else int(rng.integers(1, max_edits + 1))
    edits = _apply_some(genome, operators_for(genome, instruction), wanted, rng, allowed)
    used = instruction
    if not edits:
        vary_operators = operators_for(genome, MutationInstruction.VARY)
        edits = _apply_some(genome, vary_operators, 1, rng, allowed)
        used = MutationInstruction.VARY
    child = edits[-1][1] if edits else genome
    check(child)
    return Mutation(child=child, instruction=used, edits=tuple(edit for edit, _ in edits))


def _apply_some(
    genome: G,
    operators: dict[str, Operator[G]],
    wanted: int,
    rng: np.random.Generator,
    allowed: Callable[[G, G], bool],
) -> list[tuple[Edit, G]]:
    names = list(operators)
    order = rng.permutation(len(names))
    done: list[tuple[Edit, G]] = []
    current = genome
    for index in order:
        if len(done) == wanted:
            break
        name = names[int(index)]
        result = operators[name](current, rng)
        if result is None or not allowed(current, result[0]):
            continue
        child, note = result
        current = child.normalized()
        done.append((Edit(name, note), current))
    return done


@dataclass(frozen=True)
class SkillTarget:
    """What a skill edit reads: the skill to teach and the target student's profile (its
    per-skill figures, the protocol's other figures, e.g. Tetris's stack height before a
    top-out, and states of its own games a level may start from, e.g. Tetris's mid-game
    boards)."""

    skill: str
    skills: Mapping[str, float]
    figures: Mapping[str, float]
    start_states: tuple[Any, ...] = ()


# A skill edit: (parent genome, target, rng) → a child that teaches the skill, or None when the
# world cannot teach that skill from this parent.
SkillEdit = Callable[[Any, SkillTarget, np.random.Generator], Mutation[Any] | None]


@dataclass(frozen=True)
class GenomeCodec:
    """One world's genome, as the mutation teacher uses it (typed loosely: one per world)."""

    read: Callable[[str], GenomeReading[Any]]
    write: Callable[[Any], str]
    describe: Callable[[Any], str]
    mutate: Callable[[Any, MutationInstruction, np.random.Generator, int], Mutation[Any]]
    fallback: str  # what a child of a parent outside the grammar starts from, in words
    teach: SkillEdit  # the ``skill`` instruction
