"""Status letters and learnability at and around their boundaries."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dicode.archive.status import learnability, learnability_array, status_letter


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
