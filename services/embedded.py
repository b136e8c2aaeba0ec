"""`dicode run`: the whole loop on one machine — local Ray, SQLite archive, student, evaluator,
generator and API — with a live terminal view and a clean shutdown.

The archive lives at ``runs/<name>/archive.sqlite``; checkpoints under ``runs/<name>/``. The
run's settings (the profile) are stored with the run; ``resume`` reopens an existing run, the
student continuing from its newest checkpoint and the generator from the archive.
"""

from __future__ import annotations

import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ray
import uvicorn
from rich.console import Console
from rich.live import Live
from rich.table import Table

from archive_db import ArchiveRepository, default_url
from archive_db.kinds import (
    RUN_STARTED_EVENT,
    RUN_STOPPED_EVENT,
    SEED_TEACHER,
    SESSION_EVENT,
    TARGET_EVENT,
)
from dicode import domains
from dicode.provenance import provenance
from services.api.app import create_app
from services.generator.actor import GeneratorActor
from services.placement import Placement, place
from services.ray_env import start_local_ray
from services.runs import open_service_run
from services.student.actors import EvaluatorActor, StudentActor

REFRESH_S = 2.0
STOP_TIMEOUT_S = 180.0


@dataclass(frozen=True)
class RunOptions:
    name: str
    profile: str = "quick"
    domain: str = "tetris"
    resume: bool = False
    runs_dir: Path = Path("runs")
    minutes: float | None = None
    iterations: int | None = None
    seed: int | None = None
    teacher: str | None = None
    host: str = "127.0.0.1"
    port: int = 8000
    dashboard: bool = True
    api_token: str | None = None
    live: bool = True
    # Ray resources per role (services.placement); the one local node is given them all.
    placement: Placement = field(default_factory=Placement)


class RunError(RuntimeError):
    """A run cannot start as asked (e.g. it exists and ``resume`` was not given)."""


def default_run_name(runs_dir: Path, profile: str, resume: bool, domain: str) -> str:
    """A fresh ``<world>-<profile>-YYYYmmdd-HHMMSS``, or with ``resume`` the newest run of the
    world's profile."""
    prefix = f"{domain}-{profile}"
    if not resume:
        return f"{prefix}-{time.strftime('%Y%m%d-%H%M%S')}"
    runs = sorted(
        (p for p in runs_dir.glob(f"{prefix}-*") if (p / "archive.sqlite").is_file()),
        key=lambda p: (p / "archive.sqlite").stat().st_mtime,
    )
    if not runs:
        raise RunError(f"no {prefix!r} run under {runs_dir} to resume")
    return runs[-1].name


def run_embedded(options: RunOptions, console: Console | None = None) -> dict[str, Any]:
    """Run until the bound is reached or Ctrl-C; returns the final archive summary."""
    console = console or Console()
    run_dir = options.runs_dir / options.name
    db_url = default_url(options.name, options.runs_dir)
    exists = (run_dir / "archive.sqlite").is_file()
    if exists and not options.resume:
        raise RunError(f"run {options.name!r} exists in {run_dir}: pass --resume or another --name")
    if options.resume and not exists:
        raise RunError(f"nothing to resume: no archive at {run_dir / 'archive.sqlite'}")
    run_dir.mkdir(parents=True, exist_ok=True)
    repo = ArchiveRepository.open(db_url)
    run, settings = open_service_run(
        repo,
        options.name,
        options.profile,
        domain=options.domain,
        seed=options.seed,
        teacher=options.teacher,
    )
    repo.runs.set_status(run.id, "running")
    repo.events.add(
        RUN_STARTED_EVENT,
        {"resume": options.resume, "profile": settings.profile, "domain": settings.domain}
        | {"provenance": provenance()},  # commit, numeric stack, threads: what the run ran on
        run_id=run.id,
    )
    config = settings.to_dict()
    started = time.time()

    server = _start_api(db_url, options)
    console.print(f"API on http://{options.host}:{options.port}  (docs: /docs)")
    placement = options.placement
    ray_info = start_local_ray(dashboard=options.dashboard, resources=placement.custom_resources())
    if ray_info["dashboard_url"]:
        console.print(f"Ray dashboard on {ray_info['dashboard_url']}")
    student = place(StudentActor, "student", placement).remote(
        db_url, run.id, str(run_dir), config, options.resume
    )
    evaluator = place(EvaluatorActor, "evaluator", placement).remote(db_url, run.id, config)
    generator = place(GeneratorActor, "generator", placement).remote(db_url, run.id, config)
    deadline = None if options.minutes is None else started + options.minutes * 60
    student_done = student.run.remote(options.iterations, deadline)
    evaluator_done = evaluator.run.remote()
    generator_done = generator.run.remote()
    outcome = "finished"
    _stop_on_signals()
    try:
        _watch(
            repo,
            run.id,
            settings.domain,
            student,
            generator,
            student_done,
            options,
            started,
            console,
        )
    except KeyboardInterrupt:
        outcome = "interrupted"
        console.print("stopping (Ctrl-C): finishing the session and attempts in flight…")
    except Exception:
        outcome = "failed"
        raise
    finally:
        _stop(student, student_done, console, "student")
        _stop(evaluator, evaluator_done, console, "evaluator")
        _stop(generator, generator_done, console, "generator")
        ray.shutdown()
        server.should_exit = True
        repo.runs.set_status(run.id, outcome)
        repo.events.add(
            RUN_STOPPED_EVENT, {"outcome": outcome, "seconds": time.time() - started}, run_id=run.id
        )
    summary = _summary(repo, run.id, settings.domain)
    repo.close()
    return summary


