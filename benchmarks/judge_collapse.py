"""The field report's collapsed judge, scripted on the fake OpenAI server, through the benchmark.

The scripted judge answers −0.8 mostly and −0.7 sometimes, whatever the board (see
``dicode.testing.judge_responders``); it goes through the real client, prompts and parsing.
Also runs the scripted "good" judge (a crude holes/height/bumpiness value read from the text
boards) for contrast. Prints one JSON report per judge, with the gate's verdict.

    PYTHONPATH=. python benchmarks/judge_collapse.py --states 15
"""

from __future__ import annotations

import argparse
import asyncio
import json

from dicode.judges.benchmark import BenchmarkSettings, benchmark
from dicode.judges.gate import GateThresholds, gate_failures
from dicode.judges.llm_judge import LLMJudge
from dicode.llm.client import LLMClient, LLMConfig
from dicode.testing.fake_openai import FakeOpenAIServer, Responder
from dicode.testing.judge_responders import collapsed_responder, good_responder


async def scripted(responder: Responder, settings: BenchmarkSettings) -> dict[str, object]:
    with FakeOpenAIServer(model="scripted-judge") as server:
        server.set_responder(responder)
        config = LLMConfig(base_url=server.base_url, model=server.model, max_concurrency=8)
        async with LLMClient(config) as client:
            report = await benchmark(LLMJudge(client), settings)
    failures = gate_failures(report, GateThresholds())
    return report.to_dict() | {"gate": {"admitted": not failures, "failures": failures}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=15)
    parser.add_argument("--candidates", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    settings = BenchmarkSettings(states=args.states, seed=args.seed, candidates=args.candidates)
    for name, responder in (("collapsed", collapsed_responder), ("good", good_responder)):
        print(json.dumps({"scripted": name} | asyncio.run(scripted(responder, settings))))


if __name__ == "__main__":
    main()
