"""The maze student's network: view + direction -> MLP -> GRU (reset at episode starts) ->
actor and critic heads.

The observation is tiny (a 5×5 view with wall and goal channels, plus the direction one-hot:
54 floats), so two dense layers embed it; a GRU scanned over time carries memory (the maze is
partially observed), its state zeroed wherever an observation starts a new episode. The critic
also reads whether the slot pays the completion bonus (a level's success is worth the bonus,
the target game's only its own reward; the view alone cannot tell them apart); the actor does
not, so the policy is the same on levels, the target game and the held-out mazes.
"""

from __future__ import annotations

from typing import Any, cast

import flax.linen as nn
import jax.numpy as jnp
import numpy as np

from dicode.student.recurrent import ResettingGRU


class MazeActorCritic(nn.Module):
    """``(hidden (N, H), obs (T, N, D), resets (T, N), bonus (T, N))`` -> ``(hidden,
    logits (T, N, A), value (T, N))``."""

    num_actions: int
    embed_size: int = 64
    hidden_size: int = 128

    @nn.compact
    def __call__(
        self, hidden: jnp.ndarray, obs: jnp.ndarray, resets: jnp.ndarray, bonus: jnp.ndarray
    ) -> tuple[jnp.ndarray, jnp.ndarray, jnp.ndarray]:
        relu_gain = nn.initializers.orthogonal(np.sqrt(2))
        x = nn.relu(nn.Dense(self.embed_size, kernel_init=relu_gain, name="embed_1")(obs))
        x = nn.relu(nn.Dense(self.embed_size, kernel_init=relu_gain, name="embed_2")(x))
        hidden, x = ResettingGRU(self.hidden_size, name="gru")(hidden, (x, resets))

        a = nn.relu(nn.Dense(self.hidden_size, kernel_init=relu_gain, name="actor_hidden")(x))
        # A small final layer keeps the first policy near uniform.
        small = nn.initializers.orthogonal(0.01)
        logits = nn.Dense(self.num_actions, kernel_init=small, name="actor_out")(a)

        critic_in = jnp.concatenate([x, bonus[..., None].astype(x.dtype)], axis=-1)
        c = nn.relu(
            nn.Dense(self.hidden_size, kernel_init=relu_gain, name="critic_hidden")(critic_in)
        )
        value = nn.Dense(1, kernel_init=nn.initializers.orthogonal(1.0), name="critic_out")(c)
        return hidden, logits, value[..., 0]

    def initial_hidden(self, num_envs: int) -> jnp.ndarray:
        return jnp.zeros((num_envs, self.hidden_size), jnp.float32)


def apply_policy(
    network: MazeActorCritic,
    params: Any,
    hidden: jnp.ndarray,
    obs: jnp.ndarray,
    resets: jnp.ndarray,
    bonus: jnp.ndarray,
) -> tuple[jnp.ndarray, jnp.ndarray, jnp.ndarray]:
    """``network.apply`` with its result typed: ``(hidden, logits, value)``."""
    out = network.apply(params, hidden, obs, resets, bonus)
    return cast(tuple[jnp.ndarray, jnp.ndarray, jnp.ndarray], out)
