"""benchmarks/jaxued_anchor.py on a fake JaxUED example: a real child process that imports the
wandb stand-in and logs updates at known times (no jaxued, no jax: a stub jax module checks
that the runner sets ``jax.tree_map`` before the example runs)."""

from __future__ import annotations

import json
import os
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from benchmarks.jaxued_anchor import THREAD_FLAGS, child_cpu_s, measure_jaxued, summarize

STUB_JAX = """
class tree_util:
    @staticmethod
    def tree_map(f, *trees):
        return f(*trees)
"""

# Logs at launch + START + i × GAP (absolute times, so sleeps do not drift), UPDATES per log.
FAKE_EXAMPLE = """
import argparse, os, sys, time
import jax
import wandb

assert jax.tree_map is jax.tree_util.tree_map, "runner did not patch jax.tree_map"
parser = argparse.ArgumentParser()
parser.add_argument("--eval_freq", type=int, default=250)
parser.add_argument("--checkpoint_save_interval", type=int, default=2)
parser.add_argument("--replay_prob", type=float, default=0.8)
parser.add_argument("--exploratory_grad_updates", action="store_true")
parser.add_argument("--num_train_envs", type=int, default=4)
parser.add_argument("--num_steps", type=int, default=8)
parser.add_argument("--level_buffer_capacity", type=int, default=100)
parser.add_argument("--minimum_fill_ratio", type=float, default=0.5)
args = parser.parse_args()
wandb.init(config=vars(args), project="FAKE")
config = wandb.config
wandb.define_metric("num_updates")
launched = float(os.environ["FAKE_LAUNCHED"])
mode = os.environ.get("FAKE_MODE", "ok")
print("WARNING:jax._src.dispatch:Finished XLA compilation of jit(train_and_eval_step)"
      " in 1.25 sec", file=sys.stderr)
print("WARNING:jax._src.dispatch:Finished jaxpr to MLIR module conversion jit(train_and_eval_step)"
      " in 0.5 sec")
print("WARNING:jax._src.dispatch:Finished XLA compilation of jit(iota) in 0.25 sec")
if mode == "crash":
    raise RuntimeError("fake example failed on purpose")
for i in range(int(os.environ.get("FAKE_LOGS", "5"))):
    time.sleep(max(0.0, launched + START + i * GAP - time.time()))
    updates = (i + 1) * config["eval_freq"]
    wandb.log({
        "num_updates": updates,
        "num_env_steps": updates * config["num_train_envs"] * config["num_steps"],
        "sps": 1e9,
        "level_sampler/size": min(100, 20 * (i + 1)),
        "images/x": wandb.Image([[0]], caption="ignored"),
        "animations/y": wandb.Video([[0]], fps=4),
        "images/list": [wandb.Image([[0]])],
    })
    print(f"Logging update: {updates}")
if mode == "hang":
    time.sleep(60)
wandb.finish()
"""
START, GAP = 0.6, 0.3


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    stub = tmp_path / "stub"
    (stub / "jax").mkdir(parents=True)
    (stub / "jax" / "__init__.py").write_text(STUB_JAX)
    monkeypatch.setenv("PYTHONPATH", str(stub))
    example = tmp_path / "maze_plr.py"
    example.write_text(f"START, GAP = {START}, {GAP}\n" + textwrap.dedent(FAKE_EXAMPLE))
    return example


def run(example: Path, monkeypatch: pytest.MonkeyPatch, method: str = "dr", **env: str) -> dict:
    seconds = float(env.pop("SECONDS", "30"))
    cpus = env.pop("CPUS", None)
    monkeypatch.setenv("FAKE_LAUNCHED", repr(time.time()))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    result = measure_jaxued(Path(sys.executable), example, method, seconds, cpus=cpus)
    json.dumps(result)  # flat and JSON-able
    return result


