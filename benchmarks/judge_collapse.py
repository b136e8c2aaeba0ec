"""The field report's collapsed judge, scripted on the fake OpenAI server, through the benchmark.

The scripted judge answers −0.8 mostly and −0.7 sometimes, whatever the board (see
``tests.support.judge_responders``); it goes through the real client, prompts and parsing.
Also runs the scripted "good" judge (a crude holes/height/bumpiness value read from the text
boards) for contrast. Writes one record per judge, with the gate's verdict, to
``docs/figures/judge_collapse.json`` (``benchmarks/judge_figures.py``) and prints the table
``benchmarks/results_tables.py`` renders from it.

    PYTHONPATH=$PWD python benchmarks/judge_collapse.py --states 15
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from benchmarks.judge_figures import judge_protocol, judge_record, write_judge_figures
from benchmarks.results_tables import judge_table
from benchmarks.run_figures import command_line
from dicode.domains.tetris.judges.benchmark import BenchmarkReport, BenchmarkSettings, benchmark
from dicode.domains.tetris.judges.gate import GateThresholds
from dicode.domains.tetris.judges.llm_judge import LLMJudge
from dicode.llm.client import LLMClient, LLMConfig
from dicode.provenance import provenance
from tests.support.fake_openai import FakeOpenAIServer, Responder
from tests.support.judge_responders import collapsed_responder, good_responder

SCRIPTED = {"collapsed": collapsed_responder, "good": good_responder}


async def scripted(responder: Responder, settings: BenchmarkSettings) -> BenchmarkReport:
    with FakeOpenAIServer(model="scripted-judge") as server:
        server.set_responder(responder)
        config = LLMConfig(base_url=server.base_url, model=server.model, max_concurrency=8)
        async with LLMClient(config) as client:
            return await benchmark(LLMJudge(client), settings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=15)
    parser.add_argument("--candidates", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    settings = BenchmarkSettings(states=args.states, seed=args.seed, candidates=args.candidates)
    thresholds, origin, command = GateThresholds(), provenance(), command_line()
    protocol = judge_protocol(
        settings, thresholds, "Scripted text judges on the fake OpenAI server, through the real "
        "client, prompts and parsing: `collapsed` answers −0.8 mostly and −0.7 sometimes, "
        "whatever the board; `good` scores the board after with a crude holes/height/bumpiness "
        "value read back from the text prompt."
    )  # fmt: skip
    runs: list[dict[str, Any]] = []
    for name, responder in SCRIPTED.items():
        report = asyncio.run(scripted(responder, settings))
        endpoint = {"server": "fake OpenAI", "responder": f"judge_responders.{name}_responder"}
        label = f"{name} (scripted)"
        runs.append(judge_record(label, report, thresholds, command, origin, endpoint))
        path = write_judge_figures("judge_collapse", protocol, runs)
    print("\n".join(judge_table(runs)))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
