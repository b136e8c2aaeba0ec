"""The judge tables of docs/results.md are rendered from the judge benchmarks' figures files."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from benchmarks.judge_figures import judge_record
from benchmarks.results_tables import judge_section, rebuild_results
from benchmarks.run_figures import edited
from dicode.domains.tetris.judges.benchmark import BenchmarkReport, BenchmarkSettings
from dicode.domains.tetris.judges.gate import GateThresholds

ORIGIN = {"commit": "abc1234567890", "tree_dirty": False, "versions": {"numpy": "2.0"},
          "threads": {}}  # fmt: skip
COMMAND = "PYTHONPATH=$PWD python benchmarks/judge_collapse.py --states 15"


def collapsed_report() -> BenchmarkReport:
    """The scripted collapse's shape: two thirds ties, few correct (absolute mode)."""
    settings = BenchmarkSettings(states=15, candidates=2)
    tally = {"n": 15, "correct": 2, "tie": 10, "wrong": 3, "error": 0}
    return BenchmarkReport(
        judge="text", settings=asdict(settings), states=15, pairwise_accuracy=7 / 15,
        strict_accuracy=2 / 15, tie_rate=10 / 15, error_rate=0.0, pairs=tally,
        best_vs_worst=tally, mean_score_best=-0.773, mean_score_worst=-0.767,
        kendall_tau=-0.067, top1_agreement=0.4,
        score={"mean": -0.77, "std": 0.05, "distinct": 2, "entropy_bits": 0.88},
        calls=30, mean_latency_s=0.012,
    )  # fmt: skip


def pairwise_report() -> BenchmarkReport:
    settings = BenchmarkSettings(states=10, mode="pairwise")
    tally = {"n": 20, "correct": 10, "tie": 0, "wrong": 10, "error": 0}
    return BenchmarkReport(
        judge="text", settings=asdict(settings), states=10, pairwise_accuracy=0.5,
        strict_accuracy=0.5, tie_rate=0.0, error_rate=0.0, pairs=tally, best_vs_worst=tally,
        swap_consistency=0.0, first_position_rate=1.0, calls=20, mean_latency_s=48.0,
    )  # fmt: skip


def test_a_judge_record_renders_as_its_row() -> None:
    record = judge_record("collapsed (scripted)", collapsed_report(), GateThresholds(), COMMAND,
                          ORIGIN)  # fmt: skip
    assert (record["judge"], record["mode"], record["seed"], record["states"]) == (
        "collapsed (scripted)", "absolute", 0, 15
    )  # fmt: skip
    assert record["config"]["benchmark"]["candidates"] == 2 and not edited(record)
    table = judge_section({"protocol": "15 states.", "runs": [record]})
    assert (
        "| collapsed (scripted) | absolute | 15 | 0.467 | 0.133 | 0.667 | 0.000 | 2/10/3/0 | "
        "-0.067 | 0.400 | 2 (0.88); -0.773 / -0.767 | – | 30 (0.012) | refused (pairwise "
        "accuracy 0.467 < 0.800; tie rate 0.667 > 0.200) |"
    ) in table
    assert f"Commands: `{COMMAND}`." in table and "commits abc1234567" in table
    assert "dirty" not in table and "edited" not in table


def test_pairwise_rows_show_position_bias_and_edits_show(tmp_path: Path) -> None:
    record = judge_record("text (smollm2)", pairwise_report(), GateThresholds(), COMMAND, ORIGIN)
    record["figures"]["pairwise_accuracy"] = 0.9  # a hand edit: the digest no longer matches
    figures = tmp_path / "figures"
    figures.mkdir()
    (figures / "judge_vllm.json").write_text(json.dumps({"protocol": "p", "runs": [record]}))
    results = tmp_path / "results.md"
    block = "<!-- experiment:judge_vllm -->\nold table\n<!-- /experiment:judge_vllm -->"
    results.write_text(f"# Results\n\nprose\n\n{block}\nmore prose\n")
    assert rebuild_results(results, figures) == ["judge_vllm"]
    text = results.read_text()
    assert "old table" not in text and text.endswith("more prose\n")
    assert "| – | – | – | 0.00 / 1.00 | 20 (48) |" in text  # no ranks; always the first shown
    assert "1 record(s) edited after the runner wrote them" in text
