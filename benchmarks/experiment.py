"""Curriculum experiments at equal environment steps, written run by run to their own JSON.

    PYTHONPATH=$PWD python benchmarks/experiment.py tetris_curriculum --jobs 2
    PYTHONPATH=$PWD python benchmarks/experiment.py craftax_1m --variants target,dicode_skills
    PYTHONPATH=$PWD python benchmarks/experiment.py maze_curriculum --seeds 0,1,2,3,4

An experiment (``EXPERIMENTS``) names a world, a step budget, training seeds and *variants*: a
curriculum method of ``services/curricula.py`` with its configuration. Every (variant, seed) run
trains one student for the same env steps and is scored on the world's target protocol; its
record — variant, method, seed, budget, the target figures (headline first) with the per-skill
ones, the headline's figure (mean of the last three evaluations, the final one beside it), the
headline's learning curve, what the teacher produced, the slot-sessions by kind (target / new /
replay) and the distinct levels trained, the cost (with the machine's load while it trained:
``dicode.provenance.LoadMeter``), the whole config, the exact command line and
the provenance (commit, numeric stack, threads, processor) — is appended to
``docs/figures/<experiment>.json`` as soon as it finishes, with a digest of its content: records
are written by this runner only, and a hand-edited one shows in the tables.

Resume: a run whose (variant, seed, budget, config) is already in the file is skipped, so an
interrupted table continues where it stopped (``--fresh`` starts over); a device program cut
mid-run goes on from its last evaluation's checkpoint in ``--out`` (``services/seed_runs.py``).
Runners of one experiment may share the file (say, a seed started while others train): each
record is added under a lock to the file as it is then. Progress and an ETA are printed after
every run. The summary (per variant: n, mean, sample std of the run figures; against the
baseline: the difference and its 95 % interval, Welch; per declared ablation: the paired
interval over seeds; "moved" only where the interval excludes zero —
``benchmarks/run_figures.py``) is rewritten each time, and ``docs/results.md``'s section of the
experiment is rebuilt from the file (``benchmarks/results_tables.py``). Evaluation seeds are the
protocol's own; nothing is tuned on them.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import fcntl
import json
import math
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from benchmarks.experiments_catalog import EXPERIMENTS, Experiment, Variant
from benchmarks.run_figures import (
    command_line,
    content_digest,
    headline_figures,
    record_digest,
    summarise,
)
from dicode.provenance import FIGURES, LoadMeter, provenance
from services.curricula import MethodResult, run_method
from services.progress import step_progress
from services.seed_runs import PROGRAM_KIND, batches_seeds, run_seeds

# Every worker trains with the same intra-op thread count, whatever --jobs is: a run's figures
# then depend only on its config and seed (tests/services/test_experiment.py checks it). On a
# GPU, workers share the card: none may take JAX's default 75 % of its memory up front.
THREADS = {"XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"}
WORKER_ENV = THREADS | {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"}


# ----------------------------------------------------------------------------- records
def config_key(variant: Variant, seed: int, steps: int) -> str:
    """What makes two runs the same run (the file is resumed on it). A run of a device program
    (``services/seed_runs.py``) is not the same run as one of the host loops it replaced: its
    levels and draws come from other streams."""
    identity: dict[str, Any] = {
        "method": variant.method,
        "config": variant.config.to_dict(),
        "seed": seed,
        "steps": steps,
    }
    if batches_seeds(variant.method, variant.config):
        identity["program"] = PROGRAM_KIND
    return content_digest(identity)[:16]


def record(
    name: str,
    variant: Variant,
    result: MethodResult,
    steps: int,
    command: str = "",
    load: dict[str, float] | None = None,
) -> dict[str, Any]:
    """One run's entry of the experiment's JSON, with the digest of its content; ``load``: the
    machine's load while it trained (``LoadMeter.figures``), kept with its cost."""
    from dicode import domains

    figures: dict[str, Any] = dict(result.target)
    skills = figures.pop("skills", {})
    headline = domains.get(variant.config.domain).target_metrics[0]
    entry = {
        "variant": name,
        "method": variant.method,
        "seed": result.seed,
        "budget": {"env_steps": steps, "trained_steps": result.env_steps},
        "headline": headline_figures(result.curve, float(figures[headline])),
        "figures": figures,
        "skills": skills,
        "teacher": {
            "attempts": result.attempts,
            "accepted": result.accepted,
            "levels_trained": result.levels_trained,
        },
        "slots": result.slots,
        "cost": {
            "wall_s": result.wall_s,
            "train_s": result.train_s,
            "train_cpu_s": result.train_cpu_s,
            "generation_s": result.generation_s,
            "machine_load": load,
        },
        "curve": [list(point) for point in result.curve],
        "trace": result.trace,
        "program": result.program,
        "config": {"method": variant.method, **variant.config.to_dict()},
        "key": config_key(variant, result.seed, steps),
        "run_dir": result.run_dir,
        "command": command,
        "provenance": provenance(),
    }
    return entry | {"digest": record_digest(entry)}


