"""The experiments' pictures: every experiment section of docs/results.md gets its picture,
linked from the section, from the figures files alone (rebuilt into a temporary copy, never the
repository's docs); the band is the t-interval of the mean over seeds; records without a curve
are said so; a picture is the same bytes when drawn again."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from benchmarks.results_plots import write_plot
from benchmarks.results_tables import ORDER, rebuild_results
from dicode.provenance import FIGURES
from services.experiment_view import curve_band, experiment
from services.run_figures import welch_interval

# Student's t quantiles t(0.975, df), from the printed tables.
T975 = {1: 12.706204736, 2: 4.302652730}


def svg_texts(path: Path) -> list[str]:
    return re.findall(r"<text[^>]*>([^<]*)</text>", path.read_text())


def test_every_experiment_section_links_its_picture_naming_every_arm(tmp_path: Path) -> None:
    figures = tmp_path / "figures"
    figures.mkdir()
    present = [name for name in ORDER if (FIGURES / f"{name}.json").is_file()]
    assert present, "no experiment figures file in docs/figures"
    for name in present:
        shutil.copy(FIGURES / f"{name}.json", figures)
    results = tmp_path / "results.md"
    rebuild_results(results, figures)
    text = results.read_text()
    for name in present:
        plot = figures / "plots" / f"{name}.svg"
        assert plot.is_file(), name
        body = text.split(f"<!-- experiment:{name} -->")[1].split(f"<!-- /experiment:{name} -->")[0]
        assert f"](figures/plots/{name}.svg)" in body, name
        runs = json.loads((figures / f"{name}.json").read_text())["runs"]
        arms = {run["variant"] for run in runs}
        texts = svg_texts(plot)
        for arm in arms:  # in the legend "arm (n seeds…)" or as its row's label
            assert any(t == arm or t.startswith(f"{arm} (") for t in texts), (name, arm)


def test_the_band_is_the_t_interval_of_the_mean_over_the_seeds_evaluated_there() -> None:
    band = curve_band(
        [
            [[0, 1.0], [10, 2.0]],
            [[0, 3.0], [10, 4.0]],
            [[0, 5.0], [20, 7.0]],  # evaluated at 20 alone, skipped 10
        ]
    )
    assert [(p.env_steps, p.n) for p in band] == [(0, 3), (10, 2), (20, 1)]
    # step 0: mean 3, sample std 2 over 3 seeds; step 10: mean 3, std √2 over 2 seeds
    half_0, half_10 = T975[2] * 2 / 3**0.5, T975[1] * 2**0.5 / 2**0.5
    assert band[0].mean == 3.0
    assert band[0].low == pytest.approx(3 - half_0) and band[0].high == pytest.approx(3 + half_0)
    assert band[1].low == pytest.approx(3 - half_10) and band[1].high == pytest.approx(3 + half_10)
    assert (band[2].mean, band[2].low, band[2].high) == (7.0, None, None)


def _record(variant: str, seed: int, curve: list[list[float]] | None) -> dict[str, Any]:
    final = curve[-1][1] if curve else 1.0
    return {"variant": variant, "seed": seed, "curve": curve, "figures": {"score": final}}


TINY: dict[str, Any] = {
    "protocol": "a hand-made experiment",
    "baseline": "base",
    "variants": {"base": {"note": "the reference"}, "arm": {"note": "one part changed"}},
    "summary": {"headline": "score"},
    "runs": [
        _record("base", 0, [[0, 0.0], [5, 1.0], [10, 2.0], [15, 3.0]]),
        _record("base", 1, [[0, 0.0], [5, 2.0], [10, 3.0], [15, 4.0]]),
        _record("arm", 0, [[0, 0.0], [5, 4.0], [10, 5.0], [15, 6.0]]),
        _record("arm", 1, None),  # its figure is its final evaluation, 1.0
    ],
}


def test_an_arm_reads_its_figures_interval_and_the_runs_without_a_curve() -> None:
    shown = experiment("tiny", TINY)
    base, arm = shown.arms
    assert [s.figure for s in base.seeds] == [2.0, 3.0]  # the mean of the last three
    assert [s.figure for s in arm.seeds] == [5.0, 1.0]
    expected = welch_interval([5.0, 1.0], [2.0, 3.0])
    assert arm.vs_baseline is not None and base.vs_baseline is None
    assert (arm.vs_baseline.diff, arm.vs_baseline.low, arm.vs_baseline.high) == (
        expected["diff"], expected["low"], expected["high"],
    )  # fmt: skip
    assert (arm.without_curve, base.without_curve) == (1, 0)
    assert [p.n for p in arm.curve] == [1, 1, 1, 1]


def test_a_picture_says_which_runs_kept_no_curve_and_is_the_same_bytes_again(
    tmp_path: Path,
) -> None:
    shown = experiment("tiny", TINY)
    first = write_plot(shown, tmp_path / "a")
    again = write_plot(shown, tmp_path / "b")
    assert first.read_bytes() == again.read_bytes()
    assert "no curve recorded: arm (1 run)" in svg_texts(first)
    nothing = experiment("none", TINY | {"runs": [_record("base", 0, None)]})
    assert "no learning curve in the records" in svg_texts(write_plot(nothing, tmp_path))
