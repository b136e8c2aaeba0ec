"""The maze engine: the egocentric partial view, moves and turns, the reward formula, the step
cap, slots over stacked pools and the completion bonus wrapper in maze units; property tests
over random mazes."""

from __future__ import annotations

from dataclasses import replace

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dicode.domains.maze import engine
from dicode.domains.maze.grid import MAX_STEPS, SIZE, VIEW
from dicode.domains.maze.level_checks import MazePool
from dicode.domains.maze.student.slot_world import MAZE_BONUS
from dicode.environment import slot_params
from dicode.student.bonus import BonusParams, CompletionBonus

move = jax.jit(engine.move)
reset = jax.jit(engine.reset)
step = jax.jit(engine.step)
observe = jax.jit(engine.observe)
KEY = jax.random.PRNGKey(0)


def observe_one(walls: jax.Array, pos: jax.Array, direction: jax.Array, goal: jax.Array):
    return observe(engine.MazeState(walls, pos, direction, goal, jnp.int32(0)))


def view(
    walls: np.ndarray, pos: tuple[int, int], direction: int, goal: tuple[int, int]
) -> np.ndarray:
    obs = np.asarray(observe_one(jnp.asarray(walls), jnp.asarray(pos), jnp.int32(direction),
                                 jnp.asarray(goal)))  # fmt: skip
    assert obs.shape == (engine.OBS_SIZE,)
    return obs[: engine.VIEW_SIZE].reshape(VIEW, VIEW, engine.CHANNELS)


def one_pool(
    walls: np.ndarray, start: tuple[int, int], direction: int, goal: tuple[int, int]
) -> MazePool:
    return MazePool(
        walls=walls[None].astype(bool),
        start_pos=np.asarray([start], np.int32),
        start_dir=np.asarray([direction], np.int32),
        goal_pos=np.asarray([goal], np.int32),
    )


def one_level(
    walls: np.ndarray, start: tuple[int, int], direction: int, goal: tuple[int, int]
) -> engine.MazeParams:
    """The params of one env: the single instance of ``one_pool``."""
    pool = engine.pool_params(one_pool(walls, start, direction, goal))
    return jax.tree_util.tree_map(lambda x: x[0], pool)


def test_the_view_is_egocentric() -> None:
    walls = np.zeros((SIZE, SIZE), bool)
    walls[6, 8] = walls[4, 7] = True
    east = view(walls, (6, 6), 0, (7, 10))
    # Facing east: view row i is 4 - (cells ahead), view column j is 2 + (cells to the right).
    assert east[2, 2, 0] == 1 and east[3, 0, 0] == 1 and east[0, 3, 1] == 1
    assert east[..., 0].sum() == 2 and east[..., 1].sum() == 1
    north = view(walls, (6, 6), 3, (7, 10))
    # Facing north, (6, 8) is two cells to the right on the agent's own row: bottom right.
    assert north[4, 4, 0] == 1 and north[2, 3, 0] == 1
    assert north[..., 1].sum() == 0  # the goal is behind the agent
    south = view(walls, (6, 6), 1, (7, 8))
    # Facing south, east is on the left: (6, 8) two to the left, the goal one ahead of it.
    assert south[4, 0, 0] == 1 and south[..., 0].sum() == 1 and south[3, 0, 1] == 1
    obs = np.asarray(observe_one(jnp.asarray(walls), jnp.asarray((6, 6)), jnp.int32(2),
                                 jnp.asarray((0, 0))))  # fmt: skip
    assert obs[engine.VIEW_SIZE :].tolist() == [0, 0, 1, 0]  # the direction one-hot


def test_the_border_and_beyond_are_walls() -> None:
    walls = np.zeros((SIZE, SIZE), bool)
    corner = view(walls, (0, 0), 3, (12, 12))  # top-left corner, facing north
    assert corner[:4, :, 0].all()  # everything ahead lies outside the grid
    assert corner[4, :, 0].tolist() == [1, 1, 0, 0, 0]  # the agent's row: outside to the left


def test_turns_and_moves() -> None:
    walls = np.zeros((SIZE, SIZE), bool)
    walls[5, 7] = True
    w = jnp.asarray(walls)

    def act(pos: tuple[int, int], direction: int, action: int) -> tuple[list[int], int]:
        p, d = move(w, jnp.asarray(pos), jnp.int32(direction), jnp.int32(action))
        return np.asarray(p).tolist(), int(d)

    assert act((5, 5), 0, engine.FORWARD) == ([5, 6], 0)
    assert act((5, 6), 0, engine.FORWARD) == ([5, 6], 0)  # a wall stops it
    assert act((0, 3), 3, engine.FORWARD) == ([0, 3], 3)  # so does the border
    assert act((5, 5), 0, engine.LEFT) == ([5, 5], 3)  # east, turn left: north
    assert act((5, 5), 3, engine.RIGHT) == ([5, 5], 0)  # north, turn right: east
    assert act((5, 5), 1, engine.FORWARD) == ([6, 5], 1)


