"""Generalised advantage estimation (Schulman et al. 2016, arXiv:1506.02438), for the one PPO
(``dicode.student.ppo``)."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp


def gae(
    traj: Any, last_value: jnp.ndarray, gamma: float, gae_lambda: float
) -> tuple[jnp.ndarray, jnp.ndarray]:
    """Advantages and value targets, scanned backwards over time.

    ``traj`` is a pytree of time-major arrays with ``reward``, ``value`` and ``done`` fields;
    ``last_value`` is the value of the state after the last step.
    """

    def back(carry: tuple, step: Any) -> tuple[tuple, jnp.ndarray]:
        advantage, next_value = carry
        not_done = 1.0 - step.done.astype(jnp.float32)
        delta = step.reward + gamma * next_value * not_done - step.value
        advantage = delta + gamma * gae_lambda * not_done * advantage
        return (advantage, step.value), advantage

    _, adv = jax.lax.scan(back, (jnp.zeros_like(last_value), last_value), traj, reverse=True)
    return adv, adv + traj.value
