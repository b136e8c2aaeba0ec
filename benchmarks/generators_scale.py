"""Several generator processes on one PostgreSQL archive: throughput against N, and what the
archive must still hold at the end.

For each N a fresh schema and run; N real ``python -m services.generator`` processes start
together, paused (they seed the run: once, whoever is first), then the seeds get status B with
success rate 0.5 (strict parent candidates: the "fewer than ``max_children`` children" rule is
in force until their slots fill) and generation resumes. Each process makes ``attempts / N``
attempts with the mutation teacher and logs its counters when it stops. Throughput is counted
from the archive's attempt times (generated attempts, first to last: process start and JAX
compilation left out). The audit checks: no two levels of the run share a content hash, the
attempt rows equal the seeds plus every attempt the processes report, and no child drawn
under the strict rule came after its parent's ``max_children``-th child.

    PYTHONPATH=. python benchmarks/generators_scale.py [--attempts 600] [--processes 1 2 4]
"""

from __future__ import annotations

import argparse
import ast
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from archive_db import ArchiveRepository
from archive_db.kinds import SEED_TEACHER
from archive_db.records import LevelFilter
from benchmarks.api_listing import DEFAULT_PG, postgres_schema
from dicode import domains
from dicode.provenance import ROOT, load_averages, write_figures
from dicode.settings import RunSettings
from services.generator.control import set_paused
from services.generator.service import GENERATING

STOPPED = "stopped: "  # the line `python -m services.generator` logs with its counters


@dataclass
class Fleet:
    """N generator processes on one run, each logging to its own file."""

    processes: list[subprocess.Popen[bytes]]
    logs: list[Path]

    def wait(self, timeout: float) -> list[dict[str, Any]]:
        """Each process's counters once all exited (a failure raises with its log's end)."""
        deadline = time.time() + timeout
        for process, log in zip(self.processes, self.logs, strict=True):
            code = process.wait(timeout=max(1.0, deadline - time.time()))
            if code != 0:
                raise RuntimeError(f"generator exited {code}: {log.read_text()[-2000:]}")
        return [_counters(log) for log in self.logs]

    def wait_generating(self, timeout: float) -> None:
        """Until every process has seeded and entered its loop (JAX compiled, sandbox warm):
        released before that, the slowest would start its draws after the others stored."""
        deadline = time.time() + timeout
        for process, log in zip(self.processes, self.logs, strict=True):
            while GENERATING not in log.read_text():
                if process.poll() is not None or time.time() > deadline:
                    raise RuntimeError(f"generator not generating: {log.read_text()[-2000:]}")
                time.sleep(0.5)

    def kill(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=30)


def start_fleet(url: str, run: str, n: int, attempts_each: int, log_dir: Path) -> Fleet:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    processes, logs = [], []
    for i in range(n):
        log = log_dir / f"generator-{i}.log"
        command = [sys.executable, "-m", "services.generator", "--db", url, "--run", run]
        with log.open("wb") as sink:
            processes.append(
                subprocess.Popen(
                    [*command, "--max-attempts", str(attempts_each)],
                    cwd=ROOT,
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=sink,
                )
            )
        logs.append(log)
    return Fleet(processes, logs)


def _counters(log: Path) -> dict[str, Any]:
    lines = [line for line in log.read_text().splitlines() if STOPPED in line]
    if not lines:
        raise RuntimeError(f"{log} has no '{STOPPED}' line")
    counters: dict[str, Any] = ast.literal_eval(lines[-1].split(STOPPED, 1)[1])
    return counters


def race_settings(base: RunSettings, in_flight: int) -> RunSettings:
    """``base`` without back-pressure (no student trains here) and with ``in_flight``."""
    # Polling the pause flag often: released together, the processes resume together.
    generator = replace(base.generator, in_flight=in_flight, max_untrained=10**6, poll_s=0.1)
    return replace(base, profile="race", generator=generator)


def open_paused_run(repo: ArchiveRepository, name: str, settings: RunSettings) -> int:
    config = settings.to_dict()
    run = repo.runs.create(name, domain=settings.domain, seed=settings.seed, config=config)
    set_paused(repo, run.id, True, by="benchmark")
    return run.id


def release_when_seeded(repo: ArchiveRepository, run_id: int, seeds: int, timeout: float) -> None:
    """Once the run holds its ``seeds`` seed levels: make them strict parent candidates
    (status B, success rate 0.5) and resume generation."""
    deadline = time.time() + timeout
    while len(repo.levels.listing(run_id, LevelFilter(teacher=SEED_TEACHER))) < seeds:
        if time.time() > deadline:
            raise RuntimeError(f"the run was not seeded within {timeout:.0f} s")
        time.sleep(0.5)
    for level in repo.levels.listing(run_id, LevelFilter(teacher=SEED_TEACHER)):
        repo.levels.update(level.id, status="B", success_rate=0.5)
    set_paused(repo, run_id, False, by="benchmark")


