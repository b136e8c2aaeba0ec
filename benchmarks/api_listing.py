"""Latency of the API's level listing over real HTTP on a 100,000-level run.

Builds an archive with one run of N levels (bulk insert, timed on its own; then ANALYZE, and
VACUUM on PostgreSQL, the state autovacuum keeps a live archive in), starts the real API
(``python -m services.api`` under uvicorn, its own process) on a free port and times
``GET /api/runs/{run}/levels`` with httpx on one keep-alive connection: the first page (the
default limit), the first page filtered by a status letter, and a deep page (offset 50,000).
Prints p50/p95/p99 beside the target (p95 <= 50 ms) and writes
``docs/figures/api_listing.json``.

    PYTHONPATH=. python benchmarks/api_listing.py [--postgres] [--levels 100000]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, cast

import httpx
import numpy as np
from sqlalchemy import Table, insert, select, text
from sqlalchemy.engine import make_url

from archive_db import ArchiveRepository
from archive_db.aggregates.feed import levels_changed, log_changes
from archive_db.models import STATUS_LETTERS, Level
from archive_db.records import content_hash
from dicode.provenance import ROOT, load_averages, write_figures
from tests.support.local_server import free_port

TARGET_P95_MS = 50.0
DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
RUN = "bench"
BATCH = 5_000
TEACHERS = ("mutation", "llm", "seed", "human")
CASES: dict[str, dict[str, Any]] = {
    "first page": {},
    "status A": {"status": "A"},
    "offset 50,000": {"offset": 50_000},
}


def level_rows(run_id: int, n: int, rng: random.Random) -> Iterator[dict[str, Any]]:
    """N level rows shaped like generated ones: ~1.5 KB of code, a 4 KiB bundle, a lineage-ish
    name, random status letters and sampling counts."""
    code = "def build(rng):\n" + "    board = rng.integers(0, 2, (20, 10))\n" * 35
    bundle = os.urandom(4096)
    for i in range(n):
        rate = rng.random()
        yield {
            "run_id": run_id,
            "domain": "tetris",
            "name": f"level {i}",
            "description": f"Level {i}: clear lines on a board with {i % 17} garbage rows. " * 4,
            "code": code,
            "bundle": bundle,
            "bundle_format": "npz",
            "content_hash": content_hash(RUN, str(i)),
            "teacher": TEACHERS[min(int(rng.expovariate(1.5)), len(TEACHERS) - 1)],
            "meta": {"difficulty": {"lines": i % 7}},
            "created_iteration": i // 10,
            "status": rng.choice(STATUS_LETTERS),
            "success_rate": rate,
            "score": rate * (1 - rate),
            "active": i < 100,
            "times_sampled": rng.randrange(4),
            "last_sampled": None,
        }


def build_archive(url: str, n: int, seed: int) -> float:
    """Create the run and its N levels; returns the seconds the inserts took."""
    repo = ArchiveRepository.open(url)
    run = repo.runs.create(RUN, domain="tetris", seed=seed)
    table = cast(Table, Level.__table__)
    rows = level_rows(run.id, n, random.Random(seed))
    started = time.perf_counter()
    with repo.sessions.writing() as session:
        while batch := [row for _, row in zip(range(BATCH), rows, strict=False)]:
            session.execute(insert(table), batch)
        # As every write of the archive does: the change log names each new level.
        ids = session.scalars(select(Level.id).where(Level.run_id == run.id)).all()
        log_changes(session, run.id, levels_changed(ids))
    elapsed = time.perf_counter() - started
    with repo.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("VACUUM ANALYZE levels" if repo.sessions.postgres else "ANALYZE"))
    repo.close()
    return elapsed


@contextmanager
def api_server(url: str) -> Iterator[str]:
    """The real API in its own process; yields its base URL once /healthz answers."""
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "services.api", "--db", url, "--port", str(port)]
    server = subprocess.Popen(
        [*command, "--log-level", "warning"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 120
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if server.poll() is not None or time.time() > deadline:
                raise RuntimeError(f"the API did not start (exit {server.poll()})")
            time.sleep(0.2)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)


def time_case(
    client: httpx.Client, params: dict[str, Any], warmup: int, requests: int
) -> dict[str, float]:
    """Milliseconds per request (p50/p95/p99, mean) after ``warmup`` untimed ones."""
    path = f"/api/runs/{RUN}/levels"
    timings = []
    for i in range(warmup + requests):
        started = time.perf_counter()
        answer = client.get(path, params=params)
        elapsed = (time.perf_counter() - started) * 1000
        answer.raise_for_status()
        if not answer.json()["items"]:
            raise RuntimeError(f"{path} {params}: empty page")
        if i >= warmup:
            timings.append(elapsed)
    p50, p95, p99 = np.percentile(timings, [50, 95, 99])
    return {
        "p50_ms": round(float(p50), 2),
        "p95_ms": round(float(p95), 2),
        "p99_ms": round(float(p99), 2),
        "mean_ms": round(float(np.mean(timings)), 2),
    }


def measure(url: str, args: argparse.Namespace) -> dict[str, Any]:
    setup_s = build_archive(url, args.levels, args.seed)
    print(f"  set-up: {args.levels:,} levels inserted in {setup_s:.1f} s", file=sys.stderr)
    with api_server(url) as base, httpx.Client(base_url=base, timeout=30) as client:
        cases = {
            name: time_case(client, params, args.warmup, args.requests)
            for name, params in CASES.items()
        }
    return {"setup_insert_s": round(setup_s, 1), "cases": cases}


@contextmanager
def postgres_schema(base_url: str) -> Iterator[str]:
    """A URL on a throw-away schema (dropped afterwards)."""
    import psycopg

    parsed = make_url(base_url)
    dsn = (
        f"host={parsed.host} port={parsed.port or 5432} dbname={parsed.database} "
        f"user={parsed.username}"
    )
    schema = f"dicode_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(dsn, autocommit=True, connect_timeout=5) as admin:
        admin.execute(f'CREATE SCHEMA "{schema}"')
        try:
            yield f"{base_url}?options=-csearch_path%3D{schema}"
        finally:
            admin.execute(f'DROP SCHEMA "{schema}" CASCADE')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=200, help="timed requests per case")
    parser.add_argument("--warmup", type=int, default=20, help="untimed requests per case")
    parser.add_argument("--postgres", action="store_true", help="PostgreSQL as well as SQLite")
    parser.add_argument("--pg-url", default=os.environ.get("DICODE_BENCH_PG_URL", DEFAULT_PG))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.levels <= 50_000:
        parser.error("--levels must exceed the deep page's offset (50,000)")

    load_before = os.getloadavg()[0]
    backends: dict[str, Any] = {}
    print("sqlite:", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        backends["sqlite"] = measure(f"sqlite:///{tmp}/archive.sqlite", args)
    if args.postgres:
        print("postgresql:", file=sys.stderr)
        with postgres_schema(args.pg_url) as url:
            backends["postgresql"] = measure(url, args)

    print(
        f"\nGET /api/runs/{{run}}/levels, {args.levels:,} levels, {args.requests} requests "
        f"per case after {args.warmup} warm-up; target p95 <= {TARGET_P95_MS:.0f} ms"
    )
    print(f"{'backend':<11}{'case':<15}{'p50':>9}{'p95':>9}{'p99':>9}   p95/target")
    for backend, result in backends.items():
        for case, t in result["cases"].items():
            ratio = t["p95_ms"] / TARGET_P95_MS
            print(
                f"{backend:<11}{case:<15}{t['p50_ms']:>7.1f}ms{t['p95_ms']:>7.1f}ms"
                f"{t['p99_ms']:>7.1f}ms   {ratio:.2f}"
            )
    met = all(t["p95_ms"] <= TARGET_P95_MS for r in backends.values() for t in r["cases"].values())
    path = write_figures(
        "api_listing",
        {
            "levels": args.levels,
            "requests_per_case": args.requests,
            "warmup_per_case": args.warmup,
            "target_p95_ms": TARGET_P95_MS,
            "target_met": met,
            **load_averages(load_before),
            "backends": backends,
        },
    )
    print(f"target {'met' if met else 'MISSED'}; figures in {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
