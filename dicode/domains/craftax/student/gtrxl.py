"""Gated Transformer-XL (GTrXL): the transformer memory of the PPO-GTrXL student.

Parisotto et al. 2020, "Stabilizing Transformers for Reinforcement Learning" (arXiv:1910.06764),
on Transformer-XL (Dai et al. 2019, arXiv:1901.02860). Layer l maps its input ``E`` (one
embedding per step) to the next layer's input::

    Y  = gate(E, ReLU(Attention(LN([memory_l, E]))))   # memory_l: layer l's inputs at past steps
    E' = gate(Y, ReLU(MLP(LN(Y))))

*Identity-map reordering*: layer norm only on the sublayer inputs, so the path from ``E`` to
``E'`` has no normalisation on it. *Gating*: a GRU-type gate replaces each residual sum,
``gate(x, y) = (1 - z) x + z h`` with ``r = σ(W_r y + U_r x)``, ``z = σ(W_z y + U_z x - b_g)``,
``h = tanh(W_g y + U_g (r ⊙ x))``; ``z``'s bias starts at ``-b_g`` (b_g = 2: z ≈ 0.12), so
every layer starts close to the identity.

**Memory** (:class:`Memory`, fixed shapes: no recompiles). Per env and layer, the layer's
inputs at the last M steps, oldest first (a shifted buffer: each call appends its T steps and
keeps the newest M), plus ``length``: how many of the newest entries belong to the running
episode. A step attends to itself and to the M steps before it (from the memory and from the
earlier steps of the same call), never to a step of an earlier episode: ``starts[t]`` (the
observation at t begins an episode — after a ``done``, or when a slot gets a new level) hides
everything before t, and ``length`` carries that across calls. Hidden entries get exactly zero
attention weight, so after a start the outputs do not depend on what came before. The same
function serves the rollout (T = 1 per env step) and the PPO replay (T = the whole sequence, in
parallel, from the memory at the rollout's start); both compute the same numbers.

**Positions**: relative, learned. Each head adds a learned bias ``b[head, distance]`` to its
attention logits, distance = 0 (the step itself) .. M (the oldest visible step), zero at the
start (in the spirit of Transformer-XL's relative scheme, which GTrXL keeps; TrXL's sinusoidal
encoding with its u, v vectors is replaced by this table, which a fixed window makes small).
Keys, values and the normalisation of the memory are recomputed with the current parameters at
every call; gradients flow only within the replayed sequence (the memory is an input).
"""

from __future__ import annotations

import flax.linen as nn
import flax.struct
import jax
import jax.numpy as jnp

# Logit of a hidden key: exp(_HIDDEN - max) is exactly 0 in float32, and finite (no NaN).
_HIDDEN = -1e30


@flax.struct.dataclass
class Memory:
    """Per env: every layer's inputs at the last M steps and how many belong to this episode."""

    inputs: jnp.ndarray  # (N, L, M, D) float32, oldest step first
    length: jnp.ndarray  # (N,) int32 in [0, M]: the newest `length` entries are visible

    @classmethod
    def empty(cls, num_envs: int, layers: int, memory_length: int, size: int) -> Memory:
        inputs = jnp.zeros((num_envs, layers, memory_length, size), jnp.float32)
        return cls(inputs=inputs, length=jnp.zeros((num_envs,), jnp.int32))


def attention_window(
    length: jnp.ndarray, starts: jnp.ndarray, memory_length: int
) -> tuple[jnp.ndarray, jnp.ndarray]:
    """Which keys each step may attend to, and how far back they are.

    Keys are indexed over ``[memory (M), this call's steps (T)]``; step t is key ``M + t``.
    Returns ``visible`` (N, T, M + T) bool and ``distance`` (T, M + T) int (``query - key``).
    """
    m, steps = memory_length, starts.shape[1]
    query = m + jnp.arange(steps)
    key = jnp.arange(m + steps)
    distance = query[:, None] - key[None, :]
    # The running episode's first key, per env and step: the latest start so far, or else the
    # oldest memory entry of the episode carried in.
    began = jax.lax.cummax(jnp.where(starts, query[None, :], 0), axis=1)
    first = jnp.maximum(began, m - length[:, None])
    in_window = (distance >= 0) & (distance <= m)
    visible = in_window[None] & (key[None, None, :] >= first[:, :, None])
    return visible, distance


def next_length(length: jnp.ndarray, starts: jnp.ndarray, memory_length: int) -> jnp.ndarray:
    """``Memory.length`` after a call: steps since the last start (or ``length + T``), ≤ M."""
    steps = starts.shape[1]
    last_start = jnp.max(jnp.where(starts, jnp.arange(steps), -1), axis=1)
    since = jnp.where(last_start >= 0, steps - last_start, length + steps)
    return jnp.minimum(since, memory_length)


