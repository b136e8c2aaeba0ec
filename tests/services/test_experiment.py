"""The experiment runner: a run's figures depend only on its config and seed — not on the
number of worker processes or the order of the tasks — and an interrupted table resumes."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import os
import platform
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from benchmarks.experiment import append_run, config_key, plan_tasks, record, run_experiment
from benchmarks.experiments_catalog import Experiment, Variant
from benchmarks.results_tables import section, slot_mix, target_share, trained_share
from benchmarks.run_figures import (
    Ablation,
    command_line,
    edited,
    excludes_zero,
    headline_figures,
    last_mean,
    paired_interval,
    record_digest,
    run_figure,
    summarise,
    welch_interval,
)
from dicode.provenance import provenance
from dicode.settings import EvaluatorSettings, StudentSettings
from services.curricula import MethodConfig, MethodResult
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


def _by_run(document: dict[str, Any]) -> dict[tuple[str, int], tuple[object, object]]:
    return {
        (run["variant"], run["seed"]): (run["figures"], run["skills"]) for run in document["runs"]
    }


@pytest.mark.timeout(900)
@pytest.mark.slow  # three small experiments end to end: ≈ 3 min on 2 cores
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
    assert dicode["cost"]["machine_load"]["cpus"] == os.cpu_count()  # what shared the cores
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


def test_an_arms_seeds_train_as_one_program_where_its_method_allows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Target-only Tetris runs on the device (seed_runs); DiCode's sessions stay on the host.
    tasks = plan_tasks(TINY_EXPERIMENT, ["target", "dicode"], [0, 1, 2], 2)
    assert tasks == [
        ("target", [0, 1]), ("dicode", [0]), ("dicode", [1]), ("target", [2]), ("dicode", [2]),
    ]  # fmt: skip
    assert plan_tasks(TINY_EXPERIMENT, ["dicode", "target"], [0, 1], 1) == [
        ("dicode", [0]), ("target", [0]), ("dicode", [1]), ("target", [1]),
    ]  # fmt: skip
    # A device program's run is not the host loop's run of the same config: another key.
    target = TINY_EXPERIMENT.variants["target"]
    device_key = config_key(target, 0, STEPS)
    monkeypatch.setattr("benchmarks.experiment.batches_seeds", lambda method, config: False)
    assert config_key(target, 0, STEPS) != device_key


def test_back_pressure_is_in_a_config_only_when_set() -> None:
    # Configs (and run keys) from before the setting stay as they were; setting it makes
    # another run.
    dicode = TINY_EXPERIMENT.variants["dicode"]
    assert "back_pressure" not in dicode.config.to_dict()
    held = replace(dicode, config=replace(dicode.config, back_pressure=True))
    assert held.config.to_dict()["back_pressure"] is True
    assert config_key(held, 0, STEPS) != config_key(dicode, 0, STEPS)


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
        _run("accel", "accel", 0, 50.0, []),  # the literature's loops have no target slot
    ]
    assert target_share(runs[0]) == 1.0 and target_share(runs[2]) == 0.2  # 1 slot of 5
    summary: dict[str, Any] = {
        "headline": "mean_lines",
        "variants": {"target": {}, "dicode": {}, "accel": {}},
    }
    for name in ("target", "dicode", "accel"):
        summary["variants"][name] = {"n": 2, "mean": 0.0, "std": 0.0}
    document = {"protocol": "p", "baseline": "target", "variants": {}, "runs": runs,
                "summary": summary}  # fmt: skip
    # 20 % of 1,000 steps = 200 target steps, where the target-only curve reads 20 lines.
    table = section(document)
    assert "| dicode | 0.20 | 200 | 20 | 20 | +0 | 2 |" in table
    assert "| accel | 0." not in table
    # Where the runs came from names each processor and how many runs it made.
    assert "processors: not recorded (5 runs)." in table
    runs[0]["provenance"]["cpu"] = {"model": "Xeon", "vector": ["avx", "avx2", "avx512f"]}
    assert "processors: Xeon, 3 vector extensions up to avx512 (1 run); not recorded (4 runs)." in (
        section(document)
    )


def test_the_literature_loops_are_read_against_the_baseline_at_the_steps_they_trained_on() -> None:
    # Robust PLR scores its new levels without a gradient step: 3 of its 4 iterations trained.
    curve = [[0, 0.0], [1000, 1.0]]
    runs = [_run("dr", "target", 0, 0.9, curve), _run("robust_plr", "robust_plr", 0, 0.5, [])]
    runs[1]["slots"] = {"new": 1, "replay": 3, "mutate": 0, "gradient": 3}
    assert trained_share(runs[1]) == 0.75 and trained_share(runs[0]) == 1.0
    summary = {"headline": "mean_lines", "variants": {"dr": {"n": 1}, "robust_plr": {"n": 1}}}
    document = {"protocol": "p", "baseline": "dr", "variants": {}, "runs": runs,
                "summary": summary}  # fmt: skip
    table = section(document)
    assert "| robust_plr | 0.75 | 750 | 0.5 | 0.75 | -0.25 | 1 |" in table
    # A loop that trains on every iteration needs no such row.
    runs[1]["slots"] = {"new": 4, "replay": 0, "mutate": 0, "gradient": 4}
    assert "equal *trained* steps" not in section(document)


def test_the_table_says_what_the_literature_loops_trained_on_early_midway_and_late() -> None:
    runs = [_run("dr", "target", 0, 0.9, []), _run("accel", "accel", 0, 0.5, [])]
    runs.append(_run("accel", "accel", 1, 0.4, []))
    segment = {"env_steps": 0, "trained_plays": 32, "trained_walls": 20.0}
    paths = [[10.0, 14.0, 30.0], [12.0, 16.0, 40.0]]  # per seed: first, middle, last segment
    for run, seed_paths in zip(runs[1:], paths, strict=True):
        run["trace"] = [segment | {"trained_path": v, "buffer_score": 0.5} for v in seed_paths]
    summary = {"headline": "mean_lines", "variants": {"dr": {"n": 1}, "accel": {"n": 2}}}
    document = {"protocol": "p", "baseline": "dr", "variants": {}, "runs": runs,
                "summary": summary}  # fmt: skip
    assert "| accel | 11 / 15 / 35 | 20 / 20 / 20 | 0.5 | — / — / — | 2 |" in section(document)
    for run in runs:  # records from before the trace: no table
        run.pop("trace", None)
    assert "took gradient steps on" not in section(document)


def test_a_record_names_the_processor_xla_compiled_for() -> None:
    # Same platform string, different instruction sets: figures can differ in their last bits.
    machine = provenance()["cpu"]
    assert isinstance(machine["model"], str) and machine["model"]
    assert machine["vector"] == sorted(machine["vector"])
    if platform.machine() == "x86_64":  # jaxlib's x86-64 wheels require AVX
        assert "avx" in machine["vector"]


def test_a_scheduled_share_is_read_from_the_slot_sessions_each_run_recorded() -> None:
    curve = [[0, 0.0], [1000, 100.0]]
    runs = [_run("target", "target", seed, 100.0, curve) for seed in (0, 1)]
    for seed, target_sessions in ((0, 60), (1, 70)):  # configured 0.2; the schedule kept more
        run = _run("scheduled", "dicode", seed, 50.0, [])
        others = (100 - target_sessions) // 2
        run["slots"] = {"target": target_sessions, "new": others, "replay": others}
        runs.append(run)
    assert target_share(runs[2]) == 0.6 and target_share(runs[3]) == 0.7
    summary = {"headline": "mean_lines", "variants": {"target": {}, "scheduled": {}}}
    document = {"protocol": "p", "baseline": "target", "variants": {}, "runs": runs,
                "summary": summary}  # fmt: skip
    # 600 and 700 target steps, where the target-only curve reads 60 and 70 lines.
    assert "| scheduled | 0.60–0.70 | 600–700 | 50 | 65 | -15 | 2 |" in section(document)


def test_a_runs_figure_is_the_mean_of_its_last_three_evaluations() -> None:
    curve = [[0, 0.0], [100, 90.0], [200, 30.0], [300, 60.0], [400, 120.0]]
    assert last_mean(curve) == pytest.approx(70.0)
    stored = headline_figures(curve, 120.0)
    assert stored == {"last_mean": 70.0, "last": [30.0, 60.0, 120.0], "final": 120.0, "n_last": 3}
    assert headline_figures([[0, 5.0], [10, 7.0]], 7.0)["last_mean"] == 6.0  # fewer points
    run = {"figures": {"mean_lines": 120.0}, "curve": curve}
    assert run_figure(run, "mean_lines") == pytest.approx(70.0)  # older records: from the curve
    assert run_figure(run | {"headline": stored | {"last_mean": 1.0}}, "mean_lines") == 1.0
    assert run_figure(run | {"curve": []}, "mean_lines") == 120.0  # no curve kept: the final


def test_moved_only_when_the_interval_excludes_zero() -> None:
    # Paired differences 1, 2, 3: mean 2, se 1/√3, t(0.975, 2) = 4.303 → [−0.484, +4.484].
    spans = paired_interval([11.0, 12.0, 13.0], [10.0, 10.0, 10.0])
    assert spans["diff"] == pytest.approx(2.0)
    assert spans["low"] == pytest.approx(2.0 - 4.3027 / 3**0.5, rel=1e-4)
    assert spans["df"] == 2.0 and not spans["moved"]
    # Differences 2.0, 2.1, 1.9: se 0.0577 → [1.75, 2.25].
    moved = paired_interval([12.0, 12.1, 11.9], [10.0, 10.0, 10.0])
    assert moved["moved"] and moved["low"] == pytest.approx(2.0 - 4.3027 * 0.1 / 3**0.5, rel=1e-4)
    assert not excludes_zero({"low": 0.0, "high": 1.0})  # zero on the bound is not excluded
    assert excludes_zero({"low": -2.0, "high": -0.1})
    assert welch_interval([3.0, 4.0, 5.0], [1.0, 2.0, 3.0])["moved"] is False  # [−0.27, 4.27]


def test_the_summary_and_table_use_last_three_means_and_declared_ablations() -> None:
    def run(variant: str, seed: int, values: list[float]) -> dict:
        curve = [[i * 100, v] for i, v in enumerate(values)]
        return _run(variant, "dicode", seed, values[-1], curve) | {
            "slots": {"target": 10, "new": 5, "replay": 15, "new_over_share": 1}
        }

    runs = [
        run("a", 0, [0.0, 10.0, 20.0, 30.0]),  # last three 20 → 20 (final 30)
        run("a", 1, [0.0, 12.0, 22.0, 32.0]),  # 22
        run("b", 0, [0.0, 1.0, 2.0, 3.0]),  # 2
        run("b", 1, [0.0, 2.0, 3.0, 4.0]),  # 3
    ]
    pair = Ablation("what a adds", "a", "b")
    summary = summarise(runs, "mean_lines", "b", [pair])
    a = summary["variants"]["a"]
    assert (a["n"], a["mean"], a["final_mean"]) == (2, pytest.approx(21.0), pytest.approx(31.0))
    (row,) = summary["ablations"]
    assert row["per_seed"] == [pytest.approx(18.0), pytest.approx(19.0)] and row["seeds"] == [0, 1]
    assert row["diff"] == pytest.approx(18.5) and row["moved"]  # t(0.975, 1) · 0.5 = 6.35
    document = {
        "protocol": "p", "baseline": "b", "variants": {}, "runs": runs,
        "ablations": [dataclasses.asdict(pair)], "summary": {"headline": "mean_lines"},
    }  # fmt: skip
    table = section(document)
    assert "| a |  | 2 | 21 ± 1.41 | 31 | 20, 22 |" in table
    assert "| what a adds | `a` | `b` | +18.5 [+12.1, +24.9] | +18, +19 | **moved** |" in table
    assert "| 10 / 30 (0.75) |" in table  # two runs' new / replay slot-sessions
    assert "predate stored command lines" in table


def test_a_record_carries_its_command_figures_slots_and_a_digest() -> None:
    result = MethodResult(
        method="dicode", seed=3, target={"mean_lines": 40.0, "skills": {"x": 1.0}},
        env_steps=400, wall_s=1.0, train_s=1.0, train_cpu_s=1.0, generation_s=0.0,
        attempts=2, accepted=1, levels_trained=1,
        slots={"target": 4, "new": 2, "replay": 2, "new_over_share": 1}, run_dir="r",
        curve=[(0, 0.0), (100, 10.0), (200, 20.0), (400, 40.0)],
    )  # fmt: skip
    command = command_line(["benchmarks/experiment.py", "tiny", "--seeds", "3"])
    load = {"load_average_mean": 2.5, "load_average_max": 3.1, "cpus": 2.0}
    entry = record("dicode", TINY_EXPERIMENT.variants["dicode"], result, 400, command, load)
    assert entry["cost"]["machine_load"] == load
    assert entry["command"] == "PYTHONPATH=$PWD python benchmarks/experiment.py tiny --seeds 3"
    assert entry["headline"]["last_mean"] == pytest.approx(70 / 3)
    assert entry["headline"]["final"] == 40.0 and entry["figures"] == {"mean_lines": 40.0}
    assert entry["slots"]["replay"] == 2 and entry["teacher"]["levels_trained"] == 1
    assert entry["digest"] == record_digest(entry) and not edited(entry)
    document = {"protocol": "p", "baseline": "dicode", "variants": {}, "runs": [entry],
                "summary": {"headline": "mean_lines"}}  # fmt: skip
    assert (
        "Machine load while training (1-minute load average, mean per run): 2.5–2.5 on 2 cores "
        "(1 of 1 runs recorded it)." in section(document)
    )
    by_hand = json.loads(json.dumps(entry))
    by_hand["figures"]["mean_lines"] = 400.0
    assert edited(by_hand)
    assert "1 record(s) edited" in section(
        {"protocol": "p", "baseline": "dicode", "variants": {}, "runs": [by_hand],
         "summary": {"headline": "mean_lines"}}
    )  # fmt: skip


def _finished_run(seed: int) -> dict[str, Any]:
    result = MethodResult(
        method="dicode", seed=seed, target={"mean_lines": float(seed), "skills": {}},
        env_steps=400, wall_s=1.0, train_s=1.0, train_cpu_s=1.0, generation_s=0.0,
        attempts=1, accepted=1, levels_trained=1, slots={"new": 2}, run_dir="r",
        curve=[(0, 0.0), (400, float(seed))],
    )  # fmt: skip
    return record("dicode", TINY_EXPERIMENT.variants["dicode"], result, 400, "runner")


def _write_runs(figures: Path, seeds: list[int], start: Any) -> None:
    start.wait()  # both writers begin together
    for seed in seeds:
        append_run(figures, TINY_EXPERIMENT, _finished_run(seed))


def test_runners_sharing_a_figures_file_lose_no_record(tmp_path: Path) -> None:
    # Two runners of one experiment (a seed started while others train) each held the file as
    # it was when they began; every record either writes must end up in it.
    figures = tmp_path / "tiny.json"
    spawn = multiprocessing.get_context("spawn")
    start = spawn.Barrier(2)
    writers = [
        spawn.Process(target=_write_runs, args=(figures, list(range(k, 60, 2)), start))
        for k in (0, 1)
    ]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(120)
        assert writer.exitcode == 0
    document = json.loads(figures.read_text())
    assert sorted(run["seed"] for run in document["runs"]) == list(range(60))
    assert document["summary"]["variants"]["dicode"]["n"] == 60
    # The same run written again is not a second record; a fresh start drops the old ones.
    assert len(append_run(figures, TINY_EXPERIMENT, _finished_run(3))["runs"]) == 60
    restarted = append_run(figures, TINY_EXPERIMENT, _finished_run(3), started_over=True)
    assert [run["seed"] for run in restarted["runs"]] == [3]
    assert json.loads(figures.read_text()) == restarted
    assert sorted(path.name for path in tmp_path.iterdir()) == ["tiny.json"]  # no temporaries


def test_another_number_of_games_is_another_run_of_every_arm() -> None:
    """--games N: every arm's evaluator plays N games; the records' keys make it another run."""
    from benchmarks.experiment import config_key, with_games
    from benchmarks.experiments_catalog import EXPERIMENTS

    experiment = EXPERIMENTS["tetris_target"]
    twenty = with_games(experiment, 20)
    assert twenty.variants.keys() == experiment.variants.keys()
    for name, variant in twenty.variants.items():
        original = experiment.variants[name]
        assert variant.config.evaluator.games == 20 != original.config.evaluator.games
        assert replace(variant.config, evaluator=original.config.evaluator) == original.config
        assert config_key(variant, 0, 1000) != config_key(original, 0, 1000)


def test_runs_without_slot_sessions_show_no_slot_mix() -> None:
    reverse = _run("reverse", "reverse", 0, 0.9, [])
    reverse["slots"] = {"gradient": 2442, "start_distance": 3646}  # the ladder's counts
    assert slot_mix([reverse]) == "—"
    dicode = _run("dicode", "dicode", 0, 0.5, [])
    dicode["slots"] = {"target": 4, "new": 3, "replay": 1, "new_over_share": 0}
    assert slot_mix([reverse, dicode]) == "3 / 1 (0.25)"
