"""Craftax-1M: a method trains for ``--steps`` env steps per seed; the real game scores it.

Per seed: train to ``--steps`` with the paper's evaluation (``dicode craftax eval`` protocol:
fixed key, ``--eval-envs`` games, first episode each, ``--eval-max-steps`` cap, sampled actions)
at the start and the end, and print per-seed % of max and the mean ± sample std over seeds,
plus training throughput (env steps/s, CPU-s per 10k steps; sessions only, compiles included,
evaluation excluded, target-pool refresh included).

Methods (``METHODS``): ``target`` (target-only PPO-RNN, 64 envs on the target game) and
``dicode`` (the same student and batch as 4 slots x 16 envs, one slot on the target game; the
mutation teacher writes one level into a fresh archive in the run folder before every
4-iteration session, closed loop; new levels first, then PLR over the active set:
``services/curricula.py``). Every slot's steps count toward ``--steps``.

Run: ``python benchmarks/craftax_1m.py [--steps 1000000] [--seeds 0,1,2] [--method target]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
from dataclasses import replace
from pathlib import Path
from typing import Any

from dicode.archive.config import ArchiveConfig
from dicode.settings import EvaluatorSettings, StudentSettings
from dicode.student.craftax.cli import config_for
from services.curricula import MethodConfig, MethodResult, run_method

# Target-only: 64 envs on the target game, one iteration per session. DiCode: the same batch as
# 4 slots x 16 envs (one slot on the target game), 4 iterations per session (16k env steps),
# one mutation-teacher attempt before every session; 20 active levels for 3 level slots (about
# DiCode's 100 for 15).
LAYOUTS = {"target": (1, 64), "dicode": (4, 16)}  # (slots, envs per slot)
SESSIONS = {"target": 1, "dicode": 4}


def method_config(method: str, steps: int, seed: int, args: argparse.Namespace) -> MethodConfig:
    slots, envs = LAYOUTS[method]
    ppo = replace(config_for(steps, seed, args.set), num_slots=slots, envs_per_slot=envs)
    return MethodConfig(
        domain="craftax",
        student=StudentSettings(ppo, iterations_per_session=SESSIONS[method]),
        evaluator=EvaluatorSettings(games=args.eval_envs, max_steps=args.eval_max_steps),
        archive=ArchiveConfig(active_capacity=20),
        levels_per_session=1,
        eval_points=1,
    )


def row(result: MethodResult) -> dict[str, Any]:
    steps = result.env_steps
    return {
        "seed": result.seed,
        "env_steps": steps,
        **result.target,
        "steps_per_s": steps / result.train_s if result.train_s else float("nan"),
        "cpu_s_per_10k": 1e4 * result.train_cpu_s / steps if steps else float("nan"),
        "attempts": result.attempts,
        "accepted": result.accepted,
        "levels_trained": result.levels_trained,
        "generation_s": result.generation_s,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1_000_000)
    parser.add_argument("--seeds", default="0,1,2", help="comma-separated training seeds")
    parser.add_argument("--method", default="target", choices=sorted(LAYOUTS))
    parser.add_argument("--eval-envs", type=int, default=64)
    parser.add_argument("--eval-max-steps", type=int, default=10_000)
    parser.add_argument("--out", type=Path, default=Path("runs/craftax_1m"))
    parser.add_argument("--set", action="append", help="config override KEY=JSON, repeatable")
    parser.add_argument("--json", action="store_true", help="print the per-seed rows as JSON")
    args = parser.parse_args()
    rows = []
    for seed in (int(s) for s in args.seeds.split(",")):
        config = method_config(args.method, args.steps, seed, args)
        result = run_method(args.method, args.steps, seed, args.out, config)
        rows.append(row(result))
        r = rows[-1]
        print(
            json.dumps(r)
            if args.json
            else f"seed {seed}: {r['percent_of_max']:.2f} % of max "
            f"(return {r['mean_return']:.2f}) after {r['env_steps']} steps; "
            f"{r['steps_per_s']:.0f} steps/s, {r['cpu_s_per_10k']:.1f} CPU-s / 10k steps",
            flush=True,
        )
    scores = [r["percent_of_max"] for r in rows]
    spread = statistics.stdev(scores) if len(scores) > 1 else 0.0
    mean = statistics.mean(scores)
    print(f"{args.method}: {mean:.2f} ± {spread:.2f} % of max over {len(rows)} seeds (sample std)")


if __name__ == "__main__":
    main()
