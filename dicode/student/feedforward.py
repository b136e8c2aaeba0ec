"""The one PPO's ``Policy`` plug-in for a memoryless network ``obs -> (logits, value)``.

Beside ``recurrent.RecurrentPolicy``: a world whose network needs no memory and no legal-move
mask hands its flax module to :class:`FeedForwardPolicy` instead of writing the plumbing again.
"""

from __future__ import annotations

from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp

from dicode.student.ppo import Step


class FeedForwardPolicy:
    """No memory (the hidden state is ``()``), every action legal, values clipped."""

    recurrent = False
    clip_value = True

    def __init__(self, network: nn.Module) -> None:
        self.network = network

    def init(self, key: jax.Array, example_obs: jax.Array, num_envs: int) -> Any:
        return self.network.init(key, example_obs[None])

    def initial_hidden(self, num_envs: int) -> tuple[()]:
        return ()

    def act(self, params: Any, hidden: Any, obs: jax.Array, starts: Any, pays: Any) -> tuple:
        logits, value = self.network.apply(params, obs)
        return hidden, logits, value, ()

    def last_value(self, params: Any, hidden: Any, obs: jax.Array, starts: Any, pays: Any) -> Any:
        return self.network.apply(params, obs)[1]

    def replay(self, params: Any, hidden: None, steps: Step) -> tuple[jax.Array, jax.Array]:
        logits, value = self.network.apply(params, steps.obs)
        return jnp.asarray(logits), jnp.asarray(value)

    def legal(self, obs: jax.Array) -> None:
        return None
