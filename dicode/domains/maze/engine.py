"""The maze engine: one partially observed grid maze, as pure functions (``dicode.environment``).

* **World.** A 13×13 grid inside an implicit wall border; wall cells, one goal, an agent with a
  cell and a facing direction (0 east, 1 south, 2 west, 3 north). Actions: 0 turn left,
  1 turn right, 2 forward (MiniGrid's order; its other actions are not used). Forward into a
  wall or the border leaves the agent where it is.
* **Observation.** The 5×5 square in front of the agent, egocentric: the agent stands at the
  middle of the view's bottom row looking "up" the view (4 cells ahead, 2 to each side). Two
  channels per cell: wall (the border and everything beyond it count as wall) and goal. Walls
  do not hide what lies behind them. Flattened, followed by the direction one-hot: 54 floats.
* **Episode and reward.** Reaching the goal at step t (1-based) pays ``1 − 0.9·t/T`` and ends
  the episode; otherwise the reward is 0 and the episode ends after ``T = 250`` steps (or the
  params' smaller ``max_steps``: evaluation caps; the reward formula keeps T).
  Success = the goal reached; ``info["completed"]`` marks it too (the step that reaches the
  goal is the one that completes it). The engine pays no bonus.
* **Params.** :class:`MazeParams` is one pool entry of a level — a layout and a start — plus
  the static step cap. ``reset`` copies the layout into the state, so rewriting a pool (a new
  level, refreshed target mazes) never changes a running episode. Neither ``reset`` nor
  ``step`` draws anything: the key is the interface's. Slots (``make_slots``) stack pools into
  params with leaves ``(S, K, ...)``.
"""

from __future__ import annotations

from dataclasses import replace

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from dicode.domains.maze.grid import MAX_STEPS, MOVES, SIZE, VIEW
from dicode.domains.maze.level_checks import MazePool

NUM_ACTIONS = 3
LEFT, RIGHT, FORWARD = 0, 1, 2
CHANNELS = 2  # wall, goal
NUM_DIRECTIONS = 4
VIEW_SIZE = VIEW * VIEW * CHANNELS
OBS_SIZE = VIEW_SIZE + NUM_DIRECTIONS

