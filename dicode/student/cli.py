"""`dicode student ...`: train the PPO student on the target game and save its curve."""

from __future__ import annotations

import json
import time
from pathlib import Path

import typer

from dicode.student.config import PPOConfig
from dicode.student.train import StudentLoop, train, write_curve

app = typer.Typer(no_args_is_help=True, help="The PPO student (target-only training).")


@app.command("train")
def train_command(
    steps: int = typer.Option(200_000, help="environment steps (pieces) to train for"),
    out: Path = typer.Option(Path("runs/student"), help="folder for curve.csv/.png, checkpoint"),
    seed: int = typer.Option(0, help="training seed (never an evaluation seed)"),
    eval_every: int = typer.Option(50_000, help="evaluate the greedy policy every N steps"),
    set_: list[str] = typer.Option([], "--set", help="config override KEY=JSON, repeatable"),
    resume: bool = typer.Option(False, help="continue from OUT/checkpoint.msgpack"),
) -> None:
    """Target-only PPO; evaluation on the target protocol (20 games, 1,000-piece cap)."""
    overrides = {}
    for item in set_:
        key, _, value = item.partition("=")
        if key not in PPOConfig.__dataclass_fields__:
            raise typer.BadParameter(f"unknown config key {key!r}")
        overrides[key] = json.loads(value)
    config = PPOConfig(seed=seed, **overrides)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(config.to_dict(), indent=2))
    loop = StudentLoop(config)
    checkpoint = out / "checkpoint.msgpack"
    if resume and checkpoint.exists():
        loop.load(checkpoint)
    started = time.perf_counter()
    curve = train(loop, steps, eval_every_steps=eval_every, checkpoint=checkpoint)
    write_curve(curve, out / "curve.csv", out / "curve.png")
    last = curve[-1]
    typer.echo(
        f"{last.env_steps} steps, {last.train_seconds:.0f} s training "
        f"({time.perf_counter() - started:.0f} s wall incl. compile/eval): "
        f"target lines {last.target_lines_mean:.1f} ± {last.target_lines_std:.1f}"
    )
