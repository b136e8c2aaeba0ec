"""Keep the model server busy: generated levels per minute against LLM attempts in flight.

An OpenAI-compatible HTTP server (`dicode.testing.fake_openai`, the real wire protocol; its
answers are a seed level's code, so every attempt passes the sandbox) holds each chat call for
a latency drawn from a lognormal (median ``2 s × scale``, σ 0.5). The default scales: 1 (a
model that answers in 2 s, where the sandbox binds first) and 10 (median 20 s: a 7B coder
model on vLLM writing a level's ≈ 800 tokens at ≈ 40 tokens/s per sequence under batching).
The real generator (`Generator.run`, the LLM teacher, the sandbox with engine rollouts, a
SQLite archive) keeps each in-flight count going for a warm-up (two median attempts, not
counted) and then ``--seconds`` counted: levels per minute is the attempts stored inside that
window, so neither the start nor the drain after the stop dilutes the steady state. Printed
beside each: the ideal (in flight / mean attempt latency, an attempt being two model calls),
and the two ceilings that do not depend on the model: the sandbox (validations per minute,
one at a time) and the archive (accepted attempts written per minute). Anchor: at 16 in
flight, >= 90 % of the ideal wherever the ideal is below the sandbox's ceiling.

    PYTHONPATH=. python benchmarks/llm_inflight.py [--in-flight 1 4 16 64] [--scales 1 10]
        [--seconds 180]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, replace
from typing import Any

from archive_db import ArchiveRepository
from archive_db.kinds import SEED_TEACHER
from archive_db.records import NewAttempt, NewLevel, content_hash
from dicode.domains.tetris.seeds import seed_level_sources
from dicode.levels.pipeline import Validator
from dicode.llm.client import ENV_MODEL, ENV_URL
from dicode.provenance import ROOT, write_figures
from dicode.settings import GeneratorSettings, profile
from dicode.testing.fake_openai import FakeOpenAIServer, FakeReply
from services.generator.service import Generator

ANCHOR_IN_FLIGHT = 16
ANCHOR_SHARE = 0.9
MEDIAN_S = 2.0
SIGMA = 0.5
DESCRIPTION = {
    "reasoning": "The student clears the parent often; vary the garbage.",
    "title": "Parent with other garbage",
    "description": "Objective: clear 2 lines within 40 pieces on a board with 3 garbage rows.",
}


class LatencyModel:
    """Answers chat calls like a model server: a description (JSON) or a level's code, after a
    lognormal delay. Thread-safe: the server answers each request on its own thread."""

    def __init__(self, scale: float, seed: int) -> None:
        self.median_s = MEDIAN_S * scale
        self._rng = random.Random(seed)
        self._codes = list(seed_level_sources().values())
        self._lock = threading.Lock()
        self.delays: list[float] = []

    def __call__(self, body: dict[str, Any]) -> FakeReply:
        with self._lock:
            delay = self.median_s * self._rng.lognormvariate(0.0, SIGMA)
            code = self._rng.choice(self._codes)
            self.delays.append(delay)
        if body.get("response_format") is not None:
            return FakeReply(content=json.dumps(DESCRIPTION), delay_s=delay)
        return FakeReply(content=f"<code>\n{code}</code>", delay_s=delay)


def generator_settings(in_flight: int) -> GeneratorSettings:
    """The ``llm`` profile's generator with ``in_flight`` and no back-pressure (no student)."""
    return replace(profile("llm").generator, in_flight=in_flight, max_untrained=10**6)


@dataclass(frozen=True)
class Window:
    warm_s: float  # run, not counted: the first attempts have not come back yet
    seconds: float  # counted


def measure_in_flight(
    url: str, validator: Validator, in_flight: int, window: Window, model: LatencyModel
) -> dict[str, Any]:
    """Levels per minute in the steady state: the generator keeps ``in_flight`` attempts going
    for ``warm_s + seconds``; only the attempts stored in the last ``seconds`` count (neither
    the start, when no attempt has come back yet, nor the drain after the stop)."""
    repo = ArchiveRepository.open(url)
    run = repo.create_run(f"inflight-{in_flight}", domain="tetris", seed=0)
    generator = Generator(
        repo, run.id, generator_settings(in_flight), validator=validator, seed=0
    )
    generator.seed_archive()  # untimed: the seeds are validated once per archive
    drawn = len(model.delays)

    async def generate() -> float:
        stop = asyncio.Event()
        asyncio.get_running_loop().call_later(window.warm_s + window.seconds, stop.set)
        started = time.time()
        await generator.run(stop)
        return started

    started = asyncio.run(generate())
    delays = model.delays[drawn:]
    first = started + window.warm_s
    generated = [a for a in repo.list_attempts(run.id) if a.teacher != SEED_TEACHER]
    inside = [a for a in generated if first <= a.created_at.timestamp() < first + window.seconds]
    repo.close()
    mean_attempt_s = 2 * sum(delays) / max(len(delays), 1)
    accepted = sum(a.verdict == "accepted" for a in inside)
    return {
        "in_flight": in_flight,
        "attempts": len(generated),
        "counted_attempts": len(inside),
        "accepted": accepted,
        "window_s": window.seconds,
        "levels_per_min": round(60 * accepted / window.seconds, 1),
        "mean_call_latency_s": round(mean_attempt_s / 2, 2),
        "ideal_per_min": round(60 * in_flight / mean_attempt_s, 1),
    }


