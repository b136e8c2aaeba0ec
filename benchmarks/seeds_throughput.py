"""Seeds in one program against seeds as separate runs, and JaxUED's own loop beside them.

The named-maze calibration's literature loops (``dicode.domains.maze.student.ued``: PPO-GRU,
32 envs × 256 steps, one level per env) as device programs (``seed_program``): for each method
(DR, robust PLR; on request ACCEL, and ``dr_target``, the DR arm of ``maze_jaxued*``: JaxUED's
``maze_dr.py``, a fresh maze at every episode) and each seed count n (1, 5, 10 by default)

- **one program**: the n seeds vmapped into one program, in one process;
- **separate runs**: each seed its own lone program in its own process, ``--jobs`` processes
  at once, as ``benchmarks/experiment.py --seeds-per-program 1 --jobs 2`` runs an arm.

``--cases dr:5:program,dr:5:separate,...`` names the cases instead of the full cross (a lease
on a lent GPU has minutes, not the hour of the full cross: ``benchmarks/device_lease.sh``).

Every process gets ``experiment.WORKER_ENV`` (which, on jax 0.10, does not hold XLA's CPU pool
to one thread: each case also reports env steps per CPU-second of its processes; on a GPU it
keeps each process from taking the card's memory up front). A case first runs ``--warmup``
iterations (compiling, and for robust PLR and ACCEL filling the buffer to where replay starts:
2,000 of 4,000 levels after ≈ 63 new batches), then times ``--iterations`` more; the
concurrent processes of a "separate" case start their timed windows at one moment. Aggregate
env steps per second: one program, n · batch · iterations / window; separate runs, the jobs'
summed rate times the share of the pool's slots the n runs keep busy (n / (jobs · ⌈n/jobs⌉):
the last wave of an odd count runs alone). Compilation is reported, not counted
(``--compile-cache`` lets the processes share XLA's compiled programs). Each program case also
gives the hours its program would train for ``--budget-steps`` per seed at the measured rate
(the evaluations not counted): the cost of an arm of ``maze_jaxued_250m``.

Beside them, where ``--jaxued-python`` (an interpreter with ``jaxued==0.0.1``) and
``--jaxued-example`` (its repository's ``examples/maze_plr.py``) are given,
``benchmarks/jaxued_anchor.py`` runs JaxUED's own loop at its defaults (DR and robust PLR, one
thread) for ``--jaxued-seconds``: the external anchor, per core.

Run: ``python benchmarks/seeds_throughput.py [--methods dr,robust_plr] [--seeds 1,5,10]``
Writes ``docs/figures/seeds_throughput.json`` (or ``--out``) after every case (``"complete"``
turns true after the last) and prints the ratios.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.experiment import WORKER_ENV
from dicode.provenance import FIGURES, load_averages, provenance

START_MARGIN_S = 5.0  # after the slowest concurrent child has compiled
# Iterations before timing: DR's are all alike; robust PLR's buffer (4,000) reaches its minimum
# fill (half) after ≈ 63 new batches, and only then replays.
WARMUP = {"dr": 3, "robust_plr": 70, "accel": 70, "dr_target": 3}
MODES = ("program", "separate")


def _program(method: str, seeds: int, max_count: int) -> tuple[Any, Any, int]:
    """``(program, first states, env steps per iteration)`` of ``method`` over ``seeds`` seeds:
    a literature loop (``ued``: ``dr``, one level per env and iteration; ``robust_plr``;
    ``accel``), or ``dr_target``, the DR arm of ``maze_jaxued*`` (JaxUED's ``maze_dr.py``: a
    fresh maze at every episode, the target program)."""
    from benchmarks.experiments_catalog import EXPERIMENTS
    from dicode.domains.maze.student.config import UEDConfig
    from dicode.domains.maze.student.target_game import MazeTargetGame
    from dicode.domains.maze.student.trainer import compiled_ppo
    from dicode.domains.maze.student.ued import ued_program
    from dicode.student.target_program import target_seeds_program

    arms = EXPERIMENTS["maze_jaxued_250m"].variants
    if method == "dr_target":
        config = arms["dr"].config.student.ppo
        ppo = compiled_ppo(config)
        game = MazeTargetGame(config)
        program, first = target_seeds_program(ppo, game, list(range(seeds)), max_count)
        return program, first, ppo.config.batch_size
    ppo = compiled_ppo(arms["robust_plr"].config.student.ppo)
    loop, state = ued_program(ppo, UEDConfig(method=method), list(range(seeds)), max_count)
    return loop, state, ppo.config.batch_size


def measure(method: str, seeds: int, warmup: int, iterations: int, barrier: Path | None) -> dict:
    """One program of ``seeds`` seeds in this process: warm up, wait at ``barrier`` (a file
    whose content is the common start time, written once every child is ready), time."""
    import jax

    started = time.perf_counter()
    program, state, batch = _program(method, seeds, max(warmup, iterations))
    state, _ = jax.block_until_ready(program(state, warmup))
    setup_s = time.perf_counter() - started
    start_at = _wait(barrier) if barrier else time.time()
    time.sleep(max(start_at - time.time(), 0.0))
    t0, c0 = time.perf_counter(), time.process_time()
    state, _ = jax.block_until_ready(program(state, iterations))
    window, cpu = time.perf_counter() - t0, time.process_time() - c0
    # The literature loops count their iterations by branch; the target program has one.
    counts = jax.device_get(state.counts).sum(axis=0).tolist() if hasattr(state, "counts") else None
    return {
        "seeds": seeds,
        "batch_steps": batch,
        "setup_and_warmup_s": round(setup_s, 1),
        "window_s": round(window, 2),
        "cpu_s": round(cpu, 2),
        "steps_per_s": seeds * iterations * batch / window,
        # XLA's CPU pool is not held to one thread by XLA_FLAGS on jax 0.10: per core is per
        # CPU-second of the process.
        "steps_per_cpu_s": seeds * iterations * batch / max(cpu, 1e-9),
        "branches_new_replay_mutate_gradient": counts,
        "late_s": round(time.time() - start_at - window, 2) if barrier else 0.0,
        "device": {"platform": jax.devices()[0].platform, "kind": jax.devices()[0].device_kind},
    }


def _wait(barrier: Path) -> float:
    """Say this child is ready, then wait for the parent's common start time."""
    ready = barrier.with_name(f"{barrier.name}.{os.getpid()}.ready")
    ready.touch()
    while not barrier.exists():
        time.sleep(0.2)
    return float(barrier.read_text())