def with_games(experiment: Experiment, games: int) -> Experiment:
    """The experiment with another number of games per evaluation: e.g. to compare a run with
    a record made under the older protocol (the games are part of each record's config)."""
    variants = {
        name: replace(
            variant,
            config=replace(
                variant.config, evaluator=replace(variant.config.evaluator, games=games)
            ),
        )
        for name, variant in experiment.variants.items()
    }
    return replace(experiment, variants=variants)


# ----------------------------------------------------------------------------- running
_WORKER: dict[str, Any] = {}  # per worker process: its warm sandbox pool, once needed


def generates_levels(variant: Variant) -> bool:
    """Does the variant's method run level code (the device programs never do)?"""
    return not batches_seeds(variant.method, variant.config)


def sandbox_refusal(experiment: Experiment, names: list[str]) -> str | None:
    """Why the sandbox cannot run the level code of the chosen variants here; None when it can,
    or when none of them generates levels."""
    from dicode import domains
    from dicode.levels.sandbox import sandbox_problem

    builders = {
        domains.get(variant.config.domain).builder_module
        for variant in (experiment.variants[name] for name in names)
        if generates_levels(variant)
    }
    return next(filter(None, map(sandbox_problem, sorted(builders))), None)


def _run(
    variant: Variant, steps: int, seeds: list[int], out: Path, tensorboard: bool
) -> tuple[list[MethodResult], dict[str, float]]:
    """One task in a worker (``_train``) and the machine's load while it trained."""
    with LoadMeter() as load:
        results = _train(variant, steps, seeds, out, tensorboard)
    return results, load.figures()


def _train(
    variant: Variant, steps: int, seeds: list[int], out: Path, tensorboard: bool
) -> list[MethodResult]:
    """``seeds`` as one device program where the method allows it (``services/seed_runs.py``),
    else the one seed's run; the first run that generates levels starts the process's sandbox
    pool (and compiles its rollouts) once, for every later run. ``tensorboard``: event files in
    each run's folder."""
    if batches_seeds(variant.method, variant.config):
        return run_seeds(variant.method, steps, seeds, out, variant.config, tensorboard)
    (seed,) = seeds
    validator = None
    if generates_levels(variant):
        if "validator" not in _WORKER:
            from dicode import domains
            from dicode.levels.pipeline import Validator

            g, domain = variant.config.generator, variant.config.domain
            _WORKER["validator"] = Validator(
                domains.get(domain), pool_size=g.pool_size, warm=1, rollout_steps=g.rollout_steps
            )
            atexit.register(_WORKER["validator"].close)
        validator = _WORKER["validator"]
    return [run_method(variant.method, steps, seed, out, variant.config, validator, tensorboard)]


def plan_tasks(
    experiment: Experiment, names: list[str], seeds: list[int], seeds_per_program: int
) -> list[tuple[str, list[int]]]:
    """The worker tasks: per variant, its seeds in programs of up to ``seeds_per_program``
    where its method trains seeds together, else one seed per task; by first seed, then
    variant (an interrupted table then has every arm's first seeds)."""
    tasks = []
    for order, name in enumerate(names):
        variant = experiment.variants[name]
        size = seeds_per_program if batches_seeds(variant.method, variant.config) else 1
        tasks += [(seeds[i], order, name, seeds[i : i + size]) for i in range(0, len(seeds), size)]
    return [(name, chunk) for _, _, name, chunk in sorted(tasks)]