def test_reward_formula_and_episode_end_at_the_goal() -> None:
    walls = np.zeros((SIZE, SIZE), bool)
    params = one_level(walls, (3, 3), 0, (3, 4))
    _, state = reset(KEY, params)
    for t in (0, 10, 99, 248):
        s = replace(state, time=jnp.int32(t))
        _, s, reward, done, info = step(KEY, s, jnp.int32(engine.FORWARD), params)
        assert bool(info["success"]) and bool(info["completed"]) and bool(done)
        assert abs(float(reward) - (1.0 - 0.9 * (t + 1) / MAX_STEPS)) < 1e-6
    _, _, reward, done, info = step(KEY, state, jnp.int32(engine.LEFT), params)
    assert float(reward) == 0.0 and not bool(info["success"]) and not bool(done)


def test_episodes_are_capped_at_t_steps() -> None:
    walls = np.zeros((SIZE, SIZE), bool)
    params = one_level(walls, (3, 3), 0, (9, 9))
    _, state = reset(KEY, params)
    turn = jnp.int32(engine.LEFT)
    ends = []
    for _ in range(MAX_STEPS):
        _, state, reward, done, info = step(KEY, state, turn, params)
        ends.append(bool(done))
        assert float(reward) == 0.0
    assert ends == [False] * (MAX_STEPS - 1) + [True]
    assert int(info["length"]) == MAX_STEPS
    # An evaluation cap (static params) ends earlier.
    capped = params.replace(max_steps=10)
    _, state = reset(KEY, capped)
    for t in range(1, 11):
        _, state, _, done, _ = step(KEY, state, turn, capped)
        assert bool(done) == (t == 10)


def test_the_bonus_wrapper_pays_in_maze_units_where_the_level_pays() -> None:
    walls = np.zeros((SIZE, SIZE), bool)
    params = one_level(walls, (3, 3), 0, (3, 4))
    _, state = reset(KEY, params)
    forward = jnp.int32(engine.FORWARD)
    base = np.float32(1.0 - 0.9 / MAX_STEPS)
    bonus_step = jax.jit(CompletionBonus(engine, MAZE_BONUS).step)
    # max(ε, min(max(d, k·R̄), R̄)) with d = 1, k = 2, ε = 0.1: never above the running return.
    for running, bonus in ((0.0, 0.1), (0.05, 0.1), (0.3, 0.3), (0.9, 0.9), (3.0, 3.0)):
        for pays in (False, True):
            wrapped = BonusParams(params, jnp.float32(running), jnp.asarray(pays))
            _, _, reward, done, info = bonus_step(KEY, state, forward, wrapped)
            paid = bonus if pays else 0.0
            assert bool(done) and bool(info["completed"])
            np.testing.assert_allclose(float(info["engine_reward"]), base, rtol=1e-6)
            np.testing.assert_allclose(float(info["bonus"]), paid, rtol=1e-6)
            np.testing.assert_allclose(float(reward), base + paid, rtol=1e-6)
    # A step that completes nothing pays nothing.
    wrapped = BonusParams(params, jnp.float32(0.9), jnp.asarray(True))
    _, _, reward, _, info = bonus_step(KEY, state, jnp.int32(engine.LEFT), wrapped)
    assert float(info["bonus"]) == 0.0 and float(reward) == 0.0


def test_slots_index_stacked_pools_and_reset_copies_the_layout() -> None:
    walls = np.zeros((SIZE, SIZE), bool)
    a = one_pool(walls, (1, 1), 0, (1, 2))
    other = walls.copy()
    other[0, :5] = True
    b = one_pool(other, (5, 5), 2, (9, 9))
    slots = engine.make_slots([a, b], 2)  # each pool cycled to 2 entries
    assert slots.walls.shape == (2, 2, SIZE, SIZE)
    levels = slot_params(slots, jnp.asarray([0, 1, 1]), jnp.asarray([1, 0, 1]))
    _, fresh = jax.vmap(reset, in_axes=(None, 0))(KEY, levels)
    assert np.asarray(fresh.pos).tolist() == [[1, 1], [5, 5], [5, 5]]
    assert np.asarray(fresh.walls[1, 0, :5]).all() and not np.asarray(fresh.walls[0]).any()
    assert np.asarray(fresh.time).tolist() == [0, 0, 0]


