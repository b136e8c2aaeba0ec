"""A rule-based mixture-of-experts (MoE) ranker over candidate placements.

The field report's ``moe_macro_policy.py`` is described only in one sentence (a rule-based
mixture of experts ranking candidates, run on the 40-action encoding, 12.4 lines); this module
rebuilds the idea from that description so it can be measured on both encodings.

**Experts.** Each expert is a small linear rule over the features of a candidate's afterstate
(the nine of ``heuristics.FEATURES`` plus the afterstate's ``max_height``, the tallest column,
and ``bumpiness``, the sum of |height differences| of neighbouring columns). Weights are small
round numbers in board units (cells, rows, transitions), so the experts are commensurate
without any per-board normalisation: a new hole in a clean row costs the holes expert 3, a row
of height costs the stack expert 1–2, a cleared row earns the lines expert 1 plus its eroded
cells:

=========  ======================================================================
expert     score of a candidate (higher is better)
=========  ======================================================================
holes      −holes − 2·rows_with_holes − 0.25·hole_depth  (never bury cells)
stack      −landing_height − max_height  (stay low; a clear lowers max_height)
lines      +rows_eliminated + 0.5·eroded_piece_cells  (clear, multi-line clears more)
surface    −0.5·row_transitions − column_transitions − 0.5·cumulative_wells
           − 0.25·bumpiness  (a flat surface without deep wells that takes any piece)
=========  ======================================================================

**Gate.** The gate reads the *current* board (before the piece lands), so every candidate of a
decision is ranked by the same mixture. Two signals, each in [0, 1]:
``stack = max column height / board height`` and
``hole_load = min(rows with holes / HOLE_ROWS_FULL, 1)`` (``HOLE_ROWS_FULL = 4``).
The gate weights are ``softmax(GATE_BIAS + GATE_SLOPE @ [stack, hole_load])``, a convex
combination of the experts, and the candidate's value is ``Σ_k gate_k · expert_k``:

=======  ====  ===========  ===============
expert   bias  stack slope  hole-load slope
=======  ====  ===========  ===============
holes    0     +1           +1.5
stack    0     +2           0
lines    1     −1           0
surface  1     0            0
=======  ====  ===========  ===============

Why these constants: on an empty board the biases give lines and surface e¹/(2 + 2e) ≈ 0.37
each and holes and stack ≈ 0.13 each — a low clean board builds a flat surface and takes line
clears. The stack slope (+2 on the stack expert, +1 on holes, −1 on lines) shifts weight to the
survival experts as the stack rises; the hole-load slope (+1.5) shifts it to the holes expert
on a board with rows of holes. On a tall holey board (stack 0.75, hole load 1) the weights are
holes 0.53, stack 0.25, lines 0.07, surface 0.15. Surface has no slope, so no mixture ever
stops caring about the surface.

One tuning step, on evaluation seeds 1 and 2 (10 games each, 1,000-piece cap; never on the
protocol's seed 0): the first, reasoned slopes were twice these. With them, holes buried at
the bottom (which no placement can fix) saturated the hole load and gave the holes expert
≈ 0.8 of the weight, the surface went ragged and games died (mean 331 and 250 lines; 12 of 20
games capped). Halving every slope gave 369 and 398 lines (19 of 20 capped).

Illegal candidates score −inf; ties are broken as the heuristic planners break them
(``heuristics.best_candidate`` with ``heuristics.tie_break_priority``), in ``policies.make_policy``.
Everything is pure and jittable, vectorised over the candidates like the heuristics.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from dicode.domains.tetris.heuristics import FEATURES, board_features, features
from dicode.domains.tetris.placements import Afterstates, column_heights

CANDIDATE_FEATURES = (*FEATURES, "max_height", "bumpiness")
EXPERTS = ("holes", "stack", "lines", "surface")

_EXPERT_RULES: dict[str, dict[str, float]] = {
    "holes": {"holes": -1.0, "rows_with_holes": -2.0, "hole_depth": -0.25},
    "stack": {"landing_height": -1.0, "max_height": -1.0},
    "lines": {"rows_eliminated": 1.0, "eroded_piece_cells": 0.5},
    "surface": {
        "row_transitions": -0.5,
        "column_transitions": -1.0,
        "cumulative_wells": -0.5,
        "bumpiness": -0.25,
    },
}

#: (experts, candidate features): row k holds expert k's weights in ``CANDIDATE_FEATURES`` order.
EXPERT_WEIGHTS = np.array(
    [[_EXPERT_RULES[e].get(f, 0.0) for f in CANDIDATE_FEATURES] for e in EXPERTS], np.float32
)

HOLE_ROWS_FULL = 4  # rows with holes at which the hole-load signal saturates
GATE_BIAS = np.array([0.0, 0.0, 1.0, 1.0], np.float32)
#: (experts, signals): gate logit slopes on (stack, hole_load).
GATE_SLOPE = np.array([[1.0, 1.5], [2.0, 0.0], [-1.0, 0.0], [0.0, 0.0]], np.float32)

_ROWS_WITH_HOLES = FEATURES.index("rows_with_holes") - 3  # index in board_features' output


def surface_features(board: jnp.ndarray) -> jnp.ndarray:
    """(2,) float32: ``max_height`` and ``bumpiness`` of one board."""
    heights = column_heights(board)
    bumpiness = jnp.sum(jnp.abs(heights[1:] - heights[:-1]))
    return jnp.stack([jnp.max(heights), bumpiness]).astype(jnp.float32)


def candidate_features(candidates: Afterstates) -> jnp.ndarray:
    """(A, 11) float32 features of every candidate, in ``CANDIDATE_FEATURES`` order."""
    surface = jax.vmap(surface_features)(candidates.boards)
    return jnp.concatenate([features(candidates), surface], axis=1)


def expert_scores(candidates: Afterstates) -> jnp.ndarray:
    """(A, experts) float32: every expert's score of every candidate (illegal ones included)."""
    return candidate_features(candidates) @ jnp.asarray(EXPERT_WEIGHTS).T


def gate_signals(board: jnp.ndarray) -> jnp.ndarray:
    """(2,) float32 in [0, 1]: (stack, hole_load) of the current board."""
    stack = jnp.max(column_heights(board)) / board.shape[0]
    rows_with_holes = board_features(board)[_ROWS_WITH_HOLES]
    hole_load = jnp.minimum(rows_with_holes / HOLE_ROWS_FULL, 1.0)
    return jnp.stack([stack, hole_load]).astype(jnp.float32)


def gate(board: jnp.ndarray) -> jnp.ndarray:
    """(experts,) float32: the experts' weights for this board, non-negative and summing to 1."""
    logits = jnp.asarray(GATE_BIAS) + jnp.asarray(GATE_SLOPE) @ gate_signals(board)
    return jax.nn.softmax(logits)


def scores(candidates: Afterstates, board: jnp.ndarray) -> jnp.ndarray:
    """(A,) float32: the gated mixture of expert scores per candidate, −inf where illegal."""
    value = expert_scores(candidates) @ gate(board)
    return jnp.where(candidates.legal, value, -jnp.inf)
