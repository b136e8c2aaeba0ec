"""Prioritized Level Replay's level buffer as device arrays and pure functions (JAX).

The buffer the literature's loops (robust PLR, ACCEL) keep inside their compiled iteration,
after the data layout of JaxUED's ``LevelSampler`` (a pytree of arrays with a leading capacity
axis plus pure ``insert`` / ``sample`` functions; written here from its published facts):

    P_i = (1−ρ)·h_i/Σ_j h_j + ρ·(c−C_i)/Σ_j (c−C_j),   h_i = (1/rank_i)^(1/β)

rank_i is level i's rank by score among the filled rows (1 = highest; tied scores share their
average rank, as ``dicode.archive.replay``), c the clock (replay batches drawn so far), C_i the
clock when row i was last drawn or entered; the staleness term is uniform while Σ = 0.

A level is any pytree (leaves with the capacity axis in the buffer) with a **key**: a uint32
vector that is equal exactly for equal levels. :func:`insert` offers one level: a level already
in the buffer is rescored; a new one takes a free row, or the row of the lowest score when it
scores higher (else it is turned away); :func:`insert_batch` offers a batch in order, as a loop
over the batch would. ``max_return`` keeps the best return ever seen on each level (MaxMC's
first term).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import flax.struct
import jax
import jax.numpy as jnp


@flax.struct.dataclass
class LevelBuffer:
    """``capacity`` rows of levels, their keys, scores, best returns and staleness."""

    levels: Any  # pytree, leaves (capacity, ...)
    keys: jax.Array  # (capacity, W) uint32
    score: jax.Array  # (capacity,) float32
    max_return: jax.Array  # (capacity,) float32
    last_sampled: jax.Array  # (capacity,) int32: the clock when last drawn or entered
    size: jax.Array  # () int32: rows filled (rows 0 … size−1)
    clock: jax.Array  # () int32: replay batches drawn so far

    @property
    def capacity(self) -> int:
        return int(self.score.shape[0])

    @property
    def filled(self) -> jax.Array:
        """(capacity,) bool: the rows that hold a level."""
        return jnp.arange(self.capacity) < self.size


def empty_buffer(example_level: Any, key_words: int, capacity: int) -> LevelBuffer:
    """A buffer of ``capacity`` rows shaped for ``example_level`` (one level's pytree)."""
    levels = jax.tree_util.tree_map(
        lambda x: jnp.zeros((capacity, *jnp.shape(x)), jnp.asarray(x).dtype), example_level
    )
    return LevelBuffer(
        levels=levels,
        keys=jnp.zeros((capacity, key_words), jnp.uint32),
        score=jnp.zeros((capacity,), jnp.float32),
        max_return=jnp.zeros((capacity,), jnp.float32),
        last_sampled=jnp.zeros((capacity,), jnp.int32),
        size=jnp.int32(0),
        clock=jnp.int32(0),
    )


def find(buffer: LevelBuffer, key: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``(present, row)`` of the level with ``key`` (row 0 when absent)."""
    match = buffer.filled & jnp.all(buffer.keys == key, axis=1)
    return match.any(), jnp.argmax(match)


def insert(
    buffer: LevelBuffer, level: Any, key: jax.Array, score: jax.Array, max_return: jax.Array
) -> LevelBuffer:
    """Offer one level with its score and the best return of its rollout (module docstring)."""
    present, found = find(buffer, key)
    room = buffer.size < buffer.capacity
    lowest = jnp.argmin(jnp.where(buffer.filled, buffer.score, jnp.inf))
    enters = ~present & (room | (score > buffer.score[lowest]))
    row = jnp.where(present, found, jnp.where(room, buffer.size, lowest))
    kept = present | enters

    def write(old: jax.Array, new: jax.Array) -> jax.Array:
        return old.at[row].set(jnp.where(enters, new, old[row]))

    best = jnp.where(enters, max_return, jnp.maximum(buffer.max_return[row], max_return))
    return replace(
        buffer,
        levels=jax.tree_util.tree_map(write, buffer.levels, level),
        keys=write(buffer.keys, key),
        score=buffer.score.at[row].set(jnp.where(kept, score, buffer.score[row])),
        max_return=buffer.max_return.at[row].set(jnp.where(kept, best, buffer.max_return[row])),
        last_sampled=write(buffer.last_sampled, buffer.clock),
        size=buffer.size + (enters & room).astype(jnp.int32),
    )


def insert_batch(
    buffer: LevelBuffer,
    levels: Any,
    keys: jax.Array,
    score_of: Any,
    max_returns: jax.Array,
) -> LevelBuffer:
    """Offer a batch (leading axis n) in order. ``score_of(best_seen, i)`` gives level i's score
    from the best return seen on it so far (its rollout's, or the buffer's when higher): MaxMC
    needs the buffer's memory, read after the levels before it were offered."""

    def offer(buffer: LevelBuffer, item: tuple) -> tuple[LevelBuffer, None]:
        i, level, key, best = item
        present, row = find(buffer, key)
        seen = jnp.where(present, jnp.maximum(best, buffer.max_return[row]), best)
        return insert(buffer, level, key, score_of(seen, i), best), None

    n = keys.shape[0]
    buffer, _ = jax.lax.scan(offer, buffer, (jnp.arange(n), levels, keys, max_returns))
    return buffer


def score_ranks(scores: jax.Array, filled: jax.Array) -> jax.Array:
    """Each filled row's rank by score (1 = highest, ties share their average rank)."""
    ranked = jnp.sort(jnp.where(filled, scores, -jnp.inf))
    n = scores.shape[0]
    greater = n - jnp.searchsorted(ranked, scores, side="right")
    at_least = n - jnp.searchsorted(ranked, scores, side="left")
    return greater + (at_least - greater + 1) / 2.0


def replay_probabilities(
    buffer: LevelBuffer, staleness_coef: float, temperature: float
) -> jax.Array:
    """P_i over the rows (0 on empty rows)."""
    filled = buffer.filled
    h = jnp.where(filled, (1.0 / score_ranks(buffer.score, filled)) ** (1.0 / temperature), 0.0)
    stale = jnp.where(filled, buffer.clock - buffer.last_sampled, 0).astype(jnp.float32)
    uniform = filled / jnp.maximum(buffer.size, 1)
    stale = jnp.where(stale.sum() > 0, stale / jnp.maximum(stale.sum(), 1.0), uniform)
    # An empty buffer gives zeros, not NaN (a vmapped batch computes the branch it discards).
    return (1.0 - staleness_coef) * h / jnp.maximum(h.sum(), 1e-30) + staleness_coef * stale


def sample(
    buffer: LevelBuffer, key: jax.Array, n: int, staleness_coef: float, temperature: float
) -> tuple[LevelBuffer, jax.Array]:
    """``n`` rows drawn with replacement ∝ P (as JaxUED); the clock ticks and the drawn rows
    are stamped fresh. Returns the buffer and the rows."""
    p = replay_probabilities(buffer, staleness_coef, temperature)
    rows = jax.random.choice(key, buffer.capacity, (n,), p=p)
    clock = buffer.clock + 1
    return replace(buffer, last_sampled=buffer.last_sampled.at[rows].set(clock), clock=clock), rows


def levels_at(buffer: LevelBuffer, rows: jax.Array) -> Any:
    """The levels of ``rows`` (leading axis len(rows))."""
    return jax.tree_util.tree_map(lambda x: x[rows], buffer.levels)
