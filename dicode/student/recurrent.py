"""The recurrent policies of the PPO (``dicode.student.ppo``): a GRU that resets at episode
starts, and :class:`RecurrentPolicy`, the plug-in that runs any memory network (a GRU, or
Craftax's GTrXL) — the rollout carries its memory step by step, the update replays whole
environment sequences from the rollout's first memory (after PureJaxRL's ``ppo_rnn``).

A world keeps its own network (its torso and heads around the memory); the PPO sees it only
through :class:`RecurrentPolicy`.
"""

from __future__ import annotations

import functools
from typing import Any, Protocol, cast

import flax.linen as nn
import jax
import jax.numpy as jnp

from dicode.student.ppo import Step


class ResettingGRU(nn.Module):
    """A GRU scanned over the leading (time) axis; ``resets[t]`` zeroes the state first."""

    features: int

    @functools.partial(
        nn.scan,
        variable_broadcast="params",
        split_rngs={"params": False},
        in_axes=0,
        out_axes=0,
    )
    @nn.compact
    def __call__(
        self, hidden: jnp.ndarray, inputs: tuple[jnp.ndarray, jnp.ndarray]
    ) -> tuple[jnp.ndarray, jnp.ndarray]:
        x, reset = inputs
        hidden = jnp.where(reset[:, None], 0.0, hidden)
        hidden, out = nn.GRUCell(features=self.features)(hidden, x)
        return hidden, out


class MemoryNetwork(Protocol):
    """``apply(params, memory, obs (T, N, ...), resets (T, N)[, pays (T, N)])`` ->
    ``(memory, logits (T, N, A), value (T, N))``: a flax module with a memory over time."""

    def init(self, key: jax.Array, /, *args: Any) -> Any: ...
    def apply(self, params: Any, /, *args: Any) -> Any: ...
    def initial_hidden(self, num_envs: int) -> Any: ...


class RecurrentPolicy:
    """A memory network as the PPO's policy (``dicode.student.ppo.Policy``).

    ``critic_reads_pays``: the network takes a fourth input, whether the env's level pays the
    completion bonus (the maze's critic reads it; the view alone cannot tell a level from the
    target game).
    """

    recurrent = True
    clip_value = True

    def __init__(self, network: MemoryNetwork, critic_reads_pays: bool = False) -> None:
        self.network = cast(nn.Module, network)
        self._memory = network
        self.critic_reads_pays = critic_reads_pays

    def _apply(
        self, params: Any, hidden: Any, obs: jnp.ndarray, starts: jnp.ndarray, pays: Any
    ) -> tuple[Any, jnp.ndarray, jnp.ndarray]:
        extra = (pays,) if self.critic_reads_pays else ()
        out = self._memory.apply(params, hidden, obs, starts, *extra)
        return cast(tuple[Any, jnp.ndarray, jnp.ndarray], out)

    def init(self, key: jax.Array, example_obs: jnp.ndarray, num_envs: int) -> Any:
        n = num_envs
        obs = jnp.zeros((1, n, *example_obs.shape), example_obs.dtype)
        extra = (jnp.zeros((1, n), bool),) if self.critic_reads_pays else ()
        return self._memory.init(key, self.initial_hidden(n), obs, jnp.ones((1, n), bool), *extra)

    def initial_hidden(self, num_envs: int) -> Any:
        return self._memory.initial_hidden(num_envs)

    def act(
        self, params: Any, hidden: Any, obs: jnp.ndarray, starts: jnp.ndarray, pays: jnp.ndarray
    ) -> tuple[Any, jnp.ndarray, jnp.ndarray, Any]:
        hidden, logits, value = self._apply(params, hidden, obs[None], starts[None], pays[None])
        return hidden, logits[0], value[0], ()

    def last_value(
        self, params: Any, hidden: Any, obs: jnp.ndarray, starts: jnp.ndarray, pays: jnp.ndarray
    ) -> jnp.ndarray:
        return self._apply(params, hidden, obs[None], starts[None], pays[None])[2][0]

    def replay(self, params: Any, hidden: Any, steps: Step) -> tuple[jnp.ndarray, jnp.ndarray]:
        # Steps need a ``pays`` field only where the network reads it.
        pays = steps.pays if self.critic_reads_pays else None
        _, logits, value = self._apply(params, hidden, steps.obs, steps.start, pays)
        return logits, value

    def legal(self, obs: Any) -> None:
        return None
