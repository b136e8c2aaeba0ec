"""The judge benchmarks' figures files: one record per (judge, mode) run, written by the runner.

``benchmarks/judge_eval.py``, ``judge_collapse.py`` and ``judge_real_model.py`` each write
``docs/figures/<name>.json`` — the protocol in words, the runs, the provenance — through
``write_judge_figures``. A run's record (``judge_record``) holds the judge, the mode, the seed,
the states judged, the benchmark report's figures, the gate's verdict, the config (benchmark
settings, gate thresholds, the model endpoint of an LLM judge), the command line, the
provenance (commit, clean tree, numeric stack) and a digest of its content
(``run_figures.record_digest``). ``benchmarks/results_tables.py`` renders the judge tables of
``docs/results.md`` from these files.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from benchmarks.run_figures import record_digest
from dicode.domains.tetris.judges.benchmark import BenchmarkReport, BenchmarkSettings
from dicode.domains.tetris.judges.gate import GateThresholds, gate_failures
from dicode.provenance import write_figures


def judge_record(
    judge: str,
    report: BenchmarkReport,
    thresholds: GateThresholds,
    command: str,
    provenance: dict[str, Any],
    endpoint: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One benchmark run's record, with the gate's verdict and the digest of its content.

    ``judge`` names the judge as the table shows it (``report.judge`` is the judge's own name,
    e.g. ``text`` for every LLM); ``endpoint`` is the model server and structured-output form
    an LLM judge answered through."""
    failures = gate_failures(report, thresholds)
    figures = report.to_dict()
    settings = figures.pop("settings")
    entry = {
        "judge": judge,
        "mode": settings["mode"],
        "seed": settings["seed"],
        "states": report.states,
        "figures": figures,
        "gate": {"admitted": not failures, "failures": failures},
        "config": {"benchmark": settings, "gate": asdict(thresholds), "endpoint": endpoint},
        "command": command,
        "provenance": provenance,
    }
    return entry | {"digest": record_digest(entry)}


def judge_protocol(settings: BenchmarkSettings, thresholds: GateThresholds, judges: str) -> str:
    """The benchmark's protocol in words, from the settings every run of the file shares."""
    chosen = "all" if settings.candidates is None else f"{settings.candidates}"
    return (
        f"{judges} States: ε-greedy BCTS play (ε = {settings.epsilon:g}), "
        f"{settings.min_pieces}–{settings.max_pieces} pieces, seed {settings.seed}, "
        f"{settings.states} states; a pair is clearly separated at ≥ {settings.separation:g} "
        f"BCTS units. Absolute mode scores {chosen} placements per state (best, worst and evenly "
        "spaced ranks between) and compares every separated pair; pairwise mode asks best vs "
        f"worst (and {settings.extra_pairs} more separated pairs per state) in both orders. "
        "Accuracy counts ties and errors as ½ (chance = 0.5), strict accuracy correct pairs "
        f"only. Gate: accuracy ≥ {thresholds.min_pairwise_accuracy:g}, tie rate ≤ "
        f"{thresholds.max_tie_rate:g}, error rate ≤ {thresholds.max_error_rate:g}, ≥ "
        f"{thresholds.min_states} states."
    )


def write_judge_figures(name: str, protocol: str, runs: list[dict[str, Any]]) -> Path:
    """Write ``docs/figures/<name>.json`` (called after every run: a slow one keeps its figures)."""
    return write_figures(name, {"protocol": protocol, "runs": runs})
