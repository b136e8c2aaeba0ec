"""How fast the maze student trains on each JAX backend, and what the literature's budget costs.

Times the named-maze calibration's literature loop (``maze_jaxued``'s ``robust_plr`` student:
PPO-RNN, one level per env, JaxUED's layout) playing DR (``ued.ued_program`` of one seed: one
fresh 25-wall maze per env each iteration, made on the device, a gradient step on each), per
iteration and per held-out evaluation. Each case is ``BACKEND:ENVS`` (one run, e.g. ``cuda:256``) or
``BACKEND:ENVSxCOPIES`` (that many runs at once on the machine, as an experiment's jobs run),
each run in its own process (``JAX_PLATFORMS`` is fixed per process); CPU runs use one intra-op
thread, as ``benchmarks/experiment.py`` runs every job. Steps per second are the machine's
(summed over copies); the hours are one run's, at our budget (20M steps) and at the
literature's (250M), with our 11 evaluations, while its copies run beside it. JaxUED trains
32 envs, so the 32-env rows are the like-for-like ones; wider batches change the algorithm.

Run: ``python benchmarks/maze_throughput.py [--cases cpu:32,cuda:32x8] [--iterations 10]``
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

from benchmarks.experiment import THREADS
from dicode.provenance import FIGURES, provenance

BUDGETS = {"ours_20M": 20_000_000, "literature_250M": 250_000_000}
EVALUATIONS = 11  # eval_points=10 plus the one at step 0, as every curve has
COMPILE_ALLOWANCE_S = 90.0  # concurrent runs all compile before this, then time together
AVERAGED = ("s_per_iteration", "cpu_s_per_iteration", "evaluation_s", "evaluation_cpu_s")


def measure(envs: int, iterations: int, start_at: float = 0.0, warmup: int = 2) -> dict[str, Any]:
    """One case in this process: ``warmup`` iterations of the real DR loop (one chunk of the
    device program, compiling it), then ``iterations`` timed ones, then one evaluation."""
    import jax

    from benchmarks.experiments_catalog import EXPERIMENTS
    from dicode.domains.maze.student.config import UEDConfig
    from dicode.domains.maze.student.trainer import MazeSlotTrainer
    from dicode.domains.maze.student.ued import ued_program

    variant = EXPERIMENTS["maze_jaxued"].variants["robust_plr"]
    ppo = replace(variant.config.student.ppo, num_slots=envs)
    evaluator, dr = variant.config.evaluator, UEDConfig(method="dr")
    started = time.perf_counter()
    trainer = MazeSlotTrainer(ppo, evaluator.games, evaluator.max_steps)
    program, state = ued_program(trainer.ppo, dr, [0], max(warmup, iterations))
    state, _ = jax.block_until_ready(program(state, warmup))
    evaluate = trainer.evaluator().batch
    evaluate(state.runner.train.params)  # compiles the protocol
    first_s = time.perf_counter() - started
    waited_s = start_at - time.time()
    time.sleep(max(waited_s, 0.0))
    t0, c0 = time.perf_counter(), time.process_time()
    state, _ = jax.block_until_ready(program(state, iterations))
    train_s, train_cpu_s = time.perf_counter() - t0, time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    evaluate(state.runner.train.params)
    eval_s, eval_cpu_s = time.perf_counter() - t0, time.process_time() - c0
    return {
        "device": jax.devices()[0].device_kind,
        "envs": envs,
        "batch_steps": trainer.batch_size,
        "iterations": iterations,
        "setup_and_compile_s": round(first_s, 2),
        "waited_s": round(waited_s, 2),
        "s_per_iteration": train_s / iterations,
        "steps_per_s": iterations * trainer.batch_size / train_s,
        "cpu_s_per_iteration": train_cpu_s / iterations,
        "evaluation_s": eval_s,
        "evaluation_cpu_s": eval_cpu_s,
    }


def project(case: dict[str, Any]) -> dict[str, float]:
    """Hours of one run at each budget: training at the measured rate plus the evaluations."""
    evals = EVALUATIONS * case["evaluation_s"]
    return {
        name: round((steps / case["steps_per_s"] + evals) / 3600, 2)
        for name, steps in BUDGETS.items()
    }


def _run_case(case: str, iterations: int) -> dict[str, Any]:
    """``BACKEND:ENVS`` in one process, or ``BACKEND:ENVSxCOPIES``: that many runs at once on
    the machine, each timed from one common moment after all have compiled (three times the
    iterations, so the timed windows overlap); their steps per second add up."""
    backend, shape = case.split(":")
    envs, _, copies_text = shape.partition("x")
    copies = int(copies_text or 1)
    env = os.environ | {"JAX_PLATFORMS": backend, "XLA_PYTHON_CLIENT_PREALLOCATE": "false"}
    if backend == "cpu":
        env |= THREADS
    start_at = time.time() + (COMPILE_ALLOWANCE_S if copies > 1 else 0)
    iterations = iterations * (3 if copies > 1 else 1)
    command = [sys.executable, __file__, "--child", envs, "--iterations", str(iterations)]
    children = [
        subprocess.Popen(
            [*command, "--start-at", str(start_at)],
            env=env,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(copies)
    ]
    outputs = [child.communicate() for child in children]
    failed = [err for child, (_, err) in zip(children, outputs, strict=True) if child.returncode]
    if failed:
        return {"case": case, "error": failed[0][-2000:]}
    each = [json.loads(out.strip().splitlines()[-1]) for out, _ in outputs]
    mean = {key: sum(run[key] for run in each) / copies for key in AVERAGED}
    figures = each[0] | mean | {"steps_per_s": sum(run["steps_per_s"] for run in each)}
    if copies == 1:
        return {"case": case, "backend": backend, **figures, "hours": project(figures)}
    return {
        "case": case, "backend": backend, **figures, "copies": copies,
        # > 0: some run started its timing late; the timed windows drift apart
        "compiled_late": sum(run["waited_s"] <= 0 for run in each),
        "hours": project(figures | {"steps_per_s": figures["steps_per_s"] / copies}),
        "per_run": each,
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cases", default="cpu:32,cpu:32x8,cuda:32,cuda:32x8,cuda:256,cuda:2048,cuda:8192"
    )
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--out", type=Path, default=FIGURES / "maze_throughput.json")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--start-at", type=float, default=0.0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(measure(args.child, args.iterations, args.start_at)))
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
        backend, shape = case.split(":")
        anchor = by_case.get(f"cpu:{shape}")
        if backend != "cpu" and anchor and "error" not in run and "error" not in anchor:
            ratios[case] = round(run["steps_per_s"] / anchor["steps_per_s"], 2)
            print(f"{case} / cpu:{shape} steps per second: {ratios[case]:.2f}×")
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
