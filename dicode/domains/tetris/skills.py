"""The Tetris target student's skill profile: how far its games get, how they end, how it
clears lines — measured on the greedy target protocol's games.

Skills (rates in [0, 1]):
- ``survive_250``, ``survive_500``, ``survive_1000``: the share of games that place that many
  pieces (a game stopped by the piece cap survived it);
- ``clear_double``, ``clear_triple``, ``clear_tetris``: the share of line-clear events that
  clear 2, 3, 4 rows at once (singles are the rest).
Figures beside them (what a skill level is built from): ``topout_share`` (games that topped
out), ``topout_height`` and ``topout_holes`` — the stack's height and holes
``PRE_TOPOUT`` pieces before a top-out, averaged over the games that topped out.

The frontier is the first survival mark fewer than ``FRONTIER_RATE`` of the games reach (the
level: a stack like the pre-top-out boards, survive from there), then the rarest multi-line
clear (the level: a well and the piece that fills it).
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


def skill_figures(
    pieces: np.ndarray,
    topped_out: np.ndarray,
    clears: np.ndarray,
    heights: np.ndarray,
    holes: np.ndarray,
    cap: int,
) -> dict[str, Any]:
    """Per-game results → the profile's figures and ``"skills"``.

    ``pieces`` (G,), ``topped_out`` (G,) bool, ``clears`` (G, 5) clear events by size,
    ``heights`` / ``holes`` (G, T): the stack after every piece.
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
    return figures | {"skills": reached | shares}


def describe(figures: Mapping[str, Any]) -> str:
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


def frontier_skills(figures: Mapping[str, Any]) -> list[str]:
    """The first survival mark too few games reach, then rare multi-line clears (rarest
    first, the bigger clear first on ties)."""
    skills = dict(figures.get("skills", {}))
    survival = [
        f"survive_{mark}" for mark in SURVIVAL if skills.get(f"survive_{mark}", 1.0) < FRONTIER_RATE
    ][:1]
    rare = [
        name
        for size, name in sorted(CLEAR_SKILLS.items(), key=lambda item: -item[0])
        if skills.get(name, 1.0) < CLEAR_FRONTIER_SHARE
    ]
    rare.sort(key=lambda name: skills[name])  # rarest first; ties: the bigger clear first
    return survival + rare
