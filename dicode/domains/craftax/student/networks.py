"""The Craftax student's networks: obs -> dense -> memory -> actor, critic.

Two memories, chosen by ``CraftaxPPOConfig.student`` (:func:`make_network`):

- ``"rnn"``: :class:`ActorCriticGRU`, the Craftax paper's PPO-RNN baseline (after PureJaxRL's
  ``ppo_rnn``): one embedding layer, a GRU scanned over time whose state is zeroed wherever an
  observation starts a new episode;
- ``"gtrxl"``: :class:`ActorCriticGTrXL`, DiCode's PPO-GTrXL: the same embedding and heads
  around a gated Transformer-XL (``gtrxl.py``) whose memory holds the embeddings of the
  episode's last M steps.

Both map ``(memory, obs (T, N, D), resets (T, N))`` to ``(memory, logits (T, N, A), value
(T, N))`` and give ``initial_hidden(num_envs)``: the rollout calls them with T = 1, the PPO
replay with the whole sequence, and the rest of the student does not know which it has.
"""

from __future__ import annotations

from typing import Any, cast

import flax.linen as nn
import jax.numpy as jnp
import numpy as np

from dicode.domains.craftax.student.config import CraftaxPPOConfig
from dicode.domains.craftax.student.gtrxl import GatedTransformerXL, Memory
from dicode.student.recurrent import ResettingGRU

RELU_GAIN = nn.initializers.orthogonal(np.sqrt(2))


def _embed(obs: jnp.ndarray, size: int) -> jnp.ndarray:
    return nn.relu(nn.Dense(size, kernel_init=RELU_GAIN, name="embed")(obs))


def _heads(x: jnp.ndarray, num_actions: int, size: int) -> tuple[jnp.ndarray, jnp.ndarray]:
    """Separate actor and critic MLPs on the memory's output (called inside a compact
    ``__call__``: the layers belong to the calling network)."""
    a = nn.relu(nn.Dense(size, kernel_init=RELU_GAIN, name="actor_hidden")(x))
    # A small final layer keeps the first policy near uniform.
    small = nn.initializers.orthogonal(0.01)
    logits = nn.Dense(num_actions, kernel_init=small, name="actor_out")(a)

    c = nn.relu(nn.Dense(size, kernel_init=RELU_GAIN, name="critic_hidden")(x))
    unit = nn.initializers.orthogonal(1.0)
    value = nn.Dense(1, kernel_init=unit, name="critic_out")(c)[..., 0]
    return logits, value


class ActorCriticGRU(nn.Module):
    """``(hidden (N, H), obs (T, N, D), resets (T, N))`` -> ``(hidden, logits (T, N, A),
    value (T, N))``."""

    num_actions: int
    layer_size: int = 256

    @nn.compact
    def __call__(
        self, hidden: jnp.ndarray, obs: jnp.ndarray, resets: jnp.ndarray
    ) -> tuple[jnp.ndarray, jnp.ndarray, jnp.ndarray]:
        x = _embed(obs, self.layer_size)
        hidden, x = ResettingGRU(self.layer_size, name="gru")(hidden, (x, resets))
        logits, value = _heads(x, self.num_actions, self.layer_size)
        return hidden, logits, value

    def initial_hidden(self, num_envs: int) -> jnp.ndarray:
        return jnp.zeros((num_envs, self.layer_size), jnp.float32)


class ActorCriticGTrXL(nn.Module):
    """``(memory, obs (T, N, D), resets (T, N))`` -> ``(memory, logits (T, N, A),
    value (T, N))``; ``resets[t]`` hides every earlier step from step t on."""

    num_actions: int
    layer_size: int = 256  # the heads' width
    embed_size: int = 128
    num_heads: int = 4
    num_layers: int = 2
    memory_length: int = 64
    gate_bias: float = 2.0

    @nn.compact
    def __call__(
        self, memory: Memory, obs: jnp.ndarray, resets: jnp.ndarray
    ) -> tuple[Memory, jnp.ndarray, jnp.ndarray]:
        x = _embed(obs, self.embed_size)
        core = GatedTransformerXL(
            self.num_layers, self.num_heads, self.memory_length, self.gate_bias, name="gtrxl"
        )
        # The core works env-major: (N, T, D).
        memory, x = core(memory, x.swapaxes(0, 1), resets.swapaxes(0, 1))
        logits, value = _heads(x.swapaxes(0, 1), self.num_actions, self.layer_size)
        return memory, logits, value

    def initial_hidden(self, num_envs: int) -> Memory:
        return Memory.empty(num_envs, self.num_layers, self.memory_length, self.embed_size)


ActorCritic = ActorCriticGRU | ActorCriticGTrXL


def make_network(config: CraftaxPPOConfig, num_actions: int) -> ActorCritic:
    """The network ``config.student`` names."""
    if config.student == "gtrxl":
        return ActorCriticGTrXL(
            num_actions,
            config.layer_size,
            embed_size=config.gtrxl_embed,
            num_heads=config.gtrxl_heads,
            num_layers=config.gtrxl_layers,
            memory_length=config.gtrxl_memory,
            gate_bias=config.gtrxl_gate_bias,
        )
    return ActorCriticGRU(num_actions, config.layer_size)


def apply_policy(
    network: ActorCritic,
    params: Any,
    hidden: Any,
    obs: jnp.ndarray,
    resets: jnp.ndarray,
) -> tuple[Any, jnp.ndarray, jnp.ndarray]:
    """``network.apply`` with its result typed: ``(memory, logits, value)``; the memory is a
    GRU state array or a GTrXL :class:`~dicode.domains.craftax.student.gtrxl.Memory`."""
    out = network.apply(params, hidden, obs, resets)
    return cast(tuple[Any, jnp.ndarray, jnp.ndarray], out)
