"""The maze builder: good calls build the arrays the engine reads; bad calls raise a
LevelBuildError naming the method and the value; random ends and random walls keep the goal
reachable."""

from __future__ import annotations

import numpy as np
import pytest

from dicode.domains.build_args import LevelBuildError
from dicode.domains.maze.builder import (
    MAX_RANDOM_WALLS,
    MazeLevel,
    builder_api_docs,
    make_builder,
    prompt_facts,
)
from dicode.domains.maze.grid import SIZE, distances, parse_picture, path_length, picture
from dicode.domains.maze.level_checks import check_pool, impossible_goal


def level(seed: int = 0) -> MazeLevel:
    return make_builder(np.random.default_rng(seed))


def test_a_new_level_is_an_empty_room_with_random_reachable_ends() -> None:
    arrays = level().to_arrays()
    assert arrays["walls"].dtype == np.uint8 and arrays["walls"].shape == (SIZE, SIZE)
    assert not arrays["walls"].any()
    assert arrays["start_pos"].dtype == np.int32 and arrays["start_pos"].shape == (2,)
    assert arrays["start_dir"].shape == () and 0 <= int(arrays["start_dir"]) < 4
    assert not np.array_equal(arrays["start_pos"], arrays["goal_pos"])


def test_wall_editing_calls() -> None:
    lvl = level()
    lvl.wall(0, 0)
    lvl.line(2, 1, 2, 5)
    lvl.line(3, 7, 7, 7)
    lvl.room(8, 8, 12, 12)
    lvl.clear(8, 10)
    lvl.fill(0, 10, 1, 12)
    lvl.clear_area(0, 11, 0, 12)
    lvl.corridor(2, 3, 2, 3)
    walls = lvl.to_arrays()["walls"].astype(bool)
    assert walls[0, 0] and lvl.is_wall(0, 0) and not lvl.is_wall(1, 1)
    assert walls[2, [1, 2, 4, 5]].all() and not walls[2, 3]
    assert walls[3:8, 7].all()
    assert walls[8, 8:10].all() and not walls[8, 10] and walls[12, 8:13].all()
    assert not walls[9:12, 9:12].any()  # the room's inside stays free
    assert walls[1, 10:13].all() and walls[0, 10] and not walls[0, 11:13].any()
    assert lvl.size == SIZE


def test_walls_from_a_picture_round_trips() -> None:
    rows = ["." * SIZE] * SIZE
    rows[4] = "######.######"
    text = "\n    " + "\n    ".join(rows) + "\n"
    lvl = level()
    lvl.walls_from(text)
    walls = lvl.to_arrays()["walls"].astype(bool)
    assert walls[4].sum() == SIZE - 1 and not walls[4, 6]
    assert picture(walls) == rows
    assert np.array_equal(parse_picture("\n".join(picture(walls))), walls)


