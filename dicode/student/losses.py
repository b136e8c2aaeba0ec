"""PPO's loss (Schulman et al. 2017, arXiv:1707.06347), one for every world's student."""

from __future__ import annotations

from typing import Protocol

import jax
import jax.numpy as jnp


def clipped_surrogate(
    log_prob: jnp.ndarray, old_log_prob: jnp.ndarray, advantages: jnp.ndarray, clip_eps: float
) -> jnp.ndarray:
    """PPO's clipped surrogate objective, negated to a loss; advantages are normalised over the
    minibatch first."""
    ratio = jnp.exp(log_prob - old_log_prob)
    adv = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    return -jnp.minimum(ratio * adv, jnp.clip(ratio, 1 - clip_eps, 1 + clip_eps) * adv).mean()


class LossWeights(Protocol):
    """The loss's hyperparameters (a world's config)."""

    @property
    def clip_eps(self) -> float: ...
    @property
    def vf_coef(self) -> float: ...
    @property
    def ent_coef(self) -> float: ...


class _Stored(Protocol):
    """What the loss reads of a stored rollout step."""

    @property
    def action(self) -> jnp.ndarray: ...
    @property
    def log_prob(self) -> jnp.ndarray: ...
    @property
    def value(self) -> jnp.ndarray: ...


def ppo_loss(
    logits: jnp.ndarray,
    value: jnp.ndarray,
    step: _Stored,
    advantages: jnp.ndarray,
    targets: jnp.ndarray,
    weights: LossWeights,
    clip_value: bool,
    legal: jnp.ndarray | None,
) -> tuple[jnp.ndarray, dict[str, jnp.ndarray]]:
    """PPO's loss on a minibatch: clipped surrogate + ``vf_coef`` · value loss − ``ent_coef`` ·
    entropy; the value loss is clipped around the rollout's values when ``clip_value``, and the
    entropy counts only ``legal`` actions when a mask is given."""
    c = weights
    logp_all = jax.nn.log_softmax(logits)
    log_prob = jnp.take_along_axis(logp_all, step.action[..., None], -1)[..., 0]
    pg = clipped_surrogate(log_prob, step.log_prob, advantages, c.clip_eps)
    if clip_value:
        clipped = step.value + jnp.clip(value - step.value, -c.clip_eps, c.clip_eps)
        v_loss = 0.5 * jnp.maximum((value - targets) ** 2, (clipped - targets) ** 2).mean()
    else:
        v_loss = 0.5 * ((value - targets) ** 2).mean()
    terms = jnp.exp(logp_all) * logp_all
    if legal is not None:
        terms = jnp.where(legal, terms, 0.0)
    entropy = -jnp.sum(terms, axis=-1).mean()
    total = pg + c.vf_coef * v_loss - c.ent_coef * entropy
    return total, {"policy_loss": pg, "value_loss": v_loss, "entropy": entropy}
