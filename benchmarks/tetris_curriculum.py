"""Every student method at an equal env-step budget on the Tetris target protocol.

    PYTHONPATH=$PWD python benchmarks/tetris_curriculum.py --profile quick

Rules: each method trains for the same number of environment steps (pieces placed, every slot
counted) from training seeds (default 0, 1, 2); its greedy policy plays the target protocol
(`docs/evaluation.md`: seed 0, 20 games, 1,000-piece cap) along the curve and at the end.
Nothing is tuned on that seed. Methods: `target` (target-only PPO), `dr`, `plr`, `sfl`, `dicode`,
`dicode_ol` (one 5-slot PPO student, real mutation teacher, sandbox and SQLite archive; see
`services/curricula.py`) and `dqn` (afterstate DQN, corrected placements). Each run writes
`config.json`, `curve.csv` and `curve.png` (and the curricula `archive.sqlite`) under
`--out/<method>_s<seed>/`; the table replaces its own section of `--results`.

The PPO student's step size decays linearly to 0 over the budget (`PPOConfig.annealed_over`).
The DQN gets its own, smaller budget (`--dqn-steps`): its update costs ~2× PPO's per step.
`--jobs 2` runs two worker processes (each compiles once and keeps a warm sandbox pool).
"""

from __future__ import annotations

import argparse
import atexit
import json
import multiprocessing
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import jax

from dicode.archive.config import ArchiveConfig
from dicode.levels.pipeline import Validator
from dicode.settings import StudentSettings
from dicode.student.loop import CurvePoint, write_curve
from dicode.student.tetris.config import PPOConfig
from dicode.student.tetris.dqn import DQN, DQNConfig
from dicode.student.tetris.evaluate import evaluate_greedy, make_greedy_evaluator
from services.curricula import METHODS, MethodConfig, MethodResult, run_method

# One student for every method: 5 slots (one, 20 %, on the target game); 13 envs each = the
# 64-env batch the defaults were tuned with; pools of 8 = the bundles. DiCode keeps 100 active
# levels for 15 level slots; the same ratio for our 4 is 27.
TETRIS = MethodConfig(
    domain="tetris",
    student=StudentSettings(PPOConfig(num_slots=5, envs_per_slot=13, pool_size=8)),
    archive=ArchiveConfig(active_capacity=27),
)

# (PPO env steps, DQN env steps) per run.
PROFILES = {"quick": (1_500_000, 500_000), "full": (5_000_000, 1_500_000)}
SECTION = "## Tetris students at equal env-step budgets"


def run_dqn(steps: int, seed: int, out: Path) -> MethodResult:
    started = time.perf_counter()
    run_dir = out / f"dqn_s{seed}"
    dqn = DQN(DQNConfig(seed=seed))
    state = dqn.init()
    chunk = 100
    per_chunk = chunk * dqn.config.num_envs
    chunks = max(steps // per_chunk, 1)
    for _ in range(chunks):
        state = dqn.run(state, chunk)
    train_s = time.perf_counter() - started
    result = evaluate_greedy(make_greedy_evaluator(dqn.network), state.params)
    figures = {"mean_lines": result.mean_lines, "std_lines": result.std_lines}
    point = CurvePoint(chunks * chunk, chunks * per_chunk, round(train_s, 2), train_s, figures)
    write_curve([point], run_dir / "curve.csv")  # final point only
    outcome = MethodResult(
        "dqn",
        seed,
        figures,
        point.env_steps,
        round(time.perf_counter() - started, 1),
        point.train_seconds,
        point.train_cpu_seconds,
        0.0,
        0,
        0,
        0,
        str(run_dir),
    )
    settings = {"method": "dqn", "seed": seed, "env_steps": steps, "dqn": asdict(dqn.config)}
    settings["result"] = asdict(outcome)
    (run_dir / "config.json").write_text(json.dumps(settings, indent=2, default=str) + "\n")
    return outcome


def table(rows: dict[str, list[MethodResult]]) -> list[str]:
    lines = [
        "| method | target lines (mean ± std over seeds) | per seed | env steps | "
        "wall min per run | levels generated / accepted |",
        "|---|---|---|---|---|---|",
    ]
    for name, results in rows.items():
        scores = [r.target["mean_lines"] for r in results]
        per_seed = ", ".join(f"{s:.1f}" for s in scores)
        wall = statistics.mean(r.wall_s for r in results) / 60
        attempts = sum(r.attempts for r in results)
        accepted = sum(r.accepted for r in results)
        made = f"{attempts} / {accepted}" if attempts else "—"
        lines.append(
            f"| {name} | {statistics.mean(scores):.1f} ± {_stdev(scores):.1f} | "
            f"{per_seed} | {results[0].env_steps:,} | {wall:.1f} | {made} |"
        )
    return lines


def _stdev(values: list[float]) -> float:
    return statistics.stdev(values) if len(values) > 1 else 0.0


def replace_section(document: str, section: str) -> str:
    """``document`` with its ``SECTION`` (up to the next ``## ``) replaced, or appended."""
    lines = document.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(SECTION)), None)
    if start is None:
        return document.rstrip("\n") + "\n\n" + section
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    tail = "\n".join(lines[end:])
    return "\n".join(lines[:start]) + "\n" + section + ("\n" + tail + "\n" if tail else "")


