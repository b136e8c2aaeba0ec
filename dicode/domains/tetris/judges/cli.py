"""`dicode tetris judge …`: a judge's discrimination benchmark, and the shaping gate's verdict."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from dicode.domains.tetris.judges.base import Judge
from dicode.domains.tetris.judges.benchmark import (
    BenchmarkReport,
    BenchmarkSettings,
    Mode,
    benchmark,
)
from dicode.domains.tetris.judges.gate import GateThresholds, gate_failures
from dicode.domains.tetris.judges.llm_judge import LLMJudge
from dicode.domains.tetris.judges.prompts import View, structured_form
from dicode.domains.tetris.judges.reference import ConstantJudge, HeuristicJudge, RandomJudge
from dicode.llm.client import LLMClient, LLMConfig
from dicode.llm.structured import STRUCTURED_FORMS
from dicode.llm.structured import StructuredOutput as Structured

JUDGES = ("heuristic", "constant", "random", "text", "image")

judge_app = typer.Typer(no_args_is_help=True, help="Judges of Tetris placements: benchmark, gate.")
console = Console()


def make_judge(name: str, seed: int, client: LLMClient | None, structured: Structured) -> Judge:
    """A judge by name; ``text`` and ``image`` need an LLM client."""
    if name == "heuristic":
        return HeuristicJudge()
    if name == "constant":
        return ConstantJudge()
    if name == "random":
        return RandomJudge(seed)
    if name in ("text", "image"):
        if client is None:
            raise ValueError(f"judge {name!r} needs an LLM endpoint (--llm-url, --llm-model)")
        view: View = "text" if name == "text" else "image"
        return LLMJudge(client, view=view, structured=structured, seed=seed)
    raise ValueError(f"unknown judge {name!r}; choose one of {', '.join(JUDGES)}")


async def run_eval(
    judge_name: str, settings: BenchmarkSettings, config: LLMConfig | None, structured: Structured
) -> BenchmarkReport:
    """Benchmark one judge (the LLM client lives inside this event loop)."""
    client = LLMClient(config) if config is not None else None
    try:
        judge = make_judge(judge_name, settings.seed, client, structured)
        return await benchmark(judge, settings)
    finally:
        if client is not None:
            await client.aclose()


def _print_report(report: BenchmarkReport) -> None:
    table = Table(title=f"judge {report.judge}: {report.states} states, {report.settings['mode']}")
    table.add_column("metric")
    table.add_column("value", justify="right")
    bw = report.best_vs_worst
    rows: list[tuple[str, Any]] = [
        ("pairwise accuracy (ties = ½)", f"{report.pairwise_accuracy:.3f}"),
        ("strict accuracy", f"{report.strict_accuracy:.3f}"),
        ("tie rate", f"{report.tie_rate:.3f}"),
        ("error rate", f"{report.error_rate:.3f}"),
        ("best vs worst (better/tie/worse/error)",
         f"{bw['correct']}/{bw['tie']}/{bw['wrong']}/{bw['error']}"),
    ]  # fmt: skip
    if report.kendall_tau is not None and report.score is not None:
        rows += [
            ("Kendall τ-b (mean per state)", f"{report.kendall_tau:.3f}"),
            ("top-1 agreement", f"{report.top1_agreement:.3f}"),
            ("score mean ± std", f"{report.score['mean']:.3f} ± {report.score['std']:.3f}"),
            ("distinct scores / entropy (bits)",
             f"{report.score['distinct']} / {report.score['entropy_bits']:.2f}"),
        ]  # fmt: skip
    if report.swap_consistency is not None:
        rows += [
            ("swap consistency", f"{report.swap_consistency:.3f}"),
            ("first-position picks", f"{report.first_position_rate:.3f}"),
        ]
    rows.append(("calls / mean latency", f"{report.calls} / {report.mean_latency_s:.2f} s"))
    for name, value in rows:
        table.add_row(name, str(value))
    console.print(table)
    for example in report.error_examples:
        console.print(f"[yellow]error[/yellow] {example}")


@judge_app.command("eval")
def eval_command(
    judge: Annotated[str, typer.Option("--judge", help=f"One of: {', '.join(JUDGES)}.")] = (
        "heuristic"
    ),
    mode: Annotated[str, typer.Option("--mode", help="absolute or pairwise.")] = "absolute",
    states: Annotated[int, typer.Option("--states", min=1)] = 15,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    candidates: Annotated[
        int | None, typer.Option("--candidates", min=2, help="Outcomes per state (default all).")
    ] = None,
    separation: Annotated[float, typer.Option("--separation", min=0.0)] = 50.0,
    extra_pairs: Annotated[int, typer.Option("--extra-pairs", min=0)] = 0,
    llm_url: Annotated[str | None, typer.Option("--llm-url", help="OpenAI-compatible /v1.")] = None,
    llm_model: Annotated[str | None, typer.Option("--llm-model")] = None,
    structured: Annotated[
        str, typer.Option("--structured", help=f"One of: {', '.join(STRUCTURED_FORMS)}.")
    ] = "json_schema",
    timeout: Annotated[float, typer.Option("--timeout", min=0.1, help="Per call, s.")] = 60.0,
    concurrency: Annotated[int, typer.Option("--concurrency", min=1)] = 4,
    gate: Annotated[bool, typer.Option("--gate", help="Exit 2 if the gate refuses.")] = False,
    min_accuracy: Annotated[float, typer.Option("--min-accuracy")] = 0.8,
    max_tie_rate: Annotated[float, typer.Option("--max-tie-rate")] = 0.2,
    out: Annotated[Path | None, typer.Option("--out", help="Write the report JSON here.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Benchmark a judge's discrimination on seeded mid-game states."""
    if judge not in JUDGES:
        raise typer.BadParameter(f"unknown judge {judge!r}; choose one of {', '.join(JUDGES)}")
    if mode not in ("absolute", "pairwise"):
        raise typer.BadParameter(f"--mode must be absolute or pairwise, got {mode!r}")
    try:
        form = structured_form(structured)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc
    config = None
    if judge in ("text", "image"):
        try:
            config = LLMConfig.from_env(
                base_url=llm_url,
                model=llm_model,
                timeout_s=timeout,
                max_concurrency=concurrency,
                max_retries=1,
                seed=seed,
            )
        except ValueError as exc:  # fmt: skip
            raise typer.BadParameter(str(exc)) from exc
    mode_value: Mode = "absolute" if mode == "absolute" else "pairwise"
    settings = BenchmarkSettings(states=states, seed=seed, mode=mode_value, candidates=candidates,
                                 separation=separation, extra_pairs=extra_pairs)  # fmt: skip
    report = asyncio.run(run_eval(judge, settings, config, form))
    thresholds = GateThresholds(min_pairwise_accuracy=min_accuracy, max_tie_rate=max_tie_rate)
    failures = gate_failures(report, thresholds)
    payload = report.to_dict() | {"gate": {"admitted": not failures, "failures": failures}}
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(payload, indent=2))
    if as_json:
        typer.echo(json.dumps(payload))
    else:
        _print_report(report)
        verdict = "admitted" if not failures else "refused: " + "; ".join(failures)
        console.print(f"gate (accuracy ≥ {min_accuracy}, tie rate ≤ {max_tie_rate}): {verdict}")
    if gate and failures:
        raise typer.Exit(2)