def test_dr_rate_between_logs(fake: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = run(fake, monkeypatch)
    assert "error" not in result, result
    assert result["logs"] == 5 and result["stopped_by"] == "exit" and result["returncode"] == 0
    assert result["steps_per_update"] == 4 * 8
    # 25 updates × 32 steps every GAP s; sleeps only overshoot, so allow some slack
    expected = 25 * 32 / GAP
    assert 0.7 * expected < result["steps_per_s"] < 1.1 * expected
    assert result["steady_from_log"] == 1  # the first interval holds the recompilation
    assert result["window_steps"] == 3 * 25 * 32
    assert result["compile_s"] == 2.0 and result["step_compile_s"] == [1.2]
    assert START - 0.05 < result["setup_s"] < START + 2.0
    assert result["method"] == "dr" and result["threads"] == 1
    assert result["xla_flags"] == THREAD_FLAGS
    assert result["tree_map_patched"] is True
    assert result["versions"]["python"]
    # the flags reach the example's own parser (recorded by wandb.init)
    assert result["config"]["eval_freq"] == 25
    assert result["config"]["checkpoint_save_interval"] == 0
    assert result["config"]["replay_prob"] == 0.0
    assert result["config"]["exploratory_grad_updates"] is True
    assert set(result["flags"]) == {
        "--eval_freq",
        "--checkpoint_save_interval",
        "--replay_prob",
        "--exploratory_grad_updates",
    }
    assert all(spec["why"] for spec in result["flags"].values())


def test_robust_plr_waits_for_the_buffer(fake: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = run(fake, monkeypatch, method="robust_plr", FAKE_LOGS="6", CPUS="0")
    assert "error" not in result, result
    assert result["cpus"] == "0" and result["child_affinity"] == [0]
    assert set(result["flags"]) == {"--eval_freq", "--checkpoint_save_interval"}
    # buffer sizes 20, 40, 60, 80, 100, 100 against a minimum fill of 50: steady from log 2
    assert result["steady_from_log"] == 2
    assert result["window_steps"] == 3 * 25 * 32


def test_time_limit_stops_the_child(fake: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    began = time.monotonic()
    result = run(fake, monkeypatch, FAKE_LOGS="1", FAKE_MODE="hang", SECONDS="1.5")
    assert time.monotonic() - began < 20
    assert result["stopped_by"] == "time limit" and result["logs"] == 1
    assert result["steps_per_s"] is None and "too few" in result["error"]


def test_failures_are_values(fake: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    crashed = run(fake, monkeypatch, FAKE_MODE="crash")
    assert crashed["steps_per_s"] is None and "fake example failed on purpose" in crashed["error"]
    missing = measure_jaxued(Path("/nonexistent/python"), fake, "dr", 5)
    assert missing["steps_per_s"] is None and "no interpreter" in missing["error"]
    wrong = measure_jaxued(Path(sys.executable), fake, "accel", 5)
    assert "method must be one of" in wrong["error"]


def test_summarize_arithmetic() -> None:
    def log(t: float, updates: int, size: int = 0) -> dict[str, Any]:
        return {
            "event": "log",
            "t": t,
            "data": {"num_updates": updates, "level_sampler/size": size},
        }

    config = {"num_train_envs": 32, "num_steps": 256, "level_buffer_capacity": 4000,
              "minimum_fill_ratio": 0.5, "exploratory_grad_updates": False}  # fmt: skip
    events = [
        {"event": "init", "t": 101.0, "config": config},
        log(200.0, 25, 800),
        log(250.0, 50, 1600),
        log(310.0, 75, 2400),
        log(370.0, 100, 3200),
        log(430.0, 125, 4000),
    ]
    dr = summarize(events, 100.0, "dr")
    assert dr["steady_from_log"] == 1
    assert dr["steps_per_s"] == round(75 * 8192 / 180, 1)
    assert dr["setup_s"] == 100.0 and dr["logs"] == 5
    assert dr["interval_steps_per_s"][0] == round(25 * 8192 / 50, 1)
    plr = summarize(events, 100.0, "robust_plr")
    assert plr["steady_from_log"] == 2
    assert plr["steps_per_s"] == round(50 * 8192 / 120, 1)
    assert plr["chunk_s"] == 60.0

    samples = [(float(t), 0.9 * (t - 100.0)) for t in range(100, 440)]  # 0.9 of a core throughout
    timed = summarize(events, 100.0, "dr", samples)
    assert timed["window_cpu_s"] == round(0.9 * 180, 1)
    assert timed["window_cores_busy"] == 0.9
    assert timed["steps_per_cpu_s"] == round(75 * 8192 / (0.9 * 180), 1)


def test_child_cpu_reads_proc() -> None:
    used = child_cpu_s(os.getpid())
    assert used is not None and used > 0
    assert child_cpu_s(2**22 + 12345) is None
