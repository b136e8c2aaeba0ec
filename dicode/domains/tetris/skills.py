"""The Tetris target student's skill profile: how far its games get, how they end, how it
clears lines — measured on the greedy target protocol's games.

Skills (rates in [0, 1]):
- ``survive_250``, ``survive_500``, ``survive_1000``: the share of games that place that many
  pieces (a game stopped by the piece cap survived it);
- ``clear_double``, ``clear_triple``, ``clear_tetris``: the share of line-clear events that
  clear 2, 3, 4 rows at once (singles are the rest).
Figures beside them (what a skill level is built from): ``topout_share`` (games that topped
out), ``topout_height`` and ``topout_holes`` — the stack's height and holes
``PRE_TOPOUT`` pieces before a top-out, averaged over the games that topped out — and
``start_states``: up to ``MIDGAME_KEPT`` of the student's own mid-game boards (each game's board
at the last of ``MIDGAME_MARKS`` within the first half of the game; games that topped out
first), as rows of ``#``/``.`` from the stack's top down.

The frontier ranks skills by how much they gate the headline, lines at the piece cap. Every
piece adds 4 cells and a cleared row removes 10, so at a cap the lines are
``(4·pieces − cells left)/10`` whatever the clear sizes: survival gates them, clear sizes do
not. So the frontier is every survival mark fewer than ``FRONTIER_RATE`` of the games reach,
the most lines lost first (``survival_gate``: the games that end in the mark's band, each
losing the pieces from the band's middle to the cap, ``LINES_PER_PIECE`` lines each; the level:
survive from one of the student's own mid-game boards); the multi-line clears (a well and the
piece that fills it) only once no survival mark is left, rarest first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jax.numpy as jnp
import numpy as np

SURVIVAL = (250, 500, 1000)
CLEAR_SKILLS = {2: "clear_double", 3: "clear_triple", 4: "clear_tetris"}
PRE_TOPOUT = 10  # pieces before the end at which a topped-out game's board is described
FRONTIER_RATE = 0.8  # a survival mark fewer games reach is a frontier skill
CLEAR_FRONTIER_SHARE = 0.1  # a multi-line clear rarer than this is a frontier skill
LINES_PER_PIECE = 0.4  # a piece's 4 cells are 0.4 of a 10-cell row: lines per piece at best
#: Pieces after which the evaluation keeps every game's board (its mid-game board is the last
#: one within the first half of the game).
MIDGAME_MARKS = (10, 15, 25, 40, 60, 100, 150, 250, 400, 600)
MIDGAME_KEPT = 4  # mid-game boards a target evaluation keeps (``start_states``)


def stack_height(board: jnp.ndarray) -> jnp.ndarray:
    """Rows from the floor to the highest filled cell (``board`` row 0 = bottom)."""
    rows = jnp.arange(board.shape[-2])[:, None]
    return jnp.max(jnp.where(board > 0, rows + 1, 0), axis=(-2, -1))


def count_holes(board: jnp.ndarray) -> jnp.ndarray:
    """Empty cells with a filled cell somewhere above them in their column."""
    filled = board > 0
    rows = jnp.arange(board.shape[-2])[:, None]
    column_top = jnp.max(jnp.where(filled, rows + 1, 0), axis=-2)
    return jnp.sum(~filled & (rows < column_top[..., None, :]), axis=(-2, -1))


def board_rows(board: np.ndarray) -> list[str]:
    """A board (row 0 = bottom) as text rows from its stack's top row down (``#`` filled)."""
    filled = np.asarray(board) > 0
    used = np.flatnonzero(filled.any(axis=1))
    top = int(used.max()) + 1 if used.size else 0
    return ["".join("#" if cell else "." for cell in filled[row]) for row in range(top - 1, -1, -1)]


def rows_to_cells(rows: list[str]) -> list[tuple[int, int]]:
    """The filled ``(row, col)`` cells of :func:`board_rows`' text (row 0 = bottom)."""
    height = len(rows)
    return [
        (height - 1 - i, col)
        for i, text in enumerate(rows)
        for col, cell in enumerate(text)
        if cell == "#"
    ]


