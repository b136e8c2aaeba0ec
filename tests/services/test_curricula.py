"""The benchmark's methods end to end on a tiny budget, and open- vs closed-loop parents."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from archive_db import ArchiveRepository
from archive_db.kinds import TARGET_EVENT
from dicode.levels.pipeline import Validator
from dicode.settings import EvaluatorSettings, StudentSettings
from dicode.student.loop import read_curve
from services.curricula import METHODS, MethodConfig, run_method
from services.generator.service import Generator
from tests.services.conftest import TINY, new_run

TINY_METHODS = MethodConfig(
    domain="tetris",
    student=StudentSettings(replace(TINY.student.ppo, num_slots=5), iterations_per_session=1),
    evaluator=EvaluatorSettings(games=2, max_steps=30),
    generator=TINY.generator,
    levels_per_session=2,
    sfl_top_k=3,
    eval_points=1,
)
# Two sessions of one iteration: 5 slots x 4 envs x 8 steps = 160 steps each.
STEPS = 2 * TINY_METHODS.student.ppo.batch_size


@pytest.mark.parametrize("method", METHODS)
def test_each_method_trains_the_budget_and_leaves_a_curve(
    method: str, tmp_path: Path, validator: Validator
) -> None:
    result = run_method(method, STEPS, 0, tmp_path, TINY_METHODS, validator)

    run_dir = tmp_path / f"{method}_s0"
    assert result.env_steps == STEPS
    curve = read_curve(run_dir / "curve.csv")
    assert [p["env_steps"] for p in curve] == [0, STEPS] and (run_dir / "curve.png").is_file()
    assert "target_mean_lines" in curve[-1]
    saved = json.loads((run_dir / "config.json").read_text())
    assert saved["method"] == method and saved["result"]["env_steps"] == STEPS
    if method == "target":
        assert result.attempts == 0 and not (run_dir / "archive.sqlite").exists()
        return
    # Two sessions, two attempts before each; the mutation teacher's children pass the sandbox.
    assert result.attempts == 4 and result.accepted >= 3
    repo = ArchiveRepository.open(f"sqlite:///{run_dir / 'archive.sqlite'}")
    run = repo.runs.find(f"{method}_s0")
    assert run is not None
    stats = repo.statistics.counts(run.id)
    assert stats.levels == 11 + result.accepted  # the seed levels and the accepted children
    trained = repo.list_levels(run.id, sampled=True)
    assert trained and all(repo.evaluations.history(level.id) for level in trained)
    # Every curve point reaches the run as a target evaluation (what skill requests read).
    shown = [event.payload for event in repo.events.listing(run_id=run.id, kind=TARGET_EVENT)]
    assert [e["iteration"] for e in shown] == [0, 2]
    assert "clear_tetris" in shown[-1]["skills"]  # survival marks above the cap are left out
    if METHODS[method].generation == "open":
        assert all(level.skill is None for level in repo.list_levels(run.id))
    # The trace says what the mechanisms did: the target's share, the teacher's parents and
    # instructions (4 attempts from archive parents), the transfer credits.
    (trace,) = result.trace
    assert trace["target_share"] == TINY_METHODS.student.curriculum.target_fraction
    assert trace["parents_archive"] == 4
    assert trace["parents_target"] == trace["parents_target_line"] == 0
    assert sum(v for k, v in trace.items() if k.startswith("instruction_")) == 4
    assert "transfer_levels_credited" in trace
    repo.close()


def _parents(generator: Generator, draws: int) -> Counter[int]:
    return Counter(generator.next_request(n)[1] for n in range(draws))


def _archive_with_one_learnable_level(
    tmp_path: Path, validator: Validator, feedback: bool
) -> tuple[Generator, int]:
    repo = ArchiveRepository.open(f"sqlite:///{tmp_path}/{feedback}.sqlite")
    run_id = new_run(repo)
    settings = replace(TINY.generator, feedback=feedback)
    generator = Generator(repo, run_id, settings, TINY.archive, seed=3, validator=validator)
    generator.seed_archive()
    levels = [level.id for level in repo.list_levels(run_id)]
    learnable = levels[4]
    for level_id in levels:  # every level mastered (status A, learnability 0) but one
        successes = 5 if level_id == learnable else 10
        repo.record_evaluation(level_id, student_iteration=1, episodes=10, successes=successes)
    return generator, learnable


def test_open_loop_parents_ignore_performance_closed_loop_parents_follow_it(
    tmp_path: Path, validator: Validator
) -> None:
    draws = 60
    closed, learnable = _archive_with_one_learnable_level(tmp_path, validator, feedback=True)
    picks = _parents(closed, draws)
    assert picks[learnable] == draws  # the only level with p(1-p) > 0
    instructions = {closed.next_request(0)[0].instruction for _ in range(5)}
    assert instructions == {"vary"}  # its status is B

    measured, _ = _archive_with_one_learnable_level(tmp_path, validator, feedback=False)
    fresh_repo = ArchiveRepository.open(f"sqlite:///{tmp_path}/unmeasured.sqlite")
    unmeasured = Generator(
        fresh_repo,
        new_run(fresh_repo),
        replace(TINY.generator, feedback=False),
        TINY.archive,
        seed=3,
        validator=validator,
    )
    unmeasured.seed_archive()
    with_perf, without_perf = _parents(measured, draws), _parents(unmeasured, draws)
    # Same seed, same levels: the same parents whatever the student did.
    assert with_perf == without_perf
    assert len(with_perf) >= 8 and max(with_perf.values()) < draws / 3
    requests = [measured.next_request(n)[0] for n in range(30)]
    assert {r.instruction for r in requests} == {"harder", "vary", "easier"}
    assert all(not r.parent.profile.success_rate_history for r in requests)
