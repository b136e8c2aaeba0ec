"""The mutation teacher's genome of a corridor level: its length, walls and ends.

The grammar is ``build``'s body as a list of builder calls with literal arguments; any other
code reads as the target game (the fallback), with the reason recorded by the teacher.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace

from dicode.teachers.genome_base import GenomeReading, read_with_fallback
from dicode.teachers.level_source import (
    GenomeError,
    SourceLines,
    builder_arguments,
    builder_call,
    is_docstring,
    read_module,
    write_module,
)
from tests.worlds.corridor.level_checks import LENGTH

_SIGNATURES = {"length": ("cells",), "wall": ("cell",), "start": ("cell",), "goal": ("cell",)}


@dataclass(frozen=True)
class Genome:
    """A corridor level: ``length`` cells, ``walls`` among them, fixed ends or random (None)."""

    length: int = LENGTH
    walls: tuple[int, ...] = ()
    start: int | None = None
    goal: int | None = None

    @property
    def description(self) -> str:
        return describe(self)

    def normalized(self) -> Genome:
        return replace(self, walls=tuple(sorted(set(self.walls))))

    def valid(self) -> bool:
        """Within the builder's bounds, and the goal reachable whenever both ends are fixed."""
        ends = [cell for cell in (self.start, self.goal) if cell is not None]
        if not 2 <= self.length <= LENGTH or any(not 0 <= c < self.length for c in ends):
            return False
        if any(c in self.walls for c in ends) or any(not 0 <= w < LENGTH for w in self.walls):
            return False
        if len(ends) < 2:
            return len(set(range(self.length)) - set(self.walls)) >= 2
        low, high = sorted(ends)
        return low < high and not any(low <= w <= high for w in self.walls)


def _read_module(tree: ast.Module, source: SourceLines) -> Genome:
    module = read_module(tree, source)
    if module.kept:
        raise GenomeError("module code besides build is outside the grammar")
    genome, body = Genome(), module.build.body
    for node in body[1:] if body and is_docstring(body[0]) else body:
        call = builder_call(node, module.level)
        if call is None:
            raise GenomeError(f"line {node.lineno}: only level.<method>(...) calls are read")
        method, args = builder_arguments(
            call[1], _SIGNATURES, module.env, f"line {node.lineno}", module.level
        )
        value = args.get(_SIGNATURES[method][0])
        if not isinstance(value, int):
            raise GenomeError(f"line {node.lineno}: level.{method} needs an integer")
        if method == "length":
            genome = replace(genome, length=value)
        elif method == "wall":
            genome = replace(genome, walls=(*genome.walls, value))
        else:
            genome = (
                replace(genome, start=value) if method == "start" else replace(genome, goal=value)
            )
    if not genome.valid():
        raise GenomeError("the calls do not make a playable corridor")
    return genome.normalized()


def target_genome(description: str | None = None) -> Genome:
    """The fallback: the target game (its description is always the genome's own)."""
    return Genome()


def read_genome(source: str) -> GenomeReading[Genome]:
    return read_with_fallback(source, _read_module, target_genome)


def write_level(genome: Genome) -> str:
    g = genome.normalized()
    body = [f"level.length({g.length})", *(f"level.wall({w})" for w in g.walls)]
    body += [f"level.{end}({cell})" for end, cell in (("start", g.start), ("goal", g.goal))
             if cell is not None]  # fmt: skip
    return write_module(describe(g), "", body)


def describe(genome: Genome) -> str:
    g = genome
    walls = f" with walls on cells {', '.join(map(str, g.walls))}" if g.walls else ""
    start = "a random cell" if g.start is None else f"cell {g.start}"
    goal = "a random reachable cell" if g.goal is None else f"cell {g.goal}"
    return (
        f"A corridor of {g.length} cells{walls}; the agent starts on {start}, the goal is {goal}."
    )
