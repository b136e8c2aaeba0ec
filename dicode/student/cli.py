"""`dicode student ...`: train the PPO student on the target game and save its curve."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer

from dicode.student.config import PPOConfig
from dicode.student.train import CurvePoint, StudentLoop, read_curve, train, write_curve

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
    overrides: dict[str, Any] = {}
    for item in set_ or []:
        key, _, value = item.partition("=")
        if key not in PPOConfig.__dataclass_fields__:
            raise typer.BadParameter(f"unknown config key {key!r}")
        overrides[key] = json.loads(value)
    config = PPOConfig(seed=seed, **overrides)
    if anneal:
        config = config.annealed_over(steps)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(config.to_dict(), indent=2))
    loop = StudentLoop(config)
    checkpoint = out / "checkpoint.msgpack"
    earlier: list[CurvePoint] = []
    if resume and checkpoint.exists():
        loop.load(checkpoint)
        if (out / "curve.csv").exists():
            earlier = [p for p in read_curve(out / "curve.csv") if p.iteration < loop.iteration]
    started = time.perf_counter()
    curve = train(loop, steps, eval_every_steps=eval_every, checkpoint=checkpoint)
    if earlier:  # continue the curve: training time adds up across resumes
        offset = max(p.train_seconds for p in earlier)
        curve = earlier + [replace(p, train_seconds=p.train_seconds + offset) for p in curve]
    write_curve(curve, out / "curve.csv", out / "curve.png")
    last = curve[-1]
    typer.echo(
        f"{last.env_steps} steps, {last.train_seconds:.0f} s training "
        f"({time.perf_counter() - started:.0f} s wall incl. compile/eval): "
        f"target lines {last.target_lines_mean:.1f} ± {last.target_lines_std:.1f}"
    )
