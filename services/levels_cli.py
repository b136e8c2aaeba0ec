"""``dicode levels``: validate a level file, or show instances of its pool.

Exit codes of ``validate``: 0 accepted, 1 rejected, 2 bad usage (unknown domain, missing file)
or a sandbox that cannot put up its walls on this host (the message says why and how to fix it;
the level did not run).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer

from dicode.levels.pipeline import Validator
from dicode.levels.verdict import SANDBOX_UNAVAILABLE, Verdict
from services.domain_option import DomainOption, resolve_world

app = typer.Typer(no_args_is_help=True, help="Validate and inspect levels written as code.")

EXIT_ACCEPTED, EXIT_REJECTED, EXIT_USAGE = 0, 1, 2


def _read_source(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        typer.echo(f"error: cannot read {path}: {exc}", err=True)
        raise typer.Exit(EXIT_USAGE) from None


def _exit_if_unavailable(verdict: Verdict) -> None:
    """Exit 2 with the reason and the fix when the sandbox refused to run the level."""
    if verdict.stage == SANDBOX_UNAVAILABLE:
        typer.echo(f"error: {verdict.error}", err=True)
        raise typer.Exit(EXIT_USAGE)


def _enable_compile_cache() -> None:
    """Keep compiled rollout functions on disk: a later run skips most of the ~30 s compile."""
    import jax

    default = Path.home() / ".cache" / "dicode" / "jax"
    jax.config.update("jax_compilation_cache_dir", os.environ.get("DICODE_JAX_CACHE", str(default)))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 1.0)


@app.command()
def validate(
    file: Annotated[Path, typer.Argument(help="Level source file (.py).")],
    domain: DomainOption = "tetris",
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdict as JSON.")] = False,
    pool_size: Annotated[int, typer.Option(min=1, max=1024, help="Instances to build.")] = 32,
    seed: Annotated[int, typer.Option(help="Seed for instances and rollouts.")] = 0,
    rollout_steps: Annotated[int, typer.Option(min=1, help="Steps per rollout game.")] = 300,
) -> None:
    """Run the validation pipeline on FILE and print the verdict."""
    world = resolve_world(domain)
    source = _read_source(file)
    _enable_compile_cache()
    with Validator(world, pool_size=pool_size, warm=1, rollout_steps=rollout_steps) as validator:
        verdict = validator.validate(source, seed=seed)
    if as_json:
        typer.echo(json.dumps(verdict.summary(), indent=2, sort_keys=True))
    elif verdict.stage != SANDBOX_UNAVAILABLE:
        status = "ACCEPTED" if verdict.accepted else f"REJECTED at {verdict.stage}"
        typer.echo(f"{file}: {status}")
        if verdict.error:
            typer.echo(f"  error: {verdict.error}")
        for warning in verdict.warnings:
            typer.echo(f"  warning: {warning}")
        typer.echo("  timings: " + ", ".join(f"{k} {v:.3f}s" for k, v in verdict.timings.items()))
        if verdict.difficulty:
            typer.echo(
                "  difficulty: " + ", ".join(f"{k} {v:g}" for k, v in verdict.difficulty.items())
            )
    _exit_if_unavailable(verdict)
    raise typer.Exit(EXIT_ACCEPTED if verdict.accepted else EXIT_REJECTED)


@app.command()
def show(
    file: Annotated[Path, typer.Argument(help="Level source file (.py).")],
    domain: DomainOption = "tetris",
    instances: Annotated[int, typer.Option(min=1, max=32, help="How many to render.")] = 3,
    seed: Annotated[int, typer.Option(help="Seed for the instances.")] = 0,
    png: Annotated[Path | None, typer.Option(help="Also write the instances as a PNG.")] = None,
) -> None:
    """Build FILE's pool in the sandbox and render a few instances (text, optionally PNG):
    each world draws its own (``Domain.render_text``/``render_image``)."""
    from dicode.levels.render import render_instances_png, render_instances_text

    world = resolve_world(domain)
    source = _read_source(file)
    with Validator(world, pool_size=instances, warm=1, rollouts=False) as validator:
        verdict = validator.validate(source, seed=seed)
    _exit_if_unavailable(verdict)
    if verdict.bundle is None:
        typer.echo(f"{file}: REJECTED at {verdict.stage}: {verdict.error}", err=True)
        raise typer.Exit(EXIT_REJECTED)
    typer.echo(render_instances_text(world, verdict.bundle))
    if png is not None:
        render_instances_png(world, verdict.bundle, png)
        typer.echo(f"wrote {png}")
