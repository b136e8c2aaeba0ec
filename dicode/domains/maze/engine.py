"""The maze engine: a partially observed grid maze over level slots, compiled once for a run.

* **World.** A 13×13 grid inside an implicit wall border; wall cells, one goal, an agent with a
  cell and a facing direction (0 east, 1 south, 2 west, 3 north). Actions: 0 turn left,
  1 turn right, 2 forward (MiniGrid's order; its other actions are not used). Forward into a
  wall or the border leaves the agent where it is.
* **Observation.** The 5×5 square in front of the agent, egocentric: the agent stands at the
  middle of the view's bottom row looking "up" the view (4 cells ahead, 2 to each side). Two
  channels per cell: wall (the border and everything beyond it count as wall) and goal. Walls
  do not hide what lies behind them. Flattened, followed by the direction one-hot: 54 floats.
* **Episode and reward.** Reaching the goal at step t (1-based) pays ``1 − 0.9·t/T`` and ends
  the episode; otherwise the reward is 0 and the episode ends after ``T = 250`` steps.
  Success = the goal reached.
* **Slots.** ``LevelSlots`` holds S levels as stacked arrays: a pool of K layouts per slot and a
  per-slot flag ``pays_bonus``. Each env plays one slot (``env_slot``) and resets from a
  uniformly drawn pool entry of it; the layout is copied into the env, so rewriting a pool
  (a new level, refreshed target mazes) never changes a running episode. Swapping a level means
  passing other arrays of the same shapes: nothing recompiles.
* **Bonus.** The engine pays none: ``info["completed"]`` marks a success in a slot with
  ``pays_bonus``, and the student adds DiCode's completion bonus on it
  (``dicode.student.bonus.with_completion_bonus``). The curriculum's levels pay it; the target
  game does not (as in the other worlds, where the target game has no level goal).
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
class LevelSlots:
    """S level slots: pools of K layouts each, and whether a slot pays the completion bonus."""

    walls: jax.Array  # (S, K, 13, 13) bool
    start_pos: jax.Array  # (S, K, 2) int32
    start_dir: jax.Array  # (S, K) int32
    goal_pos: jax.Array  # (S, K, 2) int32
    pays_bonus: jax.Array  # (S,) bool

    @property
    def pool_size(self) -> int:
        return int(self.walls.shape[1])


@struct.dataclass
class MazeState:
    """N envs (leading axis), each bound to a slot."""

    walls: jax.Array  # (N, 13, 13) bool, copied at reset
    pos: jax.Array  # (N, 2) int32
    dir: jax.Array  # (N,) int32
    goal: jax.Array  # (N, 2) int32
    time: jax.Array  # (N,) int32 steps taken in the episode
    env_slot: jax.Array  # (N,) int32


def make_slots(pools: list[MazePool], pool_size: int, pays_bonus: list[bool]) -> LevelSlots:
    """Stack host pools into slots (each cycled or cut to ``pool_size`` layouts)."""
    fitted = [p.resized(pool_size) for p in pools]
    return LevelSlots(
        walls=jnp.asarray(np.stack([p.walls for p in fitted]).astype(bool)),
        start_pos=jnp.asarray(np.stack([p.start_pos for p in fitted]).astype(np.int32)),
        start_dir=jnp.asarray(np.stack([p.start_dir for p in fitted]).astype(np.int32)),
        goal_pos=jnp.asarray(np.stack([p.goal_pos for p in fitted]).astype(np.int32)),
        pays_bonus=jnp.asarray(np.asarray(pays_bonus, bool)),
    )


# --- one env -----------------------------------------------------------------------------------


def observe_one(
    walls: jax.Array, pos: jax.Array, direction: jax.Array, goal: jax.Array
) -> jax.Array:
    """The egocentric view (VIEW·VIEW·2, wall and goal channels) ++ the direction one-hot."""
    forward = _MOVES[direction]
    right = _MOVES[(direction + 1) % NUM_DIRECTIONS]
    rows = pos[0] + _AHEAD * forward[0] + _SIDE * right[0]
    cols = pos[1] + _AHEAD * forward[1] + _SIDE * right[1]
    inside = (rows >= 0) & (rows < SIZE) & (cols >= 0) & (cols < SIZE)
    wall = jnp.where(inside, walls[jnp.clip(rows, 0, SIZE - 1), jnp.clip(cols, 0, SIZE - 1)], True)
    is_goal = (rows == goal[0]) & (cols == goal[1])
    view = jnp.stack([wall, is_goal], axis=-1).astype(jnp.float32).reshape(-1)
    return jnp.concatenate([view, jax.nn.one_hot(direction, NUM_DIRECTIONS)])


def move_one(
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


# --- N envs ------------------------------------------------------------------------------------


def observe(state: MazeState) -> jax.Array:
    """(N, OBS_SIZE) observations."""
    return jax.vmap(observe_one)(state.walls, state.pos, state.dir, state.goal)


def transition(
    state: MazeState, action: jax.Array, max_steps: int = MAX_STEPS
) -> tuple[MazeState, jax.Array, jax.Array, jax.Array]:
    """One step of every env without resets: ``(state, reward, success, done)``. ``max_steps``
    ≤ T ends episodes earlier (evaluation caps); the reward formula keeps T."""
    pos, direction = jax.vmap(move_one)(state.walls, state.pos, state.dir, action)
    time = state.time + 1
    success = jnp.all(pos == state.goal, axis=1)
    reward = jnp.where(success, goal_reward(time), 0.0)
    done = success | (time >= min(max_steps, MAX_STEPS))
    return replace(state, pos=pos, dir=direction, time=time), reward, success, done


def _pick(slots: LevelSlots, env_slot: jax.Array, picks: jax.Array) -> dict[str, jax.Array]:
    return {
        "walls": slots.walls[env_slot, picks],
        "pos": slots.start_pos[env_slot, picks],
        "dir": slots.start_dir[env_slot, picks],
        "goal": slots.goal_pos[env_slot, picks],
    }


def reset(key: jax.Array, slots: LevelSlots, env_slot: jax.Array) -> tuple[jax.Array, MazeState]:
    """Start every env on a uniformly drawn pool entry of its slot. ``env_slot``: (N,) int32."""
    picks = jax.random.randint(key, env_slot.shape, 0, slots.pool_size)
    fields = _pick(slots, env_slot, picks)
    state = MazeState(
        time=jnp.zeros(env_slot.shape, jnp.int32), env_slot=env_slot.astype(jnp.int32), **fields
    )
    return observe(state), state


def restart(
    key: jax.Array, state: MazeState, which: jax.Array, slots: LevelSlots
) -> tuple[jax.Array, MazeState]:
    """Envs where ``which`` (N,) is True start a new episode from their slot's pool (e.g. after
    a new level was written into it, or after their episode ended); the others keep playing."""
    picks = jax.random.randint(key, which.shape, 0, slots.pool_size)
    fresh = _pick(slots, state.env_slot, picks)

    def choose(new: jax.Array, old: jax.Array) -> jax.Array:
        mask = which.reshape(which.shape + (1,) * (old.ndim - 1))
        return jnp.where(mask, new, old)

    state = replace(
        state,
        walls=choose(fresh["walls"], state.walls),
        pos=choose(fresh["pos"], state.pos),
        dir=choose(fresh["dir"], state.dir),
        goal=choose(fresh["goal"], state.goal),
        time=jnp.where(which, 0, state.time),
    )
    return observe(state), state


def step(
    key: jax.Array, state: MazeState, action: jax.Array, slots: LevelSlots
) -> tuple[jax.Array, MazeState, jax.Array, jax.Array, dict[str, jax.Array]]:
    """Step all N envs; finished ones restart from their slot's pool.

    Returns ``(obs, state, reward, done, info)``; ``info`` holds ``success``, ``completed``
    (a success in a slot that pays the completion bonus) and ``length`` (the episode's steps so
    far, before the reset).
    """
    state, reward, success, done = transition(state, action)
    completed = success & slots.pays_bonus[state.env_slot]
    info = {"success": success, "completed": completed, "length": state.time}
    obs, state = restart(key, state, done, slots)
    return obs, state, reward, done, info


def success_at_reset(state: MazeState) -> jax.Array:
    """(N,) the agent already stands on the goal (a broken level)."""
    return jnp.all(state.pos == state.goal, axis=1)


def single_level_slots(pool: MazePool) -> LevelSlots:
    """A pool as one slot of its own size (no bonus): rollouts and evaluation play it."""
    return make_slots([pool], pool.size, [False])


def pool_state(pool: MazePool) -> MazeState:
    """One env per pool instance, each at its instance's start (for rollouts and evaluation)."""
    n = pool.size
    return MazeState(
        walls=jnp.asarray(pool.walls.astype(bool)),
        pos=jnp.asarray(pool.start_pos.astype(np.int32)),
        dir=jnp.asarray(pool.start_dir.astype(np.int32)),
        goal=jnp.asarray(pool.goal_pos.astype(np.int32)),
        time=jnp.zeros((n,), jnp.int32),
        env_slot=jnp.zeros((n,), jnp.int32),
    )
