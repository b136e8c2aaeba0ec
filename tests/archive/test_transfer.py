"""The transfer ledger on scripted target curves: credits, the noise scale, the priority."""

from __future__ import annotations

import math
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dicode.archive.config import ArchiveConfig
from dicode.archive.transfer import (
    Credit,
    TransferLedger,
    credit_session,
    ledger_from,
    noise_scale,
    target_change,
    transfer_priority,
    transfer_score,
    transfer_summary,
)

# Session s: the target's mean training return (None: no target episode finished), and the
# levels trained. Δ: s1 +4, s2 −2, s3 +6, none at s4 (no target episode) nor at s5 (none the
# session before), s6 +3. Level 4 is trained only in s4 and s5; level 3 in two slots at s6.
CURVE = [10.0, 14.0, 12.0, 18.0, None, 20.0, 23.0]
TRAINED = [[1], [1, 2], [2, 3], [1, 3], [4], [4], [3, 3]]
CREDITS = [4.0, 4.0, -2.0, -2.0, 6.0, 6.0, 3.0]  # one per level and session, by hand


def play(curve: list[float | None], trained: list[list[int]]) -> TransferLedger:
    ledger, previous = ledger_from({}), None
    for current, levels in zip(curve, trained, strict=True):
        ledger = credit_session(ledger, levels, target_change(previous, current))
        previous = current
    return ledger


def test_each_change_is_credited_whole_to_the_levels_trained_in_its_session() -> None:
    ledger = play(CURVE, TRAINED)
    assert ledger.levels == {
        1: Credit(4.0 + 6.0, 16.0 + 36.0, 2),
        2: Credit(4.0 - 2.0, 16.0 + 4.0, 2),
        3: Credit(-2.0 + 6.0 + 3.0, 4.0 + 36.0 + 9.0, 3),
    }
    assert 4 not in ledger.levels  # trained only where no change was measured
    assert ledger.run == Credit(sum(CREDITS), sum(c * c for c in CREDITS), len(CREDITS))


def test_no_change_without_a_target_episode_in_either_session() -> None:
    assert target_change(10.0, 12.5) == 2.5
    assert target_change(None, 12.5) is None
    assert target_change(10.0, None) is None
    ledger = play([5.0, None, 7.0], [[1], [1], [1]])
    assert ledger.levels == {} and ledger.run == Credit()


def test_the_noise_scale_is_the_sample_std_of_every_credit() -> None:
    ledger = play(CURVE, TRAINED)
    assert noise_scale(ledger.run) == pytest.approx(statistics.stdev(CREDITS))
    assert noise_scale(Credit()) is None
    assert noise_scale(Credit().add(3.0)) is None  # one credit: no spread yet
    assert noise_scale(Credit().add(3.0).add(3.0).add(3.0)) is None  # all equal: no noise


def test_transfer_is_a_levels_mean_change_against_the_runs_in_noise_units() -> None:
    ledger = play(CURVE, TRAINED)
    mean, scale = statistics.mean(CREDITS), statistics.stdev(CREDITS)
    assert transfer_score(ledger, 1) == pytest.approx((5.0 - mean) / scale)
    assert transfer_score(ledger, 2) == pytest.approx((1.0 - mean) / scale)
    assert transfer_score(ledger, 3) == pytest.approx((7.0 / 3.0 - mean) / scale)
    assert transfer_score(ledger, 4) == 0.0  # trained, never credited
    assert transfer_score(ledger, 99) == 0.0  # never trained
    # Before the run has a noise scale every level scores 0.
    assert transfer_score(play(CURVE[:2], TRAINED[:2]), 1) == 0.0


def test_the_archives_sums_rebuild_the_same_ledger() -> None:
    ledger = play(CURVE, TRAINED)
    rebuilt = ledger_from(dict(ledger.levels))
    assert rebuilt == ledger
    assert [transfer_score(rebuilt, i) for i in (1, 2, 3)] == [
        transfer_score(ledger, i) for i in (1, 2, 3)
    ]


def test_the_priority_doubles_per_noise_std_within_four_times_either_way() -> None:
    assert transfer_priority(0.5, 0.0, 1.0) == 0.25
    assert transfer_priority(0.5, 1.0, 1.0) == 0.5
    assert transfer_priority(0.5, -1.0, 1.0) == 0.125
    assert transfer_priority(0.5, 1.0, 2.0) == 1.0
    assert transfer_priority(0.5, 50.0, 1.0) == 1.0  # clipped at 4×
    assert transfer_priority(0.5, -50.0, 1.0) == 0.0625  # clipped at 1/4
    assert transfer_priority(0.5, 3.0, 0.0) == 0.25  # weight 0: learnability alone
    for p in (0.0, 1.0, None):  # mastered, unlearnable, unplayed: 0 whatever the transfer
        assert transfer_priority(p, 2.0, 1.0) == 0.0


@given(st.floats(0.0, 1.0), st.floats(-1e6, 1e6), st.floats(0.0, 10.0))
def test_the_priority_stays_within_a_quarter_and_four_times_learnability(
    p: float, t: float, w: float
) -> None:
    base = p * (1.0 - p)
    q = transfer_priority(p, t, w)
    assert base / 4.0 <= q * (1.0 + 1e-12) and q <= 4.0 * base * (1.0 + 1e-12)


def test_the_summary_describes_the_runs_transfer_scores() -> None:
    ledger = play(CURVE, TRAINED)
    scores = [transfer_score(ledger, i) for i in (1, 2, 3)]
    summary = transfer_summary(ledger)
    assert summary == {
        "levels_credited": 3,
        "transfer_mean": pytest.approx(statistics.mean(scores)),
        "transfer_std": pytest.approx(statistics.stdev(scores)),
        # Only level 1's sessions (mean Δ 5) beat the run's 19/7; level 3's 7/3 does not.
        "transfer_positive_share": pytest.approx(1 / 3),
        "noise_scale": pytest.approx(statistics.stdev(CREDITS)),
        "mean_change": pytest.approx(statistics.mean(CREDITS)),
    }
    empty = transfer_summary(ledger_from({}))
    assert empty["levels_credited"] == 0
    assert all(empty[key] is None for key in empty if key != "levels_credited")


def test_settings_name_the_score_and_refuse_what_they_cannot_use() -> None:
    assert ArchiveConfig().level_score == "learnability"  # p(1−p) alone: the ablation
    assert ArchiveConfig(level_score="transfer", transfer_weight=0.5).transfer_weight == 0.5
    with pytest.raises(ValueError, match="level_score must be one of learnability, transfer"):
        ArchiveConfig(level_score="return")  # type: ignore[arg-type]
    for weight in (-1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="transfer_weight must be finite and >= 0"):
            ArchiveConfig(transfer_weight=weight)
