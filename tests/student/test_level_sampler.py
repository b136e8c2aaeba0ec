"""PLR's level buffer on the device (``dicode.student.level_sampler``): admission, rescoring,
the replay distribution (the archive's formula), batch offers in order."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dicode.archive.replay import rank_weights, score_ranks, staleness_weights
from dicode.student import level_sampler as ls


def _key(i: int) -> jax.Array:
    return jnp.asarray([i, 7], jnp.uint32)


def _level(i: int) -> dict[str, jax.Array]:
    return {"id": jnp.int32(i), "cells": jnp.full((3,), i, jnp.int32)}


def _empty(capacity: int) -> ls.LevelBuffer:
    return ls.empty_buffer(_level(0), 2, capacity)


def _insert(buffer: ls.LevelBuffer, i: int, score: float, best: float = 0.0) -> ls.LevelBuffer:
    return ls.insert(buffer, _level(i), _key(i), jnp.float32(score), jnp.float32(best))


def _ids(buffer: ls.LevelBuffer) -> list[int]:
    return sorted(int(x) for x in buffer.levels["id"][: int(buffer.size)])


def test_a_full_buffer_keeps_the_highest_scores_and_rescores_what_it_holds() -> None:
    buffer = _empty(3)
    for i, score in zip((1, 2, 3), (0.5, 0.1, 0.9), strict=True):
        buffer = _insert(buffer, i, score)
    buffer = _insert(buffer, 5, 0.05)  # below the lowest of a full buffer: turned away
    assert _ids(buffer) == [1, 2, 3]
    buffer = _insert(buffer, 6, 0.7)  # replaces the 0.1 level
    assert _ids(buffer) == [1, 3, 6]
    buffer = _insert(buffer, 1, 0.2, best=0.8)  # the same level: rescored, not added
    present, row = ls.find(buffer, _key(1))
    assert bool(present) and int(buffer.size) == 3
    assert float(buffer.score[row]) == np.float32(0.2) and float(
        buffer.max_return[row]
    ) == np.float32(0.8)
    buffer = _insert(buffer, 1, 0.3, best=0.1)  # the best return seen is kept
    assert float(buffer.max_return[ls.find(buffer, _key(1))[1]]) == np.float32(0.8)
    np.testing.assert_array_equal(buffer.levels["cells"][row], [1, 1, 1])


def test_replay_draws_by_rank_and_stamps_what_it_drew() -> None:
    buffer = _empty(8)
    for i, score in enumerate((0.1, 0.9, 0.3, 0.2)):
        buffer = _insert(buffer, i, score)
    buffer, rows = ls.sample(buffer, jax.random.PRNGKey(0), 400, 0.0, 0.3)
    top = int(np.argmax(np.asarray(buffer.score[:4])))
    assert np.mean(np.asarray(rows) == top) > 0.8  # β = 0.3, no staleness: the top dominates
    assert set(np.asarray(rows).tolist()) <= {0, 1, 2, 3}  # never an empty row
    assert int(buffer.clock) == 1 and int(buffer.last_sampled[top]) == 1


@settings(max_examples=25, deadline=None)
@given(
    scores=st.lists(st.sampled_from([0.0, 0.1, 0.5, 0.5, 1.0, -0.3]), min_size=1, max_size=12),
    last=st.lists(st.integers(0, 5), min_size=12, max_size=12),
    staleness=st.sampled_from([0.0, 0.3, 1.0]),
    temperature=st.sampled_from([0.3, 1.0]),
)
def test_the_replay_distribution_is_the_archives_formula(
    scores: list[float], last: list[int], staleness: float, temperature: float
) -> None:
    n, capacity, clock = len(scores), 16, 5
    buffer = _empty(capacity)
    buffer = ls.LevelBuffer(
        levels=buffer.levels,
        keys=buffer.keys,
        score=jnp.zeros(capacity).at[:n].set(jnp.asarray(scores, jnp.float32)),
        max_return=buffer.max_return,
        last_sampled=jnp.zeros(capacity, jnp.int32).at[:n].set(jnp.asarray(last[:n])),
        size=jnp.int32(n),
        clock=jnp.int32(clock),
    )
    values = np.asarray(scores, np.float32).astype(np.float64)
    np.testing.assert_allclose(
        np.asarray(ls.score_ranks(buffer.score, buffer.filled))[:n], score_ranks(values)
    )
    expected = (1 - staleness) * rank_weights(values, temperature) + staleness * (
        staleness_weights(np.asarray(last[:n]), clock)
    )
    p = np.asarray(ls.replay_probabilities(buffer, staleness, temperature))
    np.testing.assert_allclose(p[:n], expected, rtol=1e-5, atol=1e-7)
    assert np.all(p[n:] == 0)


def test_a_batch_is_offered_in_order_as_single_inserts_would_be() -> None:
    ids = [4, 2, 4, 9, 1, 2]  # duplicates inside the batch: the later offer rescores
    scores = jnp.asarray([0.3, 0.8, 0.5, 0.1, 0.6, 0.2], jnp.float32)
    best = jnp.asarray([0.1, 0.0, 0.4, 0.2, 0.3, 0.9], jnp.float32)
    levels = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *[_level(i) for i in ids])
    keys = jnp.stack([_key(i) for i in ids])
    seen: list[float] = []

    def score_of(seen_best: jax.Array, i: jax.Array) -> jax.Array:
        return scores[i] + 0.0 * seen_best

    batch = ls.insert_batch(_empty(3), levels, keys, score_of, best)
    one = _empty(3)
    for i, level_id in enumerate(ids):
        one = _insert(one, level_id, float(scores[i]), float(best[i]))
        seen.append(float(one.max_return[ls.find(one, _key(level_id))[1]]))
    for a, b in zip(jax.tree_util.tree_leaves(batch), jax.tree_util.tree_leaves(one), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert _ids(batch) == [1, 2, 4]  # 9 entered while there was room, then lost to 1
    assert max(seen) == np.float32(0.9)  # level 2's best return, raised by its second offer


def test_maxmc_reads_the_best_return_the_buffer_remembers() -> None:
    buffer = _insert(_empty(4), 3, 0.0, best=0.9)
    levels = jax.tree_util.tree_map(lambda x: x[None], _level(3))

    def score_of(seen_best: jax.Array, i: jax.Array) -> jax.Array:
        return seen_best - 0.25  # MaxMC with a mean value of 0.25

    buffer = ls.insert_batch(buffer, levels, _key(3)[None], score_of, jnp.asarray([0.2]))
    row = ls.find(buffer, _key(3))[1]
    assert float(buffer.score[row]) == np.float32(0.9 - 0.25)
