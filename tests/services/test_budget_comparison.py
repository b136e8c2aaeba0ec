"""A longer-budget experiment read against its shorter twin: each arm's gain and its change of
gap to the baseline, paired by seed over the seeds both files hold, and where an arm's curve
crosses the baseline's — computed from the records and rendered into the experiment's section."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.budget_comparison import crossings, gains, gap_changes
from benchmarks.results_tables import section

T975_2 = 4.302652730  # Student's t(0.975, 2), from the printed tables


def _run(variant: str, seed: int, figure: float, first: float | None = None) -> dict[str, Any]:
    """A record whose last three evaluations are all ``figure`` (``first``: the first trained
    evaluation, when it differs)."""
    values = [first if first is not None else figure, figure, figure, figure]
    return {
        "variant": variant, "method": variant, "seed": seed, "budget": {"env_steps": 40},
        "figures": {"solve_rate": figure}, "skills": {},
        "curve": [[0, 0.0], *([10.0 * (i + 1), v] for i, v in enumerate(values))],
        "teacher": {"attempts": 0, "accepted": 0, "levels_trained": 0},
        "cost": {"train_cpu_s": 60.0}, "config": {},
        "provenance": {"commit": "abc", "versions": {}, "threads": {}},
    }  # fmt: skip


def _document(name: str, runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"experiment": name, "protocol": "p", "baseline": "dr", "variants": {},
            "runs": runs, "summary": {"headline": "solve_rate"}}  # fmt: skip


SHORTER = _document(
    "maze_jaxued",
    [_run("dr", 0, 0.4), _run("dr", 1, 0.5), _run("dr", 2, 0.6),
     _run("robust_plr", 0, 0.2), _run("robust_plr", 1, 0.3), _run("robust_plr", 2, 0.1)],
)  # fmt: skip
LONGER = _document(
    "maze_jaxued_60m",
    [_run("dr", 0, 0.6), _run("dr", 1, 0.6), _run("dr", 2, 0.8),
     _run("robust_plr", 0, 0.5), _run("robust_plr", 1, 0.4, first=0.9),
     _run("robust_plr", 2, 0.5), _run("robust_plr", 3, 0.9)],  # seed 3: no shorter twin
)  # fmt: skip


def test_gains_are_paired_over_the_seeds_both_budgets_ran() -> None:
    by_variant = {row["variant"]: row for row in gains(LONGER, SHORTER)}
    dr = by_variant["dr"]
    assert dr["seeds"] == [0, 1, 2]
    assert dr["per_seed"] == [pytest.approx(0.2), pytest.approx(0.1), pytest.approx(0.2)]
    half = T975_2 * 0.1 / 3**0.5 / 3**0.5  # sample std of (0.2, 0.1, 0.2) is 0.1/√3
    assert dr["diff"] == pytest.approx(1 / 6)
    assert (dr["low"], dr["high"]) == (pytest.approx(1 / 6 - half), pytest.approx(1 / 6 + half))
    assert dr["moved"]
    assert by_variant["robust_plr"]["seeds"] == [0, 1, 2]


def test_the_gap_to_the_baseline_changes_by_the_difference_of_the_seeds_gaps() -> None:
    (row,) = gap_changes(LONGER, SHORTER)
    # Gaps at the longer budget −0.1, −0.2, −0.3; at the shorter −0.2, −0.2, −0.5.
    assert row["variant"] == "robust_plr" and row["seeds"] == [0, 1, 2]
    assert row["per_seed"] == [pytest.approx(0.1), pytest.approx(0.0), pytest.approx(0.2)]
    assert row["diff"] == pytest.approx(0.1) and not row["moved"]


def test_a_crossing_is_read_on_the_mean_curves_and_per_seed() -> None:
    (row,) = crossings(LONGER)
    # First trained evaluation: robust PLR (0.5 + 0.9 + 0.5 + 0.9) / 4 = 0.7 above DR's 2/3;
    # the next three: 0.575, below.
    assert row["evaluations"] == 4 and row["above"] == 1
    assert row["first_above_steps"] == pytest.approx(10.0)
    assert row["highest"] == pytest.approx(0.7 - 2 / 3)
    assert row["lowest"] == row["last"] == pytest.approx(0.575 - 2 / 3)
    assert row["per_seed_above"] == {0: 0, 1: 1, 2: 0}  # seed 3 has no DR run
    untrained = [run | {"curve": [[0, 0.0]]} for run in LONGER["runs"]]
    assert crossings(LONGER | {"runs": untrained}) == []  # only the step-0 evaluation


def test_the_section_of_a_longer_budget_reads_it_against_its_twin() -> None:
    table = section(LONGER, shorter=SHORTER)
    assert "Against `maze_jaxued`" in table
    assert "| dr | gain | 0, 1, 2 | +0.167 [+0.0232, +0.31] | +0.2, +0.1, +0.2 | **moved** |" in (
        table
    )
    assert "| robust_plr | gap to dr, change | 0, 1, 2 | +0.1 [" in table
    assert (
        "| robust_plr | 1 of 4 | 10 env steps | -0.0917 / +0.0333 / -0.0917 | 0: 0, 1: 1, 2: 0 |"
        in table
    )
    assert "Against" not in section(LONGER)  # no twin given: no comparison