class GRUGate(nn.Module):
    """``gate(x, y)`` of GTrXL: x is the stream, y the sublayer's output (module docstring)."""

    gate_bias: float  # b_g

    @nn.compact
    def __call__(self, x: jnp.ndarray, y: jnp.ndarray) -> jnp.ndarray:
        size = x.shape[-1]

        def from_y(name: str, bias: float = 0.0) -> jnp.ndarray:
            init = nn.initializers.constant(bias)
            return nn.Dense(size, bias_init=init, name=name)(y)

        def from_x(name: str, value: jnp.ndarray) -> jnp.ndarray:
            return nn.Dense(size, use_bias=False, name=name)(value)

        r = nn.sigmoid(from_y("w_r") + from_x("u_r", x))
        z = nn.sigmoid(from_y("w_z", -self.gate_bias) + from_x("u_z", x))
        h = jnp.tanh(from_y("w_g") + from_x("u_g", r * x))
        self.sow("intermediates", "update_gate", z)
        return (1.0 - z) * x + z * h


class WindowAttention(nn.Module):
    """Multi-head attention of this call's steps over ``[memory, steps]`` with a learned bias
    per head and distance; ``context`` is already normalised."""

    num_heads: int
    memory_length: int

    @nn.compact
    def __call__(
        self, context: jnp.ndarray, visible: jnp.ndarray, distance: jnp.ndarray
    ) -> jnp.ndarray:
        size, steps = context.shape[-1], visible.shape[1]
        heads, head_size = self.num_heads, context.shape[-1] // self.num_heads

        def project(name: str, x: jnp.ndarray) -> jnp.ndarray:
            return nn.DenseGeneral((heads, head_size), name=name)(x)

        query = project("query", context[:, -steps:])  # (N, T, H, C)
        key, value = project("key", context), project("value", context)  # (N, M + T, H, C)
        table = self.param("distance_bias", nn.initializers.zeros, (heads, self.memory_length + 1))
        bias = table[:, jnp.clip(distance, 0, self.memory_length)]  # (H, T, M + T)
        logits = jnp.einsum("nthc,nkhc->nhtk", query, key) / jnp.sqrt(head_size) + bias
        logits = jnp.where(visible[:, None], logits, _HIDDEN)
        weights = jax.nn.softmax(logits, axis=-1)
        out = jnp.einsum("nhtk,nkhc->nthc", weights, value)
        return nn.DenseGeneral(size, axis=(-2, -1), name="out")(out)


class GTrXLLayer(nn.Module):
    """One gated, identity-map-reordered Transformer-XL layer."""

    num_heads: int
    memory_length: int
    gate_bias: float

    @nn.compact
    def __call__(
        self, context: jnp.ndarray, visible: jnp.ndarray, distance: jnp.ndarray
    ) -> jnp.ndarray:
        """``context`` (N, M + T, D) = [memory, this call's inputs] -> outputs (N, T, D)."""
        size, steps = context.shape[-1], visible.shape[1]
        x = context[:, -steps:]
        normed = nn.LayerNorm(name="attention_norm")(context)
        attention = WindowAttention(self.num_heads, self.memory_length, name="attention")
        y = GRUGate(self.gate_bias, name="attention_gate")(
            x, nn.relu(attention(normed, visible, distance))
        )
        hidden = nn.relu(nn.Dense(size, name="mlp_in")(nn.LayerNorm(name="mlp_norm")(y)))
        mlp = nn.Dense(size, name="mlp_out")(hidden)
        return GRUGate(self.gate_bias, name="mlp_gate")(y, nn.relu(mlp))


class GatedTransformerXL(nn.Module):
    """``(memory, x (N, T, D), starts (N, T))`` -> ``(memory, outputs (N, T, D))``."""

    num_layers: int
    num_heads: int
    memory_length: int
    gate_bias: float = 2.0

    @nn.compact
    def __call__(
        self, memory: Memory, x: jnp.ndarray, starts: jnp.ndarray
    ) -> tuple[Memory, jnp.ndarray]:
        m = self.memory_length
        visible, distance = attention_window(memory.length, starts, m)
        kept = []
        for layer in range(self.num_layers):
            context = jnp.concatenate([memory.inputs[:, layer], x], axis=1)
            kept.append(context[:, -m:])
            block = GTrXLLayer(self.num_heads, m, self.gate_bias, name=f"layer_{layer}")
            x = block(context, visible, distance)
        inputs = jnp.stack(kept, axis=1)
        return Memory(inputs=inputs, length=next_length(memory.length, starts, m)), x