def _stop_on_signals() -> None:
    """Ctrl-C and SIGTERM (docker, kill) both end the run cleanly via KeyboardInterrupt; SIGINT
    is re-armed because a shell starts background jobs with it ignored."""
    if threading.current_thread() is not threading.main_thread():
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, interrupt)


def _start_api(db_url: str, options: RunOptions) -> uvicorn.Server:
    app = create_app(db_url, api_token=options.api_token)
    config = uvicorn.Config(app, host=options.host, port=options.port, log_level="warning")
    server = uvicorn.Server(config)
    threading.Thread(target=server.run, name="api", daemon=True).start()
    return server


def _watch(
    repo: ArchiveRepository,
    run_id: int,
    domain: str,
    student: Any,
    generator: Any,
    student_done: Any,
    options: RunOptions,
    started: float,
    console: Console,
) -> None:
    """Refresh the terminal view until the student's run returns."""
    with Live(console=console, refresh_per_second=1, transient=False) as live:
        while True:
            ready, _ = ray.wait([student_done], timeout=REFRESH_S)
            view = _status(repo, run_id, domain, student, generator, started)
            if options.live:
                live.update(_table(view))
            if ready:
                ray.get(student_done)  # surface a crash of the student
                return


def _status(
    repo: ArchiveRepository,
    run_id: int,
    domain: str,
    student: Any,
    generator: Any,
    started: float,
) -> dict[str, Any]:
    def ask(actor: Any) -> dict[str, Any]:
        try:
            answer: dict[str, Any] = ray.get(actor.status.remote(), timeout=5)
            return answer
        except (ray.exceptions.GetTimeoutError, ray.exceptions.RayActorError):
            return {}

    stats = repo.statistics.counts(run_id).as_dict()
    target = repo.events.listing(run_id=run_id, kind=TARGET_EVENT)
    trained = repo.list_levels(run_id, sampled=True)
    return {
        "trained": len(trained),
        "generated_trained": sum(1 for lvl in trained if lvl.teacher != SEED_TEACHER),
        "domain": domain,
        "elapsed": time.time() - started,
        "student": ask(student),
        "generator": ask(generator),
        "archive": stats,
        "target": [e.payload for e in target],
    }


def _table(view: dict[str, Any]) -> Table:
    s, g, a = view["student"], view["generator"], view["archive"]
    target = view["target"]
    world = domains.get(view["domain"])
    key, label = world.target_metrics[0], world.headline_label
    title = f"dicode run ({view['domain']}) — {view['elapsed'] / 60:.1f} min"
    table = Table(title=title, show_header=False)
    table.add_column(justify="right", style="bold")
    table.add_column()
    table.add_row("iteration", str(s.get("iteration", "compiling…")))
    table.add_row("env steps", f"{s.get('env_steps', 0):,}")
    figures = " → ".join(f"{p[key]:.1f}" for p in target[-6:]) or "not yet evaluated"
    table.add_row(label, figures)
    table.add_row("levels", f"{a['levels']} (accepted {a['accepted']}, rejected {a['rejected']})")
    table.add_row("levels trained", f"{view['trained']} ({view['generated_trained']} generated)")
    table.add_row("edges", str(a["edges"]))
    table.add_row("active set", str(a["active"]))
    table.add_row("status", "  ".join(f"{k}={v}" for k, v in a["by_status"].items()))
    latency = g.get("mean_latency_s")
    table.add_row("teacher latency", "–" if latency is None else f"{latency:.2f} s")
    return table


def _stop(actor: Any, done: Any, console: Console, name: str) -> None:
    try:
        actor.stop.remote()
        ray.get(done, timeout=STOP_TIMEOUT_S)
    except Exception as error:  # report, then carry on shutting the rest down
        console.print(f"[yellow]{name} did not stop cleanly: {type(error).__name__}: {error}")


def _summary(repo: ArchiveRepository, run_id: int, domain: str) -> dict[str, Any]:
    """Archive counts, evaluations, levels trained, slot-sessions by kind (target / new /
    replay), env steps and the target series (its key is the world's headline:
    ``target_mean_lines``, ``target_percent_of_max``)."""
    stats = repo.statistics.counts(run_id).as_dict()
    target = [e.payload for e in repo.events.listing(run_id=run_id, kind=TARGET_EVENT)]
    levels = repo.list_levels(run_id)
    trained = [lvl for lvl in levels if lvl.times_sampled]
    sessions = repo.events.listing(run_id=run_id, kind=SESSION_EVENT)
    key = domains.get(domain).target_metrics[0]
    return stats | {
        "domain": domain,
        "env_steps": sessions[-1].payload["env_steps"] if sessions else 0,
        "evaluations": sum(len(repo.evaluations.history(lvl.id)) for lvl in levels),
        "levels_trained": len(trained),
        "slots": sessions[-1].payload.get("slots", {}) if sessions else {},
        "generated_trained": sum(1 for lvl in trained if lvl.teacher != SEED_TEACHER),
        f"target_{key}": [(p["iteration"], round(p[key], 2)) for p in target],
    }
