"""The API under load: 50 readers against a 100,000-level archive while a run trains, with the
student's throughput with and without the load.

Builds the archive with `api_listing.build_archive` (bulk inserts through the archive's own
engine and tables, each level named in the change log as every archive write does) plus 2,000
generation attempts; starts the real API on it (``python -m services.api``, uvicorn, its own
process) and the main job beside it (``dicode run --profile quick``: student, evaluator,
generator and its own API on its own archive, as ``make run`` starts them). Once the student
has reported ``--warm-sessions`` sessions (compiled, generating) and every route has been read
once (untimed), four phases of ``--seconds``:

1. quiet: the run trains alone;
2. readers: ``--readers`` asyncio readers, each on its own keep-alive connection, each
   picking routes from the web page's mix (level listing pages, one level, lineage, attempts,
   run detail, metrics) and waiting a think time between requests (exponential, mean
   ``--think`` s: a person clicking through pages, or five times the rate of an open
   dashboard page, which asks once every 5 s);
3. quiet again (a drift in the student's speed shows as a difference of 1 and 3);
4. saturation: the same readers with no think time, each firing its next request as the
   last one answers: the API's capacity on this machine, not a use anyone makes of it.

Prints p50/p95/p99 and errors per route for phases 2 and 4 beside the anchor (p95 of the
level listing <= 100 ms at 100,000 levels under 50 readers: phase 2), and the student's env
steps per second of session time in each phase (sessions that began and ended inside it).
Writes ``docs/figures/api_load.json`` (``api_load_postgresql.json`` with ``--db``).

    PYTHONPATH=. python benchmarks/api_load.py [--readers 50] [--seconds 60] [--think 1]
        [--db postgresql+psycopg://…]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from archive_db import ArchiveRepository
from archive_db.records import NewAttempt
from benchmarks.api_listing import RUN, api_server, build_archive, postgres_schema
from benchmarks.main_job import main_job
from dicode.provenance import ROOT, load_averages, write_figures
from tests.support.local_server import free_port

ANCHOR_ROUTE = "levels page"
ANCHOR_P95_MS = 100.0
ATTEMPTS = 2_000
JOB = "trains"  # the run trained beside the API
STAGES = ("syntax", "schema", "sandbox", "rollout")
Timings = dict[str, list[float]]  # milliseconds per route
Route = Callable[[random.Random, list[int]], tuple[str, dict[str, Any]]]
# The reads a dashboard makes, with their weights.
ROUTES: dict[str, tuple[int, Route]] = {
    "levels page": (4, lambda r, ids: (f"/api/runs/{RUN}/levels",
                                       {"offset": r.randrange(0, 99_950, 50)})),
    "levels by status": (2, lambda r, ids: (f"/api/runs/{RUN}/levels",
                                            {"status": r.choice("ABCD")})),
    "level": (2, lambda r, ids: (f"/api/levels/{r.choice(ids)}", {})),
    "lineage": (1, lambda r, ids: (f"/api/levels/{r.choice(ids)}/lineage", {"depth": 3})),
    "attempts page": (1, lambda r, ids: (f"/api/runs/{RUN}/attempts", {})),
    "run": (1, lambda r, ids: (f"/api/runs/{RUN}", {})),
    "metrics": (1, lambda r, ids: (f"/api/runs/{RUN}/metrics", {})),
}


def add_attempts(url: str, n: int) -> list[int]:
    """``n`` rejected attempts of the run (accepted ones would each add a level), and the ids
    of the run's first 20,000 levels for the per-level routes."""
    repo = ArchiveRepository.open(url)
    run = repo.runs.get(RUN)
    ids = [level.id for level in repo.levels.listing(run.id, limit=20_000)]
    for i in range(n):
        stage = STAGES[i % len(STAGES)]
        attempt = NewAttempt(
            teacher="mutation",
            stage_reached=stage,
            verdict="rejected",
            parent_id=ids[i % len(ids)],
            code="def build(level, rng):\n    return level\n",
            failing_stage=stage,
            error=f"rejected at {stage}",
        )
        repo.attempts.record(run.id, attempt)
    repo.close()
    return ids


