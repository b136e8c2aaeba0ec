"""What an experiment's figures file shows, ready to draw: per arm, the learning curve as the
mean over seeds with its 95 % band, each run's figure, and the difference to the baseline.

The pictures of ``docs/results.md`` (``benchmarks/results_plots.py``) and the API's experiments
view both draw from here, so they show the same numbers as the tables: a run's figure is
`run_figure` (the mean of its last three evaluations) and an arm's difference to the baseline is
the Welch interval `summarise` computes (``services.run_figures``).

The band at one evaluation step is the t-interval of the mean over the seeds evaluated there:
mean ± t(0.975, n − 1) · s / √n, with s the sample standard deviation (n − 1); a step that one
seed reached has no band. Seeds are matched by their exact env steps, so a run that stopped
early only thins the later steps.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from services.run_figures import LEVEL, mean, run_figure, sample_std, summarise


@dataclass(frozen=True)
class BandPoint:
    """One evaluation step of an arm's curve: the mean over the seeds evaluated there and its
    interval (``None`` for one seed)."""

    env_steps: float
    mean: float
    low: float | None
    high: float | None
    n: int


@dataclass(frozen=True)
class SeedFigure:
    seed: int
    figure: float  # the run's figure: the mean of its last three evaluations


@dataclass(frozen=True)
class Difference:
    """An arm's mean minus the baseline's, with its 95 % Welch interval."""

    diff: float
    low: float
    high: float
    moved: bool  # the interval excludes zero


@dataclass(frozen=True)
class Arm:
    name: str
    note: str
    n: int
    mean: float  # of the run figures
    std: float  # sample std of the run figures (0 for one seed)
    seeds: tuple[SeedFigure, ...]
    vs_baseline: Difference | None  # None for the baseline and for arms of one seed
    curve: tuple[BandPoint, ...]
    without_curve: int  # runs whose record kept no curve


@dataclass(frozen=True)
class Experiment:
    name: str
    protocol: str
    headline: str
    baseline: str
    arms: tuple[Arm, ...]


class UnknownExperiment(LookupError):
    """A name that no experiment document in the figures directory has."""


def is_experiment(document: object) -> bool:
    """Is this figures file an experiment document (runs compared against a baseline arm)?"""
    return isinstance(document, dict) and "runs" in document and "baseline" in document


def experiment_documents(figures: Path) -> dict[str, dict[str, Any]]:
    """The experiment documents among ``figures``' JSON files (not its subfolders), by file name
    without ``.json``, sorted. A file that is not valid JSON is not an experiment document."""
    documents = {}
    for path in sorted(figures.glob("*.json")):
        try:
            document = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            continue
        if is_experiment(document):
            documents[path.stem] = document
    return documents


def experiment_document(figures: Path, name: str) -> dict[str, Any]:
    """The experiment document ``name`` of ``figures``. Only names of files found there are
    read, so no name reaches outside the directory; another name raises `UnknownExperiment`."""
    documents = experiment_documents(figures)
    if name not in documents:
        raise UnknownExperiment(f"no experiment named {name!r} (GET /api/experiments lists them)")
    return documents[name]


def headline_of(document: dict[str, Any]) -> str:
    """The figure the experiment compares its arms on (as the tables name it)."""
    return str(document.get("summary", {}).get("headline", "?"))


def experiment(name: str, document: dict[str, Any]) -> Experiment:
    """An experiment document's arms, in the order the tables list them (first run first)."""
    runs, baseline, headline = document["runs"], document["baseline"], headline_of(document)
    # Recomputed from the records, as the tables are, never read from the stored summary.
    summary = summarise(runs, headline, baseline)
    arms = []
    for arm, stats in summary["variants"].items():
        mine = sorted((r for r in runs if r["variant"] == arm), key=lambda r: r["seed"])
        curves = [r["curve"] for r in mine if r.get("curve")]
        versus = stats.get("vs_baseline")
        arms.append(
            Arm(
                name=arm,
                note=str(document.get("variants", {}).get(arm, {}).get("note", "")),
                n=stats["n"],
                mean=stats["mean"],
                std=stats["std"],
                seeds=tuple(SeedFigure(int(r["seed"]), run_figure(r, headline)) for r in mine),
                vs_baseline=(
                    Difference(versus["diff"], versus["low"], versus["high"], versus["moved"])
                    if versus
                    else None
                ),
                curve=curve_band(curves),
                without_curve=len(mine) - len(curves),
            )
        )
    return Experiment(name, str(document.get("protocol", "")), headline, baseline, tuple(arms))


def curve_band(
    curves: Sequence[Sequence[Sequence[float]]], level: float = LEVEL
) -> tuple[BandPoint, ...]:
    """The mean of ``curves`` ((env steps, value) pairs, one curve per seed) at every env step
    some seed was evaluated at, with the ``level`` t-interval of that mean."""
    from scipy import stats

    by_step: dict[float, list[float]] = {}
    for curve in curves:
        for point in curve:
            by_step.setdefault(float(point[0]), []).append(float(point[1]))
    band = []
    for steps in sorted(by_step):
        values = by_step[steps]
        centre, n = mean(values), len(values)
        if n < 2:
            band.append(BandPoint(steps, centre, None, None, n))
            continue
        half = float(stats.t.ppf(0.5 + level / 2, n - 1)) * sample_std(values) / math.sqrt(n)
        band.append(BandPoint(steps, centre, centre - half, centre + half, n))
    return tuple(band)