def run_experiment(
    experiment: Experiment,
    names: list[str],
    seeds: list[int],
    steps: int,
    jobs: int,
    out: Path,
    figures: Path,
    fresh: bool = False,
    on_record: Callable[[dict[str, Any]], None] | None = None,
    command: str | None = None,
    tensorboard: bool = False,
    seeds_per_program: int = 5,
) -> dict[str, Any]:
    """Run what is missing of ``names`` × ``seeds``; returns the experiment's document.
    ``command``: the command line stored in every record (default: this process's);
    ``tensorboard``: each run writes TensorBoard event files in ``<run folder>/tensorboard/``;
    ``seeds_per_program``: the most seeds of one arm trained as one device program (the rest
    of the arm's seeds form more programs; ``--jobs`` of them run at once).
    On a terminal a progress bar counts the env steps of the finished runs."""
    command = command_line() if command is None else command
    document = _load(figures, experiment, fresh)
    done = {run["key"] for run in document["runs"]}
    missing = {
        name: [s for s in seeds if config_key(experiment.variants[name], s, steps) not in done]
        for name in names
    }
    tasks = [
        task
        for name, todo in missing.items()
        for task in plan_tasks(experiment, [name], todo, seeds_per_program)
    ]
    runs = sum(len(todo) for todo in missing.values())
    skipped = len(names) * len(seeds) - runs
    print(
        f"{experiment.name}: {runs} runs to do in {len(tasks)} tasks, {skipped} already in "
        f"{figures}",
        flush=True,
    )
    if not tasks:
        return document
    started = time.perf_counter()
    spawn = multiprocessing.get_context("spawn")  # JAX state must not be forked
    # The runs report only when they end, so the bar's speed spans the whole work.
    progress = step_progress(window_s=math.inf)
    with _worker_settings(), ProcessPoolExecutor(jobs, spawn) as pool, progress:
        bar = progress.add_task(experiment.name, total=runs * steps)
        progress.advance(bar, 0)  # the first sample: the speed counts from here
        futures = {
            # One folder per variant: variants of one method would share <method>_s<seed>/.
            pool.submit(
                _run, experiment.variants[name], steps, task_seeds,
                out / experiment.name / name, tensorboard,
            ): name
            for name, task_seeds in tasks
        }  # fmt: skip
        finished = 0
        started_over = fresh
        for future in as_completed(futures):
            name = futures[future]
            headline = _headline(experiment)
            results, load = future.result()
            for result in results:
                entry = record(name, experiment.variants[name], result, steps, command, load)
                document = append_run(figures, experiment, entry, started_over)
                started_over = False  # the file now starts with this record
                if on_record is not None:
                    on_record(document)
                progress.advance(bar, steps)
                finished += 1
                eta = (time.perf_counter() - started) / finished * (runs - finished)
                print(
                    f"[{finished}/{runs}] {name} seed {entry['seed']}: "
                    f"{headline} {entry['headline']['last_mean']:.3f} (last 3; final "
                    f"{entry['figures'][headline]:.3f}) "
                    f"({entry['cost']['wall_s'] / 60:.1f} min); ETA {eta / 60:.0f} min",
                    flush=True,
                )
    return document


@contextlib.contextmanager
def _worker_settings() -> Iterator[None]:
    """``WORKER_ENV`` in the environment while the pool spawns its workers (and runs)."""
    saved = {name: os.environ.get(name) for name in WORKER_ENV}
    os.environ.update(WORKER_ENV)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def curve_from_run_dir(run_dir: Path, headline: str) -> list[list[float]]:
    """The headline's curve of a record written before records kept it, from the run folder's
    ``curve.csv`` (empty when the folder is gone)."""
    from dicode.student.loop import read_curve

    csv_path = run_dir / "curve.csv"
    if not csv_path.is_file():
        return []
    return [[int(row["env_steps"]), row[f"target_{headline}"]] for row in read_curve(csv_path)]


def _headline(experiment: Experiment) -> str:
    from dicode import domains

    domain = next(iter(experiment.variants.values())).config.domain
    return domains.get(domain).target_metrics[0]


