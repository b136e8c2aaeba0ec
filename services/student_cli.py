"""``dicode train`` and ``dicode eval``: a world's student on its target game alone (the
target-only baseline), and a saved student measured by the world's target protocol.

The same flags for every world. The student's configuration is the world's defaults with
``--set KEY=JSON`` overrides (``Domain.ppo_config``); the protocol's games and step cap are the
world's (``Domain.target_evaluation``) unless given. A training folder holds ``config.json``,
``curve.csv``, ``curve.png`` (the headline figure), ``checkpoint.msgpack`` and TensorBoard's
event files in ``tensorboard/``; on a terminal a progress bar counts the env steps. ``eval``
reads the student's configuration from the ``config.json`` beside the checkpoint. Training and
evaluation import JAX (and Craftax, ~20 s) when they run, so ``--help`` stays fast.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from dicode.domains.base import Domain
from dicode.settings import EvaluatorSettings, StudentSettings, parse_overrides
from services.domain_option import EXIT_USAGE, DomainOption, resolve_world
from services.progress import step_progress

if TYPE_CHECKING:
    from dicode.student.loop import CurvePoint, StudentLoop
    from dicode.student.run_log import RunLog

CONFIG_FILE, CHECKPOINT_FILE, CURVE_FILE = "config.json", "checkpoint.msgpack", "curve.csv"
TENSORBOARD_DIR = "tensorboard"

console = Console()

GamesOption = Annotated[
    int | None,
    typer.Option(
        min=1, help="target-protocol games (maze: episodes per maze; default: the world's)"
    ),
]
MaxStepsOption = Annotated[
    int | None,
    typer.Option(min=1, help="step cap per game (Tetris: pieces; default: the world's protocol)"),
]


def student_config(
    world: Domain, steps: int, seed: int, overrides: list[str] | None, anneal: bool
) -> Any:
    """The world's student configuration: its defaults, ``--set`` overrides and the seed.
    Whenever the step size anneals (``--anneal``, or the world's default, as Craftax's), the
    schedule spans ``steps`` unless ``num_iterations`` is set. A bad key or value is a
    ``typer.BadParameter`` that names it."""
    try:
        values = parse_overrides(type(world.ppo_config({})), overrides)
        if anneal:
            values["anneal_lr"] = True
        config = world.ppo_config(values | {"seed": seed})
        if config.anneal_lr and "num_iterations" not in values:
            config = replace(config, num_iterations=max(1, math.ceil(steps / config.batch_size)))
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--set") from None
    return config


def protocol_settings(world: Domain, games: int | None, max_steps: int | None) -> EvaluatorSettings:
    """The world's target protocol, with ``games`` and ``max_steps`` where given."""
    default = world.target_evaluation
    return replace(
        default,
        games=default.games if games is None else games,
        max_steps=default.max_steps if max_steps is None else max_steps,
    )


def train_command(
    domain: DomainOption = "tetris",
    steps: Annotated[int, typer.Option(min=1, help="environment steps to train for")] = 1_000_000,
    out: Annotated[
        Path | None,
        typer.Option(help="folder for config.json, curve.csv/.png, checkpoint (runs/<world>)"),
    ] = None,
    seed: Annotated[int, typer.Option(help="training seed (never an evaluation seed)")] = 0,
    eval_every: Annotated[
        int, typer.Option(min=1, help="run the target protocol every N environment steps")
    ] = 100_000,
    eval_games: GamesOption = None,
    eval_max_steps: MaxStepsOption = None,
    set_: Annotated[
        list[str] | None, typer.Option("--set", help="student config override KEY=JSON, repeatable")
    ] = None,
    anneal: Annotated[
        bool, typer.Option(help="decay the step size linearly to 0 over STEPS")
    ] = False,
    resume: Annotated[bool, typer.Option(help="continue from OUT/checkpoint.msgpack")] = False,
    tensorboard: Annotated[
        bool, typer.Option(help="write TensorBoard event files into OUT/tensorboard/")
    ] = True,
) -> None:
    """Train the world's student on its target game alone; the target protocol on a schedule."""
    from dicode.student.loop import StudentLoop, write_curve
    from dicode.student.run_log import TensorBoardLog

    world = resolve_world(domain)
    config = student_config(world, steps, seed, set_, anneal)
    folder = out if out is not None else Path("runs") / world.name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / CONFIG_FILE).write_text(json.dumps(asdict(config), indent=2))
    evaluator = protocol_settings(world, eval_games, eval_max_steps)
    loop = StudentLoop(world.make_trainer(StudentSettings(ppo=config), evaluator))
    checkpoint = folder / CHECKPOINT_FILE
    if resume and checkpoint.exists():
        loop.load(checkpoint)
    started = time.perf_counter()
    run_log = None
    if tensorboard:  # a resumed run continues its log; a new one replaces the folder's
        run_log = TensorBoardLog(folder / TENSORBOARD_DIR, resume_step=loop.env_steps)
    try:
        curve = _train_with_progress(loop, steps, eval_every, checkpoint, run_log, world.name)
    finally:
        if run_log is not None:
            run_log.close()
    headline = world.target_metrics[0]
    # A resumed run rewrites the curve from its resume point on.
    write_curve(curve, folder / CURVE_FILE, folder / "curve.png", headline=headline)
    last = curve[-1]
    typer.echo(
        f"{last.env_steps} steps, {last.train_seconds:.0f} s training "
        f"({time.perf_counter() - started:.0f} s wall incl. compile/eval): "
        f"{world.headline_label} {last.target[headline]:.4g}"
    )


