"""Benchmark the level validation pipeline on the Tetris seed levels.

Reports levels validated per minute (steady state: after the one-off compile of the rollout
function), the median seconds per stage, and the sandbox overhead per level (everything but
the engine rollouts), beside the targets: >= 60 seed levels per minute on 2 cores (issues 3
and 13: the walls of issue 13 must not cost that) and a median sandbox overhead <= 0.5 s.
Writes ``docs/figures/sandbox.json``.

    PYTHONPATH=. python benchmarks/sandbox.py --rounds 3 --threads 1
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from dicode import domains
from dicode.domains.tetris.seeds import seed_level_sources
from dicode.levels.pipeline import Validator
from dicode.levels.sandbox import bubblewrap_available
from dicode.levels.verdict import Verdict
from dicode.provenance import load_averages, write_figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="passes over all seed levels")
    parser.add_argument("--threads", type=int, default=1, help="levels validated at once")
    parser.add_argument("--pool-size", type=int, default=32)
    parser.add_argument("--warm", type=int, default=2, help="warm sandbox workers")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON only")
    args = parser.parse_args()

    sources = seed_level_sources()
    jobs = [(name, src, r) for r in range(args.rounds) for name, src in sources.items()]
    load_before = os.getloadavg()[0]

    started = time.perf_counter()
    with Validator(domains.get("tetris"), pool_size=args.pool_size, warm=args.warm) as validator:
        warm_up = validator.warm_up()
        compile_seconds = time.perf_counter() - started
        # Let the pool refill after the warm-up so the first timed level finds a warm worker.
        while len(validator.sandbox.idle_pids()) < args.warm:
            time.sleep(0.05)

        def run(job: tuple[str, str, int]) -> tuple[str, Verdict]:
            name, source, round_index = job
            return name, validator.validate(source, seed=round_index)

        timed_start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=args.threads) as executor:
            results = list(executor.map(run, jobs))
        elapsed = time.perf_counter() - timed_start

    rejected = [(name, v.stage, v.error) for name, v in results if not v.accepted]
    stages = sorted({stage for _, v in results for stage in v.timings})
    medians = {s: statistics.median(v.timings.get(s, 0.0) for _, v in results) for s in stages}
    per_level = sorted(
        sum(t for s, t in v.timings.items() if s != "sandbox_wait") for _, v in results
    )
    overhead = [
        sum(t for s, t in v.timings.items() if s not in ("rollouts", "sandbox_wait"))
        for _, v in results
    ]
    summary = {
        "levels": len(results),
        "threads": args.threads,
        "pool_size": args.pool_size,
        "bubblewrap": bubblewrap_available(),
        "cpus": os.cpu_count(),
        **load_averages(load_before),
        "warm_up_seconds_incl_compile": round(compile_seconds, 2),
        "warm_up_accepted": warm_up.accepted,
        "elapsed_seconds": round(elapsed, 2),
        "levels_per_minute": round(60.0 * len(results) / elapsed, 1),
        "median_stage_seconds": {s: round(t, 4) for s, t in medians.items()},
        "median_sandbox_overhead_seconds": round(statistics.median(overhead), 4),
        "median_level_seconds": round(statistics.median(per_level), 4),
        "max_level_seconds": round(per_level[-1], 4),
        "rejected": rejected,
        "anchor": {"levels_per_minute": 60.0, "median_sandbox_overhead_seconds": 0.5},
        "ratio_to_anchor": {
            "levels_per_minute": round(len(results) / elapsed, 3),
            "median_sandbox_overhead_seconds": round(statistics.median(overhead) / 0.5, 3),
        },
    }
    write_figures("sandbox", {"config": vars(args), "figures": summary})
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        for key, value in summary.items():
            print(f"{key:34s} {value}")
    sys.exit(1 if rejected else 0)


if __name__ == "__main__":
    main()
