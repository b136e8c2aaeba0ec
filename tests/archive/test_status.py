"""Status letters and learnability at and around their boundaries."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dicode.archive.status import (
    judged_status,
    learnability,
    learnability_array,
    status_letter,
)


@pytest.mark.parametrize(
    ("rate", "letter"),
    [
        (1.0, "A"),
        (0.75, "A"),
        (0.7499, "B"),
        (0.5, "B"),
        (0.4999, "C"),
        (0.25, "C"),
        (0.2499, "D"),
        (0.0, "D"),
        (None, "D"),
        (math.nan, "D"),
    ],
)
def test_status_letters(rate: float | None, letter: str) -> None:
    assert status_letter(rate) == letter


def test_learnability_is_p_times_one_minus_p() -> None:
    assert learnability(0.5) == 0.25
    assert learnability(0.8) == pytest.approx(0.16)
    assert learnability(0.0) == learnability(1.0) == learnability(None) == 0.0
    np.testing.assert_allclose(learnability_array([0.5, 0.1, np.nan, 1.0]), [0.25, 0.09, 0.0, 0.0])


@pytest.mark.parametrize(
    ("rate", "sessions", "letter"),
    [
        (1.0, 1, "B"),  # one session cannot say mastered
        (0.0, 1, "C"),  # nor unlearnable
        (0.6, 1, "B"),
        (0.3, 1, "C"),
        (None, 1, "D"),  # no finished episode: no data, not a judgement
        (1.0, 2, "A"),
        (0.0, 2, "D"),
        (0.1, 3, "D"),
    ],
)
def test_a_level_is_judged_only_after_min_sessions(
    rate: float | None, sessions: int, letter: str
) -> None:
    assert judged_status(rate, sessions, min_sessions=2) == letter
    assert judged_status(rate, sessions, min_sessions=1) == status_letter(rate)
