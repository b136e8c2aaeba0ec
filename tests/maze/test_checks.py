"""The maze pool checks: schema, ranges, ends on free distinct cells, and the goal reachable."""

from __future__ import annotations

import numpy as np
import pytest

from dicode.domains.maze.builder import MazeLevel
from dicode.domains.maze.generate import stack
from dicode.domains.maze.level_checks import (
    GOAL,
    LevelCheckError,
    check_pool,
    decode,
    impossible_goal,
    shortest_paths,
)


def pool_of(*levels: MazeLevel) -> dict[str, np.ndarray]:
    return stack(level.to_arrays() for level in levels)


def fixed(start: tuple[int, int] = (0, 0), goal: tuple[int, int] = (0, 4)) -> MazeLevel:
    level = MazeLevel(np.random.default_rng(0))
    level.start(*start, "east")
    level.goal(*goal)
    return level


def test_a_good_pool_passes_and_reports_the_goal() -> None:
    pool = pool_of(fixed(), fixed((3, 3), (9, 9)))
    assert check_pool(pool) == GOAL
    assert impossible_goal(pool) is None
    assert shortest_paths(pool).tolist() == [4, 12]
    decoded = decode(pool)
    assert decoded.size == 2 and decoded.walls.dtype == bool
    assert decoded.resized(5).start_pos[:, 0].tolist() == [0, 3, 0, 3, 0]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda p: p.pop("goal_pos"), "pool fields"),
        (lambda p: p.update(extra=p["start_dir"]), "pool fields"),
        (lambda p: p.update(walls=p["walls"].astype(np.int32)), "walls: expected uint8"),
        (lambda p: p.update(walls=p["walls"][:, :12]), r"walls: expected uint8 array of shape"),
        (lambda p: p.update(start_pos=p["start_pos"].astype(np.int64)),
         "start_pos: expected int32"),
        (lambda p: p.update(start_dir=p["start_dir"][:1]), "start_dir: expected int32"),
        (lambda p: p["walls"].__setitem__((0, 5, 5), 2), "walls: cells must be 0 .* or 1"),
        (lambda p: p["start_dir"].__setitem__(1, 4), "instance 1: start direction must be in 0..3"),
        (lambda p: p["goal_pos"].__setitem__((0, 1), 13),
         r"instance 0: the goal \(0, 13\) is outside"),
        (lambda p: p["start_pos"].__setitem__(0, -1),
         "instance 0: no free cell was left for a random start"),
        (lambda p: p["walls"].__setitem__((1, 9, 9), 1),
         r"instance 1: the goal \(9, 9\) is on a wall"),
        (lambda p: p["goal_pos"].__setitem__(0, (0, 0)),
         r"instance 0: the start and the goal are the same cell \(0, 0\)"),
    ],
)  # fmt: skip
def test_schema_errors_name_the_problem(edit: object, message: str) -> None:
    pool = pool_of(fixed(), fixed((3, 3), (9, 9)))
    edit(pool)  # type: ignore[operator]
    with pytest.raises(LevelCheckError, match=message):
        check_pool(pool)


def test_an_unreachable_goal_is_refused_with_a_clear_message() -> None:
    boxed = fixed((0, 0), (6, 6))
    boxed.room(5, 5, 7, 7)  # the goal sits inside a closed box
    pool = pool_of(fixed(), boxed)
    check_pool(pool)  # the schema is fine ...
    problem = impossible_goal(pool)  # ... but the goal cannot be reached
    assert problem is not None
    assert problem.startswith("impossible goal: in 1 of 2 instances the goal cannot be reached")
    assert "instance 1: walls cut the goal (6, 6) off from the start (0, 0)" in problem
    with pytest.raises(LevelCheckError, match="impossible goal"):
        decode(pool)


def test_the_border_is_a_wall_a_goal_behind_a_line_is_not_cut_off() -> None:
    level = fixed((0, 0), (0, 12))
    level.line(0, 6, 11, 6)  # a long wall with a gap at the bottom
    assert impossible_goal(pool_of(level)) is None
    level.wall(12, 6)
    assert impossible_goal(pool_of(level)) is not None
