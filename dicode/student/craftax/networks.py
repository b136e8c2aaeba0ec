"""The Craftax student's network: obs -> dense -> GRU (reset at episode starts) -> actor, critic.

As the Craftax paper's PPO-RNN baseline (after PureJaxRL's ``ppo_rnn``): one embedding layer,
a GRU scanned over time whose state is zeroed wherever an observation starts a new episode,
and separate actor and critic MLP heads on the GRU output.
"""

from __future__ import annotations

from typing import Any, cast

import flax.linen as nn
import jax.numpy as jnp
import numpy as np

from dicode.student.recurrent import ResettingGRU


class ActorCriticGRU(nn.Module):
    """``(hidden (N, H), obs (T, N, D), resets (T, N))`` -> ``(hidden, logits (T, N, A),
    value (T, N))``."""

    num_actions: int
    layer_size: int = 256

    @nn.compact
    def __call__(
        self, hidden: jnp.ndarray, obs: jnp.ndarray, resets: jnp.ndarray
    ) -> tuple[jnp.ndarray, jnp.ndarray, jnp.ndarray]:
        relu_gain = nn.initializers.orthogonal(np.sqrt(2))
        x = nn.relu(nn.Dense(self.layer_size, kernel_init=relu_gain, name="embed")(obs))
        hidden, x = ResettingGRU(self.layer_size, name="gru")(hidden, (x, resets))

        a = nn.relu(nn.Dense(self.layer_size, kernel_init=relu_gain, name="actor_hidden")(x))
        # A small final layer keeps the first policy near uniform.
        small = nn.initializers.orthogonal(0.01)
        logits = nn.Dense(self.num_actions, kernel_init=small, name="actor_out")(a)

        c = nn.relu(nn.Dense(self.layer_size, kernel_init=relu_gain, name="critic_hidden")(x))
        unit = nn.initializers.orthogonal(1.0)
        value = nn.Dense(1, kernel_init=unit, name="critic_out")(c)[..., 0]
        return hidden, logits, value

    def initial_hidden(self, num_envs: int) -> jnp.ndarray:
        return jnp.zeros((num_envs, self.layer_size), jnp.float32)


def apply_policy(
    network: ActorCriticGRU,
    params: Any,
    hidden: jnp.ndarray,
    obs: jnp.ndarray,
    resets: jnp.ndarray,
) -> tuple[jnp.ndarray, jnp.ndarray, jnp.ndarray]:
    """``network.apply`` with its result typed: ``(hidden, logits, value)``."""
    out = network.apply(params, hidden, obs, resets)
    return cast(tuple[jnp.ndarray, jnp.ndarray, jnp.ndarray], out)