def audit(repo: ArchiveRepository, run_id: int, max_children: int) -> dict[str, Any]:
    """What the archive holds after the race, and each invariant's count of violations."""
    levels = {level.id: level for level in repo.list_levels(run_id)}
    attempts = repo.attempts.listing(run_id)
    children: dict[int, list[int]] = defaultdict(list)
    for edge in repo.feed.snapshot(run_id).edges:
        children[edge.parent].append(edge.child)
    # Children are inserted under the parent's row lock, so id order is the order they came.
    late_strict = sum(
        1
        for kids in children.values()
        for kid in sorted(kids)[max_children:]
        if levels[kid].meta.get("parent_rule") == "strict"
    )
    hashes = [level.content_hash for level in levels.values()]
    generated = [a for a in attempts if a.teacher != SEED_TEACHER]
    return {
        "attempts": len(attempts),
        "seed_attempts": len(attempts) - len(generated),
        "generated_attempts": len(generated),
        "accepted": sum(a.verdict == "accepted" for a in generated),
        "parent_full": sum("ParentFullError" in (a.error or "") for a in generated),
        "levels": len(levels),
        "duplicate_content_hashes": len(hashes) - len(set(hashes)),
        "strict_children_past_limit": late_strict,
        "most_children": max((len(k) for k in children.values()), default=0),
        "generated_span_s": _span([a.created_at.timestamp() for a in generated]),
    }


def _span(times: list[float]) -> float:
    return max(times) - min(times) if len(times) > 1 else 0.0


def measure(url: str, n: int, attempts: int, in_flight: int, log_dir: Path) -> dict[str, Any]:
    settings = race_settings(domains.profile(domains.get("tetris"), "quick"), in_flight)
    repo = ArchiveRepository.open(url)
    run_id = open_paused_run(repo, "scale", settings)
    seeds = len(domains.get(settings.domain).seed_sources())
    fleet = start_fleet(url, "scale", n, attempts // n, log_dir)
    try:
        fleet.wait_generating(timeout=600)
        release_when_seeded(repo, run_id, seeds, timeout=60)
        counters = fleet.wait(timeout=3600)
    finally:
        fleet.kill()
    found = audit(repo, run_id, settings.archive.max_children)
    repo.close()
    reported = sum(c["started"] for c in counters)
    span = found["generated_span_s"]
    return {
        "processes": n,
        "attempts_reported": reported,
        "attempts_per_minute": round(60 * (found["generated_attempts"] - 1) / span, 1)
        if span
        else None,
        "lost_attempts": reported - found["generated_attempts"],
        **found,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--attempts", type=int, default=600, help="generated attempts per N")
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--in-flight", type=int, default=2, help="attempts in flight per process")
    parser.add_argument("--pg-url", default=os.environ.get("DICODE_BENCH_PG_URL", DEFAULT_PG))
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    rows = []
    for n in args.processes:
        with postgres_schema(args.pg_url) as url, tempfile.TemporaryDirectory() as logs:
            print(f"{n} generator process(es), {args.attempts} attempts ...", file=sys.stderr)
            rows.append(measure(url, n, args.attempts, args.in_flight, Path(logs)))
    print(f"\n{'N':>3}{'attempts/min':>14}{'accepted':>10}{'parent full':>13}"
          f"{'lost':>6}{'dup. levels':>13}{'strict past limit':>19}")
    for r in rows:
        print(
            f"{r['processes']:>3}{r['attempts_per_minute'] or 0:>14.1f}{r['accepted']:>10}"
            f"{r['parent_full']:>13}{r['lost_attempts']:>6}{r['duplicate_content_hashes']:>13}"
            f"{r['strict_children_past_limit']:>19}"
        )
    sound = all(
        r["lost_attempts"] == 0
        and r["duplicate_content_hashes"] == 0
        and r["strict_children_past_limit"] == 0
        and r["seed_attempts"] == len(domains.get("tetris").seed_sources())
        for r in rows
    )
    path = write_figures(
        "generators_scale",
        {
            "attempts_per_n": args.attempts,
            "in_flight_per_process": args.in_flight,
            "teacher": "mutation",
            "backend": "postgresql",
            "invariants_hold": sound,
            **load_averages(load_before),
            "runs": rows,
        },
    )
    print(f"invariants {'hold' if sound else 'BROKEN'}; figures in {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