_MOVES = jnp.asarray(MOVES, jnp.int32)  # (4, 2) forward step per direction
# View cell (i, j): i = 0 is the farthest row, j = VIEW // 2 the agent's own column.
_AHEAD = jnp.asarray(np.repeat(np.arange(VIEW - 1, -1, -1), VIEW), jnp.int32)  # (25,)
_SIDE = jnp.asarray(np.tile(np.arange(VIEW) - VIEW // 2, VIEW), jnp.int32)  # (25,) + = right


@struct.dataclass
class MazeParams:
    """One level instance (a layout and a start) and the episode's step cap (static)."""

    walls: jax.Array  # (13, 13) bool
    start_pos: jax.Array  # (2,) int32
    start_dir: jax.Array  # () int32
    goal_pos: jax.Array  # (2,) int32
    max_steps: int = struct.field(pytree_node=False, default=MAX_STEPS)


@struct.dataclass
class MazeState:
    """One env: its own copy of the layout, the agent and the steps taken."""

    walls: jax.Array  # (13, 13) bool, copied at reset
    pos: jax.Array  # (2,) int32
    dir: jax.Array  # () int32
    goal: jax.Array  # (2,) int32
    time: jax.Array  # () int32 steps taken in the episode


def pool_params(pool: MazePool, max_steps: int = MAX_STEPS) -> MazeParams:
    """A host pool as params with a leading axis K (one env per instance: rollouts, evaluation)."""
    return MazeParams(
        walls=jnp.asarray(pool.walls.astype(bool)),
        start_pos=jnp.asarray(pool.start_pos.astype(np.int32)),
        start_dir=jnp.asarray(pool.start_dir.astype(np.int32)),
        goal_pos=jnp.asarray(pool.goal_pos.astype(np.int32)),
        max_steps=max_steps,
    )


def make_slots(pools: list[MazePool], pool_size: int) -> MazeParams:
    """Stack host pools into slots, leaves ``(S, K, ...)`` (each cycled or cut to K layouts)."""
    fitted = [p.resized(pool_size) for p in pools]
    return MazeParams(
        walls=jnp.asarray(np.stack([p.walls for p in fitted]).astype(bool)),
        start_pos=jnp.asarray(np.stack([p.start_pos for p in fitted]).astype(np.int32)),
        start_dir=jnp.asarray(np.stack([p.start_dir for p in fitted]).astype(np.int32)),
        goal_pos=jnp.asarray(np.stack([p.goal_pos for p in fitted]).astype(np.int32)),
    )


def observe(state: MazeState) -> jax.Array:
    """The egocentric view (VIEW·VIEW·2, wall and goal channels) ++ the direction one-hot."""
    direction, pos = state.dir, state.pos
    forward = _MOVES[direction]
    right = _MOVES[(direction + 1) % NUM_DIRECTIONS]
    rows = pos[0] + _AHEAD * forward[0] + _SIDE * right[0]
    cols = pos[1] + _AHEAD * forward[1] + _SIDE * right[1]
    inside = (rows >= 0) & (rows < SIZE) & (cols >= 0) & (cols < SIZE)
    walls = state.walls
    wall = jnp.where(inside, walls[jnp.clip(rows, 0, SIZE - 1), jnp.clip(cols, 0, SIZE - 1)], True)
    is_goal = (rows == state.goal[0]) & (cols == state.goal[1])
    view = jnp.stack([wall, is_goal], axis=-1).astype(jnp.float32).reshape(-1)
    return jnp.concatenate([view, jax.nn.one_hot(direction, NUM_DIRECTIONS)])


def move(
    walls: jax.Array, pos: jax.Array, direction: jax.Array, action: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """The agent's cell and direction after ``action``."""
    turned = jnp.where(
        action == LEFT,
        (direction + NUM_DIRECTIONS - 1) % NUM_DIRECTIONS,
        jnp.where(action == RIGHT, (direction + 1) % NUM_DIRECTIONS, direction),
    )
    ahead = pos + _MOVES[direction]
    inside = jnp.all((ahead >= 0) & (ahead < SIZE))
    free = inside & ~walls[jnp.clip(ahead[0], 0, SIZE - 1), jnp.clip(ahead[1], 0, SIZE - 1)]
    new_pos = jnp.where((action == FORWARD) & free, ahead, pos)
    return new_pos, turned


def goal_reward(time: jax.Array) -> jax.Array:
    """The reward for reaching the goal at step ``time`` (1-based): ``1 − 0.9·time/T``."""
    return 1.0 - 0.9 * time.astype(jnp.float32) / MAX_STEPS


def reset(key: jax.Array, params: MazeParams) -> tuple[jax.Array, MazeState]:
    """Start an episode on the params' layout (``key`` unused: nothing is drawn)."""
    state = MazeState(
        walls=params.walls,
        pos=params.start_pos,
        dir=params.start_dir,
        goal=params.goal_pos,
        time=jnp.zeros(params.start_dir.shape, jnp.int32),
    )
    return observe(state), state


def step(
    key: jax.Array, state: MazeState, action: jax.Array, params: MazeParams
) -> tuple[jax.Array, MazeState, jax.Array, jax.Array, dict[str, jax.Array]]:
    """One step, no reset (``key`` unused). ``info``: ``success`` and ``completed`` (the goal
    reached by this step) and ``length`` (the episode's steps so far)."""
    pos, direction = move(state.walls, state.pos, state.dir, action)
    time = state.time + 1
    success = jnp.all(pos == state.goal)
    reward = jnp.where(success, goal_reward(time), 0.0)
    done = success | (time >= min(params.max_steps, MAX_STEPS))
    state = replace(state, pos=pos, dir=direction, time=time)
    info = {"success": success, "completed": success, "length": time}
    return observe(state), state, reward, done, info


def success_at_reset(state: MazeState) -> jax.Array:
    """The agent already stands on the goal (a broken level)."""
    return jnp.all(state.pos == state.goal)
