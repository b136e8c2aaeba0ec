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
from dicode.domains.maze.generate import LONG_PATH_MOVES, long_path_instance, perfect_maze
from dicode.domains.maze.grid import (
    DIRECTIONS,
    SIZE,
    distances,
    in_view,
    parse_picture,
    path_length,
    picture,
)
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
        (lambda lv: lv.perfect_maze("prim"), "level.perfect_maze: method must be one of"),
        (lambda lv: lv.random_start(0), "level.random_start: min_distance must be in 1..168"),
        (lambda lv: lv.random_start(min_distance=2.5), "level.random_start: min_distance must be"),
        (lambda lv: lv.start_near_goal(169), "level.start_near_goal: distance must be in 1..168"),
        (lambda lv: lv.start_near_goal(3, goal_in_view=1), "level.start_near_goal: goal_in_view"),
        (lambda lv: lv.open_walls(-1), "level.open_walls: count must be in 0..120, got -1"),
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
                   "start", "random_start", "goal", "random_goal", "path_length", "perfect_maze",
                   "start_near_goal", "open_walls"):  # fmt: skip
        assert f"level.{method}(" in docs
    assert "to_arrays" not in docs
    assert "Allowed imports" in docs
    facts = prompt_facts()
    assert facts["grid_size"] == "13" and facts["view_size"] == "5" and facts["max_steps"] == "250"


# --- the target family's calls: perfect mazes, far and near starts, openings -----------------


def ends(arrays: dict[str, np.ndarray]) -> tuple[np.ndarray, tuple[int, int], tuple[int, int]]:
    walls = arrays["walls"].astype(bool)
    start = (int(arrays["start_pos"][0]), int(arrays["start_pos"][1]))
    goal = (int(arrays["goal_pos"][0]), int(arrays["goal_pos"][1]))
    return walls, start, goal


def test_perfect_maze_is_the_hosts_spanning_tree_drawn_anew_per_instance() -> None:
    mazes = []
    for seed in range(6):
        lvl = level(seed)
        lvl.wall(1, 1)  # overwritten: the maze replaces every cell
        lvl.perfect_maze()
        walls = lvl.to_arrays()["walls"].astype(bool)
        # One seed drawn from the level's generator, then generate.perfect_maze's tree.
        sub_seed = int(np.random.default_rng(seed).integers(2**31))
        np.testing.assert_array_equal(walls, perfect_maze(sub_seed, "backtracker"))
        mazes.append(walls)
    assert len({m.tobytes() for m in mazes}) == len(mazes)
    kruskal = level(0)
    kruskal.perfect_maze("kruskal")
    sub_seed = int(np.random.default_rng(0).integers(2**31))
    np.testing.assert_array_equal(kruskal.to_arrays()["walls"], perfect_maze(sub_seed, "kruskal"))


def test_a_far_random_start_draws_the_long_path_family() -> None:
    """``perfect_maze()`` + ``random_start(min_distance=60)`` makes exactly the instance
    ``generate.long_path_instance`` makes from the same generator, wherever the maze has two
    cells 60 moves apart; where it has none (a few in a hundred), the longest way it has."""
    fallbacks = 0
    for seed in range(120):
        lvl = level(seed)
        lvl.perfect_maze()
        lvl.random_start(min_distance=LONG_PATH_MOVES)
        arrays = lvl.to_arrays()
        walls, start, goal = ends(arrays)
        moves = int(distances(walls, start)[goal])
        if moves >= LONG_PATH_MOVES:
            host = long_path_instance(np.random.default_rng(seed))
            for key in host:
                np.testing.assert_array_equal(arrays[key], host[key], err_msg=f"{seed} {key}")
        else:
            fallbacks += 1
            longest = max(int(distances(walls, (int(r), int(c))).max())
                          for r, c in np.argwhere(~walls))  # fmt: skip
            assert moves == longest
    assert fallbacks <= 8


