"""DiCode's completion bonus, in each world's reward units: one formula, one wrapper.

The paper pays ``B = max(d, k · R_prev)`` when an episode reaches its level's goal (d = 20,
k = 2, ``R_prev`` the target game's mean return of the previous iteration). Here

    B = max(ε, min(max(d, k · R̄), R̄))

with ``R̄`` the *running* mean return of a whole target episode (:func:`running_return`, about
the last ``RUNNING_EPISODES`` target episodes) and ε the world's least reward step. That is the
paper's bonus, capped at R̄: a completed goal is never worth more than a whole game of the
target. Why: d = 20 is set in the units of a Craftax game that returns ≈ 100 after 2B steps;
at our budgets a Craftax game returns ≈ 4.5 (one goal paid four games), a maze ≤ 1 (one solve
paid ≈ 1.7), and on Tetris ``2 · R_prev`` made one short level worth several target games —
the bonus swamped the return it was meant to steer (the Tetris ablation: +138 lines without it).
ε keeps a goal worth something while the target still returns nothing (R̄ ≤ ε): then B = ε.

``R̄`` is data of every compiled iteration (a field of the wrapper's params), so a new value
never recompiles. ``paper=True`` restores the uncapped ``max(d, k · R̄)`` (an ablation arm). A
level already solved at reset pays nothing (the reference implementation's bug): the engines'
``info["completed"]`` marks only the step that completes a goal.

:class:`CompletionBonus` is the one wrapper every world's student uses: an environment (the
interface of ``dicode.environment``) over :class:`BonusParams` — the world's own params, R̄ and
whether the level pays at all (a curriculum's choice: the maze's target game has a goal but
pays nothing, nor do the literature's curricula) — that adds the bonus to the world's reward.
The engines themselves know nothing of the bonus.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

import flax.struct
import jax
import jax.numpy as jnp

from dicode.environment import Environment

Ob = TypeVar("Ob")
S = TypeVar("S")
P = TypeVar("P")

#: R̄ follows about this many of the latest target episodes (an exponential mean per episode).
RUNNING_EPISODES = 32


@dataclass(frozen=True)
class BonusConfig:
    """A world's bonus constants, in its reward's units."""

    floor: float = 20.0  # d (the paper: 20)
    scale: float = 2.0  # k (the paper: 2)
    least: float = 0.1  # ε: what a goal pays while the target's running return is below it
    paper: bool = False  # True: DiCode's uncapped max(d, k · R̄)


def completion_bonus(
    success: jnp.ndarray, target_return: jnp.ndarray, config: BonusConfig
) -> jnp.ndarray:
    """The bonus where a level's goal was completed this step, else 0 (module docstring)."""
    paper = jnp.maximum(config.floor, config.scale * target_return)
    bonus = paper if config.paper else jnp.maximum(config.least, jnp.minimum(paper, target_return))
    return jnp.where(success, bonus, 0.0)


def running_return(
    mean: float, seen: int, batch_mean: float, episodes: int, window: int = RUNNING_EPISODES
) -> tuple[float, int]:
    """R̄ after ``episodes`` more target episodes of mean return ``batch_mean``.

    Each episode moves R̄ by 1/``window`` of the way (so a batch of n moves it by
    ``1 − (1 − 1/window)^n``); the first batch sets it. Returns ``(R̄, episodes seen)``.
    """
    if episodes <= 0:
        return mean, seen
    if seen == 0:
        return float(batch_mean), episodes
    weight = 1.0 - (1.0 - 1.0 / window) ** episodes
    return float(mean + weight * (batch_mean - mean)), seen + episodes


@flax.struct.dataclass
class BonusParams(Generic[P]):
    """The wrapped environment's params: the world's own, R̄ and whether the level pays."""

    env: P  # the world's params (level and settings)
    target_return: jax.Array  # R̄, the target's running mean return (float32, per env)
    pays: jax.Array  # bool per env: its level pays the bonus on completion


class CompletionBonus(Generic[Ob, S, P]):
    """``env`` with the bonus added to its reward where ``info["completed"]`` and the level
    pays; ``info`` gains ``bonus`` (paid) and ``engine_reward`` (the world's own reward)."""

    def __init__(self, env: Environment[Ob, S, P], config: BonusConfig) -> None:
        self.env, self.config = env, config

    def reset(self, key: jax.Array, params: BonusParams[P]) -> tuple[Ob, S]:
        return self.env.reset(key, params.env)

    def step(
        self, key: jax.Array, state: S, action: jax.Array, params: BonusParams[P]
    ) -> tuple[Ob, S, jax.Array, jax.Array, dict[str, jax.Array]]:
        obs, state, reward, done, info = self.env.step(key, state, action, params.env)
        paid = info["completed"] & params.pays
        bonus = completion_bonus(paid, params.target_return, self.config)
        info = info | {"bonus": bonus, "engine_reward": reward}
        return obs, state, reward + bonus, done, info
