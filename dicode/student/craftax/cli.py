"""`dicode craftax ...`: train the Craftax student (PPO-RNN or PPO-GTrXL, target only) and
evaluate it."""

from __future__ import annotations

import json
import math
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from dicode.settings import parse_overrides
from dicode.student.craftax.config import (
    EVAL_ENVS,
    EVAL_MAX_STEPS,
    EVAL_SEED,
    STUDENTS,
    CraftaxPPOConfig,
)

if TYPE_CHECKING:
    from dicode.student.craftax.evaluate import EvalResult

# The training and evaluation modules import Craftax (~20 s); commands import them when run,
# so `dicode --help` and the other sub-apps stay fast.

app = typer.Typer(
    no_args_is_help=True, help="The Craftax world: PPO-RNN / PPO-GTrXL student, evaluation."
)
console = Console()

CONFIG_FILE, CHECKPOINT_FILE = "config.json", "checkpoint.msgpack"


def config_for(
    steps: int, seed: int, overrides: list[str] | None, student: str | None = None
) -> CraftaxPPOConfig:
    """Defaults + ``KEY=JSON`` overrides (+ ``student`` if given); unless overridden, the lr
    schedule spans ``steps``."""
    try:
        values = parse_overrides(CraftaxPPOConfig, overrides)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--set") from None
    if student is not None:
        if values.get("student", student) != student:
            raise typer.BadParameter("disagrees with --set student=...", param_hint="--student")
        values["student"] = student
    try:
        config = CraftaxPPOConfig(seed=seed, **values)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--set/--student") from None
    if "num_iterations" not in values:
        config = replace(config, num_iterations=max(1, math.ceil(steps / config.batch_size)))
    return config


@app.command("train")
def train_command(
    steps: Annotated[int, typer.Option(help="environment steps to train for")] = 1_000_000,
    out: Annotated[Path, typer.Option(help="folder for config.json, curve.csv, checkpoint")] = (
        Path("runs/craftax")
    ),
    seed: Annotated[int, typer.Option(help="training seed")] = 0,
    eval_every: Annotated[int, typer.Option(help="evaluate every N env steps")] = 100_000,
    eval_envs: Annotated[int, typer.Option(help="evaluation games")] = EVAL_ENVS,
    eval_max_steps: Annotated[int, typer.Option(help="step cap per evaluation game")] = (
        EVAL_MAX_STEPS
    ),
    set_: Annotated[
        list[str] | None, typer.Option("--set", help="config override KEY=JSON, repeatable")
    ] = None,
    student: Annotated[
        str | None,
        typer.Option(help=f"the memory: {' or '.join(STUDENTS)} (default: the config's, rnn)"),
    ] = None,
    resume: Annotated[bool, typer.Option(help="continue from OUT/checkpoint.msgpack")] = False,
) -> None:
    """Target-only PPO-RNN (or PPO-GTrXL) on Craftax-Symbolic; evaluation on the real game."""
    from dicode.student.craftax.trainer import CraftaxSlotTrainer
    from dicode.student.loop import StudentLoop, train, write_curve

    config = config_for(steps, seed, set_, student)
    out.mkdir(parents=True, exist_ok=True)
    (out / CONFIG_FILE).write_text(json.dumps(config.to_dict(), indent=2))
    loop = StudentLoop(CraftaxSlotTrainer(config, eval_envs, eval_max_steps))
    checkpoint = out / CHECKPOINT_FILE
    if resume and checkpoint.exists():
        loop.load(checkpoint)
    started = time.perf_counter()
    curve = train(loop, steps, eval_every_steps=eval_every, checkpoint=checkpoint)
    # A resumed run rewrites the curve from its resume point on.
    write_curve(curve, out / "curve.csv")
    last, figures = curve[-1], curve[-1].target
    typer.echo(
        f"{last.env_steps} steps, {last.train_seconds:.0f} s training "
        f"({time.perf_counter() - started:.0f} s wall incl. compile/eval): "
        f"{figures['percent_of_max']:.2f} % of max (return {figures['mean_return']:.2f} ± "
        f"{figures['std_return']:.2f})"
    )


@app.command("eval")
def eval_command(
    checkpoint: Annotated[Path, typer.Option(help="a checkpoint.msgpack from `craftax train`")],
    envs: Annotated[int, typer.Option(help="evaluation games")] = EVAL_ENVS,
    max_steps: Annotated[int, typer.Option(help="step cap per game")] = EVAL_MAX_STEPS,
    seed: Annotated[int, typer.Option(help="evaluation key")] = EVAL_SEED,
    greedy: Annotated[bool, typer.Option(help="argmax actions instead of sampling")] = False,
    show_all: Annotated[bool, typer.Option("--all", help="list all 67 achievements")] = False,
) -> None:
    """Play the real Craftax game with a trained policy; print return, % of max, achievements."""
    from dicode.student.checkpoint import load_checkpoint
    from dicode.student.craftax.evaluate import CraftaxEvaluator
    from dicode.student.craftax.ppo import Trainer
    from dicode.student.craftax.trainer import checkpoint_template

    config = CraftaxPPOConfig(**json.loads((checkpoint.parent / CONFIG_FILE).read_text()))
    ppo = Trainer(config)
    state, _ = load_checkpoint(checkpoint, checkpoint_template(ppo, config.seed))
    evaluator = CraftaxEvaluator(ppo.network, envs, max_steps, seed, greedy)
    print_result(evaluator(state.train.params), show_all)


def print_result(result: EvalResult, show_all: bool = False) -> None:
    """Summary line and a per-achievement success table."""
    console.print(
        f"{len(result.returns)} games: return {result.mean_return:.2f} ± {result.std_return:.2f}"
        f", {result.percent_of_max:.2f} % of max (226); length {result.lengths.mean():.0f}; "
        f"{int(result.finished.sum())} ended before the cap"
    )
    table = Table("achievement", "success rate")
    rates = result.success_rates
    shown = [(n, r) for n, r in rates.items() if show_all or r > 0]
    for name, rate in shown:
        table.add_row(name, f"{100 * rate:.1f} %")
    console.print(table)
    if not show_all:
        console.print(f"{len(rates) - len(shown)} other achievements: 0 %")
