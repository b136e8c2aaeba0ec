"""Every one-piece Tetris policy by name, as a pure ``policy(key, board, piece) -> action``:
the baselines without a planner, the weighted planners of ``heuristics.py`` and the
mixture-of-experts ranker of ``moe.py`` (which builds on the planners' features)."""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

from dicode.domains.tetris import legacy, moe
from dicode.domains.tetris.heuristics import WEIGHTS, best_candidate, scores, tie_break_priority
from dicode.domains.tetris.placements import afterstates

#: Baselines without a planner: uniform over legal placements, and the first legal one in action
#: order (what an unusable LLM answer falls back to: a fixed, dumb choice). "moe" is the rule-based
#: mixture-of-experts ranker of ``moe.py``.
POLICIES = ("random", "first_legal", *WEIGHTS, "moe")


Policy = Callable[[jax.Array, jnp.ndarray, jnp.ndarray], jnp.ndarray]


def make_policy(name: str, legacy_actions: bool = False) -> Policy:
    """A pure ``policy(key, board, piece) -> action`` by name (see ``POLICIES``).

    With ``legacy_actions`` the returned action is in the legacy 40-action encoding, and the
    planner can only choose among placements the legacy encoding reaches.
    """
    if name not in POLICIES:
        raise ValueError(f"unknown policy {name!r}; expected one of {', '.join(POLICIES)}")

    def candidate_values(board: jnp.ndarray, piece: jnp.ndarray) -> jnp.ndarray:
        candidates = afterstates(board, piece)
        if name in ("random", "first_legal"):
            value = jnp.where(candidates.legal, 0.0, -jnp.inf)
        elif name == "moe":
            value = moe.scores(candidates, board)
        else:
            value = scores(candidates, jnp.asarray(WEIGHTS[name]))
        if legacy_actions:
            width = board.shape[1]
            every = jnp.arange(value.shape[0])
            value = value[legacy.to_placement(piece, every, width)]
        return value

    def policy(key: jax.Array, board: jnp.ndarray, piece: jnp.ndarray) -> jnp.ndarray:
        value = candidate_values(board, piece)
        if name == "random":
            # Uniform over legal actions: Gumbel noise on a 0 / −inf mask.
            return jnp.argmax(value + jax.random.gumbel(key, value.shape)).astype(jnp.int32)
        if name == "first_legal":
            return jnp.argmax(value > -jnp.inf).astype(jnp.int32)  # argmax: the first True
        priority = tie_break_priority(piece, board.shape[1])
        if legacy_actions:
            priority = priority[
                legacy.to_placement(piece, jnp.arange(value.shape[0]), board.shape[1])
            ]
        return best_candidate(value, priority)

    return policy
