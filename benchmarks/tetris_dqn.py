"""The field report's DQN baseline, done right, on the Tetris target protocol.

    PYTHONPATH=$PWD python benchmarks/tetris_dqn.py --steps 500000 --seeds 0,1,2

Trains ``dicode.domains.tetris.student.dqn`` (afterstate Q on the corrected placement space) for
``--steps`` env steps per training seed, then plays its greedy policy on the target protocol
(evaluation seed 0, 20 games, 1,000-piece cap). Writes ``docs/figures/tetris_dqn.json`` (per
run: method, seed, budget, figures, cost, config, provenance; the summary with the sample
std). The DQN's update costs about twice PPO's per step, so its budget is its own.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
from dataclasses import asdict
from typing import Any

from dicode.domains.tetris.student.dqn import DQN, DQNConfig
from dicode.domains.tetris.student.evaluate import evaluate_greedy, make_greedy_evaluator
from dicode.provenance import write_figures

CHUNK = 100  # vector steps per jitted call


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run(steps: int, seed: int) -> dict[str, Any]:
    """Train one DQN for ``steps`` env steps and score it on the target protocol."""
    config = DQNConfig(seed=seed)
    dqn = DQN(config)
    state = dqn.init()
    chunks = max(steps // (CHUNK * config.num_envs), 1)
    started, cpu_started = time.perf_counter(), _cpu_seconds()
    for _ in range(chunks):
        state = dqn.run(state, CHUNK)
    train_s, train_cpu_s = time.perf_counter() - started, _cpu_seconds() - cpu_started
    result = evaluate_greedy(make_greedy_evaluator(dqn.network), state.params)
    return {
        "method": "dqn",
        "seed": seed,
        "budget": {"env_steps": steps, "trained_steps": chunks * CHUNK * config.num_envs},
        "figures": {"mean_lines": result.mean_lines, "std_lines": result.std_lines},
        "cost": {"train_s": round(train_s, 1), "train_cpu_s": round(train_cpu_s, 1)},
        "config": asdict(config),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=500_000)
    parser.add_argument("--seeds", default="0,1,2", help="training seeds, comma-separated")
    args = parser.parse_args()
    runs = []
    for seed in (int(s) for s in args.seeds.split(",")):
        runs.append(run(args.steps, seed))
        print(f"seed {seed}: {runs[-1]['figures']['mean_lines']:.1f} lines", flush=True)
    lines = [r["figures"]["mean_lines"] for r in runs]
    summary = {
        "n": len(lines),
        "mean": statistics.mean(lines),
        "std": statistics.stdev(lines) if len(lines) > 1 else None,
    }
    protocol = (
        "greedy policy on the target protocol (evaluation seed 0, 20 games, 1,000-piece cap), "
        "lines per game; sample std over training seeds"
    )
    path = write_figures("tetris_dqn", {"protocol": protocol, "runs": runs, "summary": summary})
    print(f"mean {summary['mean']:.1f} ± {summary['std'] or 0:.1f} → {path}")


if __name__ == "__main__":
    main()