async def reader(
    base: str, ids: list[int], seed: int, until: float, think_s: float, timings: Timings,
    errors: dict[str, int],
) -> int:
    rng = random.Random(seed)
    names = list(ROUTES)
    weights = [ROUTES[n][0] for n in names]
    done = 0
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        if think_s:  # readers arrive spread out, not in one burst
            await asyncio.sleep(rng.uniform(0, think_s))
        while time.perf_counter() < until:
            name = rng.choices(names, weights)[0]
            path, params = ROUTES[name][1](rng, ids)
            started = time.perf_counter()
            try:
                answer = await client.get(path, params=params)
                failed = answer.status_code != 200
            except httpx.HTTPError:
                failed = True
            timings[name].append((time.perf_counter() - started) * 1000)
            errors[name] += failed
            done += 1
            if think_s:
                await asyncio.sleep(rng.expovariate(1 / think_s))
    return done


async def load(
    base: str, ids: list[int], readers: int, seconds: float, think_s: float
) -> dict[str, Any]:
    timings: Timings = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    until = time.perf_counter() + seconds
    started = time.perf_counter()
    counts = await asyncio.gather(
        *(reader(base, ids, i, until, think_s, timings, errors) for i in range(readers))
    )
    elapsed = time.perf_counter() - started
    routes = {}
    for name in ROUTES:
        p50, p95, p99 = np.percentile(timings[name], [50, 95, 99]) if timings[name] else (0, 0, 0)
        routes[name] = {
            "requests": len(timings[name]),
            "errors": errors[name],
            "p50_ms": round(float(p50), 1),
            "p95_ms": round(float(p95), 1),
            "p99_ms": round(float(p99), 1),
        }
    return {
        "think_s": think_s,
        "requests_per_s": round(sum(counts) / elapsed, 1),
        "routes": routes,
    }


def warm_up(base: str, ids: list[int]) -> None:
    """Every route once, untimed: a long-running API has imported each world's module and
    filled SQLite's page cache; the first requests of a fresh one wait on both."""
    rng = random.Random(-1)
    with httpx.Client(base_url=base, timeout=60) as client:
        for _, route in ROUTES.values():
            path, params = route(rng, ids)
            client.get(path, params=params).raise_for_status()


def student_sessions(job_api: str) -> list[dict[str, Any]]:
    """The run's student sessions, read from its own API (empty while it is starting)."""
    try:
        answer = httpx.get(f"{job_api}/api/runs/{JOB}/metrics", timeout=10)
    except httpx.TransportError:
        return []
    return list(answer.json()["student"]) if answer.status_code == 200 else []


def student_rates(
    sessions: list[dict[str, Any]], phases: dict[str, tuple[float, float]]
) -> dict[str, Any]:
    """The student's env steps per second of session time, over the sessions that began and
    ended inside each phase (wall-clock seconds since the epoch)."""
    spans = []
    for before, session in itertools.pairwise(sessions):
        end = datetime.fromisoformat(session["time"]).timestamp()
        steps = session["env_steps"] - before["env_steps"]
        spans.append((end - session["seconds"], end, steps, session["seconds"]))
    rates: dict[str, Any] = {}
    for phase, (start, stop) in phases.items():
        inside = [(n, secs) for begin, end, n, secs in spans if start <= begin and end <= stop]
        seconds = sum(secs for _, secs in inside)
        rates[phase] = {
            "sessions": len(inside),
            "env_steps_per_s": round(sum(n for n, _ in inside) / seconds, 1) if seconds else None,
        }
    return rates


def wait_for_sessions(job: subprocess.Popen[bytes], job_api: str, n: int, timeout: float) -> None:
    deadline = time.time() + timeout
    while len(student_sessions(job_api)) < n:
        if job.poll() is not None or time.time() > deadline:
            raise SystemExit(f"the run reported fewer than {n} student sessions in {timeout:.0f} s")
        time.sleep(2)


