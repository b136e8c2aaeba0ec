"""How fast the maze student trains on each JAX backend, and what the literature's budget costs.

Times the named-maze calibration's literature loop (``maze_jaxued``'s ``robust_plr`` student:
PPO-RNN, one level per env, JaxUED's layout) playing DR (``ued.run_ued``: one fresh 25-wall
maze per env each iteration, a gradient step on each) per iteration and per held-out evaluation, for each case ``BACKEND:ENVS`` (e.g. ``cpu:32``, ``cuda:256``),
each in its own process (``JAX_PLATFORMS`` is fixed per process). CPU cases run on one
intra-op thread, as ``benchmarks/experiment.py`` runs every job. From the figures it projects
one run's hours at our budget (20M steps) and at the literature's (250M), with our 11
evaluations each; JaxUED trains 32 envs, so the 32-env rows are the like-for-like ones.

Run: ``python benchmarks/maze_throughput.py [--cases cpu:32,cuda:32,cuda:256] [--iterations 10]``
Writes ``docs/figures/maze_throughput.json`` (or ``--out``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from dicode.provenance import FIGURES, provenance

BUDGETS = {"ours_20M": 20_000_000, "literature_250M": 250_000_000}
EVALUATIONS = 11  # eval_points=10 plus the one at step 0, as every curve has
ONE_THREAD = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"


def measure(envs: int, iterations: int, warmup: int = 2) -> dict[str, Any]:
    """One case in this process: ``warmup`` iterations of the real DR loop (``run_ued``) to
    compile, then ``iterations`` timed ones; each call evaluates at its start and end."""
    import jax

    from benchmarks.experiments_catalog import EXPERIMENTS
    from dicode.domains.maze.student.config import UEDConfig
    from dicode.domains.maze.student.trainer import MazeSlotTrainer
    from dicode.domains.maze.student.ued import run_ued

    variant = EXPERIMENTS["maze_jaxued"].variants["robust_plr"]
    ppo = replace(variant.config.student.ppo, num_slots=envs)
    evaluator, dr = variant.config.evaluator, UEDConfig(method="dr")
    started = time.perf_counter()
    trainer = MazeSlotTrainer(ppo, evaluator.games, evaluator.max_steps)
    never = 10**15  # no evaluation between a call's first and last
    run_ued(trainer, dr, warmup * trainer.batch_size, never, seed=0)
    first_s = time.perf_counter() - started
    t0, c0 = time.perf_counter(), time.process_time()
    curve, _, _ = run_ued(trainer, dr, (warmup + iterations) * trainer.batch_size, never, seed=0)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    train_s, train_cpu_s = curve[-1].train_seconds, curve[-1].train_cpu_seconds
    return {
        "device": jax.devices()[0].device_kind,
        "envs": envs,
        "batch_steps": trainer.batch_size,
        "iterations": iterations,
        "setup_and_compile_s": round(first_s, 2),
        "s_per_iteration": train_s / iterations,
        "steps_per_s": iterations * trainer.batch_size / train_s,
        "cpu_s_per_iteration": train_cpu_s / iterations,
        "evaluation_s": (wall - train_s) / len(curve),
        "evaluation_cpu_s": (cpu - train_cpu_s) / len(curve),
    }


def project(case: dict[str, Any]) -> dict[str, float]:
    """Hours of one run at each budget: training at the measured rate plus the evaluations."""
    evals = EVALUATIONS * case["evaluation_s"]
    return {
        name: round((steps / case["steps_per_s"] + evals) / 3600, 2)
        for name, steps in BUDGETS.items()
    }


def _run_case(case: str, iterations: int) -> dict[str, Any]:
    backend, envs = case.split(":")
    env = os.environ | {"JAX_PLATFORMS": backend, "XLA_PYTHON_CLIENT_PREALLOCATE": "false"}
    if backend == "cpu":
        env["XLA_FLAGS"] = ONE_THREAD
    done = subprocess.run(
        [sys.executable, __file__, "--child", envs, "--iterations", str(iterations)],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        return {"case": case, "error": done.stderr[-2000:]}
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return {"case": case, "backend": backend, **figures, "hours": project(figures)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="cpu:32,cpu:256,cuda:32,cuda:256,cuda:2048")
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--out", type=Path, default=FIGURES / "maze_throughput.json")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(measure(args.child, args.iterations)))
        return
    cases = args.cases.split(",")
    lanes: dict[str, list[str]] = {}  # one lane per backend: CPU cases beside GPU ones
    for case in cases:
        lanes.setdefault(case.split(":")[0], []).append(case)
    with ThreadPoolExecutor(len(lanes)) as pool:
        runs = [
            result
            for lane in pool.map(
                lambda lane: [_run_case(case, args.iterations) for case in lane], lanes.values()
            )
            for result in lane
        ]
    by_case = {run["case"]: run for run in runs}
    print(f"{'case':12s} {'device':22s} {'s/iter':>8s} {'steps/s':>9s} {'eval s':>7s} "
          f"{'20M h':>6s} {'250M h':>7s}")  # fmt: skip
    for run in runs:
        if "error" in run:
            print(f"{run['case']:12s} failed: {run['error'].splitlines()[-1:]}")
            continue
        hours = run["hours"]
        print(
            f"{run['case']:12s} {run['device'][:22]:22s} {run['s_per_iteration']:8.3f} "
            f"{run['steps_per_s']:9.0f} {run['evaluation_s']:7.2f} {hours['ours_20M']:6.2f} "
            f"{hours['literature_250M']:7.2f}"
        )
    ratios = {}
    for case, run in by_case.items():
        backend, envs = case.split(":")
        anchor = by_case.get(f"cpu:{envs}")
        if backend != "cpu" and anchor and "error" not in run and "error" not in anchor:
            ratios[case] = round(run["steps_per_s"] / anchor["steps_per_s"], 2)
            print(f"{case} / cpu:{envs} steps per second: {ratios[case]:.2f}×")
    document = {
        "benchmark": "maze_throughput",
        "protocol": __doc__,
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "runs": runs,
        "speedup_vs_cpu": ratios,
        "provenance": provenance(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(document, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
