"""The PLR replay sampler: hand-computed values and properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicode.archive.replay import (
    make_buffer,
    rank_weights,
    replay_probabilities,
    sample_replay,
    score_ranks,
    staleness_weights,
    sync_levels,
    update_scores,
)


def test_probabilities_match_a_hand_computation() -> None:
    # Ranks 1,2,3 -> h = 1, 1/2, 1/3 (sum 11/6); staleness 0,5,10 (sum 15); rho = 0.3.
    buffer = make_buffer([10, 11, 12], [0.9, 0.5, 0.1], last_sampled=[10, 5, 0], clock=10)
    expected = 0.7 * np.array([6, 3, 2]) / 11 + 0.3 * np.array([0, 5, 10]) / 15
    np.testing.assert_allclose(replay_probabilities(buffer), expected)
    np.testing.assert_allclose(expected, [0.381818, 0.290909, 0.327273], atol=1e-6)


def test_temperature_sharpens_rank_weights() -> None:
    # beta = 0.5 -> h = (1/rank)^2 = 1, 1/4, 1/9.
    np.testing.assert_allclose(
        rank_weights(np.array([3.0, 2.0, 1.0]), 0.5), np.array([36, 9, 4]) / 49
    )


def test_tied_scores_share_their_average_rank() -> None:
    np.testing.assert_allclose(score_ranks(np.array([0.2, 0.1, 0.2, 0.3])), [2.5, 4, 2.5, 1])


def test_equally_fresh_levels_get_uniform_staleness() -> None:
    np.testing.assert_allclose(staleness_weights(np.array([3, 3]), 3), [0.5, 0.5])


def test_sampling_draws_distinct_levels_and_stamps_them() -> None:
    buffer = make_buffer(np.arange(100, 120), np.linspace(0, 0.25, 20), clock=0)
    drawn, after = sample_replay(buffer, np.random.default_rng(0), 16)
    assert len(set(drawn.tolist())) == 16 and set(drawn.tolist()) <= set(range(100, 120))
    assert after.clock == 1
    stamped = np.isin(after.level_ids, drawn)
    assert np.all(after.last_sampled[stamped] == 1) and np.all(after.last_sampled[~stamped] == 0)
    again, _ = sample_replay(buffer, np.random.default_rng(0), 16)
    np.testing.assert_array_equal(drawn, again)  # seeded
    small, _ = sample_replay(make_buffer([1, 2], [0.1, 0.2]), np.random.default_rng(0), 16)
    assert sorted(small.tolist()) == [1, 2]


def test_frequencies_follow_the_probabilities() -> None:
    buffer = make_buffer([1, 2, 3], [0.9, 0.5, 0.1], last_sampled=[10, 5, 0], clock=10)
    rng = np.random.default_rng(1)
    counts = np.zeros(3)
    for _ in range(20_000):
        drawn, _ = sample_replay(buffer, rng, 1)
        counts[drawn[0] - 1] += 1
    np.testing.assert_allclose(counts / counts.sum(), replay_probabilities(buffer), atol=0.015)


def test_scores_update_and_sync_keeps_staleness() -> None:
    buffer = make_buffer([1, 2, 3], [0.1, 0.2, 0.3], last_sampled=[0, 2, 4], clock=5)
    updated = update_scores(buffer, [3, 1], [0.0, 0.25])
    np.testing.assert_allclose(updated.scores, [0.25, 0.2, 0.0])
    with pytest.raises(KeyError, match="not in the replay buffer"):
        update_scores(buffer, [9], [0.1])
    synced = sync_levels(buffer, [3, 7, 1], [0.3, 0.2, 0.1])
    last_by_id = dict(zip(synced.level_ids.tolist(), synced.last_sampled.tolist(), strict=True))
    assert last_by_id == {1: 0, 3: 4, 7: 5}  # 7 is new: fresh at the clock
    with pytest.raises(ValueError, match="twice"):
        make_buffer([1, 1], [0.1, 0.2])


buffers = st.integers(min_value=1, max_value=40).flatmap(
    lambda n: st.tuples(
        st.lists(
            st.sampled_from([0.0, 0.09, 0.16, 0.21, 0.25]) | st.floats(0, 0.25),
            min_size=n,
            max_size=n,
        ),
        st.lists(st.integers(0, 50), min_size=n, max_size=n),
        st.integers(0, 20),
    )
)


@settings(max_examples=200, deadline=None)
@given(buffers, st.floats(0, 1), st.floats(0.1, 5))
def test_probabilities_are_a_distribution(data, rho: float, beta: float) -> None:
    scores, last, extra = data
    clock = max(last) + extra
    p = replay_probabilities(make_buffer(range(len(scores)), scores, last, clock), rho, beta)
    assert np.all(p >= 0) and p.sum() == pytest.approx(1.0)


@settings(max_examples=200, deadline=None)
@given(buffers, st.floats(0.05, 1), st.integers(1, 30))
def test_staleness_raises_a_long_unsampled_level(data, rho: float, older: int) -> None:
    scores, last, extra = data
    clock = max(last) + extra
    before = make_buffer(range(len(scores)), scores, last, clock)
    staler = np.array(last)
    staler[0] -= older  # level 0 was last drawn `older` ticks earlier; nothing else changes
    after = make_buffer(range(len(scores)), scores, staler, clock)
    p_before, p_after = replay_probabilities(before, rho), replay_probabilities(after, rho)
    assert p_after[0] >= p_before[0] - 1e-12
    if len(scores) > 1 and (clock - np.array(last)[1:]).sum() > 0:
        assert p_after[0] > p_before[0]


@settings(max_examples=200, deadline=None)
@given(buffers, st.floats(0, 1), st.floats(0.1, 5))
def test_ties_in_score_and_staleness_get_equal_probability(data, rho: float, beta: float) -> None:
    scores, last, extra = data
    scores, last = [*scores, scores[0]], [*last, last[0]]
    clock = max(last) + extra
    p = replay_probabilities(make_buffer(range(len(scores)), scores, last, clock), rho, beta)
    assert p[0] == pytest.approx(p[-1])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from([0.0, 0.1, 0.2]) | st.floats(0, 0.25), min_size=1, max_size=50),
    st.lists(
        st.tuples(st.integers(0, 49), st.sampled_from([0.0, 0.1]) | st.floats(0, 0.25)), max_size=30
    ),
    st.randoms(use_true_random=False),
)
def test_score_updates_keep_the_ranking_exact(scores, updates, shuffle) -> None:
    ids = list(range(len(scores)))
    shuffle.shuffle(ids)  # input order must not matter
    buffer = make_buffer(ids, [scores[i] for i in ids])
    updates = [(i % len(scores), v) for i, v in updates]
    chunk = max(1, len(updates) // 3)
    for start in range(0, len(updates), chunk):
        batch = updates[start : start + chunk]
        buffer = update_scores(buffer, [i for i, _ in batch], [v for _, v in batch])
        for i, v in batch:
            scores[i] = v  # the last value for a repeated id wins
    np.testing.assert_allclose(buffer.scores, scores)
    np.testing.assert_allclose(
        score_ranks(buffer.scores, buffer.score_order), score_ranks(np.array(scores))
    )
