"""The seeds-in-one-program benchmark as a lease on a lent GPU runs it: named cases, a deadline
past which no case starts, the figures file written as it stands, and every program it times
(the DR arm's target program too) runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

import pytest

from benchmarks.seeds_throughput import measure, plan_cases

ROOT = Path(__file__).resolve().parents[2]


def _args(**given: str | None) -> Namespace:
    return Namespace(**({"methods": "dr,robust_plr", "seeds": "1,5", "cases": None} | given))


def test_without_cases_every_method_seed_count_and_mode_is_a_case() -> None:
    assert plan_cases(_args()) == [
        ("dr", 1, "program"), ("dr", 1, "separate"), ("dr", 5, "program"),
        ("dr", 5, "separate"), ("robust_plr", 1, "program"), ("robust_plr", 1, "separate"),
        ("robust_plr", 5, "program"), ("robust_plr", 5, "separate"),
    ]  # fmt: skip


def test_named_cases_run_in_the_order_given() -> None:
    cases = "accel:5:program,dr_target:5:program,dr:1:separate"
    assert plan_cases(_args(cases=cases)) == [
        ("accel", 5, "program"), ("dr_target", 5, "program"), ("dr", 1, "separate"),
    ]  # fmt: skip


@pytest.mark.parametrize("bad", ["plr:5:program", "dr:0:program", "dr:five:program", "dr:5:both"])
def test_a_malformed_case_is_refused_with_the_expected_form(bad: str) -> None:
    with pytest.raises(SystemExit, match="METHOD:SEEDS:MODE"):
        plan_cases(_args(cases=f"dr:1:program,{bad}"))


def test_past_the_deadline_no_case_starts_and_the_file_says_what_was_left(tmp_path: Path) -> None:
    out = tmp_path / "figures.json"
    command = [
        sys.executable, "benchmarks/seeds_throughput.py", "--cases", "dr:1:program,accel:5:program",
        "--deadline-s", "-1", "--out", str(out),
    ]  # fmt: skip
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    document = json.loads(out.read_text())
    assert document["complete"] is False
    assert document["cases"] == []
    assert document["not_started"] == ["dr:1:program", "accel:5:program"]
    assert "--deadline-s" in document["command"]
    assert document["provenance"]["commit"]


def test_the_dr_arm_s_target_program_is_timed_like_the_literature_loops() -> None:
    run = measure("dr_target", 1, warmup=1, iterations=1, barrier=None)
    assert run["batch_steps"] == 8192  # 32 envs × 256 steps, as the loops
    assert run["steps_per_s"] > 0 and run["window_s"] > 0
    assert run["branches_new_replay_mutate_gradient"] is None  # one branch: no counts
    assert run["device"]["platform"] == "cpu"
