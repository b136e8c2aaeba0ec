"""What an archive schedule reports for a record's trace: the difficulty of the levels trained
per interval (the maze: walls and moves from start to goal), and a target share that followed
the student above where it started."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from archive_db.records import NewLevel
from archive_db.repository import ArchiveRepository
from dicode import domains
from dicode.levels.bundle import LevelBundle, source_hash
from dicode.student.archive_schedule import ArchiveSchedule
from dicode.student.curriculum import TARGET, CurriculumConfig, CurriculumState
from dicode.student.tally import EpisodeTally


def _corridor_maze(goal_col: int, walls: int) -> LevelBundle:
    """Two instances: start (0, 0) facing east, the goal ``goal_col`` moves along row 0, and
    ``walls`` wall cells on the last row (out of the way)."""
    grid = np.zeros((13, 13), np.uint8)
    grid[12, :walls] = 1
    pool = {
        "walls": np.stack([grid, grid]),
        "start_pos": np.array([[0, 0], [0, 0]], np.int32),
        "start_dir": np.zeros(2, np.int32),
        "goal_pos": np.array([[0, goal_col], [0, goal_col]], np.int32),
    }
    return LevelBundle(
        domain="maze", description=f"goal {goal_col} moves east", goal={}, rules={}, pool=pool,
        source_hash=source_hash(f"{goal_col}/{walls}"), builder_version="test",
    )  # fmt: skip


def _stored(repo: ArchiveRepository, run_id: int, bundle: LevelBundle) -> int:
    row = NewLevel(
        domain="maze", content_hash=bundle.content_hash, teacher="test",
        bundle=bundle.to_bytes(), bundle_format="npz",
    )  # fmt: skip
    return repo.levels.insert(run_id, row).id


def test_the_trained_mazes_mean_path_and_walls_weighted_by_episodes_per_interval() -> None:
    repo = ArchiveRepository.open("sqlite://")
    try:
        run = repo.runs.create("trace", domain="maze", seed=0)
        near = _stored(repo, run.id, _corridor_maze(goal_col=2, walls=4))
        far = _stored(repo, run.id, _corridor_maze(goal_col=10, walls=0))
        schedule = ArchiveSchedule(repo, run.id, domains.get("maze"))
        assert schedule.trained_difficulty() == {}  # nothing trained yet
        schedule.pool(near), schedule.pool(far)  # placed on slots (plan) before they train

        outcomes = {
            near: EpisodeTally(episodes=3, successes=3),
            far: EpisodeTally(episodes=1, successes=0),
            TARGET: EpisodeTally(episodes=50, successes=0),  # the target is not counted
        }
        schedule.record(1, outcomes)
        assert schedule.trained_difficulty() == {
            "trained_path": pytest.approx((3 * 2 + 1 * 10) / 4),
            "trained_walls": pytest.approx(3 * 4 / 4),
        }
        assert schedule.trained_difficulty() == {}  # reading it starts the next interval
        schedule.record(2, {far: EpisodeTally(episodes=2, successes=1)})
        assert schedule.trained_difficulty() == {"trained_path": 10.0, "trained_walls": 0.0}
    finally:
        repo.close()


def test_a_world_without_difficulty_figures_reports_none() -> None:
    assert domains.get("tetris").pool_difficulty(object()) == {}


def test_a_following_share_above_its_start_is_the_current_mix() -> None:
    """The share rule 'follow' may raise the share above where it started (up to its max); the
    mix the slots are planned with is then that share, not an invalid config."""
    repo = ArchiveRepository.open("sqlite://")
    try:
        run = repo.runs.create("share", domain="tetris", seed=0)
        mix = CurriculumConfig(target_fraction=0.2, target_fraction_start=0.6, share_rule="follow")
        schedule = ArchiveSchedule(repo, run.id, domains.get("tetris"), mix=mix)
        assert schedule.mix.target_fraction == 0.6
        schedule.state = dataclasses.replace(CurriculumState(), target_share=0.9)
        assert schedule.mix.target_fraction == 0.9
        schedule.state = dataclasses.replace(CurriculumState(), target_share=0.3)
        assert schedule.mix.target_fraction == 0.3
    finally:
        repo.close()
