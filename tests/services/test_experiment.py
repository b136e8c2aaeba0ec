"""The experiment runner: a run's figures depend only on its config and seed — not on the
number of worker processes or the order of the tasks — and an interrupted table resumes."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from benchmarks.experiment import Experiment, Variant, run_experiment, welch_interval
from dicode.settings import EvaluatorSettings, StudentSettings
from services.curricula import MethodConfig
from tests.services.conftest import TINY

CONFIG = MethodConfig(
    domain="tetris",
    student=StudentSettings(replace(TINY.student.ppo, num_slots=5), iterations_per_session=1),
    evaluator=EvaluatorSettings(games=2, max_steps=30),
    generator=TINY.generator,
    levels_per_session=1,
    eval_points=1,
)
STEPS = 2 * CONFIG.student.ppo.batch_size
TINY_EXPERIMENT = Experiment(
    name="tiny",
    protocol="two sessions of a tiny student",
    steps=STEPS,
    seeds=(0, 1),
    baseline="target",
    variants={"target": Variant("target", CONFIG), "dicode": Variant("dicode", CONFIG)},
)


def _by_run(document: dict[str, object]) -> dict[tuple[str, int], tuple[object, object]]:
    return {
        (run["variant"], run["seed"]): (run["figures"], run["skills"])  # type: ignore[index]
        for run in document["runs"]  # type: ignore[attr-defined]
    }


@pytest.mark.timeout(900)
def test_figures_do_not_depend_on_jobs_or_task_order(tmp_path: Path) -> None:
    names = ["target", "dicode"]
    one = run_experiment(
        TINY_EXPERIMENT, names, [0, 1], STEPS, 1, tmp_path / "a", tmp_path / "a.json"
    )
    two = run_experiment(
        TINY_EXPERIMENT, names[::-1], [1, 0], STEPS, 2, tmp_path / "b", tmp_path / "b.json"
    )
    assert len(one["runs"]) == len(two["runs"]) == 4
    assert _by_run(one) == _by_run(two)
    dicode = next(run for run in one["runs"] if run["variant"] == "dicode")
    assert dicode["teacher"]["attempts"] == 2 and dicode["provenance"]["commit"]
    assert dicode["provenance"]["threads"]["XLA_FLAGS"]  # the workers' pinned threads

    # A second call finds every run in the file and does nothing (resume).
    before = (tmp_path / "a.json").read_text()
    again = run_experiment(
        TINY_EXPERIMENT, names, [0, 1], STEPS, 1, tmp_path / "a", tmp_path / "a.json"
    )
    assert len(again["runs"]) == 4 and (tmp_path / "a.json").read_text() == before
    summary = json.loads(before)["summary"]
    assert summary["headline"] == "mean_lines" and summary["variants"]["target"]["n"] == 2


def test_the_difference_interval_is_welchs() -> None:
    interval = welch_interval([3.0, 4.0, 5.0], [1.0, 2.0, 3.0])
    assert interval["diff"] == pytest.approx(2.0)
    # se = sqrt(1/3 + 1/3), df = 4, t(0.975, 4) = 2.776
    assert interval["high"] - interval["diff"] == pytest.approx(2.776 * (2 / 3) ** 0.5, rel=1e-3)