def _train_with_progress(
    loop: StudentLoop,
    steps: int,
    eval_every: int,
    checkpoint: Path,
    run_log: RunLog | None,
    label: str,
) -> list[CurvePoint]:
    """``dicode.student.loop.train`` with a progress bar of env steps (on a terminal only)."""
    from dicode.student.loop import train

    with step_progress() as progress:
        task = progress.add_task(label, total=steps, completed=loop.env_steps)

        def show_steps() -> None:
            # Training ends on the first whole iteration past the budget: the total follows.
            done = loop.env_steps
            progress.update(task, completed=done, total=max(steps, done))

        curve = train(
            loop, steps, eval_every_steps=eval_every, checkpoint=checkpoint,
            before_session=show_steps, run_log=run_log,
        )  # fmt: skip
        show_steps()
    return curve


def eval_command(
    checkpoint: Annotated[
        Path, typer.Option(help="a checkpoint.msgpack of `dicode train` (config.json beside it)")
    ],
    domain: DomainOption = "tetris",
    games: GamesOption = None,
    max_steps: MaxStepsOption = None,
    show_all: Annotated[
        bool, typer.Option("--all", help="list every skill (default: those above 0)")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Measure a saved student with the world's target protocol; print its figures and skills."""
    world = resolve_world(domain)
    config = _stored_config(world, checkpoint)
    protocol = world.make_target_protocol(
        StudentSettings(ppo=config), protocol_settings(world, games, max_steps)
    )
    figures = protocol.measure(protocol.read_params(checkpoint))
    # The numeric figures and the skill profile; other data (e.g. Tetris's start boards) is left
    # out, as in a learning curve's rows.
    numbers = {k: v for k, v in figures.items() if isinstance(v, int | float)}
    skills: dict[str, float] = figures.get("skills", {})
    if as_json:
        typer.echo(json.dumps(numbers | {"skills": skills}))
        return
    print_figures(world, numbers, skills, show_all)


def _stored_config(world: Domain, checkpoint: Path) -> Any:
    """The student configuration saved beside ``checkpoint``; a missing file or one of another
    world exits 2 saying so."""
    try:
        if not checkpoint.is_file():
            raise ValueError(f"no checkpoint at {checkpoint}")
        values = json.loads((checkpoint.parent / CONFIG_FILE).read_text(encoding="utf-8"))
        return world.ppo_config(values)
    except (OSError, ValueError) as exc:
        typer.echo(f"error: {exc} (a {world.name} student's folder from `dicode train`?)", err=True)
        raise typer.Exit(EXIT_USAGE) from None


def print_figures(
    world: Domain, numbers: dict[str, float], skills: dict[str, float], show_all: bool
) -> None:
    """The headline, a table of the protocol's figures, and the skills (those above 0 unless
    ``show_all``)."""
    headline = world.target_metrics[0]
    console.print(f"{world.headline_label}: {numbers[headline]:.4g}")
    table = Table("figure", "value", title=f"{world.name} target protocol")
    for name, value in numbers.items():
        table.add_row(name, f"{value:.4g}")
    console.print(table)
    shown = {name: rate for name, rate in skills.items() if show_all or rate > 0}
    if skills:
        table = Table("skill", "success rate")
        for name, rate in shown.items():
            table.add_row(name, f"{100 * rate:.1f} %")
        console.print(table)
    if len(shown) < len(skills):
        console.print(f"{len(skills) - len(shown)} other skills: 0 %")
