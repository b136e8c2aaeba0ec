"""DiCode's completion bonus, in each world's reward units: one formula, one step wrapper.

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

``R̄`` is data of every compiled iteration (an argument), so a new value never recompiles.
``paper=True`` restores the uncapped ``max(d, k · R̄)`` (an ablation arm). A level already
solved at reset pays nothing (the reference implementation's bug); the worlds see to that.

:func:`with_completion_bonus` wraps a world's step ``(key, state, action, slots) -> (obs,
state, reward, done, info)`` whose ``info["completed"]`` marks the envs that completed a goal
this step; the engines themselves know nothing of the bonus.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp

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


Step = Callable[..., tuple[Any, Any, jnp.ndarray, jnp.ndarray, dict[str, jnp.ndarray]]]


def with_completion_bonus(step: Step, config: BonusConfig) -> Step:
    """``step(key, state, action, slots)`` with the bonus added: the wrapped step takes R̄ as
    one more argument and returns the reward with the bonus; ``info`` gains ``bonus`` (paid)
    and ``engine_reward`` (the world's own reward)."""

    def bonus_step(
        key: Any, state: Any, action: Any, slots: Any, target_return: jnp.ndarray
    ) -> tuple[Any, Any, jnp.ndarray, jnp.ndarray, dict[str, jnp.ndarray]]:
        obs, state, reward, done, info = step(key, state, action, slots)
        bonus = completion_bonus(info["completed"], target_return, config)
        info = info | {"bonus": bonus, "engine_reward": reward}
        return obs, state, reward + bonus, done, info

    return bonus_step