def _children(
    method: str, seeds: int, copies: int, args: argparse.Namespace, barrier_dir: Path
) -> list[dict[str, Any]]:
    """``copies`` processes of one ``seeds``-seed program each, timed from one moment."""
    barrier = barrier_dir / f"{method}-{seeds}x{copies}"
    command = [
        sys.executable, __file__, "--child", method, "--seeds", str(seeds),
        "--warmup", str(args.warmup or WARMUP[method]), "--iterations", str(args.iterations),
        "--barrier", str(barrier),
    ]  # fmt: skip
    env = os.environ | WORKER_ENV
    if args.compile_cache:
        env |= {
            "JAX_COMPILATION_CACHE_DIR": str(args.compile_cache),
            "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
        }
    procs = [
        subprocess.Popen(
            command, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for _ in range(copies)
    ]
    while len(list(barrier_dir.glob(f"{barrier.name}.*.ready"))) < copies:
        if any(p.poll() not in (None, 0) for p in procs):
            break
        time.sleep(0.5)
    barrier.write_text(str(time.time() + START_MARGIN_S))
    results = []
    for proc in procs:
        out, err = proc.communicate()
        if proc.returncode:
            results.append({"error": err.strip().splitlines()[-1:] or ["no output"]})
        else:
            results.append(json.loads(out.strip().splitlines()[-1]))
    return results


def run_case(
    method: str, seeds: int, mode: str, args: argparse.Namespace, barrier_dir: Path
) -> dict[str, Any]:
    """One (method, seed count, mode) case: ``"program"`` (one vmapped program) or
    ``"separate"`` (lone programs, ``args.jobs`` at once)."""
    load = os.getloadavg()[0]
    if mode == "program":
        runs = _children(method, seeds, 1, args, barrier_dir)
        case: dict[str, Any] = {"runs": runs}
        if "error" not in runs[0]:
            case["steps_per_s"] = runs[0]["steps_per_s"]
            case["steps_per_cpu_s"] = runs[0]["steps_per_cpu_s"]
            hours = seeds * args.budget_steps / runs[0]["steps_per_s"] / 3600
            case["budget_hours"] = round(hours, 2)
    else:
        jobs = min(args.jobs, seeds)
        runs = _children(method, 1, jobs, args, barrier_dir)
        case = {"runs": runs, "jobs": jobs}
        if not any("error" in run for run in runs):
            busy = seeds / (jobs * math.ceil(seeds / jobs))  # the pool's last wave
            case["busy_share"] = round(busy, 3)
            case["steps_per_s"] = sum(run["steps_per_s"] for run in runs) * busy
            case["steps_per_cpu_s"] = sum(run["steps_per_cpu_s"] for run in runs) / jobs
    return {"method": method, "seeds": seeds, "mode": mode, **case, "load": load_averages(load)}


def plan_cases(args: argparse.Namespace) -> list[tuple[str, int, str]]:
    """``(method, seed count, mode)`` of every case: ``--cases`` as given, else every method ×
    seed count × mode."""
    if not args.cases:
        methods, counts = args.methods.split(","), [int(n) for n in args.seeds.split(",")]
        return [(m, n, mode) for m in methods for n in counts for mode in MODES]
    cases = []
    for text in args.cases.split(","):
        method, _, rest = text.partition(":")
        count, _, mode = rest.partition(":")
        if method not in WARMUP or not count.isdigit() or int(count) < 1 or mode not in MODES:
            raise SystemExit(
                f"--cases: {text!r} is not METHOD:SEEDS:MODE with METHOD one of "
                f"{', '.join(WARMUP)}, SEEDS >= 1 and MODE one of {', '.join(MODES)}"
            )
        cases.append((method, int(count), mode))
    return cases


def _anchor(args: argparse.Namespace, methods: list[str]) -> dict[str, Any]:
    """JaxUED's own loop on those of ``methods`` its example runs, or why it was not run."""
    if not (args.jaxued_python and args.jaxued_example):
        return {"not_run": "give --jaxued-python and --jaxued-example (docs/maze.md)"}
    from benchmarks.jaxued_anchor import METHODS, measure_jaxued

    return {
        method: measure_jaxued(args.jaxued_python, args.jaxued_example, method, args.jaxued_seconds)
        for method in methods
        if method in METHODS
    }


def ratios(cases: list[dict[str, Any]], anchor: dict[str, Any]) -> dict[str, float]:
    """One program over separate runs per (method, n), in aggregate steps per wall-second; our
    lone program over JaxUED's loop per CPU-second (each process's own CPU time: XLA_FLAGS do
    not hold jax 0.10's CPU pool to one thread, so per core is per CPU-second)."""
    rate = {(c["method"], c["seeds"], c["mode"]): c.get("steps_per_s") for c in cases}
    per_cpu = {(c["method"], c["seeds"], c["mode"]): c.get("steps_per_cpu_s") for c in cases}
    out: dict[str, float] = {}
    for (method, n, mode), value in rate.items():
        separate = rate.get((method, n, "separate"))
        if mode == "program" and value and separate:
            out[f"{method}_{n}_seeds_program_over_separate"] = round(value / separate, 3)
        jaxued = anchor.get(method, {}).get("steps_per_cpu_s")
        ours = per_cpu.get((method, n, mode))
        if mode == "program" and n == 1 and ours and jaxued:
            out[f"{method}_lone_over_jaxued_per_cpu_s"] = round(ours / jaxued, 2)
    return out


def _write(
    args: argparse.Namespace,
    cases: list[dict],
    anchor: dict,
    complete: bool,
    not_started: list[str] | None = None,
) -> dict[str, float]:
    """The figures file as it stands: written after every case, so a run cut short (a lease's
    limit) still leaves what it measured. Returns its ratios."""
    found = ratios(cases, anchor)
    document = {
        "benchmark": "seeds_throughput",
        "protocol": __doc__,
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "settings": {k: str(v) for k, v in vars(args).items() if k not in ("child", "barrier")},
        "complete": complete,
        "cases": cases,
        "not_started": not_started or [],
        "jaxued": anchor,
        "ratios": found,
        "provenance": provenance(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    tmp.write_text(json.dumps(document, indent=1) + "\n")
    tmp.replace(args.out)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", default="dr,robust_plr")
    parser.add_argument("--seeds", default="1,5,10", help="seed counts")
    parser.add_argument("--cases", help="METHOD:SEEDS:MODE,... instead of methods × seeds")
    parser.add_argument("--jobs", type=int, default=2, help="processes of the separate runs")
    parser.add_argument(
        "--warmup", type=int, help=f"iterations before timing (default per method: {WARMUP})"
    )
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--budget-steps", type=int, default=250_000_000, help="per seed")
    parser.add_argument("--compile-cache", type=Path, help="XLA's compiled programs, shared")
    parser.add_argument(
        "--deadline-s", type=float, help="start no case after this many seconds (a lease's time)"
    )
    parser.add_argument("--jaxued-python", type=Path)
    parser.add_argument("--jaxued-example", type=Path)
    parser.add_argument("--jaxued-seconds", type=float, default=900.0)
    parser.add_argument("--out", type=Path, default=FIGURES / "seeds_throughput.json")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--barrier", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child, int(args.seeds), args.warmup, args.iterations,
                                 args.barrier)))  # fmt: skip
        return
    plan = plan_cases(args)
    barrier_dir = Path(os.environ.get("TMPDIR", "/tmp")) / f"seeds_throughput_{os.getpid()}"
    barrier_dir.mkdir(parents=True, exist_ok=True)
    cases: list[dict[str, Any]] = []
    not_started: list[str] = []
    begun = time.perf_counter()
    for method, n, mode in plan:
        if args.deadline_s is not None and time.perf_counter() - begun > args.deadline_s:
            not_started.append(f"{method}:{n}:{mode}")
            print(f"{method:11s} {n:3d} seeds {mode:9s} not started: past --deadline-s")
            continue
        case = run_case(method, n, mode, args, barrier_dir)
        cases.append(case)
        _write(args, cases, {}, complete=False)
        rate = case.get("steps_per_s")
        shown = (
            f"{rate:9.0f} steps/s, {case['steps_per_cpu_s']:7.0f} per CPU-s"
            if rate
            else f"failed: {case['runs']}"
        )
        print(f"{method:11s} {n:3d} seeds {mode:9s} {shown}", flush=True)
    anchor = _anchor(args, list(dict.fromkeys(method for method, _, _ in plan)))
    print(f"JaxUED anchor: {json.dumps(anchor)[:400]}", flush=True)
    found = _write(args, cases, anchor, complete=not not_started, not_started=not_started)
    for name, value in found.items():
        print(f"{name}: {value:.2f}×")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
