"""`dicode student ...`: train the PPO student on the target game and save its curve."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated

import typer

from dicode.settings import parse_overrides
from dicode.student.tetris.config import PPOConfig

app = typer.Typer(no_args_is_help=True, help="The PPO student (target-only training).")


@app.command("train")
def train_command(
    steps: Annotated[int, typer.Option(help="environment steps (pieces) to train for")] = 200_000,
    out: Annotated[Path, typer.Option(help="folder for curve.csv/.png, checkpoint")] = Path(
        "runs/student"
    ),
    seed: Annotated[int, typer.Option(help="training seed (never an evaluation seed)")] = 0,
    eval_every: Annotated[int, typer.Option(help="evaluate the greedy policy every N steps")] = (
        50_000
    ),
    set_: Annotated[
        list[str] | None, typer.Option("--set", help="config override KEY=JSON, repeatable")
    ] = None,
    resume: Annotated[bool, typer.Option(help="continue from OUT/checkpoint.msgpack")] = False,
    anneal: Annotated[
        bool, typer.Option(help="decay the step size linearly to 0 over STEPS")
    ] = False,
) -> None:
    """Target-only PPO; evaluation on the target protocol (20 games, 1,000-piece cap)."""
    from dicode.student.loop import StudentLoop, train, write_curve
    from dicode.student.tetris.trainer import TetrisSlotTrainer

    try:
        config = PPOConfig(seed=seed, **parse_overrides(PPOConfig, set_))
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--set") from None
    if anneal:
        config = config.annealed_over(steps)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(config.to_dict(), indent=2))
    loop = StudentLoop(TetrisSlotTrainer(config))
    checkpoint = out / "checkpoint.msgpack"
    if resume and checkpoint.exists():
        loop.load(checkpoint)
    started = time.perf_counter()
    curve = train(loop, steps, eval_every_steps=eval_every, checkpoint=checkpoint)
    # A resumed run rewrites the curve from its resume point on.
    write_curve(curve, out / "curve.csv", out / "curve.png", headline="mean_lines")
    last = curve[-1]
    typer.echo(
        f"{last.env_steps} steps, {last.train_seconds:.0f} s training "
        f"({time.perf_counter() - started:.0f} s wall incl. compile/eval): "
        f"target lines {last.target['mean_lines']:.1f} ± {last.target['std_lines']:.1f}"
    )
