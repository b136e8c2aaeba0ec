"""The corridor level builder: the API a level's ``build(level, rng)`` function edits.

A corridor level is one Python module. Its docstring describes the level; it defines
``build(level, rng)``, called once per pool instance with a fresh ``CorridorLevel`` as
``level`` and a seeded ``numpy.random.Generator`` as ``rng``; ``build`` edits ``level``. A new
level is a corridor of 16 free cells whose start and goal are drawn at random. Level code may
import only ``math``, ``itertools``, ``functools``, ``collections`` and ``numpy``.

Runs inside the sandbox worker: NumPy, the standard library and this folder's NumPy modules only.
"""

from __future__ import annotations

import inspect

import numpy as np

from dicode.domains.api_docs import render_builder_api
from dicode.domains.build_args import check_int
from tests.worlds.corridor.level_checks import LENGTH, MAX_STEPS

#: Version of the builder contract; stored in every level bundle's provenance.
BUILDER_VERSION = "corridor-builder/1"


class CorridorLevel:
    """One corridor: cells 0 (left end) .. 15 in a row, walls, a start and a goal.

    The agent steps left or right; a wall or the corridor's end stops it. A start or goal not
    set is drawn when the instance is finished: a random start on a free cell, a random goal on
    another free cell reachable from it.
    """

    __slots__ = ("_goal", "_rng", "_start", "_walls")

    def __init__(self, rng: np.random.Generator) -> None:
        self._rng = rng
        self._walls = np.zeros(LENGTH, bool)
        self._start: int | None = None
        self._goal: int | None = None

    def length(self, cells: int) -> None:
        """Make the corridor ``cells`` (2..16) long: the cells beyond it become walls."""
        n = check_int("length", "cells", cells, 2, LENGTH)
        self._walls[n:] = True

    def wall(self, cell: int) -> None:
        """Put a wall on ``cell`` (0..15)."""
        self._walls[check_int("wall", "cell", cell, 0, LENGTH - 1)] = True

    def start(self, cell: int) -> None:
        """Start the agent on ``cell`` (0..15)."""
        self._start = check_int("start", "cell", cell, 0, LENGTH - 1)

    def goal(self, cell: int) -> None:
        """Put the goal on ``cell`` (0..15)."""
        self._goal = check_int("goal", "cell", cell, 0, LENGTH - 1)

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The instance as arrays (after ``build``): random ends are drawn here; an end that
        cannot be drawn is -1, for the checks to report."""
        free = np.flatnonzero(~self._walls)
        start = self._start if self._start is not None else self._draw(free)
        if self._goal is not None:
            goal = self._goal
        else:  # a free cell of the start's stretch of the corridor, other than the start
            stretch = [
                c for c in free.tolist() if c != start and not self._walls[_between(c, start)].any()
            ]
            goal = self._draw(np.asarray(stretch, int))
        return {
            "cells": self._walls.astype(np.uint8),
            "start": np.asarray(start, np.int32),
            "goal": np.asarray(goal, np.int32),
        }

    def _draw(self, cells: np.ndarray) -> int:
        return int(self._rng.choice(cells)) if len(cells) else -1


def _between(a: int, b: int) -> slice:
    return slice(min(a, b), max(a, b) + 1)


def make_builder(rng: np.random.Generator) -> CorridorLevel:
    """A fresh level: 16 free cells, random ends."""
    return CorridorLevel(rng)


def builder_api_docs() -> str:
    """The builder API for prompts, rendered from this module's docstrings."""
    contract = "\n\n".join(inspect.cleandoc(__doc__ or "").split("\n\n")[:2])
    bounds = f"Cells 0..{LENGTH - 1}; an episode ends at the goal or after {MAX_STEPS} steps."
    return render_builder_api(contract, CorridorLevel, bounds, skip=("to_arrays",))


def prompt_facts() -> dict[str, str]:
    """Game facts a prompt template may name."""
    return {"length": str(LENGTH), "max_steps": str(MAX_STEPS)}
