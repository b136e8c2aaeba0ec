"""The pieces of the PPO loss every world's student shares (Schulman et al. 2017)."""

from __future__ import annotations

import jax.numpy as jnp


def clipped_surrogate(
    log_prob: jnp.ndarray, old_log_prob: jnp.ndarray, advantages: jnp.ndarray, clip_eps: float
) -> jnp.ndarray:
    """PPO's clipped surrogate objective, negated to a loss; advantages are normalised over the
    minibatch first."""
    ratio = jnp.exp(log_prob - old_log_prob)
    adv = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    return -jnp.minimum(ratio * adv, jnp.clip(ratio, 1 - clip_eps, 1 + clip_eps) * adv).mean()