def sandbox_ceiling(validator: Validator, n: int) -> float:
    """Validations per minute, one at a time (the generator validates one level at a time)."""
    source = next(iter(seed_level_sources().values()))
    validator.validate(source)  # untimed: compiles the rollout
    started = time.perf_counter()
    for _ in range(n):
        validator.validate(source)
    return 60 * n / (time.perf_counter() - started)


def archive_ceiling(url: str, n: int) -> float:
    """Accepted attempts (attempt row + level row with a 4 KiB bundle) written per minute."""
    repo = ArchiveRepository.open(url)
    run = repo.create_run("ceiling", domain="tetris", seed=0).id
    attempt = NewAttempt(teacher="llm", stage_reached="accepted", verdict="accepted")
    bundle = os.urandom(4096)
    started = time.perf_counter()
    for i in range(n):
        level = NewLevel(domain="tetris", content_hash=content_hash(str(i)), teacher="llm",
                         code="# level", bundle=bundle)
        repo.record_attempt(run, attempt, level)
    per_min = 60 * n / (time.perf_counter() - started)
    repo.close()
    return per_min


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--in-flight", type=int, nargs="+", default=[1, 4, 16, 64])
    parser.add_argument(
        "--scales", type=float, nargs="+", default=[1.0, 10.0],
        help="latency scales (1: median 2 s per call)",
    )  # fmt: skip
    parser.add_argument("--seconds", type=float, default=180.0, help="counted window per count")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    load_before = os.getloadavg()[0]
    settings = generator_settings(1)
    with (
        FakeOpenAIServer(model="latency-model") as server,
        tempfile.TemporaryDirectory() as tmp,
        Validator(
            pool_size=settings.pool_size, warm=1, rollout_steps=settings.rollout_steps
        ) as validator,
    ):
        os.environ[ENV_URL], os.environ[ENV_MODEL] = server.base_url, server.model
        sandbox_per_min = sandbox_ceiling(validator, 20)
        archive_per_min = archive_ceiling(f"sqlite:///{tmp}/ceiling.sqlite", 200)
        print(f"ceilings: sandbox {sandbox_per_min:.0f}/min, archive {archive_per_min:.0f}/min",
              file=sys.stderr)
        rows = []
        for scale in args.scales:
            model = LatencyModel(scale, args.seed)
            server.set_responder(model)
            # Two median attempts (two calls each) before counting: the first have come back.
            window = Window(warm_s=4 * MEDIAN_S * scale, seconds=args.seconds)
            for k in args.in_flight:
                url = f"sqlite:///{tmp}/inflight-{scale:g}-{k}.sqlite"
                row = measure_in_flight(url, validator, k, window, model)
                rows.append({"median_call_s": MEDIAN_S * scale, "warm_s": window.warm_s} | row)
                print(f"  {rows[-1]}", file=sys.stderr)
        server_peak = server.max_in_flight

    print(f"\nlevels per minute, model latency lognormal(σ {SIGMA}); ceilings: sandbox "
          f"{sandbox_per_min:.0f}/min, archive {archive_per_min:.0f}/min")
    print(f"{'median call':>12}{'in flight':>10}{'levels/min':>12}{'ideal':>9}{'share':>8}   bound")
    for r in rows:
        r["share_of_ideal"] = round(r["levels_per_min"] / r["ideal_per_min"], 3)
        r["sandbox_bound"] = r["ideal_per_min"] > sandbox_per_min
        bound = "sandbox" if r["sandbox_bound"] else "model"
        print(f"{r['median_call_s']:>11g}s{r['in_flight']:>10}{r['levels_per_min']:>12.1f}"
              f"{r['ideal_per_min']:>9.1f}{r['share_of_ideal']:>8.2f}   {bound}")
    judged = [r for r in rows if r["in_flight"] == ANCHOR_IN_FLIGHT and not r["sandbox_bound"]]
    met = all(r["share_of_ideal"] >= ANCHOR_SHARE for r in judged) if judged else None
    path = write_figures(
        "llm_inflight",
        {
            "latency": {
                "distribution": "lognormal",
                "median_s": [MEDIAN_S * k for k in args.scales],
                "sigma": SIGMA,
                "calls_per_attempt": 2,
            },
            "window_s": args.seconds,
            "sandbox_ceiling_per_min": round(sandbox_per_min, 1),
            "archive_ceiling_per_min": round(archive_per_min, 1),
            "server_peak_in_flight": server_peak,
            "anchor": f">= {ANCHOR_SHARE:.0%} of ideal at {ANCHOR_IN_FLIGHT} in flight "
            "where the sandbox is not the bound",
            "anchor_met": met,
            "load_average_before": round(load_before, 2),
            "load_average_after": round(os.getloadavg()[0], 2),
            "rows": rows,
        },
    )
    verdict = {True: "met", False: "MISSED", None: "not applicable (sandbox-bound or not run)"}
    print(f"anchor {verdict[met]}; figures in {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
