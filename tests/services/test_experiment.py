"""The experiment runner: a run's figures depend only on its config and seed — not on the
number of worker processes or the order of the tasks — and an interrupted table resumes."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from benchmarks.experiment import Experiment, Variant, run_experiment, welch_interval
from benchmarks.results_tables import section, target_share
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
    # Each variant has its own folder (two variants of one method must not share one).
    assert Path(dicode["run_dir"]).parent.name == "dicode"
    # The headline's curve: from the start to the budget, ending on the run's figure.
    assert dicode["curve"][0][0] == 0 and dicode["curve"][-1][0] >= STEPS
    assert dicode["curve"][-1][1] == dicode["figures"]["mean_lines"]

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


def _run(variant: str, method: str, seed: int, lines: float, curve: list[list[float]]) -> dict:
    return {
        "variant": variant, "method": method, "seed": seed, "budget": {"env_steps": 1000},
        "figures": {"mean_lines": lines}, "skills": {}, "curve": curve,
        "teacher": {"attempts": 0, "accepted": 0, "levels_trained": 0},
        "cost": {"train_cpu_s": 60.0},
        "config": {"student": {"ppo": {"num_slots": 5}, "curriculum": {"target_fraction": 0.2}}},
        "provenance": {"commit": "abc", "versions": {}, "threads": {}},
    }  # fmt: skip


def test_the_table_reads_the_baseline_at_the_target_steps_of_each_curriculum() -> None:
    curve = [[0, 0.0], [400, 40.0], [1000, 100.0]]
    runs = [
        _run("target", "target", 0, 100.0, curve),
        _run("target", "target", 1, 100.0, curve),
        _run("dicode", "dicode", 0, 30.0, []),
        _run("dicode", "dicode", 1, 10.0, []),
    ]
    assert target_share(runs[0]) == 1.0 and target_share(runs[2]) == 0.2  # 1 slot of 5
    summary = {"headline": "mean_lines", "variants": {"target": {}, "dicode": {}}}
    for name in ("target", "dicode"):
        summary["variants"][name] = {"n": 2, "mean": 0.0, "std": 0.0}
    document = {"protocol": "p", "baseline": "target", "variants": {}, "runs": runs,
                "summary": summary}  # fmt: skip
    # 20 % of 1,000 steps = 200 target steps, where the target-only curve reads 20 lines.
    assert "| dicode | 0.20 | 200 | 20 | 20 | +0 | 2 |" in section(document)
