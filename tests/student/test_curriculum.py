"""The training mixture: target share, new levels up to their share, PLR replay, outcomes."""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicode.archive.status import learnability
from dicode.domains.tetris.schema import stack_levels, target_level
from dicode.domains.tetris.student.trainer import build_slots
from dicode.student.curriculum import (
    TARGET,
    CurriculumConfig,
    CurriculumState,
    SlotCounts,
    new_quota,
    next_target_share,
    num_target_slots,
    plan_learnable,
    plan_slots,
    plan_uniform,
    scheduled_share,
)
from dicode.student.tally import SlotStats, slot_tallies, sum_by_level


def test_a_fifth_of_the_slots_play_the_target_game() -> None:
    assert num_target_slots(10, CurriculumConfig()) == 2
    assert num_target_slots(5, CurriculumConfig()) == 1
    assert num_target_slots(2, CurriculumConfig()) == 1  # never zero
    assert num_target_slots(10, CurriculumConfig(target_fraction=0.5)) == 5


def test_new_levels_take_at_most_their_share_and_replay_the_rest() -> None:
    rng = np.random.default_rng(0)
    slots, reset, state = plan_slots(
        CurriculumState(),
        5,
        new_levels=[7, 8, 9],
        active_ids=[1, 2, 3],
        active_scores=[0.25, 0, 0.1],
        rng=rng,
    )
    # 4 free slots, new_share 0.5: the two oldest newcomers, then two replayed levels.
    assert slots[0] == TARGET and slots[1:3].tolist() == [7, 8]
    assert set(slots[3:].tolist()) <= {1, 2, 3} and len(set(slots[3:].tolist())) == 2
    assert reset.all()  # every slot changed from the empty start
    # 1–3 were never trained, so this first session counts them new too (and over the share).
    assert state.counts == SlotCounts(target=1, new=4, replay=0, new_over_share=2)
    # Next session: 7 and 8 were trained, so 9 waits for its turn; 1–3 are replay now.
    slots2, _, state2 = plan_slots(state, 5, [7, 8, 9], [1, 2, 3], [0.25, 0, 0.1], rng)
    assert 7 not in slots2.tolist() and 8 not in slots2.tolist()
    assert state2.counts.new + state2.counts.replay == 8


def test_the_new_quota_runs_over_sessions() -> None:
    assert new_quota(SlotCounts(), 4, 0.5) == 2
    assert new_quota(SlotCounts(), 1, 0.5) == 0  # one free slot: every other session
    assert new_quota(SlotCounts(new=0, replay=1), 1, 0.5) == 1
    assert new_quota(SlotCounts(new=1, replay=1), 1, 0.5) == 0
    assert new_quota(SlotCounts(new=4, replay=0), 4, 0.5) == 0  # over share earlier: caught up
    assert new_quota(SlotCounts(new=3, replay=7), 3, 0.0) == 0
    assert new_quota(SlotCounts(), 3, 1.0) == 3


def test_newcomers_fill_what_replay_cannot() -> None:
    rng = np.random.default_rng(0)
    slots, _, state = plan_slots(CurriculumState(), 5, [7, 8, 9, 10, 11], [], [], rng)
    assert slots.tolist() == [TARGET, 7, 8, 9, 10]  # nothing to replay yet
    assert state.counts.new == 4 and state.counts.new_over_share == 2
    # One level to replay: it takes one slot, the rest goes to the last newcomer and repeats.
    slots, _, state = plan_slots(state, 5, [7, 8, 9, 10, 11], [7], [0.2], rng)
    assert sorted(slots[1:].tolist()) == [7, 7, 11, 11]
    assert state.counts.replay == 2 and state.counts.new == 6


def test_unchanged_slots_are_not_reset() -> None:
    rng = np.random.default_rng(0)
    _, _, state = plan_slots(CurriculumState(), 2, [], [4], [0.2], rng)
    slots, reset, _ = plan_slots(state, 2, [], [4], [0.2], rng)
    assert slots.tolist() == [TARGET, 4] and not reset.any()


def test_without_levels_every_slot_plays_the_target() -> None:
    slots, _, _ = plan_slots(CurriculumState(), 4, [], [], [], np.random.default_rng(0))
    assert (slots == TARGET).all()