def _load(path: Path, experiment: Experiment, fresh: bool) -> dict[str, Any]:
    # The catalog's notes, refreshed on every load: a variant added after the file was
    # started is described too.
    variants = {
        name: {"method": v.method, "note": v.note} for name, v in experiment.variants.items()
    }
    ablations = [asdict(a) for a in experiment.ablations]
    if path.is_file() and not fresh:
        document: dict[str, Any] = json.loads(path.read_text())
        document["variants"] = variants
        document["ablations"] = ablations
        headline = _headline(experiment)
        for run in document["runs"]:
            if "curve" not in run:
                run["curve"] = curve_from_run_dir(Path(run["run_dir"]), headline)
        return document
    return {
        "experiment": experiment.name,
        "protocol": experiment.protocol,
        "baseline": experiment.baseline,
        "variants": variants,
        "ablations": ablations,
        "runs": [],
        "summary": {},
    }


def append_run(
    path: Path, experiment: Experiment, entry: dict[str, Any], started_over: bool = False
) -> dict[str, Any]:
    """Add ``entry`` to the figures file and rewrite its summary; returns the document.

    The file is read again under a lock first: another runner of the same experiment (other
    seeds, started while this one trained) may have written records since this one loaded it.
    ``started_over`` (``--fresh``, no record written yet): the file's old records are dropped.
    A record whose key is already there (the same run finished twice) is not added again."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with _directory_lock(path.parent):
        document = _load(path, experiment, started_over)
        if entry["key"] not in {run["key"] for run in document["runs"]}:
            document["runs"].append(entry)
        document["summary"] = summarise(
            document["runs"], _headline(experiment), experiment.baseline, experiment.ablations
        )
        tmp = path.with_suffix(f".json.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(document, indent=1, default=str) + "\n")
        os.replace(tmp, path)
    return document


@contextlib.contextmanager
def _directory_lock(folder: Path) -> Iterator[None]:
    # A lock on the folder rather than the file: the file is replaced by every write, and a
    # folder leaves no lock file behind in docs/figures.
    handle = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # closing the descriptor releases the lock


def main() -> None:
    experiments = EXPERIMENTS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("experiment", choices=sorted(experiments))
    parser.add_argument("--variants", help="comma-separated (default: all)")
    parser.add_argument(
        "--seeds", help="training seeds, comma-separated (default: the experiment's)"
    )
    parser.add_argument("--steps", type=int, help="override the budget (a different run)")
    parser.add_argument(
        "--games", type=int, help="override the games per evaluation (a different protocol)"
    )
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument(
        "--seeds-per-program",
        type=int,
        default=5,
        help="the most seeds of an arm trained as one device program (target-only and the "
        "maze's literature loops; 1: each seed its own program)",
    )
    parser.add_argument("--out", type=Path, default=Path("runs/experiments"))
    parser.add_argument("--figures", type=Path, help="default docs/figures/<experiment>.json")
    parser.add_argument("--fresh", action="store_true", help="ignore runs already in the file")
    parser.add_argument(
        "--no-tensorboard",
        dest="tensorboard",
        action="store_false",
        help="write no TensorBoard event files (default: <run folder>/tensorboard/)",
    )
    args = parser.parse_args()
    experiment = experiments[args.experiment]
    if args.games:
        experiment = with_games(experiment, args.games)
    names = args.variants.split(",") if args.variants else list(experiment.variants)
    unknown = set(names) - set(experiment.variants)
    if unknown:
        parser.error(f"unknown variants {sorted(unknown)}; known: {', '.join(experiment.variants)}")
    seeds = [int(s) for s in args.seeds.split(",")] if args.seeds else list(experiment.seeds)
    figures = args.figures or FIGURES / f"{experiment.name}.json"
    steps = args.steps or experiment.steps
    problem = sandbox_refusal(experiment, names)
    if problem:  # before any run: a curriculum arm cannot train without its levels
        parser.exit(2, f"error: {problem}\n")
    print(f"command: {command_line()}", flush=True)
    from benchmarks.results_tables import rebuild_results

    run_experiment(
        experiment, names, seeds, steps, args.jobs, args.out, figures, args.fresh,
        tensorboard=args.tensorboard, seeds_per_program=args.seeds_per_program,
    )  # fmt: skip
    rebuild_results()


if __name__ == "__main__":
    main()
