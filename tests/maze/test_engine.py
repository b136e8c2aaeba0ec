"""The maze engine: the egocentric partial view, moves and turns, the reward formula, the step
cap, resets from slot pools and the completion bonus; property tests over random mazes."""

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
from dicode.student.bonus import with_completion_bonus
from dicode.student.maze.ppo import MAZE_BONUS

observe_one = jax.jit(engine.observe_one)
move_one = jax.jit(engine.move_one)
transition = jax.jit(engine.transition, static_argnums=2)
step = jax.jit(engine.step)


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
        p, d = move_one(w, jnp.asarray(pos), jnp.int32(direction), jnp.int32(action))
        return np.asarray(p).tolist(), int(d)

    assert act((5, 5), 0, engine.FORWARD) == ([5, 6], 0)
    assert act((5, 6), 0, engine.FORWARD) == ([5, 6], 0)  # a wall stops it
    assert act((0, 3), 3, engine.FORWARD) == ([0, 3], 3)  # so does the border
    assert act((5, 5), 0, engine.LEFT) == ([5, 5], 3)  # east, turn left: north
    assert act((5, 5), 3, engine.RIGHT) == ([5, 5], 0)  # north, turn right: east
    assert act((5, 5), 1, engine.FORWARD) == ([6, 5], 1)


def test_reward_formula_and_episode_end_at_the_goal() -> None:
    walls = np.zeros((SIZE, SIZE), bool)
    state = engine.pool_state(one_pool(walls, (3, 3), 0, (3, 4)))
    for t in (0, 10, 99, 248):
        s = replace(state, time=jnp.full((1,), t, jnp.int32))
        s, reward, success, done = transition(s, jnp.asarray([engine.FORWARD]), MAX_STEPS)
        assert bool(success[0]) and bool(done[0])
        assert abs(float(reward[0]) - (1.0 - 0.9 * (t + 1) / MAX_STEPS)) < 1e-6
    _, reward, success, done = transition(state, jnp.asarray([engine.LEFT]), MAX_STEPS)
    assert float(reward[0]) == 0.0 and not bool(success[0]) and not bool(done[0])


def test_episodes_are_capped_at_t_steps() -> None:
    walls = np.zeros((SIZE, SIZE), bool)
    state = engine.pool_state(one_pool(walls, (3, 3), 0, (9, 9)))
    turn = jnp.asarray([engine.LEFT])
    ends = []
    for _ in range(MAX_STEPS):
        state, reward, _, done = transition(state, turn, MAX_STEPS)
        ends.append(bool(done[0]))
        assert float(reward[0]) == 0.0
    assert ends == [False] * (MAX_STEPS - 1) + [True]
    assert int(state.time[0]) == MAX_STEPS
    # An evaluation cap ends earlier.
    state = engine.pool_state(one_pool(walls, (3, 3), 0, (9, 9)))
    for t in range(1, 11):
        state, _, _, done = transition(state, turn, 10)
        assert bool(done[0]) == (t == 10)


def test_step_resets_finished_envs_and_marks_completions_where_the_slot_pays() -> None:
    walls = np.zeros((SIZE, SIZE), bool)
    near = one_pool(walls, (3, 3), 0, (3, 4))
    slots = engine.make_slots([near, near], 2, [False, True])
    env_slot = jnp.asarray([0, 1], jnp.int32)
    _, state = engine.reset(jax.random.PRNGKey(0), slots, env_slot)
    forward = jnp.asarray([engine.FORWARD, engine.FORWARD])
    _, new, reward, done, info = step(jax.random.PRNGKey(1), state, forward, slots)
    assert np.asarray(done).all() and np.asarray(info["success"]).all()
    # The engine pays no bonus; it marks the completion the student's bonus wrapper pays for.
    assert np.asarray(info["completed"]).tolist() == [False, True]
    base = np.float32(1.0 - 0.9 / MAX_STEPS)
    np.testing.assert_allclose(np.asarray(reward), [base, base], rtol=1e-6)
    assert np.asarray(info["length"]).tolist() == [1, 1]
    # Both envs restarted on their slot's pool.
    assert np.asarray(new.pos).tolist() == [[3, 3], [3, 3]]
    assert np.asarray(new.time).tolist() == [0, 0]
    # The student's step: the bonus in maze units, never above the target's running return.
    bonus_step = jax.jit(with_completion_bonus(engine.step, MAZE_BONUS))
    for running, bonus in ((0.0, 0.1), (0.3, 0.3), (0.9, 0.9)):  # max(0.1, min(max(1, 2R), R))
        _, _, reward, _, info = bonus_step(
            jax.random.PRNGKey(1), state, forward, slots, jnp.float32(running)
        )
        np.testing.assert_allclose(np.asarray(info["engine_reward"]), [base, base])
        np.testing.assert_allclose(np.asarray(info["bonus"]), [0.0, bonus], rtol=1e-6)
        np.testing.assert_allclose(np.asarray(reward), [base, base + bonus], rtol=1e-6)
        assert np.asarray(info["bonus"])[1] <= np.float32(max(running, MAZE_BONUS.least))


def test_restart_only_touches_the_chosen_envs_and_copies_the_layout() -> None:
    walls = np.zeros((SIZE, SIZE), bool)
    a = one_pool(walls, (1, 1), 0, (1, 2))
    other = walls.copy()
    other[0, :5] = True
    b = one_pool(other, (5, 5), 2, (9, 9))
    slots = engine.make_slots([a, a], 1, [False, False])
    _, state = engine.reset(jax.random.PRNGKey(0), slots, jnp.asarray([0, 1], jnp.int32))
    slots_b = engine.make_slots([a, b], 1, [False, False])
    _, fresh = engine.restart(jax.random.PRNGKey(1), state, jnp.asarray([False, True]), slots_b)
    assert np.asarray(fresh.pos).tolist() == [[1, 1], [5, 5]]
    assert np.asarray(fresh.walls[1, 0, :5]).all() and not np.asarray(fresh.walls[0]).any()


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
        new_pos, new_d = move_one(w, pos, d, jnp.int32(action))
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
        _, d = move_one(w, pos, d, jnp.int32(engine.RIGHT))
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
