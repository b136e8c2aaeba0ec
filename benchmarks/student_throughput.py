"""Where the PPO student's training time goes: rollout vs update, wall and CPU time.

Times ``Trainer.iterate`` on the target game twice: with the configured update epochs
(rollout + GAE + PPO update) and with ``update_epochs=0`` (rollout + GAE only); the
difference is the update. Prints env steps per second and CPU-seconds per 10k env steps
(``resource.getrusage``: on a shared machine CPU time is the fairer figure).

Run: ``python benchmarks/student_throughput.py [--iterations 4] [--set envs_per_slot=128]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import time

import jax
import jax.numpy as jnp

from dicode.domains.tetris.schema import stack_levels, target_level
from dicode.domains.tetris.student.config import PPOConfig
from dicode.domains.tetris.student.slot_world import Trainer
from dicode.domains.tetris.student.trainer import build_slots


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(config: PPOConfig, iterations: int) -> dict[str, float]:
    """Compile time, env steps/s and CPU-s per 10k steps of ``iterations`` iterations."""
    trainer = Trainer(config)
    slots = build_slots([stack_levels([target_level()])] * config.num_slots, config.pool_size)
    runner = trainer.init(config.seed, slots)
    reset = jnp.zeros(config.num_slots, dtype=bool)
    r_prev = jnp.float32(0.0)
    started = time.perf_counter()
    runner, _, _ = trainer.iterate(runner, slots, reset, r_prev)
    jax.block_until_ready(runner.train.params)
    first = time.perf_counter() - started
    wall0, cpu0 = time.perf_counter(), _cpu_seconds()
    for _ in range(iterations):
        runner, _, _ = trainer.iterate(runner, slots, reset, r_prev)
    jax.block_until_ready(runner.train.params)
    wall, cpu = time.perf_counter() - wall0, _cpu_seconds() - cpu0
    steps = iterations * config.batch_size
    return {
        "first_call_s": first,
        "steps_per_s": steps / wall,
        "cpu_s_per_10k": cpu / steps * 1e4,
        "wall_s_per_10k": wall / steps * 1e4,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=4)
    parser.add_argument("--set", action="append", default=[], help="PPOConfig override KEY=JSON")
    args = parser.parse_args()
    overrides = {k: json.loads(v) for k, v in (item.split("=", 1) for item in args.set)}
    config = PPOConfig(**overrides)
    full = measure(config, args.iterations)
    rollout = measure(dataclasses.replace(config, update_epochs=0), args.iterations)
    print(f"config: {args.set or 'defaults'}  batch {config.batch_size} steps/iteration")
    for name, m in (("rollout+update", full), ("rollout only", rollout)):
        print(
            f"{name:15s} first call {m['first_call_s']:5.1f} s  {m['steps_per_s']:7.0f} steps/s"
            f"  {m['cpu_s_per_10k']:5.2f} CPU-s/10k  {m['wall_s_per_10k']:5.2f} wall-s/10k"
        )
    share = 1 - rollout["cpu_s_per_10k"] / full["cpu_s_per_10k"]
    print(f"update share of CPU time: {share:.0%}")


if __name__ == "__main__":
    main()
