"""`dicode run`: start the whole loop on this machine."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer

from services.domain_option import DomainOption


def run(
    profile: Annotated[
        str,
        typer.Option(
            help="Preset of the world (an unknown name lists the known ones)."
        ),
    ] = "quick",
    domain: DomainOption = "tetris",
    name: Annotated[
        str | None,
        typer.Option(
            help="Run name (default: <profile>-<date>-<time>, craftax-<profile>-… for "
            "Craftax; with --resume, the newest run of the profile)."
        ),
    ] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue an existing run.")] = False,
    minutes: Annotated[float | None, typer.Option(help="Stop after this many minutes.")] = None,
    iterations: Annotated[int | None, typer.Option(help="Stop at this PPO iteration.")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of a new run.")] = None,
    teacher: Annotated[str | None, typer.Option(help="Override the profile's teacher.")] = None,
    runs_dir: Annotated[Path, typer.Option(help="Folder holding runs/<name>/.")] = Path("runs"),
    host: Annotated[str, typer.Option(help="API host.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="API port.")] = 8000,
    dashboard: Annotated[bool, typer.Option(help="Start Ray's dashboard (:8265).")] = True,
) -> None:
    """Start local Ray, the archive, student, evaluator, generator and API; Ctrl-C stops."""
    from dicode import domains
    from dicode.levels.sandbox import sandbox_problem
    from services.embedded import RunError, RunOptions, default_run_name, run_embedded

    if profile == "quick" and minutes is None and iterations is None:
        minutes = 10.0  # the quick profile is a ~10 minute demonstration
    try:
        world = domains.get(domain)
        domains.profile(world, profile)
    except ValueError as error:  # before anything is created for the run
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from error
    # generated code must never run without its walls
    problem = sandbox_problem(world.builder_module)
    if problem:
        typer.echo(f"error: {problem}", err=True)
        raise typer.Exit(2)
    try:
        name = name or default_run_name(runs_dir, profile, resume, domain)
    except RunError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from error
    options = RunOptions(
        name=name,
        profile=profile,
        domain=domain,
        resume=resume,
        runs_dir=runs_dir,
        minutes=minutes,
        iterations=iterations,
        seed=seed,
        teacher=teacher,
        host=host,
        port=port,
        dashboard=dashboard,
        api_token=os.environ.get("DICODE_API_TOKEN") or None,
    )
    try:
        summary = run_embedded(options)
    except (RunError, ValueError) as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from error
    typer.echo(json.dumps(summary))
