"""Learning speed of a PPO configuration on TRAINING seeds, against training CPU time.

Trains target-only PPO and, every ``--every`` env steps, plays the greedy policy on 10
protocol-style games from seed 500 (never the evaluation protocol's seed 0, which must not be
used for tuning) at the 1,000-piece cap. Prints env steps, training CPU-seconds
(``resource.getrusage``, fair on a shared machine) and mean ± std lines.

Run: ``python benchmarks/student_tuning.py --steps 100000 --every 25000 --set update_epochs=2``.
"""

from __future__ import annotations

import argparse
import json
import resource

from dicode.domains.tetris.student.config import PPOConfig
from dicode.domains.tetris.student.evaluate import evaluate_greedy, make_greedy_evaluator
from dicode.domains.tetris.student.trainer import TetrisSlotTrainer
from dicode.student.loop import StudentLoop

TUNING_SEED = 500  # training-seed games; the protocol's evaluation seed is 0


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--every", type=int, default=25_000)
    parser.add_argument("--set", action="append", default=[], help="PPOConfig override KEY=JSON")
    args = parser.parse_args()
    overrides = {k: json.loads(v) for k, v in (item.split("=", 1) for item in args.set)}
    config = PPOConfig(**overrides)
    trainer = TetrisSlotTrainer(config)
    loop = StudentLoop(trainer)
    evaluator = make_greedy_evaluator(trainer.ppo.network, 10, 1_000, seed=TUNING_SEED)
    train_cpu, next_eval = 0.0, args.every
    while True:
        steps = loop.iteration * config.batch_size
        if steps >= next_eval or steps >= args.steps:
            result = evaluate_greedy(evaluator, trainer.runner.train.params)
            print(
                f"{args.set or 'defaults'} steps={steps} train_cpu_s={train_cpu:.0f}"
                f" lines={result.mean_lines:.1f}±{result.std_lines:.1f}",
                flush=True,
            )
            next_eval += args.every
        if steps >= args.steps:
            return
        started = _cpu_seconds()
        loop.run_session(1)  # returns host tallies: the iteration has finished
        train_cpu += _cpu_seconds() - started


if __name__ == "__main__":
    main()
