"""`dicode tetris …`: what only Tetris has: placement counts, the heuristic players' evaluation,
a rendered game, and the judges of placements (`dicode tetris judge …`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import jax
import jax.numpy as jnp
import numpy as np
import typer
from rich.console import Console
from rich.table import Table

from dicode.domains.tetris import legacy, render
from dicode.domains.tetris.engine import EnvParams
from dicode.domains.tetris.evaluate import DEFAULT_GAMES, DEFAULT_SEED, evaluate, play
from dicode.domains.tetris.judges.cli import judge_app
from dicode.domains.tetris.placements import legal_mask
from dicode.domains.tetris.policies import POLICIES, make_policy
from dicode.domains.tetris.schema import BOARD_HEIGHT, BOARD_WIDTH, PIECE_NAMES

app = typer.Typer(
    no_args_is_help=True, help="The Tetris world: placements, heuristic players, rendering, judges."
)
app.add_typer(judge_app, name="judge")
console = Console()

PolicyOption = Annotated[str, typer.Option("--policy", help=f"One of: {', '.join(POLICIES)}.")]
EvalPolicyOption = Annotated[
    str, typer.Option("--policy", help=f"One of: {', '.join(POLICIES)}, llm (needs --llm-*).")
]


def _check_policy(name: str) -> str:
    if name not in POLICIES:
        raise typer.BadParameter(f"unknown policy {name!r}; choose one of {', '.join(POLICIES)}")
    return name


def _evaluate_llm(
    url: str | None, model: str | None, structured: str, fallback: str, games: int,
    max_pieces: int, seed: int, seven_bag: bool,
) -> dict[str, Any]:  # fmt: skip
    """The protocol with the LLM player (``judges.player``), one model call per move."""
    import asyncio

    from dicode.domains.tetris.judges.player import (
        LLMPlayer,
        PlayerSettings,
        evaluate_player,
        fallback_rule,
    )
    from dicode.domains.tetris.judges.prompts import structured_form
    from dicode.llm.client import LLMClient, LLMConfig

    try:
        form = structured_form(structured)
        rule = fallback_rule(fallback)
        config = LLMConfig.from_env(base_url=url, model=model, seed=seed, max_retries=1)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc

    async def run() -> dict[str, Any]:
        async with LLMClient(config) as client:
            settings = PlayerSettings(structured=form, fallback=rule, seed=seed)
            player = LLMPlayer(client, settings)
            return await evaluate_player(player, games, max_pieces, seed, seven_bag)

    return asyncio.run(run())


def placement_report(width: int = BOARD_WIDTH, height: int = BOARD_HEIGHT) -> dict[str, Any]:
    """Legal placements per piece on an empty board, and what the legacy encoding reaches."""
    empty = jnp.zeros((height, width), jnp.uint8)
    reach = legacy.reachable_placements(width)
    per_piece: dict[str, int] = {}
    reachable = 0
    for p, name in enumerate(PIECE_NAMES):
        mask = np.asarray(legal_mask(empty, jnp.int32(p)))
        per_piece[name] = int(mask.sum())
        reachable += int((mask & reach[p]).sum())
    return {
        "total": sum(per_piece.values()),
        "per_piece": per_piece,
        "legacy": {"reachable": reachable, "missing": legacy.unreachable_placements(width)},
    }


@app.command()
def placements(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Count placements on an empty 10×20 board, and the legacy encoding's coverage."""
    report = placement_report()
    if as_json:
        typer.echo(json.dumps(report))
        return
    table = Table(title=f"Placements on an empty board: {report['total']}")
    table.add_column("piece")
    table.add_column("placements", justify="right")
    for name, count in report["per_piece"].items():
        table.add_row(name, str(count))
    console.print(table)
    missing = report["legacy"]["missing"]
    console.print(
        f"legacy 40-action encoding reaches {report['legacy']['reachable']}; missing: "
        + ", ".join(f"{m['piece']} rot {m['rotation']} col {m['column']}" for m in missing)
    )