def midgame_boards(
    pieces: np.ndarray, topped_out: np.ndarray, snapshots: np.ndarray, marks: tuple[int, ...]
) -> list[list[str]]:
    """Up to ``MIDGAME_KEPT`` mid-game boards (text rows), one per game: the snapshot at the last
    mark within the first half of the game. Games that topped out come first (their survival
    is what gates the headline), shorter games first; games too short or with an empty board
    at that mark give none. ``snapshots`` (G, M, H, W): every game's board at each mark."""
    kept: list[list[str]] = []
    order = sorted(range(len(pieces)), key=lambda g: (not bool(topped_out[g]), int(pieces[g]), g))
    for g in order:
        within = [m for m, mark in enumerate(marks) if mark <= int(pieces[g]) // 2]
        rows = board_rows(snapshots[g, within[-1]]) if within else []
        if rows:
            kept.append(rows)
        if len(kept) == MIDGAME_KEPT:
            break
    return kept


def skill_figures(
    pieces: np.ndarray,
    topped_out: np.ndarray,
    clears: np.ndarray,
    heights: np.ndarray,
    holes: np.ndarray,
    cap: int,
    snapshots: np.ndarray | None = None,
) -> dict[str, Any]:
    """Per-game results → the profile's figures and ``"skills"``.

    ``pieces`` (G,), ``topped_out`` (G,) bool, ``clears`` (G, 5) clear events by size,
    ``heights`` / ``holes`` (G, T): the stack after every piece; ``snapshots`` (G, M, H, W):
    the boards at ``MIDGAME_MARKS`` (gives ``start_states``).
    """
    marks = [mark for mark in SURVIVAL if mark <= cap]
    reached = {f"survive_{mark}": float(np.mean(pieces >= mark)) for mark in marks}
    events = clears[:, 1:].sum()
    shares = {
        name: float(clears[:, size].sum() / events) if events else 0.0
        for size, name in CLEAR_SKILLS.items()
    }
    figures: dict[str, Any] = {"topout_share": float(np.mean(topped_out))}
    ends = np.flatnonzero(topped_out)
    if ends.size:
        at = np.clip(pieces[ends] - PRE_TOPOUT, 0, heights.shape[1] - 1)
        figures["topout_height"] = float(heights[ends, at].mean())
        figures["topout_holes"] = float(holes[ends, at].mean())
    if snapshots is not None:
        taken = MIDGAME_MARKS[: snapshots.shape[1]]
        figures["start_states"] = midgame_boards(pieces, topped_out, snapshots, taken)
    return figures | {"skills": reached | shares}


def describe_skills(figures: Mapping[str, Any]) -> str:
    """The profile in three lines, for prompts and people."""
    skills = dict(figures.get("skills", {}))
    if not skills:
        return ""
    marks = ", ".join(
        f"{mark:,} pieces {100 * skills[f'survive_{mark}']:.0f} %"
        for mark in SURVIVAL
        if f"survive_{mark}" in skills
    )
    lines = [f"games reaching {marks}"]
    if "topout_height" in figures:
        lines.append(
            f"{PRE_TOPOUT} pieces before a top-out the stack is {figures['topout_height']:.1f} "
            f"rows high with {figures['topout_holes']:.1f} holes"
        )
    clears = ", ".join(f"{name[6:]}s {100 * skills[name]:.0f} %" for name in CLEAR_SKILLS.values())
    lines.append(f"line clears: {clears} (singles the rest)")
    frontier = frontier_skills(figures)
    if frontier:
        lines.append(f"to learn next: {', '.join(frontier)}")
    return "\n".join(lines)


def survival_gate(skills: Mapping[str, float], mark: int) -> float:
    """Lines per game a survival mark gates: the share of games that end in its band (after
    the mark before it, short of it) times the lines each loses, from the band's middle to the
    last mark measured (the cap), at ``LINES_PER_PIECE`` a piece."""
    marks = [m for m in SURVIVAL if f"survive_{m}" in skills]
    before = max((m for m in marks if m < mark), default=0)
    reached_before = skills[f"survive_{before}"] if before else 1.0
    ended_here = max(reached_before - skills[f"survive_{mark}"], 0.0)
    return ended_here * (max(marks) - (before + mark) / 2) * LINES_PER_PIECE


def frontier_skills(figures: Mapping[str, Any]) -> list[str]:
    """Every survival mark too few games reach, the most lines gated first (module
    docstring); once none is left, the rare multi-line clears (rarest first, the bigger clear
    first on ties)."""
    skills = dict(figures.get("skills", {}))
    survival = [
        mark
        for mark in SURVIVAL
        if f"survive_{mark}" in skills and skills[f"survive_{mark}"] < FRONTIER_RATE
    ]
    if survival:
        survival.sort(key=lambda mark: (-survival_gate(skills, mark), mark))
        return [f"survive_{mark}" for mark in survival]
    rare = [
        name
        for size, name in sorted(CLEAR_SKILLS.items(), key=lambda item: -item[0])
        if skills.get(name, 1.0) < CLEAR_FRONTIER_SHARE
    ]
    rare.sort(key=lambda name: skills[name])  # rarest first; ties: the bigger clear first
    return rare