def test_fixed_start_goal_and_path_length() -> None:
    lvl = level()
    lvl.line(0, 6, 11, 6)
    lvl.start(0, 5, "south")
    lvl.goal(0, 7)
    assert lvl.path_length() == 2 + 2 * 12
    arrays = lvl.to_arrays()
    assert arrays["start_pos"].tolist() == [0, 5] and int(arrays["start_dir"]) == 1
    assert arrays["goal_pos"].tolist() == [0, 7]
    lvl.wall(12, 6)  # closes the only gap in the wall
    assert lvl.path_length() is None
    lvl.random_start()
    with pytest.raises(LevelBuildError, match=r"level\.path_length: needs the start and the goal"):
        lvl.path_length()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda lv: lv.wall(13, 0), "level.wall: row must be in 0..12, got 13"),
        (lambda lv: lv.wall(0, -1), "level.wall: col must be in 0..12, got -1"),
        (lambda lv: lv.clear(1.5, 0), "level.clear: row must be an integer in 0..12, got 1.5"),
        (lambda lv: lv.wall(True, 0), "level.wall: row must be an integer"),
        (lambda lv: lv.line(0, 0, 3, 3), "level.line: the segment .* horizontal or vertical"),
        (lambda lv: lv.corridor(0, 0, 0, 20), "level.corridor: end col must be in 0..12, got 20"),
        (lambda lv: lv.room(3, 3, 3, 8), "level.room: needs top < bottom and left < right"),
        (lambda lv: lv.fill(5, 5, 2, 8), "level.fill: needs top <= bottom and left <= right"),
        (lambda lv: lv.walls_from("###"), "level.walls_from: the picture must have 13 rows"),
        (lambda lv: lv.walls_from(("." * 13 + "\n") * 12 + "." * 12 + "o"),
         "level.walls_from: row 12, col 12: use '#' for a wall"),
        (lambda lv: lv.walls_from(5), "level.walls_from: the picture must be a string"),
        (lambda lv: lv.random_walls(MAX_RANDOM_WALLS + 1), "level.random_walls: count must be in"),
        (lambda lv: lv.start(0, 0, "up"), "level.start: direction must be one of east, south"),
        (lambda lv: lv.start(0, 0, 1), "level.start: direction must be one of"),
        (lambda lv: lv.goal(0, "1"), "level.goal: col must be an integer"),
    ],
)  # fmt: skip
def test_bad_calls_name_the_method_and_the_value(call: object, message: str) -> None:
    with pytest.raises(LevelBuildError, match=message):
        call(level())  # type: ignore[operator]


def test_random_walls_never_cut_a_fixed_pair_apart() -> None:
    for seed in range(20):
        lvl = level(seed)
        lvl.start(0, 0, "east")
        lvl.goal(12, 12)
        lvl.random_walls(MAX_RANDOM_WALLS)
        arrays = lvl.to_arrays()
        walls = arrays["walls"].astype(bool)
        assert not walls[0, 0] and not walls[12, 12]
        assert path_length(walls, (0, 0), (12, 12)) is not None
        assert walls.sum() > 60  # it still placed many walls


def test_random_ends_are_always_reachable() -> None:
    pool: dict[str, list[np.ndarray]] = {
        k: [] for k in ("walls", "start_pos", "start_dir", "goal_pos")
    }
    for seed in range(40):
        lvl = level(seed)
        if seed % 3 == 0:
            lvl.goal(6, 6)  # a fixed goal: the random start comes from its region
        lvl.random_walls(60 if seed % 2 else 25)
        arrays = lvl.to_arrays()
        for key, value in arrays.items():
            pool[key].append(value)
    stacked = {key: np.stack(values) for key, values in pool.items()}
    check_pool(stacked)
    assert impossible_goal(stacked) is None


def test_one_fixed_end_keeps_a_free_neighbour() -> None:
    for seed in range(10):
        lvl = level(seed)
        lvl.goal(0, 0)
        lvl.random_walls(MAX_RANDOM_WALLS)
        arrays = lvl.to_arrays()
        dist = distances(arrays["walls"].astype(bool), (0, 0))
        start = tuple(arrays["start_pos"])
        assert dist[start] > 0


def test_builder_is_deterministic_per_seed() -> None:
    a, b = level(5), level(5)
    for lvl in (a, b):
        lvl.random_walls(25)
    arrays_a, arrays_b = a.to_arrays(), b.to_arrays()
    for key in arrays_a:
        np.testing.assert_array_equal(arrays_a[key], arrays_b[key])


def test_api_docs_and_facts_come_from_the_code() -> None:
    docs = builder_api_docs()
    for method in ("wall", "clear", "line", "corridor", "room", "walls_from", "random_walls",
                   "start", "random_start", "goal", "random_goal", "path_length"):  # fmt: skip
        assert f"level.{method}(" in docs
    assert "to_arrays" not in docs
    assert "Allowed imports" in docs
    facts = prompt_facts()
    assert facts["grid_size"] == "13" and facts["view_size"] == "5" and facts["max_steps"] == "250"
