"""The judge benchmark's matrix: every reference judge in every mode, on the same seeded states.

    PYTHONPATH=$PWD python benchmarks/judge_eval.py --states 15

Runs ``dicode tetris judge eval``'s benchmark (``dicode.domains.tetris.judges.benchmark``) for the
heuristic (BCTS), constant and random judges in absolute and pairwise mode, and writes one record
per run to ``docs/figures/judge_eval.json`` (``benchmarks/judge_figures.py``), rewritten after
every run; prints the table that ``benchmarks/results_tables.py`` renders into
``docs/results.md``. The LLM judges need a model server: ``benchmarks/judge_collapse.py``
(scripted, on the fake OpenAI server) and ``benchmarks/judge_real_model.py`` (a real model).
"""

from __future__ import annotations

import argparse
import asyncio
from dataclasses import replace
from typing import Any

from benchmarks.judge_figures import judge_protocol, judge_record, write_judge_figures
from benchmarks.results_tables import judge_table
from benchmarks.run_figures import command_line
from dicode.domains.tetris.judges.benchmark import BenchmarkSettings, Mode
from dicode.domains.tetris.judges.cli import run_eval
from dicode.domains.tetris.judges.gate import GateThresholds
from dicode.provenance import provenance

REFERENCE_JUDGES = ("heuristic", "constant", "random")
MODES: tuple[Mode, ...] = ("absolute", "pairwise")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=15)
    parser.add_argument("--seed", type=int, default=0, help="states' seed and the random judge's")
    parser.add_argument("--candidates", type=int, default=None, help="absolute mode (default all)")
    args = parser.parse_args()
    thresholds, origin, command = GateThresholds(), provenance(), command_line()
    runs: list[dict[str, Any]] = []
    settings = BenchmarkSettings(states=args.states, seed=args.seed, candidates=args.candidates)
    protocol = judge_protocol(
        settings, thresholds, "Reference judges (no model): BCTS's own value, a constant, a "
        f"seeded random score (seed {args.seed})."
    )  # fmt: skip
    for judge in REFERENCE_JUDGES:
        for mode in MODES:
            # No model answers here: the structured-output form is unused.
            report = asyncio.run(run_eval(judge, replace(settings, mode=mode), None, "json_schema"))
            runs.append(judge_record(judge, report, thresholds, command, origin))
            path = write_judge_figures("judge_eval", protocol, runs)
            print(f"{judge} / {mode}: {report.seconds:.1f} s", flush=True)
    print("\n".join(judge_table(runs)))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