def test_replay_prefers_learnable_levels() -> None:
    rng = np.random.default_rng(1)
    counts = {1: 0, 2: 0}
    state = CurriculumState()
    for _ in range(400):
        slots, _, state = plan_slots(state, 2, [], [1, 2], [0.25, 0.0], rng)
        counts[int(slots[1])] += 1
    assert counts[1] > counts[2]  # rank 1 beats rank 2 (staleness keeps 2 alive)
    assert counts[2] > 0


@settings(max_examples=50, deadline=None)
@given(
    num_slots=st.integers(2, 12),
    new=st.lists(st.integers(0, 200), max_size=40, unique=True),
    share=st.sampled_from([0.25, 0.5, 1.0]),
    seed=st.integers(0, 1000),
)
def test_new_levels_stay_within_their_share_and_are_all_trained(
    num_slots: int, new: list[int], share: float, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    config = CurriculumConfig(new_share=share)
    free = num_slots - num_target_slots(num_slots, config)
    replayable = [1000 + i for i in range(free)]  # enough to replay in every session
    state = CurriculumState(trained=frozenset(replayable))
    sessions = 0
    while not set(new) <= state.trained:
        slots, _, state = plan_slots(state, num_slots, new, replayable, [0.1] * free, rng, config)
        assert (slots == TARGET).sum() == num_target_slots(num_slots, config)
        sessions += 1
        counts = state.counts
        # Within the share (up to the part of one session the quota rounds away).
        assert counts.new_over_share == 0  # there was always enough to replay
        assert counts.new <= share * (counts.new + counts.replay) + 1e-9
        assert sessions <= len(new) / (share * free) + 1  # every newcomer's turn comes


def test_build_slots_stacks_fixed_shapes_whatever_the_pool_sizes() -> None:
    board = np.zeros((20, 10), np.uint8)
    board[0, :5] = 1
    small = stack_levels([dataclasses.replace(target_level(), board=jnp.asarray(board))])
    big = stack_levels([target_level()] * 5)
    slots = build_slots([stack_levels([target_level()]), small, big], 3)
    assert slots.board.shape == (3, 3, 20, 10)
    assert int(slots.board[1].sum()) == 3 * 5 and int(slots.board[0].sum()) == 0


def test_outcomes_are_summed_per_level_and_scored_by_learnability() -> None:
    stats = SlotStats(
        episodes=np.array([4, 2, 6]),
        successes=np.array([0, 1, 3]),
        return_sum=np.array([40.0, 10.0, 30.0]),
        sums={"lines": np.array([8, 0, 0]), "length": np.array([100, 10, 30])},
    )
    out = sum_by_level([TARGET, 9, 9], slot_tallies(stats))
    assert out[TARGET].mean_return == 10.0 and out[TARGET].success_rate == 0.0
    assert out[TARGET].means() == {"mean_lines": 2.0, "mean_length": 25.0}
    assert out[9].episodes == 8 and out[9].successes == 4 and out[9].success_rate == 0.5
    assert out[9].sums == {"lines": 0.0, "length": 40.0}
    assert learnability(out[9].success_rate) == 0.25


def test_domain_randomisation_draws_distinct_levels_uniformly() -> None:
    rng = np.random.default_rng(0)
    counts = np.zeros(10, dtype=int)
    state = CurriculumState()
    for _ in range(500):
        slots, _, state = plan_uniform(state, 5, list(range(10)), rng)
        assert slots[0] == TARGET and len(set(slots[1:].tolist())) == 4
        counts[slots[1:]] += 1
    assert counts.min() > 0.8 * counts.mean() and counts.max() < 1.2 * counts.mean()
    assert state.trained == frozenset(range(10))
    few, _, _ = plan_uniform(CurriculumState(), 5, [3], rng)  # one level fills every free slot
    assert few.tolist() == [TARGET, 3, 3, 3, 3]
    none, _, _ = plan_uniform(CurriculumState(), 5, [], rng)
    assert (none == TARGET).all()


def test_sfl_trains_new_levels_then_only_the_most_learnable() -> None:
    rng = np.random.default_rng(0)
    measured = [1, 2, 3, 4, 5, 6]
    success = [1.0, 0.5, 0.0, 0.4, 0.9, 0.2]  # learnability .0 .25 .0 .24 .09 .16
    for _ in range(50):
        slots, _, _ = plan_learnable(CurriculumState(), 5, [9], measured, success, rng, top_k=3)
        assert slots[:2].tolist() == [TARGET, 9]
        assert sorted(slots[2:].tolist()) == [2, 4, 6]  # the top 3, each once
    trained = CurriculumState(trained=frozenset({9}))
    slots, _, _ = plan_learnable(trained, 5, [9], measured, success, rng, top_k=2)
    assert sorted(slots[1:].tolist()) == [2, 2, 4, 4]  # fewer than the free slots: repeated


def test_a_scheduled_target_share_starts_at_one_and_steps_down_while_the_curve_is_flat() -> None:
    config = CurriculumConfig(
        target_fraction=0.2, target_fraction_start=1.0, share_step=0.25, flat_sessions=2
    )
    state = CurriculumState()
    shares, curves = [], []
    # Rising fast for four sessions, then flat: the share waits for two windows of the curve
    # under each share, then lowers one step at a time, down to target_fraction.
    for target_return in (1.0, 2.0, 4.0, 8.0, *[8.0] * 16):
        state = scheduled_share(state, target_return, config)
        shares.append(state.target_share)
        curves.append(len(state.target_curve))
    assert shares[:6] == [1.0] * 6
    assert shares[6:11] == [0.75] * 4 + [0.5] and curves[6] == 0  # a new share: a new curve
    assert shares[14] == 0.25 and shares[18:] == [0.2, 0.2]
    assert scheduled_share(CurriculumState(), None, config).target_share == 1.0  # no episode
    assert scheduled_share(state, 3.0, CurriculumConfig()) is state  # no schedule: unchanged
    assert next_target_share(0.5, [1.0, 1.0, 1.2, 1.3], config) == 0.5  # +25 %: still rising
    with pytest.raises(ValueError, match="target_fraction_start"):
        CurriculumConfig(target_fraction=0.5, target_fraction_start=0.4)


def test_a_following_target_share_falls_while_the_target_climbs_and_rises_when_it_drops() -> None:
    config = CurriculumConfig(
        target_fraction=0.2, target_fraction_start=0.6, share_step=0.2, flat_sessions=2,
        share_rule="follow",
    )  # fmt: skip
    state = CurriculumState()
    shares = []
    # A scripted student: climbing, then flat, then its target curve collapses, then recovers.
    curve = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 8.0, 8.0, 8.0, 8.0, 6.0, 4.0, 4.0, 3.0,
             3.0, 3.0, 2.0, 1.0, 1.0, 1.0, 2.0, 3.0, 4.0, 5.0)  # fmt: skip
    for target_return in curve:
        state = scheduled_share(state, target_return, config)
        shares.append(state.target_share)
    assert shares[:3] == [0.6] * 3 and shares[3] == 0.4  # two windows rising: one step down
    assert shares[7] == pytest.approx(0.2) and min(shares) == pytest.approx(0.2)  # the floor
    assert max(shares[12:22]) > 0.2  # the drop raised it again
    first_rise = next(i for i, s in enumerate(shares) if i > 7 and s > 0.2 + 1e-9)
    assert curve[first_rise] < curve[first_rise - 4]  # it rose on a falling curve
    assert shares[-1] < max(shares)  # and fell again once the student recovered
    rising, falling = [1.0, 1.0, 2.0, 2.0], [2.0, 2.0, 1.0, 1.0]
    assert next_target_share(0.6, rising, config) == pytest.approx(0.4)
    assert next_target_share(0.6, falling, config) == pytest.approx(0.8)
    assert next_target_share(1.0, falling, config) == 1.0  # at target_fraction_max
    assert next_target_share(0.6, [2.0, 2.0, 2.02, 2.0], config) == 0.6  # flat: kept
    flatten = dataclasses.replace(config, share_rule="flatten")
    assert next_target_share(0.6, falling, flatten) == pytest.approx(0.4)  # only ever down
    with pytest.raises(ValueError, match="share_rule"):
        CurriculumConfig(share_rule="sometimes")
    with pytest.raises(ValueError, match="target_fraction_max"):
        CurriculumConfig(target_fraction=0.5, target_fraction_max=0.4)