_WORKER: dict[str, Any] = {}


def _init_worker(config: MethodConfig) -> None:
    """One per worker process: a warm sandbox pool whose rollout function is compiled before
    any run is timed (the student's compile is shared by the process's runs)."""
    g = config.generator
    validator = Validator(pool_size=g.pool_size, warm=g.warm_workers, rollout_steps=g.rollout_steps)
    atexit.register(validator.close)
    validator.warm_up()
    _WORKER.update(config=config, validator=validator)


def _run(name: str, steps: int, seed: int, out: Path) -> MethodResult:
    if name == "dqn":
        return run_dqn(steps, seed, out)
    return run_method(name, steps, seed, out, _WORKER["config"], _WORKER["validator"])


def _print(result: MethodResult) -> None:
    print(
        f"{result.method} seed {result.seed}: {result.target['mean_lines']:.1f} lines, "
        f"{result.env_steps:,} steps, {result.wall_s:.0f} s "
        f"(generation {result.generation_s:.0f} s), "
        f"{result.accepted}/{result.attempts} levels accepted",
        flush=True,
    )


def run_all(
    tasks: list[tuple[str, int, int]], config: MethodConfig, out: Path, jobs: int
) -> list[MethodResult]:
    """Every (method, steps, seed) task, in ``jobs`` worker processes (1 = this process)."""
    if jobs == 1:
        _init_worker(config)
        results = []
        for name, steps, seed in tasks:
            results.append(_run(name, steps, seed, out))
            _print(results[-1])
        return results
    spawn = multiprocessing.get_context("spawn")  # JAX state must not be forked
    with ProcessPoolExecutor(jobs, spawn, initializer=_init_worker, initargs=(config,)) as pool:
        futures = [pool.submit(_run, name, steps, seed, out) for name, steps, seed in tasks]
        for future in as_completed(futures):
            _print(future.result())
        return [f.result() for f in futures]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", choices=sorted(PROFILES), default="quick")
    parser.add_argument("--methods", default=",".join((*METHODS, "dqn")))  # target = PPO
    parser.add_argument("--steps", type=int, help="override the profile's PPO env-step budget")
    parser.add_argument("--dqn-steps", type=int, help="override the profile's DQN budget")
    parser.add_argument("--seeds", default="0,1,2", help="training seeds, comma-separated")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--out", type=Path, default=Path("runs/benchmark"))
    parser.add_argument("--results", type=Path, default=Path("docs/results.md"))
    args = parser.parse_args()
    steps = args.steps or PROFILES[args.profile][0]
    dqn_steps = args.dqn_steps or PROFILES[args.profile][1]
    seeds = [int(x) for x in args.seeds.split(",")]
    methods = args.methods.split(",")
    unknown = set(methods) - {*METHODS, "dqn"}
    if unknown:
        parser.error(f"unknown methods {sorted(unknown)}; known: {', '.join((*METHODS, 'dqn'))}")
    ppo = TETRIS.student.ppo.annealed_over(steps)
    config = replace(TETRIS, student=replace(TETRIS.student, ppo=ppo))
    tasks = [
        (name, dqn_steps if name == "dqn" else steps, seed) for name in methods for seed in seeds
    ]
    started = time.perf_counter()
    rows: dict[str, list[MethodResult]] = {}
    for result in run_all(tasks, config, args.out, args.jobs):
        rows.setdefault(result.method, []).append(result)
    minutes = (time.perf_counter() - started) / 60
    section = [
        SECTION,
        "",
        f"Command: `PYTHONPATH=$PWD python {' '.join(sys.argv)}` "
        f"({minutes:.0f} min on {os.cpu_count()} CPUs, {args.jobs} worker process(es), "
        f"jax {jax.__version__}).",
        "",
        f"Rules: {steps:,} environment steps per PPO run (every slot's pieces count; the DQN "
        f"{dqn_steps:,}), training seeds {seeds}; greedy policy on the target protocol (seed 0, "
        "20 games, 1,000-piece cap), lines per game; nothing tuned on the evaluation seed. One "
        f"student for every PPO method: `PPOConfig` defaults with {ppo.num_slots} slots "
        f"× {ppo.envs_per_slot} envs (one slot on the target game), step size annealed "
        f"to 0 over the budget; {config.levels_per_session} mutation-teacher attempts before "
        f"every session of {config.student.iterations_per_session} PPO iterations "
        "(`services/curricula.py`). Wall time per run excludes the worker's one compile. "
        "Curves and configs: `" + str(args.out) + "/<method>_s<seed>/`.",
        "",
        *table(rows),
        "",
    ]
    document = args.results.read_text() if args.results.is_file() else "# Results\n"
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text(replace_section(document, "\n".join(section)))
    print("\n".join(section))


if __name__ == "__main__":
    main()
