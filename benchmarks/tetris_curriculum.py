"""Every student method at an equal env-step budget on the Tetris target protocol.

    PYTHONPATH=$PWD python benchmarks/tetris_curriculum.py --profile quick

Rules: each method trains for the same number of environment steps (pieces placed, all
levels counted) from training seeds (default 0, 1, 2); then its greedy policy plays the target
protocol (`docs/evaluation.md`: seed 0, 20 games, 1,000-piece cap). Nothing is tuned on that seed.
Writes `docs/results.md` (command, rules, table) and the curves under `runs/benchmark/`.

Methods available now: `ppo` (target-only PPO) and `dqn` (afterstate DQN on the corrected
placement space). DR, PLR, SFL, DiCode and DiCode-OL need the mutation teacher and the sandbox
wired into a `LevelSource` (see `dicode/student/train.py`); they are listed as missing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import jax

from dicode.student.config import PPOConfig
from dicode.student.dqn import DQN, DQNConfig
from dicode.student.evaluate import evaluate_greedy, make_greedy_evaluator
from dicode.student.train import StudentLoop, train, write_curve

PROFILES = {"quick": 150_000, "full": 1_000_000}
MISSING = ("DR", "PLR", "SFL", "DiCode", "DiCode-OL")


def run_ppo(steps: int, seed: int, out: Path) -> float:
    loop = StudentLoop(PPOConfig(seed=seed))
    curve = train(loop, steps, eval_every_steps=max(steps // 4, 1), log=False)
    write_curve(curve, out / f"ppo_s{seed}.csv", out / f"ppo_s{seed}.png")
    return curve[-1].target_lines_mean


def run_dqn(steps: int, seed: int, out: Path) -> float:
    del out  # the DQN reports its final figure only
    dqn = DQN(DQNConfig(seed=seed))
    state = dqn.init()
    chunk = 100
    per_chunk = chunk * dqn.config.num_envs
    for _ in range(max(steps // per_chunk, 1)):
        state = dqn.run(state, chunk)
    evaluator = make_greedy_evaluator(dqn.network)
    return evaluate_greedy(evaluator, state.params).mean_lines


METHODS = {"ppo": run_ppo, "dqn": run_dqn}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", choices=sorted(PROFILES), default="quick")
    parser.add_argument("--methods", default="ppo,dqn")
    parser.add_argument("--steps", type=int, help="override the profile's env-step budget")
    parser.add_argument("--seeds", default="0,1,2", help="training seeds, comma-separated")
    parser.add_argument("--out", type=Path, default=Path("runs/benchmark"))
    parser.add_argument("--results", type=Path, default=Path("docs/results.md"))
    args = parser.parse_args()
    steps = args.steps or PROFILES[args.profile]
    seeds = [int(x) for x in args.seeds.split(",")]
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    started = time.perf_counter()
    for name in args.methods.split(","):
        scores = []
        for seed in seeds:
            t0 = time.perf_counter()
            scores.append(METHODS[name](steps, seed, args.out))
            print(f"{name} seed {seed}: {scores[-1]:.1f} lines ({time.perf_counter() - t0:.0f} s)")
        rows.append((name, scores))
    minutes = (time.perf_counter() - started) / 60
    lines = [
        "# Results: Tetris students at equal env-step budgets",
        "",
        f"Command: `PYTHONPATH=$PWD python {' '.join(sys.argv)}` "
        f"({minutes:.0f} min on {os.cpu_count()} CPUs, jax {jax.__version__}).",
        "",
        f"Rules: {steps:,} environment steps per run, training seeds {seeds}; greedy "
        "policy on the target protocol (seed 0, 20 games, 1,000-piece cap); lines per game.",
        "",
        "| method | target lines (mean ± std over seeds) | per seed |",
        "|---|---|---|",
    ]
    for name, scores in rows:
        spread = statistics.pstdev(scores)
        per_seed = ", ".join(f"{s:.1f}" for s in scores)
        lines.append(f"| {name} | {statistics.mean(scores):.1f} ± {spread:.1f} | {per_seed} |")
    lines += ["", f"Not run (not wired yet): {', '.join(MISSING)}.", ""]
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
