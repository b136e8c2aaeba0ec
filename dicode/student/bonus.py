"""DiCode's completion bonus: one function and one config type for every world.

``B = max(d, k · R_prev)`` is paid when an episode reaches its level's goal, where ``R_prev`` is
the target game's mean return of the previous iteration (Dreaming in Code; d = 20, k = 2). It is
data of every compiled iteration, so a new ``R_prev`` never recompiles. The reference
implementation never passed R in (its bonus stayed 20); here it is wired for real.

``BONUS`` holds the paper's constants, in the units of Craftax's returns; a world whose returns
live on another scale states its own ``BonusConfig`` in its reward's units (the maze: returns
≤ 1; Tetris: a fixed d, its config says why).
"""

from __future__ import annotations

from dataclasses import dataclass

import jax.numpy as jnp


@dataclass(frozen=True)
class BonusConfig:
    """The bonus's two constants (the paper's values)."""

    floor: float = 20.0  # d: the least a completed level pays
    scale: float = 2.0  # k: times the target's previous mean return


BONUS = BonusConfig()


def completion_bonus(
    success: jnp.ndarray, r_prev: jnp.ndarray, config: BonusConfig = BONUS
) -> jnp.ndarray:
    """``max(d, k · R_prev)`` where a level's goal was met this step, else 0."""
    bonus = jnp.maximum(config.floor, config.scale * r_prev)
    return jnp.where(success, bonus, 0.0)