def test_a_far_random_start_from_a_fixed_goal() -> None:
    for seed in range(10):
        lvl = level(seed)
        lvl.perfect_maze()
        lvl.goal(6, 6)
        lvl.random_start(min_distance=20)
        walls, start, goal = ends(lvl.to_arrays())
        assert goal == (6, 6) and distances(walls, goal)[start] >= 20
    room = level(0)  # an empty room's longest way from its middle is 12 moves
    room.goal(6, 6)
    room.random_start(min_distance=30)
    walls, start, goal = ends(room.to_arrays())
    assert distances(walls, goal)[start] == 12
    fixed = level(0)
    fixed.random_start(min_distance=30)
    fixed.start(0, 0)  # a fixed start drops the least distance
    assert ends(fixed.to_arrays())[1] == (0, 0)


@pytest.mark.parametrize("distance", [1, 3, 8, 20])
def test_start_near_goal_moves_the_start_to_that_distance(distance: int) -> None:
    for seed in range(10):
        lvl = level(seed)
        lvl.perfect_maze()
        lvl.random_start(min_distance=LONG_PATH_MOVES)
        lvl.start_near_goal(distance)
        walls, start, goal = ends(lvl.to_arrays())
        assert distances(walls, goal)[start] == distance
        assert check_pool({k: v[None] for k, v in lvl.to_arrays().items()})


def test_start_near_goal_keeps_a_start_already_that_close() -> None:
    lvl = level(0)
    lvl.start(0, 0, "south")
    lvl.goal(0, 3)
    lvl.start_near_goal(5)
    arrays = lvl.to_arrays()
    assert ends(arrays)[1] == (0, 0) and int(arrays["start_dir"]) == DIRECTIONS.index("south")


def test_start_near_goal_with_the_goal_in_view() -> None:
    seen = 0
    for seed in range(20):
        lvl = level(seed)
        lvl.perfect_maze()
        lvl.start_near_goal(2, goal_in_view=True)
        arrays = lvl.to_arrays()
        walls, start, goal = ends(arrays)
        assert distances(walls, goal)[start] <= 2
        seen += in_view(start, int(arrays["start_dir"]), goal)
    assert seen == 20  # two moves away some facing always sees the goal


def test_in_view_is_the_engines_view() -> None:
    from tests.maze.test_engine import view

    rng = np.random.default_rng(0)
    walls = np.zeros((SIZE, SIZE), bool)
    for _ in range(60):
        cell = (int(rng.integers(SIZE)), int(rng.integers(SIZE)))
        goal = (int(rng.integers(SIZE)), int(rng.integers(SIZE)))
        if cell == goal:
            continue
        direction = int(rng.integers(4))
        goal_seen = bool(view(walls, cell, direction, goal)[..., 1].any())
        assert in_view(cell, direction, goal) == goal_seen, (cell, direction, goal)


def test_open_walls_joins_passages_of_a_perfect_maze() -> None:
    for seed in range(5):
        lvl = level(seed)
        lvl.perfect_maze()
        lvl.goal(0, 0)
        lvl.start(12, 12)
        before, start, goal = ends(lvl.to_arrays())
        first = path_length(before, start, goal)
        for _ in range(6):
            lvl.open_walls(1)
            after = ends(lvl.to_arrays())[0]
            removed = np.argwhere(before & ~after)
            assert len(removed) == 1 and not (after & ~before).any()
            (r, c), free = removed[0], ~before
            # The wall had free cells on two opposite sides: an opening joins two passages.
            north_south = 0 < r < SIZE - 1 and free[r - 1, c] and free[r + 1, c]
            east_west = 0 < c < SIZE - 1 and free[r, c - 1] and free[r, c + 1]
            assert north_south or east_west
            before = after
        assert path_length(before, start, goal) <= first
    room = level(0)
    room.open_walls(5)  # no wall to open: nothing happens
    assert not room.to_arrays()["walls"].any()