def measure(args: argparse.Namespace, url: str, runs_dir: Path) -> dict[str, Any]:
    ids = add_attempts(url, ATTEMPTS)
    job_port = free_port()
    job_api = f"http://127.0.0.1:{job_port}"
    minutes = (4 * args.seconds + 900) / 60  # a bound; the job is stopped after the phases
    phases: dict[str, tuple[float, float]] = {}
    loads: dict[str, Any] = {}
    with api_server(url) as base, main_job(runs_dir, job_port, minutes, "--name", JOB) as job:
        wait_for_sessions(job, job_api, args.warm_sessions, timeout=900)
        warm_up(base, ids)
        for phase, think_s in (
            ("quiet", None),
            ("readers", args.think),
            ("quiet again", None),
            ("saturation", 0.0),
        ):
            print(f"phase: {phase} ({args.seconds:g} s)", file=sys.stderr)
            start = time.time()
            if think_s is None:
                time.sleep(args.seconds)
            else:
                loads[phase] = asyncio.run(load(base, ids, args.readers, args.seconds, think_s))
            phases[phase] = (start, time.time())
            if job.poll() is not None:
                raise SystemExit(f"the run stopped during the {phase} phase")
        student = student_rates(student_sessions(job_api), phases)
    return {"loads": loads, "student": student}


@contextmanager
def archive(db: str | None, tmp: str) -> Iterator[str]:
    if db is None:
        yield f"sqlite:///{tmp}/archive.sqlite"
    else:
        with postgres_schema(db) as url:
            yield url


def print_load(phase: str, result: dict[str, Any]) -> None:
    print(f"\n{phase}: think time {result['think_s']:g} s, {result['requests_per_s']} requests/s")
    print(f"{'route':<18}{'requests':>9}{'errors':>8}{'p50':>9}{'p95':>9}{'p99':>9}")
    for name, r in result["routes"].items():
        print(f"{name:<18}{r['requests']:>9}{r['errors']:>8}{r['p50_ms']:>7.1f}ms"
              f"{r['p95_ms']:>7.1f}ms{r['p99_ms']:>7.1f}ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--readers", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0, help="length of each phase")
    parser.add_argument("--think", type=float, default=1.0, help="mean think time (s)")
    parser.add_argument("--warm-sessions", type=int, default=3)
    parser.add_argument("--levels", type=int, default=100_000)
    parser.add_argument("--db", default=None, help="a postgresql+psycopg:// URL (default SQLite)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.levels < 100_000:
        parser.error("--levels must be at least 100,000 (the deepest page read)")

    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp, archive(args.db, tmp) as url:
        setup_s = build_archive(url, args.levels, args.seed)
        print(f"archive: {args.levels:,} levels in {setup_s:.1f} s", file=sys.stderr)
        result = measure(args, url, Path(tmp) / "runs")
    backend = "sqlite" if args.db is None else "postgresql"

    print(f"\n{args.readers} readers, {args.seconds:g} s per phase, {backend}, "
          f"{args.levels:,} levels, beside `dicode run --profile quick`")
    for phase, figures in result["loads"].items():
        print_load(phase, figures)
    print(f"\n{'student':<14}{'sessions':>9}{'env steps/s':>13}")
    for phase, rate in result["student"].items():
        print(f"{phase:<14}{rate['sessions']:>9}{rate['env_steps_per_s'] or 0:>13.1f}")
    anchor = result["loads"]["readers"]["routes"][ANCHOR_ROUTE]["p95_ms"]
    met = anchor <= ANCHOR_P95_MS
    print(f"anchor: p95 of the {ANCHOR_ROUTE} under {args.readers} readers {anchor:.1f} ms vs "
          f"<= {ANCHOR_P95_MS:.0f} ms: {'met' if met else 'MISSED'}")
    path = write_figures(
        "api_load" if args.db is None else "api_load_postgresql",  # one file per backend
        {
            "backend": backend,
            "levels": args.levels,
            "attempts": ATTEMPTS,
            "readers": args.readers,
            "seconds_per_phase": args.seconds,
            "think_s": args.think,
            "training": "dicode run --profile quick beside the API (own archive, same 2 cores)",
            "route_weights": {name: weight for name, (weight, _) in ROUTES.items()},
            "setup_insert_s": round(setup_s, 1),
            "anchor": f"p95 of '{ANCHOR_ROUTE}' <= {ANCHOR_P95_MS:.0f} ms in the readers phase",
            "anchor_met": met,
            **load_averages(load_before),
            **result,
        },
    )
    print(f"figures in {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