walls_strategy = st.lists(st.booleans(), min_size=SIZE * SIZE, max_size=SIZE * SIZE).map(
    lambda cells: np.asarray(cells).reshape(SIZE, SIZE)
)


@settings(max_examples=25, deadline=None)
@given(
    walls=walls_strategy,
    start=st.tuples(st.integers(0, SIZE - 1), st.integers(0, SIZE - 1)),
    direction=st.integers(0, 3),
    actions=st.lists(st.integers(0, 2), min_size=1, max_size=40),
)
def test_properties_of_random_walks(
    walls: np.ndarray, start: tuple[int, int], direction: int, actions: list[int]
) -> None:
    walls = walls.copy()
    walls[start] = False
    w = jnp.asarray(walls)
    pos, d = jnp.asarray(start, jnp.int32), jnp.int32(direction)
    goal = jnp.asarray((-5, -5))  # nowhere: no goal in view
    for action in actions:
        obs = np.asarray(observe_one(w, pos, d, goal))
        grid = obs[: engine.VIEW_SIZE].reshape(VIEW, VIEW, engine.CHANNELS)
        assert set(np.unique(obs)) <= {0.0, 1.0}
        assert grid[VIEW - 1, VIEW // 2, 0] == 0  # the agent's own cell is free
        assert grid[..., 1].sum() == 0
        ahead_blocked = grid[VIEW - 2, VIEW // 2, 0] == 1
        new_pos, new_d = move(w, pos, d, jnp.int32(action))
        moved = not np.array_equal(np.asarray(new_pos), np.asarray(pos))
        if action == engine.FORWARD:
            assert moved != ahead_blocked  # the view says whether forward moves
        else:
            assert not moved and int(new_d) == (int(d) + (1 if action == engine.RIGHT else 3)) % 4
        r, c = (int(x) for x in np.asarray(new_pos))
        assert 0 <= r < SIZE and 0 <= c < SIZE and not walls[r, c]
        pos, d = new_pos, new_d


@settings(max_examples=15, deadline=None)
@given(walls=walls_strategy, start=st.tuples(st.integers(0, SIZE - 1), st.integers(0, SIZE - 1)))
def test_four_turns_come_back_to_the_same_view(walls: np.ndarray, start: tuple[int, int]) -> None:
    w, pos, goal = jnp.asarray(walls), jnp.asarray(start), jnp.asarray((6, 6))
    d = jnp.int32(0)
    first = np.asarray(observe_one(w, pos, d, goal))
    seen = set()
    for _ in range(4):
        _, d = move(w, pos, d, jnp.int32(engine.RIGHT))
        seen.add(int(d))
    assert seen == {0, 1, 2, 3}
    np.testing.assert_array_equal(np.asarray(observe_one(w, pos, d, goal)), first)


def test_rollouts_play_every_instance_with_a_random_and_a_shortest_path_player() -> None:
    from dicode.domains.maze.rollouts import MazeRollouts

    walls = np.zeros((SIZE, SIZE), bool)
    walls[0:12, 8] = True  # a wall between the last two instances' start and goal
    pools = [one_pool(walls, (3, 3), 0, (3, 6)), one_pool(walls, (3, 3), 2, (3, 6)),
             one_pool(walls, (3, 7), 0, (3, 9))]  # fmt: skip
    pool = {
        "walls": np.concatenate([p.walls for p in pools]).astype(np.uint8),
        "start_pos": np.concatenate([p.start_pos for p in pools]),
        "start_dir": np.concatenate([p.start_dir for p in pools]),
        "goal_pos": np.concatenate([p.goal_pos for p in pools]),
    }
    report = MazeRollouts(steps=100).evaluate(pool, seed=0)
    assert report.solved_at_reset == 0 and report.problem is None
    d = report.difficulty
    assert d["oracle_success"] == 1.0
    # 3 moves; 2 turns + 3 moves; round the wall: 9 down, 2 across, 9 up, with a right turn at
    # the start (facing the wall) and a left turn at each bottom corner.
    assert d["shortest_path"] == (3 + 3 + 20) / 3 and d["shortest_path_max"] == 20
    assert d["oracle_steps"] == (3 + 5 + 23) / 3
    assert d["rollout_steps"] == 100.0 and 0.0 <= d["random_success"] <= 1.0
    assert d["random_steps"] <= 100.0
