"""Craftax-1M: a method trains for ``--steps`` env steps per seed; the real game scores it.

Per seed: build the method's loop, run one warm-up iteration (compiles; counted in env steps,
not in the throughput), train to ``--steps`` with the paper's evaluation (``dicode craftax
eval`` protocol: fixed key, ``--eval-envs`` games, first episode each, ``--eval-max-steps``
cap, sampled actions) at the start and the end, and print per-seed % of max and the mean ±
std over seeds, plus training throughput (env steps/s, CPU-s per 10k steps; warm iterations
only, evaluation excluded, target-pool refresh included).

Methods (``METHODS``): ``target`` (target-only PPO-RNN, 64 envs on the target game) and
``dicode`` (the same student and batch as 4 slots x 16 envs, one slot on the target game; the
mutation teacher writes one level into a fresh archive in the run folder before every
4-iteration session, closed loop; new levels first, then PLR over the active set:
``services/craftax_curriculum.py``). Every slot's steps count toward ``--steps``.

Run: ``python benchmarks/craftax_1m.py [--steps 1000000] [--seeds 0,1,2] [--method target]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from dicode.student.craftax.cli import config_for
from dicode.student.craftax.config import CraftaxPPOConfig
from dicode.student.craftax.train import CraftaxStudentLoop, SlotSchedule, train, write_curve
from services.craftax_curriculum import CraftaxDiCodeConfig, dicode_schedule

DICODE = CraftaxDiCodeConfig()


@dataclass(frozen=True)
class Method:
    """How a method trains: its slot layout and what fills the slots each session."""

    configure: Callable[[CraftaxPPOConfig], CraftaxPPOConfig]
    schedule: Callable[[CraftaxPPOConfig, Path], SlotSchedule | None]  # (config, run folder)
    iterations_per_session: int = 1


METHODS: dict[str, Method] = {
    "target": Method(configure=lambda c: c, schedule=lambda c, run_dir: None),
    "dicode": Method(
        configure=lambda c: replace(
            c, num_slots=DICODE.num_slots, envs_per_slot=DICODE.envs_per_slot
        ),
        schedule=lambda c, run_dir: dicode_schedule(run_dir, c.seed, DICODE),
        iterations_per_session=DICODE.iterations_per_session,
    ),
}


def run_seed(method: Method, seed: int, args: argparse.Namespace) -> dict[str, Any]:
    config = method.configure(config_for(args.steps, seed, args.set))
    run_dir = args.out / args.method / f"seed{seed}"
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.json").write_text(json.dumps(config.to_dict(), indent=2))
    schedule = method.schedule(config, run_dir)
    owner = schedule if isinstance(schedule, AbstractContextManager) else nullcontext()
    with owner:
        row = _train_seed(method, config, schedule, run_dir, args)
        summary = getattr(schedule, "summary", None)
        if summary is not None:
            row.update(summary())
    (run_dir / "result.json").write_text(json.dumps(row, indent=2))
    return row


def _train_seed(
    method: Method,
    config: CraftaxPPOConfig,
    schedule: SlotSchedule | None,
    run_dir: Path,
    args: argparse.Namespace,
) -> dict[str, Any]:
    loop = CraftaxStudentLoop(
        config, schedule=schedule, eval_envs=args.eval_envs, eval_max_steps=args.eval_max_steps
    )
    started = time.perf_counter()
    loop.run_session(method.iterations_per_session)  # warm-up: compiles the update
    warm_up_s = time.perf_counter() - started
    warm_steps = loop.iteration * config.batch_size
    curve = train(
        loop,
        args.steps,
        iterations_per_session=method.iterations_per_session,
        eval_every_steps=args.steps,
        log=False,
    )
    write_curve(curve, run_dir / "curve.csv")
    last = curve[-1]
    steps = last.env_steps - warm_steps
    return {
        "seed": config.seed,
        "env_steps": last.env_steps,
        "percent_of_max": last.percent_of_max,
        "mean_return": last.mean_return,
        "warm_up_s": round(warm_up_s, 1),
        "steps_per_s": steps / last.train_seconds if last.train_seconds else float("nan"),
        "cpu_s_per_10k": 1e4 * last.train_cpu_seconds / steps if steps else float("nan"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1_000_000)
    parser.add_argument("--seeds", default="0,1,2", help="comma-separated training seeds")
    parser.add_argument("--method", default="target", choices=sorted(METHODS))
    parser.add_argument("--eval-envs", type=int, default=64)
    parser.add_argument("--eval-max-steps", type=int, default=10_000)
    parser.add_argument("--out", type=Path, default=Path("runs/craftax_1m"))
    parser.add_argument("--set", action="append", help="config override KEY=JSON, repeatable")
    parser.add_argument("--json", action="store_true", help="print the per-seed rows as JSON")
    args = parser.parse_args()
    method = METHODS[args.method]
    rows = []
    for seed in (int(s) for s in args.seeds.split(",")):
        row = run_seed(method, seed, args)
        rows.append(row)
        print(
            json.dumps(row)
            if args.json
            else f"seed {seed}: {row['percent_of_max']:.2f} % of max "
            f"(return {row['mean_return']:.2f}) after {row['env_steps']} steps; "
            f"{row['steps_per_s']:.0f} steps/s, {row['cpu_s_per_10k']:.1f} CPU-s / 10k steps",
            flush=True,
        )
    scores = [r["percent_of_max"] for r in rows]
    spread = statistics.stdev(scores) if len(scores) > 1 else 0.0
    mean = statistics.mean(scores)
    print(f"{args.method}: {mean:.2f} ± {spread:.2f} % of max over {len(rows)} seeds (sample std)")


if __name__ == "__main__":
    main()
