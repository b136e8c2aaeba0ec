"""Archive benchmark: parent selection + PLR replay sample over N levels, and insert throughput.

    python benchmarks/archive_bench.py --levels 100000 --json

prints {"levels": N, "select_and_sample_ms_median": …, "inserts_per_s": {"sqlite": …,
"postgresql": …}}. The timed step is one parent selection (12 parents, strict rule with lenient
fallback) plus one replay sample of 16 levels, both over all N levels (the replay buffer is the
whole archive here, a worst case: in a run it is the active set of ≤ 100). Inserts are one
transaction per level (level row with a 4 KiB bundle, its lineage edge and change-log rows).
PostgreSQL is measured in a throw-away schema; it reports null if the server is unreachable.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from archive_db import ArchiveRepository
from archive_db.records import NewLevel, content_hash
from dicode.archive.config import ArchiveConfig
from dicode.archive.graph import LineageView
from dicode.archive.records import Edge, GraphChanges, LevelNode
from dicode.archive.replay import make_buffer, sample_replay
from dicode.archive.selection import select_parents
from dicode.archive.status import learnability, status_letter

DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def synthetic_view(n: int, rng: np.random.Generator) -> LineageView:
    """N levels with random success rates (10 % unmeasured) in a random lineage tree."""
    rates = rng.random(n)
    unmeasured = rng.random(n) < 0.1
    nodes = []
    for i in range(n):
        rate = None if unmeasured[i] else float(rates[i])
        nodes.append(
            LevelNode(
                i, status_letter(rate), rate, learnability(rate), False, None, 0, "bench", None
            )
        )
    parents = (rng.random(n - 1) * np.arange(1, n)).astype(np.int64)
    edges = tuple(Edge(int(p), c) for c, p in enumerate(parents, start=1))
    view = LineageView()
    view.apply(GraphChanges(cursor=1, levels=tuple(nodes), edges=edges))
    return view


def time_select_and_sample(n: int, repeats: int, seed: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU milliseconds of each selection + sample round."""
    rng = np.random.default_rng(seed)
    view = synthetic_view(n, rng)
    config = ArchiveConfig()
    columns = view.columns()
    clock = 1000
    buffer = make_buffer(columns.ids, columns.score, rng.integers(0, clock, n), clock)
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        select_parents(columns, 12, rng, config)
        _, buffer = sample_replay(
            buffer,
            rng,
            config.replay_batch,
            config.replay_staleness_coef,
            config.replay_temperature,
        )
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    return wall, cpu


def inserts_per_second(url: str, count: int) -> float:
    repo = ArchiveRepository.open(url)
    run = repo.runs.create(f"bench-{uuid.uuid4().hex[:8]}", domain="bench", seed=0)
    bundle = os.urandom(4096)
    parent = repo.levels.insert(run.id, NewLevel("bench", content_hash("root"), "bench")).id
    start = time.perf_counter()
    for i in range(count):
        parent = repo.levels.insert(
            run.id,
            NewLevel(
                "bench",
                content_hash(str(i), bundle),
                "bench",
                code=f"level {i}",
                bundle=bundle,
                bundle_format="npz",
                parent_ids=(parent,),
            ),
        ).id
    elapsed = time.perf_counter() - start
    repo.close()
    return count / elapsed


def postgres_inserts_per_second(base_url: str, count: int) -> float | None:
    import psycopg
    from sqlalchemy.engine import make_url

    parsed = make_url(base_url)
    dsn = (
        f"host={parsed.host} port={parsed.port or 5432} dbname={parsed.database} "
        f"user={parsed.username}"
    )
    schema = f"dicode_bench_{uuid.uuid4().hex[:10]}"
    try:
        admin = psycopg.connect(dsn, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as error:
        print(f"postgresql unreachable, skipped: {error}", file=sys.stderr)
        return None
    with admin:
        admin.execute(f'CREATE SCHEMA "{schema}"')
        try:
            return inserts_per_second(f"{base_url}?options=-csearch_path%3D{schema}", count)
        finally:
            admin.execute(f'DROP SCHEMA "{schema}" CASCADE')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", type=int, default=100_000, help="archive size N")
    parser.add_argument("--repeats", type=int, default=100, help="timed selection+sample rounds")
    parser.add_argument("--inserts", type=int, default=300, help="levels inserted per database")
    parser.add_argument("--pg-url", default=os.environ.get("DICODE_BENCH_PG_URL", DEFAULT_PG))
    parser.add_argument("--no-postgres", action="store_true", help="skip PostgreSQL")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if args.levels < 2:
        parser.error("--levels must be at least 2")

    timings, cpu_timings = time_select_and_sample(args.levels, args.repeats, args.seed)
    # CPU time tells the algorithm's own cost apart from waiting on a busy machine.
    print(
        f"select+sample at N={args.levels}: wall median {statistics.median(timings):.3f} ms, "
        f"min {min(timings):.3f} ms; CPU median {statistics.median(cpu_timings):.3f} ms; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs",
        file=sys.stderr,
    )
    with tempfile.TemporaryDirectory() as tmp:
        sqlite_rate = inserts_per_second(f"sqlite:///{tmp}/bench.sqlite", args.inserts)
    pg_rate = None if args.no_postgres else postgres_inserts_per_second(args.pg_url, args.inserts)
    result = {
        "levels": args.levels,
        "select_and_sample_ms_median": round(statistics.median(timings), 3),
        "inserts_per_s": {
            "sqlite": round(sqlite_rate, 1),
            "postgresql": None if pg_rate is None else round(pg_rate, 1),
        },
    }
    if args.json:
        print(json.dumps(result))
        return
    print(f"levels: {args.levels}")
    print(
        f"parent selection + 16-level replay sample: median "
        f"{result['select_and_sample_ms_median']} ms, p90 "
        f"{np.percentile(timings, 90):.3f} ms over {args.repeats} rounds"
    )
    print(
        f"inserts/s: sqlite {result['inserts_per_s']['sqlite']}, "
        f"postgresql {result['inserts_per_s']['postgresql']}"
    )


if __name__ == "__main__":
    main()