@app.command("eval")
def eval_command(
    policy: EvalPolicyOption = "bcts",
    legacy_actions: Annotated[
        bool, typer.Option("--legacy-actions", help="Use the field report's 40-action encoding.")
    ] = False,
    seven_bag: Annotated[bool, typer.Option("--seven-bag", help="7-bag pieces.")] = False,
    games: Annotated[int, typer.Option("--games", min=1)] = DEFAULT_GAMES,
    max_pieces: Annotated[int, typer.Option("--max-pieces", min=1)] = 1_000,
    seed: Annotated[int, typer.Option("--seed")] = DEFAULT_SEED,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    llm_url: Annotated[
        str | None, typer.Option("--llm-url", help="--policy llm: OpenAI-compatible /v1 URL.")
    ] = None,
    llm_model: Annotated[str | None, typer.Option("--llm-model", help="--policy llm.")] = None,
    llm_structured: Annotated[
        str, typer.Option("--llm-structured", help="json_schema, json_object or none.")
    ] = "json_schema",
    llm_fallback: Annotated[
        str,
        typer.Option(
            "--llm-fallback",
            help="--policy llm: the move when an answer is unusable: first_legal (default, "
            "a dumb move, so the score measures the model) or bcts (the BCTS planner's move).",
        ),
    ] = "first_legal",
) -> None:
    """Play the standard game with a policy under the evaluation protocol."""
    if policy == "llm":
        if legacy_actions:
            raise typer.BadParameter("--policy llm chooses among placements; no --legacy-actions")
        result = _evaluate_llm(llm_url, llm_model, llm_structured, llm_fallback, games,
                               max_pieces, seed, seven_bag)  # fmt: skip
    else:
        result = evaluate(_check_policy(policy), games, max_pieces, seed, legacy_actions, seven_bag)
    if as_json:
        typer.echo(json.dumps(result))
        return
    mode = ", legacy actions" if legacy_actions else ""
    # The report's label: for the LLM player it names the fallback rule.
    table = Table(title=f"{result['policy']}{mode}: {games} games, cap {max_pieces:,} pieces")
    table.add_column("metric")
    for column in ("mean", "median", "min", "max"):
        table.add_column(column, justify="right")
    for metric in ("lines", "pieces"):
        values = result[metric]
        table.add_row(metric, *(f"{values[k]:,.1f}" for k in ("mean", "median", "min", "max")))
    console.print(table)
    console.print(
        f"reached the cap: {result['capped']}/{games} · seed {seed} · "
        f"{result['randomiser']} pieces · {result['seconds']:.1f} s"
    )
    if "llm" in result:
        llm = result["llm"]
        errors = ", ".join(f"{kind} {n}" for kind, n in llm["errors"].items()) or "none"
        console.print(
            f"fallback rule: {llm['fallback_rule']} · moves {llm['moves']}: the model decided "
            f"{llm['model_moves']} ({llm['model_share']:.1%}), the {llm['fallback_rule']} "
            f"fallback {llm['fallbacks']} ({llm['fallback_share']:.1%}) · errors: {errors}"
        )


@app.command()
def show(
    policy: PolicyOption = "bcts",
    legacy_actions: Annotated[bool, typer.Option("--legacy-actions")] = False,
    max_pieces: Annotated[int, typer.Option("--max-pieces", min=1)] = 300,
    seed: Annotated[int, typer.Option("--seed")] = DEFAULT_SEED,
    png: Annotated[Path | None, typer.Option("--png", help="Write the final board here.")] = None,
) -> None:
    """Play one game with a policy and render its final board."""
    params = EnvParams(legacy_actions=legacy_actions)
    final = play(make_policy(_check_policy(policy), legacy_actions), params, 1, max_pieces, seed)
    state = jax.tree_util.tree_map(lambda x: x[0], final)
    typer.echo(render.ascii_state(state))
    if png is not None:
        render.save_png(np.asarray(state.board), png)
        typer.echo(f"wrote {png}")
