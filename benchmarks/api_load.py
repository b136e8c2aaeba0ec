"""The API under load: N concurrent readers for T seconds against a 100,000-level archive.

Builds the archive with `api_listing.build_archive` (bulk inserts through the archive's own
engine and tables) plus generation attempts (the lineage route reads levels without edges);
starts the real API (``python -m services.api``, uvicorn, its own process) and runs ``--readers``
asyncio readers, each on its own keep-alive connection, each picking routes from the web
page's mix (level listing pages, one level, lineage, attempts, run detail, metrics) for
``--seconds``. Prints p50/p95/p99 and errors per route beside the anchor: p95 of the level
listing <= 100 ms at 100,000 levels under 50 readers. Writes ``docs/figures/api_load.json``.

    PYTHONPATH=. python benchmarks/api_load.py [--readers 50] [--seconds 60] [--db postgresql://…]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import numpy as np

from archive_db import ArchiveRepository
from archive_db.records import NewAttempt
from benchmarks.api_listing import RUN, api_server, build_archive, postgres_schema
from dicode.provenance import ROOT, write_figures

ANCHOR_ROUTE = "levels page"
ANCHOR_P95_MS = 100.0
ATTEMPTS = 2_000
STAGES = ("syntax", "schema", "sandbox", "rollout")
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
    run = repo.get_run(RUN)
    ids = [level.id for level in repo.list_levels(run.id, limit=20_000)]
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
        repo.record_attempt(run.id, attempt)
    repo.close()
    return ids


async def reader(
    base: str, ids: list[int], seed: int, until: float, timings: dict[str, list[float]],
    errors: dict[str, int],
) -> int:
    rng = random.Random(seed)
    names = list(ROUTES)
    weights = [ROUTES[n][0] for n in names]
    done = 0
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
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
    return done


async def load(base: str, ids: list[int], readers: int, seconds: float) -> dict[str, Any]:
    timings: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    until = time.perf_counter() + seconds
    started = time.perf_counter()
    counts = await asyncio.gather(
        *(reader(base, ids, i, until, timings, errors) for i in range(readers))
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
    return {"requests_per_s": round(sum(counts) / elapsed, 1), "routes": routes}


@contextmanager
def archive(db: str | None, tmp: str) -> Iterator[str]:
    if db is None:
        yield f"sqlite:///{tmp}/archive.sqlite"
    else:
        with postgres_schema(db) as url:
            yield url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--readers", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--levels", type=int, default=100_000)
    parser.add_argument("--db", default=None, help="a postgresql+psycopg:// URL (default SQLite)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.levels < 100_000:
        parser.error("--levels must be at least 100,000 (the deepest page read)")

    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp, archive(args.db, tmp) as url:
        setup_s = build_archive(url, args.levels, args.seed)
        ids = add_attempts(url, ATTEMPTS)
        print(f"archive: {args.levels:,} levels in {setup_s:.1f} s", file=sys.stderr)
        with api_server(url) as base:
            result = asyncio.run(load(base, ids, args.readers, args.seconds))
    backend = "sqlite" if args.db is None else "postgresql"

    print(f"\n{args.readers} readers for {args.seconds:g} s on {backend}, {args.levels:,} "
          f"levels: {result['requests_per_s']} requests/s")
    print(f"{'route':<18}{'requests':>9}{'errors':>8}{'p50':>9}{'p95':>9}{'p99':>9}")
    for name, r in result["routes"].items():
        print(f"{name:<18}{r['requests']:>9}{r['errors']:>8}{r['p50_ms']:>7.1f}ms"
              f"{r['p95_ms']:>7.1f}ms{r['p99_ms']:>7.1f}ms")
    anchor = result["routes"][ANCHOR_ROUTE]["p95_ms"]
    met = anchor <= ANCHOR_P95_MS
    print(f"anchor: p95 of the {ANCHOR_ROUTE} {anchor:.1f} ms vs <= {ANCHOR_P95_MS:.0f} ms: "
          f"{'met' if met else 'MISSED'}")
    path = write_figures(
        "api_load",
        {
            "backend": backend,
            "levels": args.levels,
            "attempts": ATTEMPTS,
            "readers": args.readers,
            "seconds": args.seconds,
            "route_weights": {name: weight for name, (weight, _) in ROUTES.items()},
            "setup_insert_s": round(setup_s, 1),
            "anchor": f"p95 of '{ANCHOR_ROUTE}' <= {ANCHOR_P95_MS:.0f} ms",
            "anchor_met": met,
            "student_throughput": "not measured (see docs/services.md)",
            "load_average_before": round(load_before, 2),
            "load_average_after": round(os.getloadavg()[0], 2),
            **result,
        },
    )
    print(f"figures in {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
